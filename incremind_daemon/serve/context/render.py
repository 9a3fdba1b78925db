"""Render what memory recalls for one scope as a context block within a token budget.

Pure: the data comes in as values, the text goes out. A global block (no
project) holds the person's global rules; a project block adds where that
project's work stands, its own rules and decisions, and its recent sessions.
The block is Markdown in this order: header, time anchor, where things
stand, confirmed memory (grouped by category, conflicting pairs together),
recent sessions. The first two lines depend on the clock and nothing else;
everything below them changes only when memory does, which is how a writer
tells a real change from a new minute.

Over budget, the lowest-priority lines go first. Highest first: the
project's corrections and decisions, the latest session's state (its next
step first), global rules, the project's other rules (hottest first), an
older session's state, recent sessions. The corrections and decisions fill
at most ``DECISIONS_SHARE`` of the budget ahead of the latest session's
state; past it, the rest come after that state, so that a project with many
decisions still starts its session knowing where the work stands. A heading goes when nothing under it
is left; the header and the time anchor always stay. Every stored text is
rendered through ``defuse``: one line, inert.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from incremind_daemon.serve.context.anchor import anchor_line, format_moment, header_line
from incremind_daemon.serve.context.tokens import PER_NEWLINE, estimate_tokens, token_weight
from incremind_daemon.store.clock import parse_moment
from incremind_daemon.store.recall import Activity, RecalledInsight, SessionState
from incremind_daemon.store.records import LASTING, item_id

log = logging.getLogger(__name__)

HEAD_LINES = 2  # header and time anchor: the clock-dependent lines at the top of every block
STATEMENT_CHARS = 300
CONDITION_CHARS = 120
SNAPSHOT_ITEMS = 3  # the newest items of each list of a session's state
COVERED_SHARE = 0.6  # of a state item's character pairs found in a confirmed insight: the same thing said
DECISIONS_SHARE = 0.8  # of the budget the project's corrections and decisions take ahead of its latest state
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
# priority tiers, highest kept longest; a tier's lines are ordered within its million
_PROJECT_FIRST = 6_000_000  # the project's corrections and decisions
_LATEST_STATE = 5_000_000  # where the project's latest session stands
_MORE_DECISIONS = 4_500_000  # the project's corrections and decisions past their share of the budget
_GLOBAL_RULES = 4_000_000
_PROJECT_RULES = 3_000_000
_OLDER_STATE = 2_000_000
_ACTIVITY = 1_000_000

# An @-path at a word start is an import for Claude Code and Gemini CLI; inside a code span it is not.
_IMPORT = re.compile(r"(?<![\w`@])@(?=[~./\w-])[^\s`，。；：！？、）]+")
_FENCE = re.compile(r"`{3,}|~{3,}")
_TICKS = re.compile(r"`+")
_AFTER_PATH = ").,;:!?]}'\"，。；：！？）"
# control and format characters: NUL, escapes, zero-width and bidirectional marks
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


@dataclass(frozen=True, slots=True)
class ContextData:
    """Everything one block shows, already in scope and redacted.

    A global block (``project`` None) has no sessions and no activity; a
    project block's sessions and activity are that project's own sessions.
    """

    project: str | None  # None: a global block
    agent: str | None  # the agent whose last session anchors the time; None: any
    now: datetime  # aware; the block shows times in its zone
    last_session_at: str | None
    sessions: tuple[SessionState, ...] = ()
    activity: tuple[Activity, ...] = ()
    insights: tuple[RecalledInsight, ...] = ()
    conflicts: tuple[tuple[int, int], ...] = ()
    superseded: tuple[str, ...] = ()  # statements replaced by newer ones: no session's state says them again


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
    """Make stored text inert on one block line: no markers, imports, fences or control characters."""
    text = _INVISIBLE.sub("", " ".join(text.split()))
    text = text.replace("<!--", "<!-").replace("-->", "->")  # never a marker or a hidden comment
    text = _FENCE.sub(lambda m: m.group(0)[:2], text)
    if limit is not None and len(text) > limit:
        text = _clip_at_word(text, limit)
    # code spans stay as they are ("`/src/gateway/ @tomas-r`"); a backtick that opens none, one cut by the
    # clip say, is a quote mark, so the spans made here for imports open and close where they are meant to
    out: list[str] = []
    done = 0
    for start, end in _code_spans(text):
        out += [_defuse_imports(text[done:start].replace("`", "'")), text[start:end]]
        done = end
    out.append(_defuse_imports(text[done:].replace("`", "'")))
    return "".join(out)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Return the inline code spans of a line: a run of backticks up to the next run of the same length."""
    runs = list(_TICKS.finditer(text))
    spans: list[tuple[int, int]] = []
    at = 0
    while at < len(runs):
        opener = runs[at]
        close = next((k for k in range(at + 1, len(runs)) if len(runs[k].group()) == len(opener.group())), None)
        if close is None:
            at += 1
            continue
        spans.append((opener.start(), runs[close].end()))
        at = close + 1
    return spans


