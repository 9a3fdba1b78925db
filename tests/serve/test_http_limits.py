"""A real uvicorn server with the deadline protocol: slow and silent connections are closed, others served.

At uvicorn's concurrency limit, connections that have sent no request make room for new ones.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from incremind_daemon.serve.http_limits import DeadlineH11Protocol
from tests.waiting import wait_until

DEADLINE = 0.6
LIMIT = 6  # uvicorn's limit_concurrency in the crowded server


class QuickDeadline(DeadlineH11Protocol):
    read_seconds = DEADLINE


class LongDeadline(DeadlineH11Protocol):
    read_seconds = 30.0  # silent connections stay until they are made room for


async def echo(scope: dict[str, object], receive: object, send: object) -> None:
    assert scope["type"] in ("http", "lifespan")
    if scope["type"] == "lifespan":
        return
    body = b""
    while True:
        message = await receive()  # type: ignore[operator]
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % len(body))]})  # type: ignore[operator]
    await send({"type": "http.response.body", "body": body})  # type: ignore[operator]


def serve(protocol: type[DeadlineH11Protocol], limit: int | None = None) -> Iterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        echo, http=protocol, lifespan="off", log_config=None, timeout_keep_alive=30, limit_concurrency=limit
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: server.started, timeout=10)
    try:
        yield int(sock.getsockname()[1])
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def port() -> Iterator[int]:
    yield from serve(QuickDeadline)


@pytest.fixture
def crowded_port() -> Iterator[int]:
    """A server whose silent connections stay open, with room for LIMIT connections."""
    yield from serve(LongDeadline, limit=LIMIT)


def connect(port: int) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port), timeout=5)
    return conn


def closed_by_server(conn: socket.socket, within: float) -> bool:
    conn.settimeout(within)
    try:
        return conn.recv(1024) == b""
    except TimeoutError:
        return False


def answer(conn: socket.socket, body: bytes) -> bool:
    """Read until the echoed body has arrived; False when the connection ends first."""
    received = b""
    while not received.endswith(b"\r\n\r\n" + body):
        chunk = conn.recv(4096)
        if not chunk:
            return False
        received += chunk
    return True


def request(body: bytes) -> bytes:
    return b"POST /echo HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)


def test_a_connection_that_sends_nothing_is_closed(port: int) -> None:
    with connect(port) as conn:
        started = time.monotonic()
        assert closed_by_server(conn, within=DEADLINE * 5)
        assert time.monotonic() - started >= DEADLINE * 0.8


def test_a_request_sent_a_byte_at_a_time_is_closed_at_the_deadline(port: int) -> None:
    with connect(port) as conn:
        started = time.monotonic()
        for byte in request(b"x" * 64):
            try:
                conn.send(bytes([byte]))
            except OSError:  # closed under us: that is the point
                break
            if time.monotonic() - started > DEADLINE * 5:
                break
            time.sleep(0.05)
        assert closed_by_server(conn, within=DEADLINE * 5)
        assert time.monotonic() - started < DEADLINE * 5


def test_whole_requests_are_answered_on_a_kept_alive_connection_after_a_pause(port: int) -> None:
    with connect(port) as conn:
        conn.sendall(request(b"first"))
        assert answer(conn, b"first")
        time.sleep(DEADLINE * 2)  # idle between requests: uvicorn's keep-alive decides, not the read deadline
        conn.sendall(request(b"second"))
        assert answer(conn, b"second")


def test_a_body_that_arrives_in_parts_within_the_deadline_is_answered(port: int) -> None:
    with connect(port) as conn:
        whole = request(b"0123456789")
        conn.sendall(whole[:20])
        time.sleep(DEADLINE / 4)
        conn.sendall(whole[20:])
        assert answer(conn, b"0123456789")


def test_a_new_connection_is_answered_when_silent_connections_fill_the_limit(crowded_port: int) -> None:
    silent = [connect(crowded_port) for _ in range(LIMIT)]
    try:
        with connect(crowded_port) as conn:
            conn.sendall(request(b"newcomer"))
            assert answer(conn, b"newcomer")
        assert closed_by_server(silent[0], within=2)  # the one that waited longest made room
        assert not closed_by_server(silent[-1], within=0.2)
    finally:
        for conn in silent:
            conn.close()


def test_a_kept_alive_connection_is_answered_while_silent_connections_keep_coming(crowded_port: int) -> None:
    with connect(crowded_port) as kept:
        kept.sendall(request(b"before"))
        assert answer(kept, b"before")
        silent = [connect(crowded_port) for _ in range(LIMIT * 3)]
        try:
            with connect(crowded_port) as probe:  # answered once the server has taken every silent one in
                probe.sendall(request(b"probe"))
                assert answer(probe, b"probe")
            kept.sendall(request(b"during"))
            assert answer(kept, b"during")  # neither closed to make room nor answered 503
            assert not closed_by_server(silent[-1], within=0.2)
        finally:
            for conn in silent:
                conn.close()


def test_connections_that_sent_their_request_are_not_closed_to_make_room(crowded_port: int) -> None:
    kept: list[socket.socket] = []
    try:
        for _ in range(LIMIT - 1):  # and the newcomer makes LIMIT
            kept.append(connect(crowded_port))
            kept[-1].sendall(request(b"mine"))
            assert answer(kept[-1], b"mine")
        with connect(crowded_port) as newcomer:
            newcomer.sendall(request(b"late"))
            reply = newcomer.recv(4096)
        assert reply.startswith(b"HTTP/1.1 503")  # uvicorn's answer at the limit, as before
        for conn in kept:
            assert not closed_by_server(conn, within=0.05)
    finally:
        for conn in kept:
            conn.close()
