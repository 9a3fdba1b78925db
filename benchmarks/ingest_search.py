"""Benchmark ingest, keyword search, database size and the daemon's memory.

Run from the repository root (``--quick`` for a sanity run of about six minutes):

    PYTHONPATH=. python benchmarks/ingest_search.py [--quick] [--out figures.json]

Everything happens in a fresh temporary folder: HOME and INCREMIND_HOME point
inside it for this process and for the daemon it starts, so the real home is
never read or written. Figures are printed, never asserted.
"""

from __future__ import annotations

from benchmarks.isolation import isolate_home

BENCH_ROOT = isolate_home("incremind-bench-")  # before apsw, jieba and incremind_daemon are imported

import argparse  # noqa: E402
import cProfile  # noqa: E402
import io  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import pstats  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import jieba  # noqa: E402

from benchmarks.corpus import Document, Query, build_queries, generate_documents  # noqa: E402
from benchmarks.figures import MB, Report, percentile, progress, render_table, write_json  # noqa: E402
from benchmarks.processes import (  # noqa: E402
    RssSampler,
    check_alive,
    cpu_seconds,
    daemon_env,
    proc_status_kb,
    start_daemon,
    stop_daemon,
    wait_for,
)
from benchmarks.search_db import PROJECT, build_search_db, checkpointed_db_bytes, query_int  # noqa: E402
from incremind_daemon.config import load_settings  # noqa: E402
from incremind_daemon.pipeline.steps import StepState, ingest_item, open_writer  # noqa: E402
from incremind_daemon.pipeline.work import IngestFile, Outcome  # noqa: E402
from incremind_daemon.sources.extract import extract_bytes  # noqa: E402
from incremind_daemon.store.db import connect  # noqa: E402
from incremind_daemon.store.search import search  # noqa: E402
from incremind_daemon.store.tokenizer import ensure_segmenter  # noqa: E402


@dataclass(frozen=True, slots=True)
class Plan:
    """How big each benchmark is."""

    mode: str
    documents: int
    scales: tuple[int, ...]
    rounds: int
    idle_seconds: float = 5.0
    cpu_seconds: float = 10.0


# ---------------------------------------------------------------- corpus


def stage_documents(documents: Sequence[Document], folder: Path) -> Path:
    """Write the documents as files under folder/<project>/ and return that folder."""
    target = folder / PROJECT
    target.mkdir(parents=True, exist_ok=True)
    for document in documents:
        (target / document.name).write_text(document.text, encoding="utf-8")
    return target


def describe_corpus(documents: Sequence[Document], report: Report) -> None:
    sizes = [d.size_bytes for d in documents]
    report.add("corpus", "documents", len(documents), "", 0)
    report.add("corpus", "text", sum(sizes) / MB, "MB", 2)
    report.add("corpus", "mean document", sum(sizes) / len(sizes) / 1000, "KB", 2)
    report.add("corpus", "largest document", max(sizes) / 1000, "KB", 1)


# ---------------------------------------------------------------- in-process ingest


def ingest_folder(folder: Path, home: Path) -> tuple[list[Outcome], float]:
    """Ingest every file of folder through the real pipeline; return outcomes and seconds."""
    settings = load_settings(home=home)
    ensure_segmenter()  # jieba's dictionary load is start-up cost, not ingest cost
    paths = sorted(folder.iterdir())
    state = StepState(settings, extract_bytes, actor="bench")
    started = time.perf_counter()
    with open_writer(state) as conn:  # opening the store is part of the timed ingest
        outcomes = [ingest_item(conn, state, IngestFile(path, PROJECT)) for path in paths]
        elapsed = time.perf_counter() - started
    return outcomes, elapsed


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def bench_ingest(folder: Path, report: Report) -> None:
    """Time in-process ingest and size the database it leaves."""
    home = BENCH_ROOT / "ingest-home"
    settings = load_settings(home=home)
    outcomes, seconds = ingest_folder(folder, home)
    added = sum(o.status == "added" for o in outcomes)
    text_mb = query_int(settings.database_path, "SELECT sum(length(CAST(raw_text AS BLOB))) FROM sources") / MB
    passages = sum(o.passages for o in outcomes)
    report.add("ingest", "documents added", added, "", 0)
    report.add("ingest", "documents not added", len(outcomes) - added, "", 0)
    report.add("ingest", "time", seconds, "s", 1)
    report.add("ingest", "throughput", len(outcomes) / seconds, "docs/s", 1)
    report.add("ingest", "throughput (extracted text)", text_mb / seconds, "MB/s", 3)
    report.add("ingest", "passages", passages, "", 0)
    report.add("ingest", "passages per second", passages / seconds, "/s", 1)
    db_mb = checkpointed_db_bytes(settings.database_path) / MB
    originals_mb = folder_bytes(settings.raw_dir) / MB
    report.add("ingest", "database size", db_mb, "MB", 2)
    report.add("ingest", "database per MB of text", db_mb / text_mb, "MB/MB", 2)
    report.add("ingest", "kept originals", originals_mb, "MB", 2)
    report.add("ingest", "kept originals per MB of text", originals_mb / text_mb, "MB/MB", 2)