def _defuse_imports(text: str) -> str:
    """Put each @-path in a code span of its own, the punctuation after it left outside ("(`@tomas-r`)")."""

    def span(match: re.Match[str]) -> str:
        path = match.group(0)
        core = path.rstrip(_AFTER_PATH) or path
        return f"`{core}`{path[len(core) :]}"

    return _IMPORT.sub(span, text)


def _clip_at_word(text: str, limit: int) -> str:
    """Clip to ``limit`` characters with an ellipsis, at a word or clause end where one is near."""
    cut = text[: limit - 1]
    space = max(cut.rfind(" "), max(cut.rfind(c) for c in "，。；、,;"))
    if space >= limit * 0.6:
        cut = cut[: space + 1]
    return cut.rstrip(" ,;:，；：、") + "…"


def head_lines(data: ContextData) -> tuple[str, str]:
    """Return the header and the time anchor of a block."""
    last = parse_moment(data.last_session_at) if data.last_session_at else None
    # a global block is read in every folder: naming the project of the last session would put another
    # project's name before an agent working in this one
    return header_line(data.now), anchor_line(data.now, last, agent=data.agent, where=data.project)


def render_context_block(data: ContextData, budget: int) -> RenderedBlock:
    """Render the block for one scope, dropping the lowest-priority lines to stay within ``budget`` tokens."""
    lines: list[_Line] = [_Line(text, _KEEP) for text in head_lines(data)]
    shown_sessions = _add_sessions(lines, data)
    _add_insights(lines, data)
    _add_activity(lines, data, shown_sessions)
    if shown_sessions:
        _leave_room_for_state(lines, budget)
    kept, dropped = _fit(lines, budget)
    text = "\n".join(line.text for line, keep in zip(lines, kept, strict=True) if keep)
    shown = tuple(line.insight for line, keep in zip(lines, kept, strict=True) if keep and line.insight)
    return RenderedBlock(text, estimate_tokens(text), budget, dropped, shown)


def _leave_room_for_state(lines: list[_Line], budget: int) -> None:
    """Rank the project's corrections and decisions past their share of the budget below its latest state."""
    first = sorted((line for line in lines if _PROJECT_FIRST <= line.rank < _KEEP), key=lambda line: -line.rank)
    room = DECISIONS_SHARE * budget
    for line in first:
        room -= _weight(line)
        if room < 0:
            line.rank += _MORE_DECISIONS - _PROJECT_FIRST  # its order among them stays


def _heading(lines: list[_Line], text: str, parents: tuple[int, ...] = ()) -> int:
    lines.append(_Line(text, _KEEP, parents))
    return len(lines) - 1


