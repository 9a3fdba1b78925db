"""Redact credentials that earlier versions stored in the text of files and saved notes.

Until 2026-12-01 the text of a dropped file and of a note saved through
``save_memory`` was stored as it came (agent messages were always redacted),
so an API key in a runbook was indexed, embedded and returned to agents. The
worker runs this once per store, one source per transaction: each file or
note whose text holds a credential gets its text and title redacted and its
passages and summary made again from them, as ingest now does.

Offsets into the text stay exact: the text is cut at every offset something
else points at (page starts, insight evidence, how far the insight step read),
each piece is redacted on its own, and each offset moves to where its cut
landed. A credential that straddles such a cut may be missed on both sides;
pieces are rarely that short.
"""

from __future__ import annotations

import logging

import apsw

from incremind_daemon.errors import NotFound
from incremind_daemon.pipeline.ingest import organize_text
from incremind_daemon.pipeline.redact import find_secrets, redact, redact_between
from incremind_daemon.store import insight_jobs, insights, items, sessions
from incremind_daemon.store.db import write_transaction
from incremind_daemon.store.records import item_id

log = logging.getLogger(__name__)

# meta: when the pass over the store finished; a new key when the redactor learns new formats, so
# stores it already passed over are read once more (v2: npm, PyPI, SendGrid, Telegram, stated in words …)
DONE_KEY = "redacted_stored_text_v2"


def redact_stored(conn: apsw.Connection, *, now: str) -> int:
    """Redact every file and note stored with credentials in its text, once per store; return how many."""
    if sessions.get_meta(conn, DONE_KEY) is not None:
        return 0
    fixed = 0
    for source_id in items.document_ids(conn):
        with write_transaction(conn):
            if _redact_source(conn, source_id, now=now):
                fixed += 1
    with write_transaction(conn):
        sessions.set_meta(conn, DONE_KEY, now)
    if fixed:
        log.warning("redacted credentials stored earlier in %d file(s) and note(s)", fixed)
    return fixed


def _redact_source(conn: apsw.Connection, source_id: int, *, now: str) -> bool:
    try:
        source = items.get_source(conn, source_id)
    except NotFound:  # gone since the pass listed it
        return False
    if not find_secrets(source.raw_text) and not find_secrets(source.title):
        return False
    evidence = insights.evidence_spans(conn, source_id)
    upto = insight_jobs.examined_upto(conn, source_id)
    cuts = {start for start, _ in source.pages}
    cuts.update(offset for _, start, end in evidence for offset in (start, end))
    if upto is not None:
        cuts.add(upto)
    text, moved = redact_between(source.raw_text, cuts)
    pages = tuple((moved[start], page) for start, page in source.pages)
    title = redact(source.title)
    items.replace_source_text(conn, source_id, raw_text=text, title=title, pages=pages)
    sessions.delete_passages(conn, source_id, [row[0] for row in sessions.passage_spans_from(conn, source_id, 0)])
    passages, summary = organize_text(text, pages, title=title)
    items.insert_passages(conn, source_id, passages)
    items.upsert_summary(conn, source_id, summary, now=now)
    for row, start, end in evidence:
        insights.move_evidence(conn, row, quote=text[moved[start] : moved[end]], start=moved[start], end=moved[end])
    if upto is not None:
        insight_jobs.move_examined_upto(conn, source_id, moved[upto])
    items.append_audit(conn, actor="daemon", action="redact", target=item_id("raw", source_id), now=now, detail={})
    return True
