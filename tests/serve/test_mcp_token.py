"""The home's token guards the MCP endpoint on loopback too: real uvicorn, real HTTP, real files."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest

from incremind_daemon.config import Settings, load_settings
from incremind_daemon.errors import ConfigError
from incremind_daemon.serve.client import UnixConnection
from incremind_daemon.serve.mcp_auth import ensure_home_token, rotate_home_token, token_path
from incremind_daemon.serve.mcp_http import McpHttpServer
from incremind_daemon.serve.mcp_tools import MemoryBackend
from incremind_daemon.store.db import connect
from incremind_daemon.store.records import SaveRequest, SaveResult
from tests.mcp_http_client import bearer, home_token, mcp_client

ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


@pytest.fixture(autouse=True)
def loose_umask() -> Iterator[None]:
    """The usual umask, under which a new file would be 0644."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def _backend(settings: Settings) -> MemoryBackend:
    def refuse(request: SaveRequest) -> SaveResult:
        raise AssertionError("no save expected in this test")

    return MemoryBackend(
        open_conn=lambda: connect(settings.database_path), save=refuse, recent_context=lambda project: ""
    )


def started(settings: Settings, **kwargs: object) -> McpHttpServer:
    server = McpHttpServer(settings, _backend(settings), **kwargs)  # type: ignore[arg-type]
    server.start()
    return server


@pytest.fixture
def http_settings(settings: Settings) -> Settings:
    return load_settings(home=settings.home_dir, mcp={"port": 0})


def _health(server: McpHttpServer, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.get(f"http://127.0.0.1:{server.port}/health", headers=headers or {})


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token-of-the-right-length", "Bearer", "Basic {token}", "bearer{token}", "Bearer {token}x"],
)
def test_a_request_without_the_right_token_gets_401_saying_how_to_fix_it(
    http_settings: Settings, authorization: str | None
) -> None:
    server = started(http_settings)
    try:
        token = home_token(http_settings.home_dir)
        headers = {} if authorization is None else {"Authorization": authorization.format(token=token)}
        for answer in (
            _health(server, headers),
            httpx.post(server.url, json=INITIALIZE, headers={**ACCEPT, **headers}),
        ):
            assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer"
            message = answer.json()["error"]["message"]
            assert "incremind setup" in message and token not in answer.text
    finally:
        server.stop()


def test_the_right_token_opens_health_and_a_session(http_settings: Settings) -> None:
    server = started(http_settings)
    try:
        token = home_token(http_settings.home_dir)
        assert _health(server, {"Authorization": f"bearer   {token}"}).status_code == 200  # the scheme in any case
        health = _health(server, bearer(token)).json()
        assert health["home"] == str(http_settings.home_dir.resolve()) and health["pid"] == os.getpid()

        async def tools() -> list[str]:
            async with mcp_client(server.url, token) as client:
                return [tool.name for tool in (await client.list_tools()).tools]

        assert "search_memory" in anyio.run(tools)
    finally:
        server.stop()


def test_the_token_file_is_made_0600_at_the_first_start_and_kept_across_restarts(http_settings: Settings) -> None:
    path = token_path(http_settings.home_dir)
    assert not path.exists()
    server = started(http_settings)
    server.stop()
    first = path.read_text(encoding="ascii")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(first.strip()) >= 40
    server = started(http_settings)
    try:
        assert path.read_text(encoding="ascii") == first
        assert _health(server, bearer(first.strip())).status_code == 200
    finally:
        server.stop()


def test_a_rotated_token_opens_the_endpoint_at_once_and_the_old_one_no_longer(http_settings: Settings) -> None:
    server = started(http_settings)
    try:
        old = home_token(http_settings.home_dir)
        assert _health(server, bearer(old)).status_code == 200
        new = rotate_home_token(http_settings.home_dir)
        assert new != old and stat.S_IMODE(token_path(http_settings.home_dir).stat().st_mode) == 0o600
        assert _health(server, bearer(old)).status_code == 401
        assert _health(server, bearer(new)).status_code == 200
    finally:
        server.stop()


def test_a_missing_or_spoilt_token_file_lets_no_request_pass(http_settings: Settings) -> None:
    server = started(http_settings)
    path = token_path(http_settings.home_dir)
    try:
        token = home_token(http_settings.home_dir)
        path.unlink()
        assert _health(server, bearer(token)).status_code == 401
        path.write_text("short\n", encoding="ascii")
        assert _health(server, bearer("short")).status_code == 401
        path.unlink()
        fresh = ensure_home_token(http_settings.home_dir)
        assert _health(server, bearer(fresh)).status_code == 200
    finally:
        server.stop()


def test_a_spoilt_token_file_keeps_the_server_from_starting(http_settings: Settings) -> None:
    http_settings.home_dir.mkdir(parents=True)
    token_path(http_settings.home_dir).write_text("not a token, it has spaces\n", encoding="ascii")
    with pytest.raises(ConfigError, match="token rotate"):
        McpHttpServer(http_settings, _backend(http_settings))


def test_the_unix_socket_needs_no_token(http_settings: Settings, tmp_path: Path) -> None:
    sock = tmp_path / "d" / "daemon.sock"
    server = started(http_settings, local_socket=sock)
    try:
        conn = UnixConnection(sock)
        conn.request("GET", "/health")
        answer = conn.getresponse()
        assert answer.status == 200 and json.loads(answer.read())["home"] == str(http_settings.home_dir.resolve())
        conn.close()
        conn = UnixConnection(sock)
        conn.request("POST", "/mcp", json.dumps(INITIALIZE).encode(), {"Content-Type": "application/json", **ACCEPT})
        answer = conn.getresponse()
        assert answer.status == 200 and "result" in json.loads(answer.read())
        conn.close()
        assert _health(server).status_code == 401  # TCP still needs it
    finally:
        server.stop()


def test_mcp_token_env_takes_the_place_of_the_home_file(
    http_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_TEST_TOKEN", "a-token-the-person-manages-0123456789")
    server = started(load_settings(home=http_settings.home_dir, mcp={"port": 0, "token_env": "MCP_TEST_TOKEN"}))
    try:
        assert not token_path(http_settings.home_dir).exists()
        assert _health(server, bearer("a-token-the-person-manages-0123456789")).status_code == 200
        other = ensure_home_token(http_settings.home_dir)
        assert _health(server, bearer(other)).status_code == 401
    finally:
        server.stop()
