"""Benchmark the MCP endpoint: search_memory round trips over HTTP, and the stdio server's start.

Run from the repository root:

    PYTHONPATH=. python benchmarks/mcp_load.py [--passages 100000] [--rounds 2]

A fresh temporary home holds a keyword-only store of N passages (built
through the store functions, 20 passages per source, as the search
benchmarks do). The HTTP server runs in this process on 127.0.0.1:0; each
client is the SDK's own client in its own session. Figures are printed.
"""

from __future__ import annotations

import sys

from benchmarks.isolation import isolate_home

BENCH_ROOT = isolate_home("incremind-bench-mcp-")  # before incremind_daemon is imported

import argparse  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402

import anyio  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402

from benchmarks.corpus import build_queries  # noqa: E402
from benchmarks.figures import percentile  # noqa: E402
from benchmarks.processes import REPO  # noqa: E402
from benchmarks.search_db import build_search_db  # noqa: E402
from incremind_daemon.config import load_settings  # noqa: E402
from incremind_daemon.serve.mcp_auth import read_home_token  # noqa: E402
from incremind_daemon.serve.mcp_http import McpHttpServer  # noqa: E402
from incremind_daemon.serve.mcp_tools import MemoryBackend  # noqa: E402
from incremind_daemon.store.db import connect  # noqa: E402
from incremind_daemon.store.records import SaveRequest, SaveResult  # noqa: E402
from incremind_daemon.store.tokenizer import ensure_segmenter  # noqa: E402


def refuse_save(request: SaveRequest) -> SaveResult:
    raise RuntimeError("the benchmark does not save")


async def client_loop(url: str, token: str, queries: list[str], timings: list[float]) -> None:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})  # as a registered agent sends it
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        for query in queries:
            started = time.perf_counter()
            result = await client.call_tool("search_memory", {"query": query, "limit": 10})
            timings.append(time.perf_counter() - started)
            if result.is_error:
                raise RuntimeError(f"search_memory failed: {result.content}")


def bench_http(url: str, token: str, queries: list[str], clients: int, rounds: int) -> tuple[list[float], float]:
    timings: list[float] = []

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for number in range(clients):
                rotated = queries[number:] + queries[:number]
                group.start_soon(client_loop, url, token, rotated * rounds, timings)

    started = time.perf_counter()
    anyio.run(main)
    return timings, time.perf_counter() - started


def bench_stdio_start(query: str, repeats: int) -> tuple[list[float], list[float]]:
    """Start `incremind mcp` as an agent does; return seconds to connected and to the first answer."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "incremind_daemon", "mcp"],
        env=dict(os.environ, PYTHONPATH=str(REPO), INCREMIND_EMBEDDING__BACKEND="none"),
    )
    connected: list[float] = []
    starts: list[float] = []

    async def once() -> None:
        started = time.perf_counter()
        async with Client(params, mode="legacy") as client:
            connected.append(time.perf_counter() - started)
            result = await client.call_tool("search_memory", {"query": query})
            starts.append(time.perf_counter() - started)
            if result.is_error:
                raise RuntimeError(f"search_memory failed: {result.content}")

    for _ in range(repeats):
        anyio.run(once)
    return connected, starts


def line(name: str, timings: list[float], wall: float | None = None) -> str:
    ms = sorted(t * 1000 for t in timings)
    text = f"{name:<34} n={len(ms):>5}  p50 {percentile(ms, 50):7.1f} ms  p95 {percentile(ms, 95):7.1f} ms"
    if wall is not None:
        text += f"  ({len(ms) / wall:6.1f} calls/s)"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--passages", type=int, default=100_000, help="passages in the store")
    parser.add_argument("--rounds", type=int, default=2, help="passes over the query set per client")
    parser.add_argument("--stdio-repeats", type=int, default=3, help="stdio starts to time")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)  # before the SDK's own basicConfig(INFO) in MCPServer()

    settings = load_settings(mcp={"port": 0}, embedding={"backend": "none"})
    seconds = build_search_db(settings.database_path, args.passages)
    print(f"store: {args.passages:,} passages built in {seconds:.0f} s at {settings.home_dir}", file=sys.stderr)
    queries = [q.text for q in build_queries()]
    ensure_segmenter()
    backend = MemoryBackend(
        open_conn=lambda: connect(settings.database_path), save=refuse_save, recent_context=lambda project: ""
    )
    server = McpHttpServer(settings, backend)
    server.start()
    try:
        token = read_home_token(settings.home_dir) or ""
        bench_http(server.url, token, queries[:5], 1, 1)  # warm the page cache and the pool
        one, wall_one = bench_http(server.url, token, queries, 1, args.rounds)
        ten, wall_ten = bench_http(server.url, token, queries, 10, args.rounds)
    finally:
        server.stop()
    connected, starts = bench_stdio_start(queries[0], args.stdio_repeats)
    print(f"MCP search_memory over HTTP, {args.passages:,} passages, keyword mode, {len(queries)} queries")
    print(line("HTTP, 1 client", one, wall_one))
    print(line("HTTP, 10 concurrent clients", ten, wall_ten))
    print(line("stdio start to connected", connected))
    print(line("stdio start to first answer", starts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
