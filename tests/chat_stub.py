"""A stand-in OpenAI chat completions server on 127.0.0.1, scripted reply by reply.

    with serve_chat_stub() as stub:
        stub.script(completion('{"candidates": []}'), Reply(429, retry_after="0"))
        ...  # point model.base_url at stub.url
        assert stub.requests == [...]

Each request takes the next scripted reply; with none left, the stub answers
400, so an unexpected call fails loudly instead of being retried.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

CHAT_PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a status, a body (JSON unless bytes), headers, and an optional stall."""

    status: int = 200
    body: object = None
    retry_after: str | None = None
    stall_seconds: float = 0.0  # wait this long (or until the stub stops) before answering

    def encoded(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if self.body is None:
            return b""
        return json.dumps(self.body, ensure_ascii=False).encode()


def completion(
    content: str | None, *, prompt_tokens: int | None = 120, completion_tokens: int | None = 40, finish: str = "stop"
) -> Reply:
    """A successful chat completion whose message text is ``content``; None tokens leave ``usage`` out."""
    body: dict[str, object] = {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "model": "stub-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
    }
    if prompt_tokens is not None and completion_tokens is not None:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return Reply(200, body)


def candidates_reply(*candidates: dict[str, object], **tokens: int | None) -> Reply:
    """A completion whose text is ``{"candidates": [...]}``."""
    return completion(json.dumps({"candidates": list(candidates)}, ensure_ascii=False), **tokens)


@dataclass
class ChatStub:
    """What the stub was asked, and what it has left to answer."""

    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)

    def script(self, *replies: Reply) -> None:
        with self.lock:
            self.replies.extend(replies)

    def sent_text(self) -> str:
        """Every message text the stub received, joined: what left the client."""
        with self.lock:
            return "\n".join(
                str(message["content"]) for request in self.requests for message in request.get("messages", [])
            )

    def user_messages(self) -> list[str]:
        with self.lock:
            return [
                str(message["content"])
                for request in self.requests
                for message in request.get("messages", [])
                if message["role"] == "user"
            ]


class RouteTo(httpx.BaseTransport):
    """Carry requests for any host to the stub, as a network resolving that name here would.

    Lets a test give the client a remote base URL (not loopback) and still see
    every byte it would have sent.
    """

    def __init__(self, stub: ChatStub) -> None:
        self._target = httpx.URL(stub.url)
        self._inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.url = request.url.copy_with(scheme="http", host=self._target.host, port=self._target.port)
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    stub: ChatStub


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        stub = self.server.stub
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with stub.lock:
            stub.paths.append(self.path)
            stub.authorizations.append(self.headers.get("Authorization"))
            stub.requests.append(json.loads(raw) if raw else {})
            reply = stub.replies.pop(0) if stub.replies else None
        if self.path != CHAT_PATH:
            reply = Reply(404, {"error": {"message": f"no route {self.path}"}})
        elif reply is None:
            reply = Reply(400, {"error": {"message": "chat stub: no reply scripted for this request"}})
        if reply.stall_seconds and stub.stopping.wait(reply.stall_seconds):
            return
        body = reply.encoded()
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            if reply.retry_after is not None:
                self.send_header("Retry-After", reply.retry_after)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting, as a timeout test intends

    def log_message(self, format: str, *args: object) -> None:
        pass  # keep test output clean


@contextmanager
def serve_chat_stub() -> Iterator[ChatStub]:
    """Run the stub on a free port of 127.0.0.1 until the block ends."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.stub = ChatStub(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="chat-stub")
    thread.start()
    try:
        yield server.stub
    finally:
        server.stub.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
