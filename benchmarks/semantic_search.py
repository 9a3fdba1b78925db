"""Search latency per mode over databases of 10k and 100k passages with vectors.

Imports incremind, so a script imports this only after ``isolate_home``.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import apsw
import numpy as np

from benchmarks.corpus import Query, build_queries
from benchmarks.figures import MB, progress
from benchmarks.search_db import PASSAGES_PER_SOURCE, build_search_db, checkpointed_db_bytes, query_int
from benchmarks.semantic_embed import embed_in_batches
from benchmarks.semantic_report import Latency, Plan, Report, clock
from incremind_daemon.config import load_settings
from incremind_daemon.embedding.cache import query_cache
from incremind_daemon.store import clock as wall_clock
from incremind_daemon.store import vectors
from incremind_daemon.store.bitindex import keep_bit_indexes, stop_keeping_bit_indexes
from incremind_daemon.store.db import connect, fetch_rows
from incremind_daemon.store.embedder import Embedder, Vectors
from incremind_daemon.store.records import Hit
from incremind_daemon.store.search import DEFAULT_FUSION, rank_by_words, read_hits, search
from incremind_daemon.store.semantic import FUSION_DEPTH, Ranked, fuse, kinds_for, rank_by_meaning
from incremind_daemon.store.tokenizer import query_words

STORE_BATCH = 256  # queue entries per transaction while filling vector tables
NOISE_SIGMA = 0.035  # per component of a 512-d unit vector: cosine to its base of about 0.8 (scaled for others)
HYBRID_TARGET_MS = 50.0


SEARCH_MODES = (  # (row label, search mode, fusion)
    ("keyword", "keyword", DEFAULT_FUSION),
    ("vector", "vector", DEFAULT_FUSION),
    ("hybrid rrf", "hybrid", "rrf"),
    ("hybrid weighted", "hybrid", "weighted"),
    ("hybrid gated", "hybrid", "gated"),
)


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
    db_path: Path, embedder: Embedder, known: dict[str, Vectors], real_vectors: int, rng: np.random.Generator
) -> VectorFill:
    """Give every queued item a vector, as the worker would after register_model.

    Real items are embedded by the model, unless ``known`` already holds their
    text (the 100k database starts with the 10k one's passages); the others
    get a real vector plus Gaussian noise, renormalised.
    """
    fill = VectorFill()
    bases: list[Vectors] = []
    conn = connect(db_path)
    try:
        identity = embedder.identity
        with conn:
            vectors.register_model(conn, identity.key, identity.name, identity.dimension, now=wall_clock.stamp())
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
    sigma = NOISE_SIGMA * float(np.sqrt(512 / base.size))  # the same cosine to its base whatever the dimension
    noisy = base + rng.normal(scale=sigma, size=base.shape).astype(np.float32)
    vector = (noisy / np.linalg.norm(noisy)).astype(np.float32)
    fill.synthetic += 1
    fill.synthetic_cosines.append(float(vector @ base))
    return vector


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
    depth = FUSION_DEPTH
    wanted = max(depth * vectors.RERANK_FACTOR, vectors.MIN_CANDIDATES)
    kinds = ", ".join(f"'{k}'" for k in kinds_for(None) if k in vectors.KIND_CODES)
    knn = f"WHERE embedding MATCH vec_bit(?) AND k = ? AND kind IN ({kinds})"
    table = vectors.table_name(key)
    parts: dict[str, list[float]] = {
        f"  knn scan, rowids only (k={wanted})": [],
        "  knn scan + digest and vector columns": [],
        f"  rank_by_meaning(): scan + re-rank + live check ({depth})": [],
        f"  rank_by_words() ({depth})": [],
        "  fuse() + read_hits() (10 hits)": [],
    }
    for query in queries:
        text, vector = query.text, embedder.embed_query(query.text)
        bits = np.packbits(vector > 0).tobytes()
        words = query_words(text)
        started = time.perf_counter()
        by_meaning = rank_by_meaning(conn, embedder, text, project=None, tier=None, limit=depth) or []
        meaning_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        by_words = rank_by_words(conn, words, project=None, tier=None, limit=depth)
        words_ms = (time.perf_counter() - started) * 1000
        timings = (
            clock(fetch_rows, conn, f"SELECT rowid FROM {table} {knn}", (bits, wanted)),
            clock(fetch_rows, conn, f"SELECT rowid, kind, digest, vector FROM {table} {knn}", (bits, wanted)),
            meaning_ms,
            words_ms,
            clock(fuse_and_read, conn, home, by_words, by_meaning, words),
        )
        for name, ms in zip(parts, timings, strict=True):
            parts[name].append(ms)
    return parts


def fuse_and_read(
    conn: apsw.Connection, home: Path, by_words: list[Ranked], by_meaning: list[Ranked], words: list[str]
) -> list[Hit]:
    """The last step of a hybrid search: fuse both rankings, then read the ten hits."""
    return read_hits(conn, fuse(by_words, by_meaning, method=DEFAULT_FUSION, limit=10), home, words)


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
    scale: int,
    plan: Plan,
    known: dict[str, Vectors],
    model: Embedder,
    profile: bool,
    report: Report,
    root: Path,
) -> None:
    """Build a database of scale passages, give everything a vector, and time every search mode."""
    section = scale_name(scale)
    home = root / f"search-{scale}"
    db_path = load_settings(home=home).database_path
    build_seconds = build_search_db(db_path, scale)
    report.add(section, "build time (passages + summaries + FTS)", build_seconds, "s", 1)
    fill = fill_vectors(db_path, model, known, plan.real_vectors, np.random.default_rng(scale))
    name = model.identity.name
    report.add(section, f"vectors, real {name}", fill.real, "", 0)
    if fill.embedded_now:
        report.add(section, f"  of which embedded now ({fill.embedded_now:,})", fill.embed_seconds, "s", 1)
        report.add(section, f"  embedding rate ({name}, 2 threads)", fill.embedded_now / fill.embed_seconds, "items/s")
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
        # the daemon and the stdio MCP server keep an in-memory copy of the sign bits (store/bitindex.py)
        keep_bit_indexes()
        for _, mode, fusion in SEARCH_MODES:  # warm-up: loads the copy
            time_search(conn, home, queries, mode, fusion, cached, 1)
        for label, mode, fusion in SEARCH_MODES:
            ms, no_hit = time_search(conn, home, queries, mode, fusion, cached, plan.rounds)
            row = report.latency(Latency.of(section, f"{label} (daemon: sign bits in memory, cached)", ms, no_hit))
            if mode == "hybrid" and scale == max(plan.scales):
                verdict = "met" if row.p95 <= HYBRID_TARGET_MS else "NOT met"
                report.note(
                    f"{section}: {label} in the daemon p95 {row.p95:.1f} ms, target <= {HYBRID_TARGET_MS:.0f} ms: "
                    f"{verdict}"
                )
        stop_keeping_bit_indexes()
        for label, mode, fusion in SEARCH_MODES[1:]:
            ms, no_hit = time_search(conn, home, queries, mode, fusion, model, 1)
            report.latency(Latency.of(section, f"{label} (query embedded each time)", ms, no_hit))
        embed_ms = [clock(model.embed_query, query.text) for query in queries]
        report.latency(Latency.of(section, f"query embedding alone ({name}, not cached)", embed_ms))
        for name, ms in time_parts(conn, home, queries, cached, key).items():
            report.latency(Latency.of(section, name, ms))
        if profile and scale == max(plan.scales):
            report.profile += profile_query(conn, home, slowest, cached, DEFAULT_FUSION)
    finally:
        conn.close()
