"""Embedding throughput per backend: use-m3, the tiny ONNX stand-in and an HTTP stub.

Imports incremind, so a script imports this only after ``isolate_home``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

from benchmarks.corpus import iter_passages
from benchmarks.semantic_report import Plan, Report
from incremind_daemon.embedding.http import HttpEmbedder
from incremind_daemon.embedding.onnx import OnnxEmbedder
from incremind_daemon.embedding.use_m3 import UseM3Embedder
from incremind_daemon.store.embedder import Embedder, Vectors
from tests.tiny_onnx import build_tiny_model

EMBED_BATCH = 32  # the worker's default embedding.batch_size
HTTP_DIMENSION = 384


@lru_cache(maxsize=8)
def stub_payload(count: int) -> bytes:
    """The stub's answer for count texts: the same fixed unit vector each time."""
    vector = np.random.default_rng(11).normal(size=HTTP_DIMENSION)
    row = [round(float(x), 6) for x in vector / np.linalg.norm(vector)]
    data = [{"object": "embedding", "index": i, "embedding": row} for i in range(count)]
    return json.dumps({"object": "list", "model": "stub", "data": data}).encode()


class StubEmbeddingsHandler(BaseHTTPRequestHandler):
    """An OpenAI-compatible /v1/embeddings that answers at once with fixed vectors."""

    protocol_version = "HTTP/1.1"  # keep-alive, as a real endpoint would allow

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        payload = stub_payload(len(body["input"]))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def stub_endpoint() -> Iterator[str]:
    """Serve the stub on 127.0.0.1 on a thread; yield its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), StubEmbeddingsHandler)
    thread = threading.Thread(target=server.serve_forever, name="embeddings-stub", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def embed_in_batches(embedder: Embedder, texts: Sequence[str]) -> Vectors:
    """Embed texts EMBED_BATCH at a time, as the worker does."""
    parts = [embedder.embed_passages(texts[i : i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
    return np.concatenate(parts)


def passages_per_second(embedder: Embedder, texts: Sequence[str], min_seconds: float = 2.0) -> float:
    """Embed all texts (again, until min_seconds have passed); return passages per second."""
    done = 0
    started = time.perf_counter()
    while True:
        embed_in_batches(embedder, texts)
        done += len(texts)
        seconds = time.perf_counter() - started
        if seconds >= min_seconds:
            return done / seconds


def bench_embedding(plan: Plan, report: Report, root: Path) -> None:
    """Measure passages per second for each backend, with 1 and 2 threads where that applies."""
    texts = [text for _, text in iter_passages(plan.embed_passages)]
    section = "embedding throughput"
    report.add(section, "passages", len(texts), "", 0)
    report.add(section, "mean passage", sum(map(len, texts)) / len(texts), "chars", 0)
    for threads in (1, 2):
        use_m3 = UseM3Embedder(threads=threads)
        started = time.perf_counter()
        use_m3.embed_query("warm up")
        report.add(section, f"use-m3 load + first text, {threads} thread(s)", time.perf_counter() - started, "s", 2)
        report.add(section, f"use-m3, {threads} thread(s)", passages_per_second(use_m3, texts), "passages/s", 1)
        use_m3.close()
    folder = root / "tiny-onnx"
    build_tiny_model(folder)
    for threads in (1, 2):
        onnx = OnnxEmbedder(folder, threads=threads, batch_size=EMBED_BATCH)
        onnx.embed_query("warm up")
        report.add(section, f"onnx tiny stand-in, {threads} thread(s)", passages_per_second(onnx, texts), "passages/s")
        onnx.close()
    with stub_endpoint() as base_url:
        http = HttpEmbedder(base_url, "stub", api_key=None, dimension=HTTP_DIMENSION, batch_size=EMBED_BATCH)
        http.embed_query("warm up")
        report.add(section, "http stub (client overhead only)", passages_per_second(http, texts), "passages/s")
        http.close()
    report.note(
        "onnx rows use tests/tiny_onnx.py's 8-d lookup-table model (no real ONNX model can be downloaded here), "
        "so they measure tokenizers + onnxruntime plumbing, not a transformer"
    )
    report.note(
        f"http row: a ThreadingHTTPServer on 127.0.0.1 in this process answers {HTTP_DIMENSION}-d fixed vectors "
        f"at once; it measures HttpEmbedder's request/JSON overhead (batches of {EMBED_BATCH}), not a model"
    )
