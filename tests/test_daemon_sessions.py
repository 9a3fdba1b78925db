"""Transcripts flowing into a running daemon: latency, rewrites, and crashes."""

from __future__ import annotations

import json
import random
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from incremind_daemon import cli
from incremind_daemon.config import load_settings
from incremind_daemon.serve.status import read_heartbeat
from incremind_daemon.store.db import connect
from tests.daemon_process import DaemonProcess, daemon_env
from tests.transcripts import ClaudeLog, CodexLog, GeminiLog
from tests.waiting import wait_until

pytestmark = pytest.mark.slow
APPEND_TO_SEARCHABLE_SECONDS = 2.0


@pytest.fixture
def home(private_home: Path) -> Path:
    return private_home / ".incremind"


@pytest.fixture
def agent_dirs(private_home: Path) -> dict[str, Path]:
    settings = load_settings()
    dirs = {
        "claude": settings.sessions.claude.dir,
        "codex": settings.sessions.codex.dir,
        "gemini": settings.sessions.gemini.dir,
    }
    for folder in dirs.values():
        assert folder is not None and private_home in folder.parents
    return {name: folder for name, folder in dirs.items() if folder is not None}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "code" / "atlas"
    (folder / ".git").mkdir(parents=True)
    return folder


@pytest.fixture
def daemon(home: Path) -> Iterator[DaemonProcess]:
    process = DaemonProcess(home, daemon_env())
    yield process
    if process.proc is not None and process.proc.poll() is None:
        process.stop(signal.SIGKILL)


def found(capsys: pytest.CaptureFixture[str], query: str) -> bool:
    cli.main(["search", query, "--json", "--tier", "raw"])
    return bool(json.loads(capsys.readouterr().out))


def settled(home: Path) -> bool:
    """the daemon's heartbeat shows the warm-up turn taken in and nothing in hand"""
    beat = read_heartbeat(home / "status.json")
    return beat is not None and beat.messages >= 1 and beat.queue_depth == 0 and beat.busy_with is None


def test_appended_messages_are_searchable_within_two_seconds(
    daemon: DaemonProcess,
    home: Path,
    agent_dirs: dict[str, Path],
    repo: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    claude = ClaudeLog(agent_dirs["claude"], "aaaaaaaa-0000-0000-0000-000000000001", str(repo))
    codex = CodexLog(agent_dirs["codex"], "019b64e5-0000-7463-b644-fba7e456f905", str(repo))
    gemini = GeminiLog(agent_dirs["gemini"], "0ab84937-0000-4284-986a-33c832af0b6a", str(repo))
    claude.append(claude.user("u0", "warm up"))
    codex.append(codex.meta())
    gemini.append(gemini.meta())
    daemon.start()
    # the promise is for a running daemon: at a cold start the first turn waits behind the model and the
    # dictionary loading (on 2 busy cores, more than 2 s in about one run of four)
    wait_until(lambda: settled(home), timeout=30)

    claude.append(claude.user("u1", "the kestrel migration plan"))
    wait_until(lambda: found(capsys, "kestrel"), timeout=APPEND_TO_SEARCHABLE_SECONDS)

    line = claude.user("u2", "配置鸬鹚缓存的过期时间")  # written in two halves
    half = len(line.encode()) // 2
    with claude.path.open("ab") as handle:
        handle.write(line.encode()[:half])
    codex.append(codex.user("rename the osprey module"))
    wait_until(lambda: found(capsys, "osprey"), timeout=APPEND_TO_SEARCHABLE_SECONDS)
    assert not found(capsys, "鸬鹚")
    with claude.path.open("ab") as handle:
        handle.write(line.encode()[half:])
    wait_until(lambda: found(capsys, "鸬鹚"), timeout=APPEND_TO_SEARCHABLE_SECONDS)

    gemini.append(gemini.message("g1", "user", "explain the pelican index"))
    wait_until(lambda: found(capsys, "pelican"), timeout=APPEND_TO_SEARCHABLE_SECONDS)
    gemini.append(gemini.rewind("g1"))
    wait_until(lambda: not found(capsys, "pelican"), timeout=APPEND_TO_SEARCHABLE_SECONDS)

    claude.path.write_text(claude.user("u9", "a fresh heron start"), encoding="utf-8")  # replaced, shorter
    wait_until(lambda: found(capsys, "heron"), timeout=APPEND_TO_SEARCHABLE_SECONDS)
    assert daemon.stop() == 0


def test_sigkill_while_appending_loses_and_duplicates_nothing(
    daemon: DaemonProcess, home: Path, agent_dirs: dict[str, Path], repo: Path
) -> None:
    rng = random.Random(7)
    logs = [ClaudeLog(agent_dirs["claude"], f"bbbbbbbb-0000-0000-0000-00000000000{n}", str(repo)) for n in range(3)]
    written: set[str] = set()
    counter = 0
    daemon.start()
    for round_number in range(6):
        for _ in range(40):
            log = rng.choice(logs)
            counter += 1
            uuid = f"u{counter}"
            log.append(log.user(uuid, f"message {counter} about topic {rng.randint(0, 999)}"))
            written.add(uuid)
        if round_number % 2 == 0:
            assert daemon.stop(signal.SIGKILL) == -signal.SIGKILL
            daemon.start()

    def all_stored() -> bool:
        """every appended message is stored"""
        return stored_count(home) >= len(written)

    wait_until(all_stored, timeout=30)
    assert daemon.stop() == 0
    conn = connect(home / "memory.db", readonly=True)
    try:
        ids = [row[0] for row in conn.execute("SELECT message_id FROM messages")]
    finally:
        conn.close()
    assert sorted(ids) == sorted(written)


def stored_count(home: Path) -> int:
    conn = connect(home / "memory.db", readonly=True)
    try:
        return int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
    finally:
        conn.close()
