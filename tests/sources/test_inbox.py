"""The drop folder feeder with a real watchdog observer on a temp inbox."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from incremind_daemon.pipeline.work import IngestFile
from incremind_daemon.sources.inbox import InboxFeeder, is_candidate, project_for
from incremind_daemon.sources.watcher import watch_inbox
from tests.waiting import wait_until

SETTLE = 0.4


class Collected:
    def __init__(self) -> None:
        self.items: list[IngestFile] = []
        self.lock = threading.Lock()

    def __call__(self, item: IngestFile) -> None:
        with self.lock:
            self.items.append(item)

    def paths(self) -> list[Path]:
        with self.lock:
            return [item.path for item in self.items]


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    folder = tmp_path / "inbox"
    folder.mkdir()
    return folder


@pytest.fixture
def collected(inbox: Path) -> Iterator[Collected]:
    sink = Collected()
    feeder = InboxFeeder(inbox, sink, default_project="daily", settle_seconds=SETTLE, rescan_seconds=60)
    feeder.start()
    observer = watch_inbox(inbox, feeder)
    yield sink
    observer.stop()
    observer.join(5)
    feeder.stop()


def test_file_present_before_start_is_handed_on(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    (inbox / "thesis").mkdir(parents=True)
    old = inbox / "thesis" / "notes.md"
    old.write_text("already here", encoding="utf-8")
    sink = Collected()
    feeder = InboxFeeder(inbox, sink, default_project="daily", settle_seconds=SETTLE, rescan_seconds=60)
    feeder.start()
    try:
        wait_until(lambda: sink.paths() == [old])
    finally:
        feeder.stop()
    assert sink.items[0].project == "thesis" and sink.items[0].from_inbox


def test_file_still_being_written_waits_until_it_stops_changing(inbox: Path, collected: Collected) -> None:
    path = inbox / "growing.txt"
    with path.open("w", encoding="utf-8") as handle:
        for _ in range(6):
            handle.write("more text\n")
            handle.flush()
            time.sleep(SETTLE / 3)  # the writer keeps the file open and changing
            assert collected.paths() == []
    wait_until(lambda: collected.paths() == [path])


def test_closed_file_is_handed_on_once(inbox: Path, collected: Collected) -> None:
    path = inbox / "note.md"
    path.write_text("written in one go", encoding="utf-8")
    wait_until(lambda: collected.paths() == [path])
    time.sleep(SETTLE * 2)  # nothing more arrives for the same file
    assert collected.paths() == [path]


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("note.md", True),
        ("proj/note.md", True),
        (".failed/note.md", False),
        (".hidden.md", False),
        ("download.pdf.part", False),
        ("proj/.sync/x.md", False),
    ],
)
def test_is_candidate_skips_hidden_partial_and_failed(inbox: Path, relative: str, expected: bool) -> None:
    assert is_candidate(inbox / relative, inbox) is expected


def test_project_is_the_first_sub_folder(inbox: Path) -> None:
    assert project_for(inbox / "论文" / "deep" / "a.md", inbox, "daily") == "论文"
    assert project_for(inbox / "a.md", inbox, "daily") == "daily"


def test_backlog_over_the_notice_limit_waits_on_disk_and_is_all_handed_on(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    (inbox / "thesis").mkdir(parents=True)
    files = [inbox / "thesis" / f"{n:03d}.md" for n in range(60)]
    for path in files:
        path.write_text(f"note {path.name}", encoding="utf-8")
    handed: list[Path] = []
    most_held = 0

    def claim(item: IngestFile) -> None:  # as the worker does: a stored file leaves the inbox
        nonlocal most_held
        most_held = max(most_held, feeder.waiting())
        handed.append(item.path)
        item.path.unlink()

    # the timer rescan is far off: only the feeder's own "room again" rescans can hand on the rest
    feeder = InboxFeeder(
        inbox, claim, default_project="daily", settle_seconds=0, rescan_seconds=600, notice_limit=10
    )
    feeder.start()
    try:
        wait_until(lambda: len(handed) == len(files))
    finally:
        feeder.stop()
    assert most_held <= 10
    assert sorted(handed) == files
