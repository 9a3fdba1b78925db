"""Render what memory recalls for one scope as a context block within a token budget.

Pure: the data comes in as values, the text goes out. The block is Markdown in
this order: header, time anchor, where the latest session(s) stand, recent
activity, confirmed insights (lasting categories first, conflicting pairs
shown together, the rest by hotness), and the pending count. The first two
lines depend on the clock and nothing else; everything below them changes only
when memory does, which is how a writer tells a real change from a new minute.

Over budget, lines are cut from the bottom up: the pending line first, then
the coolest insights, then the oldest activity, then the older session's
state; a heading goes when nothing under it is left. The header and the time
anchor always stay.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime

from incremind_daemon.serve.context.anchor import anchor_line, format_moment, header_line, parse_moment
from incremind_daemon.serve.context.tokens import PER_NEWLINE, estimate_tokens, token_weight
from incremind_daemon.store.recall import Activity, RecalledInsight, SessionState
from incremind_daemon.store.records import LASTING, item_id

log = logging.getLogger(__name__)

HEAD_LINES = 2  # header and time anchor: the clock-dependent lines at the top of every block
STATEMENT_CHARS = 300
CONDITION_CHARS = 120
SNAPSHOT_ITEMS = 3  # the newest items of each list of a session's state
CATEGORY_TITLES = {
    "identity": "Identity",
    "preference": "Preferences",
    "correction": "Corrections",
    "decision": "Decisions",
    "entity": "People, things and places",
    "event": "Events",
    "method": "Methods",
}
_KEEP = 1 << 30  # rank of lines that are never cut

# An @-path at a word start is an import for Claude Code and Gemini CLI; inside a code span it is not.
_IMPORT = re.compile(r"(?<![\w`@])@(?=[~./\w-])[^\s`]+")


@dataclass(frozen=True, slots=True)
class ContextData:
    """Everything one block shows, already in scope and redacted."""

    project: str | None  # None: a global block
    agent: str | None  # the agent whose last session anchors the time; None: any
    now: datetime  # aware; the block shows times in its zone
    last_session_at: str | None
    last_session_project: str | None
    sessions: tuple[SessionState, ...] = ()
    activity: tuple[Activity, ...] = ()
    insights: tuple[RecalledInsight, ...] = ()
    conflicts: tuple[tuple[int, int], ...] = ()
    pending: int = 0


@dataclass(frozen=True, slots=True)
class RenderedBlock:
    """A block's text (LF newlines, no markers, no trailing newline) and its estimated size."""

    text: str
    tokens: int
    budget: int
    dropped: int  # lines cut to stay within the budget
    shown_insights: tuple[int, ...] = ()

    @property
    def body(self) -> str:
        """Return the lines below the header and the time anchor."""
        return "\n".join(self.text.split("\n")[HEAD_LINES:])


@dataclass(slots=True)
class _Line:
    text: str
    rank: int  # lower is cut first
    parents: tuple[int, ...] = ()  # indexes of the headings this line sits under
    insight: int | None = None
    weight: float = field(default=0.0)


def defuse(text: str, limit: int | None = None) -> str:
    """Make stored text safe for one block line: one line, no marker or import syntax, clipped."""
    text = " ".join(text.split())
    text = text.replace("<!--", "<!-").replace("-->", "->")  # never a marker or a hidden comment
    if limit is not None and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return _IMPORT.sub(lambda m: f"`{m.group(0)}`", text)


def head_lines(data: ContextData) -> tuple[str, str]:
    """Return the header and the time anchor of a block."""
    last = parse_moment(data.last_session_at) if data.last_session_at else None
    where = data.project or data.last_session_project
    return header_line(data.now), anchor_line(data.now, last, agent=data.agent, where=where)


def render_context_block(data: ContextData, budget: int) -> RenderedBlock:
    """Render the block for one scope, cutting from the bottom up to stay within ``budget`` tokens."""
    lines: list[_Line] = [_Line(text, _KEEP) for text in head_lines(data)]
    shown_sessions = _add_sessions(lines, data)
    _add_activity(lines, data, shown_sessions)
    _add_insights(lines, data)
    if data.pending:
        noun = "insight waits" if data.pending == 1 else "insights wait"
        lines.append(_Line(f"\n{data.pending} candidate {noun} for review (`incremind pending` lists them).", 0))
    kept, dropped = _fit(lines, budget)
    text = "\n".join(line.text for line, keep in zip(lines, kept, strict=True) if keep)
    shown = tuple(line.insight for line, keep in zip(lines, kept, strict=True) if keep and line.insight)
    return RenderedBlock(text, estimate_tokens(text), budget, dropped, shown)


def _heading(lines: list[_Line], text: str, parents: tuple[int, ...] = ()) -> int:
    lines.append(_Line(text, _KEEP, parents))
    return len(lines) - 1


def _add_sessions(lines: list[_Line], data: ContextData) -> set[int]:
    if not data.sessions:
        return set()
    section = _heading(lines, "\n## Where things stand")
    for position, session in enumerate(data.sessions):
        base = 3_000_000 - 10 * position  # an older session's state goes before the newest one's
        when = _moment(session.at, data.now)
        title = defuse(session.index_line, 100)
        heading = f"### {session.project} · {session.agent} session, active {when}: {title} (src-{session.source_id})"
        lines.append(_Line(heading, base + 5, (section,)))
        head = len(lines) - 1
        parts = session.snapshot
        # within a session: progress goes first, then decisions, then next steps; the goal goes last
        for label, value, order in (
            ("Goal", defuse(parts.goal, 240), 4),
            ("Progress", _newest(parts.done), 1),
            ("Decisions", _newest(parts.decisions), 2),
            ("Next", _newest(parts.next_steps), 3),
        ):
            if value:
                lines.append(_Line(f"- {label}: {value}", base + order, (section, head)))
    return {session.source_id for session in data.sessions}


