"""The insight step's headless-agent path, through the real steps, against stub CLIs on PATH."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from incremind_daemon.config import Settings, load_settings
from incremind_daemon.pipeline.agent_commands import read_codex, read_gemini
from incremind_daemon.pipeline.chat import TokenUsage
from incremind_daemon.pipeline.model_extract import SYSTEM_PROMPT
from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer
from incremind_daemon.pipeline.work import IngestFile, TailSession
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.sources.sessions.discover import find_transcripts, watch_roots
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader
from incremind_daemon.store import insight_jobs, insights, receipts, sessions
from incremind_daemon.store.db import connect
from tests.agent_stubs import answer, candidates, install_agent_stub
from tests.waiting import wait_until

ACTIVE = """# 主动回忆

间隔重复就是按第 1、2、4、7、15 天复习。
但是固定间隔太粗糙，应该按难度调整。
复习时先自答再翻面。
"""
ADJUST = {
    "statement": "固定间隔太粗糙，应该按难度调整",
    "category": "method",
    "quote": "但是固定间隔太粗糙，应该按难度调整。",
}
SELF_TEST = {"statement": "复习时先自答再翻面", "category": "method", "condition": "", "quote": "复习时先自答再翻面。"}
# what each stub reports for one run: (input tokens, output tokens, model)
REPORTED = {
    "claude": (3012, 150, "claude-sonnet-4-5-20250929"),
    "codex": (8123, 211, "codex"),
    "gemini": (9020, 330, "gemini-2.5-pro"),
}


def _settings(home: Path, agent: str, **model: object) -> Settings:
    return load_settings(home=home / ".incremind", model={"agent": agent, **model}, context={"enabled": False})


def _examine(settings: Settings, tmp_path: Path, text: str = ACTIVE, project: str = "study") -> None:
    path = tmp_path / "active.md"
    path.write_text(text, encoding="utf-8")
    state = StepState(settings, extract_bytes, actor="test")
    with open_writer(state) as conn:
        ingest_item(conn, state, IngestFile(path, project))
        assert examine_pending(conn, state) == 1


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_a_good_reply_becomes_model_candidates_with_a_receipt(
    agent: str, private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = install_agent_stub(agent, tmp_path, monkeypatch)
    stub.script(candidates(ADJUST, SELF_TEST))
    settings = _settings(private_home, agent)
    _examine(settings, tmp_path)

    conn = connect(settings.database_path)
    made = insights.list_insights(conn, status="pending")
    assert sorted(i.statement for i in made) == ["固定间隔太粗糙，应该按难度调整", "复习时先自答再翻面"]
    assert {i.origin for i in made} == {"model"}
    for insight in made:
        [evidence] = insights.evidence_of(conn, insight.id)
        assert ACTIVE[evidence.start : evidence.end] == evidence.quote
    [receipt] = receipts.list_receipts(conn)
    tokens_in, tokens_out, model = REPORTED[agent]
    assert (receipt.endpoint, receipt.model, receipt.purpose, receipt.project, receipt.outcome) == (
        f"agent:{agent}",
        model,
        "insights",
        "study",
        "ok",
    )
    assert (receipt.input_tokens, receipt.output_tokens) == (tokens_in, tokens_out)  # the CLI's own figures
    [call] = stub.calls()
    runs = settings.agent_runs_dir / agent
    assert call["cwd"] == str(runs)
    assert not [name for name in ("AGENTS.md", "CLAUDE.md", "GEMINI.md") if (runs / name).exists()]
    assert "复习时先自答再翻面。" in str(call["stdin"])
    _assert_headless_flags(agent, call)


def _assert_headless_flags(agent: str, call: dict[str, object]) -> None:
    argv = call["argv"]
    env = call["env"]
    assert isinstance(argv, list) and isinstance(env, dict)
    if agent == "claude":
        assert argv[:3] == ["-p", "--output-format", "json"]
        assert argv[argv.index("--system-prompt") + 1].startswith(SYSTEM_PROMPT.split("\n", 1)[0])
        assert argv[argv.index("--tools") + 1] == ""  # no tool at all
        assert {"--no-session-persistence", "--strict-mcp-config"} <= set(argv)
        assert argv[argv.index("--setting-sources") + 1] == "local"
        assert env["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] == env["CLAUDE_CODE_DISABLE_AUTO_MEMORY"] == "1"
        assert "You keep a person's long-term memory" not in str(call["stdin"])  # it went as the system prompt
    elif agent == "codex":
        assert argv[:2] == ["exec", "--json"] and argv[-1] == "-"
        assert {"--ephemeral", "--skip-git-repo-check", "--ignore-user-config"} <= set(argv)
        assert argv[argv.index("--sandbox") + 1] == "read-only"
        assert "You keep a person's long-term memory" in str(call["stdin"])
    else:
        assert argv[argv.index("--output-format") + 1] == "json"
        assert argv[argv.index("--extensions") + 1] == "none"
        assert env["GEMINI_CLI_TRUST_WORKSPACE"] == "true"


def test_a_fabricated_quote_is_rejected(private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stub = install_agent_stub("claude", tmp_path, monkeypatch)
    made_up = {"statement": "每天复习三小时", "category": "method", "quote": "每天必须复习三个小时。"}
    stub.script(candidates(SELF_TEST, made_up))
    settings = _settings(private_home, "claude")
    _examine(settings, tmp_path)
    conn = connect(settings.database_path)
    assert [i.statement for i in insights.list_insights(conn)] == ["复习时先自答再翻面"]


def test_a_malformed_reply_is_asked_for_once_more_and_then_accepted(
    private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = install_agent_stub("codex", tmp_path, monkeypatch)
    stub.script(answer("Sure! Here are some insights: spaced repetition is great."), candidates(SELF_TEST))
    settings = _settings(private_home, "codex")
    _examine(settings, tmp_path)

    first, second = stub.calls()
    assert "could not be used" not in str(first["stdin"])
    assert "Your previous answer could not be used: the model's reply is not JSON" in str(second["stdin"])
    conn = connect(settings.database_path)
    assert [(i.statement, i.origin) for i in insights.list_insights(conn)] == [("复习时先自答再翻面", "model")]
    assert insight_jobs.job_counts(conn).failed == 0
    newest, oldest = receipts.list_receipts(conn)
    assert oldest.outcome.startswith("error: the model's reply is not JSON") and newest.outcome == "ok"
    assert newest.detail.startswith("attempt 2 of 2")


def test_a_second_malformed_reply_keeps_the_source_waiting(
    private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = install_agent_stub("gemini", tmp_path, monkeypatch)
    stub.script(answer("I cannot help with that."), answer('{"candidates": "none"}'))
    settings = _settings(private_home, "gemini")
    _examine(settings, tmp_path)
    conn = connect(settings.database_path)
    assert len(stub.calls()) == 2 and insights.list_insights(conn) == []
    counts = insight_jobs.job_counts(conn)
    assert counts.failed == 1 and counts.last_error is not None and "asked-for shape" in counts.last_error


def test_a_private_project_is_never_given_to_the_agent(
    private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = install_agent_stub("claude", tmp_path, monkeypatch)
    stub.script(candidates(SELF_TEST))
    settings = _settings(private_home, "claude")
    marker = settings.inbox_dir / "diary"
    marker.mkdir(parents=True)
    (marker / ".private").write_text("", encoding="utf-8")
    _examine(settings, tmp_path, "I prefer to journal before breakfast.\n", project="diary")
    conn = connect(settings.database_path)
    assert stub.calls() == [] and receipts.list_receipts(conn) == []
    assert [i.origin for i in insights.list_insights(conn)] == ["local"]


def test_the_local_rules_take_over_when_the_budget_is_spent(
    private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = install_agent_stub("codex", tmp_path, monkeypatch)
    stub.script(candidates(SELF_TEST))
    settings = _settings(private_home, "codex", daily_token_budget=50)
    _examine(settings, tmp_path, "We switched from Flask to FastAPI for the gateway.\n")
    conn = connect(settings.database_path)
    assert stub.calls() == []
    [made] = insights.list_insights(conn)
    assert made.origin == "local" and "FastAPI" in made.statement


def test_a_run_past_its_timeout_is_killed_and_reported(
    private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = install_agent_stub("claude", tmp_path, monkeypatch)
    stub.script(candidates(SELF_TEST, sleep=60))
    settings = _settings(private_home, "claude", agent_timeout_seconds=1.5)
    started = time.monotonic()
    _examine(settings, tmp_path)
    assert time.monotonic() - started < 20
    pids = stub.sleeping()

    def stopped() -> bool:
        """the run and the child it started are gone"""
        return not _running(pids["pid"]) and not _running(pids["child"])

    wait_until(stopped, timeout=5)
    conn = connect(settings.database_path)
    assert insights.list_insights(conn) == []
    counts = insight_jobs.job_counts(conn)
    assert counts.failed == 1 and counts.last_error is not None and "no answer within 1.5 s" in counts.last_error
    [receipt] = receipts.list_receipts(conn)
    assert receipt.outcome.startswith("error: claude gave no answer within 1.5 s and was stopped")
    assert receipt.input_tokens > 0  # the prompt went out: counted, generously, against the budget


@pytest.mark.parametrize(
    ("agent", "reply", "said"),
    [
        ("claude", answer("", error="Invalid API key · Please run /login", exit=1), "exited with status 1"),
        ("codex", answer("", error="stream disconnected before completion", exit=1), "exited with status 1"),
        ("gemini", answer("", stderr="Please set an Auth method", exit=41), "exited with status 41"),
    ],
)
def test_a_failing_agent_is_a_clear_error_in_the_receipt_and_the_status(
    agent: str, reply: dict[str, object], said: str, private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = install_agent_stub(agent, tmp_path, monkeypatch)
    stub.script(reply)
    settings = _settings(private_home, agent)
    _examine(settings, tmp_path)
    conn = connect(settings.database_path)
    [receipt] = receipts.list_receipts(conn)
    why = str(reply.get("error") or reply.get("stderr"))
    assert receipt.outcome == f"error: {agent} {said}: {why}"
    last_error = insight_jobs.job_counts(conn).last_error
    assert last_error is not None and why in last_error and "Traceback" not in last_error


def test_a_missing_executable_is_a_clear_error(
    private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    settings = _settings(private_home, "gemini", agent_command=str(tmp_path / "gone" / "gemini"))
    _examine(settings, tmp_path)
    conn = connect(settings.database_path)
    [receipt] = receipts.list_receipts(conn)
    assert receipt.outcome.startswith("error: gemini was not found")
    assert "npm install -g @google/gemini-cli" in receipt.outcome
    last_error = insight_jobs.job_counts(conn).last_error
    assert last_error is not None and "gemini was not found" in last_error


@pytest.mark.parametrize("agent", ["claude", "gemini"])
def test_the_runs_own_transcript_is_not_taken_in(
    agent: str, private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = install_agent_stub(agent, tmp_path, monkeypatch)
    stub.script(candidates(SELF_TEST, transcript=True))  # as a version that keeps headless sessions would
    settings = _settings(private_home, agent)
    _examine(settings, tmp_path)
    [transcript] = list(find_transcripts(watch_roots(settings, agents=(agent,))))
    state = StepState(settings, extract_bytes, read_session=TranscriptReader(ReadRules.from_settings(settings)))
    with open_writer(state) as conn:
        outcome = ingest_item(conn, state, TailSession(transcript.path, agent))
    assert outcome.status == "skipped" and "headless run of incremind's own insight step" in outcome.message
    conn = connect(settings.database_path)
    assert sessions.list_sessions(conn) == []


def _running(pid: int) -> bool:
    """Tell whether a process runs (a zombie waiting for its parent does not)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] != "Z"


