"""Register the memory server in each agent's own configuration, and take it out again.

Claude Code keeps user-scope servers in ``~/.claude.json`` (top-level
``mcpServers``; ``$CLAUDE_CONFIG_DIR/.claude.json`` when that is set),
Codex in ``$CODEX_HOME/config.toml`` (``[mcp_servers.incremind]``), Gemini
CLI in ``~/.gemini/settings.json`` (``mcpServers``). Only our entry is
touched: JSON files keep their key order and indentation, the TOML file
every other line. The previous file is kept as ``<file>.incremind-bak`` and
the new one replaces it atomically.
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from incremind_daemon.config import DEFAULT_HOME, Settings
from incremind_daemon.errors import IncremindError
from incremind_daemon.serve.mcp_toml import TomlValue, remove_table, render_value, set_table

log = logging.getLogger(__name__)

AGENTS = ("claude", "codex", "gemini")
SERVER_NAME = "incremind"
BACKUP_SUFFIX = ".incremind-bak"
HOOK_ARGS = ("hook", "claude-session-start")
HOOK_MATCHER = "startup|resume|clear|compact"
HOOK_TIMEOUT_SECONDS = 10

Action = Literal["added", "updated", "unchanged", "removed", "absent"]
JsonObject = dict[str, Any]  # a parsed agent config file: its shape is the agent's, not ours


@dataclass(frozen=True, slots=True)
class Registration:
    """How an agent reaches the memory server: a URL (HTTP) or a command (stdio)."""

    transport: Literal["http", "stdio"]
    url: str | None = None
    token_env: str | None = None  # the variable holding the bearer token, never the token
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


def incremind_command() -> tuple[str, ...]:
    """Return the absolute command line that runs ``incremind`` (the script, else this Python)."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "incremind" and argv0.exists():
        return (str(argv0.resolve()),)
    found = shutil.which("incremind")
    if found:
        return (str(Path(found).resolve()),)
    return (str(Path(sys.executable).absolute()), "-m", "incremind_daemon")


def http_registration(settings: Settings, *, port: int | None = None) -> Registration:
    """Return the HTTP registration of the daemon's endpoint."""
    host = settings.mcp.host
    if host in ("0.0.0.0", "::", "") or ":" in host:
        host = "127.0.0.1"
    url = f"http://{host}:{port or settings.mcp.port}/mcp"
    return Registration("http", url=url, token_env=settings.mcp.token_env)


def stdio_registration(settings: Settings) -> Registration:
    """Return the stdio registration: the agent runs ``incremind mcp`` itself."""
    command = incremind_command()
    env: tuple[tuple[str, str], ...] = ()
    if settings.home_dir != DEFAULT_HOME.expanduser():  # the agent's environment will not say which home
        env = (("INCREMIND_HOME", str(settings.home_dir)),)
    return Registration("stdio", command=command[0], args=(*command[1:], "mcp"), env=env)


def config_path(agent: str, settings: Settings) -> Path:
    """Return the file an agent keeps its user-scope MCP servers in."""
    if agent == "claude":
        claude_dir = settings.sessions.claude.dir or Path("~/.claude").expanduser()
        default = Path("~/.claude").expanduser()
        # with CLAUDE_CONFIG_DIR, Claude Code keeps .claude.json inside that folder
        return Path("~/.claude.json").expanduser() if claude_dir == default else claude_dir / ".claude.json"
    if agent == "codex":
        return (settings.sessions.codex.dir or Path("~/.codex").expanduser()) / "config.toml"
    if agent == "gemini":
        return (settings.sessions.gemini.dir or Path("~/.gemini").expanduser()) / "settings.json"
    raise IncremindError(f"unknown agent '{agent}'; choose one of {', '.join(AGENTS)}")


def claude_settings_path(settings: Settings) -> Path:
    """Return Claude Code's user settings.json (where hooks live)."""
    return (settings.sessions.claude.dir or Path("~/.claude").expanduser()) / "settings.json"


# --- the entry each agent expects -----------------------------------------------------


def entry_for(agent: str, reg: Registration) -> dict[str, Any]:
    """Return the agent's server entry for a registration."""
    env = dict(reg.env)
    if agent == "claude":
        if reg.transport == "http":
            entry: dict[str, Any] = {"type": "http", "url": reg.url}
            if reg.token_env:
                entry["headers"] = {"Authorization": f"Bearer ${{{reg.token_env}}}"}
            return entry
        return {"type": "stdio", "command": reg.command, "args": list(reg.args), "env": env}
    if agent == "codex":
        if reg.transport == "http":
            entry = {"url": reg.url}
            if reg.token_env:
                entry["bearer_token_env_var"] = reg.token_env
            return entry
        entry = {"command": reg.command, "args": list(reg.args)}
        if env:
            entry["env"] = env
        return entry
    if agent == "gemini":
        if reg.transport == "http":
            entry = {"httpUrl": reg.url}
            if reg.token_env:
                entry["headers"] = {"Authorization": f"Bearer ${{{reg.token_env}}}"}
            return entry
        entry = {"command": reg.command, "args": list(reg.args)}
        if env:
            entry["env"] = env
        return entry
    raise IncremindError(f"unknown agent '{agent}'; choose one of {', '.join(AGENTS)}")


