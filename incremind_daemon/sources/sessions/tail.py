"""Read appended complete lines from session logs and notice replaced or truncated files.

The tailer's loop, per file:

1. ``new = identify(path, head_len=old.head_len)``; if ``needs_reread(old, new, offset)``,
   start over from offset 0 with a fresh parser (the store dedupes by message id).
2. ``chunk = read_complete_lines(path, offset)``; feed each line with its start offset,
   ``parser.feed(line, offset=at)`` for ``line, at in zip(chunk.lines, chunk.offsets)``,
   then ``flush()``; repeat from ``chunk.end`` while ``chunk.end > chunk.start``.
3. Persist ``parser.resume_offset`` (or ``chunk.end`` for parsers without one) together
   with the rows, and ``identify(path)`` as the new identity.

Passing ``head_len=old.head_len`` matters for files that were shorter than the head when
last seen: both hashes then cover the same bytes, so growth is not mistaken for replacement.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import logging
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

HEAD_BYTES = 4096
_SCAN_BLOCK = 1 << 20


@dataclass(frozen=True, slots=True)
class FileIdentity:
    dev: int
    inode: int
    size: int
    head_hash: str  # sha256 hex of the first head_len bytes
    head_len: int = HEAD_BYTES  # bytes hashed: min(requested, size)


@dataclass(frozen=True, slots=True)
class TailChunk:
    lines: tuple[bytes, ...]  # complete lines without their b"\n"
    start: int
    end: int  # just past the last complete line consumed, oversized lines included
    offsets: tuple[int, ...] = ()  # where each of ``lines`` starts in the file


@contextlib.contextmanager
def open_regular(path: Path) -> Iterator[io.BufferedReader]:
    """Open a regular file for reading; refuse a link, and a pipe or device without waiting on it."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        handle = open(fd, "rb")  # noqa: SIM115 - closed below, after the with body
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle


def identify(path: Path, *, head_len: int = HEAD_BYTES) -> FileIdentity:
    """Describe a file by device, inode, size and a hash of its first bytes."""
    with open_regular(path) as handle:
        info = os.fstat(handle.fileno())
        length = min(head_len, info.st_size)
        head = handle.read(length)
    return FileIdentity(
        dev=info.st_dev,
        inode=info.st_ino,
        size=info.st_size,
        head_hash=hashlib.sha256(head).hexdigest(),
        head_len=len(head),
    )


def needs_reread(old: FileIdentity, new: FileIdentity, offset: int) -> bool:
    """Tell whether the file was replaced or truncated since ``old`` was taken.

    Heads are compared only when both hashes cover the same number of bytes.
    """
    if (old.dev, old.inode) != (new.dev, new.inode):
        return True
    if new.size < offset or new.size < old.size:
        return True
    return old.head_len == new.head_len and old.head_hash != new.head_hash


def read_complete_lines(path: Path, offset: int, *, max_bytes: int = 8 << 20, max_line: int = 16 << 20) -> TailChunk:
    """Read the complete lines after ``offset``; a trailing partial line is left unread.

    About ``max_bytes`` are read per call, but a single line longer than that is still
    returned whole when it is at most ``max_line`` bytes. A longer line is skipped (its bytes
    are consumed, so ``end`` moves past it) once its newline has been written.
    """
    with open_regular(path) as handle:
        handle.seek(offset)
        data = handle.read(max_bytes)
        cut = data.rfind(b"\n")
        if cut >= 0:
            return _chunk(data[: cut + 1], offset, max_line, path)
        if len(data) < max_bytes:
            return TailChunk((), offset, offset)  # only a partial line so far
        return _read_long_line(handle, path, offset, data, max_line)


def _read_long_line(handle: io.BufferedReader, path: Path, offset: int, head: bytes, max_line: int) -> TailChunk:
    pieces, size = [head], len(head)
    while size <= max_line:
        block = handle.read(min(_SCAN_BLOCK, max_line + 1 - size))
        if not block:
            return TailChunk((), offset, offset)
        newline = block.find(b"\n")
        if newline >= 0:
            pieces.append(block[:newline])
            return TailChunk((b"".join(pieces),), offset, offset + size + newline + 1, (offset,))
        pieces.append(block)
        size += len(block)
    pieces.clear()  # too long to keep: scan on for its end without holding it
    while True:
        block = handle.read(_SCAN_BLOCK)
        if not block:
            return TailChunk((), offset, offset)  # the oversized line is still being written
        newline = block.find(b"\n")
        if newline >= 0:
            log.warning("skipped a line of more than %d bytes at offset %d in %s", max_line, offset, path)
            return TailChunk((), offset, offset + size + newline + 1)
        size += len(block)


def _chunk(data: bytes, offset: int, max_line: int, path: Path) -> TailChunk:
    lines: list[bytes] = []
    offsets: list[int] = []
    position = offset
    for line in data[:-1].split(b"\n"):
        if len(line) <= max_line:
            lines.append(line)
            offsets.append(position)
        else:
            log.warning("skipped a line of more than %d bytes at offset %d in %s", max_line, position, path)
        position += len(line) + 1
    return TailChunk(tuple(lines), offset, offset + len(data), tuple(offsets))
