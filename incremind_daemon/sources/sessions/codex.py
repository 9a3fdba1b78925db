"""Read OpenAI Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl[.zst]``).

Every line is ``{"timestamp", "type", "payload"}``. The person's prompt is taken from
``event_msg``/``user_message`` (the clean copy; the ``response_item`` copy sits among
injected AGENTS.md and ``<environment_context>`` messages) and the reply from
``response_item``/``message`` with role ``assistant`` (``event_msg``/``agent_message``
repeats it). Older rollouts without the envelope (a bare meta first line, then bare
response items) are read from their response items [community: Sinity/polylogue docs].

Message ids do not depend on the position in the file, so a ``.jsonl.zst`` archive and its
re-inflated ``.jsonl`` give the same ids: ``o<ordinal>`` when the line has an ``ordinal``,
else ``<timestamp>/<role>/<digest of text>``; tool markers use the ``call_id``. Nothing is
buffered, so ``flush()`` returns nothing.
"""

from __future__ import annotations

import importlib
import io
import logging
import re
from pathlib import Path
from typing import BinaryIO, cast

from incremind_daemon.errors import ExtractError
from incremind_daemon.sources.sessions.cleaning import (
    JsonObject,
    RecordDecoder,
    as_object,
    clean_prompt,
    clean_reply,
    commit_marker,
    decode_object,
    get_int,
    get_list,
    get_object,
    get_str,
    patch_marker,
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

AGENT = "codex"
_ROLLOUT_ID = re.compile(
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl(?:\.zst)?$"
)
_BARE_ITEM_TYPES = frozenset({"message", "function_call", "custom_tool_call", "local_shell_call", "web_search_call"})


class CodexParser:
    """Turn the lines of one Codex rollout into session messages."""

    def __init__(self, *, session_id: str | None = None) -> None:
        self._decoder = RecordDecoder(AGENT)
        self._fallback_session = session_id
        self._facts = SessionFacts()
        self._enveloped = False
        self._line_index = 0
        self._last_end: int | None = None

    @classmethod
    def for_path(cls, path: Path) -> CodexParser:
        """Build a parser whose session id comes from the rollout file name."""
        match = _ROLLOUT_ID.search(path.name)
        return cls(session_id=match.group(1) if match else None)

    @property
    def malformed_lines(self) -> int:
        return self._decoder.malformed

    @property
    def meta(self) -> SessionMeta | None:
        return self._facts.meta(AGENT, self._fallback_session)

    @property
    def resume_offset(self) -> int | None:
        return self._last_end

    def prime(self, line: bytes) -> None:
        record = self._decoder.decode(line)
        if record is not None:
            self._on_record(record)

    def feed(self, line: bytes, *, offset: int | None = None) -> list[SessionMessage]:
        record = self._decoder.decode(line)
        out = self._on_record(record) if record is not None else []
        self._line_index += 1
        if offset is not None:
            self._last_end = offset + len(line) + 1
        return out

    def flush(self) -> list[SessionMessage]:
        return []

    def _on_record(self, record: JsonObject) -> list[SessionMessage]:
        kind = get_str(record, "type")
        payload = get_object(record, "payload")
        if payload is None:
            return self._on_bare(record, kind)
        self._enveloped = True
        stamp = get_str(record, "timestamp")
        ordinal = get_int(record, "ordinal")
        if kind == "session_meta":
            self._on_session_meta(payload)
        elif kind == "turn_context":
            self._facts.note("cwd", get_str(payload, "cwd"))
            self._facts.note("model", get_str(payload, "model"))
        elif kind == "event_msg" and get_str(payload, "type") == "user_message":
            if get_str(payload, "kind") in (None, "plain"):  # older builds tagged injected context
                return self._message(ROLE_USER, clean_prompt(get_str(payload, "message") or ""), stamp, ordinal)
        elif kind == "response_item":
            return self._on_item(payload, stamp, ordinal)
        return []

    def _on_bare(self, record: JsonObject, kind: str | None) -> list[SessionMessage]:
        # The envelope-less layout of 2025 builds: a meta line, then response items.
        if kind is None and get_str(record, "id") is not None and self._facts.session_id is None:
            self._on_session_meta(record)
            return []
        if kind in _BARE_ITEM_TYPES and not self._enveloped:
            return self._on_item(record, get_str(record, "timestamp"), None)
        return []

    def _on_session_meta(self, payload: JsonObject) -> None:
        facts = self._facts
        facts.note("session_id", get_str(payload, "id"))
        facts.note("cwd", get_str(payload, "cwd"))
        facts.note("started", get_str(payload, "timestamp"), first=True)
        facts.note("version", get_str(payload, "cli_version"))
        git = get_object(payload, "git")
        if git is not None:
            facts.note("git_branch", get_str(git, "branch"))
        if get_str(payload, "parent_thread_id"):
            facts.subagent = True

    def _on_item(self, item: JsonObject, stamp: str | None, ordinal: int | None) -> list[SessionMessage]:
        item_type = get_str(item, "type")
        if item_type == "message":
            role = get_str(item, "role")
            if role == ROLE_ASSISTANT:
                return self._message(ROLE_ASSISTANT, clean_reply(_content_text(item)), stamp, ordinal)
            if role == ROLE_USER and not self._enveloped:
                return self._message(ROLE_USER, clean_prompt(_content_text(item)), stamp, ordinal)
            return []  # developer/system instructions, or the duplicate user copy
        if item_type in ("function_call_output", "custom_tool_call_output"):
            marker = commit_marker(_call_output(item.get("output")))
            call_id = get_str(item, "call_id")
            return [self._build(f"{call_id}/commit", ROLE_TOOL, marker, stamp)] if marker and call_id else []
        marker = _tool_marker(item, item_type)
        if marker is None:
            return []
        call_id = get_str(item, "call_id") or get_str(item, "id")
        message_id = call_id or f"{stamp or f'L{self._line_index}'}/tool/{stable_digest(marker)}"
        return [self._build(message_id, ROLE_TOOL, marker, stamp)]

    def _message(self, role: str, text: str, stamp: str | None, ordinal: int | None) -> list[SessionMessage]:
        if not text:
            return []
        if ordinal is not None:
            message_id = f"o{ordinal}"
        elif stamp is not None:
            message_id = f"{stamp}/{role}/{stable_digest(text)}"
        else:
            message_id = f"L{self._line_index}/{role}"  # bare layout: no time, the line number is all there is
        return [self._build(message_id, role, text, stamp)]

    def _build(self, message_id: str, role: str, text: str, stamp: str | None) -> SessionMessage:
        return SessionMessage(
            agent=AGENT,
            session_id=self._facts.current_session(self._fallback_session),
            message_id=message_id,
            role=role,
            text=text,
            timestamp=stamp,
            cwd=self._facts.cwd,
            git_branch=self._facts.git_branch,
            subagent=self._facts.subagent,
        )


def _content_text(item: JsonObject) -> str:
    parts = []
    for raw in get_list(item, "content"):
        block = as_object(raw)
        if block is not None and get_str(block, "type") in ("input_text", "output_text", "text"):
            parts.append(get_str(block, "text") or "")
    return "\n\n".join(part.strip() for part in parts if part.strip())


def _call_output(output: object) -> object:
    """Return a call's printed output: the string itself, or the ``output`` of one encoded as JSON."""
    if isinstance(output, str) and output.startswith("{"):
        decoded = decode_object(output)
        return decoded.get("output") if decoded is not None else output
    return output


def _tool_marker(item: JsonObject, item_type: str | None) -> str | None:
    if item_type == "function_call":
        name = get_str(item, "name") or "tool"
        return tool_marker(name, decode_object(get_str(item, "arguments") or ""))
    if item_type == "custom_tool_call":
        name, given = get_str(item, "name") or "tool", get_str(item, "input") or ""
        if "*** Begin Patch" in given:
            return patch_marker(name, given)
        return tool_marker(name, decode_object(given) or {"input": given})
    if item_type == "local_shell_call":
        return tool_marker("shell", get_object(item, "action"))
    if item_type == "web_search_call":
        return tool_marker("web_search", get_object(item, "action"))
    return None


def open_rollout(path: Path) -> BinaryIO:
    """Open a rollout for reading, inflating ``.jsonl.zst`` archives on the fly.

    A compressed rollout cannot be tailed by byte offset: read it from the start and rely on
    message ids, which equal those of the plain file.
    """
    if not path.name.endswith(".zst"):
        return path.open("rb")
    try:
        zstd = importlib.import_module("compression.zstd")  # Python 3.14+
    except ImportError:
        pass
    else:
        return cast(BinaryIO, zstd.open(path, "rb"))
    try:
        zstandard = importlib.import_module("zstandard")
    except ImportError as exc:
        raise ExtractError(
            f"{path} is a zstd-compressed Codex rollout and no zstd decoder is available; "
            "install the 'zstandard' package or run on Python 3.14 or newer"
        ) from exc
    raw = path.open("rb")
    reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
    return cast(BinaryIO, io.BufferedReader(reader))


def has_zstd_decoder() -> bool:
    """Tell whether ``open_rollout`` can read ``.jsonl.zst`` files in this Python."""
    for name in ("compression.zstd", "zstandard"):
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        return True
    return False
