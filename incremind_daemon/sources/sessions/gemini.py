"""Read Gemini CLI chats: JSONL since v0.39 and the older whole-file ``session-*.json``.

JSONL records: a metadata line ``{sessionId, projectHash, startTime, kind, ...}``, message
records ``{id, timestamp, type, content, ...}`` that are re-appended whenever they change
(the last copy wins), ``{"$set": {...}}`` updates and ``{"$rewindTo": "<id>"}``.

What the store must do with the items:

* a ``SessionMessage`` whose id it already holds **replaces** it (upsert). The parser emits
  a record again only when its text changed, e.g. when tool calls were added.
* a ``Rewind`` deletes ``to_message_id`` and every message of the session recorded after
  it, or all of them when ``to_message_id`` is None or unknown to the store. A ``$set`` with
  ``messages`` is a checkpoint: it yields ``Rewind(to_message_id=None)`` followed by the
  surviving messages.

Tool calls become markers with id ``<record id>/<call id>``.
"""

from __future__ import annotations

import logging

from incremind_daemon.sources.sessions.cleaning import (
    JsonObject,
    RecordDecoder,
    as_object,
    clean_prompt,
    clean_reply,
    commit_marker,
    decode_object,
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
    Rewind,
    SessionFacts,
    SessionMessage,
    SessionMeta,
)

log = logging.getLogger(__name__)

AGENT = "gemini"
_ROLES = {"user": ROLE_USER, "gemini": ROLE_ASSISTANT}  # info/error/warning are UI notices


class GeminiParser:
    """Turn the lines of one Gemini CLI JSONL chat into messages and rewinds."""

    def __init__(self, *, session_id: str | None = None, cwd: str | None = None) -> None:
        self._decoder = RecordDecoder(AGENT)
        self._fallback_session = session_id
        # Chats do not record the cwd; the caller may know it from .project_root.
        self._facts = SessionFacts(cwd=cwd)
        self._last_end: int | None = None
        # record id -> ids emitted for it (message and tool markers), in first-seen order
        self._records: dict[str, list[str]] = {}
        self._emitted: dict[str, str] = {}  # emitted id -> digest of its text

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
        if record is not None and _is_metadata(record):
            self._absorb_metadata(record)

    def feed(self, line: bytes, *, offset: int | None = None) -> list[SessionMessage | Rewind]:
        record = self._decoder.decode(line)
        out = self._on_record(record) if record is not None else []
        if offset is not None:
            self._last_end = offset + len(line) + 1
        return out

    def flush(self) -> list[SessionMessage | Rewind]:
        return []

    def _on_record(self, record: JsonObject) -> list[SessionMessage | Rewind]:
        if "$rewindTo" in record:
            target = get_str(record, "$rewindTo")
            return [self._rewind(target)] if target is not None else []
        update = get_object(record, "$set")
        if update is not None:
            return self._on_set(update)
        if _is_metadata(record):
            self._absorb_metadata(record)
            return []
        if get_str(record, "id") is not None:
            return list(self._on_message(record))
        return []

    def _absorb_metadata(self, record: JsonObject) -> None:
        facts = self._facts
        facts.note("session_id", get_str(record, "sessionId"))
        facts.note("started", get_str(record, "startTime"), first=True)
        facts.note("title", get_str(record, "summary"))
        if get_str(record, "kind") == "subagent":
            facts.subagent = True
        if facts.cwd is None:  # the caller's .project_root, then the first directory
            directories = [entry for entry in get_list(record, "directories") if isinstance(entry, str)]
            facts.cwd = directories[0] if directories else None

    def _on_set(self, update: JsonObject) -> list[SessionMessage | Rewind]:
        self._facts.note("title", get_str(update, "summary"))
        if not isinstance(update.get("messages"), list):
            return []
        out: list[SessionMessage | Rewind] = [self._rewind(None)]
        for raw in get_list(update, "messages"):
            message = as_object(raw)
            if message is not None and get_str(message, "id") is not None:
                out.extend(self._on_message(message))
        return out

    def _rewind(self, target: str | None) -> Rewind:
        order = list(self._records)
        cut = order.index(target) if target in self._records else 0
        removed: list[str] = []
        for record_id in order[cut:]:
            for emitted_id in self._records.pop(record_id):
                self._emitted.pop(emitted_id, None)
                removed.append(emitted_id)
        return Rewind(AGENT, self._current_session(), target, tuple(removed))

    def _on_message(self, record: JsonObject) -> list[SessionMessage]:
        record_id = get_str(record, "id") or ""
        role = _ROLES.get(get_str(record, "type") or "")
        if role is None:
            return []
        self._facts.note("model", get_str(record, "model"))
        stamp = get_str(record, "timestamp")
        ids = self._records.setdefault(record_id, [])
        out: list[SessionMessage] = []
        text = _user_text(record) if role == ROLE_USER else clean_reply(_parts_text(record.get("content")))
        if text:
            out.extend(self._emit(ids, record_id, role, text, stamp))
        for index, raw in enumerate(get_list(record, "toolCalls")):
            call = as_object(raw)
            if call is None:
                continue
            marker = tool_marker(get_str(call, "name") or "tool", get_object(call, "args"))
            call_id = get_str(call, "id") or f"tool{index}"
            at = get_str(call, "timestamp") or stamp
            out.extend(self._emit(ids, f"{record_id}/{call_id}", ROLE_TOOL, marker, at))
            if commit := commit_marker(_call_output(call)):
                out.extend(self._emit(ids, f"{record_id}/{call_id}/commit", ROLE_TOOL, commit, at))
        return out

    def _emit(self, ids: list[str], message_id: str, role: str, text: str, stamp: str | None) -> list[SessionMessage]:
        digest = stable_digest(role, text)
        if self._emitted.get(message_id) == digest:
            return []  # a re-appended copy that changed something we do not keep
        if message_id not in self._emitted:
            ids.append(message_id)
        self._emitted[message_id] = digest
        message = SessionMessage(
            agent=AGENT,
            session_id=self._current_session(),
            message_id=message_id,
            role=role,
            text=text,
            timestamp=stamp,
            cwd=self._facts.cwd,
            subagent=self._facts.subagent,
        )
        return [message]

    def _current_session(self) -> str:
        return self._facts.current_session(self._fallback_session)


