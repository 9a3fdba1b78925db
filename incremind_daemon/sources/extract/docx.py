"""Extract a Word .docx with zipfile and ElementTree, in body order."""

from __future__ import annotations

import io
import logging
import xml.etree.ElementTree as ET
import zipfile
import zlib
from collections.abc import Iterator

from incremind_daemon.errors import ExtractError

from .extracted import Extracted, display_name, finish, is_generic_title, memory_error
from .tabular import CELL_SEPARATOR
from .text import normalise_newlines

log = logging.getLogger(__name__)

DOCUMENT_PART = "word/document.xml"
MAX_PART_BYTES = 200 * 1024 * 1024
MAX_COMPRESSION_RATIO = 100
_RATIO_CHECK_FROM_BYTES = 1024 * 1024  # a part this small cannot be a bomb, whatever its ratio
_CORE_PART = "docProps/core.xml"
_STYLES_PART = "word/styles.xml"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
# Markup Compatibility: a Fallback repeats its Choice (e.g. text boxes), so read one only.
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"


class _BadDocx(Exception):
    """The package or one of its parts is not what a DOCX holds."""


def extract_docx(data: bytes, name: str) -> Extracted:
    """Extract paragraphs one per line and table rows as ' | '-joined cells."""
    shown = display_name(name)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            root = _parse(_read_part(package, DOCUMENT_PART, shown))
            heading_styles = _heading_styles(package, shown)
            core_title = _core_title(package, shown)
        ns = _namespace(root.tag)
        body = root.find(f"{ns}body")
        if body is None:
            raise _BadDocx("no w:body in the document part")
        blocks = [(line, is_heading) for line, is_heading in _walk_blocks(body, ns, heading_styles) if line.strip()]
    except ExtractError:
        raise
    except MemoryError:
        raise memory_error(name) from None
    # RecursionError (a RuntimeError) comes from absurdly nested XML.
    except (
        _BadDocx,
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        KeyError,
        ET.ParseError,
        NotImplementedError,
        RuntimeError,
        EOFError,
        OSError,
        ValueError,
        zlib.error,
    ) as exc:
        log.info("cannot read %s as DOCX: %r", shown, exc)
        raise ExtractError(
            f"{shown} is not a valid DOCX (the file is damaged or another format); "
            "open and save it again in Word and drop it again."
        ) from None
    first_heading = next((line for line, is_heading in blocks if is_heading), "")
    text = normalise_newlines("\n".join(line for line, _ in blocks))
    return finish(
        text,
        title=first_heading if is_generic_title(core_title) else core_title,
        name=name,
        media_type="application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    )


def _read_part(package: zipfile.ZipFile, part: str, shown: str) -> bytes:
    """Read one part, refusing sizes and compression ratios typical of zip bombs."""
    info = package.getinfo(part)
    ratio = info.file_size / max(info.compress_size, 1)
    is_bomb_like = info.file_size > _RATIO_CHECK_FROM_BYTES and ratio > MAX_COMPRESSION_RATIO
    if info.file_size > MAX_PART_BYTES or is_bomb_like:
        raise ExtractError(
            f"{shown} unpacks to {info.file_size:,} bytes from {info.compress_size:,} "
            "(a zip bomb?); it was refused: save it again in Word and drop it again."
        )
    with package.open(info) as stream:
        content = stream.read(MAX_PART_BYTES + 1)  # the header sizes may lie
    if len(content) > MAX_PART_BYTES:
        raise ExtractError(
            f"{shown} unpacks to more than {MAX_PART_BYTES:,} bytes; it was refused: split it and drop the parts again."
        )
    return content


def _parse(xml: bytes) -> ET.Element:
    if b"<!DOCTYPE" in xml or b"<!ENTITY" in xml:  # OOXML never declares entities
        raise _BadDocx("document type declaration in an OOXML part")
    return ET.fromstring(xml)


def _namespace(tag: str) -> str:
    """Return '{uri}' of a tag, so Transitional and Strict OOXML both work."""
    return tag[: tag.index("}") + 1] if tag.startswith("{") else ""


def _core_title(package: zipfile.ZipFile, shown: str) -> str:
    if _CORE_PART not in package.namelist():
        return ""
    try:
        title = _parse(_read_part(package, _CORE_PART, shown)).findtext(_DC_TITLE)
    except (_BadDocx, ET.ParseError) as exc:
        log.info("ignoring unreadable %s in %s: %r", _CORE_PART, shown, exc)
        return ""
    return title or ""


def _heading_styles(package: zipfile.ZipFile, shown: str) -> frozenset[str]:
    """Return ids of paragraph styles named 'heading N' or 'Title', or with an outline level."""
    if _STYLES_PART not in package.namelist():
        return frozenset()
    try:
        root = _parse(_read_part(package, _STYLES_PART, shown))
    except (_BadDocx, ET.ParseError) as exc:
        log.info("ignoring unreadable %s in %s: %r", _STYLES_PART, shown, exc)
        return frozenset()
    ns = _namespace(root.tag)
    ids: set[str] = set()
    for style in root.iter(f"{ns}style"):
        style_id = style.get(f"{ns}styleId", "")
        name_element = style.find(f"{ns}name")
        style_name = "" if name_element is None else name_element.get(f"{ns}val", "").lower()
        if (
            style_name.startswith("heading")
            or style_name == "title"
            or style.find(f"{ns}pPr/{ns}outlineLvl") is not None
        ):
            ids.add(style_id)
    return frozenset(ids)


def _walk_blocks(parent: ET.Element, ns: str, heading_styles: frozenset[str]) -> Iterator[tuple[str, bool]]:
    """Yield (line, is_heading) for paragraphs and table rows in body order."""
    for child in parent:
        if child.tag == f"{ns}p":
            yield _paragraph_text(child, ns), _is_heading(child, ns, heading_styles)
        elif child.tag == f"{ns}tbl":
            for row in _children(child, f"{ns}tr", ns):
                cells = _children(row, f"{ns}tc", ns)
                yield CELL_SEPARATOR.join(_cell_text(cell, ns) for cell in cells), False
        elif child.tag in (f"{ns}sdt", f"{ns}sdtContent", f"{ns}customXml"):
            yield from _walk_blocks(child, ns, heading_styles)


def _children(parent: ET.Element, tag: str, ns: str) -> Iterator[ET.Element]:
    """Yield children with tag, looking through content-control wrappers."""
    for child in parent:
        if child.tag == tag:
            yield child
        elif child.tag in (f"{ns}sdt", f"{ns}sdtContent", f"{ns}customXml"):
            yield from _children(child, tag, ns)


def _cell_text(cell: ET.Element, ns: str) -> str:
    """Join a cell's paragraphs and nested rows into one line."""
    parts = (line.replace("\n", " ") for line, _ in _walk_blocks(cell, ns, frozenset()))
    return " ".join(part for part in parts if part.strip())


def _paragraph_text(paragraph: ET.Element, ns: str) -> str:
    out: list[str] = []
    _collect_runs(paragraph, ns, out)
    return "".join(out)


def _collect_runs(element: ET.Element, ns: str, out: list[str]) -> None:
    for child in element:
        tag = child.tag
        if tag == f"{ns}t":
            out.append(child.text or "")
        elif tag == f"{ns}tab":
            out.append("\t")
        elif tag in (f"{ns}br", f"{ns}cr"):
            out.append("\n")
        elif tag == f"{ns}noBreakHyphen":
            out.append("-")
        elif tag in (f"{ns}pPr", f"{ns}rPr", f"{ns}del", f"{ns}moveFrom", _MC_FALLBACK):
            continue
        elif tag == f"{ns}p":  # a text box's paragraph inside this one
            out.append(" ")
            _collect_runs(child, ns, out)
        else:
            _collect_runs(child, ns, out)


def _is_heading(paragraph: ET.Element, ns: str, heading_styles: frozenset[str]) -> bool:
    properties = paragraph.find(f"{ns}pPr")
    if properties is None:
        return False
    if properties.find(f"{ns}outlineLvl") is not None:
        return True
    style = properties.find(f"{ns}pStyle")
    style_id = style.get(f"{ns}val", "") if style is not None else ""
    return style_id in heading_styles or style_id.lower().startswith(("heading", "title"))
