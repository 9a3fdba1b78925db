"""Drill-down reads: from any memory id to the exact words of the raw original.

Every result carries a bounded window of the source's raw text (at most
``MAX_WINDOW`` characters) with its offsets, the span it cites, and the
length of the whole text, so a caller can ask for the next window with
``read_source_window(conn, source_id, offset=window.end)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import apsw

from incremind_daemon.errors import NotFound, QueryError
from incremind_daemon.store import insights, items, sessions
from incremind_daemon.store.db import fetch_row, fetch_rows
from incremind_daemon.store.records import Insight, SourceRef, item_id, row_number

DEFAULT_WINDOW = 2_000  # characters of raw text returned when no length is asked for
MAX_WINDOW = 8_000  # the most one read returns, whatever length is asked for


@dataclass(frozen=True, slots=True)
class RawWindow:
    """A slice of a source's raw text: ``text == raw_text[start:end]``.

    ``span_start``/``span_end`` are the cited words (absolute offsets, None
    when the window cites nothing); ``total`` is the raw text's length.
    """

    source_id: str
    start: int
    end: int
    total: int
    text: str
    span_start: int | None = None
    span_end: int | None = None

    @property
    def has_more(self) -> bool:
        return self.start > 0 or self.end < self.total


@dataclass(frozen=True, slots=True)
class SourceDrill:
    """A source and a window of its raw text."""

    id: str
    source: SourceRef
    media_type: str | None
    created_at: str
    summary_id: str | None
    passages: int
    raw: RawWindow


@dataclass(frozen=True, slots=True)
class ItemDrill:
    """A passage, summary or session message, with the raw words it came from."""

    id: str
    kind: str  # organized, summary or message
    tier: str
    text: str
    source: SourceRef
    start: int | None  # offsets of text in the raw original (None for a summary)
    end: int | None
    page: int | None
    raw: RawWindow
    role: str | None = None  # messages: user or assistant
    at: str | None = None


@dataclass(frozen=True, slots=True)
class LinkedInsight:
    """An insight linked to the one being read, with its statement."""

    id: str
    relation: str  # refutes, supplements, supersedes
    outgoing: bool  # True: the insight read -> this one; False: this one -> the insight read
    statement: str
    status: str


@dataclass(frozen=True, slots=True)
class EvidenceDrill:
    """One piece of evidence: the verbatim quote and the raw text around it."""

    quote: str
    source: SourceRef
    passage_id: str | None
    start: int
    end: int
    added_at: str
    raw: RawWindow


@dataclass(frozen=True, slots=True)
class InsightDrill:
    """An insight, its links and its evidence down to the raw original."""

    id: str
    insight: Insight
    links: tuple[LinkedInsight, ...]
    evidence: tuple[EvidenceDrill, ...]


Drill = SourceDrill | ItemDrill | InsightDrill


def drill(conn: apsw.Connection, public_id: str, *, home: Path, max_evidence: int = 5) -> Drill:
    """Return the item an id names with its drill-down; raise NotFound for a bad id."""
    kind, rowid = items.split_item_id(public_id)
    if kind == "raw":
        return read_source_window(conn, rowid, home=home)
    if kind == "insight":
        return drill_insight(conn, rowid, home=home, max_evidence=max_evidence)
    if kind == "organized":
        passage = items.get_passage(conn, rowid, home=home)
        raw = around_span(conn, passage.source.id, passage.start, passage.end)
        return ItemDrill(
            passage.id, kind, "organized", passage.text, passage.source, passage.start, passage.end, passage.page, raw
        )
    if kind == "summary":
        summary = items.get_summary(conn, rowid, home=home)
        first = summary.spans[0] if summary.spans else (0, 0)
        raw = around_span(conn, summary.source.id, first[0], first[1])
        text = f"{summary.index_line}\n{summary.summary}"
        return ItemDrill(summary.id, kind, "summary", text, summary.source, None, None, None, raw)
    return _drill_message(conn, rowid, home=home)


def _drill_message(conn: apsw.Connection, rowid: int, *, home: Path) -> ItemDrill:
    found = sessions.get_message(conn, rowid)
    if found is None:
        raise NotFound(f"no message {item_id('message', rowid)} in memory")
    source_id, message = found
    raw = around_span(conn, item_id("raw", source_id), message.start, message.end)
    return ItemDrill(
        item_id("message", rowid),
        "message",
        "raw",
        message.text,
        source_ref(conn, source_id, home=home),
        message.start,
        message.end,
        None,
        raw,
        role=message.role,
        at=message.at,
    )


def drill_insight(conn: apsw.Connection, insight_id: int, *, home: Path, max_evidence: int = 5) -> InsightDrill:
    """Return an insight with its linked insights and its newest evidence, each with its raw words."""
    insight = insights.get_insight(conn, insight_id)
    links: list[LinkedInsight] = []
    for link in insights.links_of(conn, insight_id):
        outgoing = link.from_id == insight_id
        other_id = link.to_id if outgoing else link.from_id
        row = fetch_row(conn, "SELECT statement, status FROM insights WHERE id = ?", (other_id,))
        if row is not None:
            links.append(LinkedInsight(item_id("insight", other_id), link.relation, outgoing, str(row[0]), str(row[1])))
    evidence: list[EvidenceDrill] = []
    for found in insights.evidence_of(conn, insight_id)[-max_evidence:]:
        source = item_id("raw", found.source_id)
        evidence.append(
            EvidenceDrill(
                found.quote,
                source_ref(conn, found.source_id, home=home),
                None if found.chunk_id is None else item_id("organized", found.chunk_id),
                found.start,
                found.end,
                found.added_at,
                around_span(conn, source, found.start, found.end),
            )
        )
    return InsightDrill(item_id("insight", insight_id), insight, tuple(links), tuple(evidence))


def read_source_window(
    conn: apsw.Connection, source_id: int, *, home: Path, offset: int = 0, length: int = DEFAULT_WINDOW
) -> SourceDrill:
    """Return a source with ``raw_text[offset:offset + length]`` (length capped at MAX_WINDOW)."""
    if offset < 0:
        raise QueryError("offset must be 0 or more (a character position in the raw text)")
    if length < 1:
        raise QueryError("length must be at least 1 character")
    record = items.get_source(conn, source_id)
    total = len(record.raw_text)
    if offset > total:
        raise QueryError(f"offset {offset} is past the end of {record.id}, whose raw text has {total} characters")
    end = min(total, offset + min(length, MAX_WINDOW))
    window = RawWindow(record.id, offset, end, total, record.raw_text[offset:end])
    summary_id = items.summary_of_source(conn, source_id)
    return SourceDrill(
        record.id,
        source_ref(conn, source_id, home=home),
        record.media_type,
        record.created_at,
        None if summary_id is None else item_id("summary", summary_id),
        items.passages_of_source(conn, source_id),
        window,
    )


def around_span(
    conn: apsw.Connection, source_id: str, start: int, end: int, *, width: int = DEFAULT_WINDOW
) -> RawWindow:
    """Return a window of at most ``width`` characters holding ``[start, end)`` with context on both sides.

    A span longer than the window is cut at its start plus ``width``; the
    window's ``end`` then falls before ``span_end``, and reading on from
    ``end`` gives the rest.
    """
    rowid = row_number(source_id)
    row = fetch_row(conn, "SELECT raw_text FROM sources WHERE id = ?", (rowid,))
    if row is None:
        raise NotFound(f"no source {source_id} in memory")
    text = str(row[0])
    total = len(text)
    start = max(0, min(start, total))
    end = max(start, min(end, total))
    if end - start >= width:
        lo, hi = start, start + width
    else:
        lo = max(0, start - (width - (end - start)) // 2)
        hi = min(total, lo + width)
        lo = max(0, hi - width)
    return RawWindow(source_id, lo, hi, total, text[lo:hi], start, end)


def source_ref(conn: apsw.Connection, source_id: int, *, home: Path) -> SourceRef:
    """Return how a source is named in results (title, project, kept original, session)."""
    row = fetch_row(
        conn, f"SELECT {items.SOURCE_COLUMNS} FROM sources s {items.SOURCE_JOIN} WHERE s.id = ?", (source_id,)
    )
    if row is None:
        raise NotFound(f"no source {item_id('raw', source_id)} in memory")
    return items.make_source_ref(row, home)


def list_projects(conn: apsw.Connection) -> list[str]:
    """Return every project that holds a source or an insight, by name."""
    rows = fetch_rows(conn, "SELECT project FROM sources UNION SELECT project FROM insights ORDER BY 1")
    return [str(r[0]) for r in rows]
