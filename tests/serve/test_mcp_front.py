"""The front of `incremind mcp`: the SDK's own answers at once, everything else by the SDK's server behind it."""

from __future__ import annotations

import functools
import io
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from incremind_daemon.cli.mcp import serve_sdk
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.serve.mcp_front import LISTING, Backend, StdioFront, capture_listing, installed_sdk, load_listing

REVIEW_TOOLS = ["confirm_insight", "reject_insight"]


def opening(version: str, asked: object = 1) -> dict[str, Any]:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "codex", "version": "0.159"}}
    return {"jsonrpc": "2.0", "id": asked, "method": "initialize", "params": params}


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
SEARCH = {"name": "search_memory", "arguments": {"query": "tabs"}}


class Gated:
    """The real SDK server, held back until the test opens the gate: what the front says before it is its own."""

    def __init__(self, serve: Backend) -> None:
        self.gate = threading.Event()
        self.started = threading.Event()
        self._serve = serve

    def __call__(self, inbound: BinaryIO, outbound: BinaryIO) -> None:
        self.started.set()
        self.gate.wait(60)
        self._serve(inbound, outbound)


class Session:
    """An agent on the front's pipes: it writes messages and reads the lines the front answers."""

    def __init__(self) -> None:
        agent_in, front_out = os.pipe()
        self._front_in, self._agent_out = os.pipe()
        self._lines = open(agent_in, "rb")  # noqa: SIM115 - closed by close()
        self.out = open(front_out, "wb")  # noqa: SIM115 - what the front writes to, closed when it ends
        self.still_running: bool | None = None
        self.thread: threading.Thread | None = None

    def start(self, front: StdioFront) -> None:
        def run() -> None:
            with open(self._front_in, "rb") as stream, self.out:
                self.still_running = front.run(stream)

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def send(self, message: dict[str, Any]) -> None:
        os.write(self._agent_out, json.dumps(message).encode() + b"\n")

    def receive(self) -> dict[str, Any]:
        line = self._lines.readline()
        assert line, "the front closed its output"
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> list[dict[str, Any]]:
        """Close the agent's input; return whatever else the front wrote before it ended."""
        assert self.thread is not None
        os.close(self._agent_out)
        self.thread.join(60)
        rest = [json.loads(line) for line in self._lines.read().splitlines() if line.strip()]
        self._lines.close()
        return rest


@pytest.fixture
def review_settings(settings: Settings) -> Settings:
    return load_settings(home=settings.home_dir, mcp={"allow_review": True})


@pytest.fixture
def open_front(settings: Settings) -> Iterator[Callable[..., tuple[Session, Gated]]]:
    sessions: list[tuple[Session, Gated]] = []

    def start(*, fail: bool = False, chosen: Settings = settings, stale: bool = False) -> tuple[Session, Gated]:
        serve: Backend = functools.partial(serve_sdk, chosen)
        if fail:

            def serve(inbound: BinaryIO, outbound: BinaryIO) -> None:
                raise RuntimeError("no such model")

        gated, session = Gated(serve), Session()
        listing = None if stale else load_listing()
        session.start(StdioFront(listing, review=chosen.mcp.allow_review, out=session.out, backend=gated))
        sessions.append((session, gated))
        return session, gated

    yield start
    for session, gated in sessions:
        gated.gate.set()
        if session.thread is not None and session.thread.is_alive():
            session.close()


def test_the_listing_is_what_the_sdk_answers(settings: Settings, review_settings: Settings) -> None:
    """Fails after a tool, its description or the SDK changed: run benchmarks/mcp_listing.py."""
    versions = list(HANDSHAKE_PROTOCOL_VERSIONS)
    shipped = load_listing()
    assert shipped is not None and installed_sdk() is not None
    assert capture_listing(functools.partial(serve_sdk, review_settings), versions, REVIEW_TOOLS) == shipped
    # without review tools the SDK lists the rest, in the same order
    plain = capture_listing(functools.partial(serve_sdk, settings), versions, [])
    assert plain["tools"] == [tool for tool in shipped["tools"] if tool["name"] not in REVIEW_TOOLS]


def test_the_opening_and_the_tool_list_come_before_the_sdk_loads(
    open_front: Callable[..., tuple[Session, Gated]],
) -> None:
    session, gated = open_front()
    session.send(opening("2025-06-18"))
    answer = session.receive()
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == "2025-06-18"
    assert answer["result"]["serverInfo"]["name"] == "incremind"
    session.send(INITIALIZED)
    session.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    names = [tool["name"] for tool in session.receive()["result"]["tools"]]
    assert names == ["search_memory", "read_memory", "save_memory", "get_recent_context", "list_pending"]
    session.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    assert session.receive() == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert not gated.gate.is_set()  # all of it answered while the SDK's server had not begun
    session.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": SEARCH})
    gated.gate.set()
    called = session.receive()
    assert called["id"] == 4 and called["result"]["isError"] is False
    assert session.close() == []  # the server's own answer to the opening never reaches the agent


