"""Who may use the MCP endpoint: which bind addresses are loopback, and the bearer token every request carries.

Every request over TCP must carry a token, loopback included: on a shared
machine any local user or process can reach 127.0.0.1. The token is the
home's own, kept in ``<home>/token`` (0600, made at the first start), unless
``mcp.token_env`` names an environment variable: then that variable's value
is the token and the file is not used, for people who manage the secret
themselves. Binding an address other machines can reach still needs
``mcp.token_env``, since their clients cannot read the home's file.

Kept apart from the HTTP server so that ``doctor`` and ``setup`` read the
token without loading the server's stack.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import secrets
import threading
from collections.abc import Callable
from pathlib import Path

from incremind_daemon.config import Settings
from incremind_daemon.errors import ConfigError
from incremind_daemon.private import create_private, make_private, make_private_folders, replace_file

log = logging.getLogger(__name__)

MIN_TOKEN_CHARS = 16
TOKEN_NAME = "token"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
# RFC 6750's b64token: safe in a header, and free of the $ that agents expand in their configs
_TOKEN = re.compile(r"[A-Za-z0-9._~+/-]+=*")

TokenCheck = Callable[[], bytes | None]  # the token a request must carry now; None lets none pass


def is_loopback(host: str) -> bool:
    """Tell whether a bind address only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def token_path(home: Path) -> Path:
    """Return the file that holds the home's token."""
    return home / TOKEN_NAME


def _valid(token: str, where: str, fix: str) -> str:
    if len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(f"the token in {where} is shorter than {MIN_TOKEN_CHARS} characters; {fix}")
    if not _TOKEN.fullmatch(token):
        raise ConfigError(f"the token in {where} holds characters other than letters, digits and -._~+/; {fix}")
    return token


def read_home_token(home: Path) -> str | None:
    """Return the home's token, or None before it is made; refuse a file that holds no usable token."""
    path = token_path(home)
    try:
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path} ({exc}); run `incremind token rotate` for a new one") from exc
    return _valid(text.strip(), str(path), "run `incremind token rotate` for a new one")


def ensure_home_token(home: Path) -> str:
    """Return the home's token, making it (random, 0600) when the home has none yet."""
    token = read_home_token(home)
    if token is not None:
        make_private(token_path(home))  # a token others can read opens the endpoint to them
        return token
    make_private_folders(home)
    if create_private(token_path(home), (secrets.token_urlsafe(32) + "\n").encode("ascii")):
        log.info("made the MCP endpoint's token in %s", token_path(home))
    token = read_home_token(home)  # this process's, or the one another made at the same moment
    assert token is not None
    return token


def rotate_home_token(home: Path) -> str:
    """Replace the home's token with a new random one (atomically) and return it."""
    make_private_folders(home)
    token = secrets.token_urlsafe(32)
    replace_file(token_path(home), (token + "\n").encode("ascii"))
    log.info("rotated the MCP endpoint's token in %s", token_path(home))
    return token


def check_bind(settings: Settings) -> None:
    """Refuse an unsafe configuration: a reachable address without a token of one's own, or a bad one."""
    conf = settings.mcp
    if conf.token_env is None:
        if not is_loopback(conf.host):
            raise ConfigError(
                f"mcp.host is {conf.host}, which other machines can reach: set mcp.token_env to the name of an "
                "environment variable holding a long random token, or bind mcp.host to 127.0.0.1"
            )
        return
    env_token(settings)


def env_token(settings: Settings) -> str:
    """Return the token of the variable ``mcp.token_env`` names."""
    name = settings.mcp.token_env
    token = os.environ.get(name or "")
    if token is None:
        raise ConfigError(
            f"mcp.token_env names {name}, which is not set in this environment; set it, or unset mcp.token_env"
        )
    return _valid(
        token.strip(),
        f"${name}",
        "use a long random one (python -c 'import secrets; print(secrets.token_urlsafe(32))')",
    )


def endpoint_token(settings: Settings, *, create: bool = False) -> str | None:
    """Return the token the endpoint wants now: ``mcp.token_env``'s, else the home's (None before it is made)."""
    if settings.mcp.token_env is not None:
        return env_token(settings)
    return ensure_home_token(settings.home_dir) if create else read_home_token(settings.home_dir)


class HomeToken:
    """The home's token as its file holds it now, for the server: read again whenever the file changes.

    A stat per request costs microseconds, and so ``incremind token rotate``
    takes effect at the next request, with no signal to the daemon. A file
    gone or spoilt lets no request pass until it is made again.
    """

    def __init__(self, home: Path) -> None:
        self._home = home
        self._lock = threading.Lock()
        self._seen: tuple[int, int, int] | None = None
        self._token: bytes | None = None

    def __call__(self) -> bytes | None:
        try:
            info = os.stat(token_path(self._home))
        except OSError:
            key = None
        else:
            key = (info.st_ino, info.st_mtime_ns, info.st_size)
        with self._lock:
            if key != self._seen:
                self._seen, self._token = key, self._read()
            return self._token

    def _read(self) -> bytes | None:
        try:
            token = read_home_token(self._home)
        except ConfigError as exc:
            log.error("no request over HTTP can pass: %s", exc)
            return None
        if token is None:
            log.error("no request over HTTP can pass: %s is gone; run `incremind token rotate`", token_path(self._home))
            return None
        return token.encode("ascii")


def token_check(settings: Settings) -> TokenCheck:
    """Return what the server asks for the token each request must carry; make the home's token if needed."""
    check_bind(settings)
    if settings.mcp.token_env is not None:
        fixed = env_token(settings).encode("ascii")
        return lambda: fixed
    ensure_home_token(settings.home_dir)
    return HomeToken(settings.home_dir)
