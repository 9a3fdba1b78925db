"""Read Markdown chat logs such as aider's ``.aider.chat.history.md``.

aider appends one block per run: ``# aider chat started at YYYY-MM-DD HH:MM:SS``, then the
person's input on ``#### `` lines, the assistant's reply as plain Markdown, and aider's own
tool and status output on ``> `` lines. The tool lines are dropped, except "Applied edit to
<path>", which becomes a tool marker.

The file is re-parsed whole when it changes. Ids are ``<run>.<turn>.<role>`` counted from the
top of the file, so appending keeps every earlier id; a reply that grows between two reads
keeps its id and its new text replaces the old (upsert).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from incremind_daemon.sources.sessions.records import ROLE_ASSISTANT, ROLE_TOOL, ROLE_USER, SessionMessage

log = logging.getLogger(__name__)

_SESSION_START = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})\s*$")
_USER_PREFIX = "#### "
_APPLIED_EDIT = re.compile(r"^> Applied edit to (.+?)\s*$")
# aider commands whose argument is a prompt for the model; other commands are dropped.
_PROMPT_COMMANDS = frozenset({"/ask", "/code", "/architect", "/context", "/copy-context", "/help"})


@dataclass(slots=True)
class _Turn:
    user_lines: list[str] = field(default_factory=list)
    reply_lines: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Run:
    started: str | None
    turns: list[_Turn] = field(default_factory=lambda: [_Turn()])


def parse_chat_markdown(
    text: str, *, agent: str = "generic", session_id: str, cwd: str | None = None
) -> list[SessionMessage]:
    """Split a Markdown chat log into user, assistant and tool-marker messages."""
    out: list[SessionMessage] = []
    for run_index, run in enumerate(_split_runs(text)):
        for turn_index, turn in enumerate(run.turns):
            bodies = [("user", ROLE_USER, _prompt_text(turn.user_lines))]
            bodies.append(("assistant", ROLE_ASSISTANT, "\n".join(turn.reply_lines).strip()))
            bodies.extend((f"tool{index}", ROLE_TOOL, f"edit: {path}") for index, path in enumerate(turn.edited))
            for suffix, role, body in bodies:
                if body:
                    message_id = f"{run_index}.{turn_index}.{suffix}"
                    out.append(SessionMessage(agent, session_id, message_id, role, body, run.started, cwd))
    return out


def _split_runs(text: str) -> list[_Run]:
    runs = [_Run(started=None)]
    previous_was_user = False
    for raw in text.splitlines():
        line = raw.rstrip()  # aider ends lines with two spaces (a Markdown hard break)
        started = _SESSION_START.match(line)
        if started:
            runs.append(_Run(started=f"{started.group(1)}T{started.group(2)}"))
            previous_was_user = False
            continue
        turn = runs[-1].turns[-1]
        is_user = line.startswith(_USER_PREFIX) or line == "####"
        if is_user:
            # Consecutive #### lines are one multi-line input; anything between starts a new turn.
            if not previous_was_user and _has_content(turn):
                turn = _Turn()
                runs[-1].turns.append(turn)
            turn.user_lines.append(line[len(_USER_PREFIX) :])
        elif line.startswith(">"):
            edit = _APPLIED_EDIT.match(line)
            if edit:
                turn.edited.append(edit.group(1))
        elif turn.user_lines or line.strip():
            turn.reply_lines.append(line)
        previous_was_user = is_user
    return [run for run in runs if run.started is not None or any(_has_content(t) for t in run.turns)]


def _has_content(turn: _Turn) -> bool:
    return bool(turn.user_lines or "".join(turn.reply_lines).strip() or turn.edited)


def _prompt_text(lines: list[str]) -> str:
    prompt = "\n".join(lines).strip()
    if not prompt.startswith("/"):
        return prompt
    command, *argument = prompt.split(maxsplit=1)
    return argument[0].strip() if command in _PROMPT_COMMANDS and argument else ""
