"""The drop folder under faults: deleted and made again, odd names, linked folders."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from incremind_daemon.sources.inbox import InboxFeeder, scan_inbox
from incremind_daemon.sources.watcher import watch_inbox
from tests.sources.test_inbox import SETTLE, Collected
from tests.waiting import wait_until


def test_inbox_deleted_and_made_again_is_watched_without_a_restart(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    sink = Collected()
    # rescans are an hour apart: only the renewed watch can see the new file in time
    feeder = InboxFeeder(inbox, sink, default_project="daily", settle_seconds=SETTLE, rescan_seconds=3600)
    feeder.start()
    observer = watch_inbox(inbox, feeder)
    try:
        (inbox / "before.md").write_text("before", encoding="utf-8")
        wait_until(lambda: inbox / "before.md" in sink.paths())
        shutil.rmtree(inbox)
        wait_until(inbox.is_dir, timeout=10)  # the feeder makes it again at once
        (inbox / "after.md").write_text("after", encoding="utf-8")
        wait_until(lambda: inbox / "after.md" in sink.paths(), timeout=10)
        (inbox / "project").mkdir()
        (inbox / "project" / "deeper.md").write_text("deeper", encoding="utf-8")
        wait_until(lambda: inbox / "project" / "deeper.md" in sink.paths(), timeout=10)
    finally:
        observer.stop()
        observer.join(5)
        feeder.stop()


def test_inbox_made_again_by_the_user_is_watched_again(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    sink = Collected()
    feeder = InboxFeeder(inbox, sink, default_project="daily", settle_seconds=SETTLE, rescan_seconds=3600)
    feeder.start()
    observer = watch_inbox(inbox, feeder)
    try:
        wait_until(lambda: feeder.last_scan_at is not None)
        moved = tmp_path / "old-inbox"
        inbox.rename(moved)  # the user moves the folder away and makes a new one
        inbox.mkdir()
        feeder.rescan_soon()  # what the next timed rescan does; a moved root sends no delete event
        (inbox / "new.md").write_text("new", encoding="utf-8")
        wait_until(lambda: inbox / "new.md" in sink.paths(), timeout=10)
    finally:
        observer.stop()
        observer.join(5)
        feeder.stop()


def test_file_whose_name_is_not_utf8_is_renamed_before_it_is_handed_on(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / os.fsdecode(b"caf\xe9.md")).write_text("latin-1 name", encoding="utf-8")
    (inbox / "caf\\xe9.md").write_text("already has the escaped name", encoding="utf-8")
    (inbox / os.fsdecode(b"bin\xff.md")).write_text("odd name", encoding="utf-8")
    sink = Collected()
    feeder = InboxFeeder(inbox, sink, default_project="daily", settle_seconds=0, rescan_seconds=3600)
    feeder.start()
    try:
        wait_until(lambda: len(sink.paths()) == 3)
    finally:
        feeder.stop()
    names = sorted(p.name for p in sink.paths())
    # the escaped name was taken already: that file keeps its odd name rather than replace another
    assert names == sorted([os.fsdecode(b"caf\xe9.md"), "bin\\xff.md", "caf\\xe9.md"])
    assert (inbox / "caf\\xe9.md").read_text(encoding="utf-8") == "already has the escaped name"


def test_scan_yields_links_to_folders_but_never_enters_them(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.md").write_text("private", encoding="utf-8")
    (inbox / "linked").symlink_to(outside, target_is_directory=True)
    (inbox / "real.md").write_text("real", encoding="utf-8")
    assert [p.name for p in scan_inbox(inbox)] == ["linked", "real.md"]
