"""Claude Code transcripts, parsed from real files in tests/fixtures/sessions/claude."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from incremind_daemon.sources.sessions import ClaudeParser, SessionMessage, SessionParser

FIXTURES = Path(__file__).parent.parent / "fixtures" / "sessions" / "claude"
SHORT = FIXTURES / "short.jsonl"
TOOL_HEAVY = FIXTURES / "tool_heavy.jsonl"
OLD_INIT = FIXTURES / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
SUBAGENTS = FIXTURES / "ae4a77f8-aedd-4bc1-888f-c94edc91af04" / "subagents"
SUBAGENT = SUBAGENTS / "agent-aac57f5.jsonl"
COMPACT_HELPER = SUBAGENTS / "agent-acompact-946d2b.jsonl"
ALL_FILES = sorted(FIXTURES.rglob("*.jsonl"))


def parse_file(path: Path) -> list[SessionMessage]:
    parser = ClaudeParser.for_path(path)
    out: list[SessionMessage] = []
    offset = 0
    for line in path.read_bytes().split(b"\n"):
        out += parser.feed(line, offset=offset)
        offset += len(line) + 1
    return out + parser.flush()


def by_role(messages: list[SessionMessage], role: str) -> list[SessionMessage]:
    return [message for message in messages if message.role == role]


def lines_of(path: Path) -> list[dict[str, Any]]:  # raw records, edited to make variants
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def encode(record: dict[str, Any]) -> bytes:
    return json.dumps(record).encode()


def test_claude_parser_satisfies_the_session_parser_protocol() -> None:
    parser: SessionParser = ClaudeParser()
    assert parser.meta is None
    assert parser.resume_offset is None


def test_claude_short_transcript_yields_prompt_merged_reply_and_tool_markers() -> None:
    messages = parse_file(SHORT)

    assert [m.text for m in by_role(messages, "user")] == ["mix phx.server doesnt seem to start"]
    replies = by_role(messages, "assistant")
    assert [(m.message_id, m.text) for m in replies] == [
        (
            "msg_01MKH1ccEGrZGNPvu8pYiiQa",
            "Let me check the project structure and try running the server to see the error.",
        )
    ]
    assert replies[0].timestamp == "2026-02-10T21:11:59.186Z"  # the reply's first line
    assert [m.text for m in by_role(messages, "tool")] == [
        "Bash: mix phx.server 2>&1 | head -80",
        "Glob: mix.exs in /home/marco/projects/spotter",
    ]
    assert {m.cwd for m in messages} == {"/home/marco/projects/spotter"}
    assert {m.git_branch for m in messages} == {"master"}
    assert {m.session_id for m in messages} == {"55604662-cf2a-4331-851a-ec234028f8ca"}


def test_claude_reply_interrupted_by_tool_results_is_merged_once() -> None:
    # msg_019BN3FRqb7NU4DgBN5jdsym spans lines 33 and 36 with a tool_result between them.
    records = lines_of(TOOL_HEAVY)
    first, result, second = records[33], records[35], records[36]
    first["message"]["content"] = [{"type": "text", "text": "Reading app.js first."}]
    second["message"]["content"] = [{"type": "text", "text": "Then the upstream issue."}]
    parser = ClaudeParser()

    emitted = [*parser.feed(encode(first)), *parser.feed(encode(result)), *parser.feed(encode(second))]
    emitted += parser.flush()

    replies = by_role(emitted, "assistant")
    assert [(m.message_id, m.text) for m in replies] == [
        ("msg_019BN3FRqb7NU4DgBN5jdsym", "Reading app.js first.\n\nThen the upstream issue.")
    ]


def test_claude_tool_output_reminders_and_wrappers_never_reach_messages() -> None:
    texts = "\n".join(m.text for path in ALL_FILES for m in parse_file(path))

    for leaked in (
        "system-reminder",
        "Whenever you read a file",
        "Command running in background",
        "Web search results for query",
        'import "phoenix_html"',
        "Todos have been modified",
        "doesn't want to proceed with this tool use",
        "<command-name>",
        "local-command",
        "Kept model as",
        "Reconnected to tidewave",
        "[Request interrupted",
    ):
        assert leaked not in texts


def test_claude_meta_prompt_and_slash_command_expansion_are_dropped() -> None:
    messages = parse_file(OLD_INIT)

    assert by_role(messages, "user") == []  # "/init" and its isMeta expansion
    assert not any("will be given to future instances" in m.text for m in messages)
    assert len(by_role(messages, "assistant")) == 3
    assert "Write: /path/to/Demo/CLAUDE.md" in [m.text for m in by_role(messages, "tool")]


def test_claude_tool_heavy_session_keeps_both_typed_prompts() -> None:
    prompts = [m.text for m in by_role(parse_file(TOOL_HEAVY), "user")]

    assert prompts == [
        "start phoenix in background",
        "scrolling back in xterm.js still does not work (maybe because outer web catches it)? "
        "websearch xterm.js tmux interactions",
    ]


def test_claude_subagent_transcript_is_flagged_and_keeps_parent_session() -> None:
    messages = parse_file(SUBAGENT)

    assert messages and all(m.subagent for m in messages)
    assert {m.session_id for m in messages} == {"ae4a77f8-aedd-4bc1-888f-c94edc91af04"}
    assert len(by_role(messages, "user")) == 1
    assert len(by_role(messages, "assistant")) == 3
    assert len(by_role(messages, "tool")) == 12


def test_claude_sidechain_flag_marks_subagent_without_path_hint() -> None:
    parser = ClaudeParser()
    messages = [m for line in SUBAGENT.read_bytes().splitlines() for m in parser.feed(line)]

    assert messages and all(m.subagent for m in messages)
    assert parser.meta is not None and parser.meta.subagent


@pytest.mark.parametrize("use_path", [True, False])
def test_claude_compaction_helper_transcript_yields_nothing(use_path: bool) -> None:
    parser = ClaudeParser.for_path(COMPACT_HELPER) if use_path else ClaudeParser()

    emitted = [m for line in COMPACT_HELPER.read_bytes().splitlines() for m in parser.feed(line)]

    assert emitted + parser.flush() == []


def test_claude_compact_summary_record_is_dropped() -> None:
    record = lines_of(SHORT)[3]
    record["isCompactSummary"] = True
    record["isVisibleInTranscriptOnly"] = True
    record["message"] = {"role": "user", "content": "This session is being continued from a previous conversation."}

    assert ClaudeParser().feed(encode(record)) == []


def test_claude_system_reminder_inside_a_prompt_is_stripped() -> None:
    record = lines_of(SHORT)[3]
    record["message"] = {
        "role": "user",
        "content": [
            {"type": "text", "text": "<system-reminder>\nAs you answer, use CLAUDE.md context\n</system-reminder>"},
            {"type": "text", "text": "why does the build fail?"},
        ],
    }

    (message,) = ClaudeParser().feed(encode(record))

    assert message.text == "why does the build fail?"


def test_claude_reparse_from_start_gives_identical_messages() -> None:
    for path in ALL_FILES:
        assert parse_file(path) == parse_file(path)


def test_claude_flushed_open_reply_is_reemitted_whole_when_it_continues() -> None:
    records = lines_of(SHORT)
    parser = ClaudeParser()
    for record in records[:6]:
        parser.feed(encode(record))
    assert [m.text for m in parser.flush()] == []  # only "\n\n" and thinking so far

    parser.feed(encode(records[6]))
    snapshot = parser.flush()
    assert [m.text for m in snapshot] == [
        "Let me check the project structure and try running the server to see the error."
    ]
    extra = dict(records[6], uuid="extra-chunk")
    extra["message"] = dict(records[6]["message"], content=[{"type": "text", "text": "More."}])
    parser.feed(encode(extra))
    final = parser.flush()

    assert [(m.message_id, m.text) for m in final] == [(snapshot[0].message_id, snapshot[0].text + "\n\nMore.")]
    assert parser.flush() == []  # nothing changed since


def test_claude_resume_offset_lets_a_fresh_parser_rebuild_the_open_reply() -> None:
    data = SHORT.read_bytes()
    lines = data.split(b"\n")
    starts = [sum(len(line) + 1 for line in lines[:index]) for index in range(len(lines))]
    parser = ClaudeParser()
    for index in range(7):  # through the reply's text line, reply still open
        parser.feed(lines[index], offset=starts[index])

    assert parser.resume_offset == starts[4]  # the reply's first line
    fresh = ClaudeParser()
    fresh.prime(lines[0])
    resumed = [m for index in range(4, len(lines)) for m in fresh.feed(lines[index], offset=starts[index])]
    resumed += fresh.flush()
    whole = {m.message_id: m for m in parse_file(SHORT)}
    assert {m.message_id: m for m in resumed if m.role == "assistant"} == {
        key: m for key, m in whole.items() if m.role == "assistant"
    }


def test_claude_malformed_lines_are_logged_once_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    parser = ClaudeParser()
    good = SHORT.read_bytes().splitlines()[3]

    with caplog.at_level(logging.WARNING):
        assert parser.feed(b'{"type": "user", "message": ') == []
        assert parser.feed(b"\xff\xfe not utf-8") == []
        assert parser.feed(b"[1, 2, 3]") == []
        emitted = parser.feed(good)

    assert [m.text for m in emitted] == ["mix phx.server doesnt seem to start"]
    assert len([r for r in caplog.records if "malformed" in r.getMessage()]) == 1
    assert parser.malformed_lines == 3


def test_claude_unknown_record_types_and_blocks_are_skipped() -> None:
    records = lines_of(SHORT)
    future = dict(records[3], type="worktree-state", worktree={"path": "/x"})
    odd_block = dict(records[6])
    odd_block["message"] = dict(records[6]["message"], content=[{"type": "hologram", "data": 1}])
    parser = ClaudeParser()

    assert parser.feed(encode(future)) == []
    assert parser.feed(encode(odd_block)) == []
    assert parser.flush() == []


def test_claude_meta_reports_session_details() -> None:
    parser = ClaudeParser.for_path(SHORT)
    for line in SHORT.read_bytes().splitlines():
        parser.feed(line)

    meta = parser.meta
    assert meta is not None
    assert (meta.session_id, meta.cwd, meta.git_branch, meta.version, meta.model) == (
        "55604662-cf2a-4331-851a-ec234028f8ca",
        "/home/marco/projects/spotter",
        "master",
        "2.1.38",
        "claude-opus-4-6",
    )
    assert meta.subagent is False


def test_claude_title_records_set_the_meta_title() -> None:
    parser = ClaudeParser(session_id="s")
    parser.feed(b'{"type":"summary","summary":"Other session","leafUuid":"not-here"}')
    parser.feed(b'{"type":"custom-title","customTitle":"Fix phoenix startup","sessionId":"s"}')

    assert parser.meta is not None and parser.meta.title == "Fix phoenix startup"


def test_claude_commit_a_tool_result_shows_becomes_a_marker_with_its_hash(tmp_path: Path) -> None:
    """Of a tool's output only the line git prints for a commit is kept, so the session's state names the commit."""
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "git commit -am 'fix: geo'"}}
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "[feature/geo-timeout 3e8d1f0] fix: geo\n 1 file changed, 12 insertions(+)\nSECRET_TOKEN=abc",
    }
    stamp = {"sessionId": "s1", "cwd": "/repo", "timestamp": "2026-12-01T09:00:00Z"}
    records = [
        {**stamp, "type": "user", "uuid": "u1", "message": {"role": "user", "content": "commit it"}},
        {**stamp, "type": "assistant", "uuid": "a1", "message": {"id": "m1", "role": "assistant", "content": [call]}},
        {**stamp, "type": "user", "uuid": "u2", "message": {"role": "user", "content": [result]}},
        {**stamp, "type": "user", "uuid": "u3", "message": {"role": "user", "content": [{**result, "content": "ok"}]}},
    ]
    path = tmp_path / "s1.jsonl"
    path.write_bytes(b"\n".join(encode(record) for record in records) + b"\n")
    tools = [(m.message_id, m.text) for m in by_role(parse_file(path), "tool")]
    assert tools == [
        ("toolu_1", "Bash: git commit -am 'fix: geo'"),
        ("toolu_1/commit", "git-commit: [feature/geo-timeout 3e8d1f0] fix: geo"),
    ]
    assert "SECRET_TOKEN" not in "\n".join(text for _, text in tools)
