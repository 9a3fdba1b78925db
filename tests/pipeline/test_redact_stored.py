"""Text stored under earlier redaction rules is redacted once, in place, with every offset kept.

Files, notes and sessions as earlier versions stored them (their credentials
in the text, the passages, the summaries, the messages, the insights and the
full-text index) lose the credentials at the next start: a search no longer
finds them and the database file no longer holds them. How text coming in now
is kept clean is tested end to end in ``tests/test_redaction_end_to_end.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest

from incremind_daemon.config import Settings
from incremind_daemon.pipeline.ingest import organize_text
from incremind_daemon.pipeline.redact import RULES_VERSION
from incremind_daemon.pipeline.redact_stored import RULES_KEY, redact_stored
from incremind_daemon.pipeline.sessions import rebuild_session
from incremind_daemon.pipeline.worker import Worker
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store import insight_jobs, insights, items, scrub, search, sessions
from incremind_daemon.store.db import connect, fetch_rows, write_transaction
from incremind_daemon.store.records import Candidate, NewSource, NewSummary
from incremind_daemon.store.snapshots import SnapshotParts
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
    assert sessions.get_meta(conn, RULES_KEY) == str(RULES_VERSION)
    assert redact_stored(conn, now=NOW) == 0  # once per store


def test_the_worker_redacts_an_old_store_when_it_starts(
    settings: Settings, old_store: tuple[apsw.Connection, int, int]
) -> None:
    conn, _, _ = old_store
    worker = Worker(settings, extract_bytes, actor="test")
    worker.start()
    try:
        wait_until(lambda: sessions.get_meta(conn, RULES_KEY) == str(RULES_VERSION))
    finally:
        worker.stop()
    assert not any(KEY in text for text in texts(conn))


# What an earlier version's rules let through, as the adversarial pass found it stored; all made up.
OLD_RULES_MISSED = {
    "npm": "npm_q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8Ae",
    "aws": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "口令": "Tr0ub4dor&3",
    "pair": "S3cretPassw0rd!",
    "login": "Zq9!mK2#pLx",
}
SESSION = [
    ("user", f"Publish with the npm token {OLD_RULES_MISSED['npm']} from now on."),
    ("assistant", "Noted. The zeppelin alarm means the disk is full."),
    ("user", f"数据库口令 {OLD_RULES_MISSED['口令']}\nthe aws secret for prod is {OLD_RULES_MISSED['aws']}"),
    ("assistant", f"The staging console takes admin / {OLD_RULES_MISSED['pair']} and that works."),
    ("user", f"login: alice:{OLD_RULES_MISSED['login']} is the shared account"),
]
REWOUND = f"forget it, the npm token is {OLD_RULES_MISSED['npm']}"
SEARCHED = ("Tr0ub4dor", "S3cretPassw0rd", OLD_RULES_MISSED["npm"], "wJalrXUtnFEMI", "Zq9")
TEXT_COLUMNS = """
    SELECT raw_text || title FROM sources UNION ALL SELECT text FROM chunks
    UNION ALL SELECT index_line || summary FROM summaries UNION ALL SELECT text FROM messages
    UNION ALL SELECT statement || condition FROM insights UNION ALL SELECT statement || condition FROM insight_revisions
    UNION ALL SELECT quote FROM insight_sources UNION ALL SELECT snapshot FROM sessions WHERE snapshot IS NOT NULL"""


def store_session_as_before(conn: apsw.Connection) -> int:
    """Store a session the way a version with fewer rules did: messages redacted only of what it knew."""
    info = sessions.SessionInfo("claude", "old-rules", "ops", "claude session old-rules", "/tmp/old.jsonl")
    source_id = sessions.upsert_session(conn, info, now=NOW)
    messages = [
        sessions.NewMessage(f"m{at}", role, text, f"2026-01-01T00:00:{at:02d}Z")
        for at, (role, text) in enumerate([*SESSION, ("user", REWOUND)])
    ]
    sessions.upsert_messages(conn, source_id, messages)
    sessions.drop_messages(conn, source_id, f"m{len(SESSION)}")
    rebuild_session(conn, source_id, now=NOW)
    text = sessions.session_text(conn, source_id)
    summary = NewSummary(f"npm token {OLD_RULES_MISSED['npm']}", SESSION[2][1])
    state = SnapshotParts(
        f"Publish with {OLD_RULES_MISSED['npm']}", decisions=(f"数据库口令 {OLD_RULES_MISSED['口令']}",)
    )
    sessions.save_session_summary(conn, source_id, summary, state, now=NOW)
    for sentence, statement in (
        (SESSION[0][1], f"Publish with the npm token {OLD_RULES_MISSED['npm']}"),
        (f"数据库口令 {OLD_RULES_MISSED['口令']}", f"数据库口令 {OLD_RULES_MISSED['口令']}"),
        ("The zeppelin alarm means the disk is full.", "The zeppelin alarm means a full disk"),
    ):
        insight = insights.insert_insight(
            conn, project="ops", candidate=quote(text, sentence, statement), relation="new", source_id=source_id,
            now=NOW,
        )  # fmt: skip
        insights.edit_insight(conn, insight, statement=f"{statement}.", condition=None, actor="test", now=NOW)
    insight_jobs.open_new_jobs(conn, after=0, now=NOW)
    insight_jobs.finish_job(conn, source_id, upto=len(text), path="local", now=NOW)
    sessions.set_meta(conn, RULES_KEY, str(RULES_VERSION - 1))  # a store the previous rules went over
    return source_id


def secret_pieces(data: bytes) -> list[str]:
    lowered = data.lower()
    return sorted(
        secret[at : at + 6]
        for secret in OLD_RULES_MISSED.values()
        for at in range(len(secret) - 5)
        if secret[at : at + 6].lower().encode() in lowered
    )


def found_by_search(conn: apsw.Connection, home: Path) -> list[str]:
    """Return the credential words that the search, or any full-text index directly, still finds."""
    found = [word for word in SEARCHED if search.keyword_search(conn, word, home=home)]
    for table in scrub.TEXT_INDEXES:
        for word in SEARCHED:
            rows = fetch_rows(conn, f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (search.quote_query(word),))
            found += [f"{table}:{word}"] * len(rows)
    return found


@pytest.fixture
def old_session(settings: Settings) -> Iterator[tuple[apsw.Connection, int]]:
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    conn = connect(settings.database_path)
    with write_transaction(conn):
        source_id = store_session_as_before(conn)
    yield conn, source_id
    conn.close()


def test_a_session_stored_under_earlier_rules_is_redacted_and_no_longer_found(
    settings: Settings, old_session: tuple[apsw.Connection, int]
) -> None:
    conn, source_id = old_session
    assert found_by_search(conn, settings.home_dir)  # the earlier rules left them to be found

    assert redact_stored(conn, now=NOW) > 0

    assert found_by_search(conn, settings.home_dir) == []
    for (text,) in fetch_rows(conn, TEXT_COLUMNS):
        assert secret_pieces(str(text).encode()) == [], text
    raw = sessions.session_text(conn, source_id)
    for message in sessions.live_messages(conn, source_id):
        assert raw[message.start : message.end] == message.text  # messages still point at their words
    for text, start, end in fetch_rows(conn, 'SELECT text, start, "end" FROM chunks WHERE source_id = ?', (source_id,)):
        assert raw[start:end] == text
    evidence = fetch_rows(conn, 'SELECT quote, start, "end" FROM insight_sources WHERE source_id = ?', (source_id,))
    assert len(evidence) == 3 and all(raw[start:end] == quote for quote, start, end in evidence)
    assert sum("[REDACTED:" in str(quote) for quote, _, _ in evidence) == 2
    assert fetch_rows(conn, "SELECT upto FROM insight_jobs WHERE source_id = ?", (source_id,)) == [(len(raw),)]
    assert sessions.stale_sessions(conn) == [source_id]  # its summary is made again from the redacted messages
    assert "zeppelin" in raw and "[REDACTED:password]" in raw


def test_no_credential_of_a_redacted_store_is_left_in_the_database_file_or_its_wal(
    settings: Settings, old_session: tuple[apsw.Connection, int]
) -> None:
    conn, _ = old_session
    assert secret_pieces(settings.database_path.read_bytes() + Path(f"{settings.database_path}-wal").read_bytes())

    redact_stored(conn, now=NOW)

    # the connection stays open: what the file and the WAL hold now is what a copy of them would hold
    assert secret_pieces(settings.database_path.read_bytes()) == []
    assert secret_pieces(Path(f"{settings.database_path}-wal").read_bytes()) == []


def test_redacting_stored_text_runs_once_per_rules_version_and_changes_nothing_twice(
    settings: Settings, old_session: tuple[apsw.Connection, int]
) -> None:
    conn, _ = old_session
    assert redact_stored(conn, now=NOW) > 0
    after = fetch_rows(conn, TEXT_COLUMNS)

    assert redact_stored(conn, now=NOW) == 0
    with write_transaction(conn):
        sessions.set_meta(conn, RULES_KEY, str(RULES_VERSION - 1))  # as if the rules had changed again
    assert redact_stored(conn, now=NOW) == 0  # nothing left to redact
    assert fetch_rows(conn, TEXT_COLUMNS) == after
    assert sessions.get_meta(conn, RULES_KEY) == str(RULES_VERSION)


def test_an_insight_with_a_credential_and_no_source_is_redacted_with_its_revisions(settings: Settings) -> None:
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    conn = connect(settings.database_path)
    try:
        with write_transaction(conn):
            statement = f"Deploy as admin / {OLD_RULES_MISSED['pair']}"
            candidate = Candidate(statement, "method", "", "", 0, 0)
            insight = insights.insert_insight(conn, project="ops", candidate=candidate, relation="new", source_id=None,
                                              now=NOW)  # fmt: skip
            insights.edit_insight(conn, insight, statement=statement + "!", condition="数据库口令 Tr0ub4dor&3",
                                  actor="test", now=NOW)  # fmt: skip

        assert redact_stored(conn, now=NOW) == 1

        redacted = insights.get_insight(conn, insight)
        assert redacted.statement == "Deploy as admin / [REDACTED:password]"
        assert redacted.condition == "数据库口令 [REDACTED:password]"
        assert [r.statement for r in insights.revisions_of(conn, insight)] == [
            "Deploy as admin / [REDACTED:password]", "Deploy as admin / [REDACTED:password]"
        ]  # fmt: skip
    finally:
        conn.close()