def parse_gemini_json(data: bytes, *, cwd: str | None = None) -> list[SessionMessage]:
    """Parse a pre-0.39 ``session-*.json`` chat, which Gemini rewrites whole on change.

    Ids are the same as for the JSONL copy a resumed session writes, so the store dedupes.
    """
    return read_gemini_json(data, cwd=cwd)[0]


def read_gemini_json(data: bytes, *, cwd: str | None = None) -> tuple[list[SessionMessage], SessionMeta | None]:
    """Parse a pre-0.39 ``session-*.json`` chat with what it says of itself (its start, its summary)."""
    document = decode_object(data)
    if document is None:
        log.warning("skipping a Gemini chat file that is not a JSON object")
        return [], None
    parser = GeminiParser(cwd=cwd)
    parser._absorb_metadata(document)
    out: list[SessionMessage] = []
    for raw in get_list(document, "messages"):
        message = as_object(raw)
        if message is not None and get_str(message, "id") is not None:
            out.extend(parser._on_message(message))
    return _last_copy_wins(out), parser.meta


def _call_output(call: JsonObject) -> str:
    """Return what a tool call printed: its function responses' ``output``, else its ``resultDisplay``."""
    printed = []
    for raw in get_list(call, "result"):
        response = get_object(get_object(as_object(raw) or {}, "functionResponse") or {}, "response")
        if response is not None and isinstance(output := response.get("output"), str):
            printed.append(output)
    display = call.get("resultDisplay")
    return "\n".join(printed) or (display if isinstance(display, str) else "")


def _last_copy_wins(messages: list[SessionMessage]) -> list[SessionMessage]:
    latest = {message.message_id: message for message in messages}
    return [latest[message_id] for message_id in dict.fromkeys(message.message_id for message in messages)]


def _is_metadata(record: JsonObject) -> bool:
    return get_str(record, "sessionId") is not None and "type" not in record and "id" not in record


def _user_text(record: JsonObject) -> str:
    # displayContent is what the person saw typed ("/init", "@file question"); content may be
    # an expansion. No text in it at all means the harness wrote the turn ("Please continue").
    if "displayContent" in record:
        display = _parts_text(record.get("displayContent"))
        return "" if display.startswith("/") else clean_prompt(display)
    return clean_prompt(_parts_text(record.get("content")))


def _parts_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    texts = []
    for raw in content:
        if isinstance(raw, str):
            texts.append(raw)
            continue
        part = as_object(raw)
        if part is not None and part.get("thought") is not True:
            texts.append(get_str(part, "text") or "")
    return "\n".join(text for text in texts if text).strip()
