"""The MCP server and agent registration: mcp, setup AGENT."""

from __future__ import annotations

import argparse
import functools
import io
import logging
import os
import shlex
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from incremind_daemon.cli.base import Commands, command
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.errors import ConfigError, IncremindError
from incremind_daemon.locate import DEFAULT_HOME
from incremind_daemon.names import AGENTS

if TYPE_CHECKING:
    import apsw

    from incremind_daemon.serve import agent_setup
    from incremind_daemon.serve.mcp_tools import MemoryTools
    from incremind_daemon.store.embedder import Embedder
    from incremind_daemon.store.records import SaveRequest, SaveResult

log = logging.getLogger(__name__)

HOOK = "the incremind SessionStart hook"


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
        "register the memory tools and the session-start hook with a coding agent (or remove them with --undo)",
        "incremind setup gemini",
    )
    setup.add_argument("agent", choices=AGENTS, help="the agent to set up")
    how = setup.add_mutually_exclusive_group()
    how.add_argument(
        "--http", action="store_true", help="use the daemon's HTTP endpoint (default when the daemon runs)"
    )
    how.add_argument("--stdio", action="store_true", help="let the agent start `incremind mcp` (default otherwise)")
    setup.add_argument("--print", action="store_true", help="show the entries instead of writing them")
    setup.add_argument(
        "--no-hook",
        action="store_true",
        help="leave out the SessionStart hook that gives each session its project's memory",
    )
    setup.add_argument("--undo", action="store_true", help="remove the entries again (with --no-hook: the tools only)")


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """Serve the MCP tools on stdin/stdout until the agent closes the pipe.

    Nothing but protocol messages goes to stdout; logs go to stderr. The
    front (``serve.mcp_front``) answers the opening and the tool list at once;
    the MCP SDK and the store load behind it, for the first call.
    """
    from incremind_daemon.serve.mcp_front import StdioFront, claim_wire, load_listing

    wire_in, wire_out = claim_wire()
    front = StdioFront(
        load_listing(), review=settings.mcp.allow_review, out=wire_out, backend=functools.partial(serve_sdk, settings)
    )
    if front.run(wire_in):  # the SDK is still loading and nothing is owed: no reason to keep the agent waiting
        sys.stderr.flush()
        os._exit(0)
    return 0


def serve_sdk(settings: Settings, inbound: BinaryIO, outbound: BinaryIO) -> None:
    """Serve the memory tools with the MCP SDK to one session on these streams, until inbound ends."""
    from incremind_daemon.embedding.configured import make_embedder
    from incremind_daemon.pipeline.redact import redact
    from incremind_daemon.private import make_private_folders
    from incremind_daemon.serve.context.writer import render_recent_context
    from incremind_daemon.serve.mcp_tools import MemoryBackend, MemoryTools
    from incremind_daemon.store.bitindex import keep_bit_indexes
    from incremind_daemon.store.db import connect

    make_private_folders(settings.home_dir)
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
    # jieba's words and the query embedder take time to load: with no daemon to answer, they load
    # from the start, beside the MCP SDK's import, so that the first search waits least
    threading.Thread(target=_warm_up, args=(tools,), name="incremind-mcp-warm-up", daemon=True).start()
    import anyio
    from mcp.server.stdio import stdio_server

    from incremind_daemon.serve.mcp_server import build_mcp_server

    server = build_mcp_server(settings, tools, transport="stdio")

    async def serve(reading: io.TextIOWrapper, writing: io.TextIOWrapper) -> None:
        async with stdio_server(anyio.wrap_file(reading), anyio.wrap_file(writing)) as (read_stream, write_stream):
            lowlevel = server._lowlevel_server  # MCPServer.run_stdio_async, on the front's pipes
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    try:
        with (
            io.TextIOWrapper(inbound, encoding="utf-8", errors="replace") as reading,
            io.TextIOWrapper(outbound, encoding="utf-8", write_through=True) as writing,
        ):
            anyio.run(serve, reading, writing)
    finally:
        tools.close()
        write_conn.close()


