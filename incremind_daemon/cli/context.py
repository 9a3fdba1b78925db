"""The preloaded context blocks: context show|write|enable|disable|status."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from incremind_daemon.cli import runtime
from incremind_daemon.cli.base import Commands, command, project_arg
from incremind_daemon.config import Settings
from incremind_daemon.errors import IncremindError, NotFound
from incremind_daemon.names import AGENTS

if TYPE_CHECKING:
    import apsw

    from incremind_daemon.serve.context import targets as t
    from incremind_daemon.serve.context.writer import ContextWriter, TargetResult
    from incremind_daemon.store import recall

ACTIONS = ("show", "write", "enable", "disable", "status")


def register(commands: Commands, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    """Add this topic's subcommands."""
    context = command(
        commands,
        common,
        "context",
        cmd_context,
        "show, write, enable or disable the memory blocks in agents' instruction files",
        "incremind context enable ~/code/api --files AGENTS.md,CLAUDE.local.md",
    )
    context.add_argument(
        "action",
        choices=ACTIONS,
        help="show: print a block and its size; write: write every target now; enable PATH: opt a repository "
        "(or a file) in; disable PATH: take the block out and stop; status: list the targets",
    )
    context.add_argument("path", nargs="?", type=Path, metavar="PATH", help="enable/disable: a repository or a file")
    context.add_argument("--target", type=Path, metavar="PATH", help="show: the block of this target file")
    context.add_argument(
        "--project", type=project_arg, metavar="NAME", help="show: what an agent reads at start-up in this project"
    )
    context.add_argument("--agent", choices=AGENTS, help="show: as this agent reads it (default claude)")
    context.add_argument(
        "--files",
        metavar="NAMES",
        help="enable: files to keep a block in, comma-separated (default: context.project_files, e.g. AGENTS.md)",
    )
    context.add_argument("--json", action="store_true", help="print machine-readable JSON")


def cmd_context(args: argparse.Namespace, settings: Settings) -> int:
    """Run one context action."""
    from incremind_daemon.store.db import connect

    if args.action in ("enable", "disable") and args.path is None:
        raise IncremindError(f"context {args.action} needs a PATH (a repository folder or a target file)")
    if args.action in ("show", "status") and not settings.database_path.exists():
        raise NotFound(f"no memory at {settings.home_dir} yet; run `incremind run` or `incremind ingest` first")
    # inside the daemon every write goes to its writer: this connection only reads
    conn = connect(settings.database_path, readonly=args.action in ("show", "status") or runtime.in_daemon())
    try:
        handler = {"show": _show, "write": _write, "enable": _enable, "disable": _disable, "status": _status}
        return handler[args.action](conn, args, settings)
    finally:
        conn.close()


def _writer(settings: Settings) -> ContextWriter:
    from incremind_daemon.pipeline.redact import redact
    from incremind_daemon.serve.context.writer import ContextWriter

    return ContextWriter(settings, scrub=redact, write=runtime.row_writer())


def _show(conn: apsw.Connection, args: argparse.Namespace, settings: Settings) -> int:
    from incremind_daemon.serve.context import targets as t
    from incremind_daemon.store import recall

    rows = {row.path: row for row in recall.context_targets(conn)}
    if args.project:
        _warn_if_unknown(conn, args.project)
    elif args.target is None:
        args.project = _project_here(settings)  # in a repository: what an agent started here reads
    if args.project:
        return _show_start(conn, args, settings, rows)
    if args.target is not None:
        target = _find_target(settings, rows, args.target)
    else:
        found = [x for x in t.global_targets(settings, rows) if args.agent in (None, x.agent)]
        target = found[0] if found else t.Target(Path("CLAUDE.md"), "global", args.agent or "claude", None, "inline")
    block = _writer(settings).render_for(conn, target)
    if args.json:
        data = {"target": str(target.path), "project": target.project, "tokens": block.tokens}
        print(json.dumps(data | {"budget": block.budget, "dropped": block.dropped, "text": block.text}, indent=2))
    else:
        print(block.text)
        print(f"\n({block.tokens} tokens estimated of a {block.budget}-token budget; {block.dropped} lines cut)")
    return 0


def _warn_if_unknown(conn: apsw.Connection, project: str) -> None:
    """Say so when memory holds nothing of a project named on the command line (a typo, or a new repository)."""
    from incremind_daemon.store import drill

    known = drill.list_projects(conn)
    if project not in known:
        names = ", ".join(known[:20]) or "none yet"
        print(
            f"incremind: no project '{project}' in memory yet (known: {names}); "
            "this is what a session there would start with",
            file=sys.stderr,
        )


def _project_here(settings: Settings) -> str | None:
    """Name the project of the current folder as a session started here is named, if it is a repository's."""
    from incremind_daemon.names import project_for_cwd

    # the person's folder, also when the daemon runs the command for them
    return project_for_cwd(str(runtime.resolve(Path("."))), settings.sessions.projects, any_folder=False)