def profile_ingest(folder: Path, count: int) -> str:
    """Profile in-process ingest of the first count files; return the top entries."""
    subset = BENCH_ROOT / "profile-docs" / PROJECT
    subset.mkdir(parents=True)
    for path in sorted(folder.iterdir())[:count]:
        shutil.copyfile(path, subset / path.name)
    profiler = cProfile.Profile()
    profiler.enable()
    ingest_folder(subset, BENCH_ROOT / "profile-home")
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    out.write(f"--- top 10 cumulative, incremind_daemon only ({count} documents)\n")
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(r"incremind_daemon", 10)
    out.write("--- top 10 own time, all code\n")
    stats.sort_stats("tottime").print_stats(10)
    return out.getvalue()


# ---------------------------------------------------------------- search


@dataclass(frozen=True, slots=True)
class Timing:
    query: Query
    ms: float
    hits: int


def time_queries(db_path: Path, home: Path, queries: Sequence[Query], rounds: int) -> list[Timing]:
    """Run every query once to warm up, then rounds times timed."""
    conn = connect(db_path, readonly=True)
    try:
        for query in queries:
            search(conn, query.text, home=home, limit=10)
        timings: list[Timing] = []
        for _ in range(rounds):
            for query in queries:
                started = time.perf_counter()
                hits = search(conn, query.text, home=home, limit=10)
                timings.append(Timing(query, (time.perf_counter() - started) * 1000, len(hits)))
    finally:
        conn.close()
    return timings


def bench_search(scale: int, queries: Sequence[Query], rounds: int, report: Report) -> None:
    """Build a database of scale passages and time keyword search over it."""
    section = f"search {scale // 1000:,}k" if scale % 1000 == 0 else f"search {scale:,}"
    home = BENCH_ROOT / f"search-{scale}"
    db_path = load_settings(home=home).database_path
    build_seconds = build_search_db(db_path, scale)
    report.add(section, "build time", build_seconds, "s", 1)
    report.add(section, "build rate", scale / build_seconds, "passages/s", 1)
    report.add(section, "database size", checkpointed_db_bytes(db_path) / MB, "MB", 1)
    timings = time_queries(db_path, home, queries, rounds)
    ms = [t.ms for t in timings]
    report.add(section, "queries timed", len(timings), "", 0)
    for pct in (50, 95, 99):
        report.add(section, f"latency p{pct}", percentile(ms, pct), "ms", 2)
    report.add(section, "latency max", max(ms), "ms", 2)
    report.add(section, "queries with no hit", sum(t.hits == 0 for t in timings[: len(queries)]), "", 0)
    for family in sorted({q.family for q in queries}):
        family_ms = [t.ms for t in timings if t.query.family == family]
        report.add(section, f"p95 {family}", percentile(family_ms, 95), "ms", 2)
    slowest = max(timings, key=lambda t: t.ms)
    report.note(f"{section}: slowest query {slowest.query.text!r} ({slowest.query.family}) "
                f"{slowest.ms:.1f} ms, {slowest.hits} hits")


# ---------------------------------------------------------------- daemon


def files_in(folder: Path) -> int:
    with os.scandir(folder) as entries:
        return sum(1 for entry in entries if entry.is_file())


def bench_daemon(folder: Path, plan: Plan, report: Report) -> None:
    """Measure the daemon's memory idle and while draining the inbox, and idle CPU."""
    home = BENCH_ROOT / "daemon-home"
    log_path = BENCH_ROOT / "daemon.log"
    process = start_daemon(daemon_env(home), log_path, "--home", str(home))
    section = "daemon"
    try:
        startup = wait_for(lambda: (home / "status.json").exists() or process.poll() is not None,
                           120, "daemon start")
        check_alive(process, log_path)
        report.add(section, "start-up (to status.json)", startup, "s", 2)
        with RssSampler(process.pid) as idle:
            time.sleep(plan.idle_seconds)
        report.add(section, f"RSS idle ({plan.idle_seconds:g} s, max)", idle.peak_mb, "MB", 1)
        drain_inbox(process, folder, home, report)
        before = cpu_seconds(process.pid)
        time.sleep(plan.cpu_seconds)
        used = cpu_seconds(process.pid) - before
        report.add(section, f"CPU idle after drain ({plan.cpu_seconds:g} s)", used / plan.cpu_seconds * 100, "%", 2)
        report.add(section, "RSS after idle", proc_status_kb(process.pid, "VmRSS") * 1024 / MB, "MB", 1)
    finally:
        report.add(section, "exit code after SIGTERM", stop_daemon(process), "", 0)
    report.add(section, "sources stored", query_int(home / "memory.db", "SELECT count(*) FROM sources"), "", 0)
    failed = home / "inbox" / ".failed"
    report.add(section, "files failed", files_in(failed) if failed.exists() else 0, "", 0)