def test_gemini_output_is_read_after_a_notice_printed_before_it() -> None:
    printed = 'Loaded cached credentials.\n{\n  "response": "{\\"candidates\\": []}",\n  "stats": {}\n}\n'
    assert read_gemini(printed).text == '{"candidates": []}'


def test_a_codex_reconnect_notice_before_the_answer_is_no_failure() -> None:
    events = [
        {"type": "thread.started", "thread_id": "t"},
        {"type": "error", "message": "Reconnecting... 1/5"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "{}"}},
        {"type": "turn.completed", "usage": {"input_tokens": 10, "cached_input_tokens": 0, "output_tokens": 2}},
    ]
    read = read_codex("".join(json.dumps(e) + "\n" for e in events))
    assert (read.text, read.error, read.usage) == ("{}", None, TokenUsage(10, 2, estimated=False))
    failed = read_codex(json.dumps({"type": "turn.failed", "error": {"message": "usage limit reached"}}))
    assert (failed.text, failed.error) == (None, "usage limit reached")


def test_a_gemini_run_folder_loads_no_context_file_and_runs_no_hook(tmp_path: Path) -> None:
    from incremind_daemon.pipeline.agent_commands import prepare_gemini

    prepare_gemini(tmp_path)
    written = json.loads((tmp_path / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert written["hooksConfig"] == {"enabled": False} and written["context"]["fileName"] != ["GEMINI.md"]
