"""Install the SessionStart hook that gives each agent session its project's memory, and take it out again.

Where each agent takes a user-level SessionStart hook, read from the
packages' own code (Claude Code 2.1.197, Codex CLI 0.171.0, Gemini CLI 0.61.0):

- Claude Code: ``~/.claude/settings.json`` ``hooks.SessionStart``, a list of
  ``{"matcher", "hooks": [{"type": "command", "command", "timeout"}]}``; the
  matcher is a pattern over the source, the timeout in seconds (default 600).
  ``disableAllHooks: true`` turns every hook off. No review step.
- Codex: ``$CODEX_HOME/hooks.json`` ``{"hooks": {"SessionStart": [same
  group shape]}}``, timeout in seconds (default 600). Hooks are a stable
  feature, on by default: ``[features] codex_hooks = true`` is no longer
  needed (``codex_hooks`` is now an alias of ``hooks``, and either set to
  false turns hooks off). A user hook runs only once the person has trusted
  it in Codex (``/hooks``, which records a ``trusted_hash`` under
  ``[hooks.state."<hooks.json>:session_start:<group>:<handler>"]`` in
  config.toml; key and hash checked against the real binary); until then
  Codex says "1 hook needs review" and ``codex exec`` skips it silently.
  Setup leaves that review to the person and only reads the state, and never
  removes a group from the middle of the list, which would shift the keys of
  the hooks after it. ``--ignore-user-config`` skips hooks.json too.
- Gemini CLI: ``~/.gemini/settings.json`` ``hooks.SessionStart``, same group
  shape plus an optional ``name``; the timeout is in milliseconds (default
  60000) and a lifecycle matcher is an exact string (``*`` matches all, so
  ``startup|resume`` would match nothing). ``hooksConfig.enabled`` (default
  true) turns hooks off and ``hooksConfig.disabled`` lists names to skip.
  Gemini runs settings hooks only in folders it trusts.

Files are edited the way ``agent_setup`` edits them: only our entry, the same
key order and indentation, ``<file>.incremind-bak``, an atomic replace.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import tomllib
from pathlib import Path
from typing import Any

from incremind_daemon.config import Settings
from incremind_daemon.errors import IncremindError
from incremind_daemon.locate import DEFAULT_HOME
from incremind_daemon.serve.agent_setup import (
    JsonObject,
    SetupResult,
    agent_home,
    config_path,
    edit_json,
    incremind_command,
    parse_config,
    read_config,
)

HOOK_NAME = "incremind"  # Gemini shows it in /hooks and takes it in hooksConfig.disabled
HOOK_TIMEOUT_SECONDS = 10
HOOK_MATCHERS = {"claude": "startup|resume|clear|compact", "codex": "startup|resume|clear|compact", "gemini": "*"}


def hook_path(agent: str, settings: Settings) -> Path:
    """Return the file that holds the agent's user-level SessionStart hooks."""
    return agent_home(agent, settings) / ("hooks.json" if agent == "codex" else "settings.json")


def hook_command(agent: str, settings: Settings) -> str:
    """Return the shell command line the agent runs at session start."""
    words = [*incremind_command(), "hook", f"{agent}-session-start"]
    if settings.home_dir != DEFAULT_HOME.expanduser():  # the agent's environment will not say which home
        words += ["--home", str(settings.home_dir)]
    return " ".join(shlex.quote(word) for word in words)


