"""Redact the credentials that text stored under earlier redaction rules still holds.

Until 2026-12-01 the text of a dropped file and of a note saved through
``save_memory`` was stored as it came, and agent messages were redacted by
rules that missed whole families (npm and PyPI tokens, "数据库口令 …",
``admin / …``), so a credential could be indexed, embedded, turned into an
insight and written into agents' context files. Whenever the rules learn
more, ``redact.RULES_VERSION`` goes up and the worker runs this pass once at
its next start: one transaction per file, note or session, then the
insights, then the full-text indexes are merged and the WAL emptied with
SQLite zeroing what it frees, so a search no longer finds the credential and
the database file no longer holds it.

- A file or note gets its text and title redacted, and its passages and
  summary made again from them, as ingest now does.
- A session gets each message (rewound ones too) redacted, its text laid out
  again from them, its passages cut again, its summary redacted and marked
  for renewal.
- Every insight's statement and condition, its kept revisions and its
  evidence quotes are redacted in place.

Offsets stay exact: page starts, evidence quotes and how far the insight
step read move with the text (``redact.Redaction.moved``), and an evidence
quote that held part of a credential now holds its marker. The pass is
idempotent, so one cut short by a crash simply runs again.
"""

from __future__ import annotations

import bisect
import logging
from dataclasses import dataclass
from typing import Protocol

import apsw

from incremind_daemon.errors import NotFound
from incremind_daemon.pipeline.ingest import organize_text
from incremind_daemon.pipeline.redact import RULES_VERSION, Redaction, redact, redact_text
from incremind_daemon.pipeline.sessions import layout_session, turn_passages
from incremind_daemon.store import insight_jobs, insights, items, scrub, sessions
from incremind_daemon.store.db import write_transaction
from incremind_daemon.store.records import item_id
from incremind_daemon.store.sessions import MessageRow
from incremind_daemon.store.snapshots import SnapshotParts

log = logging.getLogger(__name__)

# meta: the RULES_VERSION that the stored text was last redacted with
RULES_KEY = "redaction_rules"


def redact_stored(conn: apsw.Connection, *, now: str) -> int:
    """Redact what earlier rules let through; return how many items changed.

    Runs once per ``RULES_VERSION``; later calls return 0 at once.
    """
    done = sessions.get_meta(conn, RULES_KEY)
    if done is not None and done.isdigit() and int(done) >= RULES_VERSION:
        return 0
    fixed = 0
    with scrub.scrubbing(conn):
        for source_id in items.document_ids(conn):
            with write_transaction(conn):
                fixed += _redact_document(conn, source_id, now=now)
        for source_id in scrub.session_ids(conn):
            with write_transaction(conn):
                fixed += _redact_session(conn, source_id, now=now)
        with write_transaction(conn):
            fixed += _redact_insights(conn, now=now)
        for table in scrub.TEXT_INDEXES if fixed else ():
            with write_transaction(conn):
                scrub.compact_text_index(conn, table)
        with write_transaction(conn):
            sessions.set_meta(conn, RULES_KEY, str(RULES_VERSION))
    if fixed:
        scrub.truncate_wal(conn)
        log.warning("redacted credentials stored under earlier rules in %d item(s)", fixed)
    return fixed


def _redact_document(conn: apsw.Connection, source_id: int, *, now: str) -> bool:
    try:
        source = items.get_source(conn, source_id)
    except NotFound:  # gone since the pass listed it
        return False
    redacted = redact_text(source.raw_text)
    title = redact(source.title)
    if not redacted.changed and title == source.title:
        return False
    text = redacted.text
    pages = tuple((redacted.moved(start), page) for start, page in source.pages)
    items.replace_source_text(conn, source_id, raw_text=text, title=title, pages=pages)
    sessions.delete_passages(conn, source_id, [row[0] for row in sessions.passage_spans_from(conn, source_id, 0)])
    passages, summary = organize_text(text, pages, title=title)
    items.insert_passages(conn, source_id, passages)
    items.upsert_summary(conn, source_id, summary, now=now)
    _move_marks(conn, source_id, text, redacted.moved)
    items.append_audit(conn, actor="daemon", action="redact", target=item_id("raw", source_id), now=now, detail={})
    return True


