"""A session's passages after many small appends are those of one fresh split, and old ones are kept."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import apsw
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incremind_daemon.pipeline.organize import PASSAGE_CHARS
from incremind_daemon.pipeline.sessions import append_to_session, layout_session, rebuild_session, turn_passages
from incremind_daemon.store import sessions, vectors
from incremind_daemon.store.db import connect, fetch_int, fetch_rows
from incremind_daemon.store.sessions import NewMessage, SessionInfo

NOW = "2026-01-01T00:00:00+00:00"
MODEL = "tiny:8:test"
WORDS = ["the", "index", "端口", "配置", "测试", "修复", "vector", "window", "。", ". ", "\n", "\n\n", "数据库"]


def take(conn: apsw.Connection, source_id: int, batch: list[NewMessage]) -> None:
    """Store a batch as the transcript reader's caller does: append when it can, else rebuild."""
    with conn:
        added, updated = sessions.upsert_messages(conn, source_id, batch)
        fresh = sessions.unplaced_messages(conn, source_id) if added and not updated else []
        if fresh:
            append_to_session(conn, source_id, fresh, now=NOW)
        elif added or updated:
            rebuild_session(conn, source_id, now=NOW)


def stored(conn: apsw.Connection, source_id: int) -> list[tuple[int, int, int, str]]:
    sql = 'SELECT id, start, "end", text FROM chunks WHERE source_id = ? ORDER BY start'
    rows = fetch_rows(conn, sql, (source_id,))
    return [(int(r[0]), int(r[1]), int(r[2]), str(r[3])) for r in rows]


def fresh_split(conn: apsw.Connection, source_id: int) -> list[tuple[int, int, str]]:
    """What a session laid out and split at once holds."""
    layout = layout_session(sessions.live_messages(conn, source_id))
    return [(p.start, p.end, p.text) for p in turn_passages(layout.text, layout.turns)]


def message(number: int, role: str, text: str) -> NewMessage:
    at = f"2026-01-01T{number // 3600:02d}:{number // 60 % 60:02d}:{number % 60:02d}Z"
    return NewMessage(f"m{number}", role, text, at)


def open_session(path: Path) -> tuple[apsw.Connection, int]:
    conn = connect(path)
    with conn:
        source_id = sessions.upsert_session(conn, SessionInfo("claude", "s1", "p", "t", "/t.jsonl"), now=NOW)
    return conn, source_id


def embed_everything(conn: apsw.Connection) -> None:
    """Give every queued item a vector through the worker's own calls (any vector will do here)."""
    with conn:
        vectors.register_model(conn, MODEL, "tiny", 8, now=NOW)
        entries = vectors.pending(conn, MODEL, limit=100_000)
        found = np.ones((len(entries), 8), dtype=np.float32) / np.sqrt(8)
        vectors.store_vectors(conn, MODEL, entries, found)


def queued_passages(conn: apsw.Connection) -> int:
    return fetch_int(conn, "SELECT count(*) FROM embed_queue WHERE kind = 'organized'")


@pytest.fixture
def session(tmp_path: Path) -> Iterator[tuple[apsw.Connection, int]]:
    conn, source_id = open_session(tmp_path / "memory.db")
    yield conn, source_id
    conn.close()


def long_reply(number: int) -> str:
    return " ".join(WORDS[(number * 7 + k) % len(WORDS)] for k in range(90)) + f" step {number} done."


def test_appending_to_a_long_turn_keeps_its_earlier_passages(session: tuple[apsw.Connection, int]) -> None:
    conn, source_id = session
    take(conn, source_id, [message(0, "user", "请把整个仓库的测试都修好")])
    for number in range(1, 121):
        take(conn, source_id, [message(number, "assistant", long_reply(number))])
    embed_everything(conn)
    assert len(stored(conn, source_id)) > 50 and queued_passages(conn) == 0
    take(conn, source_id, [message(121, "assistant", long_reply(121))])
    assert queued_passages(conn) <= 3  # the turn's last passages are renewed and embedded, not all of them
    assert [row[1:] for row in stored(conn, source_id)] == fresh_split(conn, source_id)


def test_a_growing_reply_renews_only_the_end_of_its_turn(session: tuple[apsw.Connection, int]) -> None:
    conn, source_id = session
    take(conn, source_id, [message(0, "user", "summarise the logs")])
    take(conn, source_id, [message(n, "assistant", long_reply(n)) for n in range(1, 60)])
    embed_everything(conn)
    take(conn, source_id, [message(59, "assistant", long_reply(59) + " And one more line.")])  # same id, longer
    assert queued_passages(conn) <= 3
    assert [row[1:] for row in stored(conn, source_id)] == fresh_split(conn, source_id)


texts = st.lists(st.sampled_from([*WORDS, "alpha", "复习", "x" * 40, "长" * 30]), min_size=1, max_size=120).map(
    " ".join
)
turns = st.lists(st.tuples(st.sampled_from(["user", "assistant", "assistant"]), texts), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(turns=turns, cuts=st.lists(st.integers(1, 6), min_size=1, max_size=30), grow=st.integers(0, 40))
def test_passages_after_appends_are_those_of_one_split(
    turns: list[tuple[str, str]], cuts: list[int], grow: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        conn, source_id = open_session(Path(folder) / "memory.db")
        try:
            batch: list[NewMessage] = []
            sizes = iter(cuts * 30)
            for number, (role, text) in enumerate(turns):
                batch.append(message(number, role, text))
                if len(batch) >= next(sizes):
                    take(conn, source_id, batch)
                    batch = []
            take(conn, source_id, batch)
            if grow and turns:  # the last reply is still being written
                last = len(turns) - 1
                take(conn, source_id, [message(last, turns[last][0], turns[last][1] + " 再补充" * grow)])
            assert [row[1:] for row in stored(conn, source_id)] == fresh_split(conn, source_id)
        finally:
            conn.close()


def test_short_turns_in_a_row_share_a_passage(session: tuple[apsw.Connection, int]) -> None:
    """A chatty stretch is read with the turns around it, not as one "ok, do it" per passage."""
    conn, source_id = session
    chat = [
        ("user", "端口改成 8765 吧"),
        ("assistant", "好的，已改为 8765。"),
        ("user", "ok"),
        ("assistant", "还需要重启 dashboard 吗？"),
        ("user", "要，重启一下"),
        ("assistant", "已重启。"),
        ("user", "Now write the migration for the orders table. " + "It must be reversible. " * 20),
        ("assistant", "Done."),
    ]
    take(conn, source_id, [message(n, role, text) for n, (role, text) in enumerate(chat)])
    passages = stored(conn, source_id)
    assert "8765" in passages[0][3] and "已重启" in passages[0][3]  # three short turns, one passage
    assert all(end - start <= PASSAGE_CHARS for _, start, end, _ in passages)
    assert not any("8765" in text for _, _, _, text in passages[1:])  # the long turn is on its own
    assert [row[1:] for row in stored(conn, source_id)] == fresh_split(conn, source_id)
