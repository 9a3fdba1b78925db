"""Register the memory server in each agent's own configuration, and take it out again.

Claude Code keeps user-scope servers in ``~/.claude.json`` (top-level
``mcpServers``; ``$CLAUDE_CONFIG_DIR/.claude.json`` when that is set),
Codex in ``$CODEX_HOME/config.toml`` (``[mcp_servers.incremind]``), Gemini
CLI in ``~/.gemini/settings.json`` (``mcpServers``). Only our entries are
touched: JSON files keep their key order and indentation, the TOML file
every other line. The previous file is kept as ``<file>.incremind-bak`` and
the new one replaces it atomically.

An HTTP entry carries the home's token in the header each agent sends:
Claude Code and Gemini CLI ``headers``, Codex ``http_headers`` (Codex
ignores ``headers`` and refuses an inline ``bearer_token``). A file that
holds the token, and its backup, end up 0600. With ``mcp.token_env`` the
entry names the variable instead (``${VAR}``; Codex ``bearer_token_env_var``).

The SessionStart hook that goes with the server is installed by ``agent_hooks``.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import shlex
import shutil
import stat
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from incremind_daemon.config import Settings
from incremind_daemon.errors import IncremindError
from incremind_daemon.locate import DEFAULT_HOME
from incremind_daemon.names import AGENTS as AGENTS
from incremind_daemon.private import replace_file
from incremind_daemon.serve.mcp_toml import TomlValue, remove_table, render_value, set_table

log = logging.getLogger(__name__)

SERVER_NAME = "incremind"
BACKUP_SUFFIX = ".incremind-bak"
TOKEN_PLACEHOLDER = "<TOKEN>"

Action = Literal["added", "updated", "unchanged", "removed", "absent"]
JsonObject = dict[str, Any]  # a parsed agent config file: its shape is the agent's, not ours


@dataclass(frozen=True, slots=True)
class Registration:
    """How an agent reaches the memory server: a URL (HTTP) or a command (stdio)."""

    transport: Literal["http", "stdio"]
    url: str | None = None
    token_env: str | None = None  # the variable holding the bearer token (mcp.token_env)
    token: str | None = field(default=None, repr=False)  # else the home's token itself, written into the entry
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class SetupResult:
    """What setup did to one file."""

    agent: str
    path: Path
    action: Action
    backup: Path | None = None
    narrowed_from: int | None = None  # the mode the file had before it was made 0600 for the token it holds


def incremind_command() -> tuple[str, ...]:
    """Return the absolute command line that runs ``incremind`` (the script, else this Python)."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "incremind" and argv0.exists():
        return (str(argv0.resolve()),)
    found = shutil.which("incremind")
    if found:
        return (str(Path(found).resolve()),)
    return (str(Path(sys.executable).absolute()), "-m", "incremind_daemon")


def http_registration(settings: Settings, token: str | None, *, port: int | None = None) -> Registration:
    """Return the HTTP registration of the daemon's endpoint, carrying token (unless mcp.token_env names one)."""
    host = settings.mcp.host
    if host in ("0.0.0.0", "::", "") or ":" in host:
        host = "127.0.0.1"
    url = f"http://{host}:{port or settings.mcp.port}/mcp"
    if settings.mcp.token_env:
        return Registration("http", url=url, token_env=settings.mcp.token_env)
    return Registration("http", url=url, token=token)


def stdio_registration(settings: Settings) -> Registration:
    """Return the stdio registration: the agent runs ``incremind mcp`` itself."""
    command = incremind_command()
    env: tuple[tuple[str, str], ...] = ()
    if settings.home_dir != DEFAULT_HOME.expanduser():  # the agent's environment will not say which home
        env = (("INCREMIND_HOME", str(settings.home_dir)),)
    return Registration("stdio", command=command[0], args=(*command[1:], "mcp"), env=env)


