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

import json
import logging

import apsw

from incremind_daemon.pipeline.ingest import organize_text
from incremind_daemon.pipeline.redact import find_secrets, redact, redact_between
from incremind_daemon.store import items, sessions
from incremind_daemon.store.db import fetch_row, fetch_rows, write_transaction
from incremind_daemon.store.records import item_id

log = logging.getLogger(__name__)

DONE_KEY = "redacted_stored_text"  # meta: when the pass over the store finished


def redact_stored(conn: apsw.Connection, *, now: str) -> int:
    """Redact every file and note stored with credentials in its text, once per store; return how many."""
    if sessions.get_meta(conn, DONE_KEY) is not None:
        return 0
    fixed = 0
    for (source_id,) in fetch_rows(conn, "SELECT id FROM sources WHERE kind != 'session' ORDER BY id"):
        with write_transaction(conn):
            if _redact_source(conn, int(source_id), now=now):
                fixed += 1
    with write_transaction(conn):
        sessions.set_meta(conn, DONE_KEY, now)
    if fixed:
        log.warning("redacted credentials stored earlier in %d file(s) and note(s)", fixed)
    return fixed


def _redact_source(conn: apsw.Connection, source_id: int, *, now: str) -> bool:
    row = fetch_row(conn, "SELECT raw_text, title, pages FROM sources WHERE id = ?", (source_id,))
    if row is None:
        return False
    text, title = str(row[0]), str(row[1])
    if not find_secrets(text) and not find_secrets(title):
        return False
    pages = [(int(start), int(page)) for start, page in json.loads(str(row[2]))]
    evidence = fetch_rows(conn, 'SELECT rowid, start, "end" FROM insight_sources WHERE source_id = ?', (source_id,))
    job = fetch_row(conn, "SELECT upto FROM insight_jobs WHERE source_id = ?", (source_id,))
    cuts = {start for start, _ in pages}
    cuts.update(int(offset) for _, start, end in evidence for offset in (start, end))
    if job is not None:
        cuts.add(int(job[0]))
    new_text, moved = redact_between(text, cuts)
    new_pages = tuple((moved[start], page) for start, page in pages)
    new_title = redact(title)
    conn.execute("DELETE FROM chunks WHERE source_id = ?", (source_id,))
    passages, summary = organize_text(new_text, new_pages, title=new_title)
    items.insert_passages(conn, source_id, passages)
    items.upsert_summary(conn, source_id, summary, now=now)
    conn.execute(
        "UPDATE sources SET raw_text = ?, title = ?, pages = ? WHERE id = ?",
        (new_text, new_title, json.dumps([list(p) for p in new_pages]), source_id),
    )
    for rowid, start, end in evidence:
        begin, finish = moved[int(start)], moved[int(end)]
        conn.execute(
            'UPDATE insight_sources SET quote = ?, start = ?, "end" = ? WHERE rowid = ?',
            (new_text[begin:finish], begin, finish, rowid),
        )
    if job is not None:
        conn.execute("UPDATE insight_jobs SET upto = ? WHERE source_id = ?", (moved[int(job[0])], source_id))
    items.append_audit(conn, actor="daemon", action="redact", target=item_id("raw", source_id), now=now, detail={})
    return True
