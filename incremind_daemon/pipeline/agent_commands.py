"""How each coding agent's CLI is run headless for the insight step, and how its answer is read.

Every run gets the whole request on stdin (no argument-length limit), works in
its own folder ``<home>/agent-runs/<agent>`` (see ``agent_cli``), and must
neither use tools nor load the person's memory block. The flags, and where
they are documented:

Claude Code: ``claude -p --output-format json ...``, the prompt on stdin
(code.claude.com/docs/en/cli-reference and /headless).

- ``--output-format json``: one JSON object; ``result`` is the answer, ``usage``
  the tokens, ``is_error`` and ``subtype`` a failure.
- ``--system-prompt``: our instructions replace Claude Code's own system prompt.
- ``--tools ""``: no built-in tool; ``--strict-mcp-config`` with no
  ``--mcp-config``: no MCP server (incremind's own included);
  ``--disable-slash-commands``: no skills; ``--max-turns 1``: one answer.
- ``--no-session-persistence``: the run is not saved as a session.
- ``--setting-sources local`` (the run folder has no ``.claude``): the user's
  settings.json is not read, so neither its hooks (incremind's SessionStart
  hook injects the memory block) nor its plugins; ``--settings
  '{"disableAllHooks": true}'`` for a hook from anywhere else.
- ``CLAUDE_CODE_DISABLE_CLAUDE_MDS=1`` and ``CLAUDE_CODE_DISABLE_AUTO_MEMORY=1``:
  no CLAUDE.md (``~/.claude/CLAUDE.md`` holds the block, and some versions
  load it whatever ``--setting-sources`` says: anthropics/claude-code#86837)
  and no auto memory.

Codex: ``codex exec --json ... -``, the prompt on stdin (``-`` reads it; see
developers.openai.com/codex/noninteractive and codex-rs/exec/src/cli.rs).

- ``--json``: JSONL events (codex-rs/exec/src/exec_events.rs); the answer is
  the last completed ``agent_message`` item, the tokens are summed over
  ``turn.completed`` usage, ``turn.failed`` and ``error`` carry failures.
- ``--ephemeral``: no rollout file; ``--skip-git-repo-check``: the run folder
  is no repository; ``--sandbox read-only`` and ``-c approval_policy="never"``:
  nothing is written and nothing asked; ``--ignore-user-config``: no
  ``config.toml`` (so none of its MCP servers; the login is still used).
- Codex has no switch that skips ``$CODEX_HOME/AGENTS.md`` (openai/codex#5983),
  so incremind's global block there still reaches a Codex run.

Gemini CLI: ``gemini --output-format json -p <closing line>``, the prompt on
stdin (``-p`` is appended to stdin; geminicli.com/docs/cli/headless and
/cli-reference).

- ``--output-format json``: ``response`` is the answer, ``stats.models.<model>.tokens``
  the tokens, ``error`` a failure.
- ``--extensions none``: no extension (nor its context files and MCP servers);
  ``--allowed-mcp-server-names`` naming no server: no MCP server. Headless runs
  get no tool that would ask for approval.
- ``GEMINI_CLI_TRUST_WORKSPACE=true``: the run folder counts as trusted (an
  untrusted one makes a headless run exit 55) so its ``.gemini/settings.json``
  applies: ``context.fileName`` names a file that does not exist, so no
  GEMINI.md (``~/.gemini/GEMINI.md`` holds the block) is loaded.
- Gemini has no flag against keeping a chat of the run under
  ``~/.gemini/tmp``; the session readers skip it by its working folder.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from incremind_daemon.pipeline.chat import TokenUsage
from incremind_daemon.private import make_private_folders, write_private

log = logging.getLogger(__name__)

NO_CONTEXT_FILE = "INCREMIND-NO-CONTEXT.md"  # a context file name that no file in reach has
NO_MCP_SERVER = "incremind-none"


@dataclass(frozen=True, slots=True)
class Invocation:
    """One headless run: its command line, what goes to stdin, and the environment it adds."""

    argv: tuple[str, ...]
    stdin: str
    env: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class AgentAnswer:
    """What a CLI printed, read: the final message, the tokens and model it names, and a failure it reports.

    Output that cannot be read at all gives neither text nor error.
    """

    text: str | None
    usage: TokenUsage | None
    model: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class AgentCli:
    """One coding agent's headless command: how to call it, read it, and prepare its folder."""

    name: str
    label: str  # the product's name, for messages
    install_hint: str
    invoke: Callable[[str, Path, str, str], Invocation]  # executable, run folder, system text, user text
    read: Callable[[str], AgentAnswer]
    prepare: Callable[[Path], None]


