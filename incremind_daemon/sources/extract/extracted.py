"""The result of extraction and the rules every extractor shares."""

from __future__ import annotations

import bisect
import logging
import re
from dataclasses import dataclass
from pathlib import PurePath

from incremind_daemon.errors import ExtractError

log = logging.getLogger(__name__)

_TITLE_MAX_CHARS = 200
# what editors put in a file's title field when nobody gave it one; the file name says more
_GENERIC_TITLE = re.compile(
    r"(?:untitled|no title|none|null|unknown|title|new document|document|doc|presentation|slide|book|"
    r"untitled document|microsoft word|无标题(?:文档)?|未命名(?:文档)?|新建文档|文档|演示文稿)"
    r"[\s_-]*\d*(?:\.(?:docx?|pdf|pptx?|txt|md))?",
    re.IGNORECASE,
)
# "Microsoft Word - Q3 plan.docx": the editor's name and the file's extension around the real title
_EDITOR_PREFIX = re.compile(
    r"^(?:microsoft (?:word|powerpoint|excel)|wps 文字) - (.*?)(?:\.(?:docx?|pptx?|xlsx?))?$", re.IGNORECASE
)


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


def is_generic_title(title: str) -> bool:
    """Tell whether a title field holds an editor's placeholder ("Untitled", "Document1", "无标题") or nothing."""
    bare = _EDITOR_PREFIX.sub(r"\1", " ".join(title.split()))
    return not bare.strip(" .-_") or _GENERIC_TITLE.fullmatch(bare) is not None


def clean_title(title: str, name: str) -> str:
    """Collapse whitespace in title; fall back to the file stem when it is empty or a placeholder."""
    collapsed = _EDITOR_PREFIX.sub(r"\1", " ".join(title.split()))[:_TITLE_MAX_CHARS].strip()
    if is_generic_title(collapsed):
        collapsed = ""
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
