"""Arbitrary bytes give text or an ExtractError, never another exception."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incremind_daemon.errors import ExtractError
from incremind_daemon.sources.extract import Extracted, extract_bytes
from tests.sources.make_files import docx_bytes, pdf_bytes

SEEDS = [
    b"",
    b"{}",
    b"[1]",
    b"<p>x</p>",
    "中文".encode("gb18030"),
    b"\xff\xfe\x00",
    b"<![x",
    b"a,b\n",
    pdf_bytes(["seed"]),
    docx_bytes(["seed"]),
]


@pytest.mark.parametrize("name", ["x.txt", "x.md", "x.csv", "x.json", "x.jsonl", "x.html", "x.pdf", "x.docx"])
@settings(database=None, max_examples=150, deadline=None)
@given(
    data=st.one_of(
        st.binary(max_size=2_000),
        st.sampled_from(SEEDS),
        st.builds(lambda seed, cut: seed[:cut], st.sampled_from(SEEDS), st.integers(0, 4_000)),
        st.text(max_size=500).map(str.encode),
    )
)
def test_extract_bytes_returns_text_or_raises_extract_error(name: str, data: bytes) -> None:
    try:
        extracted = extract_bytes(data, name)
    except ExtractError as exc:
        assert str(exc).startswith("x.")
    else:
        assert isinstance(extracted, Extracted)
        assert extracted.text.strip()
        assert "\r" not in extracted.text
