"""Remember recent query vectors: agents and people repeat their queries."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from incremind_daemon.store.embedder import Embedder, ModelIdentity, Vectors


class QueryCache:
    """An embedder that remembers its last ``size`` query vectors (queries repeat)."""

    def __init__(self, embedder: Embedder, size: int = 256) -> None:
        self._embedder = embedder
        self._size = size
        self._vectors: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def identity(self) -> ModelIdentity:
        return self._embedder.identity

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return self._embedder.embed_passages(texts)

    def embed_query(self, text: str) -> Vectors:
        """Embed a query, or return the cached, read-only vector of an earlier one."""
        with self._lock:
            cached = self._vectors.get(text)
            if cached is not None:
                self._vectors.move_to_end(text)
                return cached
        vector = self._embedder.embed_query(text)
        vector.flags.writeable = False  # shared by every caller from now on
        with self._lock:
            self._vectors[text] = vector
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
        return vector

    def close(self) -> None:
        with self._lock:
            self._vectors.clear()
        self._embedder.close()


def query_cache(embedder: Embedder, size: int = 256) -> Embedder:
    """Wrap an embedder so repeated queries skip the model."""
    return QueryCache(embedder, size)
