"""Compare the in-process embedders head to head: load, memory, passages/s, query latency.

Run from the repository root:

    PYTHONPATH=. python benchmarks/embedders.py [--backends use-m3 e5-small] [--threads 2] [--seconds 4]

Each backend runs in a fresh interpreter, built by ``make_embedder`` from the
settings a user would write (``embedding.backend``, ``embedding.threads``), so
load time and memory are its own. Texts come from the retrieval set
(``benchmarks/retrieval/passages.jsonl``, ``queries.jsonl``): passages of the
same language joined and cut at 768 characters (the longest a passage gets),
and short notes (a passage's first line, at most 120 characters). Passages
go 32 at a time, as the worker embeds them. Queries are embedded one at a
time, never repeated, so the query cache never answers. Figures are printed,
never asserted; the header gives the load average, since a busy machine
slows everything (OpenMP more than most).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.isolation import isolate_home

# before incremind is imported; a child runs in the home its parent made, so use-m3's unpacked cache is shared
BENCH_ROOT = Path(os.environ["HOME"]).parent if "--child" in sys.argv else isolate_home("incremind-embedders-")

REPO = Path(__file__).resolve().parent.parent
RETRIEVAL = REPO / "benchmarks" / "retrieval"
BATCH = 32
PASSAGE_CHARS = 768
NOTE_CHARS = 120


def read_jsonl(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def long_passages(lang: str, count: int) -> list[str]:
    """Join the set's passages of one language and cut them into 768-character passages."""
    text = "\n".join(p["text"] for p in read_jsonl(RETRIEVAL / "passages.jsonl") if p["lang"] == lang)
    return [text[i : i + PASSAGE_CHARS] for i in range(0, PASSAGE_CHARS * count, PASSAGE_CHARS)]


def short_notes(count: int) -> list[str]:
    lines = [p["text"].splitlines()[0][:NOTE_CHARS] for p in read_jsonl(RETRIEVAL / "passages.jsonl")]
    return lines[:count]


def kb(key: str) -> int:
    with open("/proc/self/status", encoding="ascii") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith(key + ":"))


def child(backend: str, threads: int, seconds: float) -> dict[str, float]:
    """Measure one backend in this (fresh) interpreter; return the figures."""
    import numpy as np

    from incremind_daemon.config import load_settings
    from incremind_daemon.embedding.configured import make_embedder

    figures: dict[str, float] = {"rss_start_mb": kb("VmRSS") / 1024}
    started = time.perf_counter()
    embedder = make_embedder(load_settings(embedding={"backend": backend, "threads": threads}))
    assert embedder is not None
    embedder.embed_query("warm up")  # both backends load their model on first use
    figures["load_s"] = time.perf_counter() - started
    figures["rss_loaded_mb"] = kb("VmRSS") / 1024
    sets = {
        "zh_768": long_passages("zh", 4 * BATCH),
        "en_768": long_passages("en", 4 * BATCH),
        "notes": short_notes(8 * BATCH),
    }
    for name, texts in sets.items():
        done, spent = 0, 0.0
        while spent < seconds or done < BATCH:
            batch = texts[done % len(texts) :][:BATCH]
            begun = time.perf_counter()
            embedder.embed_passages(batch)
            spent += time.perf_counter() - begun
            done += len(batch)
        figures[f"{name}_per_s"] = done / spent
    figures["rss_embedded_mb"] = kb("VmRSS") / 1024
    figures["hwm_mb"] = kb("VmHWM") / 1024
    queries = [q["query"] for q in read_jsonl(RETRIEVAL / "queries.jsonl")]
    ms = []
    for query in queries:
        begun = time.perf_counter()
        embedder.embed_query(query)
        ms.append((time.perf_counter() - begun) * 1000)
    figures["query_p50_ms"] = float(np.percentile(ms, 50))
    figures["query_p95_ms"] = float(np.percentile(ms, 95))
    figures["queries"] = len(ms)
    embedder.close()
    return figures


ROWS = (  # (label, key, decimals)
    ("load: construct + first embed (s)", "load_s", 2),
    ("VmRSS, interpreter + numpy (MB)", "rss_start_mb", 0),
    ("VmRSS, model loaded (MB)", "rss_loaded_mb", 0),
    ("VmRSS, after embedding (MB)", "rss_embedded_mb", 0),
    ("VmHWM, peak (MB)", "hwm_mb", 0),
    ("passages/s, Chinese 768 chars", "zh_768_per_s", 1),
    ("passages/s, English 768 chars", "en_768_per_s", 1),
    ("passages/s, short notes (<=120 chars)", "notes_per_s", 1),
    ("query p50 (ms, one at a time, warm)", "query_p50_ms", 1),
    ("query p95 (ms)", "query_p95_ms", 1),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Compare the in-process embedders head to head.")
    parser.add_argument("--backends", nargs="+", default=["use-m3", "e5-small"], help="embedding.backend values")
    parser.add_argument("--threads", type=int, default=2, help="embedding.threads (default 2, as configured)")
    parser.add_argument("--seconds", type=float, default=4.0, help="time spent per passage set (default 4)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.threads, args.seconds)))
        return 0
    load = [os.getloadavg()[0]]
    results: dict[str, dict[str, float]] = {}
    try:
        for backend in args.backends:
            # a first run unpacks use-m3 into the run's cache; the measured run loads it as every later start does
            command = [sys.executable, __file__, "--child", backend, "--threads", str(args.threads)]
            command += ["--seconds", str(args.seconds)]
            if backend == "use-m3":
                subprocess.run([*command[:-2], "--seconds", "0"], check=True, capture_output=True, cwd=REPO)
            done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=REPO)
            results[backend] = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(BENCH_ROOT, ignore_errors=True)
    load.append(os.getloadavg()[0])
    print(f"embedders, embedding.threads {args.threads}, {os.cpu_count()} CPUs, load {load[0]:.1f} -> {load[1]:.1f}")
    width = max(len(label) for label, _, _ in ROWS)
    print(f"{'':{width}}  " + "  ".join(f"{name:>10}" for name in results))
    for label, key, decimals in ROWS:
        print(f"{label:{width}}  " + "  ".join(f"{found[key]:>10.{decimals}f}" for found in results.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
