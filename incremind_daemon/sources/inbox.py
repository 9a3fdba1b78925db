"""The drop folder: find files, wait until they stop changing, hand them on.

Watch events are hints for latency; a rescan at start-up and on a timer is the
source of truth, so a missed event costs latency, never data.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from incremind_daemon.pipeline.work import IngestFile
from incremind_daemon.private import make_private_folders

log = logging.getLogger(__name__)

NOTICE_LIMIT = 2_000  # files held in memory at once; a bigger backlog waits on disk for the next rescan
_PARTIAL_SUFFIXES = (".part", ".partial", ".crdownload", ".download", ".tmp", ".swp", "~")
_PROJECT_UNSAFE = re.compile(r"[^\w.\-]+")


def project_name(raw: str, default: str) -> str:
    """Make a folder or tag name into a project name (letters, digits, CJK, . _ -)."""
    name = _PROJECT_UNSAFE.sub("-", raw.strip()).strip("-.")[:64]
    return name or default


def project_for(path: Path, inbox_dir: Path, default: str) -> str:
    """Return the project an inbox path belongs to: its first sub-folder, else the default."""
    try:
        parts = path.relative_to(inbox_dir).parts
    except ValueError:
        return default
    return project_name(parts[0], default) if len(parts) > 1 else default


def is_candidate(path: Path, inbox_dir: Path) -> bool:
    """Tell whether an inbox path is a file to take in (not hidden, partial or failed)."""
    try:
        parts = path.relative_to(inbox_dir).parts
    except ValueError:
        return False
    if not parts or any(part.startswith(".") for part in parts):
        return False
    return not path.name.lower().endswith(_PARTIAL_SUFFIXES)


def scan_inbox(inbox_dir: Path) -> Iterator[Path]:
    """Yield every candidate file under the inbox, without following linked folders.

    A link to a folder is yielded like a file, so it is refused with a reason
    (as a watch event would have it) instead of lingering unexplained.
    """
    for root, dirs, files in os.walk(inbox_dir, followlinks=False):
        links = [d for d in dirs if os.path.islink(os.path.join(root, d))]
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in links)
        for name in sorted([*files, *links]):
            path = Path(root) / name
            if is_candidate(path, inbox_dir):
                yield path


@dataclass(slots=True)
class _Seen:
    size: int
    mtime_ns: int
    observed: float  # monotonic time the size and mtime were last seen to change


class InboxFeeder:
    """Turn inbox paths into work once they have stopped changing.

    ``notice`` is called from watchdog's thread and from rescans; the feeder's
    own thread checks the noticed files and submits the settled ones.
    """

    def __init__(
        self,
        inbox_dir: Path,
        submit: Callable[[IngestFile], object],
        *,
        default_project: str,
        settle_seconds: float,
        rescan_seconds: float,
        notice_limit: int = NOTICE_LIMIT,
    ) -> None:
        self._inbox = inbox_dir
        self._submit = submit
        self._default = default_project
        self._settle = settle_seconds
        self._rescan = rescan_seconds
        self._limit = notice_limit
        self._overflow = False  # a file was left unnoticed at the limit: rescan once there is room
        self._seen: dict[Path, _Seen] = {}
        self._ready: set[Path] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._inbox_id: tuple[int, int] | None = None  # (device, inode) of the inbox folder last scanned
        self._lost = False  # the inbox folder itself was deleted: its watch died with it
        self._on_recreated: list[Callable[[], object]] = []
        self.last_scan_at: float | None = None

    def when_recreated(self, callback: Callable[[], object]) -> None:
        """Call callback (on the feeder's thread) when the inbox folder was deleted and made again."""
        self._on_recreated.append(callback)

    def notice(self, path: Path, *, closed: bool = False) -> None:
        """Note that a path may hold a new file; a closed file needs no settling.

        At the notice limit the path is left on disk, and a rescan finds it
        once the files in hand have been handed on.
        """
        if not is_candidate(path, self._inbox):
            return
        with self._lock:
            if path not in self._seen and len(self._seen) >= self._limit:
                self._overflow = True
                return
            if closed:
                self._ready.add(path)
            self._seen.setdefault(path, _Seen(-1, -1, time.monotonic()))
        self._wake.set()

    def inbox_deleted(self) -> None:
        """Note that the inbox folder itself was deleted; the next turn makes it again and rewatches."""
        with self._lock:
            self._lost = True
        self.rescan_soon()

    def rescan_soon(self) -> None:
        """Ask for a rescan at the next turn (a folder was moved in, say)."""
        self.last_scan_at = None
        self._wake.set()

    def waiting(self) -> int:
        """Return how many noticed files have not settled yet."""
        with self._lock:
            return len(self._seen)

    def start(self) -> None:
        """Start the feeder thread; its first turn rescans the inbox."""
        self._thread = threading.Thread(target=self._loop, name="incremind-inbox", daemon=False)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the feeder thread."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.is_set():
            now = time.monotonic()
            with self._lock:
                room = self._overflow and len(self._seen) <= self._limit // 2
            if self.last_scan_at is None or now - self.last_scan_at >= self._rescan or room:
                self._scan()
            self._submit_settled()
            with self._lock:
                busy = bool(self._seen) or self._overflow
            timeout = min(0.2, self._settle / 4 or 0.05) if busy else self._rescan
            self._wake.wait(timeout)
            self._wake.clear()

    def _scan(self) -> None:
        self.last_scan_at = time.monotonic()
        with self._lock:
            self._overflow = False
        try:
            make_private_folders(self._inbox)  # made again if it was deleted
            self._check_identity()
            for path in scan_inbox(self._inbox):
                self.notice(path)
                if self._overflow:
                    break  # the rest stays on disk until the files in hand are handed on
        except OSError as exc:
            log.warning("could not scan the inbox %s: %s", self._inbox, exc)

    def _check_identity(self) -> None:
        """Notice an inbox folder that was deleted and made again, whose watch died with it."""
        info = self._inbox.stat()
        identity = (info.st_dev, info.st_ino)
        previous, self._inbox_id = self._inbox_id, identity
        with self._lock:
            lost, self._lost = self._lost, False
        # a new folder may reuse the old one's inode, so a delete event counts on its own
        if not lost and (previous is None or previous == identity):
            return
        log.warning("the inbox %s was deleted and made again; watching the new folder", self._inbox)
        for callback in self._on_recreated:
            try:
                callback()
            except OSError as exc:
                log.warning("could not watch the new inbox %s (%s); relying on rescans", self._inbox, exc)

    def _submit_settled(self) -> None:
        with self._lock:
            candidates = list(self._seen.items())
        for path, seen in candidates:
            if self._stop.is_set():
                return
            if self._is_settled(path, seen):
                with self._lock:
                    self._seen.pop(path, None)
                    self._ready.discard(path)
                path = _with_utf8_name(path)
                project = project_for(path, self._inbox, self._default)
                self._submit(IngestFile(path, project, from_inbox=True))

    def _is_settled(self, path: Path, seen: _Seen) -> bool:
        try:
            info = path.lstat()
        except OSError:
            with self._lock:
                self._seen.pop(path, None)  # gone already
                self._ready.discard(path)
            return False
        with self._lock:
            if path in self._ready:
                return True
        now = time.monotonic()
        if (info.st_size, info.st_mtime_ns) != (seen.size, seen.mtime_ns):
            with self._lock:
                self._seen[path] = _Seen(info.st_size, info.st_mtime_ns, now)
            # a file untouched for the settle time (there before start-up, say) is ready
            return time.time() - info.st_mtime_ns / 1e9 >= self._settle
        return now - seen.observed >= self._settle


def _with_utf8_name(path: Path) -> Path:
    """Rename a file whose name is not UTF-8 to an escaped name, so it can be stored and shown.

    Its bytes (b"\\xff") become the four characters "\\xff"; an existing file of that
    name is never replaced. On any failure the path is handed on unchanged.
    """
    raw = os.fsencode(path.name)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return path
    target = path.with_name(raw.decode("utf-8", errors="backslashreplace"))
    try:
        os.link(path, target, follow_symlinks=False)  # fails when target exists: never clobbers
        os.unlink(path)
    except OSError as exc:
        log.warning("could not rename %r to a UTF-8 name: %s", raw, exc)
        return path
    log.info("renamed %r in the inbox to %s", raw, target.name)
    return target