def drain_inbox(process: subprocess.Popen[bytes], folder: Path, home: Path, report: Report) -> None:
    """Copy every staged file into the inbox and wait until the daemon has taken all in."""
    inbox = home / "inbox" / PROJECT
    inbox.mkdir(parents=True, exist_ok=True)
    paths = sorted(folder.iterdir())
    with RssSampler(process.pid) as during:
        started = time.monotonic()
        for path in paths:
            shutil.copyfile(path, inbox / path.name)
        wait_for(lambda: files_in(inbox) == 0 or process.poll() is not None,
                 600 + 2 * len(paths), "inbox drain")
        seconds = time.monotonic() - started
    if process.poll() is not None:
        raise RuntimeError(f"the daemon exited with {process.returncode} while ingesting")
    section = "daemon"
    report.add(section, "RSS peak during ingest (sampled)", during.peak_mb, "MB", 1)
    report.add(section, "VmHWM (peak since start)", proc_status_kb(process.pid, "VmHWM") * 1024 / MB, "MB", 1)
    report.add(section, "inbox drain time", seconds, "s", 1)
    report.add(section, "throughput through the daemon", len(paths) / seconds, "docs/s", 1)
    report.add(section, "RSS right after drain", proc_status_kb(process.pid, "VmRSS") * 1024 / MB, "MB", 1)


# ---------------------------------------------------------------- output


def title(plan: Plan) -> str:
    scales = " and ".join(f"{s:,}" for s in plan.scales)
    return f"incremind-daemon benchmark ({plan.mode}: {plan.documents:,} documents; {scales} passages)"


# ---------------------------------------------------------------- main

BENCHMARKS = ("ingest", "search", "daemon")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Benchmark ingest, keyword search and the daemon's memory.")
    parser.add_argument("--quick", action="store_true", help="a small run: 200 documents, 2,000/10,000 passages")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS),
                        help="run only these benchmarks")
    parser.add_argument("--documents", type=int, help="documents to ingest (default 1,000; quick 200)")
    parser.add_argument("--passages", type=int, nargs="+", help="search scales (default 10,000 100,000)")
    parser.add_argument("--rounds", type=int, default=1, help="timed passes over the query list (default 1)")
    parser.add_argument("--profile", type=int, metavar="N", default=0,
                        help="also profile in-process ingest of N documents and print the top entries")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    return parser


def make_plan(args: argparse.Namespace) -> Plan:
    documents, scales = (200, (2_000, 10_000)) if args.quick else (1_000, (10_000, 100_000))
    return Plan(
        mode="quick" if args.quick else "full",
        documents=args.documents or documents,
        scales=tuple(args.passages or scales),
        rounds=args.rounds,
    )


def run(args: argparse.Namespace, plan: Plan, report: Report) -> None:
    documents = generate_documents(plan.documents)
    folder = stage_documents(documents, BENCH_ROOT / "docs")
    queries = build_queries()
    describe_corpus(documents, report)
    report.add("corpus", "search queries", len(queries), "", 0)
    if "ingest" in args.only:
        bench_ingest(folder, report)
    if "search" in args.only:
        for scale in plan.scales:
            bench_search(scale, queries, plan.rounds, report)
    if "daemon" in args.only:
        bench_daemon(folder, plan, report)
    if args.profile:
        print(profile_ingest(folder, min(args.profile, plan.documents)))


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    plan = make_plan(args)
    jieba.setLogLevel(logging.WARNING)
    progress(f"working in {BENCH_ROOT}")
    report = Report()
    try:
        run(args, plan, report)
    finally:
        if report.figures:  # print what was measured even when a later step failed
            print(render_table(report, title(plan)))
            if args.out:
                write_json(args.out, report, plan)
        if args.keep:
            progress(f"kept {BENCH_ROOT}")
        else:
            shutil.rmtree(BENCH_ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
