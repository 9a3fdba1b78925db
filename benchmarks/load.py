"""Load: MCP clients search the running daemon continuously while it takes in a backlog.

Run from the repository root:

    PYTHONPATH=. python benchmarks/load.py [--clients 10] [--seconds 60] [--files 2000]

A real daemon (``incremind run``) starts on a temporary home with keyword
search (the model's memory is measured by benchmarks/semantic.py). A backlog
of Markdown notes is dropped into the inbox at once; meanwhile each client,
the MCP SDK's own client in its own session over HTTP, calls search_memory
back to back. Printed: requests served, errors, latency p50/p95, the
daemon's RSS and CPU over the run, and its RSS once the backlog is in.
"""

from __future__ import annotations

from benchmarks.isolation import isolate_home

ROOT = isolate_home("incremind-bench-load-")  # before incremind_daemon is imported

import argparse  # noqa: E402
import socket  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import anyio  # noqa: E402
import httpx  # noqa: E402
from mcp import Client  # noqa: E402

from benchmarks.corpus import build_queries  # noqa: E402
from benchmarks.figures import machine_line, percentile  # noqa: E402
from benchmarks.processes import (  # noqa: E402
    check_alive,
    cpu_seconds,
    daemon_env,
    proc_status_kb,
    start_daemon,
    stop_daemon,
    wait_for,
)

NOTE = """# Note {n} about {topic}

We decided to keep {topic} behind a feature flag until the {n}th release.
The staging host for {topic} listens on port {port}; restart it with `make restart-{n}`.
间隔重复：按第 1、2、4、7、15 天复习 {topic} 的要点，第 {n} 次复习时先自答再翻面。
"""
TOPICS = ("postgres", "redis", "nginx", "kafka", "sqlite", "jieba", "onnx", "pytest", "docker", "systemd")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def drop_backlog(inbox: Path, files: int) -> int:
    """Write the backlog into the inbox; return its size in bytes."""
    staging = inbox.parent / "staging"
    staging.mkdir(parents=True, exist_ok=True)
    size = 0
    for n in range(files):
        text = NOTE.format(n=n, topic=TOPICS[n % len(TOPICS)], port=8000 + n % 1000) * (1 + n % 8)
        path = staging / f"note-{n:05d}.md"
        path.write_text(text, encoding="utf-8")
        size += path.stat().st_size
    for path in sorted(staging.iterdir()):
        path.rename(inbox / path.name)  # appear whole, as a user's copy would
    return size


async def one_client(url: str, number: int, until: float, latencies: list[float], errors: list[str]) -> None:
    queries = [q.text for q in build_queries()]
    async with Client(url) as client:
        round_ = number
        while time.monotonic() < until:
            started = time.perf_counter()
            result = await client.call_tool("search_memory", {"query": queries[round_ % len(queries)], "limit": 5})
            latencies.append((time.perf_counter() - started) * 1000)
            if result.is_error:
                errors.append(str(result.content)[:200])
            round_ += 7


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--files", type=int, default=2000)
    args = parser.parse_args()
    home = ROOT / ".incremind"
    port = free_port()
    env = daemon_env(home, INCREMIND_MCP__PORT=str(port), INCREMIND_EMBEDDING__BACKEND="none")
    log_path = ROOT / "daemon.log"
    daemon = start_daemon(env, log_path)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _healthy(url), 60, "the daemon's /health")
        idle_rss = proc_status_kb(daemon.pid, "VmRSS") / 1024
        samples: list[tuple[float, float]] = []
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(1.0):
                samples.append((proc_status_kb(daemon.pid, "VmRSS") / 1024, cpu_seconds(daemon.pid)))

        sampler = threading.Thread(target=sample, daemon=True)
        cpu_before, started = cpu_seconds(daemon.pid), time.monotonic()
        sampler.start()
        backlog = drop_backlog(home / "inbox", args.files)
        latencies: list[float] = []
        errors: list[str] = []

        async def clients() -> None:
            until = time.monotonic() + args.seconds
            async with anyio.create_task_group() as group:
                for number in range(args.clients):
                    group.start_soon(one_client, f"{url}/mcp", number, until, latencies, errors)

        anyio.run(clients)
        load_seconds = time.monotonic() - started
        cpu_load = cpu_seconds(daemon.pid) - cpu_before
        left = len(list((home / "inbox").glob("*.md")))
        wait_for(lambda: not list((home / "inbox").glob("*.md")), 1800, "the backlog to be taken in")
        backlog_seconds = time.monotonic() - started
        time.sleep(10)  # let the worker's background steps settle
        stop.set()
        check_alive(daemon, log_path)
        after_rss = proc_status_kb(daemon.pid, "VmRSS") / 1024
        rss = [r for r, _ in samples]
        print(machine_line())
        print(f"backlog: {args.files:,} files, {backlog / 1e6:.1f} MB; {left:,} still in the inbox when the load ended")
        print(f"load: {args.clients} MCP clients over HTTP for {load_seconds:.0f} s")
        print(f"  requests served {len(latencies):,}, errors {len(errors)}, {len(latencies) / load_seconds:.1f}/s")
        print(f"  search_memory p50 {percentile(latencies, 50):.1f} ms, p95 {percentile(latencies, 95):.1f} ms")
        print(f"  daemon CPU during the load {100 * cpu_load / load_seconds:.0f} % of one core")
        mean_rss = sum(rss) / len(rss)
        print(f"  daemon RSS idle {idle_rss:.0f} MB, during the run max {max(rss):.0f} MB, mean {mean_rss:.0f} MB")
        print(f"backlog taken in after {backlog_seconds:.0f} s; RSS 10 s later {after_rss:.0f} MB")
        for error in errors[:5]:
            print(f"  error: {error}")
    finally:
        print(f"daemon exit code {stop_daemon(daemon)}")


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


if __name__ == "__main__":
    main()
