"""The model path of the insight step through the real steps, against a chat stub on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

from incremind_daemon.config import Settings, load_settings
from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer
from incremind_daemon.pipeline.work import IngestFile
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store import insight_jobs, insights, receipts
from incremind_daemon.store.db import connect, write_transaction
from tests.chat_stub import ChatStub, Reply, candidates_reply, completion

ACTIVE = """# 主动回忆

间隔重复就是按第 1、2、4、7、15 天复习。
但是固定间隔太粗糙，应该按难度调整。
复习时先自答再翻面。
"""


def _settings(home: Path, stub: ChatStub, **model: object) -> Settings:
    return load_settings(home=home / ".incremind", model={"base_url": stub.url, "name": "stub-model", **model})


def _ingest(settings: Settings, tmp_path: Path, text: str, project: str = "study") -> None:
    path = tmp_path / "active.md"
    path.write_text(text, encoding="utf-8")
    state = StepState(settings, extract_bytes, actor="test")
    with open_writer(state) as conn:
        ingest_item(conn, state, IngestFile(path, project))


def _examine(settings: Settings) -> int:
    """Run the insight step on what waits, as `incremind ingest` does with no daemon; return how many."""
    state = StepState(settings, extract_bytes, actor="test")
    with open_writer(state) as conn:
        return examine_pending(conn, state)


def test_model_candidates_are_kept_only_with_verbatim_quotes(
    private_home: Path, tmp_path: Path, stub: ChatStub
) -> None:
    settings = _settings(private_home, stub)
    stub.script(
        candidates_reply(
            {
                "statement": "固定间隔太粗糙，应该按难度调整",
                "category": "method",
                "condition": "安排复习时",
                "quote": "但是固定间隔太粗糙，应该按难度调整。",
            },
            {"statement": "复习时先自答再翻面", "category": "method", "condition": "", "quote": "复习时先自答再翻面。"},
            {"statement": "每天复习三小时", "category": "method", "condition": "", "quote": "每天必须复习三个小时。"},
        )
    )
    _ingest(settings, tmp_path, ACTIVE)
    assert _examine(settings) == 1
    conn = connect(settings.database_path)
    made = insights.list_insights(conn, status="pending")
    assert sorted(i.statement for i in made) == ["固定间隔太粗糙，应该按难度调整", "复习时先自答再翻面"]
    assert {i.origin for i in made} == {"model"}
    for insight in made:
        [evidence] = insights.evidence_of(conn, insight.id)
        assert ACTIVE[evidence.start : evidence.end] == evidence.quote  # offsets into the stored text
    [receipt] = receipts.list_receipts(conn)
    assert (receipt.purpose, receipt.model, receipt.project, receipt.outcome) == (
        "insights",
        "stub-model",
        "study",
        "ok",
    )
    assert receipt.input_tokens > 0


def test_a_malformed_reply_keeps_the_source_waiting_with_its_reason(
    private_home: Path, tmp_path: Path, stub: ChatStub
) -> None:
    settings = _settings(private_home, stub)
    stub.script(completion("Sure! Here are some insights: spaced repetition is great."))
    _ingest(settings, tmp_path, ACTIVE)
    _examine(settings)
    conn = connect(settings.database_path)
    assert insights.list_insights(conn) == []
    counts = insight_jobs.job_counts(conn)
    assert counts.failed == 1 and counts.last_error is not None and "model" in counts.last_error
    assert receipts.list_receipts(conn)[0].outcome.startswith("error")
    # the retry comes: this time the model answers well
    with write_transaction(conn):
        conn.execute("UPDATE insight_jobs SET next_try_at = '2000-01-01T00:00:00+00:00'")
    stub.script(
        candidates_reply({"statement": "复习时先自答再翻面", "category": "method", "quote": "复习时先自答再翻面。"})
    )
    assert _examine(settings) == 1
    assert [i.statement for i in insights.list_insights(conn)] == ["复习时先自答再翻面"]
    assert insight_jobs.job_counts(conn).failed == 0


def test_a_private_project_never_reaches_a_remote_model(private_home: Path, tmp_path: Path, stub: ChatStub) -> None:
    # the stub listens on loopback, so it stands for a remote endpoint only by name: route it through one
    remote = _settings(private_home, stub, base_url="http://models.example.invalid")
    marker = remote.inbox_dir / "diary"
    marker.mkdir(parents=True)
    (marker / ".private").write_text("", encoding="utf-8")
    _ingest(remote, tmp_path, "I prefer to journal before breakfast.\n", project="diary")
    assert _examine(remote) == 1  # taken by the local rules, nothing sent anywhere
    conn = connect(remote.database_path)
    assert stub.requests == [] and receipts.list_receipts(conn) == []
    assert [i.origin for i in insights.list_insights(conn)] == ["local"]


def test_the_local_rules_take_over_when_the_budget_is_spent(private_home: Path, tmp_path: Path, stub: ChatStub) -> None:
    settings = _settings(private_home, stub, daily_token_budget=50)
    stub.script(Reply(500, {"error": "should not be asked"}))
    _ingest(settings, tmp_path, "We switched from Flask to FastAPI for the gateway.\n")
    assert _examine(settings) == 1
    conn = connect(settings.database_path)
    assert stub.requests == []
    [made] = insights.list_insights(conn)
    assert made.origin == "local" and "FastAPI" in made.statement
