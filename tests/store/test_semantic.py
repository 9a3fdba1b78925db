"""Search by meaning with the real default model and a real tiny ONNX model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest

from incremind_daemon.config import Settings, load_settings
from incremind_daemon.embedding.configured import may_embed_project
from incremind_daemon.embedding.onnx import OnnxEmbedder
from incremind_daemon.errors import QueryError
from incremind_daemon.pipeline.steps import StepState, embed_pending, open_writer, switch_embedder
from incremind_daemon.serve.mcp_tools import MemoryBackend, MemoryTools
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store import insights, vectors
from incremind_daemon.store.db import connect
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.records import Candidate
from incremind_daemon.store.search import search
from tests.semantic_notes import NOTES, store_notes
from tests.tiny_onnx import build_tiny_model


@pytest.fixture
def memory(settings: Settings) -> Iterator[apsw.Connection]:
    conn = connect(settings.database_path)
    store_notes(conn)
    yield conn
    conn.close()


def embed_all(state: StepState) -> None:
    """Embed every queued passage, as `incremind ingest` does with no daemon."""
    with open_writer(state) as conn:
        embed_pending(conn, state)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("怎么才能记得牢", "间隔重复"),  # Chinese paraphrase, little word overlap
        ("how do I memorize vocabulary for longer", "间隔重复"),  # English question, Chinese note
        ("数据库连接池多大", "connection pool"),  # Chinese question, English note
        ("网关报错的问题怎么解决的", "502"),
    ],
)
def test_default_model_finds_paraphrase_and_cross_language(
    memory: apsw.Connection, settings: Settings, use_m3: Embedder, query: str, expected: str
) -> None:
    embed_all(StepState(settings, extract_bytes, embedder=use_m3))
    hits = search(memory, query, home=settings.home_dir, mode="vector", embedder=use_m3, limit=3)
    assert expected in hits[0].text
    assert "vector" in hits[0].mode


def test_hybrid_hits_carry_both_mode_scores(memory: apsw.Connection, settings: Settings, use_m3: Embedder) -> None:
    embed_all(StepState(settings, extract_bytes, embedder=use_m3))
    hits = search(memory, "连接池 pool size", home=settings.home_dir, embedder=use_m3, limit=3)
    assert "connection pool" in hits[0].text
    assert set(hits[0].mode) == {"keyword", "vector"}


def test_changed_text_never_answers_with_its_old_vector(
    memory: apsw.Connection, settings: Settings, use_m3: Embedder
) -> None:
    embed_all(StepState(settings, extract_bytes, embedder=use_m3))
    with memory:
        memory.execute("UPDATE chunks SET text = 'completely unrelated words about gardening' WHERE text LIKE '%pool%'")
    hits = search(memory, "数据库连接池多大", home=settings.home_dir, mode="vector", embedder=use_m3, limit=5)
    assert all("pool" not in hit.text for hit in hits)
    assert all("gardening" not in hit.text for hit in hits), "the changed row must not answer with the old vector"


def test_keywords_answer_until_vectors_exist(memory: apsw.Connection, settings: Settings, use_m3: Embedder) -> None:
    hits = search(memory, "ruff", home=settings.home_dir, embedder=use_m3)
    assert hits and hits[0].mode == {"keyword": hits[0].score}


def test_vector_mode_without_an_embedder_is_a_clear_error(memory: apsw.Connection, settings: Settings) -> None:
    with pytest.raises(QueryError, match="needs an embedding model"):
        search(memory, "ruff", home=settings.home_dir, mode="vector")


def test_model_switch_rebuilds_without_mixing_spaces(
    memory: apsw.Connection, settings: Settings, use_m3: Embedder, tmp_path: Path
) -> None:
    embed_all(StepState(settings, extract_bytes, embedder=use_m3))
    tiny = OnnxEmbedder(build_tiny_model(tmp_path / "tiny").folder)
    try:
        with memory:
            vectors.register_model(memory, tiny.identity.key, "tiny-test", tiny.identity.dimension, now="x")
        assert [m.state for m in vectors.models(memory)] == ["active", "building"]
        # while the new model builds, the old one still answers, and the new one never does
        assert search(memory, "怎么才能记得牢", home=settings.home_dir, mode="vector", embedder=use_m3)
        assert search(memory, "ruff", home=settings.home_dir, embedder=tiny)[0].mode.keys() == {"keyword"}
        embed_all(StepState(settings, extract_bytes, embedder=tiny))
        assert [(m.name, m.state) for m in vectors.models(memory)] == [("tiny-test", "active")]
        assert vectors.coverage(memory)[0].embedded["organized"] == len(NOTES)
        with pytest.raises(apsw.SQLError):
            memory.execute(f"SELECT count(*) FROM {vectors.table_name(use_m3.identity.key)}").fetchall()
    finally:
        tiny.close()


def test_private_project_is_never_sent_to_a_remote_embedder(memory: apsw.Connection, tmp_path: Path) -> None:
    settings = load_settings(
        private_projects=["ops"], embedding={"backend": "http", "base_url": "https://embed.example.com", "model": "m"}
    )
    tiny = OnnxEmbedder(build_tiny_model(tmp_path / "tiny").folder)
    sent: list[str] = []

    class Recording:
        identity = tiny.identity

        def embed_passages(self, texts: list[str]) -> object:
            sent.extend(texts)
            return tiny.embed_passages(texts)

        def embed_query(self, text: str) -> object:
            return tiny.embed_query(text)

        def close(self) -> None:
            tiny.close()

    state = StepState(
        settings,
        extract_bytes,
        embedder=Recording(),  # type: ignore[arg-type]
        may_embed=lambda project: may_embed_project(settings, project),
    )
    embed_all(state)
    assert sent and not any("pool" in text or "Nginx" in text for text in sent)


def test_while_a_new_model_builds_the_old_one_embeds_the_queries_its_vectors_answer(
    memory: apsw.Connection, settings: Settings, use_m3: Embedder, tmp_path: Path
) -> None:
    state = StepState(settings, extract_bytes, embedder=use_m3)
    embed_all(state)
    tiny = OnnxEmbedder(build_tiny_model(tmp_path / "tiny").folder)
    tools = MemoryTools(
        settings,
        MemoryBackend(
            open_conn=lambda: connect(settings.database_path),
            save=lambda request: pytest.fail("no save here"),
            recent_context=lambda project: "",
            embedder=lambda: state.embedder,
            previous_embedder=lambda: state.previous_embedder,
        ),
    )
    try:
        switch_embedder(memory, state, tiny)
        assert state.embedder is tiny and state.previous_embedder is use_m3
        during = tools.search_memory("怎么才能记得牢", project=None, tier=None, limit=3)
        assert during.mode == "hybrid" and "间隔重复" in during.results[0].text  # use-m3's vectors answer
        embed_all(state)
        assert [m.name for m in vectors.models(memory)] == ["tiny-test"] and state.previous_embedder is None
        after = tools.search_memory("ruff lint", project=None, tier=None, limit=3)
        assert after.mode == "hybrid"  # the new model's vectors answer, with the new model's query
        switch_embedder(memory, state, None)  # to keywords only: tiny's vectors answer until they are dropped
        assert state.previous_embedder is tiny
    finally:
        tools.close()
        tiny.close()


@pytest.mark.parametrize("query", ["how do I memorize vocabulary for longer", "怎么才能记得牢"])
def test_vector_mode_fills_its_limit_past_insights_still_pending(
    memory: apsw.Connection, settings: Settings, use_m3: Embedder, query: str
) -> None:
    # a pending insight is embedded (new candidates are related to it by meaning) but never answers a search
    with memory:
        for at, (_, text) in enumerate(NOTES):
            candidate = Candidate(text, "method", "", text, 0, len(text))
            insights.insert_insight(
                memory, project="study", candidate=candidate, relation="new", source_id=at + 1, now="2026-11-30"
            )
    embed_all(StepState(settings, extract_bytes, embedder=use_m3))
    hits = search(memory, query, home=settings.home_dir, mode="vector", embedder=use_m3, limit=3)
    assert len(hits) == 3  # five notes stored: three asked, three given
    assert "间隔重复" in hits[0].text
    assert all(hit.tier != "insight" for hit in hits)
