"""Benchmark search by meaning: embedding throughput, search latency per mode, memory.

Run from the repository root (``--quick`` for a sanity run of a few minutes):

    PYTHONPATH=. python benchmarks/semantic.py [--quick] [--only embed search rss] [--out figures.json]

Everything happens in a fresh temporary folder: HOME and INCREMIND_HOME point
inside it for this process and for every child it starts, so the real home is
never read or written. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import logging
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def isolate_home() -> Path:
    """Create the benchmark folder and point HOME and INCREMIND_HOME into it.

    Runs before incremind_daemon is imported, and drops inherited INCREMIND_*
    variables, so no setting or path of the real home can leak in.
    """
    root = Path(tempfile.mkdtemp(prefix="incremind-semantic-")).resolve()
    for name in [key for key in os.environ if key.startswith("INCREMIND_")]:
        del os.environ[name]
    os.environ["HOME"] = str(root / "home")
    os.environ["INCREMIND_HOME"] = str(root / "home" / ".incremind")
    (root / "home").mkdir()
    return root


BENCH_ROOT = isolate_home()  # before numpy, apsw and incremind_daemon are imported

# ingest_search isolates itself on import too, into a folder of its own; that folder is
# removed and the environment pointed back here right after the import (see adopt_home)
import apsw  # noqa: E402
import jieba  # noqa: E402
import numpy as np  # noqa: E402

import benchmarks.ingest_search as ingest_search  # noqa: E402
from benchmarks.corpus import Query, build_queries, iter_passages  # noqa: E402
from benchmarks.ingest_search import (  # noqa: E402
    PASSAGES_PER_SOURCE,
    build_search_db,
    checkpointed_db_bytes,
    cpu_seconds,
    daemon_env,
    machine_line,
    percentile,
    proc_status_kb,
    progress,
    query_int,
    wait_for,
)
from incremind_daemon.config import load_settings  # noqa: E402
from incremind_daemon.pipeline.embed_http import HttpEmbedder  # noqa: E402
from incremind_daemon.pipeline.ingest import utc_now  # noqa: E402
from incremind_daemon.store import vectors  # noqa: E402
from incremind_daemon.store.db import connect, fetch_rows  # noqa: E402
from incremind_daemon.store.embedder import Embedder, OnnxEmbedder, UseM3Embedder, Vectors, query_cache  # noqa: E402
from incremind_daemon.store.search import CANDIDATES, keyword_search, search  # noqa: E402
from incremind_daemon.store.semantic import kinds_for, vector_search  # noqa: E402
from tests.tiny_onnx import build_tiny_model  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
MB = 1_000_000  # decimal megabytes, RSS included, as in ingest_search.py
EMBED_BATCH = 32  # the worker's default embedding.batch_size
STORE_BATCH = 256  # queue entries per transaction while filling vector tables
NOISE_SIGMA = 0.035  # per component of a 512-d unit vector: cosine to its base of about 0.8
HYBRID_TARGET_MS = 50.0
HTTP_DIMENSION = 384
SEARCH_MODES = (  # (row label, search mode, fusion)
    ("keyword", "keyword", "weighted"),
    ("vector", "vector", "weighted"),
    ("hybrid rrf", "hybrid", "rrf"),
    ("hybrid weighted", "hybrid", "weighted"),
)


def adopt_home() -> None:
    """Undo ingest_search's import-time isolation: one temporary folder, this one."""
    shutil.rmtree(ingest_search.BENCH_ROOT, ignore_errors=True)
    os.environ["HOME"] = str(BENCH_ROOT / "home")
    os.environ["INCREMIND_HOME"] = str(BENCH_ROOT / "home" / ".incremind")


@dataclass(frozen=True, slots=True)
class Plan:
    """How big each benchmark is."""

    mode: str
    embed_passages: int
    scales: tuple[int, ...]
    real_vectors: int  # passages per database that get a real use-m3 vector; the rest are synthetic
    queries: int
    rounds: int
    daemon_files: int
    settle_seconds: float
    cpu_seconds: float