def _show_start(
    conn: apsw.Connection, args: argparse.Namespace, settings: Settings, rows: dict[str, recall.ContextTargetRow]
) -> int:
    """Print what an agent reads at start-up in a project's folder: its global block, then its project's part."""
    from incremind_daemon.serve import agent_hooks
    from incremind_daemon.serve.context import hook
    from incremind_daemon.serve.context import targets as t
    from incremind_daemon.serve.context.tokens import estimate_tokens
    from incremind_daemon.store import clock

    agent: str = args.agent or "claude"
    writer = _writer(settings)
    parts: list[tuple[str, str]] = []  # (where it comes from, text)
    in_file = next((x for x in t.global_targets(settings, rows) if x.agent == agent), None)
    if in_file is not None:
        parts.append((f"{in_file.path} (global block)", writer.render_for(conn, in_file).text))
    notes: list[str] = []
    if agent_hooks.find_session_hook(agent, settings) is not None:
        own = writer.hook_payload(conn, args.project)
        glob = None if in_file is not None else writer.hook_payload(conn, None)
        text = hook.compose(agent=agent, project=args.project, own=own, glob=glob, now=clock.now().astimezone())
        if text:
            parts.append((f"{agent}'s SessionStart hook", text))
        if off := agent_hooks.hooks_turned_off(agent, settings):
            notes.append(f"the hook is installed but {off}")
        elif not agent_hooks.is_hook_trusted(agent, settings):
            notes.append(f"{agent} runs the hook only once you approve it (in /hooks)")
    else:
        files = [x for x in t.project_targets(rows) if x.project == args.project and x.agent == agent]
        parts.extend((f"{x.path} (enabled)", writer.render_for(conn, x).text) for x in files)
        if not files:
            notes.append(
                f"{agent} has no SessionStart hook: in {args.project} it reads only the global block "
                f"(`incremind setup {agent}` adds the hook)"
            )
    tokens = sum(estimate_tokens(text) for _, text in parts)
    budget = settings.context.budget_tokens
    if args.json:
        shown = [{"from": where, "tokens": estimate_tokens(text), "text": text} for where, text in parts]
        data = {"agent": agent, "project": args.project, "parts": shown, "tokens": tokens, "budget": budget}
        print(json.dumps(data | {"notes": notes}, ensure_ascii=False, indent=2))
        return 0
    for where, text in parts:
        print(f"── {where}, {estimate_tokens(text)} tokens\n{text}\n")
    for note in notes:
        print(f"note: {note}")
    print(f"({tokens} tokens estimated in all, of a {budget}-token budget)")
    return 0


def _find_target(settings: Settings, rows: dict[str, recall.ContextTargetRow], path: Path) -> t.Target:
    from incremind_daemon.serve.context import targets as t

    wanted = runtime.resolve(path.expanduser())
    for target in t.global_targets(settings, rows) + t.project_targets(rows):
        if target.path == wanted or target.path.resolve() == wanted.resolve():
            return target
    raise NotFound(f"{wanted} is not a context target; `incremind context status` lists them")


def _write(conn: apsw.Connection, args: argparse.Namespace, settings: Settings) -> int:
    if not settings.context.enabled:
        raise IncremindError("context.enabled is false in the settings; set it to true to write blocks")
    results = _writer(settings).regenerate(conn)
    _print_results(results, args.json)
    return 1 if any(r.problem for r in results) else 0


def _print_results(results: list[TargetResult], as_json: bool) -> None:
    if as_json:
        print(json.dumps([asdict(r) for r in results], ensure_ascii=False, indent=2))
        return
    if not results:
        print("no context targets: no agent is installed and no repository is enabled")
    for r in results:
        state = "problem" if r.problem else "written" if r.written else "unchanged"
        print(
            f"{state:<9} {r.path}  ({r.mode}, {r.tokens}/{r.budget} tokens)" + (f": {r.problem}" if r.problem else "")
        )


