"""Watch the agents' transcript folders and hand changed files to the worker.

Events give latency; a periodic rescan is the source of truth, since events
can be lost (a folder created before its watch, a full event queue). The
rescan only compares sizes and times kept in memory, so it costs a stat per
file and nothing when nothing changed.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch

from incremind_daemon.pipeline.work import TailSession
from incremind_daemon.sources.sessions.discover import WatchRoot, find_transcripts, matches

log = logging.getLogger(__name__)


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: SessionWatcher, root: WatchRoot) -> None:
        self._watcher = watcher
        self._root = root

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type in {"deleted", "opened", "closed_no_write"}:
            return
        raw = event.dest_path if event.event_type == "moved" else event.src_path
        self._watcher.notice(self._root, Path(os.fsdecode(raw)))


class SessionWatcher:
    """Turn transcript changes into TailSession work items."""

    def __init__(
        self,
        roots: list[WatchRoot],
        submit: Callable[[TailSession], object],
        *,
        rescan_seconds: float,
        since: float | None,
    ) -> None:
        self._roots = roots
        self._submit = submit
        self._rescan = rescan_seconds
        self._since = since  # files untouched since before the first run are left to `incremind backfill`
        self._seen: dict[Path, tuple[int, int]] = {}
        self._watches: dict[Path, ObservedWatch] = {}
        self._observer: BaseObserver = Observer()
        self._observer.name = "incremind-sessions-watch"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.files_seen = 0

    def start(self) -> None:
        """Start watching and run the first scan."""
        self._observer.start()
        self._thread = threading.Thread(target=self._loop, name="incremind-sessions", daemon=False)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the observer and the rescan thread."""
        self._stop.set()
        self._observer.stop()
        self._observer.join(timeout)
        if self._thread is not None:
            self._thread.join(timeout)

    def notice(self, root: WatchRoot, path: Path) -> None:
        """Hand a changed transcript on (called from watchdog's thread and from rescans)."""
        if not matches(root, path):
            return
        try:
            info = path.stat()
        except OSError:
            return
        key = (info.st_size, info.st_mtime_ns)
        if self._seen.get(path) == key:
            return
        self._seen[path] = key
        self._submit(TailSession(path, root.agent))

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._watch_new_roots()
            self._scan()
            self._stop.wait(self._rescan)

    def _watch_new_roots(self) -> None:
        for root in self._roots:
            if root.folder in self._watches or not root.folder.is_dir():
                continue
            try:
                self._watches[root.folder] = self._observer.schedule(
                    _Handler(self, root), str(root.folder), recursive=True
                )
            except OSError as exc:
                log.warning("cannot watch %s (%s); relying on rescans", root.folder, exc)

    def _scan(self) -> None:
        count = 0
        for transcript in find_transcripts(self._roots, since=self._since):
            if self._stop.is_set():
                return
            count += 1
            root = next(r for r in self._roots if r.agent == transcript.agent and r.folder in transcript.path.parents)
            self.notice(root, transcript.path)
        self.files_seen = count
