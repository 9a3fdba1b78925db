"""Write scenario sources where the product finds them: agent transcripts and drop-folder notes.

The transcript builders of the test suite (``tests/transcripts.py``) write each
agent's real line format; here they are extended with what those tests leave
out: the scenario's clock, tool calls with their output (Claude ``tool_use`` /
``tool_result`` blocks, Codex ``function_call`` / ``function_call_output``
items, Gemini ``toolCalls``), the parent chain of Claude lines, and the
bookkeeping lines each agent writes beside the dialogue.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.scenarios.scenario import Source, Tool, Turn
from tests.transcripts import ClaudeLog, CodexLog, GeminiLog

_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
_NAMESPACE = uuid.UUID("6f1d6a4e-3c55-4f0e-9a57-2f1f4b1c7e21")  # session ids are stable across runs


def _line(record: dict[str, object]) -> str:
    return json.dumps(record, ensure_ascii=False) + "\n"


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]


@dataclass
class ClaudeSession(ClaudeLog):
    """A Claude Code transcript on the scenario's clock, with tool calls and a parent chain."""

    start: datetime = _EPOCH
    last_uuid: str | None = None

    def _stamp(self) -> str:
        self.clock += 7  # seconds between lines; order is all the reader relies on
        return _iso(self.start + timedelta(seconds=self.clock))

    def _envelope(self, kind: str, uuid: str) -> dict[str, object]:
        record = super()._envelope(kind, uuid)
        record["parentUuid"], self.last_uuid = self.last_uuid, uuid
        return record

    def tool_use(self, uuid: str, message_id: str, tool_id: str, tool: Tool) -> str:
        record = self._envelope("assistant", uuid)
        block = {"type": "tool_use", "id": tool_id, "name": tool.name, "input": tool.input}
        record["message"] = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4",
            "content": [block],
            "stop_reason": "tool_use",
        }
        return _line(record)

    def tool_result(self, uuid: str, tool_id: str, tool: Tool, caller: str) -> str:
        record = self._envelope("user", uuid)
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": tool.output, "is_error": False}
        record["message"] = {"role": "user", "content": [block]}
        record["toolUseResult"] = {"stdout": tool.output, "stderr": "", "interrupted": False, "isImage": False}
        record["sourceToolAssistantUUID"] = caller
        return _line(record)

    def write_turn(self, index: int, turn: Turn) -> None:
        key = f"{self.session}/{index}"
        if turn.role == "user":
            self.append(self.user(str(uuid.uuid5(_NAMESPACE, key)), turn.text))
            return
        # one API reply is one message id over several lines; a tool's result starts the next reply
        message_id = f"msg_{_digest(key)}"
        if turn.text:
            self.append(self.assistant(str(uuid.uuid5(_NAMESPACE, key)), message_id, turn.text))
        for number, tool in enumerate(turn.tools):
            call = str(uuid.uuid5(_NAMESPACE, f"{key}/tool{number}"))
            tool_id = f"toolu_{_digest(key, str(number))}"
            self.append(
                self.tool_use(call, message_id, tool_id, tool),
                self.tool_result(str(uuid.uuid5(_NAMESPACE, f"{key}/result{number}")), tool_id, tool, call),
            )
            message_id = f"msg_{_digest(key, str(number))}"


@dataclass
class CodexSession(CodexLog):
    """A Codex rollout filed under the scenario's day, with function calls and their output."""

    start: datetime = _EPOCH

    def __post_init__(self) -> None:
        day = self.root / "sessions" / self.start.strftime("%Y/%m/%d")
        self.path = day / f"rollout-{self.start.strftime('%Y-%m-%dT%H-%M-%S')}-{self.session}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def _stamp(self) -> str:
        self.clock += 7
        return _iso(self.start + timedelta(seconds=self.clock))

    def meta(self) -> str:
        payload = {
            "id": self.session,
            "timestamp": _iso(self.start),
            "cwd": self.cwd,
            "originator": "codex_cli_rs",
            "cli_version": "0.77.0",
            "instructions": None,
            "source": "cli",
            "model_provider": "openai",
            "git": {"branch": "main"},
        }
        context = f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>"
        injected = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": context}]}
        return _line({"timestamp": self._stamp(), "type": "session_meta", "payload": payload}) + _line(
            {"timestamp": self._stamp(), "type": "response_item", "payload": injected}
        )

    def write_turn(self, index: int, turn: Turn) -> None:
        if turn.role == "user":
            self.append(self.user(turn.text))
            return
        lines = [self.assistant(turn.text)] if turn.text else []
        if turn.text:
            event = {"type": "agent_message", "message": turn.text}
            lines.append(_line({"timestamp": self._stamp(), "type": "event_msg", "payload": event}))
        for number, tool in enumerate(turn.tools):
            call_id = f"call_{_digest(self.session, str(index), str(number))}"
            arguments = json.dumps(tool.input, ensure_ascii=False)
            call = {"type": "function_call", "name": tool.name, "arguments": arguments, "call_id": call_id}
            output = {"type": "function_call_output", "call_id": call_id, "output": tool.output}
            lines.append(_line({"timestamp": self._stamp(), "type": "response_item", "payload": call}))
            lines.append(_line({"timestamp": self._stamp(), "type": "response_item", "payload": output}))
        self.append(*lines)


