"""Rewrite stored text in place: the rows that hold it, their index entries, and the pages they leave.

Used when text stored earlier must lose some of its words for good (the
credentials that earlier redaction rules let through). The full-text tables
follow the rows through their triggers; ``compact_text_index`` then merges
each index so the words deleted from it leave its pages too, and
``scrubbing`` has SQLite zero what it frees while the rewrite runs, so the
words are gone from the database file once ``truncate_wal`` has run.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import apsw

from incremind_daemon.store.db import fetch_row, fetch_rows
from incremind_daemon.store.snapshots import SnapshotParts, snapshot_from_json, snapshot_json

log = logging.getLogger(__name__)

TEXT_INDEXES = ("chunks_fts", "summaries_fts", "messages_fts", "insights_fts")


def session_ids(conn: apsw.Connection) -> list[int]:
    """Return the source ids of every agent session, oldest first."""
    return [int(row[0]) for row in fetch_rows(conn, "SELECT id FROM sources WHERE kind = 'session' ORDER BY id")]


def message_texts(conn: apsw.Connection, source_id: int) -> list[tuple[int, str]]:
    """Return (row id, text) of every message of a session, rewound ones too."""
    rows = fetch_rows(conn, "SELECT id, text FROM messages WHERE source_id = ? ORDER BY id", (source_id,))
    return [(int(row[0]), str(row[1])) for row in rows]


def replace_message_text(conn: apsw.Connection, rowid: int, text: str) -> None:
    """Replace one message's text; its index entry and vector follow.

    Its offsets into the session's text are the caller's to move.
    """
    conn.execute("UPDATE messages SET text = ? WHERE id = ?", (text, rowid))


def replace_session_text(conn: apsw.Connection, source_id: int, *, raw_text: str, title: str) -> None:
    """Replace a session's laid-out text and title; its summary is renewed."""
    conn.execute(
        "UPDATE sources SET raw_text = ?, title = ?, size_bytes = ? WHERE id = ?",
        (raw_text, title, len(raw_text.encode("utf-8")), source_id),
    )
    conn.execute("UPDATE sessions SET summary_stale = 1 WHERE source_id = ?", (source_id,))


def summary_text(conn: apsw.Connection, source_id: int) -> tuple[str, str] | None:
    """Return (index line, summary) of a source, if it has a summary."""
    row = fetch_row(conn, "SELECT index_line, summary FROM summaries WHERE source_id = ?", (source_id,))
    return None if row is None else (str(row[0]), str(row[1]))


def session_snapshot(conn: apsw.Connection, source_id: int) -> SnapshotParts | None:
    """Return the state snapshot of a session, if it was summarized."""
    row = fetch_row(conn, "SELECT snapshot FROM sessions WHERE source_id = ?", (source_id,))
    return None if row is None or row[0] is None else snapshot_from_json(str(row[0]))


def replace_session_snapshot(conn: apsw.Connection, source_id: int, snapshot: SnapshotParts) -> None:
    """Replace the words of a session's state snapshot, until its summary is made again."""
    conn.execute("UPDATE sessions SET snapshot = ? WHERE source_id = ?", (snapshot_json(snapshot), source_id))


def replace_summary_text(conn: apsw.Connection, source_id: int, *, index_line: str, summary: str) -> None:
    """Replace the words of a source's summary, keeping when it was made."""
    conn.execute(
        "UPDATE summaries SET index_line = ?, summary = ? WHERE source_id = ?", (index_line, summary, source_id)
    )


def insight_texts(conn: apsw.Connection) -> list[tuple[int, str, str]]:
    """Return (id, statement, condition) of every insight, whatever its status."""
    rows = fetch_rows(conn, "SELECT id, statement, condition FROM insights ORDER BY id")
    return [(int(row[0]), str(row[1]), str(row[2])) for row in rows]


def replace_insight_text(conn: apsw.Connection, insight_id: int, *, statement: str, condition: str) -> None:
    """Replace an insight's words in place, as the same revision.

    No new revision: only credentials were taken out, nothing was said anew.
    """
    conn.execute("UPDATE insights SET statement = ?, condition = ? WHERE id = ?", (statement, condition, insight_id))


def revision_texts(conn: apsw.Connection) -> list[tuple[int, int, str, str]]:
    """Return (insight, revision, statement, condition) of every revision."""
    rows = fetch_rows(conn, "SELECT insight_id, revision, statement, condition FROM insight_revisions")
    return [(int(row[0]), int(row[1]), str(row[2]), str(row[3])) for row in rows]


def replace_revision_text(
    conn: apsw.Connection, insight_id: int, revision: int, *, statement: str, condition: str
) -> None:
    """Replace the words of one kept revision of an insight."""
    conn.execute(
        "UPDATE insight_revisions SET statement = ?, condition = ? WHERE insight_id = ? AND revision = ?",
        (statement, condition, insight_id, revision),
    )


def evidence_quotes(conn: apsw.Connection) -> list[tuple[int, str]]:
    """Return (evidence row, quote) of every quote kept as evidence."""
    return [(int(row[0]), str(row[1])) for row in fetch_rows(conn, "SELECT rowid, quote FROM insight_sources")]


def replace_quote(conn: apsw.Connection, row: int, quote: str) -> None:
    """Replace the words of one quote, keeping where it points."""
    conn.execute("UPDATE insight_sources SET quote = ? WHERE rowid = ?", (quote, row))


def compact_text_index(conn: apsw.Connection, table: str) -> None:
    """Merge one of TEXT_INDEXES into one segment, dropping deleted words.

    FTS5 records a deletion as a marker in a newer segment; the deleted
    words stay in the older segment, and in the file, until a merge.
    """
    if table not in TEXT_INDEXES:
        raise ValueError(f"not a full-text index: {table}")
    conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")


@contextmanager
def scrubbing(conn: apsw.Connection) -> Iterator[None]:
    """Have SQLite zero what this connection deletes or frees in the block."""
    was = int(conn.pragma("secure_delete"))
    conn.pragma("secure_delete", 1)
    try:
        yield
    finally:
        conn.pragma("secure_delete", was)


def truncate_wal(conn: apsw.Connection) -> bool:
    """Copy the WAL into the database and empty it; False if a reader held it."""
    row = fetch_row(conn, "PRAGMA wal_checkpoint(TRUNCATE)")
    busy = row is not None and int(row[0]) != 0
    if busy:
        log.info("a reader held the write-ahead log; it is emptied at a later checkpoint")
    return not busy
