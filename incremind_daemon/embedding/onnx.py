"""Run any sentence-embedding model exported to ONNX, described by a manifest.json next to it.

Texts are cut to the manifest's ``max_tokens`` (the tokenizer sees at most
``CHARS_PER_TOKEN`` characters per token of each).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np
import numpy.typing as npt

from incremind_daemon.errors import ConfigError, IncremindError
from incremind_daemon.store.embedder import CHARS_PER_TOKEN, ModelIdentity, Vectors, normalize_rows

if TYPE_CHECKING:  # loaded on first use
    import onnxruntime as ort
    from tokenizers import Encoding, Tokenizer

log = logging.getLogger(__name__)

Pooling = Literal["mean", "cls", "none"]

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
MANIFEST_FILE = "manifest.json"

POOLINGS: tuple[Pooling, ...] = ("mean", "cls", "none")
MANIFEST_TYPES: dict[str, type] = {
    "name": str,
    "dimension": int,
    "pooling": str,
    "normalize": bool,
    "query_prefix": str,
    "passage_prefix": str,
    "max_tokens": int,
    "output": str,
}
_TYPE_NAMES = {str: "string", int: "whole number", bool: "true or false"}
_FEEDABLE_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_INPUT_DTYPES: dict[str, type[np.integer[Any]]] = {"tensor(int64)": np.int64, "tensor(int32)": np.int32}


@dataclass(frozen=True, slots=True)
class Manifest:
    """What a model folder's manifest.json says, validated."""

    name: str
    dimension: int
    digest: str  # sha256 hex of the manifest file's bytes (not a key in it)
    pooling: Pooling = "mean"  # "none": the model output is already one vector per text
    normalize: bool = True  # informational: rows are always L2-normalised, as the vector store assumes
    query_prefix: str = ""
    passage_prefix: str = ""
    max_tokens: int = 512
    output: str = "last_hidden_state"