@dataclass(frozen=True, slots=True)
class Latency:
    """Percentiles of one timed operation, in milliseconds."""

    section: str
    name: str
    count: int
    p50: float
    p95: float
    p99: float
    max: float
    no_hit: int | None = None

    @classmethod
    def of(cls, section: str, name: str, ms: Sequence[float], no_hit: int | None = None) -> Latency:
        return cls(section, name, len(ms), percentile(ms, 50), percentile(ms, 95), percentile(ms, 99), max(ms), no_hit)


@dataclass(slots=True)
class Report(ingest_search.Report):
    """ingest_search's figures and notes, plus latency rows and a profile."""

    latencies: list[Latency] = field(default_factory=list)
    profile: str = ""

    def latency(self, row: Latency) -> Latency:
        self.latencies.append(row)
        progress(f"{row.section}: {row.name} p50 {row.p50:.2f} p95 {row.p95:.2f} max {row.max:.2f} ms")
        return row


def clock(call: Callable[..., object], *args: Any, **kwargs: Any) -> float:
    """Run call(*args, **kwargs) once; return its wall time in milliseconds."""
    started = time.perf_counter()
    call(*args, **kwargs)
    return (time.perf_counter() - started) * 1000


# ---------------------------------------------------------------- embedding throughput


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


def bench_embedding(plan: Plan, report: Report) -> None:
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
    folder = BENCH_ROOT / "tiny-onnx"
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


# ---------------------------------------------------------------- vectors for a search database


@dataclass(slots=True)
class VectorFill:
    """Where each vector of a database came from."""

    real: int = 0
    embedded_now: int = 0
    embed_seconds: float = 0.0
    synthetic: int = 0
    synthetic_cosines: list[float] = field(default_factory=list)


def is_real(kind: str, item: int, real_vectors: int) -> bool:
    """Tell whether a queued item gets a real vector: the first passages and their sources' summaries.

    build_search_db numbers passages from 1 and makes one source (and summary) per 20 passages.
    """
    limit = real_vectors if kind == "organized" else real_vectors // PASSAGES_PER_SOURCE
    return item <= limit


def fill_vectors(
    db_path: Path, embedder: UseM3Embedder, known: dict[str, Vectors], real_vectors: int, rng: np.random.Generator
) -> VectorFill:
    """Give every queued item a vector, as the worker would after register_model.

    Real items are embedded by use-m3, unless ``known`` already holds their
    text (the 100k database starts with the 10k one's passages); the others
    get a real vector plus Gaussian noise, renormalised.
    """
    fill = VectorFill()
    bases: list[Vectors] = []
    conn = connect(db_path)
    try:
        identity = embedder.identity
        with conn:
            vectors.register_model(conn, identity.key, identity.name, identity.dimension, now=utc_now())
        while True:
            with conn:
                entries = vectors.pending(conn, identity.key, limit=STORE_BATCH)
            if not entries:
                break
            fresh = [e[2] for e in entries if is_real(e[0], e[1], real_vectors) and e[2] not in known]
            if fresh:
                started = time.perf_counter()
                known.update(zip(fresh, embed_in_batches(embedder, fresh), strict=True))
                fill.embed_seconds += time.perf_counter() - started
                fill.embedded_now += len(fresh)
            rows = [make_vector(e, known, bases, real_vectors, rng, fill) for e in entries]
            with conn:
                vectors.store_vectors(conn, identity.key, entries, np.stack(rows))
            if (fill.real + fill.synthetic) % 10_000 < STORE_BATCH:
                progress(f"vectors stored: {fill.real:,} real, {fill.synthetic:,} synthetic")
        with conn:
            vectors.promote_if_built(conn, identity.key)
    finally:
        conn.close()
    return fill


def make_vector(
    entry: tuple[str, int, str, str],
    known: dict[str, Vectors],
    bases: list[Vectors],
    real_vectors: int,
    rng: np.random.Generator,
    fill: VectorFill,
) -> Vectors:
    kind, item, text, _ = entry
    if is_real(kind, item, real_vectors):
        fill.real += 1
        bases.append(known[text])
        return known[text]
    if not bases:
        raise RuntimeError("no real vector to perturb yet: raise real_vectors")
    base = bases[int(rng.integers(len(bases)))]
    noisy = base + rng.normal(scale=NOISE_SIGMA, size=base.shape).astype(np.float32)
    vector = (noisy / np.linalg.norm(noisy)).astype(np.float32)
    fill.synthetic += 1
    fill.synthetic_cosines.append(float(vector @ base))
    return vector


