"""Backlog: the daemon takes in about 1 GB of files and transcripts in bounded memory, then idles.

Run from the repository root:

    PYTHONPATH=. python benchmarks/backlog.py [--size-mb 1024] [--embedding default|none] [--out FILE]

A drop folder (PDFs and DOCX with images, web pages, notes, CSV, JSON) and
Claude Code, Codex and Gemini CLI transcripts (tool output most of their
bytes) are generated in a staging folder. The real daemon (``incremind run``,
default settings, MCP on port 0) starts on an empty home and idles; then the
backlog is moved in at once (renames, so it appears in an instant). Every
second the daemon's VmRSS, VmHWM and CPU time are sampled. Printed: RSS idle
before, at its peak, when ingest ends, when the backlog is done (embedding
and insight steps included) and after idling; idle CPU; items stored and
failed; bytes on disk against characters of text stored; GB per hour.
Everything happens in a fresh temporary folder; figures are never asserted.
"""

from __future__ import annotations

from benchmarks.isolation import isolate_home

ROOT = isolate_home("incremind-bench-backlog-")  # before incremind_daemon is imported

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import apsw  # noqa: E402

from benchmarks.backlog_files import DropFolder, write_drop_folder  # noqa: E402
from benchmarks.figures import MB, Report, progress, render_table, write_json  # noqa: E402
from benchmarks.processes import (  # noqa: E402
    check_alive,
    cpu_seconds,
    daemon_env,
    proc_status_kb,
    start_daemon,
    stop_daemon,
    wait_for,
)
from benchmarks.transcript_history import History, generate_history  # noqa: E402

AGENT_FOLDERS = (".claude/projects", ".codex/sessions", ".gemini/tmp")  # where each agent's transcripts live
SECTION_IN, SECTION_RSS, SECTION_OUT = "backlog", "daemon memory and CPU", "stored"


@dataclass(frozen=True, slots=True)
class Plan:
    size_mb: float
    transcript_share: float
    embedding: str
    idle_seconds: float
    drain_minutes: float
    seed: int


@dataclass(slots=True)
class Sample:
    at: float  # monotonic seconds
    rss_kb: int
    hwm_kb: int
    cpu: float
    children_kb: int  # the PDF/DOCX reader process, when one runs


@dataclass(slots=True)
class Sampler:
    """Sample the daemon's VmRSS, VmHWM and CPU time every second on a thread."""

    pid: int
    samples: list[Sample] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.samples.append(
                    Sample(
                        time.monotonic(),
                        proc_status_kb(self.pid, "VmRSS"),
                        proc_status_kb(self.pid, "VmHWM"),
                        cpu_seconds(self.pid),
                        children_rss_kb(self.pid),
                    )
                )
            except (OSError, LookupError):
                return
            self.stop.wait(1.0)

    def between(self, start: float, end: float) -> list[Sample]:
        return [s for s in list(self.samples) if start <= s.at <= end]

    def now_mb(self) -> float:
        return proc_status_kb(self.pid, "VmRSS") * 1024 / MB


