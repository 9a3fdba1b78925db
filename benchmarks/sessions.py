"""Benchmark agent sessions: append-to-searchable latency, backfill throughput, idle CPU.

Run from the repository root (``--quick`` for a sanity run of a few minutes):

    PYTHONPATH=. python benchmarks/sessions.py [--quick] [--mb N] [--out figures.json]

Everything happens in a fresh temporary folder: HOME and INCREMIND_HOME point
inside it for this process and for every daemon it starts, and the agents'
own overrides (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME) are dropped, so
no real transcript or memory is read or written. Figures are printed, never
asserted.
"""

from __future__ import annotations

from benchmarks.isolation import isolate_home

BENCH_ROOT = isolate_home("incremind-sessions-")

import argparse  # noqa: E402
import cProfile  # noqa: E402
import io  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import pstats  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import jieba  # noqa: E402

from benchmarks.figures import MB, Report, percentile, progress, render_table, write_json  # noqa: E402
from benchmarks.processes import (  # noqa: E402
    check_alive,
    cpu_seconds,
    daemon_env,
    proc_status_kb,
    start_daemon,
    stop_daemon,
    wait_for,
)
from benchmarks.search_db import checkpointed_db_bytes  # noqa: E402
from benchmarks.transcript_history import (  # noqa: E402
    AGENTS,
    AgentLog,
    ClaudeLog,
    Clock,
    CodexLog,
    GeminiLog,
    Texts,
    append_lines,
    generate_history,
)
from incremind_daemon.config import Settings, load_settings  # noqa: E402
from incremind_daemon.ops.backfill import Progress, plan_backfill, run_backfill  # noqa: E402
from incremind_daemon.store.db import connect, fetch_int  # noqa: E402
from incremind_daemon.store.search import search  # noqa: E402
from incremind_daemon.store.tokenizer import ensure_segmenter  # noqa: E402

POLL_SECONDS = 0.005  # how often the latency probe searches
RESCAN_SECONDS = "60"  # the default; only watch events drive latency


@dataclass(frozen=True, slots=True)
class Plan:
    """How big each benchmark is."""

    mode: str
    appends: int
    history_mb: float
    idle_files: int
    idle_seconds: float
    settle_seconds: float = 5.0


