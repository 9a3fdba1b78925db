"""A session's state reaches a context block item by item, from a real store."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from incremind_daemon.config import InsightSettings
from incremind_daemon.pipeline.sessions import summarize_session
from incremind_daemon.pipeline.snapshot import Turn, snapshot_session
from incremind_daemon.serve.context.gather import gather_context, no_scrub
from incremind_daemon.serve.context.render import render_context_block
from incremind_daemon.store import recall, sessions
from incremind_daemon.store.db import connect, fetch_rows
from incremind_daemon.store.sessions import NewMessage, SessionInfo
from tests.store.test_snapshots import AWKWARD, add_session

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)


def test_state_items_with_separators_and_label_lines_reach_the_block_whole(tmp_path: Path) -> None:
    conn = connect(tmp_path / "memory.db")
    try:
        add_session(conn, "s1", AWKWARD)
        recall_settings = InsightSettings()
        data = gather_context(
            conn, project="api", agent="claude", private=frozenset(), now=NOW, insights=recall_settings, scrub=no_scrub
        )
    finally:
        conn.close()
    lines = render_context_block(data, 2_000).text.splitlines()

    assert [line for line in lines if line.startswith("- ")] == [
        "- Goal: Rewrite the CSV export; keep the old columns, in order",
        "- Progress: ported /invoices; /customers too; Quoted the ticket: Goal: ship v2 by Friday Decisions: none; "
        "ran the suite",
        "- Decisions: keep commas, semicolons; and quotes as written",
        "- Next: raise the timeout to 30 s; then retry",
    ]


def test_summarizing_a_session_stores_its_snapshot_as_parts_and_as_text(tmp_path: Path) -> None:
    turns = [
        Turn("user", "Please make the CSV export keep the old columns; the finance team imports it."),
        Turn("assistant", "I updated export.py; the columns are back in the old order, and the tests pass."),
        Turn("user", "Great. Next, add a header row, please."),
    ]
    conn = connect(tmp_path / "memory.db")
    try:
        with conn:
            source_id = sessions.upsert_session(conn, SessionInfo("claude", "s1", "api", "t", "/t.jsonl"), now="x")
            messages = [NewMessage(f"m{i}", t.role, t.text, f"2026-11-30T21:0{i}:00Z") for i, t in enumerate(turns)]
            sessions.upsert_messages(conn, source_id, messages)
        summarize_session(conn, source_id, now="2026-11-30T21:30:00Z")
        [state] = recall.latest_sessions(conn, project="api", private=frozenset())
        text = fetch_rows(conn, "SELECT summary FROM summaries WHERE source_id = ?", (source_id,))
    finally:
        conn.close()
    snapshot = snapshot_session(turns)

    assert snapshot.goal and state.snapshot == snapshot.parts()
    assert text == [(snapshot.render(),)]  # what search finds and `show` prints
