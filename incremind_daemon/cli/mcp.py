"""The MCP server and agent registration: mcp, setup AGENT."""

from __future__ import annotations

import argparse
import functools
import logging
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import apsw

from incremind_daemon.cli.base import Commands, command
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.embedding import make_embedder
from incremind_daemon.errors import IncremindError
from incremind_daemon.pipeline.redact import redact
from incremind_daemon.serve import agent_setup
from incremind_daemon.serve.context.writer import render_recent_context
from incremind_daemon.serve.mcp_server import build_mcp_server
from incremind_daemon.serve.mcp_tools import MemoryBackend, MemoryTools
from incremind_daemon.serve.status import running_pid
from incremind_daemon.store.bitindex import keep_bit_indexes
from incremind_daemon.store.db import connect
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.records import SaveRequest, SaveResult
from incremind_daemon.store.tokenizer import ensure_segmenter

log = logging.getLogger(__name__)


def register(commands: Commands, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    """Add this topic's subcommands."""
    command(
        commands,
        common,
        "mcp",
        cmd_mcp,
        "serve the memory tools over stdio (agents start this themselves)",
        "incremind mcp",
    )
    setup = command(
        commands,
        common,
        "setup",
        cmd_setup,
        "register the memory tools with a coding agent (or remove them with --undo)",
        "incremind setup claude --hook",
    )
    setup.add_argument("agent", choices=agent_setup.AGENTS, help="the agent to register with")
    how = setup.add_mutually_exclusive_group()
    how.add_argument(
        "--http", action="store_true", help="use the daemon's HTTP endpoint (default when the daemon runs)"
    )
    how.add_argument("--stdio", action="store_true", help="let the agent start `incremind mcp` (default otherwise)")
    setup.add_argument("--print", action="store_true", help="show the entry instead of writing it")
    setup.add_argument("--hook", action="store_true", help="claude: also preload memory with a SessionStart hook")
    setup.add_argument("--undo", action="store_true", help="remove the entry (and the hook) again")


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """Serve the MCP tools on stdin/stdout until the agent closes the pipe.

    Nothing but protocol messages goes to stdout; logs go to stderr.
    """
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    keep_bit_indexes()  # a session searches many times: scan sign bits in memory
    embedder = functools.cache(lambda: make_embedder(settings))
    write_conn = connect(settings.database_path)  # migrates the schema before any reader opens it
    backend = MemoryBackend(
        open_conn=lambda: connect(settings.database_path),
        save=_serialized_save(write_conn, settings, embedder),
        recent_context=functools.partial(render_recent_context, settings, scrub=redact),
        embedder=embedder,
    )
    tools = MemoryTools(settings, backend)
    # jieba's dictionary and the query embedder take seconds to load: load them once the agent is
    # connected (loading during the handshake held its answer up by one to two seconds), well
    # before a session's first search in practice
    warm_up = threading.Thread(target=_warm_up, args=(tools,), name="incremind-mcp-warm-up", daemon=True)
    server = build_mcp_server(settings, tools, transport="stdio", after_handshake=warm_up.start)
    try:
        server.run("stdio")
    finally:
        tools.close()
        write_conn.close()
    return 0


def _warm_up(tools: MemoryTools) -> None:
    try:
        ensure_segmenter()
        tools.warm_up()
    except Exception:  # a warm-up is an optimisation; the first call loads whatever is missing
        log.warning("warming up the MCP server failed", exc_info=True)


def _serialized_save(
    conn: apsw.Connection, settings: Settings, embedder: Callable[[], Embedder | None]
) -> Callable[[SaveRequest], SaveResult]:
    """Return a save that runs one at a time on this process's write connection.

    Another process (the daemon) may write at the same time; WAL and the busy
    timeout let the two take turns, one short transaction each.
    """
    lock = threading.Lock()

    def save(request: SaveRequest) -> SaveResult:
        # the insight step's modules load on the first save, not while the agent waits to connect
        from incremind_daemon.pipeline.insights import save_memory

        with lock:
            return save_memory(conn, settings, request, embedder=embedder())

    return save


def cmd_setup(args: argparse.Namespace, settings: Settings) -> int:
    """Register the memory tools in an agent's own config file, or remove them."""
    agent: str = args.agent
    if args.hook and agent != "claude":
        raise IncremindError("--hook is for Claude Code only (incremind setup claude --hook)")
    if args.undo:
        results = [agent_setup.unregister_server(agent, settings)]
        if agent == "claude":
            hook = agent_setup.remove_session_hook(settings)
            print(agent_setup.describe(hook, "the SessionStart hook"))
        print(agent_setup.describe(results[0]))
        return 0
    use_http = args.http or (not args.stdio and running_pid(settings) is not None)
    registration = agent_setup.http_registration(settings) if use_http else agent_setup.stdio_registration(settings)
    if args.print:
        print(agent_setup.snippet(agent, registration), end="")
        if args.hook:
            print(f"\nSessionStart hook for {agent_setup.claude_settings_path(settings)}:")
            print(f"  {agent_setup.hook_command()}")
        return 0
    result = agent_setup.register_server(agent, registration, settings)
    print(agent_setup.describe(result))
    if args.hook:
        print(agent_setup.describe(agent_setup.add_session_hook(settings), "the SessionStart hook"))
    if use_http and not args.http:
        print("transport: HTTP (the daemon is running); it must be running whenever the agent is", file=sys.stderr)
    elif use_http and running_pid(settings) is None:
        print("note: the daemon is not running; start it (incremind run) before opening the agent", file=sys.stderr)
    elif not use_http:
        print("transport: stdio (the agent starts `incremind mcp` itself)", file=sys.stderr)
    return 0


def serve_stdio(argv: list[str]) -> int:
    """Run `incremind mcp [--home H] [--config C]` without loading the rest of the command line.

    An agent launches this at the start of every session; what it does not
    import, it does not wait for.
    """
    parser = argparse.ArgumentParser(prog="incremind mcp", description="Serve the MCP tools over stdio.")
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--config", type=Path, default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = load_settings(args.config, home=args.home)
        return cmd_mcp(args, settings)
    except IncremindError as exc:
        print(f"incremind: {exc}", file=sys.stderr)
        return 1
