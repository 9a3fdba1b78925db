"""The daemon as a real process: drop folder, signals, crash safety."""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from incremind_daemon import cli
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.daemon import run
from incremind_daemon.errors import ConfigError
from incremind_daemon.serve.status import running_pid
from incremind_daemon.store.db import connect
from tests.bad_files import write_bad_files
from tests.daemon_process import DaemonProcess, daemon_env
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


@pytest.fixture
def home(private_home: Path) -> Path:
    return private_home / ".incremind"


@pytest.fixture
def daemon(home: Path) -> Iterator[DaemonProcess]:
    process = DaemonProcess(home, daemon_env(INCREMIND_INBOX__MAX_FILE_MB="2"))
    yield process
    if process.proc is not None and process.proc.poll() is None:
        process.stop(signal.SIGKILL)


def count_sources(home: Path) -> int:
    db = home / "memory.db"
    if not db.exists():
        return 0
    conn = connect(db, readonly=True)
    try:
        return int(conn.execute("SELECT count(*) FROM sources").fetchone()[0])
    finally:
        conn.close()


def search_hits(query: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    cli.main(["search", query, "--json"])
    hits: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return hits


def test_dropped_file_is_found_and_the_inbox_empties(
    daemon: DaemonProcess, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    daemon.start()
    project = home / "inbox" / "study"
    project.mkdir(parents=True)
    (project / "note.md").write_text("# 笔记\n\n按第 1、2、4、7、15 天复习单词。\n", encoding="utf-8")

    def found() -> bool:
        """the dropped note is searchable"""
        hits = search_hits("复习", capsys)
        return bool(hits) and hits[0]["source"]["project"] == "study"  # type: ignore[index]

    wait_until(found)
    wait_until(lambda: not (project / "note.md").exists())
    assert cli.main(["status", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["daemon"]["running"] and report["projects"]["study"]["sources"] == 1
    assert daemon.stop() == 0


def test_bad_files_move_to_failed_with_a_reason(daemon: DaemonProcess, home: Path) -> None:
    daemon.start()
    expected = write_bad_files(home / "inbox")
    failed = home / "inbox" / ".failed"

    def all_failed() -> bool:
        """every bad file is in .failed with its reason"""
        return all((failed / f"{name}.error.txt").exists() and (failed / name).exists() for name in expected)

    wait_until(all_failed, timeout=20)
    for name, words in expected.items():
        reason = (failed / f"{name}.error.txt").read_text(encoding="utf-8")
        assert words in reason and reason.count("\n") == 1, (name, reason)
    assert count_sources(home) == 0
    assert daemon.stop() == 0


def test_second_daemon_on_same_home_names_the_running_pid(daemon: DaemonProcess, home: Path) -> None:
    daemon.start()
    assert daemon.proc is not None
    second = subprocess.run(
        [sys.executable, "-m", "incremind_daemon", "run"], env=daemon.env, capture_output=True, text=True, timeout=60
    )
    assert second.returncode == 1
    assert f"pid {daemon.proc.pid}" in second.stderr
    assert daemon.stop() == 0


def test_sigkill_mid_batch_leaves_every_file_exactly_once(daemon: DaemonProcess, home: Path) -> None:
    inbox = home / "inbox" / "batch"
    inbox.mkdir(parents=True)
    total = 200
    for number in range(total):
        body = f"# Note {number}\n\n第 {number} 条笔记：端口 {8000 + number} 用于服务 svc_{number}。\n" * 20
        (inbox / f"note-{number:03d}.md").write_text(body, encoding="utf-8")
    (inbox / "note-broken.docx").write_bytes(b"not a docx at all")
    daemon.start()
    wait_until(lambda: count_sources(home) >= 20, timeout=60)
    assert daemon.stop(signal.SIGKILL) == -signal.SIGKILL
    stored_at_kill = count_sources(home)
    assert stored_at_kill < total, "the batch finished before the kill; make it bigger"

    daemon.start()
    wait_until(lambda: not any(inbox.iterdir()), timeout=120)
    assert daemon.stop() == 0
    conn = connect(home / "memory.db", readonly=True)
    try:
        sources = conn.execute("SELECT count(*), count(DISTINCT sha256), sum(seen_count) FROM sources").fetchone()
        ingests = conn.execute("SELECT count(*) FROM audit WHERE action = 'ingest'").fetchone()[0]
    finally:
        conn.close()
    assert tuple(sources) == (total, total, total)
    assert ingests == total
    failed = [p.name for p in (home / "inbox" / ".failed").iterdir() if not p.name.endswith(".error.txt")]
    assert failed == ["note-broken.docx"]


def test_a_refused_start_says_why_once_and_releases_the_home(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    exposed = load_settings(home=settings.home_dir, mcp={"enabled": True, "host": "0.0.0.0", "port": 0})
    refused = pytest.raises(ConfigError, match="other machines can reach")
    with caplog.at_level(logging.INFO, logger="incremind_daemon.daemon"), refused:
        run(exposed)
    assert [r.getMessage() for r in caplog.records].count("incremind stopped") == 1
    assert running_pid(exposed) is None