def load_manifest(folder: Path) -> Manifest:
    """Read and validate ``folder/manifest.json``; a problem raises ConfigError."""
    path = folder / MANIFEST_FILE
    if not folder.is_dir():
        raise ConfigError(f"the embedding model folder {folder} does not exist; check the path in the settings")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path} is missing; write one that names the model, its dimension and pooling") from None
    except OSError as exc:
        raise ConfigError(f"{path} cannot be read: {exc.strerror}") from exc
    try:
        data = json.loads(raw)
    except ValueError as exc:  # JSONDecodeError names the line and column; UnicodeDecodeError the byte
        raise ConfigError(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object, not {type(data).__name__}")
    _check_manifest_keys(path, data)
    fields = {key: value for key, value in data.items() if key in MANIFEST_TYPES}
    if fields.get("pooling") == "none":
        fields.setdefault("output", "sentence_embedding")
    return Manifest(digest=hashlib.sha256(raw).hexdigest(), **fields)


def _check_manifest_keys(path: Path, data: dict[str, object]) -> None:
    unknown = sorted(set(data) - set(MANIFEST_TYPES))
    if unknown:  # tolerated, as model installers may add keys of their own; logged in case one is a typo
        log.warning(
            "%s: ignoring unknown key(s) %s; known keys: %s", path, ", ".join(unknown), ", ".join(MANIFEST_TYPES)
        )
    missing = [key for key in ("name", "dimension") if key not in data]
    if missing:
        raise ConfigError(f"{path} lacks {' and '.join(missing)}")
    for key, value in data.items():
        expected = MANIFEST_TYPES.get(key)
        if expected is not None and type(value) is not expected:  # exact: true is no number, nor 1 a boolean
            raise ConfigError(f"{path}: {key} must be a {_TYPE_NAMES[expected]}, not {json.dumps(value)}")
    for key in ("name", "output"):
        if key in data and not str(data[key]).strip():
            raise ConfigError(f"{path}: {key} must not be empty")
    for key in ("dimension", "max_tokens"):
        if key in data and cast(int, data[key]) < 1:
            raise ConfigError(f"{path}: {key} must be at least 1, not {data[key]}")
    if data.get("pooling", "mean") not in POOLINGS:
        raise ConfigError(f"{path}: pooling must be one of {', '.join(POOLINGS)}, not {json.dumps(data['pooling'])}")


class OnnxEmbedder:
    """A sentence-embedding model exported to ONNX, run in-process by onnxruntime.

    Texts are cut to ``max_tokens`` tokens (the tokenizer sees at most
    ``CHARS_PER_TOKEN`` characters per token of each), sorted by length and
    padded per batch, so short texts never pay for a long neighbour; results
    come back in input order. A bad folder raises ConfigError at construction.
    """

    def __init__(self, folder: Path, *, threads: int = 2, batch_size: int = 32) -> None:
        self.manifest = load_manifest(folder)
        self._batch_size = batch_size
        self._tokenizer, self._pad_id = _load_tokenizer(folder, self.manifest.max_tokens)
        session = _open_session(folder / MODEL_FILE, threads)
        self._input_dtypes = _check_signature(session, folder / MODEL_FILE, self.manifest)
        self._session: ort.InferenceSession | None = session
        self.session_options = session.get_session_options()  # as onnxruntime applied them: threads, say
        self._identity = ModelIdentity(self.manifest.name, self.manifest.dimension, self.manifest.digest)

    @property
    def identity(self) -> ModelIdentity:
        return self._identity

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return self._embed([self.manifest.passage_prefix + text for text in texts])

    def embed_query(self, text: str) -> Vectors:
        return cast(Vectors, self._embed([self.manifest.query_prefix + text])[0])

    def close(self) -> None:
        self._session = None

    def _embed(self, texts: list[str]) -> Vectors:
        session = self._session
        if session is None:
            raise IncremindError(f"the {self.manifest.name} embedder was closed; it cannot embed any more text")
        out = np.zeros((len(texts), self.manifest.dimension), dtype=np.float32)
        if not texts:
            return out
        chars = self.manifest.max_tokens * CHARS_PER_TOKEN
        encodings = self._tokenizer.encode_batch([text[:chars] for text in texts])
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self._batch_size):
            rows = order[start : start + self._batch_size]
            out[rows] = self._run(session, [encodings[i] for i in rows])
        return out

    def _run(self, session: ort.InferenceSession, batch: list[Encoding]) -> Vectors:
        width = max(1, *(len(encoding.ids) for encoding in batch))
        ids = np.full((len(batch), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, encoding in enumerate(batch):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        inputs = {name: feeds[name].astype(dtype, copy=False) for name, dtype in self._input_dtypes.items()}
        (output,) = session.run([self.manifest.output], inputs)
        pooled = _pool(np.asarray(output, dtype=np.float32), mask, self.manifest.pooling)
        if pooled.shape != (len(batch), self.manifest.dimension):
            shape, dimension = pooled.shape[1:], self.manifest.dimension
            raise IncremindError(f"{self.manifest.name} made vectors of shape {shape}; its manifest says {dimension}")
        return normalize_rows(pooled)


def _pool(output: Vectors, mask: npt.NDArray[np.int64], pooling: Pooling) -> Vectors:
    if pooling == "none":
        return output
    if pooling == "cls":
        return output[:, 0, :]
    weights = mask[:, :, None].astype(np.float32)
    return cast(Vectors, (output * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0))


def _load_tokenizer(folder: Path, max_tokens: int) -> tuple[Tokenizer, int]:
    from tokenizers import Tokenizer

    path = folder / TOKENIZER_FILE
    if not path.is_file():
        raise ConfigError(f"{path} is missing; export the model's tokenizer with tokenizers (tokenizer.json)")
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception for every failure
        raise ConfigError(f"{path} is not a tokenizers tokenizer file: {exc}") from exc
    special = tokenizer.num_special_tokens_to_add(is_pair=False)
    if max_tokens <= special:
        raise ConfigError(
            f"{folder / MANIFEST_FILE}: max_tokens {max_tokens} leaves no room beside {special} special tokens"
        )
    # padding happens per batch in OnnxEmbedder; keep the tokenizer's pad id for it
    pad_id = int(tokenizer.padding["pad_id"]) if tokenizer.padding else 0
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens)
    return tokenizer, pad_id


def _open_session(path: Path, threads: int) -> ort.InferenceSession:
    import onnxruntime as ort

    if not path.is_file():
        raise ConfigError(f"{path} is missing; put the exported ONNX model there")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only; onnxruntime's graph warnings would go to stderr
    try:
        return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's error classes derive from Exception directly
        raise ConfigError(f"{path} could not be loaded by onnxruntime: {exc}") from exc


def _check_signature(session: ort.InferenceSession, path: Path, manifest: Manifest) -> dict[str, type[np.integer[Any]]]:
    declared = {node.name: node.type for node in session.get_inputs()}
    unknown = sorted(set(declared) - set(_FEEDABLE_INPUTS))
    if unknown or "input_ids" not in declared:
        raise ConfigError(
            f"{path} takes inputs {', '.join(declared)}; a text embedder feeds input_ids and, if declared, "
            "attention_mask and token_type_ids only; export the model with those"
        )
    for name, kind in declared.items():
        if kind not in _INPUT_DTYPES:
            raise ConfigError(f"{path}: input {name} is {kind}; it must be int64 or int32")
    outputs = {node.name: node.shape for node in session.get_outputs()}
    if manifest.output not in outputs:
        names = ", ".join(outputs)
        raise ConfigError(f"{path} has no output {manifest.output!r} (named in {MANIFEST_FILE}); it has {names}")
    shape = outputs[manifest.output]
    rank = 2 if manifest.pooling == "none" else 3
    if len(shape) != rank:
        pooling = f"pooling {manifest.pooling} in {MANIFEST_FILE}"
        raise ConfigError(f"{path}: output {manifest.output} has {len(shape)} dimensions, but {pooling} needs {rank}")
    if isinstance(shape[-1], int) and shape[-1] != manifest.dimension:
        raise ConfigError(f"{MANIFEST_FILE} says dimension {manifest.dimension}, but {path} makes {shape[-1]}")
    return {name: _INPUT_DTYPES[kind] for name, kind in declared.items()}
