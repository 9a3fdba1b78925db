"""Build real test files (PDF, DOCX) in a folder; no external tools needed."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape

from pypdf import PdfReader, PdfWriter

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
DocxBlock = str | Sequence[Sequence[str]]


def pdf_bytes(pages: Sequence[str], *, title: str | None = None) -> bytes:
    """Return a minimal PDF with one Helvetica text page per string ('' = blank page)."""
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, filled in once the page object numbers are known
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    kids: list[int] = []
    for text in pages:
        stream = _content_stream(text)
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % len(objects)
        )
        kids.append(len(objects))
    kid_refs = b" ".join(b"%d 0 R" % kid for kid in kids)
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kid_refs, len(kids))
    trailer_extra = b""
    if title is not None:
        objects.append(b"<< /Title (%s) >>" % _pdf_string(title))
        trailer_extra = b" /Info %d 0 R" % len(objects)
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        trailer_extra,
        xref_at,
    )
    return bytes(out)


def make_pdf(
    path: Path,
    pages: Sequence[str],
    *,
    title: str | None = None,
    user_password: str | None = None,
    algorithm: str = "RC4-128",
) -> Path:
    """Write a text PDF to path; with user_password, encrypt it ('' opens without one)."""
    data = pdf_bytes(pages, title=title)
    if user_password is not None:
        writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
        writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm=algorithm)
        buffer = io.BytesIO()
        writer.write(buffer)
        data = buffer.getvalue()
    path.write_bytes(data)
    return path


def docx_bytes(blocks: Sequence[DocxBlock], *, core_title: str | None = None) -> bytes:
    """Return a minimal DOCX built from blocks, in order.

    A str is a paragraph (with a '# ' prefix, a Heading 1 paragraph); a
    sequence of rows of cells is a table.
    """
    body = "".join(_docx_block(block) for block in blocks)
    document = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        f'<w:document xmlns:w="{W_NS}"><w:body>{body}<w:sectPr/></w:body></w:document>'
    )
    parts = {
        "[Content_Types].xml": _CONTENT_TYPES,
        "_rels/.rels": _ROOT_RELS,
        "word/document.xml": document,
    }
    if core_title is not None:
        parts["docProps/core.xml"] = _CORE.format(title=escape(core_title))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        for part, xml in parts.items():
            package.writestr(part, xml.encode("utf-8"))
    return buffer.getvalue()


def make_docx(path: Path, blocks: Sequence[DocxBlock], *, core_title: str | None = None) -> Path:
    """Write a DOCX built by docx_bytes() to path."""
    path.write_bytes(docx_bytes(blocks, core_title=core_title))
    return path


def _content_stream(text: str) -> bytes:
    if not text:
        return b""
    lines = b"".join(b"(%s) Tj T*\n" % _pdf_string(line) for line in text.split("\n"))
    return b"BT\n/F1 12 Tf\n14 TL\n72 720 Td\n" + lines + b"ET"


def _pdf_string(text: str) -> bytes:
    raw = text.encode("cp1252")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _docx_block(block: DocxBlock) -> str:
    if isinstance(block, str):
        if block.startswith("# "):
            return f'<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>{escape(block[2:])}</w:t></w:r></w:p>'
        return f'<w:p><w:r><w:t xml:space="preserve">{escape(block)}</w:t></w:r></w:p>'
    rows = "".join(
        "<w:tr>" + "".join(f"<w:tc><w:p><w:r><w:t>{escape(cell)}</w:t></w:r></w:p></w:tc>" for cell in row) + "</w:tr>"
        for row in block
    )
    return f"<w:tbl><w:tblPr/>{rows}</w:tbl>"


_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" '
    'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    '<Override PartName="/docProps/core.xml" '
    'ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
    "</Types>"
)
_ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/>'
    "</Relationships>"
)
_CORE = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/'
    'metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">'
    "<dc:title>{title}</dc:title></cp:coreProperties>"
)
