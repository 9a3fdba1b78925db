"""Which sources still have to be examined for increments, and the known insights to compare with.

A source is examined once when it arrives; a session again whenever it has
grown (``upto`` is how far its raw text has been examined). A failed model
step keeps the job with its reason and a time to try again, so nothing is
lost and status can say why.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass

import apsw

from incremind_daemon.store.db import fetch_int, fetch_row, fetch_rows
from incremind_daemon.store.insights import INSIGHT_COLUMNS, insight_from_row
from incremind_daemon.store.records import Insight
from incremind_daemon.store.tokenizer import query_words, quote_words

MAX_ATTEMPTS = 5  # after this many failed model attempts, the local path takes the source


@dataclass(frozen=True, slots=True)
class InsightJob:
    source_id: int
    kind: str  # file, note, session
    project: str
    upto: int
    attempts: int
    path: str | None  # local or model: forced path, if any
    created_at: str  # the source's arrival


@dataclass(frozen=True, slots=True)
class JobCounts:
    waiting: int
    failed: int
    last_error: str | None


def open_new_jobs(conn: apsw.Connection, *, after: int, now: str) -> int:
    """Create a waiting job for every source above ``after`` that has none; return the highest source id."""
    conn.execute(
        """INSERT OR IGNORE INTO insight_jobs (source_id, state, updated_at)
           SELECT s.id, 'waiting', ? FROM sources s WHERE s.id > ?""",
        (now, after),
    )
    return fetch_int(conn, "SELECT coalesce(max(id), 0) FROM sources")


def reopen_job(conn: apsw.Connection, source_id: int, *, now: str) -> None:
    """Mark a grown session as waiting again (its new text has not been examined)."""
    conn.execute(
        """INSERT INTO insight_jobs (source_id, state, updated_at) VALUES (?, 'waiting', ?)
           ON CONFLICT (source_id) DO UPDATE SET state = 'waiting', attempts = 0, next_try_at = NULL,
               updated_at = excluded.updated_at""",
        (source_id, now),
    )


def pin_new_jobs(conn: apsw.Connection, source_ids: Collection[int], path: str, *, now: str) -> None:
    """Pin the extraction path of sources that have no job yet (backfills are local unless asked)."""
    conn.executemany(
        """INSERT INTO insight_jobs (source_id, state, path, updated_at) VALUES (?, 'waiting', ?, ?)
           ON CONFLICT (source_id) DO NOTHING""",
        [(source_id, path, now) for source_id in source_ids],
    )


def due_jobs(conn: apsw.Connection, *, now: str, limit: int) -> list[InsightJob]:
    """Return waiting jobs, and failed ones whose retry time has come, oldest first."""
    rows = fetch_rows(
        conn,
        """SELECT j.source_id, s.kind, s.project, j.upto, j.attempts, j.path, s.created_at
           FROM insight_jobs j JOIN sources s ON s.id = j.source_id
           WHERE j.state = 'waiting' OR (j.state = 'failed' AND j.next_try_at <= ?)
           ORDER BY j.source_id LIMIT ?""",
        (now, limit),
    )
    return [
        InsightJob(
            int(r[0]), str(r[1]), str(r[2]), int(r[3]), int(r[4]), None if r[5] is None else str(r[5]), str(r[6])
        )
        for r in rows
    ]


def finish_job(conn: apsw.Connection, source_id: int, *, upto: int, path: str, now: str) -> None:
    """Record that a source has been examined up to ``upto`` characters."""
    conn.execute(
        """UPDATE insight_jobs SET state = 'done', upto = ?, attempts = 0, last_error = NULL,
               next_try_at = NULL, updated_at = ?, path = coalesce(path, ?) WHERE source_id = ?""",
        (upto, now, path, source_id),
    )


def examined_upto(conn: apsw.Connection, source_id: int) -> int | None:
    """Return how many characters of a source the insight step has examined; None when it has no job."""
    row = fetch_row(conn, "SELECT upto FROM insight_jobs WHERE source_id = ?", (source_id,))
    return None if row is None else int(row[0])


def move_examined_upto(conn: apsw.Connection, source_id: int, upto: int) -> None:
    """Move a job's mark after its source's text changed length before it (state and attempts stay)."""
    conn.execute("UPDATE insight_jobs SET upto = ? WHERE source_id = ?", (upto, source_id))


def fail_job(conn: apsw.Connection, source_id: int, *, error: str, retry_at: str, now: str) -> int:
    """Record a failed attempt with its reason; return the attempts so far."""
    conn.execute(
        """UPDATE insight_jobs SET state = 'failed', attempts = attempts + 1, last_error = ?,
               next_try_at = ?, updated_at = ? WHERE source_id = ?""",
        (error, retry_at, now, source_id),
    )
    return fetch_int(conn, "SELECT attempts FROM insight_jobs WHERE source_id = ?", (source_id,))


def job_counts(conn: apsw.Connection) -> JobCounts:
    """Return how many sources wait to be examined or failed, and the latest failure."""
    waiting = fetch_int(conn, "SELECT count(*) FROM insight_jobs WHERE state = 'waiting'")
    failed = fetch_int(conn, "SELECT count(*) FROM insight_jobs WHERE state = 'failed'")
    row = fetch_row(
        conn,
        "SELECT last_error FROM insight_jobs WHERE state = 'failed' ORDER BY updated_at DESC LIMIT 1",
    )
    return JobCounts(waiting, failed, None if row is None or row[0] is None else str(row[0]))


def keyword_neighbours(
    conn: apsw.Connection,
    text: str,
    *,
    project: str,
    private: Collection[str],
    limit: int,
) -> list[Insight]:
    """Return known insights sharing words with ``text``, best first.

    Known means pending, confirmed or rejected (a rejected one is known so
    that it is not proposed again), of this project, or global-scope ones
    of another non-private project.
    """
    words = query_words(text)
    if not words:
        return []
    match = quote_words(words, any_word=True)
    hidden = json.dumps([name for name in private if name != project], ensure_ascii=False)
    rows = fetch_rows(
        conn,
        f"""SELECT {", ".join("i." + column.strip() for column in INSIGHT_COLUMNS.split(","))}
            FROM insights_fts f JOIN insights i ON i.id = f.rowid
            WHERE insights_fts MATCH ? AND i.status IN ('pending', 'confirmed', 'rejected')
              AND (i.project = ? OR (i.scope = 'global'
                   AND i.project NOT IN (SELECT value FROM json_each(?))))
            ORDER BY bm25(insights_fts) LIMIT ?""",
        (match, project, hidden, limit),
    )
    return [insight_from_row(row) for row in rows]


def in_scope(insight: Insight, *, project: str, private: Collection[str]) -> bool:
    """Tell whether a known insight may be compared with material of ``project``."""
    if insight.status not in ("pending", "confirmed", "rejected"):
        return False
    if insight.project == project:
        return True
    return insight.scope == "global" and insight.project not in private
