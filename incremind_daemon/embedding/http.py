"""Embeddings from an OpenAI-compatible endpoint (``POST /v1/embeddings``) over httpx.

Callers decide what may be sent where: private projects go only to an endpoint
for which ``is_loopback`` is true.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import cast
from urllib.parse import urlsplit

import httpx
import numpy as np

from incremind_daemon.errors import ConfigError, IncremindError
from incremind_daemon.pipeline.endpoints import RetryPolicy, describe_refusal, is_retryable, post_json
from incremind_daemon.pipeline.endpoints import is_loopback as is_loopback
from incremind_daemon.pipeline.endpoints import retry_after_seconds as retry_after_seconds
from incremind_daemon.store.embedder import ModelIdentity, Vectors, normalize_rows, sha256_hex

log = logging.getLogger(__name__)

_PROBE_TEXT = "dimension probe"
# The endpoint's tokenizer is not at hand, so characters stand in for its tokens: 4,096 hold any
# organized passage (768 at most) and a cut query (2,000), and fit the 8,192-token window of the
# common embedding models even for Chinese; a longer text (a long session message) is embedded
# from its start rather than refused by the endpoint, which would stop embedding altogether.
MAX_INPUT_CHARS = 4_096


def embeddings_url(base_url: str) -> str:
    """The embeddings endpoint under base_url, with or without its ``/v1``."""
    url = base_url.strip().rstrip("/")
    if urlsplit(url).scheme not in ("http", "https"):
        raise ConfigError(f"the embeddings base URL {base_url!r} must start with http:// or https://")
    return f"{url}/embeddings" if url.endswith("/v1") else f"{url}/v1/embeddings"


class HttpEmbedder:
    """Embed through an OpenAI-compatible embeddings endpoint.

    Queries and passages are embedded alike, each from its first
    ``MAX_INPUT_CHARS`` characters. 429, 5xx and network failures are
    retried with exponential backoff (``retry_delay`` doubling, or the server's
    Retry-After, never above ``max_retry_delay`` seconds); anything else that
    goes wrong raises IncremindError. Without ``dimension`` the first answer
    sets it. Thread-safe.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None,
        dimension: int | None = None,
        batch_size: int = 64,
        timeout: float = 30,
        max_retries: int = 4,
        retry_delay: float = 0.5,
        max_retry_delay: float = 20,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if batch_size < 1 or max_retries < 0 or (dimension is not None and dimension < 1):
            raise ConfigError(
                f"embedding endpoint settings out of range: batch_size {batch_size} (at least 1), "
                f"max_retries {max_retries} (at least 0), dimension {dimension} (at least 1)"
            )
        self.url = embeddings_url(base_url)
        self._model = model
        self._dimension = dimension
        self._batch_size = batch_size
        self._max_retries = max_retries
        self._retry_delay = retry_delay
        self._max_retry_delay = max_retry_delay
        self._lock = threading.Lock()
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # a loopback endpoint is reached directly, never through a proxy named in the environment
        self._client = httpx.Client(
            timeout=timeout, headers=headers, transport=transport, trust_env=not is_loopback(base_url)
        )

    @property
    def identity(self) -> ModelIdentity:
        """Name, dimension and digest of base URL, model and dimension; may ask the endpoint once."""
        dimension = self._dimension
        if dimension is None:
            dimension = self._embed_batch([_PROBE_TEXT]).shape[1]
        return ModelIdentity(self._model, dimension, sha256_hex(f"{self.url}\n{self._model}\n{dimension}"))

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        batches = [
            self._embed_batch(list(texts[start : start + self._batch_size]))
            for start in range(0, len(texts), self._batch_size)
        ]
        return np.concatenate(batches)

    def embed_query(self, text: str) -> Vectors:
        return cast(Vectors, self._embed_batch([text])[0])

    def close(self) -> None:
        self._client.close()

    def _embed_batch(self, texts: list[str]) -> Vectors:
        matrix = parse_embeddings(self._post(texts), len(texts), self.url)
        with self._lock:
            if self._dimension is None:
                self._dimension = matrix.shape[1]
                log.info("%s makes %d-dimensional embeddings with %s", self.url, self._dimension, self._model)
            expected = self._dimension
        if matrix.shape[1] != expected:
            raise IncremindError(
                f"{self.url} returned {matrix.shape[1]}-dimensional embeddings for {self._model}, but {expected} "
                "were expected; set the dimension to match the model"
            )
        return normalize_rows(matrix)

    def _post(self, texts: list[str]) -> object:
        policy = RetryPolicy(self._max_retries, self._retry_delay, self._max_retry_delay)
        inputs = [text[:MAX_INPUT_CHARS] for text in texts]
        exchange = post_json(self._client, self.url, {"model": self._model, "input": inputs}, policy, label="embedding")
        response = exchange.response
        if response is None:
            raise IncremindError(
                f"could not reach the embedding endpoint {self.url} in {len(exchange.attempts)} attempts "
                f"({exchange.error!r}); check that it is running and the base URL is right"
            ) from exchange.error
        if response.is_success:
            return _read_json(response, self.url)
        if not is_retryable(response.status_code):
            refusal = describe_refusal(response, self.url, self._model, section="embedding", kind="an embedding model")
            raise IncremindError(refusal)
        raise IncremindError(
            f"the embedding endpoint {self.url} answered {response.status_code} "
            f"{response.reason_phrase} {len(exchange.attempts)} times; try again later"
        )


def parse_embeddings(payload: object, count: int, url: str) -> Vectors:
    """Read ``data[i].embedding`` into rows ordered by ``index``; anything odd raises IncremindError."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        raise IncremindError(f"{url} answered without a 'data' list; is it an OpenAI-compatible embeddings endpoint?")
    if len(data) != count:
        raise IncremindError(f"{url} returned {len(data)} embeddings for {count} texts; the endpoint is misbehaving")
    rows: list[object] = [None] * count
    for position, item in enumerate(data):
        index = item.get("index", position) if isinstance(item, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count or rows[index] is not None:
            raise IncremindError(f"{url} returned embedding {position} with a missing, bad or repeated index")
        rows[index] = item.get("embedding") if isinstance(item, dict) else None
    try:
        matrix = np.array(rows, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise IncremindError(f"{url} returned embeddings that are not equal-length lists of numbers") from exc
    if matrix.ndim != 2 or matrix.shape[1] == 0 or not np.isfinite(matrix).all():
        raise IncremindError(f"{url} returned embeddings that are not equal-length lists of finite numbers")
    return matrix


def _read_json(response: httpx.Response, url: str) -> object:
    try:
        payload: object = response.json()
    except ValueError as exc:
        raise IncremindError(f"{url} answered with malformed JSON ({exc}); is it an embeddings endpoint?") from exc
    return payload