def claude_invocation(executable: str, folder: Path, system: str, user: str) -> Invocation:
    argv = (
        executable,
        "-p",
        "--output-format",
        "json",
        "--system-prompt",
        system,
        "--tools",
        "",
        "--strict-mcp-config",
        "--disable-slash-commands",
        "--max-turns",
        "1",
        "--no-session-persistence",
        "--setting-sources",
        "local",
        "--settings",
        '{"disableAllHooks": true}',
    )
    env = {"CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1", "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}
    return Invocation(argv, user, env)


def codex_invocation(executable: str, folder: Path, system: str, user: str) -> Invocation:
    argv = (
        executable,
        "exec",
        "--json",
        "--ephemeral",
        "--skip-git-repo-check",
        "--ignore-user-config",
        "--sandbox",
        "read-only",
        "-c",
        'approval_policy="never"',
        "-C",
        str(folder),
        "-",
    )
    return Invocation(argv, f"{system}\n\n{user}", {})


def gemini_invocation(executable: str, folder: Path, system: str, user: str) -> Invocation:
    argv = (
        executable,
        "--output-format",
        "json",
        "--extensions",
        "none",
        "--allowed-mcp-server-names",
        NO_MCP_SERVER,
        "-p",
        "Answer with the one JSON object asked for above, and nothing else.",
    )
    return Invocation(argv, f"{system}\n\n{user}", {"GEMINI_CLI_TRUST_WORKSPACE": "true"})


def read_claude(stdout: str) -> AgentAnswer:
    """Read ``claude -p --output-format json``: one result object (the last JSON line, to be safe)."""
    result = _last_object(stdout, lambda data: data.get("type") == "result" or "result" in data)
    if result is None:
        return AgentAnswer(None, None)
    usage = result.get("usage")
    counted: TokenUsage | None = None
    if isinstance(usage, dict) and _int(usage.get("input_tokens")) is not None:
        tokens_in = sum(
            _int(usage.get(key)) or 0
            for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        counted = TokenUsage(tokens_in, _int(usage.get("output_tokens")) or 0, estimated=False)
    models = result.get("modelUsage")
    model = next(iter(models), None) if isinstance(models, dict) else None
    text = result.get("result")
    failed = result.get("is_error") is True or result.get("subtype") not in (None, "success")
    error = (str(text) if isinstance(text, str) and text else str(result.get("subtype"))) if failed else None
    return AgentAnswer(text if isinstance(text, str) and not failed else None, counted, model, error)


def read_codex(stdout: str) -> AgentAnswer:
    """Read ``codex exec --json``: the last agent message, the summed turn usage, the last failure."""
    text: str | None = None
    failed: str | None = None  # the turn failed: whatever came before it is no answer
    error: str | None = None  # an error event, which Codex may recover from (a reconnect, say)
    tokens_in = tokens_out = 0
    counted = False
    for line in stdout.splitlines():
        event = _object(line)
        kind = event.get("type") if event else None
        if event is None or not isinstance(kind, str):
            continue
        item = event.get("item")
        if kind == "item.completed" and isinstance(item, dict) and item.get("type") == "agent_message":
            message = item.get("text")
            text = message if isinstance(message, str) else text
        elif kind == "turn.completed" and isinstance(usage := event.get("usage"), dict):
            tokens_in += _int(usage.get("input_tokens")) or 0
            tokens_out += _int(usage.get("output_tokens")) or 0
            counted = True
        elif kind == "turn.failed":
            failed = _message(event.get("error")) or "the turn failed"
        elif kind == "error":
            error = _message(event) or "an error event"
    usage = TokenUsage(tokens_in, tokens_out, estimated=False) if counted else None
    if failed is not None:
        return AgentAnswer(None, usage, None, failed)
    return AgentAnswer(text, usage, None, error if text is None else None)


def read_gemini(stdout: str) -> AgentAnswer:
    """Read ``gemini --output-format json``: ``response``, ``stats.models.*.tokens`` and ``error``."""
    data = _last_object(stdout, lambda found: "response" in found or "error" in found or "stats" in found)
    if data is None:
        return AgentAnswer(None, None)
    tokens_in = tokens_out = 0
    counted = False
    model: str | None = None
    stats = data.get("stats")
    models = stats.get("models") if isinstance(stats, dict) else None
    for name, entry in models.items() if isinstance(models, dict) else ():
        tokens = entry.get("tokens") if isinstance(entry, dict) else None
        if not isinstance(tokens, dict):
            continue
        prompt = _int(tokens.get("prompt"))
        prompt = prompt if prompt is not None else _int(tokens.get("input")) or 0
        total = _int(tokens.get("total"))
        spent = (_int(tokens.get("candidates")) or 0) + (_int(tokens.get("thoughts")) or 0)
        tokens_in += prompt
        tokens_out += max(0, total - prompt) if total is not None else spent
        counted, model = True, model or str(name)
    response = data.get("response")
    error = _message(data.get("error"))
    usage = TokenUsage(tokens_in, tokens_out, estimated=False) if counted else None
    return AgentAnswer(response if isinstance(response, str) else None, usage, model, error)


def prepare_plain(folder: Path) -> None:
    """Nothing to write: the folder itself is all the run needs."""


def prepare_gemini(folder: Path) -> None:
    """Write the run folder's Gemini settings: no context file is loaded from anywhere, and no hook runs.

    The person's own settings hooks would run too (the run folder is trusted),
    incremind's SessionStart hook among them; the hook also answers nothing
    there, but this keeps every other tool's hooks out of the run as well.
    """
    target = folder / ".gemini" / "settings.json"
    settings = {"context": {"fileName": [NO_CONTEXT_FILE]}, "hooksConfig": {"enabled": False}}
    wanted = json.dumps(settings, indent=2) + "\n"
    if target.is_file() and target.read_text(encoding="utf-8") == wanted:
        return
    make_private_folders(target.parent)
    write_private(target, wanted.encode("utf-8"))


AGENT_CLIS: dict[str, AgentCli] = {
    "claude": AgentCli(
        "claude",
        "Claude Code",
        "install Claude Code (npm install -g @anthropic-ai/claude-code) and run `claude` once to log in",
        claude_invocation,
        read_claude,
        prepare_plain,
    ),
    "codex": AgentCli(
        "codex",
        "Codex CLI",
        "install the Codex CLI (npm install -g @openai/codex) and run `codex login`",
        codex_invocation,
        read_codex,
        prepare_plain,
    ),
    "gemini": AgentCli(
        "gemini",
        "Gemini CLI",
        "install the Gemini CLI (npm install -g @google/gemini-cli) and run `gemini` once to log in",
        gemini_invocation,
        read_gemini,
        prepare_gemini,
    ),
}


def _object(line: str) -> dict[str, object] | None:
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        data: object = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _last_object(stdout: str, wanted: Callable[[dict[str, object]], bool]) -> dict[str, object] | None:
    """The whole output as one JSON object, else its last line (or pretty-printed tail) that is one."""
    whole = _object(stdout)
    if whole is not None and wanted(whole):
        return whole
    lines = stdout.splitlines()
    for index in range(len(lines) - 1, -1, -1):
        found = _object(lines[index]) or (_object("\n".join(lines[index:])) if lines[index] == "{" else None)
        if found is not None and wanted(found):
            return found
    return None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _message(value: object) -> str | None:
    if isinstance(value, str):
        return value or None
    if isinstance(value, dict):
        message = value.get("message")
        return message if isinstance(message, str) and message else None
    return None
