"""Write and read the rows of the memory ladder."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import apsw

from incremind_daemon.errors import NotFound
from incremind_daemon.store.db import Row, fetch_int, fetch_row, fetch_rows
from incremind_daemon.store.records import (
    KIND_BY_PREFIX,
    InboxClaim,
    NewPassage,
    NewSource,
    NewSummary,
    PassageRecord,
    SourceRecord,
    SourceRef,
    SummaryRecord,
    item_id,
    parse_row_number,
)


def find_source_by_sha(conn: apsw.Connection, sha256: str) -> int | None:
    """Return the id of the source holding these bytes, if any."""
    row = fetch_row(conn, "SELECT id FROM sources WHERE sha256 = ?", (sha256,))
    return None if row is None else int(row[0])


def insert_source(conn: apsw.Connection, source: NewSource, *, now: str) -> int:
    """Insert a source row and return its id."""
    conn.execute(
        """INSERT INTO sources (kind, project, title, sha256, raw_path, original_name, media_type,
                                size_bytes, raw_text, pages, created_at, last_seen_at, dated)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            source.kind,
            source.project,
            source.title,
            source.sha256,
            source.raw_path,
            source.original_name,
            source.media_type,
            source.size_bytes,
            source.raw_text,
            json.dumps([list(p) for p in source.pages]),
            now,
            now,
            source.dated,
        ),
    )
    return int(conn.last_insert_rowid())


def document_ids(conn: apsw.Connection) -> list[int]:
    """Return the ids of every file and note (every source that is not an agent session), oldest first."""
    return [int(row[0]) for row in fetch_rows(conn, "SELECT id FROM sources WHERE kind != 'session' ORDER BY id")]


def replace_source_text(
    conn: apsw.Connection, source_id: int, *, raw_text: str, title: str, pages: tuple[tuple[int, int], ...]
) -> None:
    """Replace a source's text, title and page starts (its passages and summary are the caller's to renew)."""
    conn.execute(
        "UPDATE sources SET raw_text = ?, title = ?, pages = ? WHERE id = ?",
        (raw_text, title, json.dumps([list(p) for p in pages]), source_id),
    )


def mark_seen(conn: apsw.Connection, source_id: int, *, now: str) -> None:
    """Record that the same original arrived again."""
    conn.execute(
        "UPDATE sources SET seen_count = seen_count + 1, last_seen_at = ? WHERE id = ?",
        (now, source_id),
    )


def insert_passages(conn: apsw.Connection, source_id: int, passages: list[NewPassage], *, first_seq: int = 0) -> None:
    """Store a source's organized passages in order, numbered from first_seq."""
    conn.executemany(
        'INSERT INTO chunks (source_id, seq, text, start, "end", page) VALUES (?, ?, ?, ?, ?, ?)',
        [(source_id, seq, p.text, p.start, p.end, p.page) for seq, p in enumerate(passages, start=first_seq)],
    )


def upsert_summary(conn: apsw.Connection, source_id: int, summary: NewSummary, *, now: str) -> int:
    """Store or replace the summary of a source and return its id."""
    spans = json.dumps([list(s) for s in summary.spans])
    conn.execute(
        """INSERT INTO summaries (source_id, index_line, summary, spans, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (source_id) DO UPDATE SET
               index_line = excluded.index_line, summary = excluded.summary,
               spans = excluded.spans, updated_at = excluded.updated_at""",
        (source_id, summary.index_line, summary.summary, spans, now, now),
    )
    return fetch_int(conn, "SELECT id FROM summaries WHERE source_id = ?", (source_id,))


def find_claim(conn: apsw.Connection, claim: InboxClaim) -> str | None:
    """Return the outcome already committed for this very inbox file, if any."""
    row = fetch_row(
        conn,
        "SELECT outcome FROM inbox_claims WHERE path = ? AND sha256 = ? AND mtime_ns = ?",
        (claim.path, claim.sha256, claim.mtime_ns),
    )
    return None if row is None else str(row[0])


def record_claim(
    conn: apsw.Connection,
    claim: InboxClaim,
    *,
    outcome: str,
    source_id: int | None,
    now: str,
) -> None:
    """Record that an inbox file was taken in (in the same transaction as its rows)."""
    conn.execute(
        """INSERT OR REPLACE INTO inbox_claims (path, sha256, mtime_ns, size_bytes, outcome, source_id, at)
           VALUES (?, ?, ?, ?, ?, ?, ?)""",
        (claim.path, claim.sha256, claim.mtime_ns, claim.size_bytes, outcome, source_id, now),
    )


def append_audit(
    conn: apsw.Connection,
    *,
    actor: str,
    action: str,
    target: str,
    now: str,
    detail: Mapping[str, object] | None = None,
) -> None:
    """Append one row to the audit log."""
    conn.execute(
        "INSERT INTO audit (at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)",
        (now, actor, action, target, json.dumps(dict(detail or {}), ensure_ascii=False)),
    )


_KIND_NAMES = {
    "raw": "source",
    "message": "message",
    "organized": "passage",
    "summary": "summary",
    "insight": "insight",
}


def split_item_id(value: str) -> tuple[str, int]:
    """Parse ``pas-12`` into ("organized", 12), or raise NotFound.

    The number is ASCII digits within SQLite's integer range; the message
    quotes at most the first 40 characters of what was given.
    """
    prefix, _, digits = value.strip().partition("-")
    kind = KIND_BY_PREFIX.get(prefix.lower())
    number = parse_row_number(digits)
    given = value.strip()
    shown = given if len(given) <= 40 else given[:40] + "…"
    if kind is None or number is None:
        if kind is not None and digits.isascii() and digits.isdigit():  # digits, but past any row
            raise NotFound(f"no {_KIND_NAMES[kind]} {shown} in memory; its number is larger than any id can be")
        raise NotFound(f"'{shown}' is not a memory id; ids look like src-1, msg-7, pas-12, sum-3 or ins-4 (digits 0-9)")
    return kind, number


