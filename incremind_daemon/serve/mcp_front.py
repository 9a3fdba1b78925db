"""The front of `incremind mcp` with no daemon: answer the agent at once while the MCP SDK loads behind it.

An agent starts its MCP servers with every session and waits for their
tools before its first turn. Served by the SDK alone, `incremind mcp` with
no daemon running answered ``initialize`` after about 1.8 s, 1.3 s of it
importing the SDK. The front answers what needs neither the SDK nor the
store (``initialize``, ``tools/list``, ``ping``) with the SDK's own answers,
kept in ``mcp_listing.json`` (``benchmarks/mcp_listing.py`` writes it; a test
checks it against the SDK; taken from another SDK version than the one
installed, it is not used), and passes everything else through pipes to the
SDK's server, which starts loading with the process and opens its session
with the agent's own ``initialize``. A client that opens the session any
other way (the 2026 stateless protocol, an unknown version) talks to the SDK
directly, through the same pipes.

Standard library only: what it imports, the agent waits for.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

log = logging.getLogger(__name__)

LISTING = Path(__file__).with_name("mcp_listing.json")
OPENING_ID = "incremind-front-opening"  # the id of the initialize the SDK's server is opened with
ANSWER_TIMEOUT = 600.0  # at the end of input, how long the answers still owed are waited for

# serves one MCP session read from the first stream and answered on the second, until the first ends
Backend = Callable[[BinaryIO, BinaryIO], None]


def load_listing(path: Path = LISTING) -> dict[str, Any] | None:
    """Return the SDK's answers the front gives itself (see ``capture_listing``); None when they were taken
    from another version of the SDK than the one installed, which then answers everything itself."""
    listing: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return listing if listing.get("sdk") == installed_sdk() else None


def installed_sdk() -> str | None:
    """Return the installed MCP SDK's version, read from its package metadata's folder name (no import)."""
    spec = importlib.util.find_spec("mcp")
    if spec is None or spec.origin is None:
        return None
    found = sorted(Path(spec.origin).parent.parent.glob("mcp-*.dist-info"))
    return found[0].name.removeprefix("mcp-").removesuffix(".dist-info") if len(found) == 1 else None


class StdioFront:
    """One agent's stdio session: the quick answers here, the rest through the SDK's server.

    Requests to the server run as the SDK runs them (concurrently); answers go
    to the agent whole, one line each, in the order they are ready. The
    server's answer to the opening it was given in the agent's name is dropped:
    the agent has had its answer.
    """

    def __init__(self, listing: dict[str, Any] | None, *, review: bool, out: BinaryIO, backend: Backend) -> None:
        listing = listing or {"review_tools": [], "tools": [], "initialize": {}, "handshake_versions": []}
        hidden = set() if review else set(listing["review_tools"])
        self._tools = [tool for tool in listing["tools"] if tool["name"] not in hidden]
        self._info: dict[str, Any] = listing["initialize"]
        self._versions: list[str] = listing["handshake_versions"]  # none: the SDK answers every opening
        self._out = out
        self._write = threading.Lock()
        self._opened = False  # the front answered the agent's initialize
        self._owed: set[str] = set()  # the ids of requests passed on and not answered yet
        self._changed = threading.Condition()
        self._failure: str | None = None
        self._inbox: queue.Queue[bytes | None] = queue.Queue()  # to the server, in order; None ends it
        to_server, self._server_in = os.pipe()
        self._server_out, from_server = os.pipe()
        self._server = threading.Thread(
            target=self._serve, args=(backend, to_server, from_server), name="incremind-mcp-sdk", daemon=True
        )
        self._feeder = threading.Thread(target=self._feed, name="incremind-mcp-feed", daemon=True)
        self._pump = threading.Thread(target=self._carry, name="incremind-mcp-pump", daemon=True)

    def run(self, stream: BinaryIO) -> bool:
        """Serve until the agent closes its input; return whether the SDK's server still runs."""
        for thread in (self._server, self._feeder, self._pump):
            thread.start()
        for line in stream:
            body = line.strip()
            if body:
                self._take(body)
        self._inbox.put(None)
        with self._changed:  # a request passed on is answered before the process may end
            self._changed.wait_for(lambda: not self._owed or self._failure is not None, ANSWER_TIMEOUT)
        self._pump.join(0.0 if self._server.is_alive() else ANSWER_TIMEOUT)
        return self._server.is_alive()

    def _take(self, body: bytes) -> None:
        message = _parse(body)
        method = message.get("method") if isinstance(message, dict) else None
        asked = message.get("id") if isinstance(message, dict) and method is not None else None
        if asked is not None and isinstance(message, dict):
            params = message.get("params")
            answer = self._answer(str(method), params if isinstance(params, dict) else {})
            if answer is not None:
                self._send({"jsonrpc": "2.0", "id": asked, "result": answer})
                if method == "initialize":
                    self._opened = True
                    self._inbox.put(json.dumps({**message, "id": OPENING_ID}, ensure_ascii=False).encode())
                return
            with self._changed:
                failure = self._failure
                if failure is None:
                    self._owed.add(_key(asked))
            if failure is not None:
                self._fail(asked, failure)
                return
        self._inbox.put(body)

    def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        """Return the SDK's answer when the front may give it itself, else None."""
        if method == "initialize" and not self._opened and params.get("protocolVersion") in self._versions:
            return {"protocolVersion": params["protocolVersion"], **self._info}
        if not self._opened:
            return None
        if method == "tools/list" and not set(params) - {"_meta"}:  # a page after the first goes to the SDK
            return {"tools": self._tools}
        if method == "ping":
            return {}
        return None

    def _serve(self, backend: Backend, to_server: int, from_server: int) -> None:
        try:
            _serve_on(backend, to_server, from_server)
        except BaseException as exc:
            log.exception("the MCP server failed")
            failure = f"incremind's memory tools failed to start: {exc}; see the agent's MCP log"
        else:
            failure = "incremind's memory tools stopped"
        with self._changed:
            self._failure = failure
            owed, self._owed = self._owed, set()
            self._changed.notify_all()
        for asked in owed:
            self._fail(json.loads(asked), failure)

    def _feed(self) -> None:
        try:
            while (body := self._inbox.get()) is not None:
                line = memoryview(body + b"\n")
                while line:
                    line = line[os.write(self._server_in, line) :]
        except OSError:  # the server ended: what it was owed is answered with its failure
            pass
        finally:
            os.close(self._server_in)

    def _carry(self) -> None:
        with open(self._server_out, "rb") as pipe:
            for line in pipe:
                answer = _parse(line)
                answered = answer.get("id") if isinstance(answer, dict) and "method" not in answer else None
                if answered == OPENING_ID:
                    if isinstance(answer, dict) and "error" in answer:
                        log.error("the MCP server refused the session: %s", answer["error"])
                    continue
                self._write_line(line.strip())
                if answered is not None:  # written first: once nothing is owed, the process may end
                    with self._changed:
                        self._owed.discard(_key(answered))
                        self._changed.notify_all()

    def _fail(self, asked: object, text: str) -> None:
        self._write_line(
            json.dumps(
                {"jsonrpc": "2.0", "id": asked, "error": {"code": -32603, "message": text}}, ensure_ascii=False
            ).encode()
        )

    def _send(self, message: dict[str, Any]) -> None:
        self._write_line(json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode())

    def _write_line(self, body: bytes) -> None:
        if not body:
            return
        with self._write:
            try:
                self._out.write(body + b"\n")
                self._out.flush()
            except (ValueError, OSError):  # the agent closed its end, or hung up: no one is left to read it
                log.debug("the agent's end is closed; a line for it is dropped")


