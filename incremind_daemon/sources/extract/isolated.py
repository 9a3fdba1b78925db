"""Read the formats whose parsers can hang or blow up (PDF, DOCX) in a child process under limits.

A hostile PDF can keep pypdf busy for minutes and a crafted package can ask for
gigabytes; neither may stall the daemon's one writer. The child is a plain
``python -m`` process (so the caller's ``__main__`` is never re-imported, as
multiprocessing's spawn would), started on first use and kept warm. It caps its
own address space where the OS allows and dies with its parent on Linux. A file
that runs past the time limit, or takes the child down, fails with a reason;
the child is killed and the next file gets a fresh one.

Frames on the child's stdin and stdout are a 4-byte big-endian length and a
JSON header, followed on requests by the file's bytes.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import resource  # POSIX, as the daemon's own lock (fcntl) is
import select
import struct
import subprocess
import sys
import threading
import time
from pathlib import PurePath
from types import TracebackType
from typing import IO, BinaryIO

from incremind_daemon.errors import ExtractError

from . import extract_bytes
from .extracted import Extracted, display_name, memory_error

log = logging.getLogger(__name__)

ISOLATED_SUFFIXES = frozenset({".pdf", ".docx"})  # plain-text formats stay in process: a child per file is slow
MEMORY_LIMIT_BYTES = 2 << 30
STARTUP_SECONDS = 60.0  # imports only; a cold disk on a busy machine can take a while
_RECYCLE_AFTER_FILES = 200  # a long-lived parser process only grows; start afresh now and then
_RECYCLE_AFTER_BYTES = 16 << 20  # after a large file, give its memory back at once
_HEADER = struct.Struct(">I")
_MAX_FRAME = 1 << 31
_PR_SET_PDEATHSIG = 1


class _ChildGone(Exception):
    """The child process died or closed its pipe."""


class IsolatedExtractor:
    """Extract like ``extract_bytes``, reading PDF and DOCX in a warm child process.

    Callable as an ``Extractor``; safe to call from several threads (calls
    are serialised). ``close()`` stops the child.
    """

    def __init__(self, timeout_seconds: float = 60.0, *, memory_limit_bytes: int | None = MEMORY_LIMIT_BYTES) -> None:
        self.timeout_seconds = timeout_seconds
        self._memory_limit = memory_limit_bytes
        self._lock = threading.Lock()
        self._child: subprocess.Popen[bytes] | None = None
        self._served = 0
        self.children_started = 0
        self.memory_cap: int | None = None  # the address-space limit the child runs under, if any

    def __call__(self, data: bytes, name: str) -> Extracted:
        if PurePath(name).suffix.lower() not in ISOLATED_SUFFIXES:
            return extract_bytes(data, name)
        with self._lock:
            return self._extract_in_child(data, name)

    def __enter__(self) -> IsolatedExtractor:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the child process, if one runs."""
        with self._lock:
            self._stop_child()

    def _extract_in_child(self, data: bytes, name: str) -> Extracted:
        shown = display_name(name)
        child = self._running_child()
        started = time.monotonic()
        try:
            _send(child, {"name": name, "size": len(data)}, data)
            reply = _receive(child, deadline=time.monotonic() + self.timeout_seconds)
        except TimeoutError:
            log.warning("reading %s took over %g s; stopping its reader", shown, self.timeout_seconds)
            self._stop_child(kill=True)
            raise ExtractError(
                f"{shown} took longer than {self.timeout_seconds:g} s to read (a damaged or hostile file?) "
                "and was stopped; open and save it again, or raise inbox.extract_timeout_seconds, "
                "and drop it again."
            ) from None
        except _ChildGone:
            code = child.poll()
            log.warning("the reader of %s died (exit code %s)", shown, code)
            self._stop_child(kill=True)
            raise ExtractError(
                f"{shown} made its reader crash or run out of memory; "
                "open and save it again (or print to PDF) and drop it again."
            ) from None
        self._served += 1
        if reply.get("memory") or self._served >= _RECYCLE_AFTER_FILES or len(data) > _RECYCLE_AFTER_BYTES:
            self._stop_child(kill=True)
        log.debug("read %s in a child process in %.2f s", shown, time.monotonic() - started)
        if "error" in reply:
            raise ExtractError(str(reply["error"]))
        raw_pages = reply.get("pages")
        pages = tuple((int(start), int(page)) for start, page in raw_pages) if isinstance(raw_pages, list) else ()
        return Extracted(str(reply["text"]), str(reply["title"]), str(reply["media_type"]), pages)

    def _running_child(self) -> subprocess.Popen[bytes]:
        if self._child is not None and self._child.poll() is None:
            return self._child
        if self._child is not None:
            self._stop_child()
        limit = "" if self._memory_limit is None else str(self._memory_limit)
        child = subprocess.Popen(
            [sys.executable, "-m", __name__, limit],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=_child_env(),
            close_fds=True,
        )
        try:
            ready = _receive(child, deadline=time.monotonic() + STARTUP_SECONDS)
        except (TimeoutError, _ChildGone):
            _end(child, kill=True)
            raise ExtractError(
                "the PDF/DOCX reader process could not start; run `incremind doctor` and check the log."
            ) from None
        log.debug("started a reader process (pid %d, memory cap %s)", child.pid, ready.get("memory_cap"))
        self._child = child
        self._served = 0
        self.children_started += 1
        cap = ready.get("memory_cap")
        self.memory_cap = cap if isinstance(cap, int) else None
        return child

    def _stop_child(self, *, kill: bool = False) -> None:
        child, self._child = self._child, None
        if child is not None:
            _end(child, kill=kill)