def agent_home(agent: str, settings: Settings) -> Path:
    """Return the agent's own folder (``~/.claude``, ``~/.codex``, ``~/.gemini`` or their overrides)."""
    if agent not in AGENTS:
        raise IncremindError(f"unknown agent '{agent}'; choose one of {', '.join(AGENTS)}")
    return getattr(settings.sessions, agent).dir or Path(f"~/.{agent}").expanduser()


def config_path(agent: str, settings: Settings) -> Path:
    """Return the file an agent keeps its user-scope MCP servers in."""
    home = agent_home(agent, settings)
    if agent == "claude":
        # with CLAUDE_CONFIG_DIR, Claude Code keeps .claude.json inside that folder
        return Path("~/.claude.json").expanduser() if home == Path("~/.claude").expanduser() else home / ".claude.json"
    return home / ("config.toml" if agent == "codex" else "settings.json")


# --- the entry each agent expects -----------------------------------------------------


def _authorization(reg: Registration) -> str | None:
    if reg.token_env:
        return f"Bearer ${{{reg.token_env}}}"
    return f"Bearer {reg.token}" if reg.token else None


def entry_for(agent: str, reg: Registration) -> dict[str, Any]:
    """Return the agent's server entry for a registration."""
    env = dict(reg.env)
    header = _authorization(reg)
    if agent == "claude":
        if reg.transport == "http":
            entry: dict[str, Any] = {"type": "http", "url": reg.url}
            if header:
                entry["headers"] = {"Authorization": header}
            return entry
        return {"type": "stdio", "command": reg.command, "args": list(reg.args), "env": env}
    if agent == "codex":
        if reg.transport == "http":
            entry = {"url": reg.url}
            if reg.token_env:
                entry["bearer_token_env_var"] = reg.token_env
            elif header:
                entry["http_headers"] = {"Authorization": header}
            return entry
        entry = {"command": reg.command, "args": list(reg.args)}
        if env:
            entry["env"] = env
        return entry
    if agent == "gemini":
        if reg.transport == "http":
            entry = {"httpUrl": reg.url}
            if header:
                entry["headers"] = {"Authorization": header}
            return entry
        entry = {"command": reg.command, "args": list(reg.args)}
        if env:
            entry["env"] = env
        return entry
    raise IncremindError(f"unknown agent '{agent}'; choose one of {', '.join(AGENTS)}")


def snippet(agent: str, reg: Registration, *, show_token: str = "incremind token show") -> str:
    """Return what setup would add, for the person to paste or check; the token itself shows as <TOKEN>.

    show_token is the command that prints the token, for the person to fill it in.
    """
    hidden = reg.token is not None
    entry = entry_for(agent, replace(reg, token=TOKEN_PLACEHOLDER) if hidden else reg)
    note = f"\n<TOKEN> stands for the home's token: `{show_token}` prints it\n" if hidden else ""
    if agent == "codex":
        table = "".join(f"{k} = {render_value(v)}\n" for k, v in entry.items())
        return f"[mcp_servers.{SERVER_NAME}]\n{table}{note}"
    text = json.dumps({"mcpServers": {SERVER_NAME: entry}}, indent=2, ensure_ascii=False) + "\n" + note
    if agent == "claude":
        if reg.transport == "http":
            header = ""
            if reg.token_env:
                header = f' --header "Authorization: Bearer ${{{reg.token_env}}}"'
            elif hidden:
                header = f' --header "Authorization: Bearer $({show_token})"'
            line = f"claude mcp add --scope user --transport http{header} {SERVER_NAME} {reg.url}"
        else:
            env = "".join(f" --env {k}={shlex.quote(v)}" for k, v in reg.env)
            command = " ".join(shlex.quote(p) for p in (reg.command or "", *reg.args))
            line = f"claude mcp add --scope user --transport stdio{env} {SERVER_NAME} -- {command}"
        text += f"\nor, with Claude Code's own command:\n  {line}\n"
    return text


# --- registering and unregistering ----------------------------------------------------


