"""`incremind status` when the daemon cannot tell it everything: a stale heartbeat, a full or low disk."""

from __future__ import annotations

import errno
import json
import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

import pytest

from incremind_daemon import cli
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.daemon import acquire_lock, prepare_home
from incremind_daemon.ops.doctor import check_disk
from incremind_daemon.serve.disk import LOW_SPACE_FLOOR_BYTES, low_space_bytes
from incremind_daemon.serve.status import Heartbeat, write_heartbeat

MB = 1024 * 1024


@pytest.fixture
def home(settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Settings:
    """A home holding one stored note, with one more waiting in the inbox."""
    prepare_home(settings)
    note = tmp_path / "stored.md"
    note.write_text("Stalebeat01: stored before the disk filled.\n", encoding="utf-8")
    assert cli.main(["ingest", str(note)]) == 0
    (settings.inbox_dir / "waiting.md").write_text("Stalebeat02 dropped on a full disk\n", encoding="utf-8")
    capsys.readouterr()
    return settings


@pytest.fixture
def running(home: Settings) -> Iterator[IO[str]]:
    """This process plays the running daemon: it holds the home's lock."""
    lock = acquire_lock(home)
    yield lock
    lock.close()


def free_space(monkeypatch: pytest.MonkeyPatch, free: int) -> None:
    """Make the file system report this much free space (a full one cannot be made without root)."""
    real = shutil.disk_usage

    def usage(path: str | os.PathLike[str]) -> Any:
        found = real(path)
        return found._replace(free=free, used=found.total - free)

    monkeypatch.setattr(shutil, "disk_usage", usage)


def beat(settings: Settings, *, age: float, pid: int | None = None) -> Heartbeat:
    then = datetime.now(UTC) - timedelta(seconds=age)
    published = Heartbeat(
        pid=pid or os.getpid(),
        started_at=(then - timedelta(hours=1)).isoformat(timespec="seconds"),
        heartbeat_at=then.isoformat(timespec="seconds"),
        version="test",
    )
    write_heartbeat(settings.status_path, published)
    return published


def status(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    code = cli.main(["status", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert cli.main(["status"]) == code
    return code, report, capsys.readouterr().out


def line(text: str, start: str) -> str:
    return next(row for row in text.splitlines() if row.startswith(start))


def test_status_on_a_full_disk_reports_from_the_database_and_a_stale_heartbeat(
    home: Settings, running: IO[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    last = beat(home, age=600)  # status.json could not be rewritten since
    free_space(monkeypatch, 0)
    code, report, text = status(capsys)
    assert code == 0 and report["daemon"]["running"] and report["daemon"]["heartbeat_stale"]
    disk = report["disk"]
    assert disk["full"] and disk["free_bytes"] == 0 and disk["full_since"] == last.heartbeat_at
    assert "status.json" in disk["full_part"] and "status.json" in report["last_errors"]["disk"]
    assert report["tiers"]["raw"] == 1 and report["inbox"]["waiting"] == 1  # the rest still answers
    assert "heartbeat stale: the disk is full" in line(text, "daemon")
    day, clock = last.heartbeat_at[:10], last.heartbeat_at[11:16]
    since = clock if day == datetime.now(UTC).date().isoformat() else f"{day} {clock}"  # just after midnight
    assert line(text, "disk full") == (
        f"disk full     1 file waiting since {since} UTC; free space on {home.home_dir} (0 MB free): "
        "they are taken in without a restart"
    )
    assert line(text, "home") == f"home          {home.home_dir} (0 MB free)"


def test_status_says_full_the_moment_no_space_is_left_before_the_daemon_can_say_so(
    home: Settings, running: IO[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    beat(home, age=2)  # the daemon's last word came before the disk filled
    free_space(monkeypatch, 0)
    code, report, text = status(capsys)
    assert code == 0 and not report["daemon"]["heartbeat_stale"]
    assert report["disk"]["full"] and report["disk"]["full_since"] is None
    assert report["last_errors"]["disk"] == f"{home.home_dir}: no space left on its file system"
    assert line(text, "disk full").startswith(f"disk full     1 file waiting; free space on {home.home_dir} (0 MB")


def test_full_disk_with_an_empty_inbox_says_writes_fail(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    prepare_home(settings)
    free_space(monkeypatch, 0)
    _, report, text = status(capsys)
    assert report["disk"]["full"] and report["inbox"]["waiting"] == 0
    assert line(text, "disk full").startswith(f"disk full     writes failing; free space on {settings.home_dir}")


def test_status_warns_when_free_space_runs_low(
    home: Settings, running: IO[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    beat(home, age=1)
    free_space(monkeypatch, 150 * MB)
    code, report, text = status(capsys)
    assert code == 0 and not report["daemon"]["heartbeat_stale"]
    assert report["disk"]["low"] and not report["disk"]["full"] and "disk" not in report["last_errors"]
    assert report["disk"]["low_bytes"] == low_space_bytes(home) == LOW_SPACE_FLOOR_BYTES
    assert line(text, "disk low").startswith(f"disk low      150 MB free on {home.home_dir}, under 200 MB")
    assert "heartbeat stale" not in text


def test_status_shows_free_space_and_nothing_more_when_there_is_room(
    home: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    free_space(monkeypatch, 40 * 1024 * MB)
    code, report, text = status(capsys)
    assert code == 3 and not report["disk"]["low"] and not report["disk"]["full"]
    assert line(text, "home") == f"home          {home.home_dir} (40.0 GB free)"
    assert not [row for row in text.splitlines() if row.startswith("disk")]


@pytest.mark.parametrize("free_mb", [150, 40 * 1024])
def test_stale_heartbeat_with_room_on_disk_points_at_the_logs(
    home: Settings,
    running: IO[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    free_mb: int,
) -> None:
    beat(home, age=600)
    free_space(monkeypatch, free_mb * MB)  # low or not, there is room for status.json
    code, report, text = status(capsys)
    assert code == 0 and report["daemon"]["heartbeat_stale"] and not report["disk"]["full"]
    assert "heartbeat stale: see incremind logs" in line(text, "daemon")
    assert report["disk"]["low"] == (free_mb == 150)


def test_heartbeat_of_an_earlier_daemon_is_not_shown_as_this_ones(
    home: Settings, running: IO[str], capsys: pytest.CaptureFixture[str]
) -> None:
    beat(home, age=1, pid=os.getpid() + 1)
    code, report, _ = status(capsys)
    assert code == 0 and report["daemon"]["running"] and report["daemon"]["pid"] == os.getpid()
    assert report["daemon"]["heartbeat_at"] is None and not report["daemon"]["heartbeat_stale"]


def test_status_reports_an_unreadable_database_instead_of_a_traceback(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    prepare_home(settings)
    settings.database_path.write_bytes(b"this is not a database" * 100)
    code, report, text = status(capsys)
    assert code == 3 and "memory.db" in report["last_errors"]["database"]
    assert line(text, "error         database: cannot ")


def test_a_failed_heartbeat_leaves_no_temp_file(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    prepare_home(settings)

    def no_room(src: object, dst: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", no_room)
    with pytest.raises(OSError, match="No space left"):
        beat(settings, age=0)
    assert not list(settings.home_dir.glob(".status.*"))


@pytest.mark.parametrize(
    ("max_file_mb", "free_mb", "expected"),
    [(50, 150, "fail"), (50, 1000, "warn"), (200, 700, "fail"), (50, 4096, "ok")],
)
def test_doctor_fails_the_disk_under_the_threshold_status_warns_at(
    private_home: Path, monkeypatch: pytest.MonkeyPatch, max_file_mb: int, free_mb: int, expected: str
) -> None:
    settings = load_settings(home=private_home / ".incremind", inbox={"max_file_mb": max_file_mb})
    free_space(monkeypatch, free_mb * MB)
    check = check_disk(settings)
    assert check.status == expected, check
    assert (check.status == "fail") == (free_mb * MB < low_space_bytes(settings))
