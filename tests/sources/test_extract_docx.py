"""DOCX extraction with zipfile and ElementTree."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from incremind_daemon.errors import ExtractError
from incremind_daemon.sources.extract import extract_bytes
from tests.sources.make_files import W_NS, docx_bytes, make_docx

BLOCKS = [
    "# Design Notes",
    "First paragraph.",
    [["Key", "Value"], ["speed", "fast & cheap"]],
    "Paragraph after the table.",
]


def test_docx_keeps_body_order_with_table_rows_as_lines(tmp_path: Path) -> None:
    path = make_docx(tmp_path / "notes.docx", BLOCKS)
    extracted = extract_bytes(path.read_bytes(), path.name)
    assert extracted.text == (
        "Design Notes\nFirst paragraph.\nKey | Value\nspeed | fast & cheap\nParagraph after the table."
    )
    assert extracted.media_type.endswith("wordprocessingml.document")


@pytest.mark.parametrize(
    ("core_title", "blocks", "title"),
    [
        ("Core Title", BLOCKS, "Core Title"),
        (None, BLOCKS, "Design Notes"),
        (None, ["intro", "# Later Heading"], "Later Heading"),
        (None, ["no heading"], "notes"),
        ("Document1", BLOCKS, "Design Notes"),  # an editor's placeholder gives way to the heading
        ("Microsoft Word - Doc1.docx", ["no heading"], "notes"),
        ("未命名文档", BLOCKS, "Design Notes"),
    ],
)
def test_docx_title_is_core_title_then_first_heading(
    tmp_path: Path, core_title: str | None, blocks: list[str], title: str
) -> None:
    path = make_docx(tmp_path / "notes.docx", blocks, core_title=core_title)
    assert extract_bytes(path.read_bytes(), path.name).title == title


def test_docx_reads_tabs_breaks_and_skips_deleted_text() -> None:
    paragraph = (
        f'<w:p xmlns:w="{W_NS}"><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/>'
        "<w:t>c</w:t></w:r><w:del><w:r><w:delText>gone</w:delText></w:r></w:del></w:p>"
    )
    data = _replace_document(docx_bytes(["x"]), paragraph)
    assert extract_bytes(data, "r.docx").text == "a\tb\nc"


def test_docx_flattens_nested_table_into_its_cell() -> None:
    nested = (
        f'<w:tbl xmlns:w="{W_NS}"><w:tr><w:tc><w:p><w:r><w:t>outer</w:t></w:r></w:p>'
        "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>in1</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r>"
        "<w:t>in2</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:tc><w:tc><w:p><w:r>"
        "<w:t>right</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
    )
    data = _replace_document(docx_bytes(["x"]), nested)
    assert extract_bytes(data, "t.docx").text == "outer in1 | in2 | right"


def _zip(parts: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        for part, content in parts.items():
            package.writestr(part, content)
    return buffer.getvalue()


def _replace_document(data: bytes, body_xml: str) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        parts = {info.filename: package.read(info) for info in package.infolist()}
    parts["word/document.xml"] = (f'<w:document xmlns:w="{W_NS}"><w:body>{body_xml}</w:body></w:document>').encode()
    return _zip(parts)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"PK\x03\x04 definitely not a zip", id="bad-zip"),
        pytest.param(b"just some words", id="not-zip"),
        pytest.param(docx_bytes(BLOCKS)[:-30], id="truncated"),
        pytest.param(_zip({"[Content_Types].xml": b"<Types/>"}), id="missing-document"),
        pytest.param(_zip({"word/document.xml": b"<w:document><unclosed>"}), id="malformed-xml"),
        pytest.param(_zip({"word/document.xml": b'<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>'}), id="doctype"),
        pytest.param(_zip({"word/document.xml": f'<w:document xmlns:w="{W_NS}"/>'.encode()}), id="no-body"),
    ],
)
def test_corrupt_docx_raises_not_valid_docx(data: bytes) -> None:
    with pytest.raises(ExtractError, match=r"broken\.docx is not a valid DOCX"):
        extract_bytes(data, "broken.docx")


def test_docx_zip_bomb_raises_refused() -> None:
    padding = " " * 5_000_000  # deflates over 1000:1
    data = _replace_document(docx_bytes(["x"]), f"<w:p><w:r><w:t>{padding}</w:t></w:r></w:p>")
    with pytest.raises(ExtractError, match=r"bomb\.docx unpacks to 5,0\d\d,\d{3} bytes .*refused"):
        extract_bytes(data, "bomb.docx")