# ---------------------------------------------------------------- search latency


def time_search(
    conn: apsw.Connection, home: Path, queries: Sequence[Query], mode: str, fusion: str, embedder: Embedder, rounds: int
) -> tuple[list[float], int]:
    """Time every query rounds times; return milliseconds and how many queries found nothing."""
    ms: list[float] = []
    empty: set[str] = set()
    for _ in range(rounds):
        for query in queries:
            started = time.perf_counter()
            hits = search(conn, query.text, home=home, mode=mode, embedder=embedder, fusion=fusion, limit=10)
            ms.append((time.perf_counter() - started) * 1000)
            if not hits:
                empty.add(query.text)
    return ms, len(empty)


def time_parts(
    conn: apsw.Connection, home: Path, queries: Sequence[Query], embedder: Embedder, key: str
) -> dict[str, list[float]]:
    """Time the pieces of one hybrid search (query vector cached) per query."""
    pool = max(10, CANDIDATES)
    wanted = max(pool * vectors.RERANK_FACTOR, vectors.MIN_CANDIDATES)
    kinds = ", ".join(f"'{k}'" for k in kinds_for(None) if k in vectors.KIND_CODES)
    knn = f"WHERE embedding MATCH vec_bit(?) AND k = ? AND kind IN ({kinds})"
    table = vectors.table_name(key)
    parts: dict[str, list[float]] = {
        f"  knn scan, rowids only (k={wanted})": [],
        "  knn scan + digest and vector columns": [],
        f"  nearest(): scan + re-rank + live check ({pool})": [],
        f"  vector_search(): nearest + hit rows ({pool})": [],
        f"  keyword_search() ({pool})": [],
    }
    for query in queries:
        text, vector = query.text, embedder.embed_query(query.text)
        bits = np.packbits(vector > 0).tobytes()
        timings = (
            clock(fetch_rows, conn, f"SELECT rowid FROM {table} {knn}", (bits, wanted)),
            clock(fetch_rows, conn, f"SELECT rowid, kind, digest, vector FROM {table} {knn}", (bits, wanted)),
            clock(vectors.nearest, conn, key, vector, limit=pool, kinds=kinds_for(None), project=None),
            clock(vector_search, conn, embedder, text, home=home, project=None, tier=None, limit=pool),
            clock(keyword_search, conn, text, home=home, limit=pool),
        )
        for name, ms in zip(parts, timings, strict=True):
            parts[name].append(ms)
    return parts