def _enable(conn: apsw.Connection, args: argparse.Namespace, settings: Settings) -> int:
    from incremind_daemon.names import project_for_cwd
    from incremind_daemon.serve.context import targets as t
    from incremind_daemon.store import recall

    path = runtime.resolve(Path(args.path).expanduser())
    rows = {row.path: row for row in recall.context_targets(conn)}
    if str(path) in rows and rows[str(path)].kind == "global":
        switched = _switched(rows[str(path)], enabled=True)
        runtime.write(settings, lambda c: recall.save_context_target(c, switched), conn=conn)
        return _write(conn, args, settings)
    if path.is_dir():
        repo, names = path, _file_names(args.files, settings)
    elif path.name in t.FILE_AGENTS and path.parent.is_dir():
        repo, names = path.parent, [path.name]
    else:
        raise IncremindError(f"{path} is neither a folder nor one of {', '.join(t.FILE_AGENTS)} in a folder")
    if ".git" in repo.parts:
        raise IncremindError(f"{repo} is inside a .git folder; incremind never writes there")
    project = project_for_cwd(str(repo), settings.sessions.projects) or repo.name
    added = []
    for name in names:
        target = repo / name
        existing = rows.get(str(target))
        created = existing.created_file if existing else not target.exists()
        agent = t.FILE_AGENTS[name]
        added.append(recall.ContextTargetRow(str(target), "project", agent, project, "inline", True, created))

    def save(c: apsw.Connection) -> None:
        for row in added:
            recall.save_context_target(c, row)

    runtime.write(settings, save, conn=conn)
    results = _writer(settings).regenerate(conn)
    mine = [r for r in results if Path(r.path).parent == repo and Path(r.path).name in names]
    for result in mine:
        row_now = recall.get_context_target(conn, result.path)
        listed = result.written and row_now and row_now.created_file and t.add_git_exclude(repo, Path(result.path))
        if listed and not args.json:
            print(f"listed {Path(result.path).name} in {repo}/.git/info/exclude (incremind created it)")
    _print_results(mine, args.json)
    if not args.json:
        print(f"project {project}: the block in {', '.join(names)} is kept current while the daemon runs")
    return 1 if any(r.problem for r in mine) else 0


def _file_names(files: str | None, settings: Settings) -> list[str]:
    from incremind_daemon.serve.context import targets as t

    names: list[str] = (
        [n.strip() for n in files.split(",") if n.strip()]
        if files
        else [str(n) for n in settings.context.project_files]
    )
    unknown = [n for n in names if n not in t.FILE_AGENTS]
    if unknown:
        raise IncremindError(f"unknown file {unknown[0]!r}; choose from {', '.join(t.FILE_AGENTS)}")
    return names


def _switched(row: recall.ContextTargetRow, *, enabled: bool) -> recall.ContextTargetRow:
    from incremind_daemon.store import recall

    return recall.ContextTargetRow(row.path, row.kind, row.agent, row.project, row.mode, enabled, row.created_file)


def _disable(conn: apsw.Connection, args: argparse.Namespace, settings: Settings) -> int:
    from incremind_daemon.serve.context import targets as t
    from incremind_daemon.serve.context.blockfile import remove_block
    from incremind_daemon.store import recall

    path = runtime.resolve(Path(args.path).expanduser())
    rows = {row.path: row for row in recall.context_targets(conn)}
    chosen = [
        row
        for row in rows.values()
        if row.path == str(path) or (row.kind == "project" and Path(row.path).parent == path)
    ]
    if not chosen:
        for target in t.global_targets(settings, rows):
            if target.path == path:
                chosen = [recall.ContextTargetRow(str(path), "global", target.agent, None, target.mode, True, False)]
    if not chosen:
        raise NotFound(f"{path} holds no incremind block; `incremind context status` lists the targets")
    failed = False
    for row in chosen:
        outcome = remove_block(Path(row.path))
        runtime.write(settings, functools.partial(_switch_off, row, outcome.problem), conn=conn)
        if outcome.problem:
            failed = True
            print(f"problem   {row.path}: {outcome.problem}")
            continue
        file = Path(row.path)
        if row.created_file and file.exists() and file.stat().st_size == 0:
            file.unlink()
            t.remove_git_exclude(file.parent, file)
        if row.mode == "import" and row.kind == "global" and row.agent:
            t.import_file(settings, t.Target(file, "global", row.agent, None, "import")).unlink(missing_ok=True)
        print(f"{'removed' if outcome.changed else 'no block'}   {row.path}; incremind no longer writes there")
    return 1 if failed else 0


def _switch_off(row: recall.ContextTargetRow, problem: str | None, conn: apsw.Connection) -> None:
    from incremind_daemon.store import recall

    recall.save_context_target(conn, _switched(row, enabled=False))
    recall.record_context_write(conn, row.path, digest=None, tokens=None, written_at=None, problem=problem)


def _status(conn: apsw.Connection, args: argparse.Namespace, settings: Settings) -> int:
    from incremind_daemon.serve.context.writer import target_statuses

    statuses = target_statuses(settings, conn)
    if args.json:
        print(json.dumps([asdict(s) for s in statuses], ensure_ascii=False, indent=2))
        return 0
    if not statuses:
        print("no context targets: no agent is installed and no repository is enabled")
    for s in statuses:
        state = "off" if not s.enabled else "problem" if s.problem else "ok"
        written = s.last_written_at or "never"
        tokens = "-" if s.tokens is None else str(s.tokens)
        line = f"{state:<7} {s.kind:<7} {s.mode:<6} {tokens:>5} tokens  written {written}  {s.path}"
        print(line + (f"\n        {s.problem}" if s.problem else ""))
    return 0
