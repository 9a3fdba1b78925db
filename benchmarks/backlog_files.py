"""Write a seeded drop-folder backlog for benchmarks/backlog.py: notes, web pages, data, PDFs, DOCX.

The mix is what a person's downloads look like rather than a text corpus:
most of the bytes sit in PDFs and DOCX files whose pages carry images, and in
web pages whose markup, scripts and styles outweigh the words. Writes only
under the folder it is given; imports nothing of incremind.
"""

from __future__ import annotations

import io
import json
import math
import random
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

from benchmarks.corpus import VOCAB, Writer, write_document
from tests.bad_files import pdf_from_objects

# shares of the drop folder's bytes, by the suffix the files get
FILE_SHARES = {"pdf": 0.50, "docx": 0.26, "html": 0.15, "md/txt": 0.04, "csv": 0.03, "json": 0.02}
PROJECTS = ("daily", "thesis", "kestrel-api", "学习笔记", "homelab", "reading")


@dataclass(slots=True)
class DropFolder:
    """What was written: files and bytes per kind."""

    files: Counter[str] = field(default_factory=Counter)
    bytes: Counter[str] = field(default_factory=Counter)

    @property
    def total_files(self) -> int:
        return sum(self.files.values())

    @property
    def total_bytes(self) -> int:
        return sum(self.bytes.values())


def _log_uniform(rng: random.Random, low: float, high: float) -> int:
    return round(math.exp(rng.uniform(math.log(low), math.log(high))))


def _english(writer: Writer, chars: int) -> str:
    """Return about chars of English paragraphs (PDF text must fit cp1252)."""
    parts: list[str] = []
    size = 0
    while size < chars:
        paragraph = writer.paragraph("en", writer.rng.randint(2, 6))
        parts.append(paragraph)
        size += len(paragraph) + 2
    return "\n\n".join(parts)


def _pdf_string(text: str) -> bytes:
    raw = text.encode("cp1252", errors="replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _wrap(text: str, width: int = 90) -> list[str]:
    lines: list[str] = []
    for paragraph in text.split("\n\n"):
        line = ""
        for word in paragraph.split():
            if len(line) + len(word) + 1 > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}".strip()
        lines += [line, ""]
    return lines


def pdf_with_images(pages: list[str], images: list[bytes]) -> bytes:
    """Return a PDF whose pages each carry text and one JPEG-like image (its bytes are not decoded)."""
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    kids: list[int] = []
    for number, text in enumerate(pages):
        image = images[number % len(images)] if images else b""
        resources = b"/Font << /F1 3 0 R >>"
        draw = b""
        if image:
            objects.append(
                b"<< /Type /XObject /Subtype /Image /Width 1600 /Height 1200 /ColorSpace /DeviceRGB "
                b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream" % (len(image), image)
            )
            resources += b" /XObject << /Im1 %d 0 R >>" % len(objects)
            draw = b"q 400 0 0 300 100 80 cm /Im1 Do Q\n"
        lines = b"".join(b"(%s) Tj T*\n" % _pdf_string(line) for line in _wrap(text)[:48])
        stream = draw + b"BT\n/F1 10 Tf\n13 TL\n60 740 Td\n" + lines + b"ET"
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << %s >> /Contents %d 0 R >>"
            % (resources, len(objects))
        )
        kids.append(len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    return pdf_from_objects(objects)


_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/><Default Extension="jpeg" ContentType="image/jpeg"/>'
    '<Override PartName="/word/document.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'officeDocument" Target="word/document.xml"/></Relationships>'
)


def docx_with_images(title: str, paragraphs: list[str], images: list[bytes]) -> bytes:
    """Return a DOCX with a heading, paragraphs and image parts (stored, as JPEGs are)."""
    body = f'<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>{escape(title)}</w:t></w:r></w:p>'
    body += "".join(f'<w:p><w:r><w:t xml:space="preserve">{escape(p)}</w:t></w:r></w:p>' for p in paragraphs)
    document = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{_W_NS}"><w:body>'
    document += f"{body}<w:sectPr/></w:body></w:document>"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("[Content_Types].xml", _CONTENT_TYPES)
        package.writestr("_rels/.rels", _ROOT_RELS)
        package.writestr("word/document.xml", document)
        for number, image in enumerate(images, start=1):
            package.writestr(f"word/media/image{number}.jpeg", image, compress_type=zipfile.ZIP_STORED)
    return buffer.getvalue()


