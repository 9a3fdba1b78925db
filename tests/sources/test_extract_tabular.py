"""CSV, JSON and JSON Lines extraction."""

from __future__ import annotations

import json
import logging

import pytest

from incremind_daemon.errors import ExtractError
from incremind_daemon.sources.extract import extract_bytes


@pytest.mark.parametrize("delimiter", [",", "\t", ";"])
def test_csv_rows_become_lines_of_joined_cells(delimiter: str) -> None:
    raw = (
        delimiter.join(["name", "note", "n"]) + "\r\n" + delimiter.join(["Ann", '"line one\r\nline two"', "3"]) + "\r\n"
    )
    extracted = extract_bytes(raw.encode(), "people.csv")
    assert extracted.text == "name | note | n\nAnn | line one\nline two | 3"
    assert (extracted.title, extracted.media_type) == ("people", "text/csv")


def test_csv_keeps_quoted_delimiters_inside_cells() -> None:
    raw = 'a,b\n"x, y","say ""hi"""\n'
    assert extract_bytes(raw.encode(), "q.csv").text == 'a | b\nx, y | say "hi"'


def test_csv_decodes_gb18030() -> None:
    raw = "姓名,城市\n张三,北京\n".encode("gb18030")
    assert extract_bytes(raw, "c.csv").text == "姓名 | 城市\n张三 | 北京"


def test_json_scalars_become_key_path_lines() -> None:
    doc = {"title": "向量检索", "meta": {"tags": ["a", {"deep": True}], "n": 1.5, "none": None}, "empty": {}}
    text = extract_bytes(json.dumps(doc).encode(), "doc.json").text
    assert text.split("\n") == [
        "title: 向量检索",
        "meta.tags[0]: a",
        "meta.tags[1].deep: true",
        "meta.n: 1.5",
        "meta.none: null",
    ]


def test_json_top_level_scalar_is_its_value() -> None:
    assert extract_bytes(b'"just text"', "s.json").text == "just text"


@pytest.mark.parametrize("depth", [201, 50_000])
def test_json_raises_too_deep_when_nested_beyond_limit(depth: int) -> None:
    with pytest.raises(ExtractError, match=r"deep\.json is nested more than 200 levels deep"):
        extract_bytes(b"[" * depth + b"1" + b"]" * depth, "deep.json")


def test_json_nested_to_limit_is_extracted() -> None:
    assert extract_bytes(b"[" * 200 + b"1" + b"]" * 200, "ok.json").text.endswith(": 1")


@pytest.mark.parametrize("raw", [b'{"a": ', b"{'a': 1}", b"[1, 2,]"])
def test_json_raises_not_valid_when_malformed(raw: bytes) -> None:
    with pytest.raises(ExtractError, match=r"bad\.json is not valid JSON .*line 1"):
        extract_bytes(raw, "bad.json")


def test_jsonl_skips_broken_line_and_keeps_others(caplog: pytest.LogCaptureFixture) -> None:
    raw = b'{"role": "user", "text": "hi"}\n{broken\n\n{"role": "bot", "text": "yo"}\n'
    with caplog.at_level(logging.WARNING):
        extracted = extract_bytes(raw, "chat.jsonl")
    assert extracted.text == "role: user\ntext: hi\n\nrole: bot\ntext: yo"
    assert "line 2 of chat.jsonl" in caplog.text


def test_jsonl_raises_when_every_line_is_broken() -> None:
    with pytest.raises(ExtractError, match=r"chat\.jsonl has no valid JSON line \(line 1"):
        extract_bytes(b"{broken\nnot json either\n", "chat.jsonl")
