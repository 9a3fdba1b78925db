"""Watchdog glue: file-system events become hints to the inbox feeder."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
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

    def __init__(self, feeder: InboxFeeder, inbox_dir: Path | None = None) -> None:
        self._feeder = feeder
        self._root = inbox_dir

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

    def on_deleted(self, event: FileDeletedEvent | DirDeletedEvent) -> None:
        if event.is_directory and _as_path(event.src_path) == self._root:
            self._feeder.inbox_deleted()  # the next turn makes the folder again and watches it anew

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
    handler = InboxHandler(feeder, inbox_dir)
    observer.schedule(handler, str(inbox_dir), recursive=True)
    observer.start()

    def rewatch() -> None:
        # a deleted folder's watch is dead; watch whatever folder now has its name
        observer.unschedule_all()
        observer.schedule(handler, str(inbox_dir), recursive=True)

    feeder.when_recreated(rewatch)
    return observer
