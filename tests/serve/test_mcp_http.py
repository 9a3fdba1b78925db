"""MCP over real HTTP on 127.0.0.1: sessions, the transport's security rules, and load during ingest."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

from incremind_daemon.config import Settings, load_settings
from incremind_daemon.embedding.configured import make_embedder
from incremind_daemon.errors import ConfigError, IncremindError
from incremind_daemon.pipeline.work import IngestFile, Outcome
from incremind_daemon.pipeline.worker import Worker
from incremind_daemon.serve.mcp_http import McpHttpServer
from incremind_daemon.serve.mcp_tools import MemoryBackend
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store.db import connect
from incremind_daemon.store.records import SaveRequest, SaveResult
from tests.mcp_http_client import bearer, home_token, mcp_client
from tests.waiting import wait_until

TOKEN = "s3cret-token-for-tests-only-0123456789"


def http_settings(home: Path, **mcp: Any) -> Settings:
    return load_settings(home=home, mcp={"port": 0, **mcp})


class Daemonish:
    """A started Worker (the one writer) and the HTTP server wired to it, as the daemon does."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.embedder = make_embedder(settings)
        self.worker = Worker(settings, extract_bytes, embedder=self.embedder)
        self.worker.start()
        backend = MemoryBackend(
            open_conn=lambda: connect(settings.database_path),
            save=self.save,
            recent_context=lambda project: f"context of {project}",
            embedder=lambda: self.embedder,
        )
        self.server = McpHttpServer(settings, backend)
        try:
            self.server.start()
        except BaseException:
            self.worker.stop()
            raise
        self.token = home_token(settings.home_dir)

    def save(self, request: SaveRequest) -> SaveResult:
        return self.worker.save(request).result(timeout=30)

    def ingest(self, path: Path, project: str) -> Future[Outcome]:
        return self.worker.submit(IngestFile(path, project))

    def stop(self) -> None:
        self.server.stop()
        self.worker.stop()


@pytest.fixture
def daemon(settings: Settings) -> Iterator[Daemonish]:
    running = Daemonish(http_settings(settings.home_dir))
    yield running
    running.stop()


def query(settings: Settings, sql: str) -> list[tuple[Any, ...]]:
    conn = connect(settings.database_path)
    try:
        return list(conn.execute(sql).fetchall())
    finally:
        conn.close()


def write_note(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_health_answers_with_version_pid_and_home(daemon: Daemonish) -> None:
    answer = httpx.get(f"http://127.0.0.1:{daemon.server.port}/health", headers=bearer(daemon.token))
    assert answer.status_code == 200
    data = answer.json()
    assert data["ok"] is True and isinstance(data["pid"], int) and data["version"]
    assert data["home"] == str(daemon.settings.home_dir.resolve())
    assert "access-control-allow-origin" not in answer.headers


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": "null"}, 403),
        ({"Origin": "http://localhost.evil.example:18765"}, 403),
        ({"Host": "evil.example"}, 421),
        ({"Host": "evil.example:18765"}, 421),
        ({"Origin": "http://localhost:3000"}, 200),
        ({"Origin": "https://notes.example.org"}, 200),
    ],
)
def test_origin_and_host_are_checked_on_every_route(settings: Settings, headers: dict[str, str], status: int) -> None:
    server = McpHttpServer(
        http_settings(settings.home_dir, allowed_origins=["https://notes.example.org"]), _plain_backend(settings)
    )
    server.start()
    headers = {**bearer(home_token(settings.home_dir)), **headers}
    try:
        answer = httpx.get(f"http://127.0.0.1:{server.port}/health", headers=headers)
        assert answer.status_code == status
        if status != 200:
            assert answer.json()["error"]["message"]
        assert "access-control-allow-origin" not in answer.headers
        mcp = httpx.post(server.url, headers={**headers, "Accept": "application/json, text/event-stream"}, json={})
        assert (mcp.status_code in (403, 421)) == (status != 200)
    finally:
        server.stop()


def test_oversized_requests_are_refused(settings: Settings) -> None:
    server = McpHttpServer(http_settings(settings.home_dir, max_request_bytes=2_048), _plain_backend(settings))
    server.start()
    try:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "save_memory", "x": "a" * 4_000}}
        headers = {"Accept": "application/json, text/event-stream", **bearer(home_token(settings.home_dir))}
        answer = httpx.post(server.url, json=body, headers=headers)
        assert answer.status_code == 413
    finally:
        server.stop()


def test_a_non_loopback_bind_without_a_token_refuses_to_start(settings: Settings) -> None:
    with pytest.raises(ConfigError, match=r"set mcp\.token_env"):
        McpHttpServer(http_settings(settings.home_dir, host="0.0.0.0"), _plain_backend(settings))