def _redact_session(conn: apsw.Connection, source_id: int, *, now: str) -> bool:
    try:
        source = items.get_source(conn, source_id)
    except NotFound:
        return False
    changed: dict[int, Redaction] = {}
    for rowid, text in scrub.message_texts(conn, source_id):
        redacted = redact_text(text)
        if redacted.changed:
            changed[rowid] = redacted
    title = redact(source.title)
    summary = scrub.summary_text(conn, source_id)
    clean_summary = None if summary is None else (redact(summary[0]), redact(summary[1]))
    state = scrub.session_snapshot(conn, source_id)
    clean_state = None if state is None else _redact_snapshot(state)
    if not changed and title == source.title and clean_summary == summary and clean_state == state:
        return False
    before = sessions.live_messages(conn, source_id)  # their offsets still point into the stored text
    for rowid, redacted in changed.items():
        scrub.replace_message_text(conn, rowid, redacted.text)
    layout = layout_session(sessions.live_messages(conn, source_id))
    mover = _SessionMover.build(before, layout.offsets, changed, old_length=len(source.raw_text), text=layout.text)
    scrub.replace_session_text(conn, source_id, raw_text=layout.text, title=title)
    sessions.set_message_offsets(conn, layout.offsets)
    sessions.delete_passages(conn, source_id, [row[0] for row in sessions.passage_spans_from(conn, source_id, 0)])
    items.insert_passages(conn, source_id, turn_passages(layout.text, layout.turns))
    if clean_summary is not None:
        scrub.replace_summary_text(conn, source_id, index_line=clean_summary[0], summary=clean_summary[1])
    if clean_state is not None and clean_state != state:  # what context blocks show until the summary is renewed
        scrub.replace_session_snapshot(conn, source_id, clean_state)
    _move_marks(conn, source_id, layout.text, mover.moved)
    items.append_audit(conn, actor="daemon", action="redact", target=item_id("raw", source_id), now=now, detail={})
    return True


def _redact_snapshot(state: SnapshotParts) -> SnapshotParts:
    return SnapshotParts(
        redact(state.goal),
        tuple(map(redact, state.done)),
        tuple(map(redact, state.decisions)),
        tuple(map(redact, state.next_steps)),
        tuple(map(redact, state.files)),
    )


class _Mover(Protocol):
    def __call__(self, offset: int, *, closing: bool = False) -> int: ...


def _move_marks(conn: apsw.Connection, source_id: int, text: str, moved: _Mover) -> None:
    """Move a source's evidence quotes and insight mark onto its new text."""
    for row, start, end in insights.evidence_spans(conn, source_id):
        new_start, new_end = moved(start), moved(end, closing=True)
        insights.move_evidence(conn, row, quote=text[new_start:new_end], start=new_start, end=new_end)
    upto = insight_jobs.examined_upto(conn, source_id)
    if upto is not None:
        insight_jobs.move_examined_upto(conn, source_id, moved(upto, closing=True))


@dataclass(frozen=True, slots=True)
class _SessionMover:
    """Where an offset into a session's stored text lands in its new text."""

    starts: tuple[int, ...]  # of each placed message in the stored text, in order
    placed: tuple[tuple[int, int, int, Redaction | None], ...]  # old start, old end, new start, its redaction
    old_length: int
    new_length: int

    @classmethod
    def build(
        cls,
        before: list[MessageRow],
        offsets: list[tuple[int, int, int]],
        changed: dict[int, Redaction],
        *,
        old_length: int,
        text: str,
    ) -> _SessionMover:
        new_starts = {rowid: start for start, _, rowid in offsets}
        placed = sorted(
            ((m.start, m.end, new_starts[m.id], changed.get(m.id)) for m in before if m.end > 0),  # end 0: unplaced
            key=lambda entry: entry[:3],
        )
        return cls(tuple(entry[0] for entry in placed), tuple(placed), old_length, len(text))

    def moved(self, offset: int, *, closing: bool = False) -> int:
        at = bisect.bisect_right(self.starts, offset) - 1
        if at >= 0:
            old_start, old_end, new_start, redaction = self.placed[at]
            if offset <= old_end:  # inside this message's text
                inside = offset - old_start
                return new_start + (redaction.moved(inside, closing=closing) if redaction else inside)
        if at + 1 < len(self.placed):  # in the labels between messages, which are unchanged
            old_start, _, new_start, _ = self.placed[at + 1]
            return max(0, new_start - (old_start - offset))
        return max(0, min(self.new_length, self.new_length - (self.old_length - offset)))


def _redact_insights(conn: apsw.Connection, *, now: str) -> int:
    fixed = 0
    for insight_id, statement, condition in scrub.insight_texts(conn):
        clean = redact(statement), redact(condition)
        if clean != (statement, condition):
            scrub.replace_insight_text(conn, insight_id, statement=clean[0], condition=clean[1])
            target = item_id("insight", insight_id)
            items.append_audit(conn, actor="daemon", action="redact", target=target, now=now, detail={})
            fixed += 1
    for insight_id, revision, statement, condition in scrub.revision_texts(conn):
        clean = redact(statement), redact(condition)
        if clean != (statement, condition):
            scrub.replace_revision_text(conn, insight_id, revision, statement=clean[0], condition=clean[1])
    for row, quote in scrub.evidence_quotes(conn):
        clean_quote = redact(quote)
        if clean_quote != quote:  # a quote whose source was redacted already holds the marker
            scrub.replace_quote(conn, row, clean_quote)
    return fixed
