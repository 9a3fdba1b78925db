"""Credentials that earlier versions stored in files' and notes' text are redacted once, offsets kept."""

from __future__ import annotations

import json
from collections.abc import Iterator

import apsw
import pytest

from incremind_daemon.config import Settings
from incremind_daemon.pipeline.ingest import organize_text
from incremind_daemon.pipeline.redact_stored import DONE_KEY, redact_stored
from incremind_daemon.pipeline.worker import Worker
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store import insight_jobs, insights, items, sessions
from incremind_daemon.store.db import connect, fetch_rows
from incremind_daemon.store.records import Candidate, NewSource
from tests.waiting import wait_until

NOW = "2026-01-01T00:00:00+00:00"
KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
PAGE_ONE = f"Runbook for the deploy job.\nExport OPENAI_API_KEY={KEY} before you start.\n"
PAGE_TWO = "Restart the worker after a deploy. The zeppelin alarm means the disk is full.\n"
CLEAN = "Notes without secrets. The cache is warmed at six every morning.\n"


def store_as_before(conn: apsw.Connection, text: str, pages: tuple[tuple[int, int], ...], sha: str) -> int:
    """Store a file the way versions before redaction at ingest did: its text as it came."""
    source_id = items.insert_source(
        conn, NewSource(kind="file", project="ops", title="runbook", raw_text=text, sha256=sha, pages=pages), now=NOW
    )
    passages, summary = organize_text(text, pages, title="runbook")
    items.insert_passages(conn, source_id, passages)
    items.upsert_summary(conn, source_id, summary, now=NOW)
    return source_id


def quote(text: str, sentence: str, statement: str) -> Candidate:
    start = text.index(sentence)
    return Candidate(statement, "method", "", sentence, start, start + len(sentence))


@pytest.fixture
def old_store(settings: Settings) -> Iterator[tuple[apsw.Connection, int, int]]:
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    conn = connect(settings.database_path)
    text = PAGE_ONE + PAGE_TWO
    with conn:
        leaked = store_as_before(conn, text, ((0, 1), (len(PAGE_ONE), 2)), "a" * 64)
        clean = store_as_before(conn, CLEAN, (), "b" * 64)
        for sentence, statement in (
            (f"Export OPENAI_API_KEY={KEY} before you start.", "Export the API key before deploying"),
            ("The zeppelin alarm means the disk is full.", "The zeppelin alarm means a full disk"),
        ):
            insights.insert_insight(
                conn, project="ops", candidate=quote(text, sentence, statement), relation="new",
                source_id=leaked, now=NOW,
            )  # fmt: skip
        insight_jobs.open_new_jobs(conn, after=0, now=NOW)
        insight_jobs.finish_job(conn, leaked, upto=len(text), path="local", now=NOW)
    yield conn, leaked, clean
    conn.close()


def texts(conn: apsw.Connection) -> list[str]:
    rows = fetch_rows(
        conn,
        """SELECT raw_text || title FROM sources UNION ALL SELECT text FROM chunks
           UNION ALL SELECT index_line || summary FROM summaries UNION ALL SELECT quote FROM insight_sources""",
    )
    return [str(row[0]) for row in rows]


def test_stored_credentials_are_redacted_with_every_offset_kept(old_store: tuple[apsw.Connection, int, int]) -> None:
    conn, leaked, clean = old_store
    clean_chunks = fetch_rows(conn, "SELECT id, text FROM chunks WHERE source_id = ?", (clean,))
    assert any(KEY in text for text in texts(conn))

    assert redact_stored(conn, now=NOW) == 1
    assert not any(KEY in text for text in texts(conn))
    raw = items.get_source(conn, leaked).raw_text
    assert "[REDACTED:openai_key]" in raw
    evidence = fetch_rows(conn, 'SELECT quote, start, "end" FROM insight_sources WHERE source_id = ?', (leaked,))
    assert len(evidence) == 2
    for text, start, end in evidence:
        assert raw[start:end] == text  # evidence still points at its own words
    assert any("[REDACTED:openai_key]" in str(text) for text, _, _ in evidence)
    [(pages,)] = fetch_rows(conn, "SELECT pages FROM sources WHERE id = ?", (leaked,))
    second_page = next(start for start, page in json.loads(pages) if page == 2)
    assert raw[second_page:] == PAGE_TWO
    [(page,)] = fetch_rows(conn, "SELECT page FROM chunks WHERE source_id = ? AND text LIKE '%zeppelin%'", (leaked,))
    assert page == 2
    assert fetch_rows(conn, "SELECT upto FROM insight_jobs WHERE source_id = ?", (leaked,)) == [(len(raw),)]
    assert fetch_rows(conn, "SELECT id, text FROM chunks WHERE source_id = ?", (clean,)) == clean_chunks
    assert sessions.get_meta(conn, DONE_KEY) == NOW
    assert redact_stored(conn, now=NOW) == 0  # once per store


def test_the_worker_redacts_an_old_store_when_it_starts(
    settings: Settings, old_store: tuple[apsw.Connection, int, int]
) -> None:
    conn, _, _ = old_store
    worker = Worker(settings, extract_bytes, actor="test")
    worker.start()
    try:
        wait_until(lambda: sessions.get_meta(conn, DONE_KEY) is not None)
    finally:
        worker.stop()
    assert not any(KEY in text for text in texts(conn))