def _add_sessions(lines: list[_Line], data: ContextData) -> set[int]:
    if not data.sessions:
        return set()
    section = _heading(lines, "\n## Where things stand")
    # a decision the block already holds as a confirmed insight is not said twice, and one a newer
    # decision replaced is not said at all
    said = [_bigrams(r.insight.statement) for r in data.insights] + [_bigrams(s) for s in data.superseded]
    later: list[str] = []  # what the newer sessions of the project did and set out to do
    for position, session in enumerate(data.sessions):
        base = _LATEST_STATE if position == 0 else _OLDER_STATE - 10 * position
        when = _moment(session.at, data.now)
        title = defuse(session.index_line, 100)
        project = defuse(session.project, 64)
        parts = session.snapshot
        # the goal line says what the title would say again
        title = "" if _same(parts.goal).startswith(_same(title)) else f": {title}"
        heading = f"### {project} · {session.agent} session, active {when}{title} (src-{session.source_id})"
        lines.append(_Line(heading, base + 5, (section,)))
        head = len(lines) - 1
        done = _items(parts.done, first=True)
        # an older session's next step that a newer session has done is not said as next again
        steps = [
            step
            for step in _items(parts.next_steps, without=[defuse(item, 160) for item in parts.done])
            if not _taken_up(step, later)
        ]
        # …nor a decision the goal line or a next step already says ("质量检查用 great_expectations…" in both)
        known = [*said, _bigrams(parts.goal), *map(_bigrams, steps)]
        decided = [d for d in _items(parts.decisions) if not any(_covers(k, _bigrams(d)) for k in known)]
        later += [*done, parts.goal]
        # cut first: progress, then the goal, then decisions; the next step (never what is done) stays longest
        for label, value, order in (
            ("Goal", defuse(parts.goal, 320), 2),  # pipeline.goal keeps a goal to 280 characters
            ("Progress", "; ".join(done), 1),
            ("Decisions", "; ".join(decided), 3),
            ("Next", "; ".join(steps), 4),
        ):
            if value:
                lines.append(_Line(f"- {label}: {value}", base + order, (section, head)))
    return {session.source_id for session in data.sessions}


def _items(items: tuple[str, ...], without: Iterable[str] = (), *, first: bool = False) -> list[str]:
    """Return the newest items of a state list, defused, each once and none of ``without``.

    ``first``: of too many, the oldest item stays too, where a session's work says what it did as a whole
    ("Vite 6 升级完成") before the detail and the commits that follow.
    """
    if first and len(items) > SNAPSHOT_ITEMS:
        head = _items(items[:1])
        return head + _items(items[1:], (*without, *items[:1]))[-(SNAPSHOT_ITEMS - len(head)) :]
    seen = {_same(item) for item in without}
    out: list[str] = []
    for item in reversed(items):
        text = defuse(item, 160)
        if text and _same(text) not in seen:
            seen.add(_same(text))
            out.append(text)
        if len(out) == SNAPSHOT_ITEMS:
            break
    return out[::-1]


_FILE_NAME = re.compile(
    r"[\w-]+\.(?:py|ts|tsx|js|jsx|go|rs|rb|java|kt|sql|md|json|ya?ml|toml|sh|ipynb|css|html|c|h|cpp)\b"
)


def _taken_up(step: str, later: list[str]) -> bool:
    """Tell whether newer sessions did a step or set out to: they name its file, or hold most of its words."""
    if not later:
        return False
    newer = " ".join(later).casefold()
    if any(name.casefold() in newer for name in _FILE_NAME.findall(step)):
        return True
    return _covers(_bigrams(newer), _bigrams(step))


def _bigrams(text: str) -> frozenset[str]:
    """Return the character pairs of a text's compared form: a measure of shared wording in any script."""
    folded = _same(text)
    return frozenset(folded[i : i + 2] for i in range(len(folded) - 1))


