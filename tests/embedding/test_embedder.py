from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from incremind_daemon.embedding.cache import query_cache
from incremind_daemon.embedding.onnx import OnnxEmbedder, load_manifest
from incremind_daemon.embedding.use_m3 import UseM3Embedder
from incremind_daemon.errors import ConfigError, IncremindError
from incremind_daemon.store.embedder import Embedder, ModelIdentity, NoEmbedder, Vectors, is_semantic
from tests.tiny_onnx import DIMENSION, TinyModel, build_tiny_model

TEXTS = [
    "the database connection pool size was raised to ten",
    "我喜欢在周末去爬山",
    "use ruff",
    "spaced repetition : review words on day one two four seven",
    "数据库连接池",
    "python",
    "间隔重复 复习单词 记得牢",
]


@pytest.fixture
def tiny(tmp_path: Path) -> TinyModel:
    return build_tiny_model(tmp_path / "tiny")


def test_identity_key_uses_only_sql_name_characters() -> None:
    identity = ModelIdentity("Multilingual-E5.small/v2", 384, "ABCDEF0123456789" * 4)
    assert identity.key == "multilingual_e5_small_v2_384_abcdef012345"


def test_onnx_embedder_makes_unit_rows_of_the_manifest_dimension(tiny: TinyModel) -> None:
    embedder = OnnxEmbedder(tiny.folder)
    vectors = embedder.embed_passages(TEXTS)
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(TEXTS), DIMENSION)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    query = embedder.embed_query("数据库")
    assert query.shape == (DIMENSION,)
    assert embedder.identity.name == "tiny-test"
    assert embedder.identity.dimension == DIMENSION
    assert embedder.identity.digest == load_manifest(tiny.folder).digest
    assert is_semantic(embedder)


def test_onnx_embedder_mean_pools_the_tokens_after_the_passage_prefix(tiny: TinyModel) -> None:
    vectors = OnnxEmbedder(tiny.folder).embed_passages(TEXTS)
    for text, vector in zip(TEXTS, vectors, strict=True):
        np.testing.assert_allclose(vector, tiny.expected("passage : " + text), atol=1e-5)


@pytest.mark.parametrize("batch_size", [1, 2, 3, 32])
def test_onnx_batch_returns_what_each_text_gets_alone(tiny: TinyModel, batch_size: int) -> None:
    embedder = OnnxEmbedder(tiny.folder, batch_size=batch_size)
    together = embedder.embed_passages(TEXTS)
    alone = np.stack([embedder.embed_passages([text])[0] for text in TEXTS])
    np.testing.assert_allclose(together, alone, atol=1e-6)


def test_onnx_long_text_is_truncated_at_max_tokens(tmp_path: Path) -> None:
    tiny = build_tiny_model(tmp_path / "tiny", manifest={"max_tokens": 8, "passage_prefix": ""})
    words = ("one two three four five six seven eight nine ten " * 300).split()
    embedder = OnnxEmbedder(tiny.folder)
    long, head = embedder.embed_passages([" ".join(words), " ".join(words[:6])])  # 8 = [CLS] + 6 words + [SEP]
    np.testing.assert_allclose(long, head, atol=1e-6)
    assert not np.allclose(head, embedder.embed_passages([" ".join(words[:5])])[0], atol=1e-3)


def test_onnx_query_and_passage_differ_when_prefixes_differ(tiny: TinyModel) -> None:
    embedder = OnnxEmbedder(tiny.folder)
    query, passage = embedder.embed_query("数据库连接池"), embedder.embed_passages(["数据库连接池"])[0]
    assert not np.allclose(query, passage, atol=1e-3)
    np.testing.assert_allclose(query, tiny.expected("query : 数据库连接池"), atol=1e-5)


def test_onnx_query_equals_passage_when_prefixes_are_equal(tmp_path: Path) -> None:
    tiny = build_tiny_model(tmp_path / "tiny", manifest={"query_prefix": None, "passage_prefix": None})
    embedder = OnnxEmbedder(tiny.folder)
    np.testing.assert_allclose(embedder.embed_query("use ruff"), embedder.embed_passages(["use ruff"])[0])


def test_onnx_session_uses_the_given_threads(tiny: TinyModel) -> None:
    options = OnnxEmbedder(tiny.folder, threads=3).session_options
    assert options.intra_op_num_threads == 3
    assert options.inter_op_num_threads == 1


def test_onnx_pooled_output_is_read_as_is(tmp_path: Path) -> None:
    tiny = build_tiny_model(tmp_path / "tiny", pooled=True, manifest={"output": None})
    vectors = OnnxEmbedder(tiny.folder, batch_size=2).embed_passages(TEXTS)
    for text, vector in zip(TEXTS, vectors, strict=True):
        np.testing.assert_allclose(vector, tiny.expected("passage : " + text), atol=1e-5)


