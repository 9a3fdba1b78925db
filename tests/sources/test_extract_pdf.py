"""PDF extraction with page offsets, encryption and damage handling."""

from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import apply_configuration

from incremind_daemon.errors import ExtractError
from incremind_daemon.sources.extract import extract_bytes, page_at
from tests.bad_files import pdf_from_objects
from tests.sources.make_files import make_pdf, pdf_bytes

PAGES = [
    "Alpha page opens the report.",
    "Bravo page holds the zebra word.\nSecond line.",
    "Charlie page closes it.",
]


@pytest.fixture
def report(tmp_path: Path) -> Path:
    return make_pdf(tmp_path / "report.pdf", PAGES, title="Quarterly Report")


def test_pdf_pages_are_joined_by_blank_line(report: Path) -> None:
    extracted = extract_bytes(report.read_bytes(), report.name)
    assert extracted.text == "\n\n".join(PAGES)
    assert extracted.media_type == "application/pdf"


def test_pdf_records_start_offset_of_each_page(report: Path) -> None:
    extracted = extract_bytes(report.read_bytes(), report.name)
    second = len(PAGES[0]) + 2
    assert extracted.pages == ((0, 1), (second, 2), (second + len(PAGES[1]) + 2, 3))
    assert [extracted.text[start:].split()[0] for start, _ in extracted.pages] == [
        "Alpha",
        "Bravo",
        "Charlie",
    ]


@pytest.mark.parametrize(("word", "page"), [("Alpha", 1), ("zebra", 2), ("Second", 2), ("closes", 3)])
def test_pdf_word_maps_to_its_page(report: Path, word: str, page: int) -> None:
    extracted = extract_bytes(report.read_bytes(), report.name)
    assert page_at(extracted.pages, extracted.text.index(word)) == page


def test_pdf_blank_page_gets_no_entry_and_keeps_numbering(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "gap.pdf", ["one", "", "three"])
    extracted = extract_bytes(path.read_bytes(), path.name)
    assert (extracted.text, extracted.pages) == ("one\n\nthree", ((0, 1), (5, 3)))


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Quarterly Report", "Quarterly Report"),
        (None, "scan-free"),
        ("untitled", "scan-free"),
        ("Untitled Document 2", "scan-free"),
        ("Microsoft Word - Quarterly Report.docx", "Quarterly Report"),
        ("Documentation of the API", "Documentation of the API"),
    ],
)
def test_pdf_title_is_metadata_title_else_stem(tmp_path: Path, title: str | None, expected: str) -> None:
    path = make_pdf(tmp_path / "scan-free.pdf", ["text"], title=title)
    assert extract_bytes(path.read_bytes(), path.name).title == expected


@pytest.mark.parametrize("algorithm", ["RC4-40", "RC4-128", "AES-128", "AES-256"])
def test_pdf_encrypted_with_password_raises_is_encrypted(tmp_path: Path, algorithm: str) -> None:
    path = make_pdf(tmp_path / "secret.pdf", ["hidden"], user_password="pw", algorithm=algorithm)
    with pytest.raises(ExtractError, match=r"secret\.pdf is encrypted; remove the password"):
        extract_bytes(path.read_bytes(), path.name)


@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-256"])
def test_pdf_encrypted_with_empty_password_is_extracted(tmp_path: Path, algorithm: str) -> None:
    path = make_pdf(tmp_path / "open.pdf", ["readable text"], user_password="", algorithm=algorithm)
    assert extract_bytes(path.read_bytes(), path.name).text == "readable text"


def test_pdf_without_text_raises_no_text_layer(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "scan.pdf", ["", ""])
    with pytest.raises(ExtractError, match=r"scan\.pdf has no text layer \(scanned\?\).*OCR"):
        extract_bytes(path.read_bytes(), path.name)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"not a pdf at all", id="not-pdf"),
        pytest.param(b"%PDF-1.4\n%garbage\n" * 3, id="header-only"),
        pytest.param(pdf_bytes(PAGES)[:120], id="truncated"),
        pytest.param(pdf_bytes(["x"]).replace(b"/Pages 2 0 R", b"/Pages 9 0 R"), id="no-page-tree"),
    ],
)
def test_pdf_unreadable_raises_is_damaged(data: bytes) -> None:
    with pytest.raises(ExtractError, match=r"broken\.pdf is damaged"):
        extract_bytes(data, "broken.pdf")


def _many_pages(count: int) -> bytes:
    """A valid PDF whose pages all share one content stream: cheap to make at any page count."""
    content = b"BT /F1 12 Tf 72 712 Td (one of many pages) Tj ET"
    kids = " ".join(f"{5 + i} 0 R" for i in range(count)).encode()
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 3 0 R >> >> >>"
    )
    return pdf_from_objects(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
            *[page] * count,
        ]
    )


def test_a_pdf_past_the_readers_limits_is_called_too_large_not_damaged() -> None:
    # pypdf stops at 100,000 pages or array entries; lowered here, so the test need not build 100,000 pages
    with apply_configuration(array_maximum_element_count=50, page_tree_maximum_entries=50):
        with pytest.raises(ExtractError) as caught:
            extract_bytes(_many_pages(60), "atlas.pdf")
        assert extract_bytes(_many_pages(40), "atlas.pdf").text.count("one of many pages") == 40
    message = str(caught.value)
    assert "damaged" not in message and "split it" in message and "atlas.pdf" in message
