"""Attacks on one real daemon over HTTP, each bounded to seconds: what the attacker gets, and that agents are served.

One daemon runs for the whole module, with the default embedding model and a
note taken in and embedded, so a search embeds its query as an agent's does.
The tests run in file order and the last one stops the daemon; the session
flood leaves the table full for it. benchmarks/attack.py prints the figures.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from incremind_daemon.serve.http_limits import READ_SECONDS
from incremind_daemon.serve.mcp_http import MAX_SESSIONS
from incremind_daemon.store import vectors
from incremind_daemon.store.db import connect
from tests.daemon_process import REPO, DaemonProcess
from tests.mcp_http_client import ACCEPT, HttpSession, bearer, home_token, initialize_request
from tests.waiting import wait_until

NOTE = """# 部署笔记

Staging 的 API 服务监听 8443 端口；发布前先跑 make check，超时 timeout 设为 30 秒。
The nightly backup keeps thirty days of snapshots; restore with `make restore DAY=...`.
"""
RSS_LIMIT_MB = 600
SILENT = 200  # more than the server's connection limit (128)
SLOW = 10


@dataclass(frozen=True, slots=True)
class Attacked:
    process: DaemonProcess
    port: int
    token: str = field(repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def pid(self) -> int:
        assert self.process.proc is not None
        return self.process.proc.pid

    def health(self) -> int:
        """Ask /health on a new connection; return its status."""
        return httpx.get(f"http://127.0.0.1:{self.port}/health", headers=bearer(self.token), timeout=10).status_code


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _memory_ready(home: Path) -> bool:
    """the note is taken in, and each of its items has its vector"""
    if not (home / "memory.db").exists() or any(p.is_file() for p in (home / "inbox").rglob("*")):
        return False
    conn = connect(home / "memory.db", readonly=True)
    try:
        found = vectors.coverage(conn)
    finally:
        conn.close()
    return bool(found) and all(c.embedded == c.total and sum(c.total.values()) > 0 for c in found)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Attacked]:
    """A daemon with the default model on a private home; built before the per-test home, so its env is explicit."""
    root = tmp_path_factory.mktemp("attacked")
    home = root / ".incremind"
    (home / "inbox" / "notes").mkdir(parents=True)
    (home / "inbox" / "notes" / "deploy.md").write_text(NOTE, encoding="utf-8")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INCREMIND_", "CLAUDE_", "CODEX_", "GEMINI_"))}
    env.update(
        HOME=str(root),
        INCREMIND_HOME=str(home),
        XDG_CACHE_HOME=str(tmp_path_factory.getbasetemp() / "cache"),  # the model unpacked once per run
        INCREMIND_INBOX__SETTLE_SECONDS="0.2",
        INCREMIND_INBOX__RESCAN_SECONDS="1",
        INCREMIND_MCP__PORT=str(port),
        PYTHONPATH=str(REPO),
    )
    process = DaemonProcess(home, env)
    process.start()
    try:
        wait_until(lambda: _memory_ready(home), timeout=60)
        yield Attacked(process, port, home_token(home))
    finally:
        process.stop()


class PeakRss:
    """Sample a process's VmRSS every 50 ms on a thread, within a with block."""

    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._stop = threading.Event()
        self.peak_mb = 0.0
        self._thread = threading.Thread(target=self._sample, name="rss-sampler")

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.is_set():
            with open(f"/proc/{self._pid}/status", encoding="ascii") as status:
                line = next(line for line in status if line.startswith("VmRSS:"))
            self.peak_mb = max(self.peak_mb, int(line.split()[1]) / 1024)
            self._stop.wait(0.05)


def _hold(port: int, count: int) -> list[socket.socket]:
    """Open count connections that send nothing."""
    return [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]


def _closed(conns: list[socket.socket]) -> list[socket.socket]:
    """Return the connections the server has closed (they read as at end, or reset)."""
    readable, _, _ = select.select(conns, [], [], 0)
    gone = []
    for conn in readable:
        try:
            if conn.recv(1024, socket.MSG_PEEK) == b"":
                gone.append(conn)
        except OSError:
            gone.append(conn)
    return gone


