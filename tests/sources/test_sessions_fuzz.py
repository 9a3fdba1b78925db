"""No input line, however odd, makes a session parser raise or emit a malformed item."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from incremind_daemon.sources.sessions import (
    ClaudeParser,
    CodexParser,
    GeminiParser,
    Rewind,
    SessionItem,
    SessionMessage,
    SessionParser,
    parse_chat_markdown,
    parse_gemini_json,
)

FACTORIES: dict[str, Callable[[], SessionParser]] = {
    "claude": ClaudeParser,
    "codex": CodexParser,
    "gemini": GeminiParser,
}
# Field names and values the real formats use, so generated records reach the deep branches.
KEYS = [
    "type", "message", "content", "role", "text", "id", "uuid", "sessionId", "timestamp", "cwd",
    "payload", "name", "input", "args", "arguments", "toolCalls", "displayContent", "isMeta",
    "isSidechain", "agentId", "$set", "$rewindTo", "messages", "ordinal", "kind", "call_id",
    "command", "file_path", "summary", "leafUuid", "model", "gitBranch", "git", "thought",
]  # fmt: skip
WORDS = [
    "user", "assistant", "gemini", "text", "tool_use", "tool_result", "message", "response_item",
    "event_msg", "user_message", "session_meta", "turn_context", "function_call", "custom_tool_call",
    "summary", "plain", "subagent", "acompact-1", "<synthetic>", "*** Begin Patch",
    "<system-reminder>x</system-reminder>", "\ud800", "",
]  # fmt: skip
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.sampled_from(WORDS) | st.text()
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    max_leaves=10,
)
RECORDS = st.dictionaries(st.sampled_from(KEYS), JSON, max_size=6).map(lambda value: json.dumps(value).encode())
LINES = st.lists(st.binary(max_size=80) | RECORDS, max_size=8)


def assert_well_formed(items: list[SessionItem]) -> None:
    for item in items:
        if isinstance(item, Rewind):
            assert isinstance(item.removed_ids, tuple)
            continue
        assert isinstance(item, SessionMessage)
        assert item.role in ("user", "assistant", "tool")
        assert item.text.strip()
        item.text.encode("utf-8")  # storable


@settings(max_examples=150, deadline=None)
@given(lines=LINES, agent=st.sampled_from(sorted(FACTORIES)))
def test_parsers_never_raise_on_arbitrary_lines(lines: list[bytes], agent: str) -> None:
    parser = FACTORIES[agent]()
    items: list[SessionItem] = []
    for index, line in enumerate(lines):
        if index == 0:
            parser.prime(line)
        items.extend(parser.feed(line, offset=index * 1000))
    items.extend(parser.flush())

    assert_well_formed(items)
    assert parser.resume_offset is None or parser.resume_offset >= 0


@settings(max_examples=100, deadline=None)
@given(document=st.binary(max_size=200) | JSON.map(lambda value: json.dumps({"messages": value}).encode()))
def test_legacy_gemini_json_never_raises(document: bytes) -> None:
    assert_well_formed(list(parse_gemini_json(document)))


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(["#", " ", ">", "\n", "/", "a", "中", "`"]) | st.characters(exclude_categories=["Cs"])
    )
)
def test_chat_markdown_never_raises(text: str) -> None:
    assert_well_formed(list(parse_chat_markdown(text, session_id="s")))


FIXTURES = Path(__file__).parent.parent / "fixtures" / "sessions"
REAL_RECORDS = {
    agent: [
        json.loads(line)
        for path in sorted((FIXTURES / agent).rglob("*.jsonl"))
        for line in path.read_bytes().splitlines()
    ]
    for agent in FACTORIES
}


def mutate(data: st.DataObject, value: object) -> object:
    """Replace one nested value of a real record by an arbitrary JSON value."""
    if isinstance(value, dict) and value and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(value)))
        return {**value, key: mutate(data, value[key])}
    if isinstance(value, list) and value and data.draw(st.booleans()):
        index = data.draw(st.integers(0, len(value) - 1))
        return [*value[:index], mutate(data, value[index]), *value[index + 1 :]]
    return data.draw(JSON)


@settings(max_examples=150, deadline=None)
@given(agent=st.sampled_from(sorted(FACTORIES)), data=st.data())
def test_parsers_survive_mutated_real_records(agent: str, data: st.DataObject) -> None:
    records = REAL_RECORDS[agent]
    start = data.draw(st.integers(0, len(records) - 1))
    window = [mutate(data, record) for record in records[start : start + 6]]
    parser = FACTORIES[agent]()

    items = [item for record in window for item in parser.feed(json.dumps(record).encode())]

    assert_well_formed(items + list(parser.flush()))