def hook_handler(agent: str, settings: Settings) -> JsonObject:
    """Return our handler entry in the shape the agent's hooks file takes."""
    command = hook_command(agent, settings)
    if agent == "gemini":
        return {"name": HOOK_NAME, "type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS * 1000}
    return {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}


def hook_snippet(agent: str, settings: Settings) -> str:
    """Return what setup would add to the agent's hooks file, for the person to paste or check."""
    group = {"matcher": HOOK_MATCHERS[agent], "hooks": [hook_handler(agent, settings)]}
    return json.dumps({"hooks": {"SessionStart": [group]}}, indent=2, ensure_ascii=False) + "\n"


def is_our_hook(handler: object, agent: str) -> bool:
    """Tell whether a hook handler entry runs ``incremind hook <agent>-session-start``."""
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    try:
        words = shlex.split(handler["command"])
    except ValueError:
        words = handler["command"].split()
    for index in range(1, len(words) - 1):
        if words[index : index + 2] == ["hook", f"{agent}-session-start"]:
            return any("incremind" in Path(word).name for word in words[:index])
    return False


def find_session_hook(agent: str, settings: Settings) -> tuple[int, int] | None:
    """Return (group, handler) positions of our SessionStart hook in the agent's file, or None.

    Raises IncremindError when the file exists but cannot be read as JSON.
    """
    found = _locate_hook(agent, settings)
    return None if found is None else found[0]


def _locate_hook(agent: str, settings: Settings) -> tuple[tuple[int, int], JsonObject, JsonObject] | None:
    """Return our hook's positions, its group and its handler entry."""
    path = hook_path(agent, settings)
    text = read_config(path)
    data = parse_config(text, path) if text and text.strip() else {}
    hooks = data.get("hooks")
    groups = hooks.get("SessionStart") if isinstance(hooks, dict) else None
    for g, group in enumerate(groups if isinstance(groups, list) else []):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
            if is_our_hook(handler, agent):
                return (g, h), group, handler
    return None


def add_session_hook(agent: str, settings: Settings, *, backup: bool = True) -> SetupResult:
    """Add (or refresh) our SessionStart hook in the agent's hooks file, keeping every other hook.

    backup=False keeps an existing ``.incremind-bak`` (Gemini's servers and
    hooks share one file: the backup stays the file as it was before setup).
    """
    path = hook_path(agent, settings)
    wanted = hook_handler(agent, settings)

    def put(data: JsonObject) -> bool:
        groups = _hook_groups(data, path)
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for index, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if is_our_hook(handler, agent):
                    if handler == wanted:
                        return False
                    handlers[index] = wanted  # type: ignore[index]  # a list, checked above
                    return True
        groups.append({"matcher": HOOK_MATCHERS[agent], "hooks": [wanted]})
        return True

    return edit_json(agent, path, put, ours=lambda data: _has_our_hook(data, agent), backup=backup)


def remove_session_hook(agent: str, settings: Settings, *, backup: bool = True) -> SetupResult:
    """Remove our SessionStart hook (and the group or keys it leaves empty)."""
    path = hook_path(agent, settings)

    def take(data: JsonObject) -> bool:
        hooks = data.get("hooks")
        groups = hooks.get("SessionStart") if isinstance(hooks, dict) else None
        if not isinstance(hooks, dict) or not isinstance(groups, list):
            return False
        changed = False
        emptied: list[int] = []
        for index, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(handlers, list) and any(is_our_hook(h, agent) for h in handlers):
                group["hooks"] = [h for h in handlers if not is_our_hook(h, agent)]
                changed = True
                emptied += [] if group["hooks"] else [index]
        # Codex keys a hook's trust by its group's position: an emptied group goes only from the end
        for index in reversed(emptied):
            if agent != "codex" or index == len(groups) - 1:
                del groups[index]
        if not groups:
            del hooks["SessionStart"]
        if not hooks:
            del data["hooks"]
        return changed

    return edit_json(agent, path, take, ours=lambda data: _has_our_hook(data, agent), removing=True, backup=backup)


def _has_our_hook(data: JsonObject, agent: str) -> bool:
    hooks = data.get("hooks")
    groups = hooks.get("SessionStart") if isinstance(hooks, dict) else None
    return any(
        is_our_hook(handler, agent)
        for group in (groups if isinstance(groups, list) else [])
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for handler in group["hooks"]
    )


def _hook_groups(data: JsonObject, path: Path) -> list[Any]:
    hooks = data.setdefault("hooks", {})
    groups = hooks.setdefault("SessionStart", []) if isinstance(hooks, dict) else None
    if not isinstance(groups, list):
        raise IncremindError(f"{path}: hooks.SessionStart is not a list; fix it by hand, then run setup again")
    return groups


def hooks_turned_off(agent: str, settings: Settings) -> str:
    """Say which setting keeps the agent from running our hook (empty when none does)."""
    if agent == "codex":
        path = config_path(agent, settings)
        text = read_config(path)
        try:
            features = tomllib.loads(text).get("features") if text else None
        except tomllib.TOMLDecodeError:
            return ""  # the MCP check reports a broken config.toml
        for key in ("hooks", "codex_hooks"):  # codex_hooks is the older name of the same flag
            if isinstance(features, dict) and features.get(key) is False:
                return f"[features] {key} = false in {path} turns Codex hooks off"
        return ""
    path = hook_path(agent, settings)
    text = read_config(path)
    data = parse_config(text, path) if text and text.strip() else {}
    if agent == "claude" and data.get("disableAllHooks") is True:
        return f"disableAllHooks is true in {path}"
    switches = data.get("hooksConfig") if agent == "gemini" else None
    if isinstance(switches, dict) and switches.get("enabled") is False:
        return f"hooksConfig.enabled is false in {path}"
    off = switches.get("disabled") if isinstance(switches, dict) else None
    if isinstance(off, list) and {HOOK_NAME, hook_command(agent, settings)} & {str(name) for name in off}:
        return f"hooksConfig.disabled in {path} names the incremind hook"
    return ""


def is_hook_trusted(agent: str, settings: Settings) -> bool:
    """Tell whether the person has approved our hook as it stands now (only Codex asks for that)."""
    if agent != "codex":
        return True
    found = _locate_hook(agent, settings)
    text = read_config(config_path(agent, settings))
    if found is None or not text:
        return False
    try:
        states = tomllib.loads(text).get("hooks", {}).get("state", {})
    except (tomllib.TOMLDecodeError, AttributeError):
        return False
    (group_index, handler_index), group, handler = found
    # Codex's key: the hooks.json path, the event, then the group's and the handler's position
    state = states.get(f"{hook_path(agent, settings)}:session_start:{group_index}:{handler_index}")
    if not isinstance(state, dict) or state.get("enabled") is False:
        return False
    return state.get("trusted_hash") == codex_trust_hash(group, handler)


def codex_trust_hash(group: JsonObject, handler: JsonObject) -> str:
    """Return the hash Codex records when the person approves a SessionStart command hook.

    Codex (codex-rs/hooks discovery, checked against 0.171.0) hashes the group
    normalised to this one handler: None fields dropped, the timeout defaulted
    to 600 s, keys sorted, compact JSON, SHA-256. A hook changed since its
    approval no longer matches, and Codex asks again.
    """
    normalised: JsonObject = {"type": "command", "command": handler.get("command")}
    timeout = handler.get("timeout")
    normalised["timeout"] = max(timeout, 1) if isinstance(timeout, int) else 600
    normalised["async"] = handler.get("async") is True
    if isinstance(handler.get("statusMessage"), str):
        normalised["statusMessage"] = handler["statusMessage"]
    identity: JsonObject = {"event_name": "session_start", "hooks": [normalised]}
    if isinstance(group.get("matcher"), str):
        identity["matcher"] = group["matcher"]
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
