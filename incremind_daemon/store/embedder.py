"""The embedder interface the store searches with: what a vector is and which model made it.

The backends live in ``incremind_daemon.embedding``. ``NoEmbedder`` stands for
keyword-only mode. Every vector is float32 and L2-normalised, so a dot product
is the cosine similarity.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np
import numpy.typing as npt

from incremind_daemon.errors import IncremindError

Vectors = npt.NDArray[np.float32]

# no real text averages more than a few characters a token, so a tokenizer never needs more to fill a window
CHARS_PER_TOKEN = 16


@dataclass(frozen=True, slots=True)
class ModelIdentity:
    """Which model made a vector; vectors of different identities never mix."""

    name: str
    dimension: int
    digest: str  # sha256 hex of what defines the model (its manifest, package version or endpoint)

    @property
    def key(self) -> str:
        """Name the model in SQL identifiers: only ``a-z``, ``0-9`` and ``_``."""
        return re.sub(r"[^a-z0-9_]", "_", f"{self.name}-{self.dimension}-{self.digest[:12]}".lower())


class Embedder(Protocol):
    """Makes float32, L2-normalised vectors; implementations are thread-safe."""

    @property
    def identity(self) -> ModelIdentity: ...

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """Embed stored text: one row of shape (dimension,) per text, in order."""

    def embed_query(self, text: str) -> Vectors:
        """Embed a search query: shape (dimension,)."""

    def close(self) -> None:
        """Release the model; later calls raise IncremindError."""


def is_semantic(embedder: Embedder) -> bool:
    """Tell whether the embedder makes vectors (False in keyword-only mode)."""
    return embedder.identity.dimension > 0


def normalize_rows(matrix: npt.ArrayLike) -> Vectors:
    """Scale each row (or a single vector) to unit length; all-zero rows stay zero."""
    rows = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return cast(Vectors, rows / np.maximum(norms, np.float32(1e-12)))


def for_model(key: str, embedders: Iterable[Embedder | None]) -> Embedder | None:
    """Return the first of the embedders whose vectors a model key names (the model answering searches)."""
    return next((e for e in embedders if e is not None and e.identity.key == key), None)


def sha256_hex(text: str) -> str:
    """Digest a string for a ModelIdentity."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class NoEmbedder:
    """Keyword-only mode: it has an identity but makes no vectors."""

    @property
    def identity(self) -> ModelIdentity:
        return ModelIdentity("none", 0, sha256_hex("none"))

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        raise IncremindError("no embedding model is configured, so search by meaning is off; configure one to use it")

    def embed_query(self, text: str) -> Vectors:
        return self.embed_passages([text])

    def close(self) -> None:
        pass
