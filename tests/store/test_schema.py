"""Schema steps on a store made by an earlier version: rows, links, indexes and session states survive."""

from __future__ import annotations

from pathlib import Path

import apsw

from incremind_daemon.store import insights, recall, vectors
from incremind_daemon.store.db import connect, fetch_rows, load_vectors
from incremind_daemon.store.items import insert_source, upsert_summary
from incremind_daemon.store.records import NewSource, NewSummary
from incremind_daemon.store.schema import MIGRATIONS, schema_version
from incremind_daemon.store.sessions import SessionInfo, upsert_session
from incremind_daemon.store.snapshots import SnapshotParts
from incremind_daemon.store.tokenizer import register_tokenizer

NOW = "2026-11-01T09:00:00Z"


def _store_at_version(path: Path, version: int) -> apsw.Connection:
    conn = apsw.Connection(str(path))
    conn.pragma("foreign_keys", "ON")
    load_vectors(conn)
    register_tokenizer(conn)
    for step, sql in enumerate(MIGRATIONS[:version], start=1):
        with conn:
            conn.execute(sql)
            conn.pragma("user_version", step)
    return conn


def _old_note(conn: apsw.Connection, sha: str) -> int:
    """Store a note as a store before v10 could (no ``dated`` column)."""
    conn.execute(
        "INSERT INTO sources (kind, project, title, sha256, raw_text, pages, created_at, last_seen_at) "
        "VALUES ('note', 'api', 't', ?, 'x', '[]', ?, ?)",
        (sha, NOW, NOW),
    )
    return int(conn.last_insert_rowid())


def _store_at_version_4(path: Path) -> None:
    conn = _store_at_version(path, 4)
    with conn:
        source = _old_note(conn, "s")
        for statement, category, status in (
            ("Prefers small commits", "preference", "confirmed"),
            ("Run make check before pushing", "method", "pending"),
        ):
            conn.execute(
                "INSERT INTO insights (project, category, statement, status, created_at, updated_at, relation) "
                "VALUES ('api', ?, ?, ?, ?, ?, 'new')",
                (category, statement, status, NOW, NOW),
            )
        conn.execute(
            'INSERT INTO insight_sources (insight_id, source_id, quote, start, "end", added_at) '
            "VALUES (1, ?, 'x', 0, 1, ?)",
            (source, NOW),
        )
        conn.execute("INSERT INTO links (from_id, to_id, relation, at) VALUES (2, 1, 'supplements', ?)", (NOW,))
    conn.close()


