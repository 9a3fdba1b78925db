"""Candidates of one source are related with their own cosines, with the real default model."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import apsw
import pytest

from incremind_daemon.config import Settings
from incremind_daemon.pipeline.insights import nearest_known, record_increments, save_memory
from incremind_daemon.store import insights, vectors
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
    _embed_all(conn, use_m3)
    yield conn, saved.insight_id
    conn.close()


def _embed_all(conn: apsw.Connection, use_m3: Embedder) -> None:
    """Embed every item waiting, as the worker embeds it, and make the model live."""
    key = use_m3.identity.key
    with write_transaction(conn):
        vectors.register_model(conn, key, use_m3.identity.name, use_m3.identity.dimension, now=NOW)
        entries = vectors.pending(conn, key, limit=100)
        vectors.store_vectors(conn, key, entries, use_m3.embed_passages([text for _, _, text, _ in entries]))
        vectors.promote_if_built(conn, key)


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


def test_a_backfill_relates_by_meaning_before_its_passages_are_embedded(settings: Settings, use_m3: Embedder) -> None:
    """A backfill takes many sources in before the insight step runs: what the step proposes from one
    source is embedded before the next is examined, ahead of the passages queued before it."""
    from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer
    from incremind_daemon.pipeline.work import IngestFile
    from incremind_daemon.sources.extract import extract_bytes

    folder = settings.inbox_dir / "rankr"
    folder.mkdir(parents=True)
    notes = {
        "1-background.md": "Week 48: the ranking model was retrained on fresh clicks.\n",
        "2-rules.md": "In all my repos I want type hints on every function and mypy --strict passing before "
        "you tell me something is done.\n",
        "3-again.md": "Everything you write has to be fully typed and pass strict mypy, doesn't matter which repo.\n",
    }
    state = StepState(settings, extract_bytes, embedder=use_m3, actor="test", use_model=False)
    with open_writer(state) as conn:
        for name, text in notes.items():
            (folder / name).write_text(text, encoding="utf-8")
            ingest_item(conn, state, IngestFile(folder / name, "rankr", from_inbox=True))
        examine_pending(conn, state)
        queued = {str(row[0]) for row in conn.execute("SELECT DISTINCT kind FROM embed_queue")}
        found = insights.list_insights(conn, status="pending", project="rankr", limit=10)
        pending = [i.statement for i in found if "mypy" in i.statement]
    assert "organized" in queued and "insight" not in queued  # the passages wait; the insights have vectors
    assert pending == [
        "In all my repos I want type hints on every function and mypy --strict passing before you tell me "
        "something is done"
    ]  # the paraphrase is a repeat, as the embedder reads it


def test_other_projects_near_rules_do_not_crowd_out_this_projects_own(settings: Settings, use_m3: Embedder) -> None:
    """Ten repositories may each hold the same project rule: the nearest vectors are all out of scope, and the
    person's rule, said in the other language and sharing no word with the candidate, is still its neighbour,
    read with its cosine, so the candidate repeats it instead of piling up as new."""
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    conn = connect(settings.database_path)
    rule = "Conclusion first, then the reasoning"
    own = save_memory(conn, settings, SaveRequest("先说结论，再讲理由", project="api", trusted=True))
    assert own.insight_id is not None
    with write_transaction(conn):  # each repository's review confirmed the same rule there
        for number in range(1, 11):
            insights.insert_insight(
                conn, project=f"web{number}", candidate=replace(candidate(rule), category="preference"),
                relation="new", source_id=None, status="confirmed", now=NOW,
            )  # fmt: skip
    _embed_all(conn, use_m3)
    said = replace(candidate(rule), category="preference")
    near = {
        insight.id: similarity
        for insight, similarity in nearest_known(conn, settings, said, project="api", private=(), embedder=use_m3)
    }
    with write_transaction(conn):
        found = record_increments(
            conn, settings, project="api", source_id=None, candidates=[said], origin="local", embedder=use_m3, now=NOW
        )
    conn.close()
    assert list(near) == [own.insight_id] and (near[own.insight_id] or 0.0) > 0.5, near
    assert [(i.relation, i.known_id) for i in found] == [("repeat", own.insight_id)]
