"""The running daemon serves the MCP tools over HTTP: a save is pending at once and in the context block."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx

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

