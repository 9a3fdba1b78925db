"""Agent hook commands (``incremind hook ...``): fast, standard library only.

A SessionStart hook runs before every agent session, so this module reads the
files the daemon precompiled under ``$INCREMIND_HOME/context/hook/`` and
prints; it never imports the store, pydantic, jieba or a model.

``incremind hook claude-session-start [--home H]`` (also ``codex-`` and
``gemini-``) reads the hook's JSON event on stdin, names the project of its
``cwd`` the way the session reader does (a configured or enabled folder
prefix, else the git top folder's name, else the folder's name), and prints
that project's part of the context (``context_for``): the global block is in
the agent's own global file unless the index says it is not. The header and
time anchor are written with the live time. It never fails a session: exit 0
always, problems on stderr.

What each agent sends and accepts, read from the packages' own code
(Claude Code 2.1.197, Codex CLI 0.171.0, Gemini CLI 0.61.0):

- stdin, all three: ``session_id``, ``transcript_path``, ``cwd``,
  ``hook_event_name: "SessionStart"``, ``source``. Claude adds ``model``,
  ``permission_mode``, ``agent_type``, ``session_title``; Codex ``model``,
  ``permission_mode``; Gemini ``timestamp``. ``source`` is startup, resume,
  clear or compact (Gemini: no compact).
- stdout, all three: ``{"hookSpecificOutput": {"hookEventName":
  "SessionStart", "additionalContext": "..."}}``. Codex validates it against
  ``session-start.command.output.schema.json`` (no other keys) and Claude
  against its own schema; Gemini reads ``additionalContext`` and wraps it in
  ``<hook_context>``. Claude and Codex take empty stdout as "nothing to add";
  Gemini parses stderr as the output when stdout is empty and shows it to the
  person, so Gemini gets ``{}`` instead.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime

from incremind_daemon.names import project_from_folder
from incremind_daemon.serve.context.anchor import anchor_line, part_header_line
from incremind_daemon.store import clock
from incremind_daemon.store.clock import parse_moment

HOOKS = {"claude-session-start": "claude", "codex-session-start": "codex", "gemini-session-start": "gemini"}
NOTHING = {"claude": b"", "codex": b"", "gemini": b"{}\n"}  # what each agent takes as "no context"
AGENT_RUNS = "agent-runs"  # config.AGENT_RUNS: incremind's own headless runs get no memory block


def main(argv: list[str]) -> int:
    """Run one hook command; return the exit code."""
    parsed = parse_args(argv)
    if parsed is None:
        print(f"incremind hook: unknown hook {' '.join(argv)!r}; known: {', '.join(HOOKS)} [--home H]", file=sys.stderr)
        return 2
    agent, home = parsed
    text = None
    try:
        event = read_event(sys.stdin.read())
        cwd = event.get("cwd")
        folder = cwd if isinstance(cwd, str) and cwd else os.getcwd()
        if not is_own_run(folder, home):
            text = context_for(folder, agent=agent, home=home, now=clock.now().astimezone())
    except Exception as exc:  # a hook must never stand in the way of a session
        print(f"incremind hook: no context: {exc}", file=sys.stderr)
    try:
        sys.stdout.buffer.write(render_output(agent, text))
        sys.stdout.flush()
    except OSError:  # the agent stopped reading (timed out or quit): nothing left to tell it
        pass
    return 0


def parse_args(argv: list[str]) -> tuple[str, str] | None:
    """Return (agent, memory home) for ``NAME [--home H]``, or None for anything else."""
    if not argv or argv[0] not in HOOKS:
        return None
    if len(argv) == 1:
        return HOOKS[argv[0]], hook_home()
    if len(argv) == 3 and argv[1] == "--home" and argv[2]:
        return HOOKS[argv[0]], os.path.expanduser(argv[2])
    return None


def render_output(agent: str, text: str | None) -> bytes:
    """Return the bytes the agent reads on stdout: its SessionStart JSON, or its "nothing"."""
    if not text:
        return NOTHING[agent]
    output = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    return json.dumps(output, ensure_ascii=False).encode("utf-8") + b"\n"


def is_own_run(cwd: str, home: str) -> bool:
    """Tell whether the folder is one of incremind's own headless agent runs."""
    runs = os.path.normpath(os.path.join(home, AGENT_RUNS))
    folder = os.path.normpath(os.path.expanduser(cwd))
    return folder == runs or folder.startswith(runs + os.sep)


