"""The running daemon serves the MCP tools over HTTP: a save is pending at once and in the context block."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from incremind_daemon.cli import main
from tests.daemon_process import DaemonProcess, daemon_env
from tests.mcp_http_client import bearer, home_token, mcp_client
from tests.waiting import wait_until


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_agent_saves_searches_and_reads_through_the_daemon(private_home: Path) -> None:
    port = _free_port()
    process = DaemonProcess(private_home / ".incremind", daemon_env(INCREMIND_MCP__PORT=str(port)))
    process.start()
    url = f"http://127.0.0.1:{port}"
    try:
        token = home_token(private_home / ".incremind")  # made at the daemon's first start
        wait_until(lambda: httpx.get(f"{url}/health", headers=bearer(token), timeout=2).status_code == 200, timeout=20)
        health = httpx.get(f"{url}/health", headers=bearer(token), timeout=2).json()
        assert health["ok"] is True and health["pid"] == process.proc.pid  # type: ignore[union-attr]
        assert health["home"] == str((private_home / ".incremind").resolve())
        assert httpx.get(f"{url}/health", timeout=2).status_code == 401
        assert httpx.get(f"{url}/health", headers={"Host": "evil.example"}, timeout=2).status_code == 421

        async def session() -> dict[str, Any]:
            seen: dict[str, Any] = {}
            async with mcp_client(f"{url}/mcp", token) as client:
                saved = await client.call_tool(
                    "save_memory", {"text": "部署前必须先跑 make check。", "project": "api", "category": "method"}
                )
                assert not saved.is_error, saved.content
                seen["save"] = saved.structured_content
                found = await client.call_tool("search_memory", {"query": "make check", "project": "api"})
                seen["search"] = found.structured_content
                pending = await client.call_tool("list_pending", {"project": "api"})
                seen["pending"] = pending.structured_content
                context = await client.call_tool("get_recent_context", {"project": "api"})
                seen["context"] = context.structured_content
                bad = await client.call_tool("read_memory", {"id": "ins-999"})
                seen["bad"] = (bad.is_error, str(bad.content))
            return seen

        seen = anyio.run(session)
        assert seen["save"]["relation"] == "new" and seen["save"]["status"] == "pending"
        assert any("make check" in str(hit["text"]) for hit in seen["search"]["results"])
        assert "make check" in str(seen["pending"])
        assert "make check" not in str(seen["context"])  # unconfirmed: never in a context block
        assert seen["bad"][0] and "ins-999" in seen["bad"][1]

        def reported() -> bool:
            """status names the endpoint and the client that used memory"""
            report = json.loads(
                subprocess.run(
                    [sys.executable, "-m", "incremind_daemon", "status", "--json"],
                    env=process.env,
                    capture_output=True,
                    text=True,
                    check=False,
                ).stdout
            )
            return report["mcp_url"] == f"{url}/mcp" and any(u["calls"] >= 5 for u in report["agent_use"])

        wait_until(reported, timeout=20)
    finally:
        assert process.stop() == 0


def test_token_rotate_reaches_the_running_daemon_and_the_agents_set_up_over_http(
    private_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    port = _free_port()
    monkeypatch.setenv("INCREMIND_MCP__PORT", str(port))
    home = private_home / ".incremind"
    for folder in (".claude", ".codex", ".gemini"):
        (private_home / folder).mkdir()
    process = DaemonProcess(home, daemon_env(INCREMIND_MCP__PORT=str(port)))
    previous = os.umask(0o022)
    process.start()
    url = f"http://127.0.0.1:{port}"
    try:
        first = home_token(home)
        assert stat.S_IMODE((home / "token").stat().st_mode) == 0o600
        wait_until(lambda: httpx.get(f"{url}/health", headers=bearer(first), timeout=2).status_code == 200)
        for agent, how in (("claude", "--http"), ("codex", "--http"), ("gemini", "--stdio")):
            assert main(["setup", agent, how, "--no-hook"]) == 0
        capsys.readouterr()
        gemini_before = (private_home / ".gemini" / "settings.json").read_text(encoding="utf-8")

        assert main(["token", "rotate"]) == 0
        out = capsys.readouterr().out
        new = home_token(home)
        assert new != first and first not in out and new not in out
        assert f"updated the incremind MCP server in {private_home / '.claude.json'}" in out
        assert f"updated the incremind MCP server in {private_home / '.codex' / 'config.toml'}" in out
        assert "gemini" not in out  # set up over stdio: no token to change
        assert f"the running daemon (pid {process.proc.pid}) accepts the new token" in out  # type: ignore[union-attr]
        assert (private_home / ".gemini" / "settings.json").read_text(encoding="utf-8") == gemini_before
        claude = json.loads((private_home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]["incremind"]
        codex = tomllib.loads((private_home / ".codex" / "config.toml").read_text(encoding="utf-8"))
        assert claude["headers"] == {"Authorization": f"Bearer {new}"}
        assert codex["mcp_servers"]["incremind"]["http_headers"] == {"Authorization": f"Bearer {new}"}
        assert httpx.get(f"{url}/health", headers=bearer(first), timeout=2).status_code == 401
        assert httpx.get(f"{url}/health", headers=bearer(new), timeout=2).status_code == 200

        assert process.stop() == 0
        process.start()  # the token survives a restart unchanged
        assert home_token(home) == new
        wait_until(lambda: httpx.get(f"{url}/health", headers=bearer(new), timeout=2).status_code == 200)
    finally:
        os.umask(previous)
        assert process.stop() == 0