def test_a_short_token_is_refused(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TEST_TOKEN", "short")
    with pytest.raises(ConfigError, match="shorter than 16"):
        McpHttpServer(http_settings(settings.home_dir, token_env="MCP_TEST_TOKEN"), _plain_backend(settings))


def test_a_busy_port_is_reported(settings: Settings) -> None:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    try:
        port = holder.getsockname()[1]
        with pytest.raises(IncremindError, match="another program may use the port"):
            McpHttpServer(load_settings(home=settings.home_dir, mcp={"port": port}), _plain_backend(settings)).start()
    finally:
        holder.close()


def test_token_is_required_on_every_request_when_bound_to_all_interfaces(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_TEST_TOKEN", TOKEN)
    server = McpHttpServer(
        http_settings(settings.home_dir, host="0.0.0.0", token_env="MCP_TEST_TOKEN"), _plain_backend(settings)
    )
    server.start()
    try:
        base = f"http://127.0.0.1:{server.port}"  # loopback traffic only, though every interface listens
        assert server.url == f"{base}/mcp"
        assert httpx.get(f"{base}/health").status_code == 401
        assert httpx.get(f"{base}/health", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert httpx.get(f"{base}/health", headers={"Authorization": f"Basic {TOKEN}"}).status_code == 401
        assert httpx.get(f"{base}/health", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        # a client on the network names the machine by its address: with the token, that is answered
        lan = {"Host": f"192.168.1.20:{server.port}", "Authorization": f"Bearer {TOKEN}"}
        assert httpx.get(f"{base}/health", headers=lan).status_code == 200
        opened = _open_session(server.url, headers=lan)
        assert opened.status_code == 200, opened.text
        assert httpx.get(f"{base}/health", headers={"Host": f"192.168.1.20:{server.port}"}).status_code == 401
        denied = httpx.post(server.url, json={}, headers={"Accept": "application/json, text/event-stream"})
        assert denied.status_code == 401 and denied.headers["www-authenticate"] == "Bearer"

        async def call() -> list[str]:
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
            async with http, Client(streamable_http_client(server.url, http_client=http)) as client:
                tools = await client.list_tools()
                return [tool.name for tool in tools.tools]

        assert "search_memory" in anyio.run(call)
    finally:
        server.stop()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_every_tool_answers_over_http(daemon: Daemonish, tmp_path: Path, mode: str) -> None:
    outcome = daemon.ingest(
        write_note(tmp_path, "wal.md", "# WAL\n\nReaders never block the writer in WAL mode.\n"), "db"
    )
    assert outcome.result(timeout=30).status == "added"

    async def session() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        info = Implementation(name="claude-code", version="2.1")
        async with mcp_client(daemon.server.url, daemon.token, mode=mode, client_info=info) as client:
            calls: list[tuple[str, dict[str, Any]]] = [
                ("search_memory", {"query": "readers writer", "project": "db"}),
                ("read_memory", {"id": "src-1", "length": 10}),
                ("save_memory", {"text": "Use WAL mode for every SQLite file.", "project": "db"}),
                ("list_pending", {"project": "db"}),
                ("get_recent_context", {}),
            ]
            for tool, arguments in calls:
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, (tool, result.content)
                seen[tool] = result.structured_content
            bad = await client.call_tool("read_memory", {"id": "ins-999"})
            assert bad.is_error
        return seen

    seen = anyio.run(session)
    assert seen["search_memory"]["results"][0]["source"]["id"] == "src-1"
    assert seen["read_memory"]["text"] == "# WAL\n\nRea"
    # the note about WAL mode is known: the rule adds to it
    assert seen["save_memory"]["relation"] == "supplement" and seen["save_memory"]["status"] == "pending"
    assert seen["list_pending"]["total"] >= 1
    assert seen["get_recent_context"] == {"result": "context of None"}
    rows = query(daemon.settings, "SELECT DISTINCT client, transport FROM tool_calls")
    actor = query(daemon.settings, "SELECT actor FROM audit WHERE action = 'save' LIMIT 1")
    assert rows == [("claude-code", "http")]
    assert actor == [("mcp:claude-code",)]


def test_twenty_clients_search_while_files_are_ingested(daemon: Daemonish, tmp_path: Path) -> None:
    first = daemon.ingest(write_note(tmp_path, "seed.md", "# Seed\n\nThe release train leaves on Tuesday.\n"), "ops")
    assert first.result(timeout=30).status == "added"
    ingesting = [
        daemon.ingest(
            write_note(tmp_path, f"doc{n}.md", f"# Doc {n}\n\nThe release train {n} carries feature {n}.\n" * 20),
            "ops",
        )
        for n in range(40)
    ]
    failures: list[str] = []
    answered: list[int] = []

    async def client(number: int) -> None:
        info = Implementation(name=f"agent-{number}", version="1")
        async with mcp_client(daemon.server.url, daemon.token, client_info=info) as session:
            for round_ in range(5):
                result = await session.call_tool("search_memory", {"query": f"release train {round_}", "limit": 5})
                if result.is_error:
                    failures.append(str(result.content))
                else:
                    assert result.structured_content is not None
                    answered.append(len(result.structured_content["results"]))

    async def all_clients() -> None:
        async with anyio.create_task_group() as group:
            for number in range(20):
                group.start_soon(client, number)

    started = time.monotonic()
    anyio.run(all_clients)
    assert failures == []
    assert len(answered) == 100 and all(count >= 1 for count in answered)
    assert [f.result(timeout=60).status for f in ingesting] == ["added"] * 40
    calls = query(daemon.settings, "SELECT count(*), count(DISTINCT client) FROM tool_calls")
    assert calls == [(100, 20)], f"after {time.monotonic() - started:.1f}s"


@pytest.mark.slow
def test_a_chinese_save_is_found_by_an_english_paraphrase(settings: Settings) -> None:
    running = Daemonish(load_settings(home=settings.home_dir, mcp={"port": 0}, embedding={"backend": "use-m3"}))
    try:

        async def save_then_search() -> list[dict[str, Any]]:
            async with mcp_client(running.server.url, running.token) as client:
                saved = await client.call_tool(
                    "save_memory", {"text": "我每天早上六点起床去公园跑步。", "project": "life"}
                )
                assert not saved.is_error, saved.content

                def embedded() -> bool:
                    """the worker registered its model (which queues what is stored) and emptied the queue"""
                    models = query(running.settings, "SELECT count(*) FROM vector_models WHERE state = 'active'")
                    return models == [(1,)] and query(running.settings, "SELECT count(*) FROM embed_queue") == [(0,)]

                await anyio.to_thread.run_sync(lambda: wait_until(embedded, timeout=120))
                found = await client.call_tool("search_memory", {"query": "what time do I wake up to go jogging"})
                assert not found.is_error and found.structured_content is not None
                assert found.structured_content["mode"] == "hybrid"
                return list(found.structured_content["results"])

        results = anyio.run(save_then_search)
    finally:
        running.stop()
    assert results and "跑步" in results[0]["text"]


def _plain_backend(settings: Settings) -> MemoryBackend:
    def refuse(request: SaveRequest) -> SaveResult:
        raise AssertionError("no save expected in this test")

    return MemoryBackend(
        open_conn=lambda: connect(settings.database_path), save=refuse, recent_context=lambda project: ""
    )


def _open_session(url: str, headers: dict[str, str] | None = None) -> httpx.Response:
    opening = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "looping", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream", **(headers or {})}
    return httpx.post(url, json=opening, headers=accept, timeout=10)


def test_a_full_session_table_drops_the_session_idle_longest_for_a_new_one(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("incremind_daemon.serve.mcp_http.MAX_SESSIONS", 3)
    server = McpHttpServer(http_settings(settings.home_dir), _plain_backend(settings))
    server.start()
    try:
        token = bearer(home_token(settings.home_dir))
        opened = []
        for _ in range(3):
            opened.append(_open_session(server.url, token))
            time.sleep(0.05)  # each idle a little longer than the next
        assert all(r.status_code == 200 and r.headers.get("mcp-session-id") for r in opened)
        newcomer = _open_session(server.url, token)  # a client opening sessions in a loop cannot lock agents out
        assert newcomer.status_code == 200, newcomer.text

        def answers(session: httpx.Response) -> int:
            ping = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
            headers = {
                "Accept": "application/json, text/event-stream",
                "mcp-session-id": session.headers["mcp-session-id"],
            }
            return httpx.post(server.url, json=ping, headers={**headers, **token}, timeout=10).status_code

        assert answers(opened[0]) == 404  # the one idle longest made room: its client opens a new session
        assert answers(opened[2]) != 404 and answers(newcomer) != 404
        # a session in use outlasts sessions that were only opened: opened[2] was used, and the others go first
        for _ in range(3):
            assert _open_session(server.url, token).status_code == 200
        assert answers(opened[2]) != 404 and answers(opened[1]) == 404
    finally:
        server.stop()


def test_an_idle_session_is_dropped(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("incremind_daemon.serve.mcp_http.SESSION_IDLE_SECONDS", 0.5)
    server = McpHttpServer(http_settings(settings.home_dir), _plain_backend(settings))
    server.start()
    try:
        token = bearer(home_token(settings.home_dir))
        session_id = _open_session(server.url, token).headers["mcp-session-id"]
        ping = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
        headers = {"Accept": "application/json, text/event-stream", "mcp-session-id": session_id, **token}
        for _ in range(20):  # each ping would keep it alive: look only after longer than the idle time
            time.sleep(1.0)
            if httpx.post(server.url, json=ping, headers=headers, timeout=10).status_code == 404:
                break
        else:
            raise AssertionError("the idle session was never dropped")
    finally:
        server.stop()
