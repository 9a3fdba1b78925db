"""The incremental-insight step end to end: files in, only increments pending, confirm, repeats strengthen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incremind_daemon import cli
from incremind_daemon.config import Settings
from incremind_daemon.pipeline.insights import save_memory
from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer
from incremind_daemon.pipeline.work import IngestFile
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store import insights, items
from incremind_daemon.store.db import connect, fetch_rows
from incremind_daemon.store.records import SaveRequest

SPACING_EN = """# Spaced repetition

Spaced repetition fights the forgetting curve. When learning new vocabulary, review on days 1, 2, 4, 7, 15.
Each review should be short.
"""
ACTIVE_EN = """# Active recall and adaptive intervals

Spaced repetition means reviewing on days 1, 2, 4, 7 and 15.
But fixed intervals are too coarse; adjust the interval by difficulty instead.
Always answer from memory before flipping the card.
"""
SPACING_ZH = """# 间隔重复

间隔重复可以对抗遗忘曲线。背单词的时候，按第 1、2、4、7、15 天复习。
"""
ACTIVE_ZH = """# 主动回忆

间隔重复就是按第 1、2、4、7、15 天复习。
但是固定间隔太粗糙，应该按难度调整。
复习时先自答再翻面。
"""


def _ingest(settings: Settings, tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert cli.main(["ingest", str(path), "--project", "study"]) == 0


def _pending(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    capsys.readouterr()
    assert cli.main(["pending", "--json"]) == 0
    data: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return data


@pytest.mark.parametrize(
    ("first", "second", "method", "different", "new"),
    [
        (SPACING_EN, ACTIVE_EN, "1, 2, 4, 7, 15", "too coarse", "answer from memory"),
        (SPACING_ZH, ACTIVE_ZH, "1、2、4、7、15", "太粗糙", "先自答再翻面"),
    ],
    ids=["en", "zh"],
)
def test_a_second_note_yields_only_its_increments(
    settings: Settings,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    first: str,
    second: str,
    method: str,
    different: str,
    new: str,
) -> None:
    _ingest(settings, tmp_path, "spacing.md", first)
    proposed = _pending(capsys)
    spacing = [p for p in proposed if method in str(p["statement"])]
    assert spacing and spacing[0]["category"] == "method"
    evidence = spacing[0]["evidence"]
    assert isinstance(evidence, list) and first[evidence[0]["start"] : evidence[0]["end"]] == evidence[0]["quote"]
    assert cli.main(["confirm", "--all", "--project", "study"]) == 0

    _ingest(settings, tmp_path, "active.md", second)
    after = _pending(capsys)
    statements = [str(p["statement"]) for p in after]
    assert not any(method in s and different not in s for s in statements), statements  # no restatement
    differs = [p for p in after if different in str(p["statement"])]
    assert differs and differs[0]["kind"] == "different"
    assert isinstance(differs[0]["relates_to"], dict) and differs[0]["relates_to"]["id"] == spacing[0]["id"]
    assert any(new in s for s in statements)
    known = insights.get_insight(connect(settings.database_path), int(str(spacing[0]["id"]).split("-")[1]))
    assert known.confidence > 0.5  # the restatement strengthened it
    assert len(insights.evidence_of(connect(settings.database_path), known.id)) == 2


MINUTES_0414 = """# Team meeting 14.04.2026

## Decisions
1. Raw carrier events are kept for 90 days, then deleted by a nightly job.
"""
MINUTES_0428 = """# Team meeting 28.04.2026

## Decisions
1. Retention: raw carrier events contain recipient addresses, so we keep them for 30 days only.
"""


def test_a_later_meetings_decision_replaces_an_earlier_ones(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tune49: a meeting's decision is settled when its minutes are written, so a later meeting's changes an
    earlier one's; a note's view with no such standing still only differs (above)."""
    _ingest(settings, tmp_path, "team-meeting-2026-04-14.md", MINUTES_0414)
    assert cli.main(["confirm", "--all", "--project", "study"]) == 0
    _ingest(settings, tmp_path, "team-meeting-2026-04-28.md", MINUTES_0428)
    changed = [p for p in _pending(capsys) if "30 days" in str(p["statement"])]
    assert changed and changed[0]["kind"] == "supersedes", changed