class DaemonRun:
    """The real daemon as a subprocess, with its own HOME and INCREMIND_HOME."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.memory = home / ".incremind"
        self.log_path = home.parent / "daemon.log"
        env = daemon_env(self.memory, user_home=home, INCREMIND_SESSIONS__RESCAN_SECONDS=RESCAN_SECONDS)
        self.process = start_daemon(env, self.log_path)

    @property
    def pid(self) -> int:
        return self.process.pid

    def check_alive(self) -> None:
        check_alive(self.process, self.log_path)

    def wait_started(self) -> float:
        status = self.memory / "status.json"
        seconds = wait_for(lambda: status.exists() or self.process.poll() is not None, 120, "daemon start")
        self.check_alive()
        return seconds

    def stop(self) -> int:
        return stop_daemon(self.process)


# ---------------------------------------------------------------- append-to-searchable latency


def bench_latency(plan: Plan, report: Report) -> None:
    """Append messages one at a time to live transcripts; time each until a search finds it."""
    section = "append to searchable"
    home = BENCH_ROOT / "latency" / "home"
    repo = BENCH_ROOT / "latency" / "code" / "atlas"
    (repo / ".git").mkdir(parents=True)
    texts, clock = Texts(11), Clock(time.time())
    logs: list[AgentLog] = [
        ClaudeLog(texts, home / ".claude", repo, clock),
        ClaudeLog(texts, home / ".claude", repo / "server", clock),
        CodexLog(texts, home / ".codex", repo, clock),
        GeminiLog(texts, home / ".gemini", repo, clock),
    ]
    for number, log in enumerate(logs):  # the folders exist before the daemon starts, so they are watched at once
        log.path.parent.mkdir(parents=True, exist_ok=True)
        log.path.write_text("".join(log.start() + log.prompt(f"warmup{number} {texts.prompt()}")), encoding="utf-8")
    daemon = DaemonRun(home)
    rng = random.Random(5)
    tokens: set[str] = set()
    latencies: list[tuple[str, float]] = []
    timeouts, query_time, queries = 0, 0.0, 0
    try:
        startup = daemon.wait_started()
        conn = connect(daemon.memory / "memory.db", readonly=True)
        try:
            for number in range(len(logs)):
                wait_for(
                    lambda n=number: bool(search(conn, f"warmup{n}", home=daemon.memory, tier="raw", limit=1)),
                    60,
                    "warm-up messages searchable",
                    every=0.05,
                )
            replied = [True] * len(logs)
            for number in range(plan.appends):
                index = rng.choices(range(len(logs)), weights=(60, 20, 10, 10))[0]
                log = logs[index]
                while (token := f"qz{rng.randint(0, 999):03d}{texts.token(3).lower()}x") in tokens:
                    pass
                tokens.add(token)
                text = texts.prompt() if replied[index] else texts.reply()
                text = f"{token} {text}" if number % 2 else f"{text} {token}"
                lines = append_lines(log, text, prompt=replied[index], rng=rng)
                replied[index] = not replied[index]
                with open(log.path, "a", encoding="utf-8") as handle:
                    handle.write("".join(lines))
                written = time.perf_counter()
                while True:
                    before = time.perf_counter()
                    found = search(conn, token, home=daemon.memory, tier="raw", limit=1)
                    now = time.perf_counter()
                    query_time, queries = query_time + now - before, queries + 1
                    if found:
                        latencies.append((log.agent, (now - written) * 1000))
                        break
                    if now - written > 30:
                        timeouts += 1
                        daemon.check_alive()
                        break
                    time.sleep(POLL_SECONDS)
                if (number + 1) % 100 == 0:
                    progress(f"{number + 1} of {plan.appends} appends")
            stored = fetch_int(conn, "SELECT count(*) FROM messages")
        finally:
            conn.close()
    finally:
        exit_code = daemon.stop()
    ms = [value for _, value in latencies]
    report.add(section, "daemon start-up (to status.json)", startup, "s", 2)
    report.add(section, "messages appended", plan.appends, "", 0)
    report.add(section, "not searchable within 30 s", timeouts, "", 0)
    for pct in (50, 95, 99):
        report.add(section, f"latency p{pct}", percentile(ms, pct), "ms", 1)
    report.add(section, "latency max", max(ms), "ms", 1)
    report.add(section, "latency mean", sum(ms) / len(ms), "ms", 1)
    tenth = max(1, len(ms) // 10)
    report.add(section, "p50 of the first 10 %", percentile(ms[:tenth], 50), "ms", 1)
    report.add(section, "p50 of the last 10 %", percentile(ms[-tenth:], 50), "ms", 1)
    for agent in AGENTS:
        values = [value for name, value in latencies if name == agent]
        report.add(section, f"p50 {agent} ({len(values)} messages)", percentile(values, 50), "ms", 1)
    report.add(section, "probe query time (mean)", query_time / queries * 1000, "ms", 2)
    report.add(section, "messages stored (all kinds)", stored, "", 0)
    report.add(section, "daemon exit code after SIGTERM", exit_code, "", 0)


# ---------------------------------------------------------------- backfill


def history_settings(home: Path, agents_root: Path) -> Settings:
    """Settings whose agent folders are named explicitly, all inside the benchmark folder."""
    dirs = {agent: {"dir": str(agents_root / f".{agent}")} for agent in AGENTS}
    settings = load_settings(home=home, sessions=dirs)
    for source in (settings.sessions.claude, settings.sessions.codex, settings.sessions.gemini):
        if source.dir is None or BENCH_ROOT not in source.dir.parents:
            raise RuntimeError(f"refusing to read agent folder {source.dir} outside {BENCH_ROOT}")
    return settings


def ticker(label: str) -> Callable[[Progress], None]:
    """Return a backfill progress callback that prints every 10 s."""
    last = [time.monotonic()]

    def report(state: Progress) -> None:
        if time.monotonic() - last[0] >= 10 or state.files == state.files_total:
            last[0] = time.monotonic()
            progress(
                f"{label}: {state.files}/{state.files_total} files, {state.bytes / MB:,.0f} MB, "
                f"{state.messages:,} messages"
            )

    return report


def bench_backfill(plan: Plan, report: Report) -> None:
    """Generate a history and time `incremind backfill` in-process: a dry run, then the real one."""
    agents_root = Path(os.environ["HOME"])
    started = time.perf_counter()
    history = generate_history(agents_root, BENCH_ROOT / "code", seed=1, target_bytes=int(plan.history_mb * MB))
    report.add("history", "generated in", time.perf_counter() - started, "s", 1)
    report.add("history", "files", history.files, "", 0)
    report.add("history", "size", history.bytes / MB, "MB", 1)
    for agent in AGENTS:
        report.add("history", f"  {agent}: files", history.files_by_agent[agent], "", 0)
        report.add("history", f"  {agent}: MB", history.bytes_by_agent[agent] / MB, "MB", 1)
    report.add("history", "lines", history.lines, "", 0)
    report.add("history", "messages written (prompts, replies, tool calls)", history.messages, "", 0)
    settings = history_settings(agents_root / ".incremind", agents_root)
    ensure_segmenter()  # jieba's dictionary load is start-up cost, not backfill cost
    started = time.perf_counter()
    planned = plan_backfill(settings, agent=None, since=None)
    report.add("history", "plan_backfill (find and stat)", time.perf_counter() - started, "s", 2)
    size = sum(bytes_ for _, bytes_ in planned) / MB
    for dry_run, label in ((True, "dry run"), (False, "backfill")):
        marks: list[float] = []
        started = time.perf_counter()
        tick = ticker(label)

        def note_file(state: Progress, tick: Callable[[Progress], None] = tick, marks: list[float] = marks) -> None:
            marks.append(time.perf_counter())
            tick(state)

        done = run_backfill(settings, planned, dry_run=dry_run, report=note_file)
        seconds = time.perf_counter() - started
        report.add(label, "files", done.files, "", 0)
        report.add(label, "messages", done.messages, "", 0)
        report.add(label, "read", size, "MB", 1)
        report.add(label, "time", seconds, "s", 1)
        report.add(label, "throughput", done.messages / seconds, "messages/s", 0)
        report.add(label, "throughput (transcript bytes)", size / seconds, "MB/s", 2)
        if not dry_run and marks:
            report.add(label, "of which final summaries", started + seconds - marks[-1], "s", 1)
        report.add(label, "skipped / failed files", done.skipped + len(done.failed), "", 0)
        for failure in done.failed[:3]:
            report.note(f"{label} failed: {failure}")
        if done.messages != history.messages:
            report.note(f"{label}: {done.messages:,} messages read, {history.messages:,} written")
    db_mb = checkpointed_db_bytes(settings.database_path) / MB
    report.add("backfill", "database size", db_mb, "MB", 1)
    report.add("backfill", "database per MB of transcripts", db_mb / size, "MB/MB", 3)


def profile_backfill(mb: float) -> str:
    """cProfile plan + backfill of a separate mb history; return the top entries."""
    agents_root = BENCH_ROOT / "profile"
    generated = generate_history(agents_root, BENCH_ROOT / "code", seed=3, target_bytes=int(mb * MB))
    settings = history_settings(agents_root / ".incremind", agents_root)
    ensure_segmenter()
    profiler = cProfile.Profile()
    profiler.enable()
    run_backfill(settings, plan_backfill(settings, agent=None, since=None), dry_run=False, report=lambda _: None)
    profiler.disable()
    out = io.StringIO()
    out.write(f"--- top 10 cumulative in incremind_daemon ({generated.files} files, {generated.bytes / MB:.1f} MB)\n")
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(r"incremind_daemon", 10)
    out.write("--- top 10 own time, all code\n")
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("tottime").print_stats(10)
    return out.getvalue()


# ---------------------------------------------------------------- idle CPU


def bench_idle(plan: Plan, report: Report) -> None:
    """Start the daemon over many small recent transcripts and measure its CPU once it is quiet."""
    section = f"idle with {plan.idle_files:,} transcripts"
    home = BENCH_ROOT / "idle" / "home"
    home.mkdir(parents=True)
    history = generate_history(
        home, BENCH_ROOT / "code", seed=2, files=plan.idle_files, lines=(8, 40), output_scale=0.1, spread_days=0
    )
    report.add(section, "transcripts", history.files, "", 0)
    report.add(section, "transcripts size", history.bytes / MB, "MB", 2)
    daemon = DaemonRun(home)
    try:
        daemon.wait_started()
        conn = connect(daemon.memory / "memory.db", readonly=True)
        try:

            def count(sql: str) -> int:
                daemon.check_alive()
                return fetch_int(conn, sql)

            took = wait_for(lambda: count("SELECT count(*) FROM tail_files") >= history.files, 900, "take-in", 0.2)
            report.add(section, "take-in time (to all tracked)", took, "s", 1)
            took = wait_for(
                lambda: count("SELECT count(*) FROM sessions WHERE summary_stale = 1") == 0, 900, "summaries", 0.2
            )
            report.add(section, "then until every summary is written", took, "s", 1)
            stored = count("SELECT coalesce(sum(messages), 0) FROM tail_files")
            report.add(section, "messages stored", stored, "", 0)
            report.add(
                section,
                "files with an error or skipped",
                count("SELECT count(*) FROM tail_files WHERE last_error IS NOT NULL OR skipped IS NOT NULL"),
                "",
                0,
            )
            if stored != history.messages:
                report.note(f"idle: {stored:,} messages stored, {history.messages:,} written")
        finally:
            conn.close()
        time.sleep(plan.settle_seconds)
        before = cpu_seconds(daemon.pid)
        time.sleep(plan.idle_seconds)
        used = cpu_seconds(daemon.pid) - before
        report.add(section, f"CPU over {plan.idle_seconds:g} s idle", used, "s", 2)
        report.add(section, "CPU idle (% of one core)", used / plan.idle_seconds * 100, "%", 2)
        report.add(section, "RSS (VmRSS)", proc_status_kb(daemon.pid, "VmRSS") * 1024 / MB, "MB", 1)
        report.add(section, "threads", len(os.listdir(f"/proc/{daemon.pid}/task")), "", 0)
    finally:
        report.add(section, "exit code after SIGTERM", daemon.stop(), "", 0)


# ---------------------------------------------------------------- output and main


def title(plan: Plan) -> str:
    return (
        f"incremind-daemon session benchmark ({plan.mode}: {plan.appends:,} appends; "
        f"{plan.history_mb:g} MB history; {plan.idle_files:,} idle transcripts, {plan.idle_seconds:g} s)"
    )


BENCHMARKS = ("latency", "backfill", "idle")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Benchmark agent-session latency, backfill and idle CPU.")
    parser.add_argument(
        "--quick", action="store_true", help="a small run: 100 appends, 20 MB history, 100 idle transcripts for 10 s"
    )
    parser.add_argument("--mb", type=float, help="history size to backfill in MB (default 200; quick 20)")
    parser.add_argument("--appends", type=int, help="messages to append one at a time (default 500)")
    parser.add_argument("--files", type=int, help="transcripts for the idle benchmark (default 1,000)")
    parser.add_argument("--idle-seconds", type=float, help="idle CPU window (default 60)")
    parser.add_argument(
        "--only", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS), help="run only these benchmarks"
    )
    parser.add_argument(
        "--profile",
        type=float,
        metavar="MB",
        default=0,
        help="also cProfile the backfill of an MB history and print the top entries",
    )
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    return parser


def make_plan(args: argparse.Namespace) -> Plan:
    appends, mb, files, idle = (100, 20.0, 100, 10.0) if args.quick else (500, 200.0, 1000, 60.0)
    return Plan(
        mode="quick" if args.quick else "full",
        appends=args.appends or appends,
        history_mb=args.mb or mb,
        idle_files=args.files or files,
        idle_seconds=args.idle_seconds or idle,
    )


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    plan = make_plan(args)
    jieba.setLogLevel(logging.WARNING)
    progress(f"working in {BENCH_ROOT}")
    report = Report()
    try:
        if "latency" in args.only:
            bench_latency(plan, report)
        if "backfill" in args.only:
            bench_backfill(plan, report)
        if "idle" in args.only:
            bench_idle(plan, report)
        if args.profile:
            print(profile_backfill(args.profile))
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
