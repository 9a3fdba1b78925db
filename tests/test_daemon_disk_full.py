"""A full disk around a running daemon: files wait, status says why, and both recover without a restart."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest

from incremind_daemon import cli
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.daemon import Daemon, prepare_home
from incremind_daemon.pipeline.stats import disk_full_error
from incremind_daemon.pipeline.steps import StepState, ingest_item, open_writer
from incremind_daemon.pipeline.work import IngestFile
from incremind_daemon.pipeline.worker import Worker
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store.db import connect, fetch_int, write_transaction
from tests.full_disk import FullDisk
from tests.waiting import wait_until

HEARTBEAT_SECONDS = 0.5  # the daemon publishes every 5 s; status shows the disk as the last beat saw it
HEARTBEAT_WAIT = 20.0


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[FullDisk]:
    full = FullDisk(monkeypatch)
    yield full
    full.close()


@pytest.fixture
def quiet(private_home: Path) -> Settings:
    """A quick inbox, no HTTP port and no context files: only the parts a full disk touches."""
    return load_settings(
        home=private_home / ".incremind",
        inbox={"settle_seconds": 0.1, "rescan_seconds": 1},
        mcp={"enabled": False},
        context={"enabled": False},
    )


@pytest.fixture
def daemon(disk: FullDisk, quiet: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Daemon]:
    # a quicker heartbeat: each wait below was up to a whole beat, and how often it beats is not checked here
    monkeypatch.setattr("incremind_daemon.daemon.HEARTBEAT_SECONDS", HEARTBEAT_SECONDS)
    running = Daemon(quiet)  # in this process, so the injected faults reach its threads
    running.start()
    yield running
    running.stop()


def status(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    cli.main(["status", "--json"])
    report: dict[str, object] = json.loads(capsys.readouterr().out)
    return report


def stored(settings: Settings, word: str) -> int:
    conn = connect(settings.database_path, readonly=True)
    try:
        return fetch_int(conn, "SELECT count(*) FROM sources WHERE raw_text LIKE ?", (f"%{word}%",))
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("part", "database", "files"),
    [("database", True, False), ("kept original", False, True)],
)
def test_status_says_the_disk_is_full_until_a_write_succeeds(
    daemon: Daemon,
    disk: FullDisk,
    quiet: Settings,
    capsys: pytest.CaptureFixture[str],
    part: str,
    database: bool,
    files: bool,
) -> None:
    disk.fill(database=database, files=files)
    for n in (1, 2):
        (quiet.inbox_dir / f"full-{n}.md").write_text(f"Fullfile0{n} dropped on a full disk\n", encoding="utf-8")

    def reported() -> bool:
        """status reports the full disk with both files waiting"""
        report = status(capsys)
        return bool(report["disk"]["full"]) and report["inbox"]["waiting"] == 2  # type: ignore[index]

    wait_until(reported, timeout=HEARTBEAT_WAIT)
    report = status(capsys)
    full = report["disk"]
    assert full["full_since"] and "full-" in full["full_part"]  # type: ignore[index]
    error = report["last_errors"]["disk"]  # type: ignore[index]
    assert "full-" in error and ("database or disk is full" if database else "No space left on device") in error
    assert cli.main(["status"]) == 0
    text = capsys.readouterr().out
    line = next(line for line in text.splitlines() if line.startswith("disk full"))
    assert "2 files waiting since " in line and f" UTC; free space on {quiet.home_dir}" in line
    assert [p.name for p in sorted(quiet.inbox_dir.glob("full-*.md"))] == ["full-1.md", "full-2.md"]

    disk.free()

    def recovered() -> bool:
        """both files are stored and status no longer says the disk is full"""
        report = status(capsys)
        return not report["disk"]["full"] and "disk" not in report["last_errors"]  # type: ignore[index,operator]

    wait_until(lambda: stored(quiet, "Fullfile01") == 1 and stored(quiet, "Fullfile02") == 1, timeout=30)
    wait_until(recovered, timeout=HEARTBEAT_WAIT)
    assert not list(quiet.inbox_dir.glob("full-*.md"))
    assert daemon.worker.stats.disk_full is None, part


def test_worker_outlives_a_full_disk_in_the_insight_step(disk: FullDisk, quiet: Settings, tmp_path: Path) -> None:
    prepare_home(quiet)
    first = tmp_path / "first.md"
    first.write_text("Insightstep01: review words on days 1, 2, 4 and 7.\n", encoding="utf-8")
    state = StepState(quiet, extract_bytes, use_model=False)
    with open_writer(state) as conn:
        assert ingest_item(conn, state, IngestFile(first, "daily")).status == "added"
    disk.fill(files=False)  # the new source's insight job cannot be opened
    worker = Worker(quiet, extract_bytes, use_model=False)
    worker.start()
    try:
        # the pass over text stored under earlier rules may meet the full disk first ("redact: …"):
        # what matters is that the insight step meets it too and the worker lives on
        wait_until(lambda: (worker.stats.disk_full or "").startswith("insights: "))
        assert any(t.name == "incremind-worker" for t in threading.enumerate())
        disk.free()
        second = tmp_path / "second.md"
        second.write_text("Insightstep02 stored after the disk was freed.\n", encoding="utf-8")
        assert worker.submit(IngestFile(second, "daily")).result(timeout=30).status == "added"
        assert worker.stats.disk_full is None
    finally:
        worker.stop()


def test_a_full_disk_inside_a_transaction_surfaces_as_itself(disk: FullDisk, tmp_path: Path) -> None:
    conn = connect(tmp_path / "memory.db")
    try:
        conn.execute("CREATE TABLE big (data BLOB)")
        disk.fill(files=False)
        # a row larger than the page cache spills to disk inside the transaction: SQLite rolls
        # back by itself, and write_transaction must not hide that behind a failed ROLLBACK
        with pytest.raises(apsw.FullError) as caught, write_transaction(conn):
            conn.execute("INSERT INTO big VALUES (randomblob(?))", (20_000_000,))
        assert isinstance(disk_full_error(caught.value), apsw.FullError)
        disk.free()
        with write_transaction(conn):
            conn.execute("INSERT INTO big VALUES (x'00')")
        assert fetch_int(conn, "SELECT count(*) FROM big") == 1
    finally:
        conn.close()


def test_other_errors_are_not_a_full_disk() -> None:
    assert disk_full_error(apsw.BusyError("database is locked")) is None
    assert disk_full_error(PermissionError(13, "Permission denied")) is None
    assert disk_full_error(RuntimeError("no space, but not said by the file system")) is None
