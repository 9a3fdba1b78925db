"""Whole-process timings of the command line and the stdio MCP server, with and without a running daemon.

    PYTHONPATH=. python benchmarks/cli.py                       # 100,000 passages, 20 runs each
    PYTHONPATH=. python benchmarks/cli.py --passages 10000 --runs 5 --agents 4 --backlog 200   # a quick look

Each command runs as a new process, as a person or an agent starts it:
``--version``, ``status``, ``pending``, ``search`` (keyword and hybrid),
``doctor``, and ``incremind mcp`` from start to connected, to its tool list
and to its first answer; then ``start`` and ``stop`` of the daemon. For
each: p50/p95 wall seconds, CPU seconds (user + system) and max RSS, beside
a bare ``python -c pass`` of the same run. Then the load test:
``--agents`` stdio servers save and search while ``--backlog`` files are
dropped into the inbox; it prints errors and the "database is locked" lines
of the daemon's log (both should be 0).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.isolation import isolate_home

ROOT = isolate_home("incremind-cli-")

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

import numpy as np  # noqa: E402

from benchmarks.corpus import generate_documents  # noqa: E402
from benchmarks.figures import machine_line, percentile, progress  # noqa: E402
from benchmarks.processes import cpu_seconds, daemon_env, start_daemon, stop_daemon, wait_for  # noqa: E402
from benchmarks.search_db import build_search_db  # noqa: E402
from benchmarks.semantic_search import fill_vectors  # noqa: E402
from incremind_daemon.embedding.use_m3 import UseM3Embedder  # noqa: E402
from incremind_daemon.locate import is_own_socket, socket_path  # noqa: E402
from incremind_daemon.pipeline.redact import RULES_VERSION  # noqa: E402
from incremind_daemon.pipeline.redact_stored import RULES_KEY  # noqa: E402
from incremind_daemon.store import clock, insight_jobs  # noqa: E402
from incremind_daemon.store.db import connect, write_transaction  # noqa: E402
from incremind_daemon.store.sessions import set_meta  # noqa: E402

HOME = Path(os.environ["INCREMIND_HOME"])
TIME = shutil.which("time", path="/usr/bin:/bin")  # GNU time, for the peak RSS of each command
COMMANDS = [
    ("python -c pass", ["-c", "pass"]),
    ("--version", ["-m", "incremind_daemon", "--version"]),
    ("--help", ["-m", "incremind_daemon", "--help"]),
    ("status", ["-m", "incremind_daemon", "status"]),
    ("pending", ["-m", "incremind_daemon", "pending"]),
    ("search keyword", ["-m", "incremind_daemon", "search", "deploy schedule", "--mode", "keyword"]),
    ("search hybrid", ["-m", "incremind_daemon", "search", "部署 时间 安排"]),
    ("doctor", ["-m", "incremind_daemon", "doctor"]),
]
OPENING = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


@dataclass
class Timing:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)

    def row(self, name: str) -> str:
        return (
            f"  {name:<26} wall p50 {percentile(self.wall, 50):6.3f} s  p95 {percentile(self.wall, 95):6.3f} s   "
            f"cpu p50 {percentile(self.cpu, 50):6.3f} s   max RSS {max(self.rss_mb, default=0):6.0f} MB"
        )


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, float, int]:
    """Run one process to its end; return wall s, CPU s, max RSS MB and its exit code.

    The process is started by GNU time, which reports its peak RSS: the peak
    this (large) process could report for a child it spawns directly counts
    the parent's pages the child borrowed until it ran Python.
    """
    report = ROOT / "rss.txt"
    command = [sys.executable, *argv]
    if TIME:
        command = [TIME, "-f", "%M", "-o", str(report), *command]
    started = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    rss_mb = usage.ru_maxrss / 1024
    if TIME:
        rss_mb = int(report.read_text().split()[-1]) / 1024
    return wall, usage.ru_utime + usage.ru_stime, rss_mb, child.returncode


def time_commands(env: dict[str, str], runs: int) -> dict[str, Timing]:
    found: dict[str, Timing] = {}
    for name, argv in COMMANDS:
        timing = found.setdefault(name, Timing())
        for _ in range(min(runs, 3) if name == "doctor" else runs):
            wall, cpu, rss, code = run_once(argv, env)
            if code not in (0, 1, 3):  # doctor: 1 when a check fails; status: 3 with no daemon
                raise RuntimeError(f"{name} exited {code}")
            timing.wall.append(wall)
            timing.cpu.append(cpu)
            timing.rss_mb.append(rss)
    for name, timing in time_mcp(env, runs).items():
        found[name] = timing
    return found


def time_mcp(env: dict[str, str], runs: int) -> dict[str, Timing]:
    """Start `incremind mcp` as an agent does: to the answer of initialize, and to the first tool answer."""
    connected, listed, answered = Timing(), Timing(), Timing()
    for _ in range(runs):
        report = ROOT / "rss-mcp.txt"
        command = [sys.executable, "-m", "incremind_daemon", "mcp"]
        started = time.perf_counter()
        child = subprocess.Popen(
            [TIME, "-f", "%M", "-o", str(report), *command] if TIME else command,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps(OPENING).encode() + b"\n")
        child.stdin.flush()
        child.stdout.readline()
        connected.wall.append(time.perf_counter() - started)
        child.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        child.stdin.write(b'{"jsonrpc":"2.0","id":9,"method":"tools/list"}\n')  # what an agent asks next
        child.stdin.flush()
        child.stdout.readline()
        listed.wall.append(time.perf_counter() - started)
        call = {"name": "search_memory", "arguments": {"query": "deploy schedule"}}
        child.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}).encode())
        child.stdin.write(b"\n")
        child.stdin.flush()
        answer = child.stdout.readline()
        answered.wall.append(time.perf_counter() - started)
        if b'"result"' not in answer:
            raise RuntimeError(f"search_memory over stdio failed: {answer[:200]!r}")
        child.stdin.close()
        _, _, usage = os.wait4(child.pid, 0)
        child.stdout.close()
        cpu = usage.ru_utime + usage.ru_stime
        rss_mb = int(report.read_text().split()[-1]) / 1024 if TIME else usage.ru_maxrss / 1024
        for timing in (connected, listed, answered):
            timing.cpu.append(cpu)
            timing.rss_mb.append(rss_mb)
    return {"mcp to connected": connected, "mcp to tools listed": listed, "mcp to first answer": answered}


def time_start_stop(env: dict[str, str], runs: int) -> dict[str, Timing]:
    """`incremind start` until the daemon answers, and `incremind stop` until it is gone."""
    found = {"start": Timing(), "stop": Timing()}
    for _ in range(runs):
        for name in ("start", "stop"):
            wall, cpu, rss, code = run_once(["-m", "incremind_daemon", name], env)
            if code != 0:
                raise RuntimeError(f"incremind {name} exited {code}")
            found[name].wall.append(wall)
            found[name].cpu.append(cpu)
            found[name].rss_mb.append(rss)
    return found


def wait_idle(pid: int, timeout: float) -> float:
    """Wait until the daemon uses under a tenth of a core over two seconds; return how long that took."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        before = cpu_seconds(pid)
        time.sleep(2.0)
        if cpu_seconds(pid) - before < 0.2:
            return time.monotonic() - started
    raise TimeoutError(f"the daemon was still busy after {timeout:.0f} s")