def register_server(agent: str, reg: Registration, settings: Settings) -> SetupResult:
    """Add or update our entry in the agent's config file, keeping everything else.

    A file that will hold the token is made 0600 first (its backup follows
    it); the result says what its mode was when that narrowed it.
    """
    path = config_path(agent, settings)
    narrowed = _narrow_to_owner(path) if reg.token else None
    return replace(_register(agent, path, entry_for(agent, reg)), narrowed_from=narrowed)


def _narrow_to_owner(path: Path) -> int | None:
    """Make an existing file 0600 if the group or others have any access; return its previous mode then."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        if not mode & 0o077:
            return None
        os.chmod(path, 0o600)
    except FileNotFoundError:
        return None  # made 0600 when written
    except OSError as exc:
        raise IncremindError(f"cannot make {path} private for the token it will hold: {exc.strerror}") from exc
    log.info("made %s 0600 (was %o): it holds the MCP endpoint's token", path, mode)
    return mode


def _register(agent: str, path: Path, entry: dict[str, Any]) -> SetupResult:
    if agent == "codex":
        values: dict[str, TomlValue] = entry
        return _edit_text(agent, path, lambda text: set_table(text, SERVER_NAME, values, what=str(path)))

    def put(data: JsonObject) -> bool:
        servers = data.setdefault("mcpServers", {})
        if not isinstance(servers, dict):
            raise IncremindError(f"{path}: mcpServers is not an object; fix it by hand, then run setup again")
        if servers.get(SERVER_NAME) == entry:
            return False
        servers[SERVER_NAME] = entry
        return True

    return edit_json(agent, path, put)


def unregister_server(agent: str, settings: Settings) -> SetupResult:
    """Remove our entry from the agent's config file, and nothing else."""
    path = config_path(agent, settings)
    if agent == "codex":
        return _edit_text(agent, path, lambda text: remove_table(text, SERVER_NAME, what=str(path)), removing=True)

    def take(data: JsonObject) -> bool:
        servers = data.get("mcpServers")
        if not isinstance(servers, dict) or SERVER_NAME not in servers:
            return False
        del servers[SERVER_NAME]
        return True

    return edit_json(agent, path, take, removing=True)


# --- files ----------------------------------------------------------------------------


def edit_json(
    agent: str,
    path: Path,
    change: Callable[[JsonObject], bool],
    *,
    ours: Callable[[JsonObject], bool] | None = None,
    removing: bool = False,
    backup: bool = True,
) -> SetupResult:
    """Apply change() to a JSON file; rewrite it (same key order and indent) only if it changed.

    ours() tells whether the file already holds our entry (added or updated).
    """
    text = read_config(path)
    if text is None and removing:
        return SetupResult(agent, path, "absent")
    data = parse_config(text, path) if text else {}
    existed = bool(text) and (ours or _has_our_entry)(data)
    if not change(data):
        return SetupResult(agent, path, "absent" if removing else "unchanged")
    indent = _indent_of(text or "")
    rendered = json.dumps(data, indent=indent, ensure_ascii=False) + "\n"
    kept = _write(path, rendered, previous=text, backup=backup)
    action: Action = "removed" if removing else ("updated" if existed else "added")
    return SetupResult(agent, path, action, kept)


def _has_our_entry(data: JsonObject) -> bool:
    servers = data.get("mcpServers")
    return isinstance(servers, dict) and SERVER_NAME in servers


def _edit_text(agent: str, path: Path, change: Callable[[str], str | None], *, removing: bool = False) -> SetupResult:
    text = read_config(path)
    if text is None and removing:
        return SetupResult(agent, path, "absent")
    new = change(text or "")
    if new is None:
        return SetupResult(agent, path, "absent")
    if new == text:
        return SetupResult(agent, path, "unchanged")
    had = text is not None and f"[mcp_servers.{SERVER_NAME}]" in text
    backup = _write(path, new, previous=text)
    action: Action = "removed" if removing else ("updated" if had else "added")
    return SetupResult(agent, path, action, backup)


