"""A session's state snapshot is stored as parts and read back as written, on a real store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest

from incremind_daemon.store import recall
from incremind_daemon.store.db import connect, fetch_rows
from incremind_daemon.store.records import NewSummary
from incremind_daemon.store.sessions import SessionInfo, save_session_summary, upsert_session
from incremind_daemon.store.snapshots import SnapshotParts, parse_rendered_snapshot, snapshot_from_json, snapshot_json

NOW = "2026-11-30T21:30:00Z"

# items that the rendered text could not carry: its own separators, and lines that look like its labels
AWKWARD = SnapshotParts(
    goal="Rewrite the CSV export; keep the old columns, in order",
    done=(
        "ported /invoices; /customers too",
        "Quoted the ticket:\nGoal: ship v2 by Friday\nDecisions: none",
        "ran the suite",
    ),
    decisions=("keep commas, semicolons; and quotes as written",),
    next_steps=("raise the timeout to 30 s; then retry",),
    files=("notes, draft.md", "src/export.py"),
)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[apsw.Connection]:
    connection = connect(tmp_path / "memory.db")
    yield connection
    connection.close()


def add_session(conn: apsw.Connection, sid: str, state: SnapshotParts, *, at: str = NOW) -> int:
    with conn:
        source_id = upsert_session(conn, SessionInfo("claude", sid, "api", "t", f"/t/{sid}.jsonl"), now=at)
        conn.execute("UPDATE sessions SET last_message_at = ? WHERE source_id = ?", (at, source_id))
        save_session_summary(conn, source_id, NewSummary("Rewrite the CSV export", "rendered text"), state, now=at)
    return source_id


def test_session_state_reads_back_as_written_when_items_hold_separators_and_labels(conn: apsw.Connection) -> None:
    source_id = add_session(conn, "s1", AWKWARD)

    [state] = recall.latest_sessions(conn, project="api", private=frozenset())

    assert (state.source_id, state.snapshot) == (source_id, AWKWARD)


def test_session_state_is_replaced_when_summarized_again(conn: apsw.Connection) -> None:
    add_session(conn, "s1", AWKWARD)
    newer = SnapshotParts("Rewrite the CSV export", next_steps=("ship it",))

    add_session(conn, "s1", newer)

    assert [s.snapshot for s in recall.latest_sessions(conn, project="api", private=frozenset())] == [newer]
    assert fetch_rows(conn, "SELECT count(*) FROM summaries") == [(1,)]


@pytest.mark.parametrize("stored", [None, "not json", "[1, 2]", '{"goal": 3, "done": "x", "next": ["a", 4]}'])
def test_a_missing_or_damaged_snapshot_reads_as_the_empty_state_or_its_sound_parts(stored: str | None) -> None:
    expected = SnapshotParts(next_steps=("a",)) if stored and stored.startswith("{") else SnapshotParts()
    assert snapshot_from_json(stored) == expected


def test_the_rendered_text_split_awkward_items_which_the_stored_parts_keep() -> None:
    rendered = "\n".join(
        f"{label}: {value}"
        for label, value in (
            ("Goal", AWKWARD.goal),
            ("Done", "; ".join(AWKWARD.done)),
            ("Decisions", "; ".join(AWKWARD.decisions)),
            ("Next", "; ".join(AWKWARD.next_steps)),
            ("Files", ", ".join(AWKWARD.files)),
        )
    )
    parsed = parse_rendered_snapshot(rendered)  # how pre-v7 stores are read, once, by the migration

    assert parsed.decisions == ("none", "ran the suite")  # a line inside a done item took the decisions' place
    assert parsed.files == ("notes", "draft.md", "src/export.py")
    assert snapshot_from_json(snapshot_json(AWKWARD)) == AWKWARD
