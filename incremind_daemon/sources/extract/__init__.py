"""Turn a dropped file into cleaned text, a title and, for PDFs, page offsets."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import PurePath

from incremind_daemon.errors import ExtractError

from .docx import extract_docx
from .extracted import Extracted, display_name, empty_error, page_at
from .pdf import extract_pdf
from .tabular import extract_csv, extract_json, extract_jsonl
from .text import extract_markdown, extract_plain
from .webpage import extract_html

__all__ = ["SUPPORTED_SUFFIXES", "Extracted", "extract_bytes", "page_at"]

log = logging.getLogger(__name__)

_EXTRACTORS: dict[str, Callable[[bytes, str], Extracted]] = {
    ".txt": extract_plain,
    ".md": extract_markdown,
    ".markdown": extract_markdown,
    ".csv": extract_csv,
    ".json": extract_json,
    ".jsonl": extract_jsonl,
    ".html": extract_html,
    ".htm": extract_html,
    ".pdf": extract_pdf,
    ".docx": extract_docx,
}
SUPPORTED_SUFFIXES: frozenset[str] = frozenset(_EXTRACTORS)


def extract_bytes(data: bytes, name: str) -> Extracted:
    """Extract text from a file's bytes, choosing the format by name's suffix.

    The same bytes and suffix always give the same text, so offsets into it
    can be stored. Raises ExtractError with a message for the user.
    """
    suffix = PurePath(name).suffix.lower()
    extractor = _EXTRACTORS.get(suffix)
    if extractor is None:
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        raise ExtractError(
            f"{display_name(name)} has an unsupported type ({suffix or 'no suffix'}); "
            f"convert it to one of {supported} and drop it again."
        )
    if not data.strip():
        raise empty_error(name)
    extracted = extractor(data, name)
    log.debug("extracted %d characters from %s", len(extracted.text), display_name(name))
    return extracted
