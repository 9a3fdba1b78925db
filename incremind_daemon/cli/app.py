"""The `incremind` command: parse, call one function, print, return an exit code."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from incremind_daemon import __version__
from incremind_daemon.cli import context, mcp, model, ops, review, runtime, status, token
from incremind_daemon.cli.base import command, project_arg
from incremind_daemon.config import Settings, example_config, load_settings
from incremind_daemon.errors import ConfigError, DaemonNotRunning, IncremindError, NotFound
from incremind_daemon.locate import config_path
from incremind_daemon.names import AGENTS
from incremind_daemon.store.records import INSIGHT_STATUSES, MODES, TIERS, Hit, row_number

if TYPE_CHECKING:
    import apsw

    from incremind_daemon.ops.backfill import Progress
    from incremind_daemon.pipeline.work import IngestFile, Outcome
    from incremind_daemon.store import sessions
    from incremind_daemon.store.embedder import Embedder


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every subcommand."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--home", type=Path, default=argparse.SUPPRESS, help="memory home (default: $INCREMIND_HOME or ~/.incremind)"
    )
    common.add_argument(
        "--config",
        type=Path,
        default=argparse.SUPPRESS,
        help="config file (default: $INCREMIND_CONFIG or <home>/config.json)",
    )
    parser = argparse.ArgumentParser(
        prog="incremind",
        parents=[common],
        description="Long-term memory for you and your coding agents.",
    )
    parser.add_argument("--version", action="version", version=f"incremind {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    command(commands, common, "run", cmd_run, "run the daemon in the foreground", "incremind run")
    command(
        commands,
        common,
        "init",
        cmd_init,
        "create the home, the inbox and a commented config",
        "incremind init --home ~/notes-memory",
    )

    ingest = command(
        commands,
        common,
        "ingest",
        cmd_ingest,
        "take files or folders in now and wait",
        "incremind ingest ~/Downloads/paper.pdf notes/ --project thesis",
    )
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders (recursive)")
    ingest.add_argument("--project", type=project_arg, help="the project the material belongs to")
    ingest.add_argument("--json", action="store_true", help="print machine-readable JSON")

    find = command(
        commands,
        common,
        "search",
        cmd_search,
        "find passages, summaries and insights by words and by meaning",
        'incremind search "端口 配置" --project api --json',
    )
    find.add_argument(
        "query", nargs="+", help="words to look for, in any language, quoted or not; never parsed as syntax"
    )
    find.add_argument("--project", type=project_arg, help="only this project")
    find.add_argument("--tier", choices=TIERS, help="only this tier")
    find.add_argument(
        "--status",
        choices=INSIGHT_STATUSES,
        default="confirmed",
        help="insights of this status (default confirmed; superseded finds decisions since replaced);"
        " any other status searches insights only",
    )
    find.add_argument("--limit", type=int, help="at most this many results")
    find.add_argument(
        "--mode", choices=MODES, help="keyword, vector or hybrid (default: hybrid when vectors exist, else keyword)"
    )
    find.add_argument("--json", action="store_true", help="print a JSON array")

    show = command(
        commands,
        common,
        "show",
        cmd_show,
        "print one item, or a session, and where it came from",
        "incremind show pas-12",
    )
    show.add_argument("id", help="an id from search results (src-N, msg-N, pas-N, sum-N) or an agent's session id")
    show.add_argument("--json", action="store_true", help="print machine-readable JSON")

    listing = command(
        commands, common, "sessions", cmd_sessions, "list recent agent sessions", "incremind sessions --project api"
    )
    listing.add_argument("--project", type=project_arg, help="only this project")
    listing.add_argument("--limit", type=int, default=20, help="at most this many sessions (default 20)")
    listing.add_argument("--json", action="store_true", help="print a JSON array")

    backfill = command(
        commands,
        common,
        "backfill",
        cmd_backfill,
        "take in the agents' existing session history",
        "incremind backfill --since 2026-11-01",
    )
    backfill.add_argument("--agent", choices=AGENTS, help="only this agent's transcripts")
    backfill.add_argument(
        "--since",
        type=date.fromisoformat,
        metavar="DATE",
        help="only transcripts changed on or after this day (YYYY-MM-DD)",
    )
    backfill.add_argument(
        "--dry-run",
        action="store_true",
        help="print what would be read (files, messages, characters) and store nothing",
    )
    backfill.add_argument(
        "--with-model",
        action="store_true",
        help="let the configured chat model find candidate insights (default: local rules, no model calls)",
    )
    backfill.add_argument("--json", action="store_true", help="print the totals as JSON")

    model.register(commands, common)

    for topic in (status, review, context, mcp, token, ops):
        topic.register(commands, common)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    from incremind_daemon.ops.logs import log_path

    args = build_parser().parse_args(argv)
    try:
        settings = load_settings(getattr(args, "config", None), home=getattr(args, "home", None))
    except ConfigError as exc:
        if args.command != "doctor":
            return _fail(exc, bool(getattr(args, "json", False)), 1)
        from incremind_daemon.ops.doctor import settings_despite

        # doctor runs every check it can on the defaults; the config check fails with this error
        settings = settings_despite(getattr(args, "home", None))
        args.config_error = exc
    daemon = args.command == "run"
    configure_logging(verbose=daemon, log_file=log_path(settings) if daemon else None)
    return run_command(args, settings)


def run_command(args: argparse.Namespace, settings: Settings) -> int:
    """Call the parsed command's handler; an error becomes its one-line message and exit code."""
    wants_json = bool(getattr(args, "json", False))
    try:
        code: int = args.handler(args, settings)
        return code
    except DaemonNotRunning as exc:
        return _fail(exc, wants_json, 3)
    except IncremindError as exc:
        return _fail(exc, wants_json, 1)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`incremind status | head`): no traceback, and none at exit either
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _fail(exc: Exception, wants_json: bool, code: int) -> int:
    if wants_json:
        print(json.dumps({"error": str(exc)}, ensure_ascii=False))
    else:
        print(f"incremind: {exc}", file=sys.stderr)
    return code