def _warm_up(tools: MemoryTools) -> None:
    from incremind_daemon.store.tokenizer import ready_segmenter

    try:
        tools.warm_up()  # every search by meaning needs the model; only text with Chinese in it needs jieba
        ready_segmenter(keep_counts=True)  # a session's queries are short: the counts file answers them
    except Exception:  # a warm-up is an optimisation; the first call loads whatever is missing
        log.warning("warming up the MCP server failed", exc_info=True)


EMBED_BATCHES_AFTER_SAVE = 4  # a saved note's passage, summary and candidate, and some of what waited before


def _serialized_save(
    conn: apsw.Connection, settings: Settings, embedder: Callable[[], Embedder | None]
) -> Callable[[SaveRequest], SaveResult]:
    """Return a save that runs one at a time on this process's write connection.

    Another process (the daemon) may write at the same time; WAL and the busy
    timeout let the two take turns, one short transaction each. With no
    daemon to embed what is saved, this process embeds it after answering
    (``_embed_after_save``), so the note is found by meaning too.
    """
    lock = threading.Lock()
    embedding = threading.Lock()  # one embedding pass at a time; a save meanwhile is picked up by it

    def save(request: SaveRequest) -> SaveResult:
        # the insight step's modules load on the first save, not while the agent waits to connect
        from incremind_daemon.pipeline.insights import save_memory

        with lock:
            result = save_memory(conn, settings, request, embedder=embedder())
        if embedding.acquire(blocking=False):
            threading.Thread(
                target=_embed_after_save,
                args=(conn, settings, embedder, lock, embedding),
                name="incremind-mcp-embed",
                daemon=True,
            ).start()
        return result

    return save


def _embed_after_save(
    conn: apsw.Connection,
    settings: Settings,
    embedder: Callable[[], Embedder | None],
    lock: threading.Lock,
    embedding: threading.Lock,
) -> None:
    """Embed what waits for vectors, a few batches, each batch in turn with saves on the one connection."""
    from incremind_daemon.embedding.configured import may_embed_project
    from incremind_daemon.pipeline.steps import StepState, embed_batch
    from incremind_daemon.sources.extract import extract_bytes

    try:
        model = embedder()
        if model is None:
            return
        allowed = functools.partial(may_embed_project, settings)  # private text stays off remote endpoints
        state = StepState(settings, extract_bytes, embedder=model, may_embed=allowed, actor="mcp")
        for _ in range(EMBED_BATCHES_AFTER_SAVE):
            with lock:
                if not embed_batch(conn, state):
                    break
    except Exception:  # the note is saved; the daemon or the next save embeds it
        log.warning("embedding after a save failed", exc_info=True)
    finally:
        embedding.release()