def profile_query(
    conn: apsw.Connection, home: Path, query: Query, embedder: Embedder, fusion: str, repeats: int = 20
) -> str:
    """cProfile one hybrid query run repeats times; return the top entries."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(repeats):
        search(conn, query.text, home=home, mode="hybrid", embedder=embedder, fusion=fusion, limit=10)
    profiler.disable()
    out = io.StringIO()
    out.write(f"--- hybrid {fusion} {query.text!r} x{repeats}: top 12 by own time\n")
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("tottime").print_stats(12)
    out.write("--- top 12 cumulative, incremind_daemon only\n")
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(r"incremind_daemon", 12)
    return out.getvalue()


def scale_name(scale: int) -> str:
    return f"search {scale // 1000:,}k" if scale % 1000 == 0 else f"search {scale:,}"


def bench_search(
    scale: int, plan: Plan, known: dict[str, Vectors], model: UseM3Embedder, profile: bool, report: Report
) -> None:
    """Build a database of scale passages, give everything a vector, and time every search mode."""
    section = scale_name(scale)
    home = BENCH_ROOT / f"search-{scale}"
    db_path = load_settings(home=home).database_path
    build_seconds = build_search_db(db_path, scale)
    report.add(section, "build time (passages + summaries + FTS)", build_seconds, "s", 1)
    fill = fill_vectors(db_path, model, known, plan.real_vectors, np.random.default_rng(scale))
    report.add(section, "vectors, real use-m3", fill.real, "", 0)
    if fill.embedded_now:
        report.add(section, f"  of which embedded now ({fill.embedded_now:,})", fill.embed_seconds, "s", 1)
        report.add(section, "  embedding rate (use-m3, 2 threads)", fill.embedded_now / fill.embed_seconds, "items/s")
    if fill.synthetic:
        report.add(section, "vectors, synthetic (real + noise)", fill.synthetic, "", 0)
        report.add(section, "  mean cosine to their base", float(np.mean(fill.synthetic_cosines)), "", 3)
    report.add(section, "database size", checkpointed_db_bytes(db_path) / MB, "MB", 1)
    queued = query_int(db_path, "SELECT count(*) FROM embed_queue")
    report.add(section, "items still queued for vectors", queued, "", 0)
    queries = build_queries()
    queries = queries[:: max(1, len(queries) // plan.queries)][: plan.queries]
    cached = query_cache(model, size=4 * len(queries))
    conn = connect(db_path, readonly=True)
    try:
        key = model.identity.key
        for _, mode, fusion in SEARCH_MODES:  # warm-up pass; fills the query cache
            time_search(conn, home, queries, mode, fusion, cached, 1)
        for label, mode, fusion in SEARCH_MODES:
            ms, no_hit = time_search(conn, home, queries, mode, fusion, cached, plan.rounds)
            suffix = " (query vector cached)" if mode != "keyword" else ""
            row = report.latency(Latency.of(section, label + suffix, ms, no_hit))
            if mode == "hybrid" and scale == max(plan.scales):
                verdict = "met" if row.p95 <= HYBRID_TARGET_MS else "NOT met"
                report.note(f"{section}: {label} p95 {row.p95:.1f} ms, target <= {HYBRID_TARGET_MS:.0f} ms: {verdict}")
                profile = profile or row.p95 > HYBRID_TARGET_MS
                slowest = queries[int(np.argmax(ms[: len(queries)]))]
        for label, mode, fusion in SEARCH_MODES[1:]:
            ms, no_hit = time_search(conn, home, queries, mode, fusion, model, 1)
            report.latency(Latency.of(section, f"{label} (query embedded each time)", ms, no_hit))
        embed_ms = [clock(model.embed_query, query.text) for query in queries]
        report.latency(Latency.of(section, "query embedding alone (use-m3, not cached)", embed_ms))
        for name, ms in time_parts(conn, home, queries, cached, key).items():
            report.latency(Latency.of(section, name, ms))
        if profile and scale == max(plan.scales):
            report.profile += profile_query(conn, home, slowest, cached, "weighted")
    finally:
        conn.close()


# ---------------------------------------------------------------- memory


RSS_PROBE = """
import json, sys
from incremind_daemon.store.embedder import UseM3Embedder
def kb(key):
    with open("/proc/self/status", encoding="ascii") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith(key + ":"))
