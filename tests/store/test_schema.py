"""Schema steps on a store made by an earlier version: rows, links and indexes survive."""

from __future__ import annotations

from pathlib import Path

import apsw

from incremind_daemon.store import insights
from incremind_daemon.store.db import connect, fetch_rows, load_vectors
from incremind_daemon.store.items import insert_source
from incremind_daemon.store.records import NewSource
from incremind_daemon.store.schema import MIGRATIONS, schema_version
from incremind_daemon.store.tokenizer import register_tokenizer

NOW = "2026-11-01T09:00:00Z"


def _store_at_version_4(path: Path) -> None:
    conn = apsw.Connection(str(path))
    conn.pragma("foreign_keys", "ON")
    load_vectors(conn)
    register_tokenizer(conn)
    for version, sql in enumerate(MIGRATIONS[:4], start=1):
        with conn:
            conn.execute(sql)
            conn.pragma("user_version", version)
    with conn:
        note = NewSource(kind="note", project="api", title="t", raw_text="x", sha256="s")
        source = insert_source(conn, note, now=NOW)
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
    assert int(conn.pragma("user_version")) == schema_version() == 6
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