def snippet(agent: str, reg: Registration) -> str:
    """Return what setup would add, for the person to paste or check."""
    entry = entry_for(agent, reg)
    if agent == "codex":
        return f"[mcp_servers.{SERVER_NAME}]\n" + "".join(f"{k} = {render_value(v)}\n" for k, v in entry.items())
    text = json.dumps({"mcpServers": {SERVER_NAME: entry}}, indent=2, ensure_ascii=False) + "\n"
    if agent == "claude":
        if reg.transport == "http":
            header = f' --header "Authorization: Bearer ${{{reg.token_env}}}"' if reg.token_env else ""
            line = f"claude mcp add --scope user --transport http{header} {SERVER_NAME} {reg.url}"
        else:
            env = "".join(f" --env {k}={shlex.quote(v)}" for k, v in reg.env)
            command = " ".join(shlex.quote(p) for p in (reg.command or "", *reg.args))
            line = f"claude mcp add --scope user --transport stdio{env} {SERVER_NAME} -- {command}"
        text += f"\nor, with Claude Code's own command:\n  {line}\n"
    return text


# --- registering and unregistering ----------------------------------------------------


def register_server(agent: str, reg: Registration, settings: Settings) -> SetupResult:
    """Add or update our entry in the agent's config file, keeping everything else."""
    path = config_path(agent, settings)
    entry = entry_for(agent, reg)
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

    return _edit_json(agent, path, put)


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

    return _edit_json(agent, path, take, removing=True)


def hook_command() -> str:
    """Return the SessionStart hook's shell command line."""
    return " ".join(shlex.quote(part) for part in (*incremind_command(), *HOOK_ARGS))


def _is_our_hook(handler: object) -> bool:
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    words = handler["command"].split()
    return words[-2:] == list(HOOK_ARGS) and any("incremind" in w for w in words[:-2])


def add_session_hook(settings: Settings) -> SetupResult:
    """Add (or refresh) the SessionStart hook that preloads memory into Claude Code sessions."""
    path = claude_settings_path(settings)
    wanted = {"type": "command", "command": hook_command(), "timeout": HOOK_TIMEOUT_SECONDS}

    def put(data: JsonObject) -> bool:
        groups = _hook_groups(data, path)
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for index, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if _is_our_hook(handler):
                    if handler == wanted:
                        return False
                    handlers[index] = wanted  # type: ignore[index]  # a list, checked above
                    return True
        groups.append({"matcher": HOOK_MATCHER, "hooks": [wanted]})
        return True

    return _edit_json("claude", path, put)


def remove_session_hook(settings: Settings) -> SetupResult:
    """Remove our SessionStart hook (and the group or keys it leaves empty)."""
    path = claude_settings_path(settings)

    def take(data: JsonObject) -> bool:
        hooks = data.get("hooks")
        groups = hooks.get("SessionStart") if isinstance(hooks, dict) else None
        if not isinstance(hooks, dict) or not isinstance(groups, list):
            return False
        changed = False
        for group in list(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                continue
            kept = [h for h in handlers if not _is_our_hook(h)]
            if len(kept) != len(handlers):
                changed = True
                if kept:
                    group["hooks"] = kept
                else:
                    groups.remove(group)
        if not groups:
            del hooks["SessionStart"]
        if not hooks:
            del data["hooks"]
        return changed

    return _edit_json("claude", path, take, removing=True)


def _hook_groups(data: JsonObject, path: Path) -> list[Any]:
    hooks = data.setdefault("hooks", {})
    groups = hooks.setdefault("SessionStart", []) if isinstance(hooks, dict) else None
    if not isinstance(groups, list):
        raise IncremindError(f"{path}: hooks.SessionStart is not a list; fix it by hand, then run setup again")
    return groups


# --- files ----------------------------------------------------------------------------


def _edit_json(agent: str, path: Path, change: Callable[[JsonObject], bool], *, removing: bool = False) -> SetupResult:
    """Apply change() to a JSON file; rewrite it (same key order and indent) only if it changed."""
    text = _read(path)
    if text is None and removing:
        return SetupResult(agent, path, "absent")
    data = _parse_json(text, path) if text else {}
    existed = bool(text) and _has_our_entry(data)
    if not change(data):
        return SetupResult(agent, path, "absent" if removing else "unchanged")
    indent = _indent_of(text or "")
    rendered = json.dumps(data, indent=indent, ensure_ascii=False) + "\n"
    backup = _write(path, rendered, previous=text)
    action: Action = "removed" if removing else ("updated" if existed else "added")
    return SetupResult(agent, path, action, backup)


def _has_our_entry(data: JsonObject) -> bool:
    servers = data.get("mcpServers")
    return isinstance(servers, dict) and SERVER_NAME in servers


def _edit_text(agent: str, path: Path, change: Callable[[str], str | None], *, removing: bool = False) -> SetupResult:
    text = _read(path)
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


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise IncremindError(f"cannot read {path}: {exc}") from exc


def _parse_json(text: str, path: Path) -> JsonObject:
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


def _write(path: Path, text: str, *, previous: str | None) -> Path | None:
    """Replace a file atomically, keeping its mode; save the previous content beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    mode = 0o600
    if previous is not None:
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        backup.write_text(previous, encoding="utf-8")
        mode = path.stat().st_mode & 0o7777
        os.chmod(backup, mode)  # the file may hold credentials; the backup is no more readable than it
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    log.info("wrote %s", path)
    return backup


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
    return line + (f" (previous file kept as {result.backup})" if result.backup else "")
