"""PDF and DOCX read in a warm child process: same text as in process, bounded in time and memory."""

from __future__ import annotations

import os
import signal
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from incremind_daemon.errors import ExtractError
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.sources.extract.isolated import MEMORY_LIMIT_BYTES, IsolatedExtractor
from tests.bad_files import pdf_from_objects, slow_pdf_bytes, zip_bomb_docx
from tests.sources.make_files import docx_bytes, pdf_bytes

TIMEOUT = 2.0


@pytest.fixture
def extractor() -> Iterator[IsolatedExtractor]:
    with IsolatedExtractor(TIMEOUT) as reader:
        yield reader


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("two.pdf", pdf_bytes(["first page", "second page"], title="A title")),
        ("doc.docx", docx_bytes(["# Heading", "a paragraph", [["a", "b"], ["c", "d"]]])),
    ],
)
def test_child_gives_the_same_result_as_in_process(extractor: IsolatedExtractor, name: str, data: bytes) -> None:
    assert extractor(data, name) == extract_bytes(data, name)
    assert extractor.children_started == 1


def test_plain_text_formats_stay_in_process(extractor: IsolatedExtractor) -> None:
    for name in ("a.txt", "a.md", "a.json", "a.csv", "a.html", "a.jsonl"):
        extractor(b'{"k": "words"}', name)
    assert extractor.children_started == 0


def test_errors_in_the_child_come_back_as_extract_errors(extractor: IsolatedExtractor) -> None:
    with pytest.raises(ExtractError, match="damaged"):
        extractor(b"%PDF-1.4 nothing else", "bad.pdf")
    with pytest.raises(ExtractError, match="zip bomb"):
        extractor(zip_bomb_docx(), "bomb.docx")
    assert extractor(pdf_bytes(["still fine"]), "ok.pdf").text == "still fine"
    assert extractor.children_started == 1  # a failed file does not cost the warm child


def test_slow_pdf_is_stopped_at_the_limit_and_the_next_file_gets_a_fresh_child(extractor: IsolatedExtractor) -> None:
    extractor(pdf_bytes(["warm up"]), "warm.pdf")
    started = time.monotonic()
    with pytest.raises(ExtractError, match="took longer than 2 s"):
        extractor(slow_pdf_bytes(), "slow.pdf")
    assert time.monotonic() - started < TIMEOUT + 3
    assert extractor(pdf_bytes(["after the slow one"]), "next.pdf").text == "after the slow one"
    assert extractor.children_started == 2


def test_a_child_that_dies_fails_its_file_and_is_replaced(extractor: IsolatedExtractor) -> None:
    extractor(pdf_bytes(["warm up"]), "warm.pdf")
    child = extractor._child  # the one place a test needs the process: to kill it from outside
    assert child is not None
    os.kill(child.pid, signal.SIGKILL)
    child.wait(5)
    assert extractor(pdf_bytes(["a new child reads this"]), "next.pdf").text == "a new child reads this"
    assert extractor.children_started == 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="address-space limits are checked on Linux")
def test_child_runs_under_a_memory_cap(extractor: IsolatedExtractor) -> None:
    extractor(pdf_bytes(["capped"]), "capped.pdf")
    assert extractor.memory_cap == MEMORY_LIMIT_BYTES
    child = extractor._child
    assert child is not None
    limits = Path(f"/proc/{child.pid}/limits").read_text(encoding="utf-8")
    line = next(line for line in limits.splitlines() if line.startswith("Max address space"))
    assert str(MEMORY_LIMIT_BYTES) in line


def greedy_pdf() -> bytes:
    """A 60 KB PDF whose content stream inflates to 60 MB."""
    packed = zlib.compress(b"BT /F1 12 Tf (x) Tj ET " + b" " * (60 << 20), 9)
    return pdf_from_objects(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed),
        ]
    )


def test_memory_blow_up_fails_the_file_and_recycles_the_child() -> None:
    # a cap below what the child already holds: every new large allocation fails
    with IsolatedExtractor(TIMEOUT, memory_limit_bytes=16 << 20) as starved:
        starved(pdf_bytes(["warm up"]), "warm.pdf")
        with pytest.raises(ExtractError, match="needs more memory"):
            starved(greedy_pdf(), "greedy.pdf")
        assert starved(pdf_bytes(["after"]), "after.pdf").text == "after"
        assert starved.children_started == 2


def test_close_stops_the_child() -> None:
    reader = IsolatedExtractor(TIMEOUT)
    reader(pdf_bytes(["x"]), "x.pdf")
    child = reader._child
    reader.close()
    assert child is not None and child.poll() is not None
