"""Insights: candidates, their evidence and links, state changes, and recall heat.

Every state change (confirm, reject, edit, forget, restore, supersede) is one call here
that also appends to the audit log, so callers run it inside one write
transaction and the change and its record commit together. Revisions are
kept: an edit adds an ``insight_revisions`` row and bumps ``revision``.

Hotness is stored as of a reference time (the last use, else creation) and
decays on read: ``hotness * 0.5 ** (days since / half-life)``. Identity,
preference and correction insights do not decay.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import apsw

from incremind_daemon.errors import IncremindError, NotFound
from incremind_daemon.store.clock import parse_moment
from incremind_daemon.store.db import Row, fetch_int, fetch_row, fetch_rows, write_transaction
from incremind_daemon.store.items import append_audit
from incremind_daemon.store.records import CATEGORIES, LASTING, SCOPES, Candidate, Insight, item_id
from incremind_daemon.store.sessions import said_at

INSIGHT_COLUMNS = (
    "id, project, category, statement, condition, relation, status, confidence, hotness, revision, "
    "created_at, updated_at, last_used_at, origin, use_count, scope"
)
MAX_CONFIDENCE = 0.99
# what each review verb may change: verb -> (statuses it applies to, status it sets)
TRANSITIONS = {
    "confirm": (("pending",), "confirmed"),
    "reject": (("pending",), "rejected"),
    "forget": (("pending", "confirmed"), "forgotten"),
}
LINK_OF_RELATION = {"different": "refutes", "supplement": "supplements", "supersedes": "supersedes"}


class ReviewError(IncremindError):
    """A review verb that does not apply to the insight's current state."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """Words of a source an insight rests on; ``raw_text[start:end] == quote``."""

    source_id: int
    chunk_id: int | None
    quote: str
    start: int
    end: int
    added_at: str


@dataclass(frozen=True, slots=True)
class Link:
    from_id: int
    to_id: int
    relation: str  # refutes, supplements, supersedes
    at: str


@dataclass(frozen=True, slots=True)
class Revision:
    revision: int
    statement: str
    condition: str
    at: str


def insight_from_row(row: Row) -> Insight:
    return Insight(
        int(row[0]),
        str(row[1]),
        str(row[2]),
        str(row[3]),
        str(row[4]),
        str(row[5]),
        str(row[6]),
        float(row[7]),
        float(row[8]),
        int(row[9]),
        str(row[10]),
        str(row[11]),
        None if row[12] is None else str(row[12]),
        str(row[13]),
        int(row[14]),
        str(row[15]),
    )


def get_insight(conn: apsw.Connection, insight_id: int) -> Insight:
    """Return one insight, or raise NotFound."""
    row = fetch_row(conn, f"SELECT {INSIGHT_COLUMNS} FROM insights WHERE id = ?", (insight_id,))
    if row is None:
        raise NotFound(f"no insight {item_id('insight', insight_id)} in memory; `incremind insights` lists them")
    return insight_from_row(row)


def list_insights(
    conn: apsw.Connection,
    *,
    status: str | Sequence[str] | None = None,
    project: str | None = None,
    category: str | None = None,
    limit: int | None = None,
) -> list[Insight]:
    """Return insights matching the filters, newest first."""
    where, params = _filters(status=status, project=project, category=category)
    sql = f"SELECT {INSIGHT_COLUMNS} FROM insights{where} ORDER BY created_at DESC, id DESC"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [insight_from_row(row) for row in fetch_rows(conn, sql, params)]


def count_insights(
    conn: apsw.Connection, *, status: str | Sequence[str] | None = None, project: str | None = None
) -> int:
    """Return how many insights match."""
    where, params = _filters(status=status, project=project, category=None)
    return fetch_int(conn, f"SELECT count(*) FROM insights{where}", params)


def _filters(
    *, status: str | Sequence[str] | None, project: str | None, category: str | None
) -> tuple[str, list[object]]:
    clauses: list[str] = []
    params: list[object] = []
    if status is not None:
        statuses = [status] if isinstance(status, str) else list(status)
        clauses.append(f"status IN ({', '.join('?' * len(statuses))})")
        params.extend(statuses)
    if project is not None:
        clauses.append("project = ?")
        params.append(project)
    if category is not None:
        if category not in CATEGORIES:
            raise IncremindError(f"unknown category '{category}'; categories are {', '.join(CATEGORIES)}")
        clauses.append("category = ?")
        params.append(category)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def evidence_of(conn: apsw.Connection, insight_id: int) -> list[Evidence]:
    """Return the evidence of an insight, oldest first."""
    rows = fetch_rows(
        conn,
        'SELECT source_id, chunk_id, quote, start, "end", added_at FROM insight_sources '
        "WHERE insight_id = ? ORDER BY added_at, rowid",
        (insight_id,),
    )
    return [
        Evidence(int(r[0]), None if r[1] is None else int(r[1]), str(r[2]), int(r[3]), int(r[4]), str(r[5]))
        for r in rows
    ]


