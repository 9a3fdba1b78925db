"""Reach the MCP endpoint over HTTP as a registered agent does: with the home's bearer token."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

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
