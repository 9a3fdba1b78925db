"""Agent transcripts into memory, in process: real reader, real worker, real database."""

from __future__ import annotations

import functools
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import apsw
import pytest

from incremind_daemon import cli
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.ops.backfill import plan_backfill
from incremind_daemon.pipeline.sessions import take_session
from incremind_daemon.pipeline.steps import StepState, ingest_item, open_writer, summarize_due
from incremind_daemon.pipeline.work import Outcome, TailSession, WorkItem
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader
from incremind_daemon.store.db import connect
from tests.transcripts import ClaudeLog, CodexLog, GeminiLog

SAMPLES = Path(__file__).parent / "fixtures" / "sessions"
TakeIn = Callable[[WorkItem], Outcome]  # the ingest step on the test's own write connection


@pytest.fixture
def state(settings: Settings) -> StepState:
    return StepState(settings, extract_bytes, read_session=TranscriptReader(ReadRules.from_settings(settings)))


@pytest.fixture
def take_in(state: StepState) -> Iterator[TakeIn]:
    """Take items in on this thread, as the one writer, the way `incremind backfill` does with no daemon."""
    with open_writer(state) as conn:
        yield functools.partial(ingest_item, conn, state)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "work" / "billing-api"
    (folder / ".git").mkdir(parents=True)
    (folder / "src").mkdir()
    return folder


def read_db(settings: Settings, sql: str) -> list[tuple[object, ...]]:
    conn: apsw.Connection = connect(settings.database_path, readonly=True)
    try:
        return list(conn.execute(sql).fetchall())
    finally:
        conn.close()


def message_count(settings: Settings) -> int:
    return int(str(read_db(settings, "SELECT count(*) FROM messages WHERE dropped = 0")[0][0]))


def search(capsys: pytest.CaptureFixture[str], query: str, *extra: str) -> list[dict[str, object]]:
    assert cli.main(["search", query, "--json", *extra]) == 0
    hits: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return hits


def test_claude_messages_are_searchable_with_agent_session_and_project(
    take_in: TakeIn, settings: Settings, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "11111111-2222-3333-4444-555555555555", str(repo / "src"))
    log.append(
        log.user("u1", "把数据库连接池的大小改成 20，然后跑一下测试"),
        log.assistant("a1", "msg_1", "已修改 pool_size 为 20，测试全部通过。"),
    )
    outcome = take_in(TailSession(log.path, "claude"))
    assert outcome.status == "added" and outcome.passages == 2
    hits = search(capsys, "连接池", "--tier", "raw")
    assert hits, "the user message is found in the raw tier"
    source = hits[0]["source"]
    assert isinstance(source, dict)
    assert (source["agent"], source["session_id"], source["project"]) == ("claude", log.session, "billing-api")
    assert search(capsys, "pool_size", "--tier", "organized")


def test_rereading_a_transcript_adds_nothing(take_in: TakeIn, settings: Settings, repo: Path) -> None:
    log = CodexLog(settings.sessions.codex.dir or Path(), "019b64e5-57fa-7463-b644-fba7e456f905", str(repo))
    log.append(log.meta(), log.user("rename the config loader"), log.assistant("Renamed it to load_settings."))
    take_in(TailSession(log.path, "codex"))
    assert message_count(settings) == 2
    conn = connect(settings.database_path)
    with conn:
        conn.execute("DELETE FROM tail_files")  # forget the mark: the whole file is read again
    conn.close()
    take_in(TailSession(log.path, "codex"))
    assert message_count(settings) == 2


def test_truncated_log_line_is_retried_after_append(take_in: TakeIn, settings: Settings, repo: Path) -> None:
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "22222222-2222-3333-4444-555555555555", str(repo))
    whole = log.user("u1", "first question about the parser") + log.user("u2", "second question about redaction")
    cut = len(whole.encode()) - 20
    log.path.write_bytes(whole.encode()[:cut])
    take_in(TailSession(log.path, "claude"))
    assert message_count(settings) == 1
    with log.path.open("ab") as handle:
        handle.write(whole.encode()[cut:])
    take_in(TailSession(log.path, "claude"))
    texts = [row[0] for row in read_db(settings, "SELECT text FROM messages ORDER BY seq")]
    assert texts == ["first question about the parser", "second question about redaction"]


