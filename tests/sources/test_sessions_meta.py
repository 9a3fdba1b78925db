"""Session metadata: each parser fills every field it knows, through one SessionFacts record."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from incremind_daemon.pipeline.work import TailSession
from incremind_daemon.sources.sessions import (
    ClaudeParser,
    CodexParser,
    GeminiParser,
    SessionMessage,
    SessionMeta,
    SessionParser,
)
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader
from incremind_daemon.sources.sessions.records import SessionFacts

FIXTURES = Path(__file__).parent.parent / "fixtures" / "sessions"
CLAUDE_SUBAGENT = "claude/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl"

# Each real sample, plus a line of the agent's own format for a fact the sample never records.
SAMPLES: dict[str, tuple[str, bytes, SessionMeta]] = {
    "claude": (
        "claude/short.jsonl",
        b'{"type":"ai-title","aiTitle":"Why the server does not start"}',
        SessionMeta(
            agent="claude",
            session_id="55604662-cf2a-4331-851a-ec234028f8ca",
            cwd="/home/marco/projects/spotter",
            started="2026-02-10T21:11:52.438Z",
            model="claude-opus-4-6",
            title="Why the server does not start",
            git_branch="master",
            version="2.1.38",
        ),
    ),
    "claude-subagent": (
        CLAUDE_SUBAGENT,
        b"",
        SessionMeta(
            agent="claude",
            session_id="ae4a77f8-aedd-4bc1-888f-c94edc91af04",  # the parent session, as its folder says
            cwd="/home/USER/projects/spotter-worktrees/spotter-4te",
            started="2026-02-12T14:12:32.522Z",
            model="claude-sonnet-4-5-20250929",
            git_branch="spotter-4te",
            version="2.1.39",
            subagent=True,
        ),
    ),
    "claude-no-git": (
        "claude/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
        b"",
        SessionMeta(
            agent="claude",
            session_id="1af7fc5e-8455-4414-9ccd-011d40f70b2a",
            cwd="/path/to/Demo",
            started="2025-09-03T00:47:19.293Z",
            model="claude-sonnet-4-20250514",
            git_branch=None,  # recorded as "": not in a git repository
            version="1.0.98",
        ),
    ),
    "codex": (
        "codex/codex.jsonl",
        b'{"timestamp":"2025-09-19T10:00:00.000Z","type":"session_meta",'
        b'"payload":{"id":"01996135-afde-7911-97f0-d863511eca56","parent_thread_id":"0199-parent"}}',
        SessionMeta(
            agent="codex",
            session_id="01996135-afde-7911-97f0-d863511eca56",
            cwd="/proj/ds906659/gai/claude-code",
            started="2025-09-19T09:02:12.446Z",  # the first session_meta's, not the later one's
            model="aide-gpt-5",
            git_branch="main",
            version="0.39.0",
            subagent=True,
        ),
    ),
    "gemini": (
        "gemini/gemini.jsonl",
        b'{"$set":{"summary":"Write GEMINI.md for the bot"}}',
        SessionMeta(
            agent="gemini",
            session_id="0ab84937-9fe7-4284-986a-33c832af0b6a",
            cwd=None,  # Gemini chats do not record it; the reader takes it from .project_root
            started="2026-04-23T12:52:52.759Z",
            model="gemini-3.1-pro-preview",
            title="Write GEMINI.md for the bot",
        ),
    ),
}


def parser_for(agent: str, path: Path) -> SessionParser:
    if agent == "claude":
        return ClaudeParser.for_path(path)
    if agent == "codex":
        return CodexParser.for_path(path)
    return GeminiParser()


def sample_lines(relative: str, extra: bytes) -> list[bytes]:
    return (FIXTURES / relative).read_bytes().splitlines() + ([extra] if extra else [])


@pytest.mark.parametrize("case", sorted(SAMPLES))
def test_parser_meta_holds_every_fact_of_a_real_sample(case: str) -> None:
    relative, extra, expected = SAMPLES[case]
    parser = parser_for(expected.agent, FIXTURES / relative)
    for line in sample_lines(relative, extra):
        parser.feed(line)
    parser.flush()

    assert parser.meta == expected


@pytest.mark.parametrize("case", sorted(SAMPLES))
def test_reader_reports_the_parser_meta_and_gemini_project_root(tmp_path: Path, case: str) -> None:
    relative, extra, expected = SAMPLES[case]
    path = tmp_path / "agents" / relative
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\n".join(sample_lines(relative, extra)) + b"\n")
    (path.parent / ".project_root").write_text("/home/me/bot\n")  # read for Gemini chats only
    read = TranscriptReader(ReadRules(home=tmp_path / "home", exclude=(), projects={}))

    found = read(TailSession(path, expected.agent), None)

    assert found.meta == replace(expected, cwd=expected.cwd or "/home/me/bot")


def test_reader_meta_for_a_markdown_chat_names_its_folder(tmp_path: Path) -> None:
    chat = tmp_path / "repo" / ".aider.chat.history.md"
    chat.parent.mkdir()
    shutil.copy(FIXTURES / "aider" / ".aider.chat.history.md", chat)
    read = TranscriptReader(ReadRules(home=tmp_path / "home", exclude=(), projects={}))

    found = read(TailSession(chat, "aider"), None)

    session_ids = {item.session_id for item in found.items if isinstance(item, SessionMessage)}
    assert found.meta is not None and session_ids == {found.meta.session_id}
    assert found.meta == SessionMeta("aider", found.meta.session_id, cwd=str(chat.parent))


@pytest.mark.parametrize(
    ("values", "first", "kept"),
    [
        (["a", None, "", "b"], False, "b"),  # the latest non-empty value wins
        (["a", None, "", "b"], True, "a"),
        ([None, "", None], False, None),
    ],
)
def test_session_facts_note_keeps_the_latest_or_first_non_empty_value(
    values: list[str | None], first: bool, kept: str | None
) -> None:
    facts = SessionFacts()
    for value in values:
        facts.note("model", value, first=first)

    assert facts.model == kept


def test_session_facts_meta_needs_a_session_id_recorded_or_given() -> None:
    facts = SessionFacts(cwd="/w")

    assert facts.meta("codex", None) is None
    assert facts.meta("codex", "from-path") == SessionMeta("codex", "from-path", cwd="/w")
    facts.note("session_id", "recorded")
    assert facts.meta("codex", "from-path") == SessionMeta("codex", "recorded", cwd="/w")


def test_reader_meta_of_a_legacy_gemini_chat_says_when_it_started(tmp_path: Path) -> None:
    path = tmp_path / "agents" / ".gemini" / "tmp" / "bot" / "chats" / "session-2025-09-18T02-57-8a20078e.json"
    path.parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "gemini" / "test_conversation_gemini.json", path)
    (path.parent.parent / ".project_root").write_text("/home/me/bot\n")
    read = TranscriptReader(ReadRules(home=tmp_path / "home", exclude=(), projects={}))

    found = read(TailSession(path, "gemini"), None)

    assert found.meta is not None
    assert (found.meta.session_id, found.meta.started, found.meta.cwd) == (
        "8a20078e-2d5e-4f81-a640-9b879bbb7e6d",
        json.loads(path.read_bytes())["startTime"],
        "/home/me/bot",
    )
