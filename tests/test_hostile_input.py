"""Hostile and broken input through a running daemon: each item ends stored or failed with a reason.

The corpus (tests/bad_files.py) holds more than fifty files and transcripts:
bombs, loops, deep nesting, NUL bytes, huge lines, links out of the watched
folders, pipes, and names with newlines, control characters, stray bytes or
no room left for their failure note. While the daemon works through them, a
thread keeps asking for the status, as `incremind status` does.
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import incremind_daemon.daemon
import incremind_daemon.pipeline.steps
from incremind_daemon.config import load_settings
from incremind_daemon.pipeline.ingest import move_to_failed, printable
from incremind_daemon.serve.status import InboxCounts, collect_status, status_json
from incremind_daemon.store.db import connect
from tests.bad_files import Expected, failed_name, slow_pdf_bytes, write_hostile_inbox, write_hostile_transcripts
from tests.daemon_process import DaemonProcess, daemon_env
from tests.waiting import wait_until

pytestmark = pytest.mark.slow
EXTRACT_TIMEOUT_SECONDS = 3
# The slow PDF only joins the corpus once the daemon reads PDFs under a time limit
# (daemon.py builds an IsolatedExtractor); before that it would hold the worker for minutes.
DAEMON_ISOLATES_PARSERS = "IsolatedExtractor" in inspect.getsource(incremind_daemon.daemon)
# A dangling link is failed with a reason once the ingest step checks for the link itself
# (os.path.lexists); until then it is left in the inbox, untouched and never stored.
WORKER_SEES_DANGLING_LINKS = "lexists" in inspect.getsource(incremind_daemon.pipeline.steps)


@pytest.fixture
def home(private_home: Path) -> Path:
    return private_home / ".incremind"


@pytest.fixture
def daemon(home: Path) -> Iterator[DaemonProcess]:
    env = daemon_env(
        INCREMIND_INBOX__MAX_FILE_MB="2",
        INCREMIND_INBOX__EXTRACT_TIMEOUT_SECONDS=str(EXTRACT_TIMEOUT_SECONDS),
    )
    process = DaemonProcess(home, env)
    yield process
    if process.proc is not None and process.proc.poll() is None:
        process.stop(signal.SIGKILL)


@dataclass
class StatusPoller:
    """Ask for the status over and over on a thread, as a user running `incremind status` would."""

    home: Path
    answers: int = 0
    problems: list[str] = field(default_factory=list)
    slowest: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> StatusPoller:
        self._thread = threading.Thread(target=self._run, name="test-status-poller")
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(60)

    def _run(self) -> None:
        settings = load_settings(home=self.home)
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                report = collect_status(settings, InboxCounts())
                json.loads(status_json(report))
            except Exception as exc:  # any failure to answer is what this test looks for
                self.problems.append(f"status raised {exc!r}")
            else:
                if not report.daemon.running:
                    self.problems.append("status says the daemon is not running")
            self.slowest = max(self.slowest, time.monotonic() - started)
            self.answers += 1
            self._stop.wait(0.2)


def stored_count(home: Path, words: str) -> int:
    conn = connect(home / "memory.db", readonly=True)
    try:
        row = conn.execute("SELECT count(*) FROM sources WHERE instr(raw_text, ?) > 0", (words,)).fetchone()
    finally:
        conn.close()
    return int(row[0])


def settled(home: Path, name: str, expected: Expected) -> bool:
    """Tell whether an inbox item has reached its expected end."""
    inbox = home / "inbox"
    if expected.outcome == "stored":
        return not (inbox / name).exists() and stored_count(home, expected.words) == 1
    if expected.outcome == "failed":
        return (inbox / ".failed" / (failed_name(name, expected) + ".error.txt")).exists()
    return True  # ignored: checked once everything else has settled


def test_hostile_corpus_ends_stored_or_failed_while_status_answers(
    daemon: DaemonProcess, home: Path, tmp_path: Path
) -> None:
    daemon.start()
    outside = tmp_path / "outside"
    with StatusPoller(home) as poller:
        inbox_items = write_hostile_inbox(home / "inbox", outside, slow_pdf=DAEMON_ISOLATES_PARSERS)
        if not WORKER_SEES_DANGLING_LINKS:
            inbox_items["dangling.md"] = Expected("ignored")
        transcripts = write_hostile_transcripts(home.parent, outside / "agents")
        assert len(inbox_items) + len(transcripts) >= 50

        def inbox_settled() -> bool:
            """every inbox item is stored or failed with its reason"""
            return all(settled(home, name, expected) for name, expected in inbox_items.items())

        def transcripts_read() -> bool:
            """every good transcript line is stored"""
            return all(stored_count(home, e.words) == 1 for e in transcripts.values() if e.outcome == "stored")

        wait_until(inbox_settled, timeout=180)
        wait_until(transcripts_read, timeout=60)
    assert daemon.proc is not None and daemon.proc.poll() is None, daemon.stderr()

    unsettled = {name: e for name, e in inbox_items.items() if not settled(home, name, e)}
    assert not unsettled
    failed = home / "inbox" / ".failed"
    for name, expected in inbox_items.items():
        if expected.outcome == "failed":
            note = (failed / (failed_name(name, expected) + ".error.txt")).read_text(encoding="utf-8")
            assert expected.words in note, (name, note)
            assert note.count("\n") == 1, (name, note)  # one line, whatever the name held
        elif expected.outcome == "ignored":
            assert os.path.lexists(home / "inbox" / name), name
            assert not expected.words or stored_count(home, expected.words) == 0, name
    assert (home / "inbox" / "..dots-first.txt").exists()  # hidden files are left alone
    assert (outside / "secret.txt").exists() and (outside / "folder" / "inside.txt").exists()
    assert stored_count(home, "Wombat") == 0  # nothing from outside the watched folders, no hostile line

    assert not poller.problems, poller.problems[:5]
    assert poller.answers >= 3
    answer = subprocess.run(
        [sys.executable, "-m", "incremind_daemon", "status", "--json"],
        env=daemon.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode == 0, answer.stderr
    assert json.loads(answer.stdout)["daemon"]["running"]
    assert daemon.stop() == 0


def test_slow_pdf_fails_within_the_limit_and_the_next_file_is_read(
    daemon: DaemonProcess, home: Path, tmp_path: Path
) -> None:
    if not DAEMON_ISOLATES_PARSERS:
        pytest.skip("daemon.py does not read PDFs under a time limit yet (IsolatedExtractor is not wired in)")
    daemon.start()
    inbox = home / "inbox"
    (inbox / "slow.pdf").write_bytes(slow_pdf_bytes())
    started = time.monotonic()
    wait_until(lambda: (inbox / ".failed" / "slow.pdf.error.txt").exists(), timeout=60)
    assert time.monotonic() - started < 30
    (inbox / "after.md").write_text("Quoll01 arrives after the slow PDF", encoding="utf-8")
    wait_until(lambda: stored_count(home, "Quoll01") == 1, timeout=30)
    assert daemon.stop() == 0


# --- names, without a daemon ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("plain.txt", "plain.txt"),
        ("new\nline.md", "new\\x0aline.md"),
        ("bell\x07.txt", "bell\\x07.txt"),
        ("c1\x85.txt", "c1\\x85.txt"),
        ("caf\udce9.txt", "caf\\xe9.txt"),
        ("中文.md", "中文.md"),
    ],
)
def test_printable_escapes_what_cannot_be_stored_or_shown(name: str, shown: str) -> None:
    assert printable(name) == shown
    shown.encode("utf-8")


@pytest.mark.parametrize("name", ["z" * 250 + ".txt", "长" * 83 + ".md", "q" * 255, "dot." + "e" * 240])
def test_failed_copy_and_note_fit_the_file_system_whatever_the_name_length(tmp_path: Path, name: str) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    failed = inbox / ".failed"
    kept: list[Path] = []
    for _ in range(3):  # the same name failing again gets a numbered name that fits as well
        path = inbox / name
        path.write_bytes(b"x")
        kept.append(move_to_failed(path, "why it failed", failed))
    assert len({p.name for p in kept}) == 3
    for target in kept:
        assert target.read_bytes() == b"x"
        note = target.with_name(target.name + ".error.txt")
        assert note.read_text(encoding="utf-8") == "why it failed\n"
        assert len(note.name.encode()) <= 255
        note.name.encode("utf-8")  # never cut inside a character
