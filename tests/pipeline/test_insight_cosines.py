"""Candidates of one source are related with their own cosines, with the real default model."""

from __future__ import annotations

from collections.abc import Iterator

import apsw
import pytest

from incremind_daemon.config import Settings
from incremind_daemon.pipeline.insights import nearest_known, record_increments, save_memory
from incremind_daemon.store import vectors
from incremind_daemon.store.db import connect, write_transaction
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.records import Candidate, SaveRequest

NOW = "2026-01-01T00:00:00+00:00"


@pytest.fixture
def known(settings: Settings, use_m3: Embedder) -> Iterator[tuple[apsw.Connection, int]]:
    """A memory holding one confirmed insight with its vector, embedded as the worker embeds it."""
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    conn = connect(settings.database_path)
    saved = save_memory(conn, settings, SaveRequest("The API listens on port 8080", project="api", trusted=True))
    assert saved.insight_id is not None and saved.status == "confirmed"
    key = use_m3.identity.key
    with write_transaction(conn):
        vectors.register_model(conn, key, use_m3.identity.name, use_m3.identity.dimension, now=NOW)
        entries = vectors.pending(conn, key, limit=100)
        vectors.store_vectors(conn, key, entries, use_m3.embed_passages([text for _, _, text, _ in entries]))
        vectors.promote_if_built(conn, key)
    yield conn, saved.insight_id
    conn.close()


def candidate(statement: str) -> Candidate:
    return Candidate(statement, "entity", "", statement, 0, len(statement))


def test_a_new_sentence_beside_a_repeat_is_not_linked_by_the_repeats_cosine(
    settings: Settings, use_m3: Embedder, known: tuple[apsw.Connection, int]
) -> None:
    conn, insight_id = known
    repeat = candidate("Our API server listens on port 8080")
    new = candidate("Rate limits are enforced per API key, not per IP")
    with write_transaction(conn):
        found = record_increments(
            conn, settings, project="api", source_id=None, candidates=[repeat, new], origin="local",
            embedder=use_m3, now=NOW,
        )  # fmt: skip
    assert [(i.relation, i.known_id) for i in found] == [("repeat", insight_id), ("new", None)]


def test_the_new_sentence_alone_is_new_too(
    settings: Settings, use_m3: Embedder, known: tuple[apsw.Connection, int]
) -> None:
    conn, _ = known
    with write_transaction(conn):
        found = record_increments(
            conn, settings, project="api", source_id=None, origin="local", embedder=use_m3, now=NOW,
            candidates=[candidate("Rate limits are enforced per API key, not per IP")],
        )  # fmt: skip
    assert [(i.relation, i.known_id) for i in found] == [("new", None)]


def test_a_neighbour_found_by_its_words_gets_its_cosine_too(
    settings: Settings, use_m3: Embedder, known: tuple[apsw.Connection, int]
) -> None:
    conn, insight_id = known
    # one neighbour by vectors, and the nearest vector is another project's: the port insight of
    # this project is found by its words alone, and is still read with its cosine
    narrow = settings.model_copy(update={"insights": settings.insights.model_copy(update={"neighbours": 1})})
    elsewhere = save_memory(conn, settings, SaveRequest("The API listens on port 8080", project="web", trusted=True))
    assert elsewhere.insight_id is not None
    key = use_m3.identity.key
    with write_transaction(conn):
        entries = vectors.pending(conn, key, limit=100)
        vectors.store_vectors(conn, key, entries, use_m3.embed_passages([text for _, _, text, _ in entries]))
    near = {
        insight.id: similarity
        for insight, similarity in nearest_known(
            conn, narrow, candidate("The API listens on port 8080"), project="api", private=(), embedder=use_m3
        )
    }
    assert elsewhere.insight_id not in near
    assert near.get(insight_id) is not None and near[insight_id] > 0.99, near