def read_event(raw: str) -> dict[str, object]:
    """Parse the hook's stdin event; an empty or malformed one counts as no fields."""
    try:
        event = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        return {}
    return event if isinstance(event, dict) else {}


def hook_home() -> str:
    """Return the memory home: ``$INCREMIND_HOME`` or ``~/.incremind``."""
    return os.path.expanduser(os.environ.get("INCREMIND_HOME") or "~/.incremind")


def context_for(cwd: str, *, agent: str, home: str, now: datetime) -> str | None:
    """Return what the agent gets in a working directory, or None when there is nothing to add.

    The project's part, under a live header and time anchor; the global block
    as well when the agent's global instruction file does not hold it (the
    index says which do). A folder of no known project gets only that global
    block, and nothing where the global file holds it already.
    """
    folder = os.path.join(home, "context", "hook")
    index = _load(folder, "index.json")
    if index is None:
        return None
    prefixes = index.get("prefixes")
    project = project_of(cwd, prefixes if isinstance(prefixes, list) else [])
    projects = index.get("projects")
    own = _load(folder, projects.get(project)) if isinstance(projects, dict) else None
    in_file = index.get("global_in_file")
    glob = None if isinstance(in_file, dict) and in_file.get(agent) else _load(folder, index.get("global"))
    return compose(agent=agent, project=project, own=own, glob=glob, now=now)


def compose(
    *, agent: str, project: str, own: dict[str, object] | None, glob: dict[str, object] | None, now: datetime
) -> str | None:
    """Return the text the hook adds from precompiled parts (None: nothing to add)."""
    compiled = [part for part in (glob, own) if part is not None]
    if not compiled:
        return None
    sessions = compiled[-1].get("last_sessions")
    last = sessions.get(agent) if isinstance(sessions, dict) else None
    last = last if isinstance(last, dict) else {}
    at = parse_moment(last["at"]) if isinstance(last.get("at"), str) else None
    where = project if own is not None else last.get("project")
    head = [
        part_header_line(now, project if own is not None else None),
        anchor_line(now, at, agent=agent, where=where if isinstance(where, str) else None),
    ]
    bodies = [str(part.get("body", "")).rstrip("\n") for part in compiled]
    return "\n".join([*head, *bodies]).rstrip("\n")


def _load(folder: str, name: object) -> dict[str, object] | None:
    if not isinstance(name, str) or os.sep in name:
        return None
    try:
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            data = json.load(handle)
    except (FileNotFoundError, json.JSONDecodeError):  # not compiled yet, or being replaced by hand
        return None
    return data if isinstance(data, dict) else None


def project_of(cwd: str, prefixes: list[list[str]]) -> str:
    """Name the project of a folder: the longest listed prefix, else its git top folder, else itself.

    A folder's name is made into a project name as the session reader does
    (``names.project_from_folder``); '' when nothing of it is usable.
    """
    folder = os.path.normpath(os.path.expanduser(cwd))
    for prefix, project in sorted(prefixes, key=lambda item: -len(item[0])):
        if folder == prefix or folder.startswith(prefix.rstrip(os.sep) + os.sep):
            return project
    candidate = folder
    while True:
        parent = os.path.dirname(candidate)
        if parent == candidate:
            break
        if os.path.exists(os.path.join(candidate, ".git")):
            return project_from_folder(os.path.basename(candidate)) or ""
        candidate = parent
    return project_from_folder(os.path.basename(folder)) or ""
