"""No credential reaches the store or a context block; those earlier versions stored are redacted once.

A dropped file and an MCP-style save full of credentials leave nothing of them
in the database file, its WAL or the agents' context files written afterwards;
text stored before redaction at ingest is redacted in place, offsets kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import apsw
import pytest

from incremind_daemon.config import Settings
from incremind_daemon.pipeline.ingest import organize_text
from incremind_daemon.pipeline.insights import save_memory
from incremind_daemon.pipeline.redact import redact
from incremind_daemon.pipeline.redact_stored import DONE_KEY, redact_stored
from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer
from incremind_daemon.pipeline.work import IngestFile
from incremind_daemon.pipeline.worker import Worker
from incremind_daemon.serve.context.writer import ContextWriter
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store import insight_jobs, insights, items, recall, sessions
from incremind_daemon.store.db import connect, fetch_rows, write_transaction
from incremind_daemon.store.recall import ContextTargetRow
from incremind_daemon.store.records import Candidate, NewSource, SaveRequest
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


# The formats the adversarial pass found stored and written into context files; all made up.
FOUND_STORED = {
    "npm": "npm_q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8Ae",
    "pypi": "pypi-AgEIcHlwaS5vcmcCJDU3OTM5MDk0LTk0ZjEtNDA2Ny1hNTE0LWE2NzFhNGQ1ZmI2ZAACKlsz",
    "sendgrid": "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",
    "telegram": "5123456789:AAHk3x9Lr2Tz7Vw4Ny1Ks8Jd5Hf0Gb6CmAe",
    "aws": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "口令": "Tr0ub4dor&3",
    "pair": "S3cretPassw0rd!",
    "github": "ghp_R4nd0mT0k3nV4lu3\u200bXq81nBv2LmTz4RwYp0Ks",
    "密码": "Hunter2Xyz!",
}
RUNBOOK = f"""# Release runbook

Publish with the npm token {FOUND_STORED["npm"]} and upload wheels with {FOUND_STORED["pypi"]}.
Mail goes out through SendGrid with {FOUND_STORED["sendgrid"]}; the alert bot is {FOUND_STORED["telegram"]}.
the aws secret for prod is {FOUND_STORED["aws"]}
数据库口令 {FOUND_STORED["口令"]}
The staging console: admin / {FOUND_STORED["pair"]}
The CI GitHub token: {FOUND_STORED["github"]}
密码：{FOUND_STORED["密码"]}

We always restart the worker after a deploy. The zeppelin alarm means the disk is full.
"""
SAVED = (
    f"Always deploy staging as admin / {FOUND_STORED['pair']} with the npm token {FOUND_STORED['npm']}, "
    f"数据库口令 {FOUND_STORED['口令']}，the aws secret for prod is {FOUND_STORED['aws']}"
)


def pieces(secret: str, size: int = 6) -> set[str]:
    shown = secret.replace("\u200b", "")
    return {shown[at : at + size] for at in range(len(shown) - size + 1)}


def held(data: bytes, secret: str) -> list[str]:
    """Return the pieces of secret that data holds, in any case."""
    lowered = data.lower()
    return sorted(piece for piece in pieces(secret) if piece.lower().encode() in lowered)


def test_secrets_dropped_or_saved_are_absent_from_the_database_its_wal_and_every_context_file(
    settings: Settings, private_home: Path, tmp_path: Path
) -> None:
    for agent in (".claude", ".codex", ".gemini"):
        (private_home / agent).mkdir()
    repository = tmp_path / "ops"  # the project's own files, as "incremind context enable" records them
    repository.mkdir()
    dropped = settings.inbox_dir / "ops" / "runbook.md"
    dropped.parent.mkdir(parents=True)
    dropped.write_text(RUNBOOK, encoding="utf-8")
    state = StepState(settings, extract_bytes, actor="test")
    with open_writer(state) as conn:
        assert ingest_item(conn, state, IngestFile(dropped, "ops", from_inbox=True)).status == "added"
        examine_pending(conn, state)
    conn = connect(settings.database_path)  # held open, so the WAL stays on disk
    try:
        saved = save_memory(conn, settings, SaveRequest(SAVED, project="ops", actor="mcp:test", trusted=True))
        assert saved.status == "confirmed"
        with write_transaction(conn):
            for (pending,) in fetch_rows(conn, "SELECT id FROM insights WHERE status = 'pending'"):
                insights.review(conn, int(pending), "confirm", actor="test", now=NOW)
            for name, agent in (("CLAUDE.md", "claude"), ("AGENTS.md", "codex"), ("GEMINI.md", "gemini")):
                row = ContextTargetRow(str(repository / name), "project", agent, "ops", "inline", True, True)
                recall.save_context_target(conn, row)
        blocks = ContextWriter(settings, scrub=redact).regenerate(conn, datetime(2026, 1, 2, tzinfo=UTC))
        database = settings.database_path.read_bytes()
        wal = Path(f"{settings.database_path}-wal").read_bytes()
    finally:
        conn.close()

    assert b"zeppelin" in database + wal and len(wal) > 0  # the file's text is stored
    assert sorted(Path(block.path).name for block in blocks if block.written) == [
        "AGENTS.md", "AGENTS.md", "CLAUDE.md", "CLAUDE.md", "GEMINI.md", "GEMINI.md"
    ]  # fmt: skip
    written = [Path(block.path).read_text(encoding="utf-8") for block in blocks]
    shown = [text for text in written if "Always deploy staging as admin / [REDACTED:password]" in text]
    assert len(shown) == 3 and any("zeppelin" in text or "restart the worker" in text for text in shown)
    for name, secret in FOUND_STORED.items():
        assert held(database, secret) == [], name
        assert held(wal, secret) == [], name
        for text in written:
            assert held(text.encode(), secret) == [], name
    assert not list(settings.inbox_dir.rglob("runbook.md"))  # claimed: only the kept original holds the bytes