def _covers(known: frozenset[str], item: frozenset[str]) -> bool:
    """Tell whether most of an item's wording is in a known statement."""
    return bool(item) and len(item & known) >= COVERED_SHARE * len(item)


def _same(text: str) -> str:
    """Return the form two lines are compared in: case, spaces and end punctuation aside."""
    return "".join(text.casefold().split()).rstrip(".。!！…")


def _add_activity(lines: list[_Line], data: ContextData, shown: set[int]) -> None:
    items = [a for a in data.activity if a.source_id not in shown]
    if not items:
        return
    section = _heading(lines, "\n## Recent sessions")
    for position, item in enumerate(items):
        day = _moment(item.at, data.now)[:10]
        text = f"- {day} · {item.agent} session: {defuse(item.index_line, 120)} ({item_id('raw', item.source_id)})"
        lines.append(_Line(text, _ACTIVITY - position, (section,)))


def _insight_rank(recalled: RecalledInsight, data: ContextData) -> int:
    """Return the priority tier of an insight in this block (see the module docstring)."""
    insight = recalled.insight
    if data.project is None or insight.scope == "global" or insight.project != data.project:
        return _GLOBAL_RULES
    return _PROJECT_FIRST if insight.category in ("correction", "decision") else _PROJECT_RULES


def _add_insights(lines: list[_Line], data: ContextData) -> None:
    seen: set[str] = set()
    unique: list[RecalledInsight] = []
    for recalled in data.insights:  # the same statement twice (two projects, two saves) is shown once
        key = _same(defuse(recalled.insight.statement))
        if key not in seen:
            seen.add(key)
            unique.append(recalled)
    if not unique:
        return
    by_id = {r.insight.id: r for r in unique}
    pairs = [(by_id[a], by_id[b]) for a, b in data.conflicts if a in by_id and b in by_id]
    paired = {r.insight.id for pair in pairs for r in pair}
    lasting = [r for r in unique if r.insight.category in LASTING and r.insight.id not in paired]
    others = [r for r in unique if r.insight.category not in LASTING and r.insight.id not in paired]
    groups: list[tuple[str, list[tuple[str, RecalledInsight]]]] = []
    for category in CATEGORY_TITLES:
        members = [r for r in lasting if r.insight.category == category]
        if members:
            groups.append((CATEGORY_TITLES[category], [(_insight_line(r), r) for r in members]))
    if pairs:
        position = {r.insight.id: n for n, r in enumerate(unique)}
        shown = [
            (f"- {_insight_text(a)} ⟷ {_insight_text(b)}", min(a, b, key=lambda r: position[r.insight.id]))
            for a, b in pairs
        ]
        groups.append(("Conflicting (both confirmed; which holds is not settled)", shown))
    # the other categories, hottest category first, each by hotness (recall gave them in that order)
    for category in dict.fromkeys(r.insight.category for r in others):
        members = [r for r in others if r.insight.category == category]
        groups.append((CATEGORY_TITLES[category], [(_insight_line(r), r) for r in members]))
    section = _heading(lines, "\n## Confirmed memory")
    # within a tier, cut in recall order (lasting first, then by hotness), whatever group a line is in
    keep_order = {r.insight.id: len(unique) - position for position, r in enumerate(unique)}
    for title, entries in groups:
        head = _heading(lines, f"### {title}", (section,))
        for text, recalled in entries:
            rank = _insight_rank(recalled, data) + keep_order[recalled.insight.id]
            lines.append(_Line(text, rank, (section, head), recalled.insight.id))


def _insight_text(recalled: RecalledInsight) -> str:
    insight = recalled.insight
    text = f"[{item_id('insight', insight.id)}] {defuse(insight.statement, STATEMENT_CHARS)}"
    if insight.condition.strip():
        text += f" (when: {defuse(insight.condition, CONDITION_CHARS)})"
    return text


def _insight_line(recalled: RecalledInsight) -> str:
    return f"- {_insight_text(recalled)}"


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
