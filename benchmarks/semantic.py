"""Benchmark search by meaning: embedding throughput, search latency per mode, memory.

Run from the repository root (``--quick`` for a sanity run of a few minutes):

    PYTHONPATH=. python benchmarks/semantic.py [--quick] [--only embed search rss] [--out figures.json]

Everything happens in a fresh temporary folder: HOME and INCREMIND_HOME point
inside it for this process and for every child it starts, so the real home is
never read or written. Figures are printed, never asserted.
"""

from __future__ import annotations

from benchmarks.isolation import isolate_home

BENCH_ROOT = isolate_home("incremind-semantic-")  # before numpy, apsw and incremind_daemon are imported

import argparse  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402

import jieba  # noqa: E402

from benchmarks.corpus import build_queries  # noqa: E402
from benchmarks.figures import progress  # noqa: E402
from benchmarks.semantic_embed import bench_embedding  # noqa: E402
from benchmarks.semantic_memory import bench_daemon_rss, bench_model_rss  # noqa: E402
from benchmarks.semantic_report import Plan, Report, render_table, write_json  # noqa: E402
from benchmarks.semantic_search import NOISE_SIGMA, bench_search  # noqa: E402
from incremind_daemon.embedding.e5_small import E5SmallEmbedder  # noqa: E402
from incremind_daemon.embedding.use_m3 import UseM3Embedder  # noqa: E402
from incremind_daemon.store.embedder import Embedder, Vectors  # noqa: E402

BENCHMARKS = ("embed", "search", "rss")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Benchmark embedding, search by meaning and the model's memory.")
    parser.add_argument("--quick", action="store_true", help="a small run: 2,000 passages, 40 queries")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS),
                        help="run only these benchmarks")
    parser.add_argument("--rounds", type=int,
                        help="timed passes over the queries per mode (default 3; 1 with --quick)")
    parser.add_argument("--profile", action="store_true",
                        help="profile the slowest hybrid query at the largest scale even when within target")
    parser.add_argument("--scales", nargs="+", type=int,
                        help="search these store sizes only (default 10,000 and 100,000)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--embedder", choices=("use-m3", "e5-small"), default="use-m3",
                        help="search: the model whose vectors the databases get (default use-m3)")
    parser.add_argument("--real-vectors", type=int,
                        help="search: passages that get a real vector (default 10,000; e5-small embeds a few a second)")
    return parser


def make_plan(args: argparse.Namespace) -> Plan:
    if args.quick:
        plan = Plan("quick", 100, (2_000,), 1_000, 40, args.rounds or 1, 20, 3.0, 5.0)
    else:
        plan = Plan("full", 500, (10_000, 100_000), 10_000, len(build_queries()), args.rounds or 3, 50, 10.0, 20.0)
    plan = replace(plan, real_vectors=args.real_vectors) if args.real_vectors else plan
    return replace(plan, scales=tuple(args.scales)) if args.scales else plan


def run(args: argparse.Namespace, plan: Plan, report: Report) -> None:
    if "embed" in args.only:
        bench_embedding(plan, report, BENCH_ROOT)
    if "search" in args.only:
        # bare, not behind the query cache: bench_search times queries both cached and embedded each time
        model: Embedder = UseM3Embedder(threads=2) if args.embedder == "use-m3" else E5SmallEmbedder(threads=2)
        known: dict[str, Vectors] = {}  # text -> real vector, shared so 100k reuses the 10k passages' vectors
        for scale in plan.scales:
            bench_search(scale, plan, known, model, args.profile, report, BENCH_ROOT)
        if plan.scales[-1] > plan.real_vectors:
            report.note(
                f"vectors: the first {plan.real_vectors:,} passages (and their sources' summaries) have real "
                f"{args.embedder} vectors; every other item a random real one + N(0, {NOISE_SIGMA}^2 x 512/dimension) "
                "noise per component, renormalised, stored with vectors.store_vectors like real ones (the sign-bit "
                "scan costs the same for any vector; only which rows come back differs)"
            )
        model.close()
    if "rss" in args.only:
        bench_model_rss(report, BENCH_ROOT)
        bench_daemon_rss(plan, report, BENCH_ROOT)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
