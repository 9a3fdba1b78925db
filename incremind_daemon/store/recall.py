"""What the preloaded context recalls: latest session state, recent activity, confirmed insights.

Scope rules (the privacy contract of the context blocks):

- A **global** block (``project=None``) sees every project except the private
  ones: sessions, activity, pending count, and the confirmed insights of
  global scope (who the person is, how to talk to them, habits that hold in
  every project).
- A **project** block sees that project's sessions, activity and confirmed
  insights, plus the global-scope insights of every non-private project. A
  private project's content appears only in its own block; a project-scoped
  insight never appears in another project's block.
- Never pending, rejected, forgotten or superseded insights, and never cold
  ones (effective hotness below ``cold_below``), except lasting categories,
  which do not cool.

The last part of the module keeps the ``context_targets`` rows: which files
hold a managed block and how their last write went.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import apsw

from incremind_daemon.store.db import fetch_row, fetch_rows
from incremind_daemon.store.insights import INSIGHT_COLUMNS, effective_hotness, insight_from_row
from incremind_daemon.store.records import LASTING, Insight
from incremind_daemon.store.snapshots import SnapshotParts, snapshot_from_json

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SessionState:
    """A session with its stored summary: where it stood when it was last summarized."""

    source_id: int
    agent: str
    session_id: str
    project: str
    at: str  # its last message (else its start), ISO 8601
    index_line: str
    snapshot: SnapshotParts


@dataclass(frozen=True, slots=True)
class Activity:
    """One dated index line: a session or a dropped file or note."""

    source_id: int
    kind: str  # session, file, note
    agent: str | None
    project: str
    at: str
    index_line: str


@dataclass(frozen=True, slots=True)
class RecalledInsight:
    """A confirmed insight in scope, with its hotness now."""

    insight: Insight
    hotness: float


def _excluded(private: Iterable[str]) -> str:
    return json.dumps(sorted(private))


def latest_sessions(
    conn: apsw.Connection,
    *,
    project: str | None,
    private: frozenset[str],
    agent: str | None = None,
    limit: int = 2,
) -> list[SessionState]:
    """Return the newest summarized sessions in scope, newest first."""
    rows = fetch_rows(
        conn,
        """SELECT s.id, ss.agent, ss.session_id, s.project,
                  coalesce(ss.last_message_at, ss.started_at, s.created_at) AS at, su.index_line, ss.snapshot
           FROM sessions ss JOIN sources s ON s.id = ss.source_id JOIN summaries su ON su.source_id = s.id
           WHERE (:project IS NULL OR s.project = :project) AND (:agent IS NULL OR ss.agent = :agent)
             AND (:project IS NOT NULL OR s.project NOT IN (SELECT value FROM json_each(:private)))
           ORDER BY at DESC, s.id DESC LIMIT :limit""",
        {"project": project, "agent": agent, "private": _excluded(private), "limit": limit},
    )
    states: list[SessionState] = []
    for r in rows:
        snapshot = snapshot_from_json(None if r[6] is None else str(r[6]))
        states.append(SessionState(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), snapshot))
    return states


def last_session_at(
    conn: apsw.Connection, *, project: str | None, private: frozenset[str], agent: str | None
) -> tuple[str, str] | None:
    """Return (time, project) of the newest session in scope, summarized or not."""
    row = fetch_row(
        conn,
        """SELECT coalesce(ss.last_message_at, ss.started_at, s.created_at) AS at, s.project
           FROM sessions ss JOIN sources s ON s.id = ss.source_id
           WHERE (:project IS NULL OR s.project = :project) AND (:agent IS NULL OR ss.agent = :agent)
             AND (:project IS NOT NULL OR s.project NOT IN (SELECT value FROM json_each(:private)))
           ORDER BY at DESC LIMIT 1""",
        {"project": project, "agent": agent, "private": _excluded(private)},
    )
    return None if row is None or row[0] is None else (str(row[0]), str(row[1]))


def recent_sessions(conn: apsw.Connection, *, project: str, limit: int = 12) -> list[Activity]:
    """Return the dated index lines of a project's newest summarized sessions, newest first.

    Only sessions: dropped files and saved notes reach a context block as
    confirmed insights or not at all.
    """
    rows = fetch_rows(
        conn,
        """SELECT s.id, s.kind, ss.agent, s.project,
                  coalesce(ss.last_message_at, ss.started_at, s.created_at) AS at, su.index_line
           FROM sessions ss JOIN sources s ON s.id = ss.source_id JOIN summaries su ON su.source_id = s.id
           WHERE s.project = :project
           ORDER BY at DESC, s.id DESC LIMIT :limit""",
        {"project": project, "limit": limit},
    )
    return [
        Activity(int(r[0]), str(r[1]), None if r[2] is None else str(r[2]), str(r[3]), str(r[4]), str(r[5]))
        for r in rows
    ]


def recallable_insights(
    conn: apsw.Connection, *, now: datetime, half_life_days: float, cold_below: float
) -> list[RecalledInsight]:
    """Return every confirmed insight a block may show, warm or lasting, in the order to keep them.

    Lasting categories (identity, preference, correction) come first, then the
    rest; each part by hotness now, the newest first among equals. A block cut
    short keeps the start of this order.
    """
    rows = fetch_rows(conn, f"SELECT {INSIGHT_COLUMNS} FROM insights WHERE status = 'confirmed'")
    kept: list[RecalledInsight] = []
    for row in rows:
        insight = insight_from_row(row)
        hot = effective_hotness(insight, now=now, half_life_days=half_life_days)
        if insight.category in LASTING or hot >= cold_below:
            kept.append(RecalledInsight(insight, hot))
    kept.sort(key=lambda r: (r.insight.category not in LASTING, -r.hotness, -r.insight.id))
    return kept


def insights_in_scope(
    pool: Iterable[RecalledInsight],
    *,
    project: str | None,
    private: frozenset[str],
    limit: int = 400,
    shared: bool = True,
) -> list[RecalledInsight]:
    """Keep the insights of ``pool`` that a block of this scope may show, in pool order.

    ``shared=False`` leaves out the global insights: a project's part of an
    agent's context, read beside the global block that holds them.
    """
    chosen: list[RecalledInsight] = []
    for recalled in pool:
        insight = recalled.insight
        is_global = insight.scope == "global"
        # a private project's global insights are nowhere else, so its own part keeps them
        own = project is not None and insight.project == project and (shared or not is_global or project in private)
        everywhere = shared and is_global and insight.project not in private
        if own or everywhere:
            chosen.append(recalled)
            if len(chosen) >= limit:
                break
    return chosen


def superseded_statements(conn: apsw.Connection, *, project: str) -> list[str]:
    """Return the statements of a project's superseded insights, and of the global ones, newest first.

    A context block never shows them; it uses them to keep an older session's state from saying
    them again ("Decisions: deadline is Dec 5" after "截止日期改到 12 月 19 日" replaced it).
    """
    rows = fetch_rows(
        conn,
        """SELECT statement FROM insights
           WHERE status = 'superseded' AND (project = :project OR scope = 'global')
           ORDER BY id DESC LIMIT 200""",
        {"project": project},
    )
    return [str(row[0]) for row in rows]


def recall_insights(
    conn: apsw.Connection,
    *,
    project: str | None,
    private: frozenset[str],
    now: datetime,
    half_life_days: float,
    cold_below: float,
    limit: int = 400,
) -> list[RecalledInsight]:
    """Return the confirmed insights a block of this scope may show, in the order to keep them."""
    pool = recallable_insights(conn, now=now, half_life_days=half_life_days, cold_below=cold_below)
    return insights_in_scope(pool, project=project, private=private, limit=limit)


def conflicting_pairs(conn: apsw.Connection, insight_ids: Iterable[int]) -> list[tuple[int, int]]:
    """Return the 'refutes' links whose two ends are both among the given insights."""
    wanted = set(insight_ids)
    if not wanted:
        return []
    rows = fetch_rows(conn, "SELECT from_id, to_id FROM links WHERE relation = 'refutes' ORDER BY at, from_id")
    return [(int(a), int(b)) for a, b in rows if int(a) in wanted and int(b) in wanted and a != b]


def active_projects(conn: apsw.Connection, *, limit: int = 200) -> list[str]:
    """Return the projects with sessions, the most recently active first."""
    rows = fetch_rows(
        conn,
        """SELECT s.project, max(coalesce(ss.last_message_at, ss.started_at, s.created_at)) AS at
           FROM sessions ss JOIN sources s ON s.id = ss.source_id
           GROUP BY s.project ORDER BY at DESC LIMIT ?""",
        (limit,),
    )
    return [str(r[0]) for r in rows]


# -- context targets: the files that hold a managed block --------------------------------------


@dataclass(frozen=True, slots=True)
class ContextTargetRow:
    """One file that holds (or is to hold) a managed context block, and how its last write went."""

    path: str
    kind: str  # global or project
    agent: str | None
    project: str | None
    mode: str  # inline or import
    enabled: bool
    created_file: bool
    digest: str | None = None
    tokens: int | None = None
    last_written_at: str | None = None
    problem: str | None = None


_TARGET_COLUMNS = "path, kind, agent, project, mode, enabled, created_file, digest, tokens, last_written_at, problem"


def _target(row: tuple[object, ...]) -> ContextTargetRow:
    path, kind, agent, project, mode, enabled, created, digest, tokens, written, problem = row
    return ContextTargetRow(
        str(path),
        str(kind),
        None if agent is None else str(agent),
        None if project is None else str(project),
        str(mode),
        bool(enabled),
        bool(created),
        None if digest is None else str(digest),
        None if tokens is None else int(str(tokens)),
        None if written is None else str(written),
        None if problem is None else str(problem),
    )


def context_targets(conn: apsw.Connection) -> list[ContextTargetRow]:
    """Return every recorded context target, globals first, then by path."""
    rows = fetch_rows(conn, f"SELECT {_TARGET_COLUMNS} FROM context_targets ORDER BY kind, path")
    return [_target(row) for row in rows]


def get_context_target(conn: apsw.Connection, path: str) -> ContextTargetRow | None:
    """Return the recorded target at this path, if any."""
    row = fetch_row(conn, f"SELECT {_TARGET_COLUMNS} FROM context_targets WHERE path = ?", (path,))
    return None if row is None else _target(row)


def save_context_target(conn: apsw.Connection, target: ContextTargetRow) -> None:
    """Insert or update a target's identity and switches; its write record stays."""
    conn.execute(
        """INSERT INTO context_targets (path, kind, agent, project, mode, enabled, created_file)
           VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (path) DO UPDATE SET kind = excluded.kind, agent = excluded.agent,
               project = excluded.project, mode = excluded.mode, enabled = excluded.enabled,
               created_file = max(context_targets.created_file, excluded.created_file)""",
        (
            target.path,
            target.kind,
            target.agent,
            target.project,
            target.mode,
            int(target.enabled),
            int(target.created_file),
        ),
    )


def record_context_write(
    conn: apsw.Connection,
    path: str,
    *,
    digest: str | None,
    tokens: int | None,
    written_at: str | None,
    problem: str | None,
    created_file: bool = False,
) -> None:
    """Record the outcome of one pass over a target; ``written_at`` None keeps the last write time."""
    conn.execute(
        """UPDATE context_targets SET digest = coalesce(?, digest), tokens = coalesce(?, tokens),
               last_written_at = coalesce(?, last_written_at), problem = ?,
               created_file = max(created_file, ?)
           WHERE path = ?""",
        (digest, tokens, written_at, problem, int(created_file), path),
    )
