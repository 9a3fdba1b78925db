"""Bound what one HTTP connection can hold: each request must arrive whole within a deadline.

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
        self._waiting_since = 0.0  # when the request now awaited was due to start arriving

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
        self._waiting_since = self.loop.time()
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

    def _make_room(self) -> None:
        """Below the concurrency limit again, close the connections that waited longest for their request."""
        if self.limit_concurrency is None:
            return
        open_now = [c for c in self.connections if not c.transport.is_closing()]
        excess = len(open_now) - (self.limit_concurrency - 1)  # leave room for this one's request
        if excess <= 0:
            return
        waiting = [c for c in open_now if c is not self and isinstance(c, DeadlineH11Protocol) and c._is_waiting()]
        waiting.sort(key=lambda c: c._waiting_since)
        for conn in waiting[:excess]:
            log.warning(
                "closed an HTTP connection from %s that had sent no whole request in %.1f s, to make room: "
                "%d connections are open",
                conn.client[0] if conn.client else "?",
                self.loop.time() - conn._waiting_since,
                len(open_now),
            )
            conn._disarm()
            conn.transport.close()
            # uvicorn forgets it only in connection_lost, a loop turn later: a request read before then
            # would still count it and get 503
            self.connections.discard(conn)