def links_of(conn: apsw.Connection, insight_id: int) -> list[Link]:
    """Return the links from and to an insight."""
    rows = fetch_rows(
        conn,
        "SELECT from_id, to_id, relation, at FROM links WHERE from_id = ? OR to_id = ? ORDER BY at",
        (insight_id, insight_id),
    )
    return [Link(int(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]


def revisions_of(conn: apsw.Connection, insight_id: int) -> list[Revision]:
    """Return every revision of an insight, first to current."""
    rows = fetch_rows(
        conn,
        "SELECT revision, statement, condition, at FROM insight_revisions WHERE insight_id = ? ORDER BY revision",
        (insight_id,),
    )
    return [Revision(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]


def effective_hotness(insight: Insight, *, now: datetime, half_life_days: float) -> float:
    """Return the insight's hotness at ``now``, decayed since its last use."""
    if insight.category in LASTING:
        return insight.hotness
    since = _parse(insight.last_used_at or insight.created_at)
    days = max(0.0, (now - since).total_seconds() / 86_400)
    return insight.hotness * math.pow(0.5, days / half_life_days)


def _parse(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def insert_insight(
    conn: apsw.Connection,
    *,
    project: str,
    candidate: Candidate,
    relation: str,
    source_id: int | None,
    known_id: int | None = None,
    origin: str = "local",
    status: str = "pending",
    chunk_id: int | None = None,
    actor: str = "daemon",
    now: str,
) -> int:
    """Store a candidate as a new insight with its evidence and link; return its id."""
    if candidate.category not in CATEGORIES:
        raise IncremindError(f"unknown category '{candidate.category}'; categories are {', '.join(CATEGORIES)}")
    _check_scope(candidate.scope)
    conn.execute(
        """INSERT INTO insights (project, category, statement, condition, relation, status, confidence,
                                 hotness, created_at, updated_at, last_used_at, origin, scope)
           VALUES (?, ?, ?, ?, ?, ?, 0.5, 1.0, ?, ?, ?, ?, ?)""",
        (
            project,
            candidate.category,
            candidate.statement,
            candidate.condition,
            relation,
            status,
            now,
            now,
            now if status == "confirmed" else None,
            origin,
            candidate.scope,
        ),
    )
    insight_id = int(conn.last_insert_rowid())
    conn.execute(
        "INSERT INTO insight_revisions (insight_id, revision, statement, condition, at) VALUES (?, 1, ?, ?, ?)",
        (insight_id, candidate.statement, candidate.condition, now),
    )
    if source_id is not None:
        add_evidence(conn, insight_id, source_id=source_id, candidate=candidate, chunk_id=chunk_id, now=now)
    link = LINK_OF_RELATION.get(relation)
    if link is not None and known_id is not None:
        conn.execute(
            "INSERT OR IGNORE INTO links (from_id, to_id, relation, at) VALUES (?, ?, ?, ?)",
            (insight_id, known_id, link, now),
        )
    append_audit(
        conn,
        actor=actor,
        action={"pending": "candidate", "superseded": "outdated"}.get(status, "save"),
        target=item_id("insight", insight_id),
        now=now,
        detail={
            "relation": relation,
            "known": item_id("insight", known_id) if known_id else None,
            "origin": origin,
            "scope": candidate.scope,
        },
    )
    if status == "confirmed":
        _retire_superseded(conn, insight_id, actor=actor, now=now)
    return insight_id


def insert_outdated(
    conn: apsw.Connection,
    *,
    project: str,
    candidate: Candidate,
    source_id: int | None,
    newer_id: int,
    origin: str,
    actor: str,
    now: str,
) -> int:
    """Store a candidate that a newer known insight already replaced: kept as superseded, linked from it."""
    insight_id = insert_insight(
        conn,
        project=project,
        candidate=candidate,
        relation="new",
        source_id=source_id,
        origin=origin,
        status="superseded",
        actor=actor,
        now=now,
    )
    conn.execute(
        "INSERT OR IGNORE INTO links (from_id, to_id, relation, at) VALUES (?, ?, 'supersedes', ?)",
        (newer_id, insight_id, now),
    )
    return insight_id


def last_said(conn: apsw.Connection, insight_id: int) -> datetime | None:
    """Return when an insight was last said, None when no evidence tells: a session message's own stamp
    (a backfill takes in old sessions today) or when a note was saved. A dropped file's arrival is not
    when it was written, so a file tells nothing."""
    rows = fetch_rows(
        conn,
        """SELECT e.source_id, e.start, s.kind, e.added_at FROM insight_sources e JOIN sources s ON s.id = e.source_id
           WHERE e.insight_id = ?""",
        (insight_id,),
    )
    stamps = (
        said_at(conn, int(source_id), int(start)) if kind == "session" else str(added) if kind == "note" else None
        for source_id, start, kind, added in rows
    )
    return max((moment for stamp in stamps if stamp and (moment := parse_moment(stamp))), default=None)


def add_evidence(
    conn: apsw.Connection,
    insight_id: int,
    *,
    source_id: int,
    candidate: Candidate,
    chunk_id: int | None = None,
    now: str,
) -> bool:
    """Attach a source's words to an insight; False if that very span is already attached."""
    exists = fetch_row(
        conn,
        'SELECT 1 FROM insight_sources WHERE insight_id = ? AND source_id = ? AND start = ? AND "end" = ?',
        (insight_id, source_id, candidate.start, candidate.end),
    )
    if exists is not None:
        return False
    conn.execute(
        'INSERT INTO insight_sources (insight_id, source_id, chunk_id, quote, start, "end", added_at) '
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (insight_id, source_id, chunk_id, candidate.quote, candidate.start, candidate.end, now),
    )
    return True


def evidence_spans(conn: apsw.Connection, source_id: int) -> list[tuple[int, int, int]]:
    """Return (evidence row, start, end) of every quote taken from a source."""
    rows = fetch_rows(conn, 'SELECT rowid, start, "end" FROM insight_sources WHERE source_id = ?', (source_id,))
    return [(int(row[0]), int(row[1]), int(row[2])) for row in rows]


def move_evidence(conn: apsw.Connection, row: int, *, quote: str, start: int, end: int) -> None:
    """Point one evidence row at a new span of its source's text, with the words found there."""
    conn.execute('UPDATE insight_sources SET quote = ?, start = ?, "end" = ? WHERE rowid = ?', (quote, start, end, row))


def strengthen(
    conn: apsw.Connection, insight_id: int, *, step: float, source_id: int | None, actor: str = "daemon", now: str
) -> float:
    """Raise a known insight's confidence for a repeat (up to 0.99); return the new value."""
    conn.execute(
        "UPDATE insights SET confidence = min(?, confidence + ?) WHERE id = ?",
        (MAX_CONFIDENCE, step, insight_id),
    )
    confidence = get_insight(conn, insight_id).confidence
    append_audit(
        conn,
        actor=actor,
        action="repeat",
        target=item_id("insight", insight_id),
        now=now,
        detail={"source": item_id("raw", source_id) if source_id else None, "confidence": round(confidence, 4)},
    )
    return confidence


def review(conn: apsw.Connection, insight_id: int, verb: str, *, actor: str, now: str) -> Insight:
    """Apply confirm, reject, forget or restore; return the insight as it now is.

    Raise ReviewError when the verb does not apply (confirming a rejected
    insight, restoring one that is not forgotten).
    """
    insight = get_insight(conn, insight_id)
    public = item_id("insight", insight_id)
    if verb == "restore":
        if insight.status not in ("forgotten", "superseded"):
            raise ReviewError(f"{public} is {insight.status}; only forgotten or superseded insights can be restored")
        back = fetch_row(conn, "SELECT forgotten_from FROM insights WHERE id = ?", (insight_id,))
        # a superseded insight comes back confirmed: the newer one was wrongly read as replacing it
        forgotten = insight.status == "forgotten" and back is not None and back[0]
        target = str(back[0]) if forgotten and back is not None else "confirmed"
        conn.execute(
            "UPDATE insights SET status = ?, forgotten_from = NULL, updated_at = ? WHERE id = ?",
            (target, now, insight_id),
        )
    else:
        if verb not in TRANSITIONS:
            raise ReviewError(f"unknown review verb '{verb}'")
        allowed, target = TRANSITIONS[verb]
        if insight.status not in allowed:
            raise ReviewError(f"{public} is {insight.status}; only {' or '.join(allowed)} insights can be {verb}ed")
        # a confirmed insight starts hot; a forgotten one remembers where restore returns it
        conn.execute(
            """UPDATE insights SET status = ?, updated_at = ?,
                   forgotten_from = CASE WHEN ? = 'forgotten' THEN status ELSE forgotten_from END,
                   last_used_at = CASE WHEN ? = 'confirmed' THEN ? ELSE last_used_at END,
                   hotness = CASE WHEN ? = 'confirmed' THEN max(hotness, 1.0) ELSE hotness END
               WHERE id = ?""",
            (target, now, target, target, now, target, insight_id),
        )
    append_audit(conn, actor=actor, action=verb, target=public, now=now, detail={"from": insight.status, "to": target})
    if target == "confirmed":
        _retire_superseded(conn, insight_id, actor=actor, now=now)
    return get_insight(conn, insight_id)


def superseded_by(conn: apsw.Connection, insight_id: int) -> list[tuple[int, str]]:
    """Return the insights still in use (pending or confirmed) that an insight supersedes, with their status:
    what confirming it retires."""
    rows = fetch_rows(
        conn,
        """SELECT i.id, i.status FROM links l JOIN insights i ON i.id = l.to_id
           WHERE l.from_id = ? AND l.relation = 'supersedes' AND i.status IN ('pending', 'confirmed')
           ORDER BY i.id""",
        (insight_id,),
    )
    return [(int(row[0]), str(row[1])) for row in rows]


def _retire_superseded(conn: apsw.Connection, insight_id: int, *, actor: str, now: str) -> None:
    """Mark what a just-confirmed insight supersedes as superseded: kept, no longer used."""
    for old, was in superseded_by(conn, insight_id):
        conn.execute("UPDATE insights SET status = 'superseded', updated_at = ? WHERE id = ?", (now, old))
        append_audit(
            conn,
            actor=actor,
            action="supersede",
            target=item_id("insight", old),
            now=now,
            detail={"from": was, "to": "superseded", "by": item_id("insight", insight_id)},
        )


def _check_scope(scope: str) -> None:
    if scope not in SCOPES:
        raise IncremindError(f"unknown scope '{scope}'; scopes are {', '.join(SCOPES)}")


def set_scope(conn: apsw.Connection, insight_id: int, scope: str, *, actor: str, now: str) -> Insight:
    """Make an insight global (every project) or its project's own."""
    _check_scope(scope)
    insight = get_insight(conn, insight_id)
    if insight.scope != scope:
        conn.execute("UPDATE insights SET scope = ?, updated_at = ? WHERE id = ?", (scope, now, insight_id))
        append_audit(
            conn,
            actor=actor,
            action="scope",
            target=item_id("insight", insight_id),
            now=now,
            detail={"from": insight.scope, "to": scope},
        )
    return get_insight(conn, insight_id)


def edit_insight(
    conn: apsw.Connection, insight_id: int, *, statement: str, condition: str | None, actor: str, now: str
) -> Insight:
    """Write a new revision of an insight's statement (and condition); older revisions stay."""
    statement = statement.strip()
    if not statement:
        raise IncremindError("the new statement is empty; give the text the insight should say")
    insight = get_insight(conn, insight_id)
    new_condition = insight.condition if condition is None else condition.strip()
    revision = insight.revision + 1
    conn.execute(
        "UPDATE insights SET statement = ?, condition = ?, revision = ?, updated_at = ? WHERE id = ?",
        (statement, new_condition, revision, now, insight_id),
    )
    conn.execute(
        "INSERT INTO insight_revisions (insight_id, revision, statement, condition, at) VALUES (?, ?, ?, ?, ?)",
        (insight_id, revision, statement, new_condition, now),
    )
    append_audit(
        conn,
        actor=actor,
        action="edit",
        target=item_id("insight", insight_id),
        now=now,
        detail={"revision": revision},
    )
    return get_insight(conn, insight_id)


def record_use(conn: apsw.Connection, insight_ids: Iterable[int], *, half_life_days: float, now: str) -> None:
    """Count a returned hit as use: hotness (decayed to now) + 1, use count + 1."""
    moment = _parse(now)
    for insight_id in set(insight_ids):
        row = fetch_row(conn, f"SELECT {INSIGHT_COLUMNS} FROM insights WHERE id = ?", (insight_id,))
        if row is None:
            continue
        warm = effective_hotness(insight_from_row(row), now=moment, half_life_days=half_life_days) + 1.0
        conn.execute(
            "UPDATE insights SET hotness = ?, use_count = use_count + 1, last_used_at = ? WHERE id = ?",
            (warm, now, insight_id),
        )


def try_record_use(conn: apsw.Connection, insight_ids: Iterable[int], *, half_life_days: float, now: str) -> bool:
    """Record use in its own short transaction; False when the database stayed busy.

    Hotness is a hint: a search or read must answer even when the writer
    holds the lock past the busy timeout.
    """
    try:
        with write_transaction(conn):
            record_use(conn, insight_ids, half_life_days=half_life_days, now=now)
    except apsw.BusyError:
        return False
    return True


def history_of(conn: apsw.Connection, insight_id: int) -> list[tuple[str, str, str, str]]:
    """Return the audit rows of an insight as (at, actor, action, detail), oldest first."""
    rows = fetch_rows(
        conn,
        "SELECT at, actor, action, detail FROM audit WHERE target = ? ORDER BY id",
        (item_id("insight", insight_id),),
    )
    return [(str(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]