def read_config(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise IncremindError(f"cannot read {path}: {exc}") from exc


def parse_config(text: str, path: Path) -> JsonObject:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise IncremindError(
            f"{path}:{exc.lineno}:{exc.colno}: not plain JSON ({exc.msg}); setup will not rewrite it. "
            "Add the entry by hand (incremind setup AGENT --print shows it)"
        ) from exc
    if not isinstance(data, dict):
        raise IncremindError(f"{path}: the top level is not a JSON object; setup will not rewrite it")
    return data


def _indent_of(text: str) -> int | str:
    """Return the indentation the file uses (2 when it cannot tell)."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) != len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def _write(path: Path, text: str, *, previous: str | None, backup: bool = True) -> Path | None:
    """Replace a file atomically, keeping its mode; save the previous content beside it (with backup)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = None
    mode = 0o600
    if previous is not None:
        mode = path.stat().st_mode & 0o7777
    if previous is not None and backup:
        kept = path.with_name(path.name + BACKUP_SUFFIX)
        kept.write_text(previous, encoding="utf-8")
        os.chmod(kept, mode)  # the file may hold credentials; the backup is no more readable than it
    replace_file(path, text.encode("utf-8"), mode=mode)
    log.info("wrote %s", path)
    return kept


def describe(result: SetupResult, what: str = "the incremind MCP server") -> str:
    """Say in one line what setup did."""
    verbs = {
        "added": f"added {what} to",
        "updated": f"updated {what} in",
        "unchanged": f"{what} is already in",
        "removed": f"removed {what} from",
        "absent": f"{what} is not in",
    }
    line = f"{result.agent}: {verbs[result.action]} {result.path}"
    if result.backup:
        line += f" (previous file kept as {result.backup})"
    if result.narrowed_from is not None:
        line += f"; made it 0600 (it was {result.narrowed_from:04o}), since it holds the token"
    return line


# --- what an agent has registered -----------------------------------------------------


def registered_entry(agent: str, settings: Settings) -> object | None:
    """Return our entry as the agent's config file holds it (None when absent); IncremindError if unreadable."""
    path = config_path(agent, settings)
    text = read_config(path)
    if text is None or not text.strip():
        return None
    try:
        data = tomllib.loads(text) if agent == "codex" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise IncremindError(f"{path} cannot be parsed ({exc})") from exc
    servers = data.get("mcp_servers" if agent == "codex" else "mcpServers") if isinstance(data, dict) else None
    return servers.get(SERVER_NAME) if isinstance(servers, dict) else None


def http_url_of(agent: str, entry: object) -> str | None:
    """Return the URL of a registered Streamable HTTP entry (None for stdio and anything else)."""
    if not isinstance(entry, dict):
        return None
    if agent == "claude" and entry.get("type") not in ("http", "streamable-http"):
        return None
    url = entry.get("httpUrl" if agent == "gemini" else "url")
    return url if isinstance(url, str) else None


def access_problem(agent: str, entry: object, expected: Registration) -> str:
    """Say what keeps a registered HTTP entry from this home's endpoint ("" for none, and for stdio).

    The token is compared, never shown.
    """
    url = http_url_of(agent, entry)
    if url is None or not isinstance(entry, dict):
        return ""
    if url.rstrip("/") != expected.url:
        return f"its HTTP entry points at {url}, not at this home's {expected.url}"
    if agent == "codex" and expected.token_env:
        if entry.get("bearer_token_env_var") != expected.token_env:
            return f"its HTTP entry does not take the token from ${expected.token_env} (bearer_token_env_var)"
        return ""
    headers = entry.get("http_headers" if agent == "codex" else "headers")
    sent = (
        next(
            (v for k, v in headers.items() if k.lower() == "authorization" and isinstance(v, str)),
            None,
        )
        if isinstance(headers, dict)
        else None
    )
    wanted = _authorization(expected)
    if sent is None:
        return "its HTTP entry sends no token"
    if wanted is None:
        return ""  # the home has no token yet: the token check says so
    if not hmac.compare_digest(sent.strip().encode(), wanted.encode()):
        return "its HTTP entry sends an old or wrong token"
    return ""