def test_a_version_4_store_gains_scopes_and_keeps_its_insights(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    _store_at_version_4(path)
    conn = connect(path)
    assert int(conn.pragma("user_version")) == schema_version() == 12
    pref, method = insights.get_insight(conn, 1), insights.get_insight(conn, 2)
    assert (pref.statement, pref.status, pref.scope) == ("Prefers small commits", "confirmed", "global")
    assert (method.status, method.scope) == ("pending", "project")  # only the lasting categories were shared
    assert [e.source_id for e in insights.evidence_of(conn, 1)] == [1]
    assert [(link.from_id, link.to_id) for link in insights.links_of(conn, 1)] == [(2, 1)]
    assert list(conn.execute("PRAGMA foreign_key_check")) == []
    assert bool(conn.pragma("foreign_keys"))
    hits = fetch_rows(conn, "SELECT rowid FROM insights_fts WHERE insights_fts MATCH 'commits'")
    assert [int(row[0]) for row in hits] == [1]
    with conn:  # the rebuilt table's triggers keep the index in step
        conn.execute("UPDATE insights SET statement = 'Prefers tiny commits' WHERE id = 1")
    assert fetch_rows(conn, "SELECT rowid FROM insights_fts WHERE insights_fts MATCH 'tiny'") == [(1,)]
    conn.close()


# what SessionSnapshot.render() wrote as a session's summary before v7
RENDERED = (
    "Goal: Move the billing service to FastAPI\n"
    "Done: ported /invoices; ported /customers\n"
    "Decisions: keep SQLAlchemy 2.0\n"
    "Next: port the Stripe webhook\n"
    "Files: src/app/billing.py, tests/test_billing.py"
)


def _store_at_version_6(path: Path) -> None:
    conn = _store_at_version(path, 6)
    with conn:
        for sid, at in (("s1", "2026-10-30T09:00:00Z"), ("s2", "2026-10-31T09:00:00Z")):
            info = SessionInfo("claude", sid, "api", f"session {sid}", f"/t/{sid}.jsonl")
            source_id = upsert_session(conn, info, now=at)
            conn.execute("UPDATE sessions SET last_message_at = ? WHERE source_id = ?", (at, source_id))
        upsert_summary(conn, 1, NewSummary("Move billing to FastAPI", RENDERED), now=NOW)  # s2 is not summarized yet
        note = _old_note(conn, "n")
        upsert_summary(conn, note, NewSummary("a note", "Goal: not a session"), now=NOW)
    conn.close()


def test_a_version_6_store_keeps_its_sessions_state_as_parts(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    _store_at_version_6(path)
    conn = connect(path)
    assert int(conn.pragma("user_version")) == schema_version()
    states = recall.latest_sessions(conn, project="api", private=frozenset(), limit=5)
    assert [(s.source_id, s.index_line) for s in states] == [(1, "Move billing to FastAPI")]
    assert states[0].snapshot == SnapshotParts(
        "Move the billing service to FastAPI",
        ("ported /invoices", "ported /customers"),
        ("keep SQLAlchemy 2.0",),
        ("port the Stripe webhook",),
        ("src/app/billing.py", "tests/test_billing.py"),
    )
    # a session summarized later gets its parts then; the summary text itself is unchanged
    assert fetch_rows(conn, "SELECT source_id, snapshot IS NULL FROM sessions ORDER BY source_id") == [(1, 0), (2, 1)]
    assert fetch_rows(conn, "SELECT summary FROM summaries WHERE source_id = 1") == [(RENDERED,)]
    conn.close()


def test_a_summary_renewed_while_its_embedding_waits_is_queued_once(tmp_path: Path) -> None:
    """The upsert's ABORT policy overrides a trigger's OR IGNORE: the queue's triggers must not conflict."""
    conn = connect(tmp_path / "memory.db")
    with conn:
        vectors.register_model(conn, "m", "m", 4, now=NOW)
        note = insert_source(conn, NewSource(kind="note", project="api", title="t", raw_text="x", sha256="s"), now=NOW)
        summary = upsert_summary(conn, note, NewSummary("first", "the first summary"), now=NOW)
    for text in ("renewed once", "renewed twice"):
        with conn:
            upsert_summary(conn, note, NewSummary(text, text), now=NOW)
    queued = fetch_rows(conn, "SELECT kind, item FROM embed_queue WHERE model_key = 'm' AND kind = 'summary'")
    assert queued == [("summary", summary)]
    conn.close()


def test_a_version_11_store_stops_embedding_messages_and_drops_their_queue(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    old = _store_at_version(path, 11)
    with old:
        vectors.register_model(old, "tiny:8:test", "tiny", 8, now=NOW)
        source_id = upsert_session(old, SessionInfo("claude", "s1", "api", "t", "/t.jsonl"), now=NOW)
        old.execute(
            "INSERT INTO messages (source_id, message_id, seq, role, text, at) VALUES (?, 'm1', 1, 'user', 'hi', ?)",
            (source_id, NOW),
        )
    assert fetch_rows(old, "SELECT count(*) FROM embed_queue WHERE kind = 'message'") == [(1,)]
    old.close()
    conn = connect(path)
    try:
        assert fetch_rows(conn, "SELECT count(*) FROM embed_queue WHERE kind = 'message'") == [(0,)]
        with conn:
            conn.execute(
                "INSERT INTO messages (source_id, message_id, seq, role, text, at) "
                "VALUES (?, 'm2', 2, 'user', 'yo', ?)",
                (source_id, NOW),
            )
        assert fetch_rows(conn, "SELECT count(*) FROM embed_queue WHERE kind = 'message'") == [(0,)]
    finally:
        conn.close()