# select these (with SOURCE_JOIN) wherever a row names its source; make_source_ref reads them
# a source's date: a session's start, else the day a file names, else when it was taken in
SOURCE_DATE = "coalesce(ss.started_at, s.dated, s.created_at)"
SOURCE_COLUMNS = f"s.id, s.project, s.title, s.raw_path, s.kind, ss.agent, ss.session_id, {SOURCE_DATE}"
SOURCE_JOIN = "LEFT JOIN sessions ss ON ss.source_id = s.id"
SOURCE_WIDTH = 8

# (text, start, end, page, *SOURCE_COLUMNS) of one searchable item, by kind
HIT_SQL = {
    "organized": f"""SELECT c.text, c.start, c."end", c.page, {SOURCE_COLUMNS}
                     FROM chunks c JOIN sources s ON s.id = c.source_id {SOURCE_JOIN} WHERE c.id = ?""",
    # a summary's index line, when it is (the start of) its top sentence, is not said twice
    "summary": f"""SELECT CASE WHEN instr(m.summary, rtrim(m.index_line, '…')) > 0 THEN m.summary
                          ELSE m.index_line || char(10) || m.summary END, NULL, NULL, NULL, {SOURCE_COLUMNS}
                   FROM summaries m JOIN sources s ON s.id = m.source_id {SOURCE_JOIN} WHERE m.id = ?""",
    "message": f"""SELECT m.text, m.start, m."end", NULL, {SOURCE_COLUMNS}
                   FROM messages m JOIN sources s ON s.id = m.source_id {SOURCE_JOIN} WHERE m.id = ?""",
    # only insights of the asked-for status (confirmed, unless told) answer; the source named is the first evidence's
    "insight": f"""SELECT i.statement || CASE WHEN i.condition != '' THEN char(10) || 'when: ' || i.condition
                          ELSE '' END, NULL, NULL, NULL, {SOURCE_COLUMNS}
                   FROM insights i
                   JOIN sources s ON s.id = (SELECT e.source_id FROM insight_sources e WHERE e.insight_id = i.id
                                             ORDER BY e.rowid LIMIT 1)
                   {SOURCE_JOIN} WHERE i.id = ? AND i.status = ?""",
}


def make_source_ref(row: Row, home: Path) -> SourceRef:
    """Build a SourceRef from the SOURCE_COLUMNS of a row."""
    source_id, project, title, raw_path, kind, agent, session_id, date = row[:SOURCE_WIDTH]
    path = str(home / str(raw_path)) if raw_path else None
    return SourceRef(
        item_id("raw", int(source_id)),
        str(title),
        path,
        str(project),
        str(kind),
        agent,
        session_id,
        None if date is None else str(date),
    )


def get_source(conn: apsw.Connection, source_id: int) -> SourceRecord:
    """Return one source with its raw text."""
    row = fetch_row(
        conn,
        """SELECT id, kind, project, title, raw_path, original_name, media_type, size_bytes,
                  created_at, last_seen_at, seen_count, raw_text, pages
           FROM sources WHERE id = ?""",
        (source_id,),
    )
    if row is None:
        raise NotFound(f"no source {item_id('raw', source_id)} in memory")
    pages = tuple((int(a), int(b)) for a, b in json.loads(row[12]))
    return SourceRecord(
        item_id("raw", row[0]),
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        row[9],
        row[10],
        row[11],
        pages,
    )


def get_passage(conn: apsw.Connection, passage_id: int, *, home: Path) -> PassageRecord:
    """Return one organized passage with its source."""
    row = fetch_row(
        conn,
        f"""SELECT c.seq, c.text, c.start, c."end", c.page, {SOURCE_COLUMNS}
            FROM chunks c JOIN sources s ON s.id = c.source_id {SOURCE_JOIN} WHERE c.id = ?""",
        (passage_id,),
    )
    if row is None:
        raise NotFound(f"no passage {item_id('organized', passage_id)} in memory")
    return PassageRecord(
        item_id("organized", passage_id),
        make_source_ref(row[5:], home),
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
    )


def get_summary(conn: apsw.Connection, summary_id: int, *, home: Path) -> SummaryRecord:
    """Return one summary with its source."""
    row = fetch_row(
        conn,
        f"""SELECT m.index_line, m.summary, m.spans, m.updated_at, {SOURCE_COLUMNS}
            FROM summaries m JOIN sources s ON s.id = m.source_id {SOURCE_JOIN} WHERE m.id = ?""",
        (summary_id,),
    )
    if row is None:
        raise NotFound(f"no summary {item_id('summary', summary_id)} in memory")
    spans = tuple((int(a), int(b)) for a, b in json.loads(row[2]))
    return SummaryRecord(item_id("summary", summary_id), make_source_ref(row[4:], home), row[0], row[1], spans, row[3])


def summary_of_source(conn: apsw.Connection, source_id: int) -> int | None:
    """Return the summary id of a source, if it has one."""
    row = fetch_row(conn, "SELECT id FROM summaries WHERE source_id = ?", (source_id,))
    return None if row is None else int(row[0])


def passages_of_source(conn: apsw.Connection, source_id: int) -> int:
    """Return how many passages a source has."""
    return fetch_int(conn, "SELECT count(*) FROM chunks WHERE source_id = ?", (source_id,))
