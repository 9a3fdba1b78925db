"""Counts and listings over the whole store, for status, doctor, backup and export.

Read-only: each function takes a connection and returns plain values; the
callers decide how to show them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import apsw

from incremind_daemon.store.db import fetch_int, fetch_row, fetch_rows

TIERS = ("sources", "passages", "summaries", "insights")


def tier_counts(conn: apsw.Connection) -> dict[str, dict[str, int]]:
    """Count each tier per project: {project: {sources, passages, summaries, insights}} (rejected insights not)."""
    projects: dict[str, dict[str, int]] = {}

    def add(tier: str, rows: list[tuple[Any, ...]]) -> None:
        for project, count in rows:
            projects.setdefault(str(project), dict.fromkeys(TIERS, 0))[tier] = int(count)

    add("sources", fetch_rows(conn, "SELECT project, count(*) FROM sources GROUP BY project"))
    for tier, table in (("passages", "chunks"), ("summaries", "summaries")):
        add(
            tier,
            fetch_rows(
                conn,
                f"SELECT s.project, count(*) FROM {table} x JOIN sources s ON s.id = x.source_id GROUP BY s.project",
            ),
        )
    add(
        "insights",
        fetch_rows(conn, "SELECT project, count(*) FROM insights WHERE status != 'rejected' GROUP BY project"),
    )
    return dict(sorted(projects.items()))


def count_sources(conn: apsw.Connection) -> int:
    """Count every source (file, note or session)."""
    return fetch_int(conn, "SELECT count(*) FROM sources")


def last_intake_at(conn: apsw.Connection) -> str | None:
    """Return when material last came in (added or seen again), by the last_seen_at index."""
    row = fetch_row(conn, "SELECT max(last_seen_at) FROM sources")
    return None if row is None or row[0] is None else str(row[0])


def counts_since(conn: apsw.Connection, day: str) -> tuple[int, int]:
    """Return (sources, live session messages) added at or after ``day`` (an ISO date: stamps sort after it)."""
    sources = fetch_int(conn, "SELECT count(*) FROM sources WHERE created_at >= ?", (day,))
    messages = fetch_int(
        conn,
        """SELECT count(*) FROM sessions s JOIN messages m ON m.source_id = s.source_id
           WHERE s.last_message_at >= ? AND m.at >= ? AND m.dropped = 0""",
        (day, day),
    )
    return sources, messages


def last_tail_error(conn: apsw.Connection) -> tuple[str, str, str] | None:
    """Return (when, transcript path, error) of the latest transcript that could not be read, if any."""
    row = fetch_row(
        conn,
        "SELECT updated_at, path, last_error FROM tail_files WHERE last_error IS NOT NULL "
        "ORDER BY updated_at DESC LIMIT 1",
    )
    return None if row is None else (str(row[0]), str(row[1]), str(row[2]))


def last_context_problem(conn: apsw.Connection) -> tuple[str, str] | None:
    """Return (path, problem) of the latest context file that could not be written, if any."""
    row = fetch_row(
        conn,
        "SELECT path, problem FROM context_targets WHERE problem IS NOT NULL ORDER BY last_written_at DESC LIMIT 1",
    )
    return None if row is None else (str(row[0]), str(row[1]))


def audit_mark(conn: apsw.Connection) -> int | None:
    """Return the newest audit entry's id: it changes whenever a person or agent changed an insight."""
    row = fetch_row(conn, "SELECT max(id) FROM audit")
    return None if row is None or row[0] is None else int(row[0])


def table_counts(conn: apsw.Connection) -> dict[str, int]:
    """Count the rows of each ordinary table (not full-text or vector indexes, which are derived)."""
    rows = fetch_rows(conn, "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
    virtual = [str(name) for name, sql in rows if str(sql or "").upper().startswith("CREATE VIRTUAL")]
    counts: dict[str, int] = {}
    for name, _sql in rows:
        table = str(name)
        if table.startswith("sqlite_") or any(table == v or table.startswith(f"{v}_") for v in virtual):
            continue
        quoted = '"' + table.replace('"', '""') + '"'
        counts[table] = fetch_int(conn, f"SELECT count(*) FROM {quoted}")
    return counts


def kept_originals(conn: apsw.Connection) -> list[tuple[str, str | None]]:
    """Return (raw_path, sha256) of every source that names a file, one row per path."""
    rows = fetch_rows(
        conn,
        "SELECT raw_path, max(sha256) FROM sources WHERE raw_path IS NOT NULL GROUP BY raw_path ORDER BY raw_path",
    )
    return [(str(raw), None if sha is None else str(sha)) for raw, sha in rows]


_EXPORT_COLUMNS = [
    "id",
    "kind",
    "project",
    "title",
    "original_name",
    "media_type",
    "size_bytes",
    "sha256",
    "raw_path",
    "created_at",
    "last_seen_at",
    "dated",
    "agent",
    "session_id",
    "summary_id",
    "index_line",
    "summary",
    "summary_updated_at",
    "text",
]


def export_sources(conn: apsw.Connection, *, project: str | None, with_text: bool) -> Iterator[dict[str, Any]]:
    """Yield every source (of one project, if given) with its session and summary, in id order, as columns."""
    text = "s.raw_text" if with_text else "NULL"
    where = " WHERE s.project = ?" if project is not None else ""
    cursor = conn.execute(
        f"""SELECT s.id, s.kind, s.project, s.title, s.original_name, s.media_type, s.size_bytes, s.sha256,
                   s.raw_path, s.created_at, s.last_seen_at, s.dated, ss.agent, ss.session_id,
                   m.id, m.index_line, m.summary, m.updated_at, {text}
            FROM sources s LEFT JOIN summaries m ON m.source_id = s.id
            LEFT JOIN sessions ss ON ss.source_id = s.id{where} ORDER BY s.id""",
        (project,) if project is not None else None,
    )
    for row in cursor:
        yield dict(zip(_EXPORT_COLUMNS, row, strict=True))
