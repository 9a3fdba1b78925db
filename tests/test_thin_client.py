"""With the daemon running, commands and stdio MCP sessions go through it; without one, they run in-process."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from incremind_daemon.config import Settings
from incremind_daemon.locate import home_in_effect, is_own_socket, socket_path
from incremind_daemon.pipeline.worker import Worker
from incremind_daemon.serve.client import forward, scan
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store.db import fetch_row
from tests.daemon_process import REPO, DaemonProcess, daemon_env
from tests.private_env import make_private
from tests.transcripts import ClaudeLog
from tests.waiting import wait_until

Running = tuple[DaemonProcess, dict[str, str], Path]
NOTE = "网关只转发 8443，端口是 8443，不是 8080。\n\nAlways use pnpm in this repo, never npm.\n"


def incremind(
    env: dict[str, str], *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "incremind_daemon", *args],
        env=env,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def shared_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """One daemon for the module, on its own private home, with the note taken in through its writer.

    A daemon takes seconds to start, and these tests ask a running one for answers: none needs a
    fresh store, and the restart test starts it again itself. Built before the per-test home, so
    its environment is made here, the way the per-test one is.
    """
    root = tmp_path_factory.mktemp("thin")
    home = root / ".incremind"
    with pytest.MonkeyPatch.context() as patch:
        make_private(patch, root, cache=tmp_path_factory.getbasetemp() / "cache")
        env = daemon_env(INCREMIND_EMBEDDING__BACKEND="none")
    process = DaemonProcess(home, env)
    process.start()
    try:
        wait_until(lambda: is_own_socket(socket_path(home)), timeout=20)
        notes = tmp_path_factory.mktemp("notes")
        (notes / "gateway.md").write_text(NOTE, encoding="utf-8")
        # through the daemon's writer; a relative path means the one in the client's working folder
        taken = incremind(env, "ingest", "gateway.md", "--project", "api", cwd=notes)
        assert taken.returncode == 0 and "1 added" in taken.stdout, taken.stderr
        yield process, env, home
    finally:
        process.stop()


@pytest.fixture
def running(shared_daemon: Running, monkeypatch: pytest.MonkeyPatch) -> Running:
    """The module's daemon, answering, with this process's INCREMIND_HOME naming its home."""
    process, env, home = shared_daemon
    assert process.proc is not None
    if process.proc.poll() is not None:  # a test that stopped it failed before starting it again
        process.start()
        wait_until(lambda: is_own_socket(socket_path(home)), timeout=20)
    monkeypatch.setenv("INCREMIND_HOME", env["INCREMIND_HOME"])
    return shared_daemon


def test_reads_and_reviews_are_answered_by_the_daemon(running: Running, capsys: pytest.CaptureFixture[str]) -> None:
    _, env, home = running
    # this process's own environment names the same home: the client gets an answer, not a "run it here"
    assert forward(["pending", "--project", "api"]) == 0
    assert "8443" in capsys.readouterr().out
    assert forward(["search", "pnpm", "--json"]) == 0 and '"pas-1"' in capsys.readouterr().out
    assert forward(["export", "--format", "jsonl"]) is None  # not served: an export runs in the client
    # with the socket gone the same commands answer in-process: the replies must be the same
    through = {cmd: incremind(env, *cmd.split()) for cmd in ("pending", "insights", "search 8443", "show pas-1")}
    for cmd, done in through.items():
        assert done.returncode == 0, (cmd, done.stderr)
    assert "8443" in through["pending"].stdout and "pnpm" in through["pending"].stdout
    assert "8443" in through["search 8443"].stdout
    status = incremind(env, "status", "--json")
    assert status.returncode == 0 and '"running": true' in status.stdout

    bad = incremind(env, "confirm", "ins-999")  # an error keeps its message and exit code
    assert bad.returncode == 1 and "ins-999" in bad.stderr and "Traceback" not in bad.stderr
    usage = incremind(env, "search")  # so does a usage error
    assert usage.returncode == 2 and "usage:" in usage.stderr
    helped = incremind(env, "search", "--help")
    assert helped.returncode == 0 and "--mode" in helped.stdout

    confirmed = incremind(env, "confirm", "--all")
    assert confirmed.returncode == 0 and "confirmed" in confirmed.stdout
    edited = incremind(env, "edit", "ins-1", "--scope", "global")
    assert edited.returncode == 0, edited.stderr
    # the daemon's writer made these changes: the audit trail names the command line
    from incremind_daemon.store.db import connect

    conn = connect(home / "memory.db", readonly=True)
    try:
        row = fetch_row(conn, "SELECT count(*) FROM audit WHERE actor = 'cli'")
    finally:
        conn.close()
    assert row is not None and int(row[0]) >= 3

    sock = socket_path(home)
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    hidden = sock.with_name("hidden.sock")
    sock.rename(hidden)  # the daemon seems gone: every command still works, on its own
    try:
        alone = {cmd: incremind(env, *cmd.split()) for cmd in ("insights", "search 8443 --mode keyword", "show pas-1")}
    finally:
        hidden.rename(sock)
    assert alone["insights"].stdout == incremind(env, "insights").stdout
    assert alone["search 8443 --mode keyword"].stdout == incremind(env, "search", "8443", "--mode", "keyword").stdout
    assert alone["show pas-1"].stdout == through["show pas-1"].stdout


def test_an_agents_stdio_session_is_relayed_to_the_daemon(running: Running) -> None:
    _, env, _ = running
    params = StdioServerParameters(command=sys.executable, args=["-m", "incremind_daemon", "mcp"], env=env)

    async def session() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with Client(params, mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            seen["names"] = names
            results = await _concurrently(
                client,
                [
                    ("search_memory", {"query": "8443", "project": "api"}),
                    ("save_memory", {"text": "Deploys go out on Tuesdays only.", "project": "api"}),
                    ("list_pending", {"project": "api"}),
                ],
            )
            seen.update(results)
            seen["bad"] = await client.call_tool("read_memory", {"id": "sum-77"})
        return seen

    seen = anyio.run(session)
    assert "search_memory" in seen["names"]
    assert any("8443" in str(hit["text"]) for hit in seen["search_memory"].structured_content["results"])
    assert seen["save_memory"].structured_content["status"] == "pending"
    assert seen["bad"].is_error
    # the save went through the daemon's writer: it is in the daemon's store, and no relay is left behind
    pending = incremind(env, "pending", "--project", "api")
    assert "Tuesdays" in pending.stdout


def test_a_relayed_session_reads_the_project_of_the_folder_the_agent_works_in(running: Running, tmp_path: Path) -> None:
    """The daemon cannot see the agent's folder: the relay says it, so search and context default to its project."""
    _, env, _ = running
    repo = tmp_path / "work" / "api"
    (repo / ".git").mkdir(parents=True)
    params = StdioServerParameters(command=sys.executable, args=["-m", "incremind_daemon", "mcp"], env=env, cwd=repo)

    async def session() -> dict[str, Any]:
        async with Client(params, mode="legacy") as client:
            found = await client.call_tool("search_memory", {"query": "8443"})
            context = await client.call_tool("get_recent_context", {})
            return {"found": found.structured_content, "context": context.structured_content}

    seen = anyio.run(session)
    assert seen["found"]["project"] == "api"
    assert any("8443" in str(hit["text"]) for hit in seen["found"]["results"])
    assert "agent session in api" in seen["context"]["result"]


