"""Reach the MCP endpoint over HTTP as a registered agent does: with the home's bearer token."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def home_token(home: Path) -> str:
    """Return the token the daemon of home made at its first start."""
    return (home / "token").read_text(encoding="ascii").strip()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@asynccontextmanager
async def mcp_client(url: str, token: str, **options: Any) -> AsyncIterator[Client]:
    """Open an MCP client session on url that sends the token with every request."""
    http = create_mcp_http_client(headers=bearer(token))
    async with http, Client(streamable_http_client(url, http_client=http), **options) as client:
        yield client


PROTOCOL = "2025-06-18"  # a version with the initialize handshake: the session kind agents open today
ACCEPT = {"Accept": "application/json, text/event-stream"}


def initialize_request(client: str = "t") -> dict[str, Any]:
    """Return the JSON-RPC initialize request that opens a session."""
    params = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": client, "version": "1"}}
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}


class HttpSession:
    """An MCP session over plain HTTP with the token, one request at a time, so each status code shows.

    The daemon answers JSON (not a stream), so a reply is one response body.
    """

    def __init__(self, url: str, token: str, *, timeout: float = 30.0) -> None:
        self._url = url
        self._http = httpx.Client(timeout=timeout, headers={**ACCEPT, **bearer(token)})
        self.session_id: str | None = None
        self._next_id = 1

    def __enter__(self) -> HttpSession:
        return self

    def __exit__(self, *_: object) -> None:
        self._http.close()

    def _headers(self) -> dict[str, str]:
        if self.session_id is None:
            return {}
        return {"Mcp-Session-Id": self.session_id, "MCP-Protocol-Version": PROTOCOL}

    def open(self) -> int:
        """Send initialize (and initialized, when answered); return the status initialize got."""
        answer = self._http.post(self._url, json=initialize_request())
        if answer.status_code == 200:
            self.session_id = answer.headers["mcp-session-id"]
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            self._http.post(self._url, json=note, headers=self._headers())
        return answer.status_code

    def call(self, tool: str, arguments: dict[str, Any]) -> httpx.Response:
        self._next_id += 1
        message = {
            "jsonrpc": "2.0",
            "id": self._next_id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        return self._http.post(self._url, json=message, headers=self._headers())

    def result(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call tool and return its structured result; fail on any error."""
        answer = self.call(tool, arguments)
        assert answer.status_code == 200, answer.text[:300]
        reply = answer.json()
        assert "result" in reply and not reply["result"].get("isError"), str(reply)[:300]
        content: dict[str, Any] = reply["result"]["structuredContent"]
        return content
