"""Extract the text layer of a PDF page by page with pypdf."""

from __future__ import annotations

import io
import logging

from pypdf import PasswordType, PdfReader
from pypdf.errors import DependencyError, LimitReachedError

from incremind_daemon.errors import ExtractError

from .extracted import Extracted, display_name, finish, memory_error
from .text import normalise_newlines

log = logging.getLogger(__name__)

PAGE_SEPARATOR = "\n\n"


def extract_pdf(data: bytes, name: str) -> Extracted:
    """Extract text per page and record where each page starts.

    Pages without text add no entry to `pages`, so page_at() on any offset
    names a page that has text there.
    """
    shown = display_name(name)
    # pypdf raises many exception types on broken files; this is the edge of the system.
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            _decrypt_with_empty_password(reader, shown)
        page_count = len(reader.pages)
    except ExtractError:
        raise
    except MemoryError:
        raise memory_error(name) from None
    except LimitReachedError as exc:  # a valid file can be this large: say so, not that it is damaged
        log.info("pypdf's limits stopped reading %s: %s", shown, exc)
        raise ExtractError(
            f"{shown} has more pages or parts than the PDF reader takes at once (its limit is 100,000: {exc}); "
            f"split it into smaller files (e.g. qpdf --split-pages=10000 {shown} part.pdf) and drop those."
        ) from None
    except Exception as exc:  # pypdf raises any type on a broken file
        log.info("pypdf could not open %s: %r", shown, exc)
        raise _damaged(shown) from None
    parts: list[str] = []
    pages: list[tuple[int, int]] = []
    offset = 0
    failed = 0
    for number in range(1, page_count + 1):
        text = _page_text(reader, number, shown)
        if text is None:
            failed += 1
            continue
        if not text:
            continue
        if parts:
            offset += len(PAGE_SEPARATOR)
        pages.append((offset, number))
        parts.append(text)
        offset += len(text)
    if not parts:
        if failed and failed == page_count:
            raise _damaged(shown)
        raise ExtractError(
            f"{shown} has no text layer (scanned?); run OCR on it (e.g. ocrmypdf) and drop the result again."
        )
    return finish(
        PAGE_SEPARATOR.join(parts),
        title=_metadata_title(reader),
        media_type="application/pdf",
        name=name,
        pages=tuple(pages),
    )


def _decrypt_with_empty_password(reader: PdfReader, shown: str) -> None:
    try:
        result = reader.decrypt("")
    except DependencyError:
        raise ExtractError(
            f"{shown} is encrypted with AES, which needs the 'cryptography' package; "
            "install it or remove the password (print to PDF) and drop it again."
        ) from None
    if result == PasswordType.NOT_DECRYPTED:
        raise ExtractError(f"{shown} is encrypted; remove the password (print to PDF) and drop it again.")


def _page_text(reader: PdfReader, number: int, shown: str) -> str | None:
    """Return the cleaned text of one page, or None if the page cannot be read."""
    try:
        raw = reader.pages[number - 1].extract_text()
    except MemoryError:
        raise memory_error(shown) from None
    except Exception as exc:  # pypdf raises any type on a broken file
        log.warning("skipping unreadable page %d of %s: %r", number, shown, exc)
        return None
    return normalise_newlines(raw.replace("\x00", "")).strip()


def _metadata_title(reader: PdfReader) -> str:
    try:
        metadata = reader.metadata
        title = metadata.title if metadata is not None else None
    except Exception as exc:  # pypdf raises any type on a broken file
        log.debug("unreadable PDF metadata: %r", exc)
        return ""
    return str(title) if title else ""


def _damaged(shown: str) -> ExtractError:
    return ExtractError(
        f"{shown} is damaged and cannot be read as a PDF; open and save it again (or print to PDF) and drop it again."
    )