def test_review_tools_are_listed_only_when_allowed(
    open_front: Callable[..., tuple[Session, Gated]], review_settings: Settings
) -> None:
    session, _ = open_front(chosen=review_settings)
    session.send(opening("2025-11-25", asked="a"))
    assert session.receive()["id"] == "a"
    session.send({"jsonrpc": "2.0", "id": "b", "method": "tools/list"})
    names = {tool["name"] for tool in session.receive()["result"]["tools"]}
    assert set(REVIEW_TOOLS) <= names and len(names) == 7


def test_an_opening_the_front_cannot_answer_goes_to_the_sdk(
    open_front: Callable[..., tuple[Session, Gated]],
) -> None:
    """An unknown version: the SDK answers with its newest handshake version, once, and serves the rest."""
    session, gated = open_front()
    session.send(opening("2023-01-01"))
    session.send(INITIALIZED)
    session.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    gated.gate.set()
    answer = session.receive()
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == HANDSHAKE_PROTOCOL_VERSIONS[-1]
    assert len(session.receive()["result"]["tools"]) == 5
    assert session.close() == []
    assert MODERN_PROTOCOL_VERSIONS  # a stateless client never sends initialize: all of it goes to the SDK


def test_a_call_owed_when_the_agent_closes_is_answered_first(
    open_front: Callable[..., tuple[Session, Gated]],
) -> None:
    session, gated = open_front()
    session.send(opening("2025-06-18"))
    session.receive()
    session.send(INITIALIZED)
    session.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": SEARCH})
    closing = threading.Thread(target=session.close)
    closing.start()
    gated.gate.set()
    closing.join(60)
    assert session.thread is not None and not session.thread.is_alive()
    assert session.still_running is not None


def test_closing_while_the_sdk_loads_ends_without_waiting_for_it(
    open_front: Callable[..., tuple[Session, Gated]],
) -> None:
    """A health check opens, lists and closes: the front ends at once, and says the server still loads."""
    session, gated = open_front()
    session.send(opening("2025-06-18"))
    session.receive()
    session.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    session.receive()
    assert gated.started.wait(60)
    assert session.close() == []
    assert session.still_running is True and not gated.gate.is_set()


def test_a_line_for_an_agent_that_left_goes_nowhere(settings: Settings) -> None:
    """The agent closed its end (a health check that hung up, a late answer of the SDK): nothing fails on it."""
    gone = open(os.devnull, "wb")  # noqa: SIM115 - closed at once
    gone.close()
    gated = Gated(functools.partial(serve_sdk, settings))
    gated.gate.set()
    front = StdioFront(load_listing(), review=False, out=gone, backend=gated)
    asked = io.BytesIO(json.dumps(opening("2025-06-18")).encode() + b"\n")
    front.run(asked)  # the front answers the opening itself, to no one


def test_a_server_that_fails_to_start_answers_every_call_with_the_reason(
    open_front: Callable[..., tuple[Session, Gated]],
) -> None:
    session, gated = open_front(fail=True)
    session.send(opening("2025-06-18"))
    session.receive()
    session.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": SEARCH})
    gated.gate.set()
    failed = session.receive()
    assert failed["id"] == 2 and "failed to start: no such model" in failed["error"]["message"]
    session.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": SEARCH})
    assert "failed to start" in session.receive()["error"]["message"]
    session.send({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})  # what needs no server still works
    assert len(session.receive()["result"]["tools"]) == 5
    assert session.close() == []


def test_answers_taken_from_another_sdk_version_are_not_given(
    open_front: Callable[..., tuple[Session, Gated]], tmp_path: Path
) -> None:
    """An upgraded SDK answers for itself until the listing is written again from it."""
    listing = json.loads(LISTING.read_text(encoding="utf-8"))
    other = tmp_path / "mcp_listing.json"
    other.write_text(json.dumps({**listing, "sdk": "0.0.1"}), encoding="utf-8")
    assert load_listing(other) is None
    session, gated = open_front(stale=True)
    session.send(opening("2025-06-18"))
    session.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    gated.gate.set()  # nothing is answered before the SDK's server runs
    assert session.receive()["result"]["protocolVersion"] == "2025-06-18"
    assert len(session.receive()["result"]["tools"]) == 5
    assert session.close() == []