def children_rss_kb(pid: int) -> int:
    """Return the summed VmRSS of pid's child processes (0 when there are none)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children = (task / "children").read_text(encoding="ascii").split()
        except OSError:
            continue
        for child in children:
            try:
                total += proc_status_kb(int(child), "VmRSS")
            except (OSError, LookupError):
                continue  # it ended meanwhile
    return total


def load_line() -> str:
    return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def generate(plan: Plan, staging: Path, report: Report) -> tuple[DropFolder, History]:
    """Write the drop folder and the transcripts into staging; return what was written."""
    total = int(plan.size_mb * MB)
    transcripts = int(total * plan.transcript_share)
    started = time.monotonic()
    history = generate_history(
        staging / "agents", staging / "code", seed=plan.seed, target_bytes=transcripts, spread_days=0
    )
    drop = write_drop_folder(staging / "inbox", total - history.bytes, seed=plan.seed + 1)
    report.add(SECTION_IN, "generated in", time.monotonic() - started, "s", 0)
    report.add(SECTION_IN, "total on disk", (drop.total_bytes + history.bytes) / MB, "MB", 0)
    report.add(SECTION_IN, "transcripts", history.files, "", 0)
    report.add(SECTION_IN, "transcripts on disk", history.bytes / MB, "MB", 1)
    report.add(SECTION_IN, "drop-folder files", drop.total_files, "", 0)
    for kind in drop.files:
        report.add(SECTION_IN, f"  {kind}: {drop.files[kind]:,} files", drop.bytes[kind] / MB, "MB", 1)
    return drop, history


def move_in(staging: Path, home: Path, inbox: Path) -> None:
    """Move the staged backlog into the watched folders (renames: it appears at once)."""
    for folder in AGENT_FOLDERS:
        source = staging / "agents" / folder
        if source.is_dir():
            for child in sorted(source.iterdir()):
                os.rename(child, home / folder / child.name)
    for child in sorted((staging / "inbox").iterdir()):
        os.rename(child, inbox / child.name)


def inbox_left(inbox: Path) -> int:
    """Count files still waiting in the inbox (not hidden, not in .failed)."""
    count = 0
    for _root, dirs, files in os.walk(inbox):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        count += sum(1 for name in files if not name.startswith("."))
    return count


def heartbeat(memory: Path) -> dict[str, object]:
    try:
        data = json.loads((memory / "status.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def count(conn: apsw.Connection, sql: str) -> int:
    row = conn.execute(sql).fetchone()
    return int(row[0] or 0) if row else 0


def is_ingested(conn: apsw.Connection, memory: Path, inbox: Path, transcripts: int) -> bool:
    """Tell whether every file has left the inbox and every transcript was read, with the worker idle."""
    if inbox_left(inbox) or count(conn, "SELECT count(*) FROM tail_files") < transcripts:
        return False
    beat = heartbeat(memory)
    return beat.get("queue_depth") == 0 and beat.get("busy_with") is None and beat.get("inbox_waiting") == 0


def is_backlog_done(conn: apsw.Connection) -> bool:
    """Tell whether vectors, insight steps and session summaries have caught up."""
    return (
        count(conn, "SELECT count(*) FROM embed_queue") == 0
        and count(conn, "SELECT count(*) FROM insight_jobs WHERE state = 'waiting'") == 0
        and count(conn, "SELECT count(*) FROM sessions WHERE summary_stale = 1") == 0
    )


def run(plan: Plan, report: Report) -> None:
    staging = ROOT / "staging"
    drop, history = generate(plan, staging, report)
    home = Path(os.environ["HOME"])
    memory = Path(os.environ["INCREMIND_HOME"])
    for folder in AGENT_FOLDERS:  # exist before the daemon starts, so they are watched from the start
        (home / folder).mkdir(parents=True, exist_ok=True)
    extra = {"INCREMIND_MCP__PORT": "0"}
    if plan.embedding != "default":
        extra["INCREMIND_EMBEDDING__BACKEND"] = plan.embedding
    log_path = ROOT / "daemon.log"
    process = start_daemon(daemon_env(memory, user_home=home, **extra), log_path)
    sampler = Sampler(process.pid)
    thread = threading.Thread(target=sampler.run, name="sampler", daemon=True)
    try:
        wait_for(lambda: (memory / "status.json").exists() or process.poll() is not None, 180, "daemon start")
        check_alive(process, log_path)
        thread.start()
        inbox = memory / "inbox"
        time.sleep(20)
        report.add(SECTION_RSS, "RSS idle before (no model loaded yet)", sampler.now_mb(), "MB", 1)
        conn = apsw.Connection(str(memory / "memory.db"), flags=apsw.SQLITE_OPEN_READONLY)
        conn.set_busy_timeout(5_000)
        if plan.embedding == "default":  # one note first, so the idle figure includes the loaded model
            (inbox / "warm-up.md").write_text("# warm up\n\nOne note so the embedding model loads.\n")
            wait_for(lambda: not inbox_left(inbox) and is_backlog_done(conn), 300, "warm-up note", 0.5)
            time.sleep(20)
            report.add(SECTION_RSS, "RSS idle before (model loaded)", sampler.now_mb(), "MB", 1)
        cpu_before = cpu_seconds(process.pid)
        progress(f"moving the backlog in ({load_line()})")
        started = time.monotonic()
        move_in(staging, home, inbox)

        def ingested() -> bool:
            check_alive(process, log_path)
            return is_ingested(conn, memory, inbox, history.files)

        wait_for(ingested, 6 * 3600, "ingest", 2.0)
        ingest_end = time.monotonic()
        ingest_rss = sampler.now_mb()
        progress(f"ingest done in {ingest_end - started:.0f} s ({load_line()})")

        def caught_up() -> bool:
            check_alive(process, log_path)
            return is_backlog_done(conn)

        done = True
        try:
            wait_for(caught_up, plan.drain_minutes * 60, "embedding and insight steps", 2.0)
        except TimeoutError:
            done = False
        done_at = time.monotonic()
        done_rss = sampler.now_mb()
        during = sampler.between(started, done_at)
        peak = max(s.rss_kb for s in during) * 1024 / MB
        report.add(SECTION_RSS, "RSS peak during the backlog (sampled 1/s)", peak, "MB", 1)
        report.add(SECTION_RSS, "VmHWM (kernel peak since start)", during[-1].hwm_kb * 1024 / MB, "MB", 1)
        reader = max(s.children_kb for s in during) * 1024 / MB
        report.add(SECTION_RSS, "PDF/DOCX reader process, peak RSS (sampled)", reader, "MB", 1)
        report.add(SECTION_RSS, "RSS at end of ingest", ingest_rss, "MB", 1)
        label = "RSS after embedding and insight steps" if done else f"RSS after {plan.drain_minutes:g} min (NOT done)"
        report.add(SECTION_RSS, label, done_rss, "MB", 1)
        report.add(SECTION_RSS, "CPU used by the backlog", cpu_seconds(process.pid) - cpu_before, "s", 0)
        report.add(SECTION_RSS, "load average at end of ingest", os.getloadavg()[0], "", 2)
        idle_start = time.monotonic()
        cpu_idle_start = cpu_seconds(process.pid)
        time.sleep(plan.idle_seconds)
        cpu_idle = cpu_seconds(process.pid) - cpu_idle_start
        idle_seconds = time.monotonic() - idle_start
        report.add(SECTION_RSS, f"RSS after {plan.idle_seconds:g} s idle", sampler.now_mb(), "MB", 1)
        idle_cpu = cpu_idle / idle_seconds * 100
        report.add(SECTION_RSS, f"CPU over the last {plan.idle_seconds:g} s (% of one core)", idle_cpu, "%", 2)
        report_store(conn, memory, plan, drop, history, report)
        wall_ingest = ingest_end - started
        total_bytes = drop.total_bytes + history.bytes
        report.add("time", "ingest wall time (to inbox empty, transcripts read)", wall_ingest, "s", 0)
        report.add("time", "ingest throughput", total_bytes / 1e9 / (wall_ingest / 3600), "GB/h", 2)
        report.add("time", "backlog wall time (embedding, insights included)", done_at - started, "s", 0)
        if done:
            report.add("time", "backlog throughput", total_bytes / 1e9 / ((done_at - started) / 3600), "GB/h", 2)
        else:
            report.note(f"the backlog was NOT done after {plan.drain_minutes:g} min of embedding and insight steps")
        conn.close()
    finally:
        sampler.stop.set()
        code = stop_daemon(process)
        report.add("time", "exit code after SIGTERM", code, "", 0)
        report.note(f"load at the end: {load_line()}")


def report_store(
    conn: apsw.Connection, memory: Path, plan: Plan, drop: DropFolder, history: History, report: Report
) -> None:
    files = count(conn, "SELECT count(*) FROM sources WHERE kind = 'file'")
    report.add(SECTION_OUT, "files stored", files, "", 0)
    failed_dir = memory / "inbox" / ".failed"
    failed = [p for p in failed_dir.glob("*") if not p.name.endswith(".error.txt")] if failed_dir.is_dir() else []
    report.add(SECTION_OUT, "files failed", len(failed), "", 0)
    file_chars = count(conn, "SELECT sum(length(raw_text)) FROM sources WHERE kind = 'file'")
    report.add(SECTION_OUT, "file text stored", file_chars / 1e6, "M chars", 1)
    report.add(SECTION_OUT, "sessions stored", count(conn, "SELECT count(*) FROM sessions"), "", 0)
    report.add(SECTION_OUT, "messages stored", count(conn, "SELECT count(*) FROM messages"), "", 0)
    troubled = count(conn, "SELECT count(*) FROM tail_files WHERE last_error IS NOT NULL OR skipped IS NOT NULL")
    report.add(SECTION_OUT, "transcript files with an error or skipped", troubled, "", 0)
    session_chars = count(conn, "SELECT sum(length(raw_text)) FROM sources WHERE kind != 'file'")
    report.add(SECTION_OUT, "session text stored", session_chars / 1e6, "M chars", 1)
    report.add(SECTION_OUT, "transcript bytes per stored character", history.bytes / max(session_chars, 1), "", 1)
    report.add(SECTION_OUT, "passages", count(conn, "SELECT count(*) FROM chunks"), "", 0)
    report.add(SECTION_OUT, "vectors waiting", count(conn, "SELECT count(*) FROM embed_queue"), "", 0)
    db = sum(p.stat().st_size for p in memory.glob("memory.db*"))  # no checkpoint: the connection is read-only
    report.add(SECTION_OUT, "database + WAL", db / MB, "MB", 0)
    if count(conn, "SELECT count(*) FROM messages") < history.messages:
        report.note(f"{history.messages:,} messages were written to the transcripts")


def title(plan: Plan) -> str:
    return (
        f"incremind-daemon backlog benchmark ({plan.size_mb:g} MB, {plan.transcript_share:.0%} transcripts, "
        f"embedding {plan.embedding})"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Take a large backlog into the daemon and measure its memory.")
    parser.add_argument("--size-mb", type=float, default=1024, help="backlog size in MB of 10^6 bytes (default 1024)")
    parser.add_argument("--transcript-share", type=float, default=0.5, help="share of transcripts (default 0.5)")
    parser.add_argument("--embedding", default="default", choices=("default", "none"), help="embedding backend")
    parser.add_argument("--idle-seconds", type=float, default=60, help="idle window after the backlog (default 60)")
    parser.add_argument(
        "--drain-minutes", type=float, default=45, help="give up waiting for embedding after this long (default 45)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    plan = Plan(args.size_mb, args.transcript_share, args.embedding, args.idle_seconds, args.drain_minutes, args.seed)
    progress(f"working in {ROOT} ({load_line()})")
    report = Report()
    started = time.monotonic()
    try:
        run(plan, report)
    finally:
        report.add("time", "benchmark wall time", time.monotonic() - started, "s", 0)
        if report.figures:
            print(render_table(report, title(plan)))
            if args.out:
                write_json(args.out, report, plan)
        if args.keep:
            progress(f"kept {ROOT}")
        else:
            shutil.rmtree(ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
