"""Build transcript lines in each agent's real format (see shared/formats, Part A)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


def _line(record: dict[str, object]) -> str:
    return json.dumps(record, ensure_ascii=False) + "\n"


@dataclass
class ClaudeLog:
    """A Claude Code session file under <claude>/projects/<slug>/<session>.jsonl."""

    root: Path
    session: str
    cwd: str
    clock: int = 0
    day: str = "2026-11-30"  # the day its messages are stamped with
    path: Path = field(init=False)

    def __post_init__(self) -> None:
        slug = "".join(c if c.isalnum() else "-" for c in self.cwd)
        self.path = self.root / "projects" / slug / f"{self.session}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def _stamp(self) -> str:
        self.clock += 1
        return f"{self.day}T10:{self.clock // 60:02d}:{self.clock % 60:02d}.000Z"

    def _envelope(self, kind: str, uuid: str) -> dict[str, object]:
        return {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": "2.1.38",
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid,
            "timestamp": self._stamp(),
        }

    def user(self, uuid: str, text: str) -> str:
        record = self._envelope("user", uuid)
        record["message"] = {"role": "user", "content": text}
        return _line(record)

    def assistant(self, uuid: str, message_id: str, text: str) -> str:
        record = self._envelope("assistant", uuid)
        record["message"] = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4",
            "content": [{"type": "text", "text": text}],
        }
        return _line(record)

    def append(self, *lines: str) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write("".join(lines))


@dataclass
class CodexLog:
    """A Codex rollout under <codex>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl."""

    root: Path
    session: str
    cwd: str
    clock: int = 0
    path: Path = field(init=False)

    def __post_init__(self) -> None:
        self.path = self.root / "sessions" / "2026" / "11" / "30" / f"rollout-2026-11-30T10-00-00-{self.session}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def _stamp(self) -> str:
        self.clock += 1
        return f"2026-11-30T11:{self.clock // 60:02d}:{self.clock % 60:02d}.000Z"

    def meta(self) -> str:
        return _line(
            {
                "timestamp": self._stamp(),
                "type": "session_meta",
                "payload": {
                    "id": self.session,
                    "timestamp": "2026-11-30T11:00:00.000Z",
                    "cwd": self.cwd,
                    "originator": "codex_cli_rs",
                    "cli_version": "0.77.0",
                },
            }
        )

    def user(self, text: str) -> str:
        """Codex writes a prompt twice: as a response item and as a user_message event."""
        stamp = self._stamp()
        return _line(
            {
                "timestamp": stamp,
                "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
            }
        ) + _line({"timestamp": stamp, "type": "event_msg", "payload": {"type": "user_message", "message": text}})

    def assistant(self, text: str) -> str:
        return _line(
            {
                "timestamp": self._stamp(),
                "type": "response_item",
                "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]},
            }
        )

    def append(self, *lines: str) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write("".join(lines))


@dataclass
class GeminiLog:
    """A Gemini CLI chat under <gemini>/tmp/<slug>/chats/session-<time>-<id8>.jsonl."""

    root: Path
    session: str
    project_root: str
    clock: int = 0
    path: Path = field(init=False)

    def __post_init__(self) -> None:
        folder = self.root / "tmp" / Path(self.project_root).name
        (folder / "chats").mkdir(parents=True, exist_ok=True)
        (folder / ".project_root").write_text(self.project_root, encoding="utf-8")
        self.path = folder / "chats" / f"session-2026-11-30T12-00-{self.session[:8]}.jsonl"

    def _stamp(self) -> str:
        self.clock += 1
        return f"2026-11-30T12:{self.clock // 60:02d}:{self.clock % 60:02d}.000Z"

    def meta(self) -> str:
        return _line(
            {
                "sessionId": self.session,
                "projectHash": "0" * 64,
                "startTime": "2026-11-30T12:00:00.000Z",
                "lastUpdated": "2026-11-30T12:00:00.000Z",
                "kind": "main",
            }
        )

    def message(self, message_id: str, kind: str, text: str) -> str:
        return _line({"id": message_id, "timestamp": self._stamp(), "type": kind, "content": [{"text": text}]})

    def rewind(self, message_id: str) -> str:
        return _line({"$rewindTo": message_id})

    def append(self, *lines: str) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write("".join(lines))
