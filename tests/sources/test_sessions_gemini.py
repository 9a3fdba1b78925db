"""Gemini CLI chats, parsed from real files in tests/fixtures/sessions/gemini."""

from __future__ import annotations

import json
from pathlib import Path

from incremind_daemon.sources.sessions import (
    GeminiParser,
    Rewind,
    SessionItem,
    SessionMessage,
    SessionParser,
    parse_gemini_json,
)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "sessions" / "gemini"
JSONL = FIXTURES / "gemini.jsonl"
LEGACY = FIXTURES / "test_conversation_gemini.json"
SESSION = "0ab84937-9fe7-4284-986a-33c832af0b6a"


def feed_all(lines: list[bytes], parser: GeminiParser | None = None) -> list[SessionItem]:
    parser = parser or GeminiParser()
    return [item for line in lines for item in parser.feed(line)] + parser.flush()


def messages_of(items: list[SessionItem]) -> list[SessionMessage]:
    return [item for item in items if isinstance(item, SessionMessage)]


def apply_to_store(items: list[SessionItem]) -> dict[str, SessionMessage]:
    """What the store does: upsert by id, and on a rewind drop the target and all after it."""
    store: dict[str, SessionMessage] = {}
    for item in items:
        if isinstance(item, SessionMessage):
            store[item.message_id] = item
            continue
        order = list(store)
        cut = order.index(item.to_message_id) if item.to_message_id in store else 0
        for message_id in order[cut:]:
            del store[message_id]
    return store


def record(record_id: str, kind: str, text: str) -> bytes:
    line = {"id": record_id, "timestamp": "2026-04-23T12:00:00.000Z", "type": kind, "content": [{"text": text}]}
    return json.dumps(line).encode()


HEADER = json.dumps({"sessionId": "s1", "projectHash": "ab", "startTime": "2026-04-23T12:00:00Z"}).encode()


def test_gemini_parser_satisfies_the_session_parser_protocol() -> None:
    parser: SessionParser = GeminiParser()
    assert parser.flush() == []


def test_gemini_jsonl_chat_keeps_typed_prompt_replies_and_tool_markers() -> None:
    messages = messages_of(feed_all(JSONL.read_bytes().splitlines()))

    users = [m.text for m in messages if m.role == "user"]
    assert users == ["幫我做一個小修改 請幫我將上面確保執行時要透過 uv run 來執行 避免環境有問題"]
    replies = [m for m in messages if m.role == "assistant"]
    assert [m.message_id for m in replies] == [
        "edf94f05-ab0f-46aa-8811-d3db8103da28",
        "0752be32-e23d-4786-bc5f-e06ee1d8a56c",
    ]
    tools = [m.text for m in messages if m.role == "tool"]
    assert "write_file: GEMINI.md" in tools
    assert "replace: GEMINI.md" in tools
    assert {m.session_id for m in messages} == {SESSION}


def test_gemini_command_expansion_synthetic_turns_and_tool_output_are_dropped() -> None:
    everything = "\n".join(m.text for m in messages_of(feed_all(JSONL.read_bytes().splitlines())))

    for dropped in (
        "You are an AI agent that brings the power of Gemini",  # the /init expansion
        "Please continue",
        "Request cancelled",  # an info record
        "Current topic:",  # a functionResponse body
        "# GEMINI.md - Project Context",  # write_file content
        "Initiating File Generation",  # a thought
    ):
        assert dropped not in everything


def test_gemini_unchanged_reappended_record_is_emitted_once() -> None:
    messages = messages_of(feed_all(JSONL.read_bytes().splitlines()))
    ids = [m.message_id for m in messages]

    assert len(ids) == len(set(ids))


def test_gemini_last_copy_of_a_record_wins() -> None:
    items = feed_all([HEADER, record("a", "gemini", "draft"), record("a", "gemini", "final answer")])

    assert [m.text for m in messages_of(items)] == ["draft", "final answer"]
    assert apply_to_store(items)["a"].text == "final answer"