_BOILERPLATE_SCRIPT = "window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}"


def html_page(writer: Writer, size: int) -> str:
    """Return a web page of about size bytes: nav, scripts and styles around an article."""
    rng = writer.rng
    kind = rng.choice(("zh", "en", "mixed"))
    title = writer.heading(kind)
    paragraphs = [writer.paragraph(kind, rng.randint(2, 6)) for _ in range(rng.randint(3, 12))]
    article = "".join(f"<p>{escape(p)}</p>\n" for p in paragraphs)
    nav = "".join(f'<li><a href="/{w}">{w}</a></li>' for w in rng.sample(VOCAB.en_nouns, 12))
    head = f"<!doctype html><html><head><title>{escape(title)}</title><style>"
    page = [head, ".c{margin:0 auto;max-width:72rem}" * 40, "</style></head><body>"]
    page += [f"<nav><ul>{nav}</ul></nav><article><h1>{escape(title)}</h1>\n{article}</article>"]
    filler = size - sum(len(p) for p in page)
    if filler > 0:  # bundled scripts: the bulk of a saved page's bytes
        chunk = f"<script>{_BOILERPLATE_SCRIPT};var s{rng.randint(0, 9999)}='{'x' * 900}';</script>\n"
        page.append(chunk * (filler // len(chunk) + 1))
    page.append("<footer>© 2026</footer></body></html>\n")
    return "".join(page)


def csv_table(writer: Writer, rows: int) -> str:
    rng = writer.rng
    lines = ["date,host,metric,value,note"]
    for _ in range(rows):
        lines.append(
            f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d},{rng.choice(VOCAB.tech)},"
            f"{rng.choice(VOCAB.identifiers)},{rng.randint(0, 100000)},{rng.choice(VOCAB.en_nouns)}"
        )
    return "\n".join(lines) + "\n"


def json_export(writer: Writer, records: int) -> str:
    rng = writer.rng
    data = [
        {
            "id": number,
            "title": writer.heading(rng.choice(("zh", "en"))),
            "tags": rng.sample(VOCAB.en_nouns, 3),
            "score": rng.random(),
        }
        for number in range(records)
    ]
    return json.dumps({"exported": "2026-11-30", "items": data}, ensure_ascii=False, indent=1)


def write_drop_folder(folder: Path, target_bytes: int, *, seed: int) -> DropFolder:
    """Write about target_bytes of files under folder/<project>/; return what was written."""
    rng = random.Random(seed)
    writer = Writer(rng)
    written = DropFolder()
    targets = {kind: target_bytes * share for kind, share in FILE_SHARES.items()}
    number = 0
    while written.total_bytes < target_bytes:
        # the kind furthest below its share goes next, so every size gets every kind
        kind = min(FILE_SHARES, key=lambda k: written.bytes[k] / targets[k])
        number += 1
        name, data = _one_file(writer, kind, number)
        target = folder / rng.choice(PROJECTS) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.files[kind] += 1
        written.bytes[kind] += len(data)
    return written


def _one_file(writer: Writer, kind: str, number: int) -> tuple[str, bytes]:
    rng = writer.rng
    if kind == "pdf":
        pages = [_english(writer, rng.randint(1200, 3500)) for _ in range(rng.randint(2, 16))]
        images = [rng.randbytes(_log_uniform(rng, 60_000, 900_000)) for _ in range(rng.randint(1, 6))]
        return f"{number:06d}-report.pdf", pdf_with_images(pages, images)
    if kind == "docx":
        paragraphs = [writer.paragraph(rng.choice(("zh", "en", "mixed")), rng.randint(2, 6)) for _ in range(40)]
        images = [rng.randbytes(_log_uniform(rng, 30_000, 600_000)) for _ in range(rng.randint(0, 4))]
        data = docx_with_images(writer.heading("mixed"), paragraphs[: rng.randint(4, 40)], images)
        return f"{number:06d}-memo.docx", data
    if kind == "html":
        return f"{number:06d}-page.html", html_page(writer, _log_uniform(rng, 30_000, 600_000)).encode()
    if kind == "csv":
        return f"{number:06d}-metrics.csv", csv_table(writer, _log_uniform(rng, 200, 12_000)).encode()
    if kind == "json":
        return f"{number:06d}-export.json", json_export(writer, _log_uniform(rng, 20, 2_000)).encode()
    document = write_document(writer, number)
    return document.name, document.text.encode()
