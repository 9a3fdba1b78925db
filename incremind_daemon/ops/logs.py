"""The daemon's log file: size-based rotation, the tail, and following it across rotations.

The daemon writes ``<home>/logs/incremind.log``, rotated at 5 MB with five
older files kept (``incremind.log.1`` is the newest of those), so the logs
never grow without bound. When the daemon's stderr already goes to that file
(a detached start, a launchd agent), records are written once, and stderr
follows the file across each rotation, so a crash's traceback lands beside
the last log lines instead of in a rotated-away file.
"""

from __future__ import annotations

import io
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from logging.handlers import RotatingFileHandler
from pathlib import Path

from incremind_daemon.config import Settings
from incremind_daemon.private import make_private_folders, open_private

log = logging.getLogger(__name__)

LOG_NAME = "incremind.log"
MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 5
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_TAIL_BLOCK = 64 * 1024


def log_path(settings: Settings) -> Path:
    """Return the daemon's current log file."""
    return settings.logs_dir / LOG_NAME


class DaemonLogHandler(RotatingFileHandler):
    """A rotating 0600 log file that takes stderr along when it carries it."""

    def __init__(self, path: Path, *, max_bytes: int = MAX_BYTES, backups: int = BACKUPS) -> None:
        make_private_folders(path.parent)
        super().__init__(path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
        self.carries_stderr = is_same_file(sys.stderr, path)

    def _open(self) -> io.TextIOWrapper:  # the logging API's name; called for the first file and after each rotation
        # log lines quote what was read and searched, so the file is the person's alone
        fd = open_private(Path(self.baseFilename), os.O_WRONLY | os.O_APPEND)
        return open(fd, "a", encoding=self.encoding, errors=self.errors)

    def doRollover(self) -> None:  # the logging API's name
        super().doRollover()
        if self.carries_stderr and self.stream is not None:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            # fds 1 and 2 point at the file just renamed away; point them at the new one
            os.dup2(self.stream.fileno(), 2)
            if is_same_file(sys.stdout, Path(self.baseFilename + ".1")):
                os.dup2(self.stream.fileno(), 1)


def is_same_file(stream: object, path: Path) -> bool:
    """Tell whether an open stream writes to the file at path."""
    fileno = getattr(stream, "fileno", None)
    if fileno is None:
        return False
    try:
        mine = os.fstat(fileno())
        theirs = path.stat()
    except (OSError, ValueError):
        return False
    return (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino)


def open_daemon_log(path: Path) -> DaemonLogHandler | None:
    """Open the rotating log file, or return None (with a warning on stderr) when it cannot be."""
    try:
        handler = DaemonLogHandler(path)
    except OSError as exc:
        sys.stderr.write(f"incremind: cannot write the log file {path} ({exc}); logging to stderr only\n")
        return None
    handler.setFormatter(logging.Formatter(FORMAT))
    return handler


def tail_lines(path: Path, count: int) -> list[str]:
    """Return the last count lines of the log, reaching into the newest rotated file if needed."""
    if count <= 0:
        return []
    lines = _last_lines(path, count)
    rotated = Path(f"{path}.1")
    if len(lines) < count and rotated.exists():
        lines = _last_lines(rotated, count - len(lines)) + lines
    return lines


def _last_lines(path: Path, count: int) -> list[str]:
    """Read backwards from the end until count lines are found (a log may be large)."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return []
    with handle:
        end = handle.seek(0, os.SEEK_END)
        data = b""
        position = end
        while position > 0 and data.count(b"\n") <= count:
            step = min(_TAIL_BLOCK, position)
            position -= step
            handle.seek(position)
            data = handle.read(step) + data
    text = data.decode("utf-8", errors="replace")
    return text.splitlines()[-count:]


def follow(
    path: Path,
    *,
    should_stop: Callable[[], bool] = lambda: False,
    interval: float = 0.25,
    offset: int | None = None,
) -> Iterator[str]:
    """Yield lines appended to the log as they come, across rotations, until should_stop().

    Reading starts at byte offset of the file there now (None: at its end).
    A rotation shows as the path naming another file (or a shorter one); the
    rest of the old file is read first, then the new file from its start.
    Only complete lines are yielded.
    """
    handle = None
    identity: tuple[int, int] | None = None
    pending = b""
    while True:
        if handle is None:
            try:
                handle = path.open("rb")
            except FileNotFoundError:
                handle = None
            else:
                info = os.fstat(handle.fileno())
                identity = (info.st_dev, info.st_ino)
                end = handle.seek(0, os.SEEK_END)
                handle.seek(end if offset is None else min(offset, end))
                offset = 0  # a file that appears later is read from its start
        chunk = handle.read() if handle is not None else b""
        if chunk:
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for line in complete:
                yield line.decode("utf-8", errors="replace")
            continue
        if handle is not None and _was_rotated(path, identity, handle.tell()):
            # lines may have reached the old file between the last read and the rename
            pending += handle.read()
            handle.close()
            handle = None
            for line in pending.split(b"\n") if pending else ():
                if line:
                    yield line.decode("utf-8", errors="replace")
            pending = b""
            continue
        if should_stop():
            if handle is not None:
                handle.close()
            return
        time.sleep(interval)


def _was_rotated(path: Path, identity: tuple[int, int] | None, position: int) -> bool:
    try:
        info = path.stat()
    except FileNotFoundError:
        return False  # between the rename and the new file; keep the old one until it appears
    return (info.st_dev, info.st_ino) != identity or info.st_size < position
