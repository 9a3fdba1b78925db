"""The in-memory sign-bit copy picks the same candidates as vec0 and never lets a stale vector answer."""

from __future__ import annotations

from collections.abc import Iterator

import apsw
import numpy as np
import pytest

from incremind_daemon.config import Settings
from incremind_daemon.store import bitindex, items, vectors
from incremind_daemon.store.db import connect, write_transaction
from incremind_daemon.store.records import NewPassage, NewSource
from tests.waiting import wait_until

KEY = "test-model-512"
DIMENSION = 512


@pytest.fixture
def kept() -> Iterator[None]:
    bitindex.keep_bit_indexes()
    yield
    bitindex.stop_keeping_bit_indexes()


def _vectors(count: int, seed: int = 3) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(count, DIMENSION)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _store(conn: apsw.Connection, texts: list[str], project: str, table: np.ndarray) -> None:
    with write_transaction(conn):
        vectors.register_model(conn, KEY, "test", DIMENSION, now="2026-12-01")
        for text in texts:
            source = items.insert_source(conn, NewSource("note", project, text, text), now="2026-12-01")
            items.insert_passages(conn, source, [NewPassage(text, 0, len(text))])
        entries = vectors.pending(conn, KEY, limit=10_000)
        by_text = {text: n for n, text in enumerate(texts)}
        vectors.store_vectors(conn, KEY, entries, np.stack([table[by_text[e[2]]] for e in entries]))


@pytest.fixture
def conn(settings: Settings) -> Iterator[apsw.Connection]:
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    connection = connect(settings.database_path)
    yield connection
    connection.close()


def test_the_copy_answers_like_vec0(conn: apsw.Connection, kept: None) -> None:
    table = _vectors(400)
    _store(conn, [f"note {n}" for n in range(200)], "a", table[:200])
    _store(conn, [f"memo {n}" for n in range(200)], "b", table[200:])
    index = bitindex.index_for(conn, KEY, table=vectors.table_name(KEY), kind_codes=vectors.KIND_CODES)
    assert index is not None
    wait_until(index.ready, timeout=10)
    for query in _vectors(12, seed=9):
        bitindex._KEEP.clear()
        plain = vectors.nearest(conn, KEY, query, limit=10, kinds=("organized",), project="b")
        bitindex._KEEP.set()
        copied = vectors.nearest(conn, KEY, query, limit=10, kinds=("organized",), project="b")
        # the same candidates, up to ties in Hamming distance at the edge: the best hits agree
        assert [h.item for h in copied[:3]] == [h.item for h in plain[:3]]
        assert len(copied) == len(plain) == 10
        assert all(h.item > 200 for h in copied)  # project b's passages only
    assert bitindex._INDEXES, "the copy was used"


def test_a_changed_item_never_answers_and_new_vectors_arrive(
    conn: apsw.Connection, kept: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _vectors(60)
    _store(conn, [f"note {n}" for n in range(50)], "a", table[:50])
    target = table[7]
    [first] = vectors.nearest(conn, KEY, target, limit=1, kinds=("organized",), project=None)
    with write_transaction(conn):  # the item's text changes after it was embedded
        conn.execute("UPDATE chunks SET text = 'rewritten' WHERE id = ?", (first.item,))
    found = vectors.nearest(conn, KEY, target, limit=5, kinds=("organized",), project=None)
    assert first.item not in [h.item for h in found]

    monkeypatch.setattr(bitindex, "RELOAD_AFTER_SECONDS", 0.0)
    _store(conn, ["fresh note"], "a", table[55:56])

    def arrived() -> bool:
        """the new vector is found through the reloaded copy"""
        hits = vectors.nearest(conn, KEY, table[55], limit=1, kinds=("organized",), project=None)
        return bool(hits) and hits[0].similarity > 0.999

    wait_until(arrived, timeout=10)


def test_the_copy_keeps_the_nearest_in_hamming_distance(conn: apsw.Connection, kept: None) -> None:
    table = _vectors(300, seed=5)
    _store(conn, [f"note {n}" for n in range(300)], "a", table)
    bits = {
        int(r[0]): np.unpackbits(np.frombuffer(bytes(r[1]), dtype=np.uint8))
        for r in conn.execute(f"SELECT rowid, embedding FROM {vectors.table_name(KEY)}")
    }
    index = bitindex.index_for(conn, KEY, table=vectors.table_name(KEY), kind_codes=vectors.KIND_CODES)
    assert index is not None
    for query in _vectors(5, seed=11):
        packed = np.packbits(query > 0)
        wanted = 37
        found = index.candidates(conn, packed.tobytes(), wanted=wanted, kind_codes=[1], project=None)
        distance = {rowid: int((b != np.unpackbits(packed)).sum()) for rowid, b in bits.items()}
        assert len(found) == wanted
        assert [distance[r] for r in found] == sorted(distance[r] for r in found)  # nearest first
        assert max(distance[r] for r in found) <= sorted(distance.values())[wanted - 1]
        assert index.candidates(conn, packed.tobytes(), wanted=wanted, kind_codes=[2], project=None) == []


def test_candidates_read_alike_through_the_shortcut_and_vec0(conn: apsw.Connection) -> None:
    table = _vectors(40, seed=8)
    _store(conn, [f"note {n}" for n in range(40)], "a", table)
    name = vectors.table_name(KEY)
    rowids = [int(r[0]) for r in conn.execute(f"SELECT rowid FROM {name} ORDER BY random() LIMIT 15")] + [999_999]
    quick = vectors.read_candidates(conn, name, rowids, dimension=DIMENSION)
    assert vectors._AUXILIARY_SHAPE[(conn.db_filename("main"), name)], "the shortcut was taken"
    vectors._AUXILIARY_SHAPE[(conn.db_filename("main"), name)] = False
    assert vectors.read_candidates(conn, name, rowids, dimension=DIMENSION) == quick
    assert [row[0] for row in quick] == rowids[:-1]  # in the order asked; a missing row is skipped
    assert {row[1] for row in quick} == {"organized"}


def test_the_first_search_scans_with_vec0_while_the_copy_loads(conn: apsw.Connection, kept: None) -> None:
    table = _vectors(120, seed=4)
    _store(conn, [f"note {n}" for n in range(120)], "a", table)
    index = bitindex.index_for(conn, KEY, table=vectors.table_name(KEY), kind_codes=vectors.KIND_CODES)
    assert index is not None and index._snapshot is None
    first = vectors.nearest(conn, KEY, table[17], limit=3, kinds=("organized",), project=None)
    assert first and first[0].similarity > 0.999  # answered at once, by vec0
    wait_until(lambda: index._snapshot is not None, timeout=10)  # the copy loaded on its own thread
    again = vectors.nearest(conn, KEY, table[17], limit=3, kinds=("organized",), project=None)
    assert [h.item for h in again] == [h.item for h in first]