def build_store(passages: int) -> None:
    progress(f"building a store of {passages:,} passages with vectors")
    started = time.perf_counter()
    database = HOME / "memory.db"
    build_search_db(database, passages)
    fill_vectors(database, UseM3Embedder(), {}, min(passages, 2_000), np.random.default_rng(7))
    conn = connect(database)
    try:
        with write_transaction(conn):
            # made by this version, with no credentials in it: the daemon's one-time pass for upgraded
            # stores would run through all of it during the timings
            set_meta(conn, RULES_KEY, str(RULES_VERSION))
            # and examined already: the insight step over 5,000 generated documents takes the daemon
            # longer than the whole benchmark, and it is not what this one measures
            last = insight_jobs.open_new_jobs(conn, after=0, now=clock.stamp())
            for source_id in range(1, last + 1):
                insight_jobs.finish_job(conn, source_id, upto=2**31 - 1, path="local", now=clock.stamp())
    finally:
        conn.close()
    progress(f"  built in {time.perf_counter() - started:.0f} s")


def load_test(env: dict[str, str], agents: int, backlog: int, log_path: Path) -> list[str]:
    """Agents' stdio servers save and search while a backlog is ingested; return the figures as lines."""
    staging = ROOT / "backlog"
    for number, document in enumerate(generate_documents(backlog, seed=11)):
        folder = staging / f"project{number % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / document.name).write_text(document.text, encoding="utf-8")
    files = sorted(p for p in staging.rglob("*") if p.is_file())
    errors: list[str] = []
    calls = 0
    lock = threading.Lock()

    def agent(number: int) -> None:
        nonlocal calls
        child = subprocess.Popen(
            [sys.executable, "-m", "incremind_daemon", "mcp"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert child.stdin is not None and child.stdout is not None
        try:
            child.stdin.write(json.dumps(OPENING).encode() + b"\n")
            child.stdin.flush()
            child.stdout.readline()
            child.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            for i in range(20):
                if i % 2:
                    call = {"name": "search_memory", "arguments": {"query": f"agent {number} note {i - 1}"}}
                else:
                    text = f"Agent {number} note {i}: the staging deploy uses port {8000 + i}. " + "细节。" * 200
                    call = {"name": "save_memory", "arguments": {"text": text, "project": f"load{number}"}}
                message = {"jsonrpc": "2.0", "id": i + 2, "method": "tools/call", "params": call}
                child.stdin.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")
                child.stdin.flush()
                answer = json.loads(child.stdout.readline())
                failed = "error" in answer or answer.get("result", {}).get("isError")
                with lock:
                    calls += 1
                    if failed:
                        errors.append(json.dumps(answer, ensure_ascii=False)[:200])
        finally:
            child.stdin.close()
            child.wait(timeout=60)
            child.stdout.close()

    started = time.perf_counter()
    for path in files:  # the backlog lands at once, as a synced folder would
        target = HOME / "inbox" / path.relative_to(staging)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    threads = [threading.Thread(target=agent, args=(n,)) for n in range(agents)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    inbox = HOME / "inbox"

    def waiting() -> bool:
        return any(p.is_file() for p in inbox.rglob("*") if ".failed" not in p.parts)

    drained = wait_for(lambda: not waiting(), 3600, "the backlog", every=1.0)
    locked = sum("database is locked" in line for line in log_path.read_text(errors="replace").splitlines())
    lines = [
        f"  {agents} agents × 20 calls (saves of ~1 KB and searches) during a {len(files):,}-file backlog: "
        f"{calls} calls in {seconds:.0f} s, {len(errors)} errors, {locked} 'database is locked' in the log; "
        f"the backlog was in after {seconds + drained:.0f} s"
    ]
    lines += [f"    error: {e}" for e in errors[:5]]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=20, help="processes per command (doctor: once)")
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--backlog", type=int, default=2_000, help="files dropped during the load test")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    env = daemon_env(HOME)
    try:
        build_store(args.passages)
        print(machine_line())
        # the first process on a machine unpacks the model and builds jieba's cache (~/.cache/incremind);
        # every later one loads them: time those, as a person meets them after the first day
        run_once(["-m", "incremind_daemon", "search", "--mode", "hybrid", "warm up"], env)
        progress("without a daemon (the model cache written by one search first)")
        alone = time_commands(env, args.runs)
        log_path = ROOT / "daemon.log"
        daemon = start_daemon(env, log_path)
        try:
            wait_for(lambda: is_own_socket(socket_path(HOME)), 120, "the daemon's socket")
            run_once(["-m", "incremind_daemon", "search", "warm up"], env)  # the daemon loads its model once
            settled = wait_idle(daemon.pid, 1800)  # its first pass over the store's sources, by the local rules
            progress(f"with the daemon running (idle after {settled:.0f} s)")
            served = time_commands(env, args.runs)
            load = load_test(env, args.agents, args.backlog, log_path) if args.agents and args.backlog else []
        finally:
            stop_daemon(daemon)
        served.update(time_start_stop(env, min(args.runs, 5)))
        print(f"\n{args.passages:,} passages; {args.runs} processes per command\n")
        for title, found in (("without a daemon (in-process)", alone), ("with the daemon running", served)):
            print(title)
            for name, timing in found.items():
                print(timing.row(name))
            print()
        for line in load:
            print(line)
    finally:
        if not args.keep:
            shutil.rmtree(ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
