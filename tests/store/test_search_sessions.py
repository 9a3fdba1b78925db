"""Search over agent sessions: a message comes back as the exchange it belongs to, and no text twice."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from pathlib import Path

import apsw
import pytest

from incremind_daemon.pipeline.sessions import append_to_session
from incremind_daemon.store import sessions, vectors
from incremind_daemon.store.db import connect
from incremind_daemon.store.search import search
from incremind_daemon.store.sessions import NewMessage, SessionInfo

NOW = "2026-11-30T10:00:00+00:00"
CHAT = [
    ("user", "端口的事说一下：dashboard 跑在 8050 不行，和公司的代理冲突，改成 8765。"),
    ("assistant", "已把 dashboard 端口改为 8765。"),
    ("user", "Next, write the loader for the tide gauge files. " + "They come as CSV with a header row. " * 12),
    ("assistant", "The loader reads the CSV files from TIDE_DATA and checks the header row. " * 3),
]


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[apsw.Connection]:
    db = connect(tmp_path / "memory.db")
    with db:
        source_id = sessions.upsert_session(
            db, SessionInfo("claude", "s1", "tidewatch", "tidewatch", "/t.jsonl"), now=NOW
        )
        messages = [
            NewMessage(f"m{n}", role, text, f"2026-11-30T10:00:{n:02d}Z") for n, (role, text) in enumerate(CHAT)
        ]
        sessions.upsert_messages(db, source_id, messages)
        append_to_session(db, source_id, sessions.unplaced_messages(db, source_id), now=NOW)
    yield db
    db.close()


def test_a_message_comes_back_as_the_exchange_it_belongs_to(conn: apsw.Connection, tmp_path: Path) -> None:
    hits = search(conn, "dashboard 端口", home=tmp_path, mode="keyword")
    assert hits[0].tier == "organized"
    assert "8050" in hits[0].text and "已把 dashboard 端口改为 8765" in hits[0].text  # the ask and its reply
    assert sum("8050" in hit.text for hit in hits) == 1  # not again as the message alone


def test_no_two_results_cover_the_same_text(conn: apsw.Connection, tmp_path: Path) -> None:
    hits = search(conn, "dashboard loader header TIDE_DATA 8765", home=tmp_path, mode="keyword")
    spans = [(hit.start, hit.end) for hit in hits if hit.start is not None and hit.end is not None]
    assert len(spans) >= 2
    for (a, b), (c, d) in combinations(spans, 2):  # a long turn's passages overlap by a few words at most
        assert 2 * max(0, min(b, d) - max(a, c)) < min(b - a, d - c)


def test_messages_asked_for_as_such_stay_messages(conn: apsw.Connection, tmp_path: Path) -> None:
    hits = search(conn, "dashboard 端口", home=tmp_path, mode="keyword", tier="raw")
    assert hits and {hit.tier for hit in hits} == {"raw"}
    assert hits[0].text in {CHAT[0][1], CHAT[1][1]}


def test_messages_are_not_queued_for_vectors_and_raw_search_still_finds_them(tmp_path: Path) -> None:
    """Only passages, summaries and insights get vectors: messages are read in their passages."""
    db = connect(tmp_path / "memory.db")
    try:
        with db:
            vectors.register_model(db, "tiny:8:test", "tiny", 8, now=NOW)
            source_id = sessions.upsert_session(db, SessionInfo("claude", "s2", "tide", "tide", "/t2.jsonl"), now=NOW)
            sessions.upsert_messages(db, source_id, [NewMessage("m0", "user", CHAT[0][1], "2026-11-30T10:00:00Z")])
            append_to_session(db, source_id, sessions.unplaced_messages(db, source_id), now=NOW)
        queued = {str(kind) for (kind,) in db.execute("SELECT DISTINCT kind FROM embed_queue")}
        assert "message" not in queued and "organized" in queued
        (model,) = vectors.coverage(db)
        assert set(model.total) == {"organized", "summary", "insight"}
        hits = search(db, "dashboard 端口", home=tmp_path, mode="keyword", tier="raw")
        assert [hit.text for hit in hits] == [CHAT[0][1]]
    finally:
        db.close()
