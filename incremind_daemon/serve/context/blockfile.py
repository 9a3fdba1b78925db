"""Keep one managed block inside a user's file, never touching a byte outside its markers.

The block sits between ``<!-- incremind:begin -->`` and ``<!-- incremind:end -->``
(HTML comments, which Claude Code strips before injection, so the markers cost
no tokens). A missing file is created; a file without markers gets the block
appended after a blank line; a file with one begin and one end marker gets the
text between them replaced. Anything else (a marker without its pair, two
blocks, an end before the begin, a file that is not UTF-8) leaves the file
alone and reports a problem.

The file keeps its encoding (UTF-8 with or without BOM), its newline style
(CRLF or LF, by majority), whether it ends with a newline, and its mode and
owner; a file incremind creates is 0600, since the block holds memory. A
symlink is followed, so the file it points to is updated. Writes go to
a temp file in the same folder, are fsynced and renamed over the original. A
block whose lines below the two clock-dependent head lines are unchanged is not
written at all, so the file's mtime only moves when memory did.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from incremind_daemon.private import PRIVATE_FILE, make_private_folders, replacing

log = logging.getLogger(__name__)

BEGIN = "<!-- incremind:begin -->"
END = "<!-- incremind:end -->"
_BEGIN = re.compile(r"<!--\s*incremind:begin\b.*?-->")
_END = re.compile(r"<!--\s*incremind:end\b.*?-->")
_BOM = b"\xef\xbb\xbf"
_RACE_RETRIES = 3


@dataclass(frozen=True, slots=True)
class BlockWrite:
    """What happened to one file."""

    path: Path
    changed: bool  # the file was written (or, for a removal, the block taken out)
    created: bool = False  # the file did not exist before
    problem: str | None = None  # why the file was left alone


class BrokenMarkers(ValueError):
    """The file's markers are not exactly one begin followed by one end."""


@dataclass(frozen=True, slots=True)
class TextFile:
    """A text file as read: its text and the conventions to write it back with."""

    text: str
    bom: bool
    newline: str  # "\r\n" or "\n"
    mode: int | None  # None: the file does not exist yet
    uid: int = -1
    gid: int = -1
    mtime_ns: int = 0
    size: int = 0

    def encode(self, text: str) -> bytes:
        """Return text as this file's bytes."""
        return (_BOM if self.bom else b"") + text.encode("utf-8")


def read_text_file(path: Path) -> TextFile:
    """Read a file and its conventions; a missing file reads as empty with LF newlines.

    Raise UnicodeDecodeError for a file that is not UTF-8.
    """
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            data = handle.read()
    except FileNotFoundError:
        return TextFile("", False, "\n", None)
    bom = data.startswith(_BOM)
    text = data[len(_BOM) :].decode("utf-8") if bom else data.decode("utf-8")
    crlf = text.count("\r\n")
    newline = "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"
    return TextFile(
        text, bom, newline, stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid, info.st_mtime_ns, len(data)
    )


def find_block(text: str) -> tuple[int, int, int, int] | None:
    """Return (begin start, begin end, end start, end end) of the block, or None if there is none.

    Raise BrokenMarkers when the markers do not form exactly one block.
    """
    begins = list(_BEGIN.finditer(text))
    ends = list(_END.finditer(text))
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1:
        what = (
            "an incremind begin marker without an end marker"
            if begins and not ends
            else "an incremind end marker without a begin marker"
            if ends and not begins
            else f"{len(begins)} incremind begin and {len(ends)} end markers"
        )
        raise BrokenMarkers(what)
    begin, end = begins[0], ends[0]
    if end.start() < begin.end():
        raise BrokenMarkers("the incremind end marker comes before the begin marker")
    return begin.start(), begin.end(), end.start(), end.end()


def block_lines(text: str) -> list[str] | None:
    """Return the lines inside the block of a file's text (None without a block)."""
    span = find_block(text)
    if span is None:
        return None
    inner = text[span[1] : span[2]].replace("\r\n", "\n")
    return inner.strip("\n").split("\n")


def splice_block(text: str, block: str, newline: str) -> str:
    """Return text with the block (LF-separated lines) in place between the markers, or appended."""
    body = block.replace("\n", newline)
    framed = f"{BEGIN}{newline}{body}{newline}{END}"
    span = find_block(text)
    if span is not None:
        return text[: span[0]] + framed + text[span[3] :]
    if not text:
        return framed + newline
    ends_with_newline = text.endswith(("\n", "\r"))
    # the markers need lines of their own; the file's last line keeps its (missing) newline at the end
    lead = ("" if ends_with_newline else newline) + (newline if text.strip() else "")
    return text + lead + framed + (newline if ends_with_newline else "")


