"""Build a tiny sentence-embedding model folder for tests: model.onnx, tokenizer.json, manifest.json.

The model looks each token up in a random table (plus a token-type row) and
zeroes padded positions; it outputs ``last_hidden_state`` [batch, seq, dim],
or, when ``pooled``, the masked mean ``sentence_embedding`` [batch, dim]. So a
test can compute the exact vector any text should get from ``table``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
from tokenizers.models import WordLevel

DIMENSION = 8
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
WORDS = re.findall(
    r"\S+",
    "query passage : the a database connection pool size was raised to use ruff lint python code "
    "memory spaced repetition words review day one two three four five six seven eight nine ten",
)
HANZI = list("我喜欢在周末去爬山数据库连接池记得牢复习单词间隔重")
VOCAB = SPECIALS + WORDS + HANZI


@dataclass(frozen=True, slots=True)
class TinyModel:
    folder: Path
    table: npt.NDArray[np.float32]  # one row per token id
    tokenizer: Tokenizer  # the tokenizer as saved, padding and all

    def token_ids(self, text: str) -> list[int]:
        """The ids the model sees for text, [CLS] and [SEP] included."""
        return list(self.tokenizer.encode(text).ids)

    def expected(self, text: str, pooling: str = "mean") -> npt.NDArray[np.float32]:
        """The unit vector OnnxEmbedder should make for text (prefix included)."""
        rows = self.table[self.token_ids(text)]
        vector: npt.NDArray[np.float32] = rows[0] if pooling == "cls" else rows.mean(axis=0)
        return vector / np.linalg.norm(vector)


def build_tokenizer() -> Tokenizer:
    """A BERT-style word-level tokenizer: lowercase words, one token per hanzi."""
    tokenizer = Tokenizer(WordLevel({word: i for i, word in enumerate(VOCAB)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(handle_chinese_chars=True, lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", VOCAB.index("[CLS]")), ("[SEP]", VOCAB.index("[SEP]"))]
    )
    # saved with padding on, as exported tokenizers often are; the embedder must pad per batch itself
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return tokenizer


def build_graph(table: npt.NDArray[np.float32], *, pooled: bool, token_types: bool) -> onnx.ModelProto:
    """Gather token rows, add token-type rows, zero the padding, optionally mean-pool."""
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
    ]
    # type 0 adds nothing, type 1 adds ones: feeding anything but zeros would show
    type_table = np.stack([np.zeros(DIMENSION), np.ones(DIMENSION)]).astype(np.float32)
    initializers = [
        numpy_helper.from_array(table, "table"),
        numpy_helper.from_array(type_table, "type_table"),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "last_axis"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "seq_axis"),
        numpy_helper.from_array(np.array(1.0, dtype=np.float32), "one"),
    ]
    nodes = [helper.make_node("Gather", ["table", "input_ids"], ["tokens"], axis=0)]
    if token_types:
        inputs.append(helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "seq"]))
        nodes += [
            helper.make_node("Gather", ["type_table", "token_type_ids"], ["types"], axis=0),
            helper.make_node("Add", ["tokens", "types"], ["embedded"]),
        ]
    else:
        nodes.append(helper.make_node("Identity", ["tokens"], ["embedded"]))
    nodes += [
        helper.make_node("Cast", ["attention_mask"], ["mask_float"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask_float", "last_axis"], ["mask"]),
        helper.make_node("Mul", ["embedded", "mask"], ["last_hidden_state"]),
    ]
    if pooled:
        nodes += [
            helper.make_node("ReduceSum", ["last_hidden_state", "seq_axis"], ["summed"], keepdims=0),
            helper.make_node("ReduceSum", ["mask", "seq_axis"], ["count"], keepdims=0),
            helper.make_node("Max", ["count", "one"], ["safe_count"]),
            helper.make_node("Div", ["summed", "safe_count"], ["sentence_embedding"]),
        ]
        output = helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", DIMENSION])
    else:
        output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", DIMENSION])
    graph = helper.make_graph(nodes, "tiny_embedder", inputs, [output], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    return model


def build_tiny_model(
    folder: Path,
    *,
    pooled: bool = False,
    token_types: bool = True,
    manifest: dict[str, object] | None = None,
) -> TinyModel:
    """Write a model folder; ``manifest`` entries override (or, set to None, drop) the defaults."""
    folder.mkdir(parents=True, exist_ok=True)
    table = np.random.default_rng(7).normal(size=(len(VOCAB), DIMENSION)).astype(np.float32)
    onnx.save(build_graph(table, pooled=pooled, token_types=token_types), str(folder / "model.onnx"))
    tokenizer = build_tokenizer()
    tokenizer.save(str(folder / "tokenizer.json"))
    fields: dict[str, object] = {
        "name": "tiny-test",
        "dimension": DIMENSION,
        "pooling": "none" if pooled else "mean",
        "normalize": True,
        "query_prefix": "query : ",
        "passage_prefix": "passage : ",
        "max_tokens": 64,
        "output": "sentence_embedding" if pooled else "last_hidden_state",
    }
    for key, value in (manifest or {}).items():
        if value is None:
            fields.pop(key, None)
        else:
            fields[key] = value
    (folder / "manifest.json").write_text(json.dumps(fields, ensure_ascii=False), encoding="utf-8")
    return TinyModel(folder, table, Tokenizer.from_file(str(folder / "tokenizer.json")))