def test_onnx_cls_pooling_takes_the_first_token(tmp_path: Path) -> None:
    tiny = build_tiny_model(tmp_path / "tiny", manifest={"pooling": "cls"})
    vector = OnnxEmbedder(tiny.folder).embed_query("python")
    np.testing.assert_allclose(vector, tiny.expected("query : python", pooling="cls"), atol=1e-5)


def test_onnx_model_without_token_type_ids_is_fed_only_what_it_declares(tmp_path: Path) -> None:
    tiny = build_tiny_model(tmp_path / "tiny", token_types=False)
    vector = OnnxEmbedder(tiny.folder).embed_passages(["use ruff"])[0]
    np.testing.assert_allclose(vector, tiny.expected("passage : use ruff"), atol=1e-5)


def test_onnx_empty_input_gives_no_rows(tiny: TinyModel) -> None:
    assert OnnxEmbedder(tiny.folder).embed_passages([]).shape == (0, DIMENSION)


def test_onnx_embedder_refuses_to_embed_after_close(tiny: TinyModel) -> None:
    embedder = OnnxEmbedder(tiny.folder)
    embedder.close()
    with pytest.raises(IncremindError, match="closed"):
        embedder.embed_query("python")


def _write_manifest(**fields: object) -> Callable[[Path], None]:
    def write(folder: Path) -> None:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        manifest.update(fields)
        (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    return write


def _drop_manifest_key(key: str) -> Callable[[Path], None]:
    def drop(folder: Path) -> None:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        del manifest[key]
        (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    return drop


def _write_file(name: str, content: str) -> Callable[[Path], None]:
    def write(folder: Path) -> None:
        (folder / name).write_text(content, encoding="utf-8")

    return write


def _remove_file(name: str) -> Callable[[Path], None]:
    return lambda folder: (folder / name).unlink()


@pytest.mark.parametrize(
    ("spoil", "file", "fragment"),
    [
        (_remove_file("manifest.json"), "manifest.json", "is missing"),
        (_write_file("manifest.json", '{"name": "x",'), "manifest.json", "not valid JSON"),
        (_write_file("manifest.json", "[1, 2]"), "manifest.json", "JSON object"),
        (_drop_manifest_key("name"), "manifest.json", "lacks name"),
        (_write_manifest(dimension="8"), "manifest.json", "dimension must be a whole number"),
        (_write_manifest(dimension=True), "manifest.json", "dimension must be a whole number"),
        (_write_manifest(dimension=0), "manifest.json", "dimension must be at least 1"),
        (_write_manifest(pooling="max"), "manifest.json", "pooling must be one of"),
        (_write_manifest(name=" "), "manifest.json", "name must not be empty"),
        (_write_manifest(max_tokens=2), "manifest.json", "leaves no room"),
        (_write_manifest(output="pooler_output"), "model.onnx", "no output 'pooler_output'"),
        (_write_manifest(dimension=16), "model.onnx", "dimension 16"),
        (_write_manifest(pooling="none"), "model.onnx", "has 3 dimensions"),
        (_remove_file("model.onnx"), "model.onnx", "is missing"),
        (_write_file("model.onnx", "not a model"), "model.onnx", "could not be loaded"),
        (_remove_file("tokenizer.json"), "tokenizer.json", "is missing"),
        (_write_file("tokenizer.json", "{}"), "tokenizer.json", "not a tokenizers"),
    ],
)
def test_onnx_bad_model_folder_raises_config_error_naming_the_file(
    tiny: TinyModel, spoil: Callable[[Path], None], file: str, fragment: str
) -> None:
    spoil(tiny.folder)
    with pytest.raises(ConfigError) as raised:
        OnnxEmbedder(tiny.folder)
    assert file in str(raised.value)
    assert fragment in str(raised.value)


def test_onnx_missing_folder_raises_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        OnnxEmbedder(tmp_path / "nowhere")


def test_manifest_unknown_key_is_logged_and_ignored(tiny: TinyModel, caplog: pytest.LogCaptureFixture) -> None:
    _write_manifest(normalise=False, license="MIT")(tiny.folder)
    assert load_manifest(tiny.folder).normalize is True
    assert "ignoring unknown key(s) license, normalise" in caplog.text


def test_manifest_defaults_fill_optional_keys(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "manifest.json").write_text('{"name": "e5", "dimension": 384, "pooling": "none"}', encoding="utf-8")
    manifest = load_manifest(folder)
    assert (manifest.max_tokens, manifest.query_prefix, manifest.output) == (512, "", "sentence_embedding")
    assert len(manifest.digest) == 64


def test_no_embedder_is_not_semantic_and_refuses_to_embed() -> None:
    embedder = NoEmbedder()
    assert not is_semantic(embedder)
    assert embedder.identity.key.startswith("none_0_")
    with pytest.raises(IncremindError, match="no embedding model"):
        embedder.embed_query("anything")


class CountingEmbedder:
    """A real Embedder that counts its query calls."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.closed = False

    @property
    def identity(self) -> ModelIdentity:
        return ModelIdentity("counting", 2, "0" * 64)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return np.tile(np.array([[0.6, 0.8]], dtype=np.float32), (len(texts), 1))

    def embed_query(self, text: str) -> Vectors:
        self.queries.append(text)
        return np.array([0.0, 1.0], dtype=np.float32)

    def close(self) -> None:
        self.closed = True


def test_query_cache_embeds_a_repeated_query_once() -> None:
    inner = CountingEmbedder()
    cached: Embedder = query_cache(inner, size=2)
    first = cached.embed_query("a")
    assert cached.embed_query("a") is first
    assert not first.flags.writeable
    cached.embed_query("b")
    cached.embed_query("c")  # evicts "a", the least recently used
    cached.embed_query("a")
    assert inner.queries == ["a", "b", "c", "a"]
    assert cached.identity == inner.identity
    assert cached.embed_passages(["x", "y"]).shape == (2, 2)
    cached.close()
    assert inner.closed


# use-m3: the default model, real weights (the use_m3 fixture is conftest's, loaded once per run)

PASSAGES = [
    "间隔重复：按第1、2、4、7、15天复习单词，可以记得更牢。",
    "The database connection pool size was raised to 20.",
    "我喜欢在周末去爬山。",
    "Use ruff to lint Python code.",
]


@pytest.mark.parametrize(
    ("query", "best"),
    [("怎么才能记得牢", 0), ("how do I memorize vocabulary better", 0), ("数据库连接池", 1)],
)
def test_use_m3_finds_paraphrase_and_cross_language_match(use_m3: UseM3Embedder, query: str, best: int) -> None:
    scores = use_m3.embed_passages(PASSAGES) @ use_m3.embed_query(query)
    assert int(np.argmax(scores)) == best


def test_use_m3_makes_unit_512_vectors_the_same_for_query_and_passage(use_m3: UseM3Embedder) -> None:
    vectors = use_m3.embed_passages(PASSAGES)
    assert vectors.dtype == np.float32
    assert vectors.shape == (4, 512)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(use_m3.embed_query(PASSAGES[2]), vectors[2], atol=1e-5)
    assert use_m3.embed_passages([]).shape == (0, 512)
    assert use_m3.identity.name == "use-m3"
    assert use_m3.identity.key.startswith("use_m3_512_")


def test_use_m3_refuses_to_embed_after_close() -> None:
    embedder = UseM3Embedder(threads=1)
    embedder.close()
    with pytest.raises(IncremindError, match="closed"):
        embedder.embed_query("记得牢")


def test_use_m3_embeds_a_long_text_from_its_first_tokens() -> None:
    embedder = UseM3Embedder(threads=1, max_tokens=8)  # <s> + 6 words + </s>
    words = ("one two three four five six seven eight nine ten " * 50_000).split()  # about 2.5 MB
    long, head, shorter = embedder.embed_passages([" ".join(words), " ".join(words[:6]), " ".join(words[:5])])
    np.testing.assert_allclose(long, head, atol=1e-6)
    assert not np.allclose(head, shorter, atol=1e-3)
    embedder.close()


def test_use_m3_window_holds_a_whole_passage(use_m3: UseM3Embedder) -> None:
    passage = "间隔重复：按第1、2、4、7、15天复习单词，可以记得更牢。" * 25  # 750 characters, the longest passages
    longer = use_m3.embed_passages([passage + " and then some words that follow it"])[0]
    assert not np.allclose(use_m3.embed_passages([passage])[0], longer, atol=1e-4)


def test_onnx_embeds_a_huge_text_from_its_first_tokens(tmp_path: Path) -> None:
    tiny = build_tiny_model(tmp_path / "tiny", manifest={"max_tokens": 8, "passage_prefix": ""})
    words = ("one two three four five six seven eight nine ten " * 200_000).split()  # about 10 MB
    embedder = OnnxEmbedder(tiny.folder)
    long, head = embedder.embed_passages([" ".join(words), " ".join(words[:6])])
    np.testing.assert_allclose(long, head, atol=1e-6)