def cut_block(text: str, newline: str) -> str:
    """Return text without the block and its markers, undoing what appending added."""
    span = find_block(text)
    if span is None:
        return text
    before, after = text[: span[0]], text[span[3] :]
    if after in ("", newline) and before.endswith(newline * 2):
        # appended: the blank line before it, and a newline the last line lacked when there was no trailing one
        return before[: -2 * len(newline)] if after == "" else before[: -len(newline)]
    return before + (after[len(newline) :] if after.startswith(newline) else after)


def same_block(current: list[str] | None, block: str, head_lines: int) -> bool:
    """Tell whether the block in a file differs from ``block`` only in its clock-dependent head lines."""
    if current is None:
        return False
    wanted = block.split("\n")
    return len(current) == len(wanted) and current[head_lines:] == wanted[head_lines:]


def write_block(path: Path, block: str, *, head_lines: int = 0) -> BlockWrite:
    """Put the block into the file at ``path`` unless it is already there; never raise for a bad file."""
    target = _resolved(path)
    for _ in range(_RACE_RETRIES):
        try:
            current = read_text_file(target)
        except UnicodeDecodeError:
            return BlockWrite(path, False, problem=f"{path} is not UTF-8 text; it was left alone")
        except OSError as exc:
            return BlockWrite(path, False, problem=f"cannot read {path}: {exc.strerror or exc}")
        try:
            if same_block(block_lines(current.text), block, head_lines):
                return BlockWrite(path, False)
            new_text = splice_block(current.text, block, current.newline)
        except BrokenMarkers as exc:
            return BlockWrite(
                path, False, problem=f"{path} has {exc}; the file was left alone (fix or delete the markers)"
            )
        try:
            if replace_file(target, current.encode(new_text), like=current):
                return BlockWrite(path, True, created=current.mode is None)
        except OSError as exc:
            return BlockWrite(path, False, problem=f"cannot write {path}: {exc.strerror or exc}")
    return BlockWrite(path, False, problem=f"{path} kept changing while incremind wrote it; it will be tried again")


def remove_block(path: Path) -> BlockWrite:
    """Take the block and its markers out of a file; text outside them stays as it is."""
    target = _resolved(path)
    try:
        current = read_text_file(target)
        if current.mode is None:
            return BlockWrite(path, False)
        new_text = cut_block(current.text, current.newline)
    except UnicodeDecodeError:
        return BlockWrite(path, False, problem=f"{path} is not UTF-8 text; it was left alone")
    except BrokenMarkers as exc:
        return BlockWrite(path, False, problem=f"{path} has {exc}; the file was left alone (fix or delete the markers)")
    except OSError as exc:
        return BlockWrite(path, False, problem=f"cannot read {path}: {exc.strerror or exc}")
    if new_text == current.text:
        return BlockWrite(path, False)
    try:
        replace_file(target, current.encode(new_text), like=current)
    except OSError as exc:
        return BlockWrite(path, False, problem=f"cannot write {path}: {exc.strerror or exc}")
    return BlockWrite(path, True)


def write_owned_file(path: Path, text: str, *, head_lines: int = 0) -> bool:
    """Write a file incremind owns whole (an import target, a hook file) unless it is unchanged."""
    try:
        current = read_text_file(path)
    except UnicodeDecodeError:
        current = TextFile("", False, "\n", 0o644)
    if current.mode is not None and same_block(current.text.rstrip("\n").split("\n"), text, head_lines):
        return False
    make_private_folders(path.parent)
    replace_file(path, (text + "\n").encode("utf-8"), like=None if current.mode is None else current)
    return True


def replace_file(path: Path, data: bytes, *, like: TextFile | None) -> bool:
    """Replace a file atomically with data, keeping the mode and owner of the file it was read as.

    Return False (and write nothing) when the file changed since ``like`` was
    read, so the caller can read it again instead of losing the user's edit.
    """

    def unless_changed(temp: Path) -> None:
        if like is None:
            return
        if like.mode is not None and os.geteuid() == 0 and like.uid >= 0:
            with suppress(OSError):
                os.chown(temp, like.uid, like.gid)
        if _changed_since(path, like):
            raise _Changed

    # a new file is 0600 whatever the umask: the block holds memory; an existing one keeps its mode
    mode = like.mode if like is not None and like.mode is not None else PRIVATE_FILE
    try:
        with replacing(path, mode=mode, before_rename=unless_changed) as handle:
            handle.write(data)
    except _Changed:
        return False
    return True


class _Changed(Exception):
    """The file changed since it was read: it is read again, not overwritten."""


def _changed_since(path: Path, like: TextFile) -> bool:
    try:
        info = path.stat()
    except FileNotFoundError:
        return like.mode is not None
    if like.mode is None:
        return True  # created by someone else meanwhile
    return info.st_mtime_ns != like.mtime_ns or info.st_size != like.size


def _resolved(path: Path) -> Path:
    """Follow a symlinked instruction file (CLAUDE.md -> AGENTS.md) to the file it names."""
    return path.resolve() if path.is_symlink() else path
