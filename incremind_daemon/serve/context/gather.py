"""Collect what one block shows from the store, in scope and redacted."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

import apsw

from incremind_daemon.config import InsightSettings
from incremind_daemon.serve.context.render import ContextData
from incremind_daemon.store import recall

Scrub = Callable[[str], str]  # the daemon passes pipeline.redact.redact: credentials never reach a block
SESSIONS_SHOWN = 2
ACTIVITY_SHOWN = 12


def gather_context(
    conn: apsw.Connection,
    *,
    project: str | None,
    agent: str | None,
    private: frozenset[str],
    now: datetime,
    insights: InsightSettings,
    scrub: Scrub,
    pool: list[recall.RecalledInsight] | None = None,
    scrubbed: dict[int, recall.RecalledInsight] | None = None,
    limit: int = 400,
    shared: bool = True,
) -> ContextData:
    """Read everything a block for this scope shows; ``now`` is aware and sets the block's time zone.

    A global block (``project`` None) shows global insights only. A project
    block adds the project's own insights and its sessions: the state of the
    agent's own latest session there, then the latest of any agent when that
    is another one, and its recent sessions. A writer rendering many blocks
    passes the ``pool`` of recallable insights (read once per pass) and a
    ``scrubbed`` dict that remembers redacted insights across blocks.
    ``shared=False`` leaves the global insights out (``recall.insights_in_scope``).
    """
    states: list[recall.SessionState] = []
    activity: list[recall.Activity] = []
    if project is not None:
        if agent:
            states = recall.latest_sessions(conn, project=project, private=private, agent=agent, limit=1)
        for other in recall.latest_sessions(conn, project=project, private=private, limit=SESSIONS_SHOWN):
            if len(states) < SESSIONS_SHOWN and all(other.source_id != s.source_id for s in states):
                states.append(other)
        activity = recall.recent_sessions(conn, project=project, limit=ACTIVITY_SHOWN)
    last = recall.last_session_at(conn, project=project, private=private, agent=agent)
    if pool is None:
        pool = recall.recallable_insights(
            conn, now=now, half_life_days=insights.half_life_days, cold_below=insights.cold_below
        )
    memo = {} if scrubbed is None else scrubbed
    found: list[recall.RecalledInsight] = []
    for recalled in recall.insights_in_scope(pool, project=project, private=private, limit=limit, shared=shared):
        if recalled.insight.id not in memo:
            memo[recalled.insight.id] = _scrub_insight(recalled, scrub)
        found.append(memo[recalled.insight.id])
    return ContextData(
        project=project,
        agent=agent,
        now=now,
        last_session_at=last[0] if last else None,
        sessions=tuple(_scrub_session(s, scrub) for s in states),
        activity=tuple(replace(a, index_line=scrub(a.index_line)) for a in activity),
        insights=tuple(found),
        conflicts=tuple(recall.conflicting_pairs(conn, (r.insight.id for r in found))),
        superseded=tuple(recall.superseded_statements(conn, project=project)) if project and states else (),
    )


def _scrub_insight(recalled: recall.RecalledInsight, scrub: Scrub) -> recall.RecalledInsight:
    insight = recalled.insight
    return replace(
        recalled, insight=replace(insight, statement=scrub(insight.statement), condition=scrub(insight.condition))
    )


def _scrub_session(state: recall.SessionState, scrub: Scrub) -> recall.SessionState:
    parts = state.snapshot
    snapshot = replace(
        parts,
        goal=scrub(parts.goal),
        done=tuple(map(scrub, parts.done)),
        decisions=tuple(map(scrub, parts.decisions)),
        next_steps=tuple(map(scrub, parts.next_steps)),
    )
    return replace(state, index_line=scrub(state.index_line), snapshot=snapshot)


def no_scrub(text: str) -> str:
    """Return text unchanged: for tests and tools whose store text is already redacted."""
    return text
