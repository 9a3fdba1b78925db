"""The clients of benchmarks/attack.py: a raw MCP session, the well-behaved agent, and held sockets.

Imports nothing of incremind: they reach the daemon over HTTP only, as an
agent or an attacker on the same machine would.
"""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from benchmarks.figures import percentile

PROTOCOL = "2025-06-18"  # a version with the initialize handshake: the session kind agents open today
ACCEPT = "application/json, text/event-stream"


def initialize(number: int = 1) -> dict[str, Any]:
    params = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "attack", "version": "1"}}
    return {"jsonrpc": "2.0", "id": number, "method": "initialize", "params": params}


def bearer(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


class RawSession:
    """One MCP session over plain HTTP (the daemon answers JSON), so every status code shows."""

    def __init__(self, http: httpx.Client, url: str, token: str | None) -> None:
        self._http = http
        self._url = url
        self._token = token
        self.session_id: str | None = None
        self._next_id = 2

    def headers(self) -> dict[str, str]:
        headers = {"Accept": ACCEPT, "Content-Type": "application/json", **bearer(self._token)}
        if self.session_id is not None:
            headers |= {"Mcp-Session-Id": self.session_id, "MCP-Protocol-Version": PROTOCOL}
        return headers

    def open(self) -> int:
        """Send initialize (and, when answered, initialized); return the status of initialize."""
        answer = self._http.post(self._url, json=initialize(), headers=self.headers())
        if answer.status_code == 200:
            self.session_id = answer.headers.get("mcp-session-id")
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            self._http.post(self._url, json=note, headers=self.headers())
        return answer.status_code

    def close(self) -> None:
        self._http.close()

    def call(self, tool: str, arguments: dict[str, Any], *, timeout: float = 120.0) -> httpx.Response:
        self._next_id += 1
        message = {
            "jsonrpc": "2.0",
            "id": self._next_id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        body = json.dumps(message, ensure_ascii=False).encode()
        return self._http.post(self._url, content=body, headers=self.headers(), timeout=timeout)


def describe_reply(answer: httpx.Response) -> str:
    """Say in one line what a tools/call over HTTP came back with."""
    if answer.status_code != 200:
        return f"HTTP {answer.status_code}: {answer.text[:100]}"
    reply = answer.json()
    if "error" in reply:
        return f"JSON-RPC error: {reply['error'].get('message', '')[:100]}"
    result = reply["result"]
    if result.get("isError"):
        text = " ".join(block.get("text", "") for block in result.get("content", []))
        return "refused: " + text.removeprefix("Error executing tool ")[:140]
    content = result.get("structuredContent") or {}
    if "results" in content:
        cut = content.get("cut") or "not cut"
        return f"answered, {len(content['results'])} results ({content.get('mode')}); {cut[:90]}"
    return f"saved: {str(content.get('message', content))[:100]}"


@dataclass(frozen=True, slots=True)
class Call:
    started: float  # time.monotonic()
    seconds: float
    error: str | None


@dataclass(frozen=True, slots=True)
class Window:
    """The well-behaved agent's calls that started within one attack."""

    calls: int
    errors: int
    p50_ms: float
    p95_ms: float
    kinds: Counter[str] = field(default_factory=Counter)

    def shown(self) -> str:
        if not self.calls:
            return "no calls"
        text = f"p50 {self.p50_ms:7.0f} ms  p95 {self.p95_ms:7.0f} ms  errors {self.errors}/{self.calls}"
        return text


class WellBehavedAgent:
    """An agent's MCP session (the SDK's client, with the handshake) searching every ~100 ms on a thread.

    A call that fails is counted and the session kept; a session that breaks
    is opened again, as an agent's client would.
    """

    def __init__(self, url: str, token: str, queries: list[str], *, every: float = 0.1) -> None:
        self._url = url
        self._token = token
        self._queries = queries
        self._every = every
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._calls: list[Call] = []
        self.sessions = 0
        self._thread = threading.Thread(target=lambda: anyio.run(self._run), name="well-behaved", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(60)

    def wait_answered(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not any(c.error is None for c in self.calls()):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the well-behaved agent got no answer in {timeout:.0f} s: {self.calls()[-3:]}")
            time.sleep(0.1)

    def calls(self) -> list[Call]:
        with self._lock:
            return list(self._calls)

    def window(self, start: float, end: float) -> Window:
        calls = [c for c in self.calls() if start <= c.started < end]
        answered = [c.seconds * 1000 for c in calls if c.error is None]
        kinds = Counter(c.error for c in calls if c.error is not None)
        return Window(
            calls=len(calls),
            errors=sum(kinds.values()),
            p50_ms=percentile(answered, 50) if answered else float("nan"),
            p95_ms=percentile(answered, 95) if answered else float("nan"),
            kinds=kinds,
        )

    def _record(self, started: float, error: str | None) -> None:
        with self._lock:
            self._calls.append(Call(started, time.monotonic() - started, error))

    async def _run(self) -> None:
        number = 0
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                http = create_mcp_http_client(headers=bearer(self._token))
                async with http, Client(streamable_http_client(self._url, http_client=http), mode="legacy") as client:
                    self.sessions += 1
                    while not self._stop.is_set():
                        query = self._queries[number % len(self._queries)]
                        number += 1
                        started = time.monotonic()
                        try:
                            with anyio.fail_after(60):
                                result = await client.call_tool("search_memory", {"query": query, "limit": 5})
                            self._record(started, "tool error" if result.is_error else None)
                        except Exception as exc:  # every failure is a figure here
                            self._record(started, _kind(exc))
                        await anyio.sleep(self._every)
            except Exception as exc:  # a broken session is opened again
                self._record(started, "session: " + _kind(exc))
                await anyio.sleep(self._every)


def _kind(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {str(exc)[:70]}"


def open_silent(port: int, count: int) -> list[socket.socket]:
    """Open count connections that never send a byte."""
    held = []
    for _ in range(count):
        conn = socket.create_connection(("127.0.0.1", port), timeout=10)
        conn.setblocking(False)
        held.append(conn)
    return held


class ClosedWatch:
    """Watch held connections on a thread: when the server closes each, and trickle a byte a second on some.

    ``trickle`` maps a connection to the bytes it sends, one a second.
    """

    def __init__(self, conns: list[socket.socket], trickle: dict[socket.socket, bytes]) -> None:
        self._conns = conns
        self._trickle = trickle
        self.opened = time.monotonic()
        self.closed_after: dict[socket.socket, float] = {}
        self.answered: Counter[str] = Counter()  # what a server that answered instead of closing sent
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="closed-watch", daemon=True)

    def __enter__(self) -> ClosedWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(10)
        for conn in self._conns:
            conn.close()

    def wait_all_closed(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while len(self.closed_after) < len(self._conns) and time.monotonic() < deadline:
            time.sleep(0.05)
        return len(self.closed_after) == len(self._conns)

    def seconds(self, conns: list[socket.socket]) -> list[float]:
        return sorted(self.closed_after[c] for c in conns if c in self.closed_after)

    def _run(self) -> None:
        picker = selectors.DefaultSelector()
        for conn in self._conns:
            picker.register(conn, selectors.EVENT_READ)
        sent = dict.fromkeys(self._trickle, 0)
        next_byte = time.monotonic()
        while not self._stop.is_set() and len(self.closed_after) < len(self._conns):
            for key, _ in picker.select(timeout=0.05):
                conn = key.fileobj
                assert isinstance(conn, socket.socket)
                self._read(conn, picker)
            if time.monotonic() >= next_byte:
                next_byte += 1.0
                for conn, data in self._trickle.items():
                    if conn in self.closed_after or sent[conn] >= len(data):
                        continue
                    try:
                        conn.send(data[sent[conn] : sent[conn] + 1])
                        sent[conn] += 1
                    except OSError:
                        self._closed(conn, picker)
        picker.close()

    def _read(self, conn: socket.socket, picker: selectors.BaseSelector) -> None:
        try:
            data = conn.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            self.answered[data.split(b"\r\n", 1)[0].decode(errors="replace")] += 1
            return
        self._closed(conn, picker)

    def _closed(self, conn: socket.socket, picker: selectors.BaseSelector) -> None:
        if conn not in self.closed_after:
            self.closed_after[conn] = time.monotonic() - self.opened
            with contextlib.suppress(KeyError, ValueError):
                picker.unregister(conn)
