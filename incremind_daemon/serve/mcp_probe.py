"""Ask what answers on the MCP port whether it is this home's daemon.

An agent set up over HTTP reaches whatever holds the port: another home's
daemon, say, started first with the same ``mcp.port``. ``GET /health``,
asked with this home's token, names the home it serves; ``doctor`` and
``setup`` use that to tell this home's daemon from a stranger.
"""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

TIMEOUT_SECONDS = 2.0

Verdict = Literal["ours", "other-home", "refused", "foreign", "unreachable"]


@dataclass(frozen=True, slots=True)
class Probe:
    """What answered on the port: this home's daemon, another's, something else, or nothing."""

    verdict: Verdict
    url: str  # the health URL asked
    home: str = ""  # the home the daemon that answered serves
    pid: int | None = None
    status: int | None = None
    error: str = ""

    @property
    def port(self) -> int | None:
        return urlsplit(self.url).port

    def explain(self) -> str:
        """Say in one sentence what answered, never the token."""
        if self.verdict == "ours":
            return f"{self.url} answers for this home (pid {self.pid})"
        if self.verdict == "other-home":
            return f"{self.url} is answered by the incremind daemon of {self.home} (pid {self.pid}), not this home's"
        if self.verdict == "refused":
            return (
                f"{self.url} refused this home's token (HTTP 401): another daemon holds port {self.port}, "
                "another home's perhaps"
            )
        if self.verdict == "foreign" and self.status == 200:
            return (
                f"{self.url} answers without naming the home it serves: an incremind older than this one, or "
                f"another program, holds port {self.port}"
            )
        if self.verdict == "foreign":
            return (
                f"{self.url} answered HTTP {self.status}, not as an incremind daemon: another program holds "
                f"port {self.port}"
            )
        return f"nothing answers at {self.url} ({self.error})"

    def fix(self, agent: str = "AGENT") -> str:
        """Say what to do when another program or daemon holds the port."""
        return (
            f"stop what holds port {self.port}, or set mcp.port to a free port in config.json and restart the "
            f"daemon, then run `incremind setup {agent}` again"
        )


def health_url(mcp_url: str) -> str:
    """Return the health URL beside an MCP endpoint URL."""
    return mcp_url.removesuffix("/mcp") + "/health"


def probe_endpoint(mcp_url: str, token: str | None, home: Path, timeout: float = TIMEOUT_SECONDS) -> Probe:
    """Ask ``GET /health`` beside mcp_url, with this home's token, which home it serves."""
    url = health_url(mcp_url)
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=timeout)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        conn.request("GET", parts.path or "/health", headers=headers)
        response = conn.getresponse()
        body = response.read(65_536)
    except (OSError, http.client.HTTPException) as exc:
        return Probe("unreachable", url, error=str(exc) or type(exc).__name__)
    finally:
        conn.close()
    if response.status == 401:
        return Probe("refused", url, status=401)
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if response.status != 200 or not isinstance(data, dict) or not isinstance(data.get("home"), str):
        return Probe("foreign", url, status=response.status)
    pid = data.get("pid") if isinstance(data.get("pid"), int) else None
    served = data["home"]
    verdict: Verdict = "ours" if Path(served) == home.resolve() else "other-home"
    return Probe(verdict, url, home=served, pid=pid, status=200)