def test_repeating_a_file_creates_nothing_and_adds_a_source(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _ingest(settings, tmp_path, "a.md", "I prefer pnpm over npm for every Node project.\n")
    assert cli.main(["confirm", "--all"]) == 0
    _ingest(settings, tmp_path, "b.md", "Reminder: I prefer pnpm over npm for every Node project!\n")
    assert _pending(capsys) == []
    conn = connect(settings.database_path)
    [confirmed] = insights.list_insights(conn, status="confirmed")
    assert len(insights.evidence_of(conn, confirmed.id)) == 2
    assert confirmed.confidence == pytest.approx(0.58)


def test_a_rejected_candidate_is_not_proposed_again(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _ingest(settings, tmp_path, "a.md", "We decided to deploy on Fridays after the standup.\n")
    [candidate] = _pending(capsys)
    assert cli.main(["reject", str(candidate["id"])]) == 0
    _ingest(settings, tmp_path, "b.md", "Note again: we decided to deploy on Fridays after the standup.\n")
    assert _pending(capsys) == []


def test_review_commands_and_history(settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _ingest(settings, tmp_path, "a.md", "The staging API listens on port 8443.\n")
    [candidate] = _pending(capsys)
    ident = str(candidate["id"])
    assert cli.main(["edit", ident, "Staging API: port 8443", "--condition", "when calling staging"]) == 0
    assert cli.main(["confirm", ident]) == 0
    assert cli.main(["forget", ident]) == 0
    assert cli.main(["restore", ident]) == 0
    assert cli.main(["confirm", ident]) == 1  # already confirmed: a clear error, nothing changes
    capsys.readouterr()
    assert cli.main(["history", ident, "--json"]) == 0
    history = json.loads(capsys.readouterr().out)
    assert [a["action"] for a in history["audit"]] == ["candidate", "edit", "confirm", "forget", "restore"]
    assert [r["statement"] for r in history["revisions"]][-1] == "Staging API: port 8443"
    assert cli.main(["insights", "--status", "confirmed", "--json"]) == 0
    [shown] = json.loads(capsys.readouterr().out)
    assert shown["condition"] == "when calling staging"
    assert cli.main(["confirm", "pas-3"]) == 1
    assert cli.main(["confirm"]) == 1


def test_save_reports_new_then_repeat_and_is_searchable_at_once(settings: Settings) -> None:
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    conn = connect(settings.database_path)
    first = save_memory(conn, settings, SaveRequest("用户偏好用 pnpm 而不是 npm", project="web", actor="mcp:test"))
    assert (first.relation, first.status) == ("new", "pending")
    again = save_memory(conn, settings, SaveRequest("用户偏好用 pnpm 而不是 npm。", project="web", trusted=True))
    assert (again.relation, again.known_id, again.status) == ("repeat", first.insight_id, "confirmed")
    rows = fetch_rows(conn, "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH '\"pnpm\"'")
    assert int(rows[0][0]) == 2
    with pytest.raises(Exception, match="empty"):
        save_memory(conn, settings, SaveRequest("   "))


@pytest.mark.parametrize(
    ("note", "statement"),
    [
        (
            "Remember: for ledger-api, never log full account numbers; mask all but the last 4 digits.",
            "For ledger-api, never log full account numbers; mask all but the last 4 digits",
        ),
        ("记住：ledger-api 的对账任务每天凌晨 2 点跑。", "ledger-api 的对账任务每天凌晨 2 点跑"),
    ],
)
def test_a_saved_note_is_one_statement_without_the_words_that_ask_to_keep_it(
    settings: Settings, note: str, statement: str
) -> None:
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    conn = connect(settings.database_path)
    saved = save_memory(conn, settings, SaveRequest(note, project="ledger-api"))
    assert saved.insight_id is not None
    assert insights.get_insight(conn, saved.insight_id).statement == statement
    assert items.get_source(conn, saved.source_id).raw_text == note  # the note itself is kept as said


def test_a_saved_note_is_stored_without_its_credentials(settings: Settings) -> None:
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    conn = connect(settings.database_path)
    note = f"The CI bot token is GITHUB_TOKEN={key}; rotate it monthly."
    save_memory(conn, settings, SaveRequest(note, project="ci"))
    texts = fetch_rows(
        conn, "SELECT raw_text FROM sources UNION ALL SELECT text FROM chunks UNION ALL SELECT statement FROM insights"
    )
    conn.close()
    assert texts and all(key not in str(row[0]) for row in texts)
    assert any("[REDACTED:github_token]" in str(row[0]) for row in texts)


def test_a_session_is_examined_only_in_the_persons_new_messages(settings: Settings, tmp_path: Path) -> None:
    state = StepState(settings, extract_bytes, actor="test")
    with open_writer(state) as conn:
        path = tmp_path / "n.md"
        path.write_text("We switched from Flask to FastAPI for the gateway.\n", encoding="utf-8")
        ingest_item(conn, state, IngestFile(path, "api"))
        assert examine_pending(conn, state) == 1
        assert examine_pending(conn, state) == 0  # done once, not again
    conn = connect(settings.database_path)
    [made] = insights.list_insights(conn, status="pending")
    assert "FastAPI" in made.statement and made.project == "api"


def test_only_confirmed_insights_answer_searches(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _ingest(settings, tmp_path, "a.md", "The staging API listens on port 8443.\n")
    [candidate] = _pending(capsys)

    def insight_hits() -> list[dict[str, object]]:
        capsys.readouterr()
        assert cli.main(["search", "staging port", "--json", "--tier", "insight"]) == 0
        found: list[dict[str, object]] = json.loads(capsys.readouterr().out)
        return found

    assert insight_hits() == []  # pending: not yet something the person knows
    assert cli.main(["confirm", str(candidate["id"])]) == 0
    [hit] = insight_hits()
    assert hit["id"] == candidate["id"] and hit["tier"] == "insight"
    assert isinstance(hit["source"], dict) and hit["source"]["id"] == "src-1"
    conn = connect(settings.database_path)
    assert insights.get_insight(conn, int(str(hit["id"]).split("-")[1])).use_count == 1  # a returned hit is use
    assert cli.main(["show", str(hit["id"])]) == 0
    assert cli.main(["forget", str(hit["id"])]) == 0
    assert insight_hits() == []