def configure_logging(*, verbose: bool, log_file: Path | None = None) -> None:
    """Send logs to stderr (progress for the daemon, only problems otherwise) and to the daemon's log file.

    Records are written once: when stderr already is the log file (a detached
    start), only the file handler writes.
    """
    from incremind_daemon.ops.logs import FORMAT as LOG_FORMAT
    from incremind_daemon.ops.logs import open_daemon_log

    if logging.getLogger().handlers:
        return  # configured already (an embedding program or a test runner)
    handlers: list[logging.Handler] = []
    to_file = open_daemon_log(log_file) if log_file is not None else None
    if to_file is not None:
        handlers.append(to_file)
    if to_file is None or not to_file.carries_stderr:
        handlers.append(logging.StreamHandler(sys.stderr))
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format=LOG_FORMAT, handlers=handlers)


def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    """Run the daemon until Ctrl-C or SIGTERM."""
    from incremind_daemon.daemon import run  # the daemon's servers load only for the daemon

    return run(settings, config_file=config_path(getattr(args, "config", None), settings.home_dir))


def cmd_init(args: argparse.Namespace, settings: Settings) -> int:
    """Create the home folder, the inbox, the endpoint's token and a commented config.json."""
    from incremind_daemon.daemon import prepare_home
    from incremind_daemon.private import write_private
    from incremind_daemon.serve.mcp_auth import ensure_home_token, read_home_token, token_path

    prepare_home(settings)
    if settings.mcp.token_env is None and read_home_token(settings.home_dir) is None:
        ensure_home_token(settings.home_dir)
        print(f"wrote {token_path(settings.home_dir)} (the token agents send to the daemon's HTTP endpoint)")
    config = settings.home_dir / "config.json"
    if config.exists():
        print(f"kept existing {config}")
    else:
        write_private(config, example_config().encode("utf-8"))
        print(f"wrote {config}")
    print(f"drop files into {settings.inbox_dir} (a sub-folder names the project)")
    return 0


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    """Take files in synchronously and report each outcome."""
    from incremind_daemon.pipeline.work import IngestFile
    from incremind_daemon.sources.inbox import project_for

    paths = [runtime.resolve(path) for path in args.paths]
    # a file under inbox/<project>/ belongs to that project, as when the daemon finds it there
    inbox = settings.inbox_dir.resolve()
    items: list[IngestFile] = [
        IngestFile(path, args.project or project_for(path.resolve(), inbox, settings.default_project))
        for path in _expand(paths)
    ]
    # inside the daemon its writer takes them in, in turn with its other work
    served = runtime.take_in([*items])
    if served is None:
        outcomes = _ingest_here(settings, items, quiet=args.json)
    else:
        outcomes = served
        if not args.json:
            for outcome in outcomes:
                print(_describe(outcome))
    if args.json:
        print(json.dumps([asdict(o) for o in outcomes], ensure_ascii=False, indent=2))
    else:
        counts = {s: sum(o.status == s for o in outcomes) for s in ("added", "duplicate", "failed")}
        print(f"{counts['added']} added, {counts['duplicate']} duplicate, {counts['failed']} failed")
    return 1 if any(o.status == "failed" for o in outcomes) else 0


