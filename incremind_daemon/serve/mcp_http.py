"""Serve the MCP tools over Streamable HTTP (``/mcp``) and ``GET /health`` from a daemon thread.

The same app answers on two sockets: TCP on ``mcp.host:mcp.port`` for agents
registered over HTTP, and the home's Unix socket (mode 0600) for the thin
client, which relays stdio MCP sessions and runs commands (``POST /cli``),
and for doctor's checks of the loaded model (``/checks``); those two routes
are served nowhere else. Only this user can open the Unix socket, so requests
over it need no token.

Security follows the MCP transport rules for local servers: bind loopback
by default; refuse a present Origin that is not a loopback origin or one the
person allowed (403); refuse a Host header that does not name this server
(421, against DNS rebinding); cap request bodies (413); no CORS headers at
all. Every request over TCP, loopback included, must carry the home's bearer
token (``mcp_auth``), compared in constant time (401). ``GET /health``,
behind the token like the rest, names the home served, so a client can tell
this home's daemon from another's on the same port.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import os
import socket
import stat
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio.to_thread
import uvicorn
from mcp.server.transport_security import RequestBodyLimitMiddleware, TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from incremind_daemon import __version__
from incremind_daemon.config import Settings
from incremind_daemon.errors import IncremindError
from incremind_daemon.serve.http_limits import DeadlineH11Protocol, evict_idle_sessions_when_full
from incremind_daemon.serve.mcp_auth import LOOPBACK_NAMES, TokenCheck, is_loopback, token_check
from incremind_daemon.serve.mcp_server import build_mcp_server
from incremind_daemon.serve.mcp_tools import MemoryBackend, MemoryTools

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
START_TIMEOUT_SECONDS = 10.0
COMMAND_BYTES = 1_048_576  # a command's argument list, as JSON
# open connections and requests at once, agents and the command line together; a new connection past it
# takes the place of one that has sent no request (http_limits), else its request gets 503
MAX_CONNECTIONS = 128
# sessions of clients that speak an MCP version with a handshake (later versions keep none): an agent holds
# one per run; a client that opens them in a loop fills the table, and an idle one is dropped (the client
# opens a new one when told its session is gone)
MAX_SESSIONS = 256
SESSION_IDLE_SECONDS = 600.0
WILDCARDS = ("0.0.0.0", "::", "")  # bind addresses that accept connections on every interface
LOCAL_KEY = "incremind.local"  # set in the scope of a request that came over the Unix socket
# never the token, nor where it lives: the one asking may be anyone on the machine
UNAUTHORIZED = (
    "missing or wrong bearer token: this endpoint needs the incremind home's token in an "
    "'Authorization: Bearer' header; run `incremind setup claude|codex|gemini` again so the agent sends the "
    "current one"
)

Commands = Callable[[dict[str, Any]], dict[str, Any]]


class _Guard:
    """ASGI middleware in front of every route: Host, Origin, token and body size."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        hosts: frozenset[str] | None,
        origins: frozenset[str],
        loopback_ports: bool,
        token: TokenCheck,
    ) -> None:
        self._app = app
        self._hosts = hosts
        self._origins = origins
        self._loopback_ports = loopback_ports
        self._token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._refusal(headers, local=bool(scope.get(LOCAL_KEY)))
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self._app(scope, receive, send)

    def _refusal(self, headers: Headers, *, local: bool) -> Response | None:
        host = headers.get("host", "").lower()
        if self._hosts is not None and host not in self._hosts:
            log.warning("refused a request for Host %r (allowed: %s)", host, ", ".join(sorted(self._hosts)))
            return _error(421, "this server only answers requests addressed to it by a loopback name")
        origin = headers.get("origin")
        if origin is not None and not self._origin_allowed(origin.lower()):
            log.warning("refused a request from Origin %r", origin)
            return _error(403, "this origin may not use the memory server")
        if not local and not self._authorized(headers.get("authorization", "")):
            return _error(401, UNAUTHORIZED, {"WWW-Authenticate": "Bearer"})
        return None

    def _authorized(self, header: str) -> bool:
        scheme, _, given = header.partition(" ")
        wanted = self._token()
        if wanted is None or scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(given.strip().encode("utf-8", "replace"), wanted)

    def _origin_allowed(self, origin: str) -> bool:
        if origin in self._origins:
            return True
        if not self._loopback_ports:
            return False
        # a page served from this machine (a dev server, a local UI) is as trusted as the person
        try:
            parts = urlsplit(origin)
            parts.port  # noqa: B018 - raises ValueError on a malformed port
        except ValueError:
            return False
        return parts.scheme in ("http", "https") and parts.hostname in ("localhost", "127.0.0.1", "::1")