def _newest(items: tuple[str, ...]) -> str:
    return "; ".join(defuse(item, 160) for item in items[-SNAPSHOT_ITEMS:])


def _add_activity(lines: list[_Line], data: ContextData, shown: set[int]) -> None:
    items = [a for a in data.activity if a.source_id not in shown]
    if not items:
        return
    section = _heading(lines, "\n## Recent activity")
    for position, item in enumerate(items):
        day = _moment(item.at, data.now)[:10]
        what = f"{item.agent} session" if item.kind == "session" and item.agent else item.kind
        text = f"- {day} · {item.project} · {what}: {defuse(item.index_line, 120)} ({item_id('raw', item.source_id)})"
        lines.append(_Line(text, 2_000_000 - position, (section,)))


def _add_insights(lines: list[_Line], data: ContextData) -> None:
    if not data.insights:
        return
    by_id = {r.insight.id: r for r in data.insights}
    paired = {i for pair in data.conflicts for i in pair}
    lasting = [r for r in data.insights if r.insight.category in LASTING and r.insight.id not in paired]
    others = [r for r in data.insights if r.insight.category not in LASTING and r.insight.id not in paired]
    groups: list[tuple[str, list[str], list[int]]] = []
    for category in CATEGORY_TITLES:
        members = [r for r in lasting if r.insight.category == category]
        if members:
            groups.append((CATEGORY_TITLES[category], [_insight_line(r, data) for r in members], _ids(members)))
    pairs = [(by_id[a], by_id[b]) for a, b in data.conflicts if a in by_id and b in by_id]
    if pairs:
        texts = [f"- {_insight_text(a, data)} ⟷ {_insight_text(b, data)}" for a, b in pairs]
        position = {r.insight.id: n for n, r in enumerate(data.insights)}
        first = [min(a.insight.id, b.insight.id, key=position.__getitem__) for a, b in pairs]
        groups.append(("Conflicting (both confirmed; which holds is not settled)", texts, first))
    # the other categories, hottest category first, each by hotness (recall gave them in that order)
    seen: list[str] = []
    for r in others:
        if r.insight.category not in seen:
            seen.append(r.insight.category)
    for category in seen:
        members = [r for r in others if r.insight.category == category]
        groups.append((CATEGORY_TITLES[category], [_insight_line(r, data) for r in members], _ids(members)))
    section = _heading(lines, "\n## Confirmed memory")
    # cut in recall order (lasting first, then by hotness), whatever group a line is shown in
    keep_order = {r.insight.id: len(data.insights) - position for position, r in enumerate(data.insights)}
    for title, texts, ids in groups:
        head = _heading(lines, f"### {title}", (section,))
        for text, insight in zip(texts, ids, strict=True):
            lines.append(_Line(text, 1_000_000 + keep_order[insight], (section, head), insight))


def _ids(members: list[RecalledInsight]) -> list[int]:
    return [r.insight.id for r in members]


def _insight_text(recalled: RecalledInsight, data: ContextData) -> str:
    insight = recalled.insight
    text = f"[{item_id('insight', insight.id)}] {defuse(insight.statement, STATEMENT_CHARS)}"
    notes = []
    if insight.condition.strip():
        notes.append(f"when: {defuse(insight.condition, CONDITION_CHARS)}")
    if insight.project != data.project:
        notes.append(f"from {insight.project}")
    return text + (f" ({'; '.join(notes)})" if notes else "")


def _insight_line(recalled: RecalledInsight, data: ContextData) -> str:
    return f"- {_insight_text(recalled, data)}"


def _moment(stamp: str, now: datetime) -> str:
    moment = parse_moment(stamp)
    if moment is None:
        return stamp[:16]
    return format_moment(moment.astimezone(now.tzinfo))[:16]


def _fit(lines: list[_Line], budget: int) -> tuple[list[bool], int]:
    """Decide which lines stay: the highest-ranked that fit, each with the headings it sits under.

    The same as cutting the lowest-ranked line until the block fits, but only
    the lines kept (and the first that does not fit) are weighed.
    """
    headings = {parent for line in lines for parent in line.parents}
    kept = [line.rank >= _KEEP and index not in headings for index, line in enumerate(lines)]
    total = sum(_weight(line) for line, keep in zip(lines, kept, strict=True) if keep) - PER_NEWLINE
    droppable = sorted((i for i, line in enumerate(lines) if line.rank < _KEEP), key=lambda i: -lines[i].rank)
    taken = 0
    for index in droppable:
        if kept[index]:
            taken += 1  # a heading that came in with an earlier line
            continue
        new = [p for p in lines[index].parents if not kept[p]]
        cost = _weight(lines[index]) + sum(_weight(lines[p]) for p in new)
        if total + cost > budget:
            break
        total += cost
        taken += 1
        for p in (index, *new):
            kept[p] = True
    return kept, len(droppable) - taken


def _weight(line: _Line) -> float:
    if not line.weight:
        line.weight = token_weight(line.text) + PER_NEWLINE
    return line.weight
