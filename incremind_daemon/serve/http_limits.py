"""Bound what HTTP clients can hold: each request must arrive whole in time, and full tables make room.

uvicorn closes a keep-alive connection that stays idle after a response, but
not one that connects and sends nothing, nor one that sends its request a
byte a second: twenty such connections held the daemon's HTTP endpoint
forever. ``DeadlineH11Protocol`` is uvicorn's HTTP/1.1 protocol with one more
timer: from a connection's start, and from the first byte of each later
request, the request line, headers and body must be received within
``read_seconds``, or the connection is closed. Handling the request (a search,
a save) is not timed here; the tools bound their own work.
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

READ_SECONDS = 10.0  # a request of the largest allowed size arrives in milliseconds over loopback
_RECEIVED = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR)  # the client's side of the request is over


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request does not arrive whole in time."""

    read_seconds = READ_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()  # a connection that never sends a byte is closed too
        self._make_room()

    def data_received(self, data: bytes) -> None:
        if self._read_deadline is None and self.conn.their_state not in _RECEIVED:
            self._arm()  # the first byte of a request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state in _RECEIVED:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._read_deadline = self.loop.call_later(self.read_seconds, self._read_timed_out)

    def _disarm(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _read_timed_out(self) -> None:
        self._read_deadline = None
        if self.transport.is_closing() or self.conn.their_state in _RECEIVED:
            return
        log.warning(
            "closed an HTTP connection from %s whose request did not arrive whole within %.0f s",
            self.client[0] if self.client else "?",
            self.read_seconds,
        )
        self.transport.close()

    def _is_waiting(self) -> bool:
        """The connection's request has not arrived whole yet, and it is not closing."""
        return self._read_deadline is not None and not self.transport.is_closing()

    def _waiting_since(self) -> float:
        """When the request now awaited was due to start arriving (the read deadline, less its length)."""
        return self._read_deadline.when() - self.read_seconds if self._read_deadline is not None else self.loop.time()

    def _make_room(self) -> None:
        """Below the concurrency limit again, close the connections that waited longest for their request."""
        if self.limit_concurrency is None:
            return
        open_now = [c for c in self.connections if not c.transport.is_closing()]
        excess = len(open_now) - (self.limit_concurrency - 1)  # leave room for this one's request
        if excess <= 0:
            return
        waiting = [c for c in open_now if c is not self and isinstance(c, DeadlineH11Protocol) and c._is_waiting()]
        waiting.sort(key=lambda c: c._waiting_since())
        for conn in waiting[:excess]:
            log.warning(
                "closed an HTTP connection from %s that had sent no whole request in %.1f s, to make room: "
                "%d connections are open",
                conn.client[0] if conn.client else "?",
                self.loop.time() - conn._waiting_since(),
                len(open_now),
            )
            conn._disarm()
            conn.transport.close()
            # uvicorn forgets it only in connection_lost, a loop turn later: a request read before then
            # would still count it and get 503
            self.connections.discard(conn)


def evict_idle_sessions_when_full(manager: Any) -> bool:
    """Let a full MCP session table make room for a newcomer instead of refusing it.

    The SDK refuses a new session with 503 while ``max_sessions`` are open, so
    a client that opens sessions in a loop kept every agent from opening one
    until the loop's sessions idled out (10 minutes). Now the session to go is
    an idle one, first among those never used past their opening request (what
    such a loop leaves), then among the rest; within each, the one idle
    longest (each transport's idle scope has, while no request is in flight,
    the deadline its idle time runs out at). It is forgotten at once (its id
    then answers 404, on which a client opens a new session, as the protocol
    says) and its scope cancelled, which ends its server task as an idle
    timeout does. A session with a request in flight is never taken. This
    reaches into the SDK's session manager (``_admit_session``,
    ``_server_instances``, ``asgi_app``); if those change, it says so
    and the SDK's own 503 applies. Returns whether it is in place.
    """
    admit = getattr(manager, "_admit_session", None)
    handle = getattr(manager, "asgi_app", None)  # what the route calls for every request
    if admit is None or handle is None or not isinstance(getattr(manager, "_server_instances", None), dict):
        log.warning("this MCP SDK's session manager is not the one known: a full session table refuses newcomers")
        return False
    used: set[str] = set()  # sessions that carried a request after the one that opened them

    async def handle_noting_use(scope: Any, receive: Any, send: Any) -> None:
        for name, value in scope.get("headers", ()):
            if name == b"mcp-session-id":
                session_id = value.decode("latin-1")
                if session_id in manager._server_instances:
                    used.add(session_id)
                break
        await handle(scope, receive, send)

    def admit_making_room(requestor: Any) -> Any:
        sessions: dict[str, Any] = manager._server_instances
        if manager.max_sessions is not None and len(sessions) >= manager.max_sessions:
            used.intersection_update(sessions)  # forget sessions that ended
            idle = [
                (session_id in used, scope.deadline, session_id)
                for session_id, transport in sessions.items()
                if (scope := getattr(transport, "idle_scope", None)) is not None
                and math.isfinite(scope.deadline)
                and not scope.cancel_called
            ]
            if idle:
                _, _, chosen = min(idle)
                transport = sessions.pop(chosen)
                getattr(manager, "_session_owners", {}).pop(chosen, None)
                used.discard(chosen)
                transport.idle_scope.cancel()
                log.info("the session table was full: closed an idle session to open a new one")
        return admit(requestor)

    manager._admit_session = admit_making_room
    manager.asgi_app = handle_noting_use
    return True
