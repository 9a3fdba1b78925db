"""Build a search database of N passages directly through the store functions.

Imports incremind, so a script imports this only after ``isolate_home``.
"""

from __future__ import annotations

import hashlib
import time
from itertools import islice
from pathlib import Path

import apsw

from benchmarks.corpus import iter_passages
from benchmarks.figures import progress
from incremind_daemon.store import clock, items
from incremind_daemon.store.db import connect, fetch_int
from incremind_daemon.store.records import NewPassage, NewSource, NewSummary

PROJECT = "bench"
PASSAGES_PER_SOURCE = 20
SOURCES_PER_TRANSACTION = 250


def make_source(number: int, passages: list[str]) -> tuple[NewSource, list[NewPassage]]:
    """Join passages into one source's raw text, keeping each passage's offsets."""
    pieces: list[NewPassage] = []
    offset = 0
    for text in passages:
        pieces.append(NewPassage(text, offset, offset + len(text)))
        offset += len(text) + 2
    raw_text = "\n\n".join(passages)
    data = raw_text.encode("utf-8")
    source = NewSource(
        kind="file", project=PROJECT, title=first_sentence(passages[0], 60), raw_text=raw_text,
        sha256=hashlib.sha256(data).hexdigest(), original_name=f"{number:06d}.md",
        media_type="text/markdown", size_bytes=len(data),
    )
    return source, pieces


def first_sentence(text: str, limit: int) -> str:
    for mark in ("。", ". ", "；", "！", "？"):
        cut = text.find(mark)
        if 0 < cut < limit:
            return text[: cut + len(mark)].strip()
    return text[:limit]


def make_summary(source: NewSource, pieces: list[NewPassage]) -> NewSummary:
    """A cheap stand-in of the summarizer's shape: an index line and five sentences."""
    sentences = [first_sentence(p.text, 120) for p in pieces[:5]]
    return NewSummary(source.title[:80], "\n".join(sentences))


def build_search_db(db_path: Path, passage_count: int) -> float:
    """Insert passage_count passages (20 per source) plus summaries; return seconds."""
    stream = (text for _, text in iter_passages(passage_count))
    conn = connect(db_path)
    started = time.perf_counter()
    number = 0
    try:
        while True:
            with conn:
                batch = 0
                while batch < SOURCES_PER_TRANSACTION and (chunk := list(islice(stream, PASSAGES_PER_SOURCE))):
                    number += 1
                    batch += 1
                    insert_source(conn, number, chunk)
            if batch < SOURCES_PER_TRANSACTION:
                break
            progress(f"built {number * PASSAGES_PER_SOURCE:,} of {passage_count:,} passages")
    finally:
        conn.close()
    return time.perf_counter() - started


def insert_source(conn: apsw.Connection, number: int, passages: list[str]) -> None:
    now = clock.stamp()
    source, pieces = make_source(number, passages)
    source_id = items.insert_source(conn, source, now=now)
    items.insert_passages(conn, source_id, pieces)
    items.upsert_summary(conn, source_id, make_summary(source, pieces), now=now)


def checkpointed_db_bytes(db_path: Path) -> int:
    """Fold the WAL into the database and return the size of both files."""
    conn = connect(db_path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    finally:
        conn.close()
    wal = db_path.with_name(db_path.name + "-wal")
    return db_path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def query_int(db_path: Path, sql: str) -> int:
    """Run one counting query on a read-only connection."""
    conn = connect(db_path, readonly=True)
    try:
        return fetch_int(conn, sql)
    finally:
        conn.close()