async def _concurrently(client: Client, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    found: dict[str, Any] = {}

    async def one(name: str, arguments: dict[str, Any]) -> None:
        found[name] = await client.call_tool(name, arguments)

    async with anyio.create_task_group() as group:
        for name, arguments in calls:
            group.start_soon(one, name, arguments)
    return found


def test_a_relay_survives_a_daemon_restart_and_exits_with_its_agent(running: Running) -> None:
    process, env, home = running
    relay = subprocess.Popen(
        [sys.executable, "-m", "incremind_daemon", "mcp"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert relay.stdin is not None and relay.stdout is not None
    try:

        def ask(line: str) -> bytes:
            assert relay.stdin is not None and relay.stdout is not None
            relay.stdin.write(line.encode() + b"\n")
            relay.stdin.flush()
            return relay.stdout.readline()

        opening = (
            '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
        )
        assert b'"serverInfo"' in ask(opening)
        relay.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        listed = ask('{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
        assert b"search_memory" in listed
        process.stop()
        down = ask('{"jsonrpc":"2.0","id":3,"method":"tools/list"}')
        assert b'"id":3' in down.replace(b" ", b"") and b"not answering" in down
        process.start()
        wait_until(lambda: is_own_socket(socket_path(home)), timeout=20)
        again = ask('{"jsonrpc":"2.0","id":4,"method":"tools/list"}')  # a new session, opened by the relay
        assert b"search_memory" in again and b'"id":4' in again.replace(b" ", b"")
        relay.stdin.close()  # the agent goes away: so does the relay
        assert relay.wait(timeout=10) == 0
    finally:
        if relay.poll() is None:
            relay.kill()
            relay.wait()
        for pipe in (relay.stdin, relay.stdout, relay.stderr):
            if pipe is not None:
                pipe.close()


def test_version_needs_no_daemon_and_no_store(private_home: Path) -> None:
    done = incremind(dict(os.environ, PYTHONPATH=str(REPO)), "--version")
    assert done.returncode == 0 and done.stdout.startswith("incremind ")
    assert not (private_home / ".incremind").exists()


def test_the_client_reads_home_and_config_as_argparse_and_the_settings_do(tmp_path: Path, monkeypatch: Any) -> None:
    found = scan(["--home", "/a", "search", "x", "--config=/c.json"])
    assert found == ("search", {"--home": "/a", "--config": "/c.json"})
    assert scan(["search", "--", "--home"]) == ("search", {})
    monkeypatch.delenv("INCREMIND_HOME")
    config = tmp_path / "c.json"
    config.write_text('// mine\n{"home": "%s"}\n' % (tmp_path / "h"), encoding="utf-8")
    assert home_in_effect(None, config) == tmp_path / "h"
    assert home_in_effect(tmp_path / "x", config) == tmp_path / "x"
    config.write_text("{broken", encoding="utf-8")
    assert home_in_effect(None, config) is None  # the settings report it; the client does not guess
    monkeypatch.setenv("INCREMIND_HOME", str(tmp_path / "e"))
    assert home_in_effect(None, config) == tmp_path / "e"


def test_a_deep_home_gets_a_short_private_socket_path(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60) / ".incremind"
    path = socket_path(deep)
    assert len(os.fsencode(path)) <= 100 and path.parent.name == f"incremind-{os.getuid()}"
    assert socket_path(deep) == path and socket_path(tmp_path / "short") == tmp_path / "short" / "daemon.sock"
    assert not is_own_socket(path)  # nothing listens there yet


def test_writes_of_other_threads_run_on_the_writer_before_queued_files(settings: Settings) -> None:
    worker = Worker(settings, extract_bytes)
    worker.start()
    try:
        seen: list[str] = []
        future = worker.call(lambda conn: seen.append(threading.current_thread().name) or 7)
        assert future.result(timeout=30) == 7 and seen == ["incremind-worker"]
        failing = worker.call(lambda conn: conn.execute("SELECT * FROM no_such_table"))
        with pytest.raises(Exception, match="no_such_table"):
            failing.result(timeout=30)
        assert worker.call(lambda conn: 1).result(timeout=30) == 1  # the writer lives on
    finally:
        worker.stop()


def test_a_backfill_is_taken_in_by_the_daemons_writer(running: Running) -> None:
    _, env, home = running
    session = "77777777-2222-3333-4444-555555555555"
    person = home.parent  # the HOME the daemon and its clients run with, where the agents keep their transcripts
    log = ClaudeLog(person / ".claude", session, str(person / "code" / "api"))
    rule = "From now on, always run make check before you push."
    log.append(log.user("u1", rule), log.assistant("a1", "msg_1", "Got it, make check before every push."))
    old = time.time() - 30 * 86400  # written before the daemon first ran: only a back-fill reads it
    os.utime(log.path, (old, old))
    counted = incremind(env, "backfill", "--dry-run", "--json")
    assert counted.returncode == 0 and '"messages": 2' in counted.stdout, counted.stderr
    done = incremind(env, "backfill", "--json")
    assert done.returncode == 0 and '"messages": 2' in done.stdout, done.stderr
    listed = incremind(env, "sessions", "--json")
    assert session in listed.stdout
    assert "make check" in incremind(env, "pending").stdout  # examined before the command returned
    from incremind_daemon.store.db import connect

    conn = connect(home / "memory.db", readonly=True)
    try:
        row = fetch_row(conn, "SELECT count(*) FROM audit WHERE actor = 'backfill'")
    finally:
        conn.close()
    assert row is not None and int(row[0]) == 0  # the daemon's own writer examined it, not a back-fill worker


def test_context_commands_are_run_by_the_daemon_with_the_clients_paths(running: Running, tmp_path: Path) -> None:
    _, env, _ = running
    repo = tmp_path / "ledger"
    (repo / ".git").mkdir(parents=True)
    enabled = incremind(env, "context", "enable", "ledger", "--files", "AGENTS.md", cwd=tmp_path)
    assert enabled.returncode == 0, enabled.stderr
    block = (repo / "AGENTS.md").read_text(encoding="utf-8")
    assert "incremind:begin" in block and "incremind:end" in block
    listed = incremind(env, "context", "status")
    assert str(repo / "AGENTS.md") in listed.stdout
    disabled = incremind(env, "context", "disable", str(repo))
    assert disabled.returncode == 0 and "removed" in disabled.stdout, disabled.stderr
    assert not (repo / "AGENTS.md").exists()  # incremind made it, and it is empty again
    # `context show` in a repository shows what an agent started there reads: the person's folder, not the daemon's
    shown = incremind(env, "context", "show", "--json", cwd=repo)
    assert shown.returncode == 0, shown.stderr
    assert '"project": "ledger"' in shown.stdout