class _LocalSocket:
    """ASGI middleware for requests over the Unix socket: commands at ``/cli``, the rest as from loopback.

    Such a request names no host (the socket has none), so it is given the
    one this server answers to, and marked local: no browser can reach the
    socket, and the file's mode leaves it to this user.
    """

    def __init__(
        self, app: ASGIApp, *, host: str, commands: Commands | None, checks: Callable[[], list[Any]] | None
    ) -> None:
        self._app = app
        self._host = host.encode()
        self._commands = commands
        self._checks = checks

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        server = scope.get("server")
        if scope["type"] != "http" or not server or server[1] is not None:
            if scope["type"] == "http" and scope["path"] in ("/cli", "/checks"):
                await _error(404, "not found")(scope, receive, send)
                return
            await self._app(scope, receive, send)
            return
        if scope["path"] == "/cli":
            await self._command(scope, receive, send)
            return
        if scope["path"] == "/checks" and self._checks is not None:  # doctor asks what the daemon holds loaded
            await JSONResponse(await anyio.to_thread.run_sync(self._checks))(scope, receive, send)
            return
        headers = [(k, v) for k, v in scope["headers"] if k != b"host"] + [(b"host", self._host)]
        await self._app({**scope, "headers": headers, LOCAL_KEY: True}, receive, send)

    async def _command(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST" or self._commands is None:
            await _error(404, "no commands are served here")(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > COMMAND_BYTES:
                await _error(413, "the command is too long")(scope, receive, send)
                return
            if not message.get("more_body"):
                break
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            await _error(400, "the body must be a JSON object")(scope, receive, send)
            return
        reply = await anyio.to_thread.run_sync(self._commands, request)
        await JSONResponse(reply)(scope, receive, send)


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    # a JSON-RPC error without id, as the transport spec allows for refused requests
    body = {"jsonrpc": "2.0", "error": {"code": -32600, "message": message}}
    return JSONResponse(body, status_code=status, headers=headers)


def allowed_hosts(bind_host: str, port: int) -> frozenset[str] | None:
    """Return the Host header values this server answers: loopback names (and the bind address) with the port.

    None for a wildcard bind (0.0.0.0, ::): clients on the network name the
    machine by any of its addresses or names, and every request there must
    carry the token, which a page rebinding a name to this machine cannot send.
    """
    if bind_host in WILDCARDS:
        return None
    names = set(LOOPBACK_NAMES)
    names.add(f"[{bind_host}]" if ":" in bind_host and not bind_host.startswith("[") else bind_host)
    return frozenset(f"{name}:{port}".lower() for name in names)


def allowed_origins(extra: Iterable[str], port: int) -> frozenset[str]:
    """Return the exact origins allowed besides any loopback origin."""
    own = {f"http://{name}:{port}" for name in LOOPBACK_NAMES}
    return frozenset({o.rstrip("/").lower() for o in extra} | own)


class McpHttpServer:
    """The MCP endpoint and health check, served by uvicorn on a thread of the daemon.

    ``start()`` binds the socket (raising IncremindError if it cannot) and
    returns once the server accepts connections; ``stop()`` ends it and
    closes its database connections. ``port`` is the bound port (useful
    with port 0).
    """

    def __init__(
        self,
        settings: Settings,
        backend: MemoryBackend,
        *,
        local_socket: Path | None = None,
        commands: Commands | None = None,
        checks: Callable[[], list[Any]] | None = None,
    ) -> None:
        self._settings = settings
        self._token = token_check(settings)  # refuses an unsafe configuration before anything is bound
        self._tools = MemoryTools(settings, backend)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._port = settings.mcp.port
        self._local_socket = local_socket
        self._commands = commands
        self._checks = checks
        self._bound_local: Path | None = None
        self.tcp_error: str | None = None  # why TCP is not served, when the Unix socket is
        self.serves_tcp = False

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        host = self._settings.mcp.host
        if not is_loopback(host):
            host = "127.0.0.1"
        elif ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self._port}{MCP_PATH}"

    def start(self) -> None:
        """Bind, start serving on a thread, and wait until connections are accepted."""
        conf = self._settings.mcp
        sockets = []
        if self._local_socket is not None:
            sockets.append(_bind_local(self._local_socket))
            self._bound_local = self._local_socket
        if conf.enabled:
            try:
                tcp = _bind(conf.host, conf.port)
            except IncremindError as exc:
                if not sockets:
                    raise
                self.tcp_error = str(exc)
                log.error("MCP over HTTP is off: %s", exc)
            else:
                sockets.append(tcp)
                self._port = int(tcp.getsockname()[1])
                self.serves_tcp = True
        hosts = allowed_hosts(conf.host, self._port)
        origins = allowed_origins(conf.allowed_origins, self._port)
        mcp = build_mcp_server(self._settings, self._tools, transport="http")

        health_route = mcp.custom_route("/health", methods=["GET"])
        health_route(_health_of(self._settings.home_dir.resolve()))
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=hosts is not None,
            allowed_hosts=sorted(hosts or ()),
            allowed_origins=sorted(origins) + [f"{s}://{n}:*" for s in ("http", "https") for n in LOOPBACK_NAMES],
        )
        app = mcp.streamable_http_app(
            streamable_http_path=MCP_PATH,
            json_response=True,
            max_request_body_size=conf.max_request_bytes,
            session_idle_timeout=SESSION_IDLE_SECONDS,
            max_sessions=MAX_SESSIONS,
            transport_security=security,
            host=conf.host,
        )
        evict_idle_sessions_when_full(mcp.session_manager)
        guarded = _LocalSocket(
            _Guard(
                RequestBodyLimitMiddleware(app, conf.max_request_bytes),
                hosts=hosts,
                origins=origins,
                loopback_ports=True,
                token=self._token,
            ),
            host=f"127.0.0.1:{self._port}" if hosts is None else min(hosts),
            commands=self._commands,
            checks=self._checks,
        )
        config = uvicorn.Config(
            guarded,
            log_config=None,  # the daemon configures logging; uvicorn must not replace it
            access_log=False,
            lifespan="on",
            http=DeadlineH11Protocol,  # h11, closing connections whose request does not arrive whole in time
            limit_concurrency=MAX_CONNECTIONS,
            loop="asyncio",
            timeout_graceful_shutdown=3,
            server_header=False,
            h11_max_incomplete_event_size=conf.max_request_bytes,
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": sockets}, name="incremind-mcp-http")
        self._server, self._thread = server, thread
        thread.start()
        _wait_started(server, thread, sockets, START_TIMEOUT_SECONDS)
        if self.serves_tcp:
            log.info("MCP over HTTP at %s", self.url)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving (open requests get a few seconds to finish) and close the database connections."""
        server, thread = self._server, self._thread
        if server is not None and thread is not None:
            server.should_exit = True
            thread.join(timeout / 2)
            if thread.is_alive():
                server.force_exit = True
                thread.join(timeout / 2)
            if thread.is_alive():
                log.error("the MCP HTTP thread did not stop within %.0f s", timeout)
        self._server = self._thread = None
        if self._bound_local is not None:
            with contextlib.suppress(FileNotFoundError):
                self._bound_local.unlink()
            self._bound_local = None
        self._tools.close()


def _health_of(home: Path) -> Callable[[Request], Awaitable[Response]]:
    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "version": __version__, "pid": os.getpid(), "home": str(home)})

    return health


def _bind(host: str, port: int) -> socket.socket:
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise IncremindError(f"cannot bind the MCP server to {host}:{port}: {exc}; check mcp.host") from exc
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise IncremindError(
            f"cannot serve MCP on {host}:{port} ({exc.strerror}); another program may use the port: "
            "set mcp.port to a free one, or mcp.enabled to false"
        ) from exc
    sock.setblocking(False)
    return sock


def _bind_local(path: Path) -> socket.socket:
    """Listen on the home's Unix socket, mode 0600, replacing one a dead daemon left (the caller holds the lock)."""
    folder = path.parent
    if not folder.exists():
        folder.mkdir(mode=0o700, parents=True)
    info = folder.lstat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077 or not stat.S_ISDIR(info.st_mode):
        raise IncremindError(f"{folder} is not a folder only this user can use; the command socket needs one")
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise IncremindError(f"{path} is in the way of the command socket; move it elsewhere")
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        os.chmod(path, 0o600)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise IncremindError(f"cannot listen on {path}: {exc.strerror}") from exc
    sock.setblocking(False)
    return sock


def _wait_started(server: uvicorn.Server, thread: threading.Thread, socks: list[socket.socket], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)  # uvicorn offers no start event; startup takes a few milliseconds
    if not server.started:
        server.should_exit = True
        thread.join(timeout)
        for sock in socks:
            sock.close()
        raise IncremindError("the MCP HTTP server did not start; see the log for the reason")