@dataclass
class GeminiSession(GeminiLog):
    """A Gemini CLI chat on the scenario's clock, with tool calls recorded on the reply."""

    start: datetime = _EPOCH

    def __post_init__(self) -> None:
        super().__post_init__()
        name = f"session-{self.start.strftime('%Y-%m-%dT%H-%M')}-{self.session[:8]}.jsonl"
        self.path = self.path.parent / name

    def _stamp(self) -> str:
        self.clock += 7
        return _iso(self.start + timedelta(seconds=self.clock))

    def meta(self) -> str:
        stamp = _iso(self.start)
        return _line(
            {
                "sessionId": self.session,
                "projectHash": hashlib.sha256(self.project_root.encode()).hexdigest(),
                "startTime": stamp,
                "lastUpdated": stamp,
                "kind": "main",
            }
        )

    def reply(self, message_id: str, turn: Turn) -> str:
        stamp = self._stamp()
        calls = [
            {
                "id": f"{message_id[:8]}{number}",
                "name": tool.name,
                "args": tool.input,
                "result": [
                    {
                        "functionResponse": {
                            "id": f"{message_id[:8]}{number}",
                            "name": tool.name,
                            "response": {"output": tool.output},
                        }
                    }
                ],
                "status": "success",
                "timestamp": stamp,
                "displayName": tool.name,
                "description": "",
                "resultDisplay": tool.output,
                "renderOutputAsMarkdown": False,
            }
            for number, tool in enumerate(turn.tools)
        ]
        record: dict[str, object] = {"id": message_id, "timestamp": stamp, "type": "gemini", "content": turn.text}
        record |= {"model": "gemini-2.5-pro", "toolCalls": calls} if calls else {"model": "gemini-2.5-pro"}
        return _line(record)

    def write_turn(self, index: int, turn: Turn) -> None:
        message_id = str(uuid.uuid5(_NAMESPACE, f"{self.session}/{index}"))
        line = self.message(message_id, "user", turn.text) if turn.role == "user" else self.reply(message_id, turn)
        self.append(line, _line({"$set": {"lastUpdated": self._stamp()}}))


def write_session(source: Source, *, home: Path, code: Path, seed: str) -> Path:
    """Write a session's transcript where its agent keeps it, run in ``code/<project>``; return its path.

    The working directory is made a git repository's top folder, since the
    product names a session's project after that folder.
    """
    cwd = code / source.project
    (cwd / ".git").mkdir(parents=True, exist_ok=True)
    session = str(uuid.uuid5(_NAMESPACE, f"{seed}/{source.id}"))
    log: ClaudeSession | CodexSession | GeminiSession
    if source.agent == "claude":
        log = ClaudeSession(home / ".claude", session, str(cwd), start=source.at)
    elif source.agent == "codex":
        log = CodexSession(home / ".codex", session, str(cwd), start=source.at)
        log.append(log.meta())
    else:
        log = GeminiSession(home / ".gemini", session, str(cwd), start=source.at)
        log.append(log.meta())
    for index, turn in enumerate(source.turns):
        log.write_turn(index, turn)
    return log.path


def write_note(source: Source, *, inbox: Path) -> Path:
    """Drop a note into ``inbox/<project>/<filename>``; return its path."""
    path = inbox / source.project / str(source.filename)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source.text, encoding="utf-8")
    return path