def _ingest_here(settings: Settings, files: list[IngestFile], *, quiet: bool) -> list[Outcome]:
    """Be the writer: take the files in on this process's own connection, then examine and embed them."""
    from incremind_daemon.daemon import prepare_home
    from incremind_daemon.embedding.configured import make_embedder, may_embed_project
    from incremind_daemon.pipeline.steps import StepState, embed_pending, examine_pending, ingest_item, open_writer
    from incremind_daemon.serve.status import running_pid
    from incremind_daemon.sources.extract import extract_bytes
    from incremind_daemon.store.tokenizer import keep_loaded_counts

    prepare_home(settings)
    # a running daemon embeds in the background; without one, embed here once the files are in
    embedder = make_embedder(settings) if running_pid(settings) is None else None
    if not files:  # nothing to take in: the store is neither opened nor made
        return []
    state = StepState(
        settings,
        extract_bytes,
        embedder=embedder,
        may_embed=lambda name: may_embed_project(settings, name),
        actor="cli",
    )
    outcomes: list[Outcome] = []
    with open_writer(state) as conn:
        for item in files:
            outcome = ingest_item(conn, state, item)
            outcomes.append(outcome)
            if not quiet:
                print(_describe(outcome), flush=True)
        if any(o.status == "added" for o in outcomes):
            examine_pending(conn, state)  # increments show in `incremind pending` at once
            embed_pending(conn, state)
    keep_loaded_counts()  # the short commands after this one read the word counts, not the whole dictionary
    return outcomes


def _expand(paths: list[Path]) -> Iterator[Path]:
    from incremind_daemon.sources.extract import SUPPORTED_SUFFIXES

    for path in paths:
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not name.startswith(".") and Path(name).suffix.lower() in SUPPORTED_SUFFIXES:
                        yield Path(root) / name
        else:
            yield path