def claim_wire() -> tuple[BinaryIO, BinaryIO]:
    """Return the agent's pipes, and point fd 0 at /dev/null and fd 1 at stderr.

    Whatever else in the process reads stdin or prints to stdout (a library's
    progress line) then misses the protocol stream, as the SDK's own stdio
    transport arranges.
    """
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


def capture_listing(backend: Backend, versions: list[str], review_tools: list[str]) -> dict[str, Any]:
    """Ask a server the questions the front answers itself; return the answers as ``mcp_listing.json`` keeps them.

    The server must list every tool (review tools included). For each
    protocol version the agent may open with, initialize and the tool list
    must be the same but for the version, or this refuses.
    """
    found: dict[str, Any] = {"sdk": installed_sdk(), "handshake_versions": versions, "review_tools": review_tools}
    for version in versions:
        to_server, server_in = os.pipe()
        server_out, from_server = os.pipe()
        thread = threading.Thread(target=_serve_on, args=(backend, to_server, from_server), daemon=True)
        thread.start()
        opening = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}},
        }
        with open(server_in, "wb") as ask, open(server_out, "rb") as hear:
            ask.write(json.dumps(opening).encode() + b"\n")
            ask.flush()
            info = json.loads(hear.readline())["result"]
            ask.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            ask.write(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
            ask.flush()
            tools = json.loads(hear.readline())["result"]
            pong = json.loads(hear.readline())["result"]
        thread.join(60)
        if info.pop("protocolVersion") != version or pong != {} or set(tools) != {"tools"}:
            raise ValueError(f"the server answers protocol {version} in a way the front does not: {info}, {pong}")
        for key, value in (("initialize", info), ("tools", tools["tools"])):
            if found.setdefault(key, value) != value:
                raise ValueError(f"the server's {key} differs by protocol version ({version})")
    return found


def _serve_on(backend: Backend, reading: int, writing: int) -> None:
    with open(reading, "rb") as inbound, open(writing, "wb") as outbound:
        backend(inbound, outbound)


def _key(asked: object) -> str:
    return json.dumps(asked, sort_keys=True)


def _parse(raw: bytes) -> object:
    try:
        return json.loads(raw)
    except ValueError:
        return None
