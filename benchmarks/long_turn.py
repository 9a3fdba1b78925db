"""Benchmark one long agent turn growing a message at a time: cost per append, passages rewritten.

An agent working on its own writes hundreds of replies after one prompt, and
the daemon takes each in as it lands. Run from the repository root:

    PYTHONPATH=. python benchmarks/long_turn.py [--replies 400] [--every 100]

In-process, on a fresh database in a temporary folder (HOME and
INCREMIND_HOME point inside it): one prompt, then replies of about 500
characters (Chinese and English words), each stored in its own transaction by
the calls the transcript reader's caller makes (upsert the message, lay the
new ones out, renew the turn's passages). With an embedding model registered
and every passage given a vector after each append, as the worker does,
"passages rewritten" counts the passages each append queued for embedding
again. Figures are printed, never asserted.
"""

from __future__ import annotations

from benchmarks.isolation import isolate_home

BENCH_ROOT = isolate_home("incremind-long-turn-")  # before incremind_daemon is imported

import argparse  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import apsw  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.figures import machine_line, percentile  # noqa: E402
from incremind_daemon.pipeline.sessions import append_to_session  # noqa: E402
from incremind_daemon.store import sessions, vectors  # noqa: E402
from incremind_daemon.store.db import connect, fetch_int, write_transaction  # noqa: E402
from incremind_daemon.store.sessions import NewMessage, SessionInfo  # noqa: E402
from incremind_daemon.store.tokenizer import ensure_segmenter  # noqa: E402

NOW = "2026-01-01T00:00:00+00:00"
MODEL = "stand-in:8:bench"  # any vectors will do: what is counted is which passages need one again
WORDS = [
    "the", "daemon", "search", "index", "vector", "passage", "token", "window", "memory",
    "数据库", "端口", "配置", "测试", "修复", "日志",
]  # fmt: skip


def reply(rng: random.Random, number: int) -> NewMessage:
    text = " ".join(rng.choice(WORDS) for _ in range(70)) + "。"
    at = f"2026-01-01T{number // 3600:02d}:{number // 60 % 60:02d}:{number % 60:02d}Z"
    return NewMessage(f"m{number}", "user" if number == 0 else "assistant", text, at)


def embed_queued(conn: apsw.Connection) -> int:
    """Give every queued passage a vector, as the worker would; return how many were queued."""
    entries = vectors.pending(conn, MODEL, limit=1_000_000)
    vectors.store_vectors(conn, MODEL, entries, np.full((len(entries), 8), 8**-0.5, dtype=np.float32))
    return sum(1 for kind, *_ in entries if kind == "organized")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--replies", type=int, default=400, help="replies after the prompt (default 400)")
    parser.add_argument("--every", type=int, default=100, help="print a row every N replies (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    ensure_segmenter()  # jieba's dictionary loads once per process; not an append's cost
    conn = connect(BENCH_ROOT / "memory.db")
    try:
        with write_transaction(conn):
            vectors.register_model(conn, MODEL, "stand-in", 8, now=NOW)
            source_id = sessions.upsert_session(conn, SessionInfo("claude", "s1", "p", "t", "/t.jsonl"), now=NOW)
        print(machine_line())
        print(f"one prompt, then {args.replies:,} replies appended one at a time")
        print(f"{'replies':>8} {'passages':>9} {'ms/append p50':>14} {'max':>7} {'rewritten/append':>17}")
        started = time.perf_counter()
        window: list[float] = []
        rewritten: list[int] = []
        for number in range(args.replies + 1):
            begun = time.perf_counter()
            with write_transaction(conn):
                sessions.upsert_messages(conn, source_id, [reply(rng, number)])
                append_to_session(conn, source_id, sessions.unplaced_messages(conn, source_id), now=NOW)
            window.append((time.perf_counter() - begun) * 1000)
            with write_transaction(conn):
                rewritten.append(embed_queued(conn))
            if number and number % args.every == 0:
                passages = fetch_int(conn, "SELECT count(*) FROM chunks WHERE source_id = ?", (source_id,))
                print(
                    f"{number:>8,} {passages:>9,} {percentile(sorted(window), 50):>14.1f} {max(window):>7.1f} "
                    f"{sum(rewritten) / len(rewritten):>17.1f}"
                )
                window, rewritten = [], []
        print(f"total {time.perf_counter() - started:.1f} s (appends and stand-in embedding)")
    finally:
        conn.close()
        shutil.rmtree(BENCH_ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
