"""Read Claude Code transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

Claude Code writes one API reply over several consecutive ``assistant`` lines, one content
block each, all sharing ``message.id``; tool results and progress lines may sit between
them. The parser merges the text blocks of one ``message.id`` into a single assistant
message and emits it when another reply or a user prompt starts, or on ``flush()``.

Split replies and the tailer: call ``flush()`` after feeding everything currently in the
file, so a reply still being written becomes visible. The parser keeps that reply open;
when more of its lines arrive, it emits the whole reply again under the same
``message_id``, and the store **upserts: the same message_id replaces the text**.
``resume_offset`` points at the first line of the open reply, so a fresh parser after a
restart rebuilds the reply whole instead of overwriting it with its tail.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from incremind_daemon.sources.sessions.cleaning import (
    JsonObject,
    RecordDecoder,
    as_object,
    clean_prompt,
    clean_reply,
    commit_marker,
    get_list,
    get_object,
    get_str,
    stable_digest,
    tool_marker,
)
from incremind_daemon.sources.sessions.records import (
    ROLE_ASSISTANT,
    ROLE_TOOL,
    ROLE_USER,
    SessionFacts,
    SessionMessage,
    SessionMeta,
)

log = logging.getLogger(__name__)

AGENT = "claude"
_RECENT_REPLIES = 8  # closed replies that may still continue after an interleaved one
_COMPACT_AGENT_PREFIX = "acompact"  # the compaction helper's transcript: a summary, not dialogue
_SKIPPED_USER_FLAGS = ("isMeta", "isCompactSummary", "isVisibleInTranscriptOnly")
_TITLE_TYPES = {"custom-title": "customTitle", "ai-title": "aiTitle"}


@dataclass(slots=True)
class _Reply:
    """An assistant reply being assembled from its per-block lines."""

    message_id: str
    session_id: str
    timestamp: str | None
    cwd: str | None
    git_branch: str | None
    subagent: bool
    start_offset: int | None
    chunks: list[str] = field(default_factory=list)
    chunk_keys: set[str] = field(default_factory=set)
    emitted: str | None = None

    def text(self) -> str:
        return "\n\n".join(chunk for chunk in self.chunks if chunk)


class ClaudeParser:
    """Turn the lines of one Claude Code transcript into session messages."""

    def __init__(self, *, session_id: str | None = None, subagent: bool = False) -> None:
        self._decoder = RecordDecoder(AGENT)
        self._fallback_session = session_id
        self._facts = SessionFacts(subagent=subagent)  # a sidechain record can make it one later
        self._open: _Reply | None = None
        self._recent: OrderedDict[str, _Reply] = OrderedDict()
        self._last_end: int | None = None
        self._skip_file = False
        self._seen_uuids: set[str] = set()
        self._pending_summaries: dict[str, str] = {}

    @classmethod
    def for_path(cls, path: Path) -> ClaudeParser:
        """Build a parser for a transcript path, reading session and subagent from it."""
        in_subagents = path.parent.name == "subagents"
        is_agent_file = path.name.startswith("agent-")
        parser = cls(
            session_id=path.parent.parent.name if in_subagents else (None if is_agent_file else path.stem),
            subagent=in_subagents or is_agent_file,
        )
        parser._skip_file = path.name.startswith(f"agent-{_COMPACT_AGENT_PREFIX}")
        return parser

    @property
    def malformed_lines(self) -> int:
        return self._decoder.malformed

    @property
    def meta(self) -> SessionMeta | None:
        return self._facts.meta(AGENT, self._fallback_session)

    @property
    def resume_offset(self) -> int | None:
        if self._open is not None and self._open.start_offset is not None:
            return self._open.start_offset
        return self._last_end

    def prime(self, line: bytes) -> None:
        record = self._decoder.decode(line)
        if record is not None:
            self._absorb_envelope(record)

    def feed(self, line: bytes, *, offset: int | None = None) -> list[SessionMessage]:
        record = self._decoder.decode(line)
        out: list[SessionMessage] = []
        if record is not None:
            self._absorb_envelope(record)
            if not self._skip_file:
                out = self._on_record(record, offset)
        if offset is not None:
            self._last_end = offset + len(line) + 1
        return out

    def flush(self) -> list[SessionMessage]:
        """Emit the open reply as it stands now; it stays open for continuation lines."""
        if self._open is None:
            return []
        return self._emit_reply(self._open)

    def _absorb_envelope(self, record: JsonObject) -> None:
        facts = self._facts
        facts.note("session_id", get_str(record, "sessionId"))
        facts.note("cwd", get_str(record, "cwd"))
        branch = get_str(record, "gitBranch")
        if branch is not None:
            facts.git_branch = branch or None  # "" means "not in a git repository": it clears
        facts.note("version", get_str(record, "version"))
        facts.note("started", get_str(record, "timestamp"), first=True)
        if record.get("isSidechain") is True:
            facts.subagent = True
        agent_id = get_str(record, "agentId")
        if agent_id is not None and agent_id.startswith(_COMPACT_AGENT_PREFIX):
            self._skip_file = True
        uuid = get_str(record, "uuid")
        if uuid is not None:
            self._seen_uuids.add(uuid)
            facts.note("title", self._pending_summaries.pop(uuid, None))

    def _on_record(self, record: JsonObject, offset: int | None) -> list[SessionMessage]:
        kind = get_str(record, "type")
        if kind == "assistant":
            return self._on_assistant(record, offset)
        if kind == "user":
            return self._on_user(record)
        if kind in _TITLE_TYPES:
            self._facts.note("title", get_str(record, _TITLE_TYPES[kind]))
        elif kind == "summary":
            self._on_summary(record)
        return []

    def _on_summary(self, record: JsonObject) -> None:
        # A known bug wrote other sessions' summaries into files: trust only a local leaf.
        summary, leaf = get_str(record, "summary"), get_str(record, "leafUuid")
        if summary is None or leaf is None:
            return
        if leaf in self._seen_uuids:
            self._facts.title = summary  # the local leaf vouches for it: taken as written, even ""
        else:
            self._pending_summaries[leaf] = summary

    def _on_user(self, record: JsonObject) -> list[SessionMessage]:
        if any(record.get(flag) is True for flag in _SKIPPED_USER_FLAGS):
            return []
        message = get_object(record, "message")
        if message is None:
            return []
        text = clean_prompt(_user_text(message.get("content")))
        if not text:
            return self._commits(record, message.get("content"))  # tool results, command wrappers, injected context
        out = self._close_open()
        uuid = get_str(record, "uuid") or stable_digest(get_str(record, "timestamp") or "", text)
        out.append(self._message(record, uuid, ROLE_USER, text))
        return out

    def _commits(self, record: JsonObject, content: object) -> list[SessionMessage]:
        """Return a marker for each commit the record's tool results say git made ("[main 3e8d1f0] fix: …")."""
        out = []
        for raw in content if isinstance(content, list) else []:
            block = as_object(raw)
            if block is None or get_str(block, "type") != "tool_result":
                continue
            if marker := commit_marker(block.get("content")):
                tool_id = get_str(block, "tool_use_id") or stable_digest(marker)
                out.append(self._message(record, f"{tool_id}/commit", ROLE_TOOL, marker))
        return out

    def _on_assistant(self, record: JsonObject, offset: int | None) -> list[SessionMessage]:
        message = get_object(record, "message")
        if message is None or get_str(message, "model") == "<synthetic>" or record.get("isApiErrorMessage") is True:
            return []  # harness-made notices such as "API Error" or "No response requested."
        self._facts.note("model", get_str(message, "model"))
        uuid = get_str(record, "uuid") or ""
        message_id = get_str(message, "id") or uuid
        if not message_id:
            return []
        reply, out = self._switch_reply(record, message_id, offset)
        content = message.get("content")
        blocks: list[object] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else get_list(message, "content")
        )
        for index, raw in enumerate(blocks):
            block = as_object(raw)
            if block is None:
                continue
            block_type = get_str(block, "type")
            if block_type == "text":
                key = f"{uuid}/{index}"  # a line seen twice must not double the text
                if key not in reply.chunk_keys:
                    reply.chunk_keys.add(key)
                    reply.chunks.append(clean_reply(get_str(block, "text") or ""))
            elif block_type in ("tool_use", "server_tool_use"):
                name = get_str(block, "name") or "tool"
                tool_id = get_str(block, "id") or f"{message_id}/tool{index}"
                marker = tool_marker(name, get_object(block, "input"))
                out.append(self._message(record, tool_id, ROLE_TOOL, marker))
        return out

    def _switch_reply(
        self, record: JsonObject, message_id: str, offset: int | None
    ) -> tuple[_Reply, list[SessionMessage]]:
        if self._open is not None and self._open.message_id == message_id:
            return self._open, []
        out = self._close_open()
        reopened = self._recent.pop(message_id, None)
        reply = reopened or _Reply(
            message_id=message_id,
            session_id=self._current_session(),
            timestamp=get_str(record, "timestamp"),
            cwd=self._facts.cwd,
            git_branch=self._facts.git_branch,
            subagent=self._facts.subagent,
            start_offset=offset,
        )
        self._open = reply
        return reply, out

    def _close_open(self) -> list[SessionMessage]:
        reply, self._open = self._open, None
        if reply is None:
            return []
        self._recent[reply.message_id] = reply
        while len(self._recent) > _RECENT_REPLIES:
            self._recent.popitem(last=False)
        return self._emit_reply(reply)

    def _emit_reply(self, reply: _Reply) -> list[SessionMessage]:
        text = reply.text()
        if not text or text == reply.emitted:
            return []
        reply.emitted = text
        return [
            SessionMessage(
                agent=AGENT,
                session_id=reply.session_id,
                message_id=reply.message_id,
                role=ROLE_ASSISTANT,
                text=text,
                timestamp=reply.timestamp,
                cwd=reply.cwd,
                git_branch=reply.git_branch,
                subagent=reply.subagent,
            )
        ]

    def _message(self, record: JsonObject, message_id: str, role: str, text: str) -> SessionMessage:
        return SessionMessage(
            agent=AGENT,
            session_id=self._current_session(),
            message_id=message_id,
            role=role,
            text=text,
            timestamp=get_str(record, "timestamp"),
            cwd=self._facts.cwd,
            git_branch=self._facts.git_branch,
            subagent=self._facts.subagent,
        )

    def _current_session(self) -> str:
        return self._facts.current_session(self._fallback_session)


def _user_text(content: object) -> str:
    """Join the typed text of a user message; tool results and images carry none."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for raw in content:
        block = as_object(raw)
        if block is not None and get_str(block, "type") == "text":
            parts.append(clean_prompt(get_str(block, "text") or ""))
    return "\n\n".join(part for part in parts if part)
