"""Benchmark the preloaded context: regeneration time, the hook's wall time, block size versus budget.

Builds a memory of 10,000 confirmed insights (bilingual, 40 projects, two of
them private) and 1,000 summarized sessions in a fresh temporary home, with
Claude Code, Codex and Gemini CLI "installed" and 10 repositories enabled, then:

1. times a full regeneration of every target (first write, then an unchanged
   pass, then a pass after one confirmed insight);
2. runs ``python -m incremind_daemon hook claude-session-start`` as a whole
   process, ``--runs`` times (default 40), and prints p50/p95 wall time;
3. renders the global block and one project's part at several budgets and prints
   the estimated size.

Run: ``python -m benchmarks.context [--runs 40]``. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.isolation import isolate_home

ROOT = isolate_home("incremind-context-")  # before incremind_daemon is imported
os.environ["INCREMIND_EMBEDDING__BACKEND"] = "none"

from benchmarks.figures import percentile  # noqa: E402
from benchmarks.processes import REPO  # noqa: E402
from incremind_daemon.config import load_settings  # noqa: E402
from incremind_daemon.pipeline.redact import redact  # noqa: E402
from incremind_daemon.serve.context.gather import gather_context  # noqa: E402
from incremind_daemon.serve.context.render import render_context_block  # noqa: E402
from incremind_daemon.serve.context.writer import ContextWriter  # noqa: E402
from incremind_daemon.store import items, recall  # noqa: E402
from incremind_daemon.store.db import connect, write_transaction  # noqa: E402
from incremind_daemon.store.insights import insert_insight, review  # noqa: E402
from incremind_daemon.store.records import CATEGORIES, Candidate, NewSummary  # noqa: E402
from incremind_daemon.store.sessions import SessionInfo, upsert_session  # noqa: E402

NOW = datetime.now(UTC).replace(microsecond=0)
EN = ["Prefers small commits", "Run make check before pushing", "Staging runs Postgres 16", "Dana owns payments"]
ZH = ["喜欢先给结论再解释原因", "发布前先跑一遍完整测试", "预发布环境的数据库是 Postgres 16", "周末不安排会议"]


def build(settings_home: Path, *, insights: int, sessions: int, projects: int) -> None:
    """Fill the store with confirmed insights and summarized sessions."""
    rng = random.Random(7)
    settings = load_settings(home=settings_home)
    conn = connect(settings.database_path)
    names = [f"proj{n:02d}" for n in range(projects)]
    with write_transaction(conn):
        for n in range(sessions):
            at = (NOW - timedelta(hours=rng.uniform(0, 24 * 60))).isoformat(timespec="seconds")
            project = rng.choice(names)
            info = SessionInfo(rng.choice(("claude", "codex", "gemini")), f"s{n}", project, "t", f"/t/{n}.jsonl")
            source_id = upsert_session(conn, info, now=at)
            conn.execute("UPDATE sessions SET last_message_at = ? WHERE source_id = ?", (at, source_id))
            words = rng.choice(EN + ZH)
            summary = f"Goal: {words} #{n}\nDone: step one; step two\nDecisions: {words}\nNext: {words} next"
            items.upsert_summary(conn, source_id, NewSummary(f"{words} #{n}", summary), now=at)
        for n in range(insights):
            at = (NOW - timedelta(days=rng.uniform(0, 40))).isoformat(timespec="seconds")
            category = rng.choice(CATEGORIES)
            # a person's global rules are a small share: identity and some preferences
            scope = "global" if category in ("identity", "preference") and rng.random() < 0.2 else "project"
            candidate = Candidate(f"{rng.choice(EN + ZH)} ({n})", category, "", "", 0, 0, scope)
            new = insert_insight(
                conn, project=rng.choice(names), candidate=candidate, relation="new", source_id=None, now=at
            )
            review(conn, new, "confirm", actor="bench", now=at)
    conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="hook runs to time (default 40)")
    parser.add_argument("--insights", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=1_000)
    args = parser.parse_args()
    home = Path(os.environ["HOME"])
    for agent in (".claude", ".codex", ".gemini"):
        (home / agent).mkdir(parents=True)
    incremind_home = Path(os.environ["INCREMIND_HOME"])
    try:
        started = time.perf_counter()
        build(incremind_home, insights=args.insights, sessions=args.sessions, projects=40)
        print(
            f"built {args.insights:,} confirmed insights, {args.sessions:,} sessions in "
            f"{time.perf_counter() - started:.1f} s"
        )
        settings = load_settings(home=incremind_home, private_projects=["proj00", "proj01"])
        conn = connect(settings.database_path)
        with write_transaction(conn):
            for n in range(10):
                repo = home / "code" / f"proj{n + 2:02d}"
                repo.mkdir(parents=True)
                row = recall.ContextTargetRow(
                    str(repo / "AGENTS.md"), "project", "codex", f"proj{n + 2:02d}", "inline", True, True
                )
                recall.save_context_target(conn, row)
        writer = ContextWriter(settings, scrub=redact)
        for label in ("first write", "unchanged pass"):
            started = time.perf_counter()
            results = writer.regenerate(conn)
            elapsed = time.perf_counter() - started
            written = sum(r.written for r in results)
            hooks = len(list((settings.context_dir / "hook").glob("*.json")))
            print(
                f"regenerate ({label}): {elapsed * 1000:.0f} ms for {len(results)} targets "
                f"({written} written) and {hooks} hook files"
            )
        with write_transaction(conn):
            new = insert_insight(
                conn,
                project="proj05",
                candidate=Candidate("新的偏好：先写测试", "preference", "", "", 0, 0, "global"),
                relation="new",
                source_id=None,
                now=NOW.isoformat(),
            )
            review(conn, new, "confirm", actor="bench", now=NOW.isoformat())
        started = time.perf_counter()
        results = writer.regenerate(conn)
        print(
            f"regenerate (after one confirmed preference): {(time.perf_counter() - started) * 1000:.0f} ms, "
            f"{sum(r.written for r in results)} of {len(results)} targets written"
        )

        event = json.dumps(
            {
                "cwd": str(home / "code" / "proj05"),
                "hook_event_name": "SessionStart",
                "source": "startup",
                "session_id": "x",
            }
        )
        command = [sys.executable, "-m", "incremind_daemon", "hook", "claude-session-start"]
        env = os.environ | {"PYTHONPATH": str(REPO)}
        times: list[float] = []
        size = 0
        for _ in range(args.runs):
            started = time.perf_counter()
            done = subprocess.run(command, input=event, capture_output=True, text=True, env=env, check=True)
            times.append(time.perf_counter() - started)
            size = len(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])
        started = time.perf_counter()
        for _ in range(args.runs):
            subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare = (time.perf_counter() - started) / args.runs
        print(
            f"hook claude-session-start, {args.runs} runs: p50 {percentile(times, 50) * 1000:.0f} ms, "
            f"p95 {percentile(times, 95) * 1000:.0f} ms (a bare `python -c pass`: {bare * 1000:.0f} ms); "
            f"additionalContext {size:,} characters"
        )

        for project, title in ((None, "global block, claude"), ("proj05", "proj05's part")):
            print(f"block size versus budget ({title}):")
            data = gather_context(
                conn,
                project=project,
                agent="claude",
                private=frozenset({"proj00", "proj01"}),
                now=NOW.astimezone(),
                insights=settings.insights,
                scrub=redact,
                shared=project is None,
            )
            print(f"  in scope: {len(data.insights)} insights recalled, {len(data.activity)} activity lines")
            for budget in (200, 500, 1_000, 1_500, 3_000, 6_000):
                started = time.perf_counter()
                block = render_context_block(data, budget)
                render_ms = (time.perf_counter() - started) * 1000
                print(
                    f"  budget {budget:>5}: {block.tokens:>5} tokens estimated, {len(block.text.encode()):>6} bytes, "
                    f"{len(block.shown_insights):>3} insights, {block.dropped:>4} lines cut, render {render_ms:.1f} ms"
                )
        conn.close()
    finally:
        shutil.rmtree(ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
