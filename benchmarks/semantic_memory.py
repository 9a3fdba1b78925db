"""Memory of the default model in a fresh interpreter, and of the real daemon idle.

Imports incremind, so a script imports this only after ``isolate_home``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.corpus import iter_passages
from benchmarks.figures import MB
from benchmarks.processes import (
    REPO,
    check_alive,
    cpu_seconds,
    daemon_env,
    proc_status_kb,
    start_daemon,
    stop_daemon,
    wait_for,
)
from benchmarks.semantic_report import Plan, Report
from incremind_daemon.store.db import connect, fetch_rows

RSS_PROBE = """
import json, sys
from incremind_daemon.embedding.use_m3 import UseM3Embedder
def kb(key):
    with open("/proc/self/status", encoding="ascii") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith(key + ":"))
before = kb("VmRSS")
embedder = UseM3Embedder(threads=2)
embedder.embed_query("向量检索 vector search")
print(json.dumps({"imported": before, "loaded": kb("VmRSS"), "hwm": kb("VmHWM")}))
"""


def bench_model_rss(report: Report, root: Path) -> None:
    """Load use-m3 in a fresh interpreter, embed one text, and read its memory."""
    section = "memory"
    home = root / "probe-home"
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


def bench_daemon_rss(plan: Plan, report: Report, root: Path) -> None:
    """Run the real daemon (use-m3 by default), embed a few files, then measure it idle."""
    section = "memory"
    home = root / "daemon-home"
    log_path = root / "daemon.log"
    process = start_daemon(daemon_env(home), log_path)
    try:
        wait_for(lambda: (home / "status.json").exists() or process.poll() is not None, 120, "daemon start")
        check_alive(process, log_path)
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
        check_alive(process, log_path)
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
        report.add(section, "daemon exit code after SIGTERM", stop_daemon(process), "", 0)