before = kb("VmRSS")
embedder = UseM3Embedder(threads=2)
embedder.embed_query("向量检索 vector search")
print(json.dumps({"imported": before, "loaded": kb("VmRSS"), "hwm": kb("VmHWM")}))
"""


def bench_model_rss(report: Report) -> None:
    """Load use-m3 in a fresh interpreter, embed one text, and read its memory."""
    section = "memory"
    home = BENCH_ROOT / "probe-home"
    done = subprocess.run([sys.executable, "-c", RSS_PROBE], env=daemon_env(home), cwd=REPO,
                          capture_output=True, text=True, check=True, timeout=600)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    report.add(section, "python + embedder module imported, VmRSS", figures["imported"] * 1024 / MB, "MB")
    report.add(section, "use-m3 loaded + 1 text embedded, VmRSS", figures["loaded"] * 1024 / MB, "MB")
    report.add(section, "  same process, VmHWM", figures["hwm"] * 1024 / MB, "MB")


def write_inbox_files(inbox: Path, count: int) -> None:
    """Drop count small notes (two corpus passages each, about 1 KB) into the inbox."""
    passages = [text for _, text in iter_passages(2 * count, seed=5)]
    for number in range(count):
        first, second = passages[2 * number], passages[2 * number + 1]
        text = f"# note {number + 1}\n\n{first}\n\n{second}\n"
        (inbox / f".{number:03d}.md").write_text(text, encoding="utf-8")
        (inbox / f".{number:03d}.md").rename(inbox / f"note-{number:03d}.md")  # arrives whole


def rss_mb(pid: int, key: str) -> float:
    return proc_status_kb(pid, key) * 1024 / MB


def daemon_state(db_path: Path) -> tuple[int, int, int]:
    """Return (sources, queued for vectors, active models) on a read-only connection."""
    if not db_path.exists():
        return 0, 0, 0
    conn = connect(db_path, readonly=True)
    try:
        row = fetch_rows(conn, """SELECT (SELECT count(*) FROM sources), (SELECT count(*) FROM embed_queue),
                                         (SELECT count(*) FROM vector_models WHERE state = 'active')""")[0]
        return int(row[0]), int(row[1]), int(row[2])
    finally:
        conn.close()


def bench_daemon_rss(plan: Plan, report: Report) -> None:
    """Run the real daemon (use-m3 by default), embed a few files, then measure it idle."""
    section = "memory"
    home = BENCH_ROOT / "daemon-home"
    log_path = BENCH_ROOT / "daemon.log"
    command = [sys.executable, "-m", "incremind_daemon", "run"]
    with open(log_path, "wb") as log:  # the child keeps its own descriptor
        process = subprocess.Popen(command, env=daemon_env(home), cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: (home / "status.json").exists() or process.poll() is not None, 120, "daemon start")
        if process.poll() is not None:
            raise RuntimeError(f"the daemon exited with {process.returncode}; see {log_path}")
        report.add(section, "daemon idle before any file, VmRSS", rss_mb(process.pid, "VmRSS"), "MB")
        inbox = home / "inbox"
        inbox.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        write_inbox_files(inbox, plan.daemon_files)
        db_path = home / "memory.db"

        def embedded_all() -> bool:
            sources, queued, active = daemon_state(db_path)
            return process.poll() is not None or (sources >= plan.daemon_files and queued == 0 and active == 1)

        wait_for(embedded_all, 900, "daemon embedding")
        if process.poll() is not None:
            raise RuntimeError(f"the daemon exited with {process.returncode}; see {log_path}")
        report.add(section, f"daemon: {plan.daemon_files} files in, all embedded", time.monotonic() - started, "s", 1)
        time.sleep(plan.settle_seconds)
        rss = rss_mb(process.pid, "VmRSS")
        report.add(section, f"daemon idle, model loaded (+{plan.settle_seconds:g} s), VmRSS", rss, "MB")
        report.add(section, "  VmHWM since start", rss_mb(process.pid, "VmHWM"), "MB")
        before = cpu_seconds(process.pid)
        time.sleep(plan.cpu_seconds)
        used = cpu_seconds(process.pid) - before
        report.add(section, f"daemon CPU idle over {plan.cpu_seconds:g} s", used / plan.cpu_seconds * 100, "%", 2)
        report.add(section, "daemon VmRSS after that", rss_mb(process.pid, "VmRSS"), "MB")
        sources, queued, _ = daemon_state(db_path)
        report.add(section, "daemon: sources stored", sources, "", 0)
        report.add(section, "daemon: items still queued for vectors", queued, "", 0)
    finally:
        report.add(section, "daemon exit code after SIGTERM", ingest_search.stop_daemon(process), "", 0)


# ---------------------------------------------------------------- output


def render_table(report: Report, plan: Plan, load: tuple[float, float]) -> str:
    """Render figures and latency rows as aligned text, one block per section."""
    sections = list(dict.fromkeys([f.section for f in report.figures] + [r.section for r in report.latencies]))
    name_width = max([len(f.name) for f in report.figures] + [len(r.name) for r in report.latencies] + [10])
    value_width = max([len(f.shown()) for f in report.figures] + [6])
    scales = " and ".join(f"{s:,}" for s in plan.scales)
    lines = [
        f"incremind-daemon semantic benchmark ({plan.mode}: {plan.embed_passages} passages embedded; "
        f"search over {scales} passages; {plan.queries} queries x {plan.rounds} round(s))",
        machine_line(),
        f"load average (1 min) {load[0]:.2f} at start, {load[1]:.2f} at end: other jobs share this machine",
    ]
    for section in sections:
        lines += ["", section]
        for figure in (f for f in report.figures if f.section == section):
            lines.append(f"  {figure.name:<{name_width}}  {figure.shown():>{value_width}}  {figure.unit}".rstrip())
        rows = [r for r in report.latencies if r.section == section]
        if rows:
            head = f"  {'latency, ms':<{name_width}}  {'n':>5}  {'p50':>7}  {'p95':>7}  {'p99':>7}  {'max':>7}  no hit"
            lines.append(head)
            for r in rows:
                no_hit = "" if r.no_hit is None else f"{r.no_hit:>6}"
                lines.append(f"  {r.name:<{name_width}}  {r.count:>5}  {r.p50:>7.2f}  {r.p95:>7.2f}  "
                             f"{r.p99:>7.2f}  {r.max:>7.2f}  {no_hit}".rstrip())
    if report.notes:
        lines += ["", *report.notes]
    return "\n".join(lines)


def write_json(path: Path, report: Report, plan: Plan, load: tuple[float, float]) -> None:
    data = {"plan": asdict(plan), "machine": machine_line(), "load_average": load,
            "figures": [asdict(f) for f in report.figures], "latencies": [asdict(r) for r in report.latencies],
            "notes": report.notes, "profile": report.profile}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


# ---------------------------------------------------------------- main

BENCHMARKS = ("embed", "search", "rss")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Benchmark embedding, search by meaning and the model's memory.")
    parser.add_argument("--quick", action="store_true", help="a small run: 2,000 passages, 40 queries")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS),
                        help="run only these benchmarks")
    parser.add_argument("--rounds", type=int, default=1, help="timed passes over the queries per mode (default 1)")
    parser.add_argument("--profile", action="store_true",
                        help="profile the slowest hybrid query at the largest scale even when within target")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    return parser


def make_plan(args: argparse.Namespace) -> Plan:
    if args.quick:
        return Plan("quick", 100, (2_000,), 1_000, 40, args.rounds, 20, 3.0, 5.0)
    return Plan("full", 500, (10_000, 100_000), 10_000, len(build_queries()), args.rounds, 50, 10.0, 20.0)


def run(args: argparse.Namespace, plan: Plan, report: Report) -> None:
    if "embed" in args.only:
        bench_embedding(plan, report)
    if "search" in args.only:
        model = UseM3Embedder(threads=2)
        known: dict[str, Vectors] = {}  # text -> real vector, shared so 100k reuses the 10k passages' vectors
        for scale in plan.scales:
            bench_search(scale, plan, known, model, args.profile, report)
        if plan.scales[-1] > plan.real_vectors:
            report.note(
                f"vectors: the first {plan.real_vectors:,} passages (and their sources' summaries) have real use-m3 "
                f"vectors; every other item a random real one + N(0, {NOISE_SIGMA}^2) noise per component, "
                "renormalised, stored with vectors.store_vectors like real ones (the sign-bit scan costs the same "
                "for any vector; only which rows come back differs)"
            )
        model.close()
    if "rss" in args.only:
        bench_model_rss(report)
        bench_daemon_rss(plan, report)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    adopt_home()
    plan = make_plan(args)
    jieba.setLogLevel(logging.WARNING)
    progress(f"working in {BENCH_ROOT}")
    report = Report()
    load_start = os.getloadavg()[0]
    try:
        run(args, plan, report)
    finally:
        load = (load_start, os.getloadavg()[0])
        if report.figures or report.latencies:  # print what was measured even when a later step failed
            print(render_table(report, plan, load))
            if report.profile:
                print("\n" + report.profile)
            if args.out:
                write_json(args.out, report, plan, load)
        if args.keep:
            progress(f"kept {BENCH_ROOT}")
        else:
            shutil.rmtree(BENCH_ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
