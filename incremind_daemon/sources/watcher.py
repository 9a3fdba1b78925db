"""Watchdog glue: file-system events become hints to the inbox feeder."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from incremind_daemon.sources.inbox import InboxFeeder

log = logging.getLogger(__name__)


def _as_path(raw: str | bytes) -> Path:
    return Path(os.fsdecode(raw))


class InboxHandler(FileSystemEventHandler):
    """Runs on watchdog's dispatch thread, so it only notes paths."""

    def __init__(self, feeder: InboxFeeder) -> None:
        self._feeder = feeder

    def on_closed(self, event: FileClosedEvent) -> None:  # the writer closed the file (inotify)
        self._feeder.notice(_as_path(event.src_path), closed=True)

    def on_created(self, event: FileCreatedEvent | DirCreatedEvent) -> None:
        if event.is_directory:
            self._feeder.rescan_soon()
        else:
            self._feeder.notice(_as_path(event.src_path))

    def on_modified(self, event: FileModifiedEvent | object) -> None:
        if isinstance(event, FileModifiedEvent):
            self._feeder.notice(_as_path(event.src_path))

    def on_moved(self, event: FileMovedEvent | DirMovedEvent) -> None:
        if event.is_directory:
            self._feeder.rescan_soon()
        else:
            self._feeder.notice(_as_path(event.dest_path))


def watch_inbox(inbox_dir: Path, feeder: InboxFeeder) -> BaseObserver:
    """Start a watchdog observer on the inbox and return it (stop and join it at shutdown)."""
    inbox_dir.mkdir(parents=True, exist_ok=True)
    observer = Observer()
    observer.name = "incremind-watch"
    observer.schedule(InboxHandler(feeder), str(inbox_dir), recursive=True)
    observer.start()
    return observer
