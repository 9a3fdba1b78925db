"""The thin client: answer a command, or an agent's stdio MCP session, through the running daemon.

Standard library only, and nothing else of the package but ``locate``: the
daemon already holds the segmenter, the embedding model and the one write
connection, so a command it serves costs this process Python's start and one
round trip over the home's Unix socket (mode 0600, in a 0700 home). When no
daemon answers, or it is another version, the caller runs the command itself.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO

from incremind_daemon import __version__
from incremind_daemon.locate import home_in_effect, is_own_socket, socket_path

# what the daemon runs for a client: reads, and reviews that its writer applies
SERVED = frozenset(
    {
        "search",
        "show",
        "sessions",
        "status",
        "pending",
        "insights",
        "history",
        "receipts",
        "confirm",
        "reject",
        "forget",
        "restore",
        "edit",
        "ingest",
        "backfill",
        "context",
    }
)
CONNECT_TIMEOUT = 2.0
ANSWER_TIMEOUT = 600.0  # an agent's call waits for the daemon at most this long
MCP_PATH = "/mcp"
CWD_META = "dev.incremind/cwd"  # initialize's _meta entry with the folder the agent started the relay in
_VALUED = ("--home", "--config")
_HELP = ("-h", "--help")


class UnixConnection(http.client.HTTPConnection):
    """HTTP over a Unix socket."""

    def __init__(self, path: Path, timeout: float | None = ANSWER_TIMEOUT) -> None:
        super().__init__("incremind", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(CONNECT_TIMEOUT)
        try:
            sock.connect(str(self._path))
        except OSError:
            sock.close()
            raise
        sock.settimeout(self.timeout)
        self.sock = sock


def scan(argv: list[str]) -> tuple[str | None, dict[str, str]]:
    """Return the subcommand of argv and its --home/--config values, the way argparse reads them."""
    options: dict[str, str] = {}
    command = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if name in _VALUED:
            if not eq:
                i += 1
                value = argv[i] if i < len(argv) else ""
            options[name] = value
        elif arg == "--":
            break
        elif not arg.startswith("-") and command is None:
            command = arg
        i += 1
    return command, options


def daemon_socket(options: dict[str, str]) -> Path | None:
    """Return the socket of the daemon serving the home these options name, if one is there."""
    home = home_in_effect(
        Path(options["--home"]) if options.get("--home") else None,
        Path(options["--config"]) if options.get("--config") else None,
    )
    if home is None:
        return None
    path = socket_path(home)
    return path if is_own_socket(path) else None


def forward(argv: list[str]) -> int | None:
    """Run a command through the daemon; None when this process must run it itself."""
    command, options = scan(argv)
    wants_help = any(arg in _HELP for arg in argv)
    if command is None and "--version" in argv and not wants_help:
        print(f"incremind {__version__}")
        return 0
    if not (command in SERVED or (wants_help and command != "mcp")):
        return None
    path = daemon_socket(options)
    if path is None:
        return None
    body = {"argv": argv, "tty": sys.stdout.isatty(), "version": __version__, "cwd": os.getcwd()}
    conn = UnixConnection(path, timeout=None)  # an ingest of many files takes as long as it takes
    try:
        conn.connect()
    except OSError:
        conn.close()
        return None  # no daemon answers here (a stale socket): run it here
    try:
        reply = post_json(conn, "/cli", body)
        if not isinstance(reply, dict):
            raise ValueError("the daemon's answer is not an object")
    except (OSError, http.client.HTTPException, ValueError) as exc:
        # the command may have run: running it again here could do it twice
        print(f"incremind: the daemon stopped answering ({exc}); see `incremind logs`", file=sys.stderr)
        return 1
    if not reply.get("served"):
        reason = reply.get("reason")
        if isinstance(reason, str) and reason.startswith("the daemon is version"):
            print(f"incremind: {reason}, this command {__version__}; answering without it", file=sys.stderr)
        return None
    try:
        sys.stderr.write(str(reply.get("stderr", "")))
        sys.stdout.write(str(reply.get("stdout", "")))
        sys.stdout.flush()
    except BrokenPipeError:  # `incremind search x | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    code = reply.get("code", 1)
    return code if isinstance(code, int) else 1


def post_json(conn: UnixConnection, route: str, body: dict[str, Any]) -> object:
    """POST body as JSON on conn (then closed) and return the parsed answer; ValueError unless it is a 200."""
    try:
        conn.request("POST", route, json.dumps(body).encode(), {"Content-Type": "application/json"})
        response = conn.getresponse()
        data: object = json.loads(response.read())
    finally:
        conn.close()
    if response.status != 200:
        raise ValueError(f"the daemon answered {response.status}")
    return data


def daemon_answers(path: Path, timeout: float = CONNECT_TIMEOUT) -> bool:
    """Tell whether a daemon answers its health check on the socket at path."""
    conn = UnixConnection(path, timeout=timeout)
    try:
        conn.request("GET", "/health")
        return conn.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


class McpRelay:
    """Carry an agent's stdio MCP session to the daemon's MCP endpoint, one HTTP request per message.

    Requests run concurrently (a slow save never holds up a search); their
    answers go to stdout whole, one line each. When the daemon restarts, the
    session is opened again with the agent's own initialize message; while
    it is down, requests get an error the agent can show. The relay ends when
    the agent closes stdin.
    """

    def __init__(self, path: Path, out: BinaryIO) -> None:
        self._path = path
        self._out = out
        self._write = threading.Lock()
        self._session: str | None = None
        self._protocol: str | None = None
        self._opening: bytes | None = None  # the agent's initialize request, to reopen the session with
        self._reopen = threading.Lock()
        self._running: list[threading.Thread] = []

    def run(self, stream: BinaryIO) -> int:
        for line in stream:
            body = line.strip()
            if not body:
                continue
            message = _parse(body)
            if isinstance(message, dict) and message.get("method") == "initialize":
                body = _with_folder(message, body)
                self._opening = body
                self._relay(body, message)  # the session id must be known before anything else goes
            elif isinstance(message, dict) and "id" in message and "method" in message:
                thread = threading.Thread(target=self._relay, args=(body, message), daemon=True)
                thread.start()
                self._running = [t for t in self._running if t.is_alive()] + [thread]
            else:
                self._relay(body, message)  # notifications and answers keep their order
        for thread in self._running:
            thread.join(ANSWER_TIMEOUT)
        self._close_session()
        return 0

    def _relay(self, body: bytes, message: object) -> None:
        asked = message.get("id") if isinstance(message, dict) and "method" in message else None
        try:
            status, answers = self._post(body)
            if status == 404 and self._session is not None and self._opening is not None and body != self._opening:
                self._open_again()
                status, answers = self._post(body)
        except (OSError, http.client.HTTPException):
            self._fail(asked, "the incremind daemon is not answering; start it (incremind start) and try again")
            return
        for answer in answers:
            self._send(answer)
        if not answers and status >= 400:
            self._fail(asked, f"the incremind daemon refused the request (HTTP {status})")

    def _post(self, body: bytes) -> tuple[int, list[bytes]]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self._session is not None:
            headers["Mcp-Session-Id"] = self._session
        if self._protocol is not None:
            headers["MCP-Protocol-Version"] = self._protocol
        conn = UnixConnection(self._path)
        try:
            conn.request("POST", MCP_PATH, body, headers)
            response = conn.getresponse()
            raw = response.read()
            session = response.getheader("mcp-session-id")
            kind = response.getheader("content-type", "")
        finally:
            conn.close()
        if session:
            self._session = session
        if kind.startswith("text/event-stream"):
            answers = [line[5:].strip() for line in raw.splitlines() if line.startswith(b"data:")]
        else:
            answers = [raw]
        answers = [answer for answer in answers if answer]
        for answer in answers:
            self._note_protocol(answer)
        return response.status, answers

    def _note_protocol(self, raw: bytes) -> None:
        answer = _parse(raw)
        if isinstance(answer, dict) and isinstance(answer.get("result"), dict):
            version = answer["result"].get("protocolVersion")
            if isinstance(version, str):
                self._protocol = version

    def _open_again(self) -> None:
        """Open a new session the way the agent opened its first (the daemon restarted since)."""
        assert self._opening is not None
        with self._reopen:
            self._session = None
            self._post(self._opening)
            self._post(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())

    def _close_session(self) -> None:
        if self._session is None:
            return
        conn = UnixConnection(self._path, timeout=CONNECT_TIMEOUT)
        try:
            conn.request("DELETE", MCP_PATH, headers={"Mcp-Session-Id": self._session})
            conn.getresponse().read()
        except (OSError, http.client.HTTPException):
            pass  # the daemon ends idle sessions itself
        finally:
            conn.close()

    def _fail(self, asked: object, text: str) -> None:
        if asked is None:
            return  # a notification gets no answer
        error = {"jsonrpc": "2.0", "id": asked, "error": {"code": -32603, "message": text}}
        self._send(json.dumps(error, ensure_ascii=False).encode())

    def _send(self, answer: bytes) -> None:
        with self._write:
            self._out.write(answer.replace(b"\n", b" ") + b"\n")
            self._out.flush()


def relay_mcp(argv: list[str]) -> int | None:
    """Serve `incremind mcp` through the daemon; None when no daemon answers for this home."""
    _, options = scan(argv)
    path = daemon_socket(options)
    if path is None or not daemon_answers(path):
        return None
    try:
        return McpRelay(path, sys.stdout.buffer).run(sys.stdin.buffer)
    except (BrokenPipeError, KeyboardInterrupt):
        return 0  # the agent went away


def _with_folder(message: dict[str, object], body: bytes) -> bytes:
    """Note in initialize's _meta the folder the agent started the relay in, which the daemon cannot see:
    a session's search, save and context default to that folder's project (``mcp_server.caller_folder``)."""
    params = message.get("params")
    if not isinstance(params, dict):
        return body
    meta = params.get("_meta")
    meta = dict(meta) if isinstance(meta, dict) else {}
    try:
        meta[CWD_META] = os.getcwd()
    except OSError:  # the folder was removed under the agent
        return body
    return json.dumps({**message, "params": {**params, "_meta": meta}}, ensure_ascii=False).encode()


def _parse(raw: bytes) -> object:
    try:
        return json.loads(raw)
    except ValueError:
        return None