def cmd_setup(args: argparse.Namespace, settings: Settings) -> int:
    """Register the memory tools and the SessionStart hook in an agent's own config, or remove them."""
    from incremind_daemon.serve import agent_hooks, agent_setup
    from incremind_daemon.serve.status import running_pid

    agent: str = args.agent
    if args.undo:
        result = agent_setup.unregister_server(agent, settings)
        print(agent_setup.describe(result))
        if not args.no_hook:
            hook = agent_hooks.remove_session_hook(
                agent, settings, backup=not _rewrote_hook_file(result, agent, settings)
            )
            print(agent_setup.describe(hook, HOOK))
        return 0
    use_http = args.http or (not args.stdio and running_pid(settings) is not None)
    if args.print:
        registration = (
            agent_setup.http_registration(settings, agent_setup.TOKEN_PLACEHOLDER)
            if use_http
            else agent_setup.stdio_registration(settings)
        )
        print(agent_setup.snippet(agent, registration, show_token=show_token_command(settings)), end="")
        if not args.no_hook:
            print(f"\nSessionStart hook, in {agent_hooks.hook_path(agent, settings)}:")
            print(agent_hooks.hook_snippet(agent, settings), end="")
        return 0
    registration = http_setup(settings, agent) if use_http else agent_setup.stdio_registration(settings)
    result = agent_setup.register_server(agent, registration, settings)
    print(agent_setup.describe(result))
    if not args.no_hook:
        hook = agent_hooks.add_session_hook(agent, settings, backup=not _rewrote_hook_file(result, agent, settings))
        print(agent_setup.describe(hook, HOOK))
        _print_hook_notes(agent, settings)
    if agent == "gemini":
        from incremind_daemon.serve.gemini_trust import gemini_trust

        notice = gemini_trust(agent_setup.agent_home(agent, settings)).notice()
        if notice:
            print(f"note: {notice}", file=sys.stderr)
    if use_http and not args.http:
        print("transport: HTTP (the daemon is running); it must be running whenever the agent is", file=sys.stderr)
    elif use_http and running_pid(settings) is None:
        print("note: the daemon is not running; start it (incremind run) before opening the agent", file=sys.stderr)
    elif not use_http:
        print("transport: stdio (the agent starts `incremind mcp` itself)", file=sys.stderr)
    return 0


def http_setup(settings: Settings, agent: str) -> agent_setup.Registration:
    """Return the HTTP registration with this home's token, once sure no stranger answers on the port.

    The token is made here if the home has none yet. Whatever answers on the
    port is asked, with that token, which home it serves: another home's
    daemon (or anything that refuses the token) would get the agent's calls.
    """
    from incremind_daemon.serve import agent_setup
    from incremind_daemon.serve.mcp_auth import endpoint_token
    from incremind_daemon.serve.mcp_probe import probe_endpoint

    try:
        token = endpoint_token(settings, create=True)
    except ConfigError as exc:
        if settings.mcp.token_env is None:
            raise
        # the agent reads the variable from its own environment; only the question below needs it here
        print(f"note: {exc}; the daemon on the port was not asked which home it serves", file=sys.stderr)
        return agent_setup.http_registration(settings, None)
    registration = agent_setup.http_registration(settings, token)
    assert registration.url is not None
    probe = probe_endpoint(registration.url, token, settings.home_dir)
    if probe.verdict not in ("ours", "unreachable"):
        raise IncremindError(f"{probe.explain()}; the agent was not set up. Fix: {probe.fix(agent)}")
    return registration


def show_token_command(settings: Settings) -> str:
    """Return the command that prints this home's token."""
    if settings.home_dir == DEFAULT_HOME.expanduser():
        return "incremind token show"
    return f"incremind token show --home {shlex.quote(str(settings.home_dir))}"


def _rewrote_hook_file(result: agent_setup.SetupResult, agent: str, settings: Settings) -> bool:
    """Tell whether the server edit just rewrote the hook's file (Gemini: one file for both).

    Then the backup it kept (or the absence of one, for a new file) stays the file before setup.
    """
    from incremind_daemon.serve import agent_hooks

    return result.action in ("added", "updated", "removed") and result.path == agent_hooks.hook_path(agent, settings)


def _print_hook_notes(agent: str, settings: Settings) -> None:
    """Say what the agent itself still needs before the hook runs."""
    from incremind_daemon.serve import agent_hooks

    off = agent_hooks.hooks_turned_off(agent, settings)
    if off:
        print(f"note: {off}; until hooks are on, {agent} gets only the global memory block", file=sys.stderr)
    if not agent_hooks.is_hook_trusted(agent, settings):
        print(
            "note: Codex runs a new hook only once you approve it: start codex and approve the incremind hook "
            "when it says a hook needs review (or in /hooks)",
            file=sys.stderr,
        )
    if agent == "gemini":
        print("note: Gemini CLI runs hooks only in folders you trust", file=sys.stderr)


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