def _describe(outcome: Outcome) -> str:
    if outcome.status == "added":
        return f"added      {outcome.path} -> {outcome.source_id} ({outcome.passages} passages, {outcome.project})"
    if outcome.status == "duplicate":
        return f"duplicate  {outcome.path} (same as {outcome.source_id})"
    return f"{outcome.status:<10} {outcome.path}: {outcome.message}"


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    """Search memory and print the hits."""
    from incremind_daemon.cli.render import render_hits
    from incremind_daemon.store.db import connect
    from incremind_daemon.store.search import cut_query, search
    from incremind_daemon.store.tokenizer import keep_loaded_counts

    hits: list[Hit] = []
    answered = "keyword"
    query = " ".join(args.query)  # `incremind search which port do we use` asks as the quoted words would
    # a status other than the default asks after insights ("--status superseded": what was replaced)
    tier = args.tier or (None if args.status == "confirmed" else "insight")
    if settings.database_path.exists():
        conn = connect(settings.database_path, readonly=True)
        try:
            limit = args.limit if args.limit is not None else settings.search.limit
            embedder = _query_embedder(conn, settings, args.mode)
            hits = search(
                conn,
                query,
                home=settings.home_dir,
                project=args.project,
                tier=tier,
                limit=limit,
                mode=args.mode,
                embedder=embedder,
                insight_status=args.status,
            )
            answered = args.mode or ("hybrid" if embedder is not None else "keyword")
        finally:
            conn.close()
        if args.status == "confirmed":  # looking up history is no use of what it finds
            _count_use(settings, hits)
    if not args.json:
        print(f"mode: {answered}", file=sys.stderr)
    note = cut_query(query).note()
    if note is not None:
        print(f"incremind: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps([asdict(h) for h in hits], ensure_ascii=False, indent=2))
    else:
        print(render_hits(hits, color=sys.stdout.isatty()))
    sys.stdout.flush()  # the hits first; then, once, the word counts the next search reads instead of the dictionary
    keep_loaded_counts()
    return 0


def _count_use(settings: Settings, hits: list[Hit]) -> None:
    """Warm the insights a search returned (hotness decides what the preloaded context recalls)."""
    from incremind_daemon.store import clock, insights
    from incremind_daemon.store.db import connect

    used = [row_number(hit.id) for hit in hits if hit.tier == "insight"]
    if not used:
        return
    half_life, now = settings.insights.half_life_days, clock.stamp()
    if runtime.write_later(settings, lambda c: insights.try_record_use(c, used, half_life_days=half_life, now=now)):
        return  # the daemon's writer counts it; the answer does not wait
    conn = connect(settings.database_path)
    try:  # the daemon busy writing: this use goes uncounted, the answer stands
        insights.try_record_use(conn, used, half_life_days=half_life, now=now)
    finally:
        conn.close()


def _query_embedder(conn: apsw.Connection, settings: Settings, mode: str | None) -> Embedder | None:
    """Load the embedder only when its vectors exist and the mode wants them."""
    from incremind_daemon.store import vectors
    from incremind_daemon.store.embedder import for_model

    if mode == "keyword":
        return None
    model = vectors.active_model(conn)
    embedder = for_model(model.key, (runtime.query_embedder(settings), runtime.previous_embedder())) if model else None
    if embedder is None or model is None:
        if mode in ("vector", "hybrid"):
            raise IncremindError(
                f"no vectors yet for {mode} search (embedding.backend={settings.embedding.backend}); "
                "keep the daemon running to embed, or use --mode keyword"
            )
        return None
    return embedder


def cmd_show(args: argparse.Namespace, settings: Settings) -> int:
    """Print one item, or a session's conversation, and drill down to its original."""
    from incremind_daemon.cli.render import render_item, render_session
    from incremind_daemon.store import items, sessions
    from incremind_daemon.store.db import connect

    if not settings.database_path.exists():
        raise NotFound(f"no memory at {settings.home_dir} yet; nothing has been taken in")
    conn = connect(settings.database_path, readonly=True)
    try:
        session = sessions.find_session(conn, args.id) if len(args.id) >= 6 else None
        if session is not None:
            text, data = render_session(conn, session, home=settings.home_dir)
        else:
            kind, rowid = items.split_item_id(args.id)
            text, data = render_item(conn, kind, rowid, home=settings.home_dir)
    finally:
        conn.close()
    print(json.dumps(data, ensure_ascii=False, indent=2) if args.json else text)
    return 0


def cmd_sessions(args: argparse.Namespace, settings: Settings) -> int:
    """List recent agent sessions, newest first."""
    from incremind_daemon.cli.render import render_sessions
    from incremind_daemon.store import sessions
    from incremind_daemon.store.db import connect

    found: list[sessions.SessionRecord] = []
    if settings.database_path.exists():
        conn = connect(settings.database_path, readonly=True)
        try:
            found = sessions.list_sessions(conn, project=args.project, limit=args.limit)
        finally:
            conn.close()
    print(json.dumps([asdict(s) for s in found], ensure_ascii=False, indent=2) if args.json else render_sessions(found))
    return 0


def cmd_backfill(args: argparse.Namespace, settings: Settings) -> int:
    """Take in (or with --dry-run, count) the agents' existing transcripts."""
    from incremind_daemon.daemon import prepare_home
    from incremind_daemon.ops.backfill import plan_backfill, run_backfill
    from incremind_daemon.store.tokenizer import keep_loaded_counts

    prepare_home(settings)
    planned = plan_backfill(settings, agent=args.agent, since=args.since)
    show = ProgressLine(sys.stderr, verb="counted" if args.dry_run else "read")
    queue = runtime.daemon_queue()  # inside the daemon: its writer takes the transcripts in
    done = run_backfill(settings, planned, dry_run=args.dry_run, report=show, with_model=args.with_model, queue=queue)
    runtime.settle()
    show.finish()
    if queue is None and not args.dry_run:
        keep_loaded_counts()  # the short commands after this one read the word counts, not the whole dictionary
    totals = {
        "files": done.files,
        "messages": done.messages,
        "megabytes": round(done.bytes / 1_048_576, 2),
        "skipped": done.skipped,
        "failed": done.failed,
        "dry_run": args.dry_run,
    }
    if args.dry_run:
        totals["characters"] = done.characters
    if args.json:
        print(json.dumps(totals, ensure_ascii=False, indent=2))
    else:
        what = "would read" if args.dry_run else "read"
        chars = f", {done.characters:,} characters" if args.dry_run else ""
        print(
            f"{what} {done.files} files ({totals['megabytes']} MB): {done.messages:,} messages{chars}, "
            f"{done.skipped} skipped, {len(done.failed)} failed"
        )
        for failure in done.failed:
            print(f"  failed: {failure}")
    return 1 if done.failed else 0


class ProgressLine:
    """A one-line progress bar on a terminal, occasional lines elsewhere."""

    def __init__(self, stream: TextIO, *, verb: str) -> None:
        self._stream = stream
        self._verb = verb
        self._tty = stream.isatty()
        self._last = 0.0

    def __call__(self, progress: Progress) -> None:
        now = time.monotonic()
        if now - self._last < (0.2 if self._tty else 5.0) and progress.files < progress.files_total:
            return
        self._last = now
        share = progress.bytes / progress.bytes_total if progress.bytes_total else 1.0
        bar = "#" * int(share * 24)
        eta = progress.eta_seconds
        line = (
            f"[{bar:<24}] {progress.files}/{progress.files_total} files, {progress.messages:,} messages, "
            f"{progress.bytes / 1_048_576:.1f}/{progress.bytes_total / 1_048_576:.1f} MB"
            + (f", ETA {int(eta)}s" if eta is not None else "")
        )
        self._stream.write(("\r" + line) if self._tty else line + "\n")
        self._stream.flush()

    def finish(self) -> None:
        if self._tty:
            self._stream.write("\n")
            self._stream.flush()