def test_a_450_kb_query_is_answered_cut_within_seconds_while_rss_stays_bounded(daemon: Attacked) -> None:
    query = (NOTE * (450_000 // len(NOTE.encode()) + 1)).encode()[:450_000].decode(errors="ignore")
    with HttpSession(daemon.url, daemon.token) as session:
        assert session.open() == 200
        with PeakRss(daemon.pid) as rss:
            started = time.monotonic()
            found = session.result("search_memory", {"query": query})
            seconds = time.monotonic() - started
    assert found["mode"] == "hybrid" and found["results"]  # the query was embedded, and found the note
    assert "The query was cut" in found["cut"] and len(found["query"]) <= 2_000
    assert seconds < 5, f"answered after {seconds:.1f} s"
    assert rss.peak_mb < RSS_LIMIT_MB, f"the daemon reached {rss.peak_mb:.0f} MB"


def test_slow_and_silent_connections_are_closed_while_agents_are_answered(daemon: Attacked) -> None:
    with HttpSession(daemon.url, daemon.token) as agent:
        assert agent.open() == 200
        held = _hold(daemon.port, SILENT + SLOW)
        opened = time.monotonic()
        slow = held[SILENT:]
        try:
            assert daemon.health() == 200  # a new client, once the server has taken every held one in
            assert agent.result("search_memory", {"query": "make check"})["results"]
            assert len(_closed(held)) < len(held)  # they were held while the agents were answered
            gone: set[socket.socket] = set()
            for byte in range(int(READ_SECONDS) + 5):  # a byte a second on the slow ones, until all are closed
                gone.update(_closed(held))
                if len(gone) == len(held):
                    break
                for conn in slow:
                    if conn not in gone:
                        try:
                            conn.send(b"POST /mcp HTTP/1.1\r\n"[byte : byte + 1] or b"x")
                        except OSError:
                            gone.add(conn)
                time.sleep(1)
            gone.update(_closed(held))
            assert len(gone) == len(held), f"{len(held) - len(gone)} still open {time.monotonic() - opened:.0f} s on"
        finally:
            for conn in held:
                conn.close()
        assert agent.result("search_memory", {"query": "backup"})["results"]


def test_a_flood_of_sessions_locks_no_agent_out_and_an_open_session_keeps_searching(daemon: Attacked) -> None:
    with HttpSession(daemon.url, daemon.token) as agent:
        assert agent.open() == 200
        assert agent.result("search_memory", {"query": "timeout"})["results"]
        statuses: Counter[int] = Counter()
        with httpx.Client(timeout=30, headers={**ACCEPT, **bearer(daemon.token)}) as flood:
            for _ in range(MAX_SESSIONS + 50):
                statuses[flood.post(daemon.url, json=initialize_request("flood")).status_code] += 1
        # past the cap, each new session takes the place of one the flood opened and never used
        assert set(statuses) == {200}, statuses
        assert agent.result("search_memory", {"query": "timeout"})["results"]
        with HttpSession(daemon.url, daemon.token) as newcomer:  # a new agent starting now gets its session
            assert newcomer.open() == 200
            assert newcomer.result("search_memory", {"query": "timeout"})["results"]
        assert daemon.health() == 200


def test_sigterm_with_many_sessions_and_connections_open_stops_the_daemon_within_10_s(daemon: Attacked) -> None:
    opened = 0
    for _ in range(200):  # the flood may have filled the table already
        with HttpSession(daemon.url, daemon.token) as session:
            if session.open() != 200:
                break
        opened += 1
    assert daemon.health() == 200
    held = _hold(daemon.port, 100)
    try:
        assert daemon.process.proc is not None
        started = time.monotonic()
        daemon.process.proc.send_signal(signal.SIGTERM)
        code = daemon.process.proc.wait(timeout=30)
        seconds = time.monotonic() - started
    finally:
        for conn in held:
            conn.close()
    assert code == 0, daemon.process.stderr()[-2000:]
    assert seconds <= 10, f"stopped {seconds:.1f} s after SIGTERM ({opened} sessions opened here)"