def test_file_replaced_by_shorter_one_is_reread_without_duplicates(
    take_in: TakeIn, settings: Settings, repo: Path
) -> None:
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "33333333-2222-3333-4444-555555555555", str(repo))
    first = log.user("u1", "keep this message")
    log.append(first, log.user("u2", "a long second message " * 10), log.user("u3", "and a third"))
    take_in(TailSession(log.path, "claude"))
    log.path.write_text(first + log.user("u4", "new"), encoding="utf-8")
    take_in(TailSession(log.path, "claude"))
    ids = [row[0] for row in read_db(settings, "SELECT message_id FROM messages ORDER BY seq")]
    assert len(ids) == len(set(ids)) == 4


def test_gemini_rewind_drops_messages_from_search(
    take_in: TakeIn, settings: Settings, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = GeminiLog(settings.sessions.gemini.dir or Path(), "0ab84937-9fe7-4284-986a-33c832af0b6a", str(repo))
    log.append(
        log.meta(),
        log.message("m1", "user", "explain the zebra cache"),
        log.message("m2", "gemini", "The zebra cache keeps hot rows."),
        log.message("m3", "user", "now talk about the walrus index"),
    )
    take_in(TailSession(log.path, "gemini"))
    assert search(capsys, "walrus")
    log.append(log.rewind("m3"))
    take_in(TailSession(log.path, "gemini"))
    assert not search(capsys, "walrus")
    assert search(capsys, "zebra")[0]["source"]["project"] == "billing-api"  # type: ignore[index]


def test_secrets_are_redacted_before_storing(
    take_in: TakeIn, settings: Settings, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "44444444-2222-3333-4444-555555555555", str(repo))
    log.append(log.user("u1", f"use OPENAI_API_KEY={key} for the billing job"))
    take_in(TailSession(log.path, "claude"))
    stored = read_db(settings, "SELECT text FROM messages")[0][0]
    assert key not in str(stored) and "[REDACTED" in str(stored)
    assert not search(capsys, key)


def test_session_inside_the_incremind_home_is_skipped(take_in: TakeIn, settings: Settings) -> None:
    log = ClaudeLog(
        settings.sessions.claude.dir or Path(), "55555555-2222-3333-4444-555555555555", str(settings.home_dir / "inbox")
    )
    log.append(log.user("u1", "this is the daemon talking to itself"))
    assert take_in(TailSession(log.path, "claude")).status == "skipped"
    assert message_count(settings) == 0


def test_real_samples_are_taken_in(state: StepState, settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    claude = settings.sessions.claude.dir or Path()
    target = claude / "projects" / "-home-marco-projects-spotter" / "55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "short.jsonl", target)
    with open_writer(state) as conn:
        assert ingest_item(conn, state, TailSession(target, "claude")).status == "added"
        assert summarize_due(conn, state, force=True) == 1
    assert cli.main(["sessions", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["agent"] == "claude" and listed[0]["project"] == "spotter" and listed[0]["index_line"]
    assert cli.main(["show", "55604662"]) == 0
    shown = capsys.readouterr().out
    assert "phx.server" in shown and "tool_result" not in shown and "<system-reminder>" not in shown


def test_backfill_dry_run_counts_and_stores_nothing(
    settings: Settings, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "66666666-2222-3333-4444-555555555555", str(repo))
    log.append(log.user("u1", "hello there, plan the migration"), log.assistant("a1", "msg_1", "Here is a plan."))
    assert cli.main(["backfill", "--dry-run", "--json"]) == 0
    totals = json.loads(capsys.readouterr().out)
    assert (totals["files"], totals["messages"]) == (1, 2) and totals["characters"] > 20
    assert not settings.database_path.exists() or message_count(settings) == 0
    assert cli.main(["backfill", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["messages"] == 2
    assert message_count(settings) == 2


def test_a_backfill_on_the_default_embedder_proposes_what_only_the_lasting_model_reads(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INCREMIND_EMBEDDING__BACKEND", "use-m3")  # the product's default, off in the other tests
    settings = load_settings()
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "88888888-2222-3333-4444-555555555555", str(repo))
    said = "Dependencies are managed with poetry, so poetry add / poetry run, not pip."
    log.append(log.user("u1", f"{said} Can you look at the failing test?"), log.assistant("a1", "msg_1", "Fixed."))
    assert cli.main(["backfill", "--json"]) == 0
    capsys.readouterr()
    assert cli.main(["pending", "--json"]) == 0
    pending = json.loads(capsys.readouterr().out)
    assert any("poetry" in str(item["statement"]) for item in pending), pending


def test_chat_log_folder_is_read_as_sessions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = tmp_path / "code" / "tool"
    code.mkdir(parents=True)
    shutil.copy(SAMPLES / "aider" / ".aider.chat.history.md", code / ".aider.chat.history.md")
    chat_logs = [{"dir": str(tmp_path / "code"), "agent": "aider", "pattern": ".aider.chat.history.md"}]
    settings = load_settings(sessions={"chat_logs": chat_logs})
    state = StepState(settings, extract_bytes, read_session=TranscriptReader(ReadRules.from_settings(settings)))
    with open_writer(state) as conn:
        planned = plan_backfill(settings, agent=None, since=None)
        assert [t.agent for t, _ in planned] == ["aider"]
        outcome = ingest_item(conn, state, TailSession(planned[0][0].path, "aider"))
    assert outcome.status == "added" and outcome.passages > 0
    assert cli.main(["sessions", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["agent"] == "aider"


def test_project_mapping_and_exclude_rules_apply(repo: Path) -> None:
    settings = load_settings(sessions={"projects": {str(repo): "billing"}, "exclude": [str(repo.parent / "secret*")]})
    claude = settings.sessions.claude.dir or Path()
    state = StepState(settings, extract_bytes, read_session=TranscriptReader(ReadRules.from_settings(settings)))
    with open_writer(state) as conn:
        mapped = ClaudeLog(claude, "77777777-2222-3333-4444-555555555555", str(repo / "src"))
        mapped.append(mapped.user("u1", "mapped project message"))
        assert ingest_item(conn, state, TailSession(mapped.path, "claude")).project == "billing"
        hidden = ClaudeLog(claude, "88888888-2222-3333-4444-555555555555", str(repo.parent / "secret-work"))
        hidden.append(hidden.user("u1", "never stored"))
        assert ingest_item(conn, state, TailSession(hidden.path, "claude")).status == "skipped"
    assert message_count(settings) == 1


def test_status_lists_each_agent_source(
    take_in: TakeIn, settings: Settings, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "99999999-2222-3333-4444-555555555555", str(repo))
    log.append(log.user("u1", "status check message"), log.assistant("a1", "msg_1", "ok"))
    take_in(TailSession(log.path, "claude"))
    log.append(log.user("u2", "not read yet"))
    assert cli.main(["status", "--json"]) == 3
    by_agent = {s["agent"]: s for s in json.loads(capsys.readouterr().out)["sessions"]}
    assert set(by_agent) == {"claude", "codex", "gemini"}
    claude = by_agent["claude"]
    assert (claude["files_tracked"], claude["messages"], claude["exists"]) == (1, 2, True)
    assert claude["unread_bytes"] > 0 and claude["errors"] == 0


def test_a_complete_transcript_ending_in_tool_output_is_not_behind(
    settings: Settings, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The open reply is read again from its start when the file grows, but its bytes are read: not behind."""
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "99999999-2222-3333-4444-666666666666", str(repo))
    tool_use = json.loads(log.assistant("a2", "msg_2", "running the tests"))
    tool_use["message"]["content"] = [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]
    tool_result = json.loads(log.user("u2", ""))
    tool_result["message"]["content"] = [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py\nb.py"}]
    log.append(
        log.user("u1", "run the tests please"),
        log.assistant("a1", "msg_2", "I will run them."),
        json.dumps(tool_use) + "\n",
        json.dumps(tool_result) + "\n",
    )
    conn = connect(settings.database_path)
    try:
        read = TranscriptReader(ReadRules.from_settings(settings))
        outcome, _more = take_session(conn, TailSession(log.path, "claude"), read=read, default_project="daily")
    finally:
        conn.close()
    assert outcome.status == "added"

    def claude_status() -> dict[str, int]:
        cli.main(["status", "--json"])
        return {s["agent"]: s for s in json.loads(capsys.readouterr().out)["sessions"]}["claude"]

    assert claude_status()["unread_bytes"] == 0
    log.append(log.user("u3", "and now?"))
    assert claude_status()["unread_bytes"] == len(log.user("u4", "and now?").encode())


def test_a_hit_from_a_session_carries_the_session_date(
    settings: Settings, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "99999999-2222-3333-4444-777777777777", str(repo))
    log.append(log.user("u1", "the staging database moved to port 6543"), log.assistant("a1", "msg_1", "Noted."))
    conn = connect(settings.database_path)
    try:
        read = TranscriptReader(ReadRules.from_settings(settings))
        take_session(conn, TailSession(log.path, "claude"), read=read, default_project="daily")
    finally:
        conn.close()
    hits = search(capsys, "staging database port")
    dates = {str(hit["source"]["date"])[:10] for hit in hits}  # type: ignore[index]
    assert hits and dates == {"2026-11-30"}  # the day the transcript says the session started
