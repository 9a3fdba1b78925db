"""The result of extraction and the rules every extractor shares."""

from __future__ import annotations

import bisect
import logging
from dataclasses import dataclass
from pathlib import PurePath

from incremind_daemon.errors import ExtractError

log = logging.getLogger(__name__)

_TITLE_MAX_CHARS = 200


@dataclass(frozen=True, slots=True)
class Extracted:
    """Cleaned text of one file; offsets into `text` are stored forever."""

    text: str
    title: str
    media_type: str
    pages: tuple[tuple[int, int], ...] = ()  # (start offset in text, 1-based page), ascending


def page_at(pages: tuple[tuple[int, int], ...], offset: int) -> int | None:
    """Return the page number whose text contains offset, or None."""
    index = bisect.bisect_right(pages, offset, key=lambda entry: entry[0]) - 1
    return pages[index][1] if index >= 0 else None


def display_name(name: str) -> str:
    """Return the file name as the user knows it, without folders."""
    return PurePath(name).name or name


def clean_title(title: str, name: str) -> str:
    """Collapse whitespace in title; fall back to the file stem."""
    collapsed = " ".join(title.split())[:_TITLE_MAX_CHARS].strip()
    return collapsed or PurePath(display_name(name)).stem or display_name(name)


def empty_error(name: str) -> ExtractError:
    """Build the error for a file with no text in it."""
    return ExtractError(f"{display_name(name)} is empty; add some text to it and drop it again.")


def memory_error(name: str) -> ExtractError:
    """Build the error for a file that needs more memory to read than the reader may use."""
    return ExtractError(
        f"{display_name(name)} needs more memory to read than the reader may use; "
        "open and save it again (or split it) and drop it again."
    )


def finish(text: str, *, title: str, media_type: str, name: str, pages: tuple[tuple[int, int], ...] = ()) -> Extracted:
    """Check that text is not blank and build the result."""
    if not text.strip():
        raise empty_error(name)
    return Extracted(text=text, title=clean_title(title, name), media_type=media_type, pages=pages)