def test_gemini_rewind_removes_the_target_and_everything_after() -> None:
    lines = [
        HEADER,
        record("u1", "user", "first question"),
        record("g1", "gemini", "first answer"),
        record("u2", "user", "second question"),
        record("g2", "gemini", "second answer"),
        b'{"$rewindTo":"u2"}',
        record("u3", "user", "another question"),
    ]

    items = feed_all(lines)

    rewinds = [item for item in items if isinstance(item, Rewind)]
    assert rewinds == [Rewind("gemini", "s1", "u2", ("u2", "g2"))]
    assert list(apply_to_store(items)) == ["u1", "g1", "u3"]


def test_gemini_rewind_to_unknown_id_removes_every_message() -> None:
    items = feed_all([HEADER, record("u1", "user", "question"), b'{"$rewindTo":"nope"}'])

    assert items[-1] == Rewind("gemini", "s1", "nope", ("u1",))
    assert apply_to_store(items) == {}


def test_gemini_checkpoint_replaces_all_messages() -> None:
    checkpoint = {"$set": {"messages": [json.loads(record("u9", "user", "kept question"))]}}
    items = feed_all([HEADER, record("u1", "user", "old question"), json.dumps(checkpoint).encode()])

    assert isinstance(items[1], Rewind) and items[1].to_message_id is None
    assert [m.text for m in apply_to_store(items).values()] == ["kept question"]


def test_gemini_reparse_gives_identical_items() -> None:
    lines = JSONL.read_bytes().splitlines()

    assert feed_all(lines) == feed_all(lines)


def test_gemini_subagent_chat_is_flagged() -> None:
    header = json.dumps({"sessionId": "sub", "startTime": "2026-04-23T12:00:00Z", "kind": "subagent"}).encode()

    (message,) = messages_of(feed_all([header, record("x", "gemini", "done")]))

    assert message.subagent


def test_gemini_resumed_parser_primes_the_session_from_the_first_line() -> None:
    lines = JSONL.read_bytes().splitlines()
    fresh = GeminiParser()
    fresh.prime(lines[0])

    resumed = messages_of(feed_all(lines[20:], fresh))

    assert resumed and {m.session_id for m in resumed} == {SESSION}


def test_gemini_legacy_json_chat_parses_whole() -> None:
    messages = parse_gemini_json(LEGACY.read_bytes())

    assert [m.role for m in messages if m.role != "tool"] == ["user", "assistant"]
    assert messages[0].text.startswith("請幫我依照專案實際狀況更新 README.md")
    assert messages[-1].text.startswith("已經幫你整理好囉！")
    assert "write_file: CONTRIBUTING.md" in [m.text for m in messages]
    assert {m.session_id for m in messages} == {"8a20078e-2d5e-4f81-a640-9b879bbb7e6d"}


def test_gemini_legacy_json_and_its_jsonl_copy_share_ids() -> None:
    document = json.loads(LEGACY.read_bytes())
    header = {key: value for key, value in document.items() if key != "messages"}
    lines = [json.dumps(header).encode()] + [json.dumps(message).encode() for message in document["messages"]]

    from_jsonl = apply_to_store(feed_all(lines))

    assert {m.message_id: m for m in parse_gemini_json(LEGACY.read_bytes())} == from_jsonl


def test_gemini_legacy_json_that_is_not_json_yields_nothing() -> None:
    assert parse_gemini_json(b'{"sessionId": "x", "messages": [') == []
    assert parse_gemini_json(b"[]") == []


def test_gemini_unknown_records_are_skipped() -> None:
    lines = [HEADER, b'{"$set":{"memoryScratchpad":"x"}}', b'{"id":"w","type":"warning","content":"careful"}']

    assert feed_all(lines) == []


def test_gemini_commit_a_tool_call_result_shows_becomes_a_marker_with_its_hash() -> None:
    call = {
        "id": "t1",
        "name": "run_shell_command",
        "args": {"command": "git commit -m 'fix: streak'"},
        "result": [{"functionResponse": {"id": "t1", "response": {"output": "[main 5d2e8b1] fix: streak\n 1 file"}}}],
    }
    line = {"id": "g1", "timestamp": "2026-04-23T12:00:00.000Z", "type": "gemini", "content": "", "toolCalls": [call]}
    tools = [m.text for m in messages_of(feed_all([HEADER, json.dumps(line).encode()])) if m.role == "tool"]
    assert tools == ["run_shell_command: git commit -m 'fix: streak'", "git-commit: [main 5d2e8b1] fix: streak"]