def _child_env() -> dict[str, str]:
    """The parent's environment, with this package importable whatever the working folder."""
    root = str(PurePath(__file__).parents[3])
    paths = [root, *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != root)]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths))


def _end(child: subprocess.Popen[bytes], *, kill: bool) -> None:
    if kill:
        child.kill()
    for stream in (child.stdin, child.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    try:
        child.wait(timeout=5)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def _send(child: subprocess.Popen[bytes], header: dict[str, object], body: bytes = b"") -> None:
    stream = child.stdin
    if stream is None:
        raise _ChildGone
    try:
        _write_frame(stream, header, body)
    except (BrokenPipeError, ValueError, OSError):
        raise _ChildGone from None


def _write_frame(stream: IO[bytes], header: dict[str, object], body: bytes = b"") -> None:
    encoded = json.dumps(header).encode()
    stream.write(_HEADER.pack(len(encoded)) + encoded)
    stream.write(body)
    stream.flush()


def _receive(child: subprocess.Popen[bytes], *, deadline: float) -> dict[str, object]:
    """Read one reply frame, waiting no later than deadline (monotonic seconds)."""
    if child.stdout is None:
        raise _ChildGone
    fd = child.stdout.fileno()
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size, deadline))
    if size > _MAX_FRAME:
        raise _ChildGone
    reply = json.loads(_read_exact(fd, size, deadline))
    if not isinstance(reply, dict):
        raise _ChildGone
    return reply


def _read_exact(fd: int, size: int, deadline: float) -> bytes:
    parts: list[bytes] = []
    left = size
    while left:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        readable, _, _ = select.select([fd], [], [], remaining)
        if not readable:
            raise TimeoutError
        block = os.read(fd, min(left, 1 << 20))
        if not block:
            raise _ChildGone
        parts.append(block)
        left -= len(block)
    return b"".join(parts)


# --- the child's side ----------------------------------------------------------------


def _limit_memory(limit: int | None) -> int | None:
    if limit is None:
        return None
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ImportError, ValueError, OSError) as exc:
        log.info("cannot cap the reader's memory here: %r", exc)
        return None
    return cap


def _die_with_parent(parent: int) -> None:
    """Ask Linux to kill this process when its parent dies (a hostile file may keep it busy)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0)  # SIGKILL
    except (OSError, AttributeError) as exc:
        log.info("cannot tie the reader to its parent: %r", exc)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(0)


def _answer(data: bytes, name: str) -> dict[str, object]:
    try:
        extracted = extract_bytes(data, name)
    except ExtractError as exc:
        # after a failed allocation the heap is fragmented: recycle the child
        return {"error": str(exc), "memory": "more memory" in str(exc)}
    except MemoryError:
        return {"error": str(memory_error(name)), "memory": True}
    except Exception as exc:  # a parser bug on a hostile file fails that file, not the reader
        log.warning("unexpected error reading %s: %r", display_name(name), exc)
        return {
            "error": f"{display_name(name)} could not be read ({type(exc).__name__}); "
            "open and save it again and drop it again."
        }
    return {
        "text": extracted.text,
        "title": extracted.title,
        "media_type": extracted.media_type,
        "pages": [list(entry) for entry in extracted.pages],
    }


def serve(requests: BinaryIO, replies: BinaryIO, *, memory_limit: int | None, parent: int) -> None:
    """Answer extraction requests until the parent closes the pipe."""
    _die_with_parent(parent)
    cap = _limit_memory(memory_limit)
    _write_frame(replies, {"ready": True, "memory_cap": cap})
    while True:
        head = requests.read(_HEADER.size)
        if len(head) < _HEADER.size:
            return
        (size,) = _HEADER.unpack(head)
        header = json.loads(requests.read(size))
        data = requests.read(int(header["size"]))
        reply = _answer(data, str(header["name"]))
        del data
        _write_frame(replies, reply)


def main(argv: list[str]) -> int:
    """Run as the reader child: frames on stdin, replies on a private copy of stdout."""
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print from a library must not corrupt the reply stream
    limit = int(argv[0]) if argv and argv[0] else None
    try:
        serve(sys.stdin.buffer, replies, memory_limit=limit, parent=os.getppid())
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
