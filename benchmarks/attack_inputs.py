"""Oversize inputs through the MCP tools: a 450 KB and a 300 KB query, a 10 MB save.

Run from the repository root:

    PYTHONPATH=. python benchmarks/attack_inputs.py [--documents 40] [--backend use-m3]

A fresh temporary home takes in a few generated documents and embeds them
with the default model, so search_memory runs hybrid and embeds its query, as
the daemon's does. Each input then goes through the SDK's own client to the
MCP server in this process (the tools layer that the daemon and `incremind
mcp` serve); saves run the insight step on one write connection, as
`incremind mcp` does. Printed per input: the outcome, the wall time and the
process's peak RSS during the call (VmHWM, reset before each call). Before
the inputs were bounded (issue 17), the 450 KB query took the daemon from
505 MB to 2,389 MB, the 300 KB query ran 427 s and the 10 MB save did not
finish in 15 minutes. The figures are printed, never asserted.
"""

from __future__ import annotations

from benchmarks.isolation import isolate_home

BENCH_ROOT = isolate_home("incremind-bench-attack-")  # before incremind_daemon is imported

import argparse  # noqa: E402
import functools  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any  # noqa: E402

import anyio  # noqa: E402
from mcp import Client  # noqa: E402

from benchmarks.corpus import corpus_text, distinct_words, generate_documents  # noqa: E402
from benchmarks.figures import machine_line, progress  # noqa: E402
from benchmarks.processes import proc_status_kb  # noqa: E402
from incremind_daemon.config import Settings, load_settings  # noqa: E402
from incremind_daemon.embedding.configured import make_embedder  # noqa: E402
from incremind_daemon.pipeline.insights import save_memory  # noqa: E402
from incremind_daemon.pipeline.steps import (  # noqa: E402
    StepState,
    embed_pending,
    examine_pending,
    ingest_item,
    open_writer,
)
from incremind_daemon.pipeline.work import IngestFile  # noqa: E402
from incremind_daemon.serve.mcp_server import build_mcp_server  # noqa: E402
from incremind_daemon.serve.mcp_tools import MemoryBackend, MemoryTools  # noqa: E402
from incremind_daemon.sources.extract import extract_bytes  # noqa: E402
from incremind_daemon.store.db import connect  # noqa: E402
from incremind_daemon.store.records import SaveRequest, SaveResult  # noqa: E402

PROJECT = "bench"
KB = 1_000


@dataclass(frozen=True, slots=True)
class Attack:
    name: str
    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Outcome:
    attack: Attack
    outcome: str
    seconds: float
    peak_mb: float


def build_store(settings: Settings, documents: list[str]) -> None:
    """Take the documents in, examine them and embed them, as `incremind ingest` does."""
    folder = BENCH_ROOT / "documents"
    folder.mkdir()
    state = StepState(settings, extract_bytes, embedder=make_embedder(settings), actor="bench")
    with open_writer(state) as conn:
        for number, text in enumerate(documents):
            path = folder / f"{number:03d}.md"
            path.write_text(text, encoding="utf-8")
            ingest_item(conn, state, IngestFile(path, PROJECT))
        examine_pending(conn, state)
        embed_pending(conn, state)


def reset_peak() -> bool:
    """Reset this process's VmHWM to its current RSS (Linux); False when the kernel does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def rss_mb(key: str) -> float:
    return proc_status_kb(os.getpid(), key) / 1024


def describe(result: Any) -> str:
    """Say what a tool call came back with, in one line."""
    if result.is_error:
        text = " ".join(getattr(block, "text", "") for block in result.content)
        return "refused: " + text.removeprefix("Error executing tool ")
    content = result.structured_content or {}
    if "results" in content:
        cut = content.get("cut") or "not cut"
        return f"{len(content['results'])} results ({content['mode']}); {cut}"
    return f"saved: {content.get('message', content)}"


async def run_attacks(tools: MemoryTools, settings: Settings, attacks: list[Attack]) -> tuple[float, list[Outcome]]:
    """Call each attack's tool in one client session; return the RSS once warmed up, and the outcomes."""
    server = build_mcp_server(settings, tools, transport="stdio")
    outcomes: list[Outcome] = []
    async with Client(server) as client:
        await client.call_tool("search_memory", {"query": "warm up 端口"})  # loads jieba and the query embedder
        warm = rss_mb("VmRSS")
        for attack in attacks:
            progress(f"{attack.name} …")
            exact = reset_peak()
            started = time.perf_counter()
            result = await client.call_tool(attack.tool, attack.arguments)
            seconds = time.perf_counter() - started
            peak = rss_mb("VmHWM") if exact else float("nan")
            outcomes.append(Outcome(attack, describe(result), seconds, peak))
    return warm, outcomes


def serialized_save(settings: Settings, embedder: Any) -> Any:
    """Return a save that runs on one write connection, one at a time, as `incremind mcp` does."""
    conn = connect(settings.database_path)
    lock = threading.Lock()

    def save(request: SaveRequest) -> SaveResult:
        with lock:
            return save_memory(conn, settings, request, embedder=embedder())

    return save


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--documents", type=int, default=40, help="generated notes in the fresh store")
    parser.add_argument("--backend", default="use-m3", choices=("use-m3", "none"), help="embedding backend")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)  # before the SDK's own basicConfig(INFO) in MCPServer()

    settings = load_settings(embedding={"backend": args.backend})
    documents = [d.text for d in generate_documents(args.documents)]
    started = time.perf_counter()
    build_store(settings, documents)
    progress(f"store: {args.documents} notes taken in and embedded in {time.perf_counter() - started:.0f} s")

    embedder = functools.cache(lambda: make_embedder(settings))
    backend = MemoryBackend(
        open_conn=lambda: connect(settings.database_path),
        save=serialized_save(settings, embedder),
        recent_context=lambda _project: "",
        embedder=embedder,
    )
    attacks = [
        Attack("a 20-character query", "search_memory", {"query": "端口 配置 timeout"}),
        Attack("a 450 KB query", "search_memory", {"query": corpus_text(450 * KB, documents)}),
        Attack("a 300 KB query of distinct words", "search_memory", {"query": distinct_words(300 * KB, "端口")}),
        Attack("a 10 MB save", "save_memory", {"text": corpus_text(10_000 * KB, documents), "project": PROJECT}),
        Attack("a 200 KB save (the largest taken)", "save_memory", {"text": corpus_text(200 * KB, documents)}),
    ]
    tools = MemoryTools(settings, backend)
    try:
        warm, outcomes = anyio.run(run_attacks, tools, settings, attacks)
    finally:
        tools.close()

    print(f"Oversize inputs through the MCP tools ({machine_line()})")
    print(f"fresh store of {args.documents} notes, embedding backend {args.backend}; RSS once warm: {warm:.0f} MB")
    print(f"{'input':<36} {'wall':>9} {'peak RSS':>10}  outcome")
    for found in outcomes:
        outcome = found.outcome if len(found.outcome) <= 160 else found.outcome[:159] + "…"
        print(f"{found.attack.name:<36} {found.seconds:8.2f}s {found.peak_mb:7.0f} MB  {outcome}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
