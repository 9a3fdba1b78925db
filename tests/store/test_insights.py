"""Insight rows: review verbs with their audit trail, revisions, evidence, hotness."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import apsw
import pytest

from incremind_daemon.config import Settings
from incremind_daemon.errors import NotFound
from incremind_daemon.store import insights, items
from incremind_daemon.store.db import connect, fetch_rows, write_transaction
from incremind_daemon.store.insights import ReviewError
from incremind_daemon.store.records import Candidate, NewSource

NOW = "2026-12-01T10:00:00+00:00"
TEXT = "Review on days 1, 2, 4, 7, 15 when learning new vocabulary."


@pytest.fixture
def conn(settings: Settings) -> apsw.Connection:
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    return connect(settings.database_path)


def _source(conn: apsw.Connection) -> int:
    with write_transaction(conn):
        return items.insert_source(conn, NewSource("note", "study", "spacing", TEXT), now=NOW)


def _candidate(statement: str = "Review on days 1, 2, 4, 7, 15", category: str = "method") -> Candidate:
    return Candidate(statement, category, "when learning new vocabulary", TEXT[:29], 0, 29)


def _audit(conn: apsw.Connection, target: str) -> list[tuple[str, str]]:
    rows = fetch_rows(conn, "SELECT action, detail FROM audit WHERE target = ? ORDER BY id", (target,))
    return [(str(action), str(detail)) for action, detail in rows]


def test_review_verbs_change_state_and_leave_an_audit_trail(conn: apsw.Connection) -> None:
    source_id = _source(conn)
    with write_transaction(conn):
        first = insights.insert_insight(
            conn, project="study", candidate=_candidate(), relation="new", source_id=source_id, now=NOW
        )
        second = insights.insert_insight(
            conn,
            project="study",
            candidate=_candidate("Cram the night before"),
            relation="new",
            source_id=None,
            now=NOW,
        )
    assert insights.get_insight(conn, first).status == "pending"
    with write_transaction(conn):
        assert insights.review(conn, first, "confirm", actor="cli", now=NOW).status == "confirmed"
        assert insights.review(conn, second, "reject", actor="cli", now=NOW).status == "rejected"
        assert insights.review(conn, first, "forget", actor="cli", now=NOW).status == "forgotten"
        assert insights.review(conn, first, "restore", actor="cli", now=NOW).status == "confirmed"
    assert [a for a, _ in _audit(conn, f"ins-{first}")] == ["candidate", "confirm", "forget", "restore"]
    assert json.loads(_audit(conn, f"ins-{first}")[2][1]) == {"from": "confirmed", "to": "forgotten"}
    with pytest.raises(ReviewError, match="rejected"):
        insights.review(conn, second, "confirm", actor="cli", now=NOW)
    with pytest.raises(ReviewError, match="only forgotten or superseded"):
        insights.review(conn, first, "restore", actor="cli", now=NOW)
    with pytest.raises(NotFound):
        insights.review(conn, 999, "confirm", actor="cli", now=NOW)


def test_a_forgotten_pending_insight_is_restored_to_pending(conn: apsw.Connection) -> None:
    with write_transaction(conn):
        made = insights.insert_insight(
            conn, project="p", candidate=_candidate(), relation="new", source_id=None, now=NOW
        )
        insights.review(conn, made, "forget", actor="cli", now=NOW)
        assert insights.review(conn, made, "restore", actor="cli", now=NOW).status == "pending"


def test_edit_adds_a_revision_and_keeps_the_old_ones(conn: apsw.Connection) -> None:
    with write_transaction(conn):
        made = insights.insert_insight(
            conn, project="p", candidate=_candidate(), relation="new", source_id=None, now=NOW
        )
        edited = insights.edit_insight(
            conn, made, statement="Review on days 1, 3, 7", condition=None, actor="cli", now=NOW
        )
    assert (edited.revision, edited.statement, edited.condition) == (
        2,
        "Review on days 1, 3, 7",
        "when learning new vocabulary",
    )
    assert [r.statement for r in insights.revisions_of(conn, made)] == [
        "Review on days 1, 2, 4, 7, 15",
        "Review on days 1, 3, 7",
    ]
    # the search index follows the edit
    rows = fetch_rows(conn, "SELECT rowid FROM insights_fts WHERE insights_fts MATCH '\"3\"'")
    assert [int(r[0]) for r in rows] == [made]


def test_evidence_is_not_attached_twice_and_repeats_raise_confidence_to_a_cap(conn: apsw.Connection) -> None:
    source_id = _source(conn)
    candidate = _candidate()
    with write_transaction(conn):
        made = insights.insert_insight(
            conn, project="p", candidate=candidate, relation="new", source_id=source_id, now=NOW
        )
        assert not insights.add_evidence(conn, made, source_id=source_id, candidate=candidate, now=NOW)
        values = [insights.strengthen(conn, made, step=0.08, source_id=source_id, now=NOW) for _ in range(10)]
    assert values[0] == pytest.approx(0.58)
    assert values[-1] == pytest.approx(0.99)
    evidence = insights.evidence_of(conn, made)
    assert len(evidence) == 1 and TEXT[evidence[0].start : evidence[0].end] == evidence[0].quote


def test_hotness_halves_per_half_life_except_for_lasting_categories(conn: apsw.Connection) -> None:
    with write_transaction(conn):
        method = insights.insert_insight(
            conn, project="p", candidate=_candidate(), relation="new", source_id=None, now=NOW
        )
        liking = insights.insert_insight(
            conn,
            project="p",
            candidate=_candidate("I prefer pnpm", "preference"),
            relation="new",
            source_id=None,
            now=NOW,
        )
        insights.review(conn, method, "confirm", actor="cli", now=NOW)
        insights.review(conn, liking, "confirm", actor="cli", now=NOW)
    later = insights._parse(NOW) + timedelta(days=28)
    assert insights.effective_hotness(
        insights.get_insight(conn, method), now=later, half_life_days=14
    ) == pytest.approx(0.25)
    assert insights.effective_hotness(
        insights.get_insight(conn, liking), now=later, half_life_days=14
    ) == pytest.approx(1.0)
    with write_transaction(conn):
        insights.record_use(conn, [method], half_life_days=14, now=later.isoformat())
    used = insights.get_insight(conn, method)
    assert used.use_count == 1 and used.hotness == pytest.approx(1.25)


def test_links_record_the_relation_to_the_known_insight(conn: apsw.Connection, tmp_path: Path) -> None:
    with write_transaction(conn):
        known = insights.insert_insight(
            conn, project="p", candidate=_candidate(), relation="new", source_id=None, now=NOW
        )
        differs = insights.insert_insight(
            conn,
            project="p",
            candidate=_candidate("Fixed intervals are too coarse; adjust by difficulty"),
            relation="different",
            known_id=known,
            source_id=None,
            now=NOW,
        )
    links = insights.links_of(conn, known)
    assert [(link.from_id, link.to_id, link.relation) for link in links] == [(differs, known, "refutes")]
