"""Who may use the MCP endpoint: which bind addresses are loopback, and the bearer token another needs.

Kept apart from the HTTP server so that ``doctor`` checks the configuration
without loading the server's stack.
"""

from __future__ import annotations

import ipaddress

from incremind_daemon.config import Settings, secret_from_env
from incremind_daemon.errors import ConfigError

MIN_TOKEN_CHARS = 16
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def is_loopback(host: str) -> bool:
    """Tell whether a bind address only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bearer_token(settings: Settings) -> str | None:
    """Return the token every request must carry, or None; refuse an unsafe configuration."""
    conf = settings.mcp
    if conf.token_env is None:
        if not is_loopback(conf.host):
            raise ConfigError(
                f"mcp.host is {conf.host}, which other machines can reach: set mcp.token_env to the name of an "
                "environment variable holding a long random token, or bind mcp.host to 127.0.0.1"
            )
        return None
    token = secret_from_env(conf.token_env)
    if token is None or len(token.strip()) < MIN_TOKEN_CHARS:
        raise ConfigError(
            f"the token in {conf.token_env} is shorter than {MIN_TOKEN_CHARS} characters; "
            "use a long random one (python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return token.strip()
