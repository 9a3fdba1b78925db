"""Running it: service, start, stop, restart, logs, doctor, backup, restore-backup, export."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

from incremind_daemon.cli.base import Commands, command, project_arg
from incremind_daemon.config import Settings
from incremind_daemon.ops import EXPORT_FORMATS as FORMATS
from incremind_daemon.ops import STOP_TIMEOUT_SECONDS


def register(commands: Commands, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    """Add this topic's subcommands."""
    service = command(
        commands,
        common,
        "service",
        cmd_service,
        "install, remove or inspect the user service that keeps the daemon running",
        "incremind service install",
    )
    service.add_argument("action", choices=("install", "uninstall", "status"), help="what to do")
    service.add_argument("--json", action="store_true", help="status: print machine-readable JSON")

    for name, handler, text in (
        ("start", cmd_start, "start the daemon in the background (through the service when installed)"),
        ("stop", cmd_stop, "stop the daemon and wait until it has exited"),
        ("restart", cmd_restart, "stop the daemon, then start it again"),
    ):
        verb = command(commands, common, name, handler, text, f"incremind {name}")
        verb.add_argument(
            "--timeout",
            type=float,
            default=None,
            metavar="SECONDS",
            help=f"how long to wait (default: 60 to start, {STOP_TIMEOUT_SECONDS:.0f} to stop before SIGKILL)",
        )

    logs = command(commands, common, "logs", cmd_logs, "print the daemon's log, or follow it", "incremind logs -f")
    logs.add_argument("-f", "--follow", action="store_true", help="keep printing lines as they are written")
    logs.add_argument("-n", "--lines", type=int, default=50, metavar="N", help="print the last N lines (default 50)")

    doctor = command(
        commands,
        common,
        "doctor",
        cmd_doctor,
        "check what the daemon needs, each problem with its fix",
        "incremind doctor",
    )
    doctor.add_argument("--json", action="store_true", help="print machine-readable JSON")

    backup = command(
        commands,
        common,
        "backup",
        cmd_backup,
        "copy memory, its originals and the config while the daemon runs",
        "incremind backup ~/backups/incremind-2026-05-01.tar.gz",
    )
    backup.add_argument("dest", type=Path, metavar="DEST", help="a new folder, or a file ending in .tar.gz")
    backup.add_argument("--json", action="store_true", help="print machine-readable JSON")

    restore = command(
        commands,
        common,
        "restore-backup",
        cmd_restore_backup,
        "restore a backup into an empty home",
        "incremind --home ~/.incremind restore-backup ~/backups/incremind-2026-05-01.tar.gz",
    )
    restore.add_argument("source", type=Path, metavar="SRC", help="a backup folder or .tar.gz")
    restore.add_argument("--json", action="store_true", help="print machine-readable JSON")

    export = command(
        commands,
        common,
        "export",
        cmd_export,
        "write insights, summaries and sources as JSON lines or Markdown",
        "incremind export --format markdown --project thesis --out thesis.md",
    )
    export.add_argument("--format", choices=FORMATS, default="jsonl", help="jsonl (default) or markdown")
    export.add_argument("--project", type=project_arg, help="only this project")
    export.add_argument("--out", type=Path, metavar="FILE", help="write to this file (default: standard output)")
    export.add_argument("--with-text", action="store_true", help="include each source's extracted text")


def _config(args: argparse.Namespace) -> Path | None:
    """Return the config file the person named (flag or environment), absolute, for a child process."""
    named = getattr(args, "config", None) or os.environ.get("INCREMIND_CONFIG")
    return Path(named).expanduser().absolute() if named else None


def cmd_service(args: argparse.Namespace, settings: Settings) -> int:
    """Install, uninstall or show the user service (systemd or launchd)."""
    from incremind_daemon.ops.service import (
        install_service,
        service_kind,
        service_spec,
        service_state,
        uninstall_service,
    )

    spec = service_spec(settings, _config(args))
    if args.action == "install":
        print("\n".join(install_service(settings, spec)))
        return 1 if service_kind() == "none" else 0  # nothing was installed; the steps say what to do
    if args.action == "uninstall":
        print("\n".join(uninstall_service()))
        return 0
    state = service_state(settings, spec)
    if args.json:
        print(json.dumps(asdict(state), default=str, indent=2))
    else:
        if state.path is None:
            print("service   none: no systemd user manager or launchd here (incremind start runs it detached)")
        elif not state.installed:
            print(f"service   not installed (incremind service install writes {state.path})")
        else:
            stale = "" if state.current else " (differs from what install writes now: run incremind service install)"
            print(f"service   {state.kind}: {state.path}{stale}")
            print(f"          {state.enabled or '?'}, {state.active or 'see launchctl print'}")
        print(f"daemon    {f'running (pid {state.daemon_pid})' if state.daemon_pid else 'not running'}")
    return 0 if state.daemon_pid else 3


def cmd_start(args: argparse.Namespace, settings: Settings) -> int:
    """Start the daemon in the background and wait until it runs."""
    from incremind_daemon.ops.service import start_daemon

    timeout = args.timeout if args.timeout is not None else 60.0
    print(start_daemon(settings, config=_config(args), timeout=timeout))
    return 0


def cmd_stop(args: argparse.Namespace, settings: Settings) -> int:
    """Stop the daemon: SIGTERM, wait, and SIGKILL only after the timeout."""
    from incremind_daemon.ops.service import STOP_TIMEOUT_SECONDS, stop_daemon

    timeout = args.timeout if args.timeout is not None else STOP_TIMEOUT_SECONDS
    stopped = stop_daemon(settings, timeout=timeout)
    if stopped is None:
        print(f"not running for {settings.home_dir}")
    elif stopped.killed:
        print(
            f"the daemon (pid {stopped.pid}) did not exit within {timeout:.0f} s of SIGTERM and was killed "
            "with SIGKILL; nothing committed is lost, the item in hand is taken up again at the next start"
        )
    else:
        print(f"stopped (pid {stopped.pid}{', through the service' if stopped.via_service else ''})")
    return 0


def cmd_restart(args: argparse.Namespace, settings: Settings) -> int:
    """Stop the daemon if it runs, then start it."""
    from incremind_daemon.ops.service import stop_daemon

    stopped = stop_daemon(settings)
    if stopped is not None:
        print(f"stopped (pid {stopped.pid}{', after SIGKILL' if stopped.killed else ''})")
    return cmd_start(args, settings)


def cmd_logs(args: argparse.Namespace, settings: Settings) -> int:
    """Print the end of the daemon's log; with -f, keep following it across rotations."""
    from incremind_daemon.ops.logs import follow, log_path, tail_lines

    path = log_path(settings)
    if not path.exists() and not args.follow:
        print(f"incremind: no log yet at {path}; the daemon writes it while it runs", file=sys.stderr)
        return 1
    shown = path.stat().st_size if path.exists() else 0  # follow from where the tail ended
    for line in tail_lines(path, args.lines):
        print(line)
    if args.follow:
        sys.stdout.flush()
        for line in follow(path, offset=shown):
            print(line, flush=True)
    return 0


def cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    """Run every check; exit 1 when any failed."""
    from incremind_daemon.ops.doctor import format_checks, run_checks  # its checks load what they check

    checks = run_checks(
        settings, config=getattr(args, "config", None), config_error=getattr(args, "config_error", None)
    )
    if args.json:
        print(json.dumps([asdict(c) for c in checks], ensure_ascii=False, indent=2))
    else:
        print(format_checks(checks))
    return 1 if any(c.status == "fail" for c in checks) else 0


def cmd_backup(args: argparse.Namespace, settings: Settings) -> int:
    """Take a consistent backup while the daemon keeps running."""
    from incremind_daemon.ops.backup import take_backup

    done = take_backup(settings, args.dest, config=getattr(args, "config", None))
    for missing in done.missing:
        print(f"incremind: warning: the kept original {missing} is missing and was not backed up", file=sys.stderr)
    if args.json:
        print(json.dumps(asdict(done), default=str, ensure_ascii=False, indent=2))
        return 0
    rows = ", ".join(f"{done.tables.get(t, 0)} {t}" for t in ("sources", "chunks", "summaries", "insights", "messages"))
    print(
        f"backed up to {done.path}: the database ({done.database_bytes / 1_048_576:.1f} MB: {rows}) and "
        f"{done.raw_files} originals ({done.raw_bytes / 1_048_576:.1f} MB)"
    )
    return 0


def cmd_restore_backup(args: argparse.Namespace, settings: Settings) -> int:
    """Verify a backup and write it into an empty home."""
    from incremind_daemon.ops.backup import restore_backup

    done = restore_backup(settings, args.source)
    if args.json:
        print(json.dumps(asdict(done), default=str, ensure_ascii=False, indent=2))
        return 0
    print(
        f"restored into {done.home}: {done.tables.get('sources', 0)} sources, {done.tables.get('insights', 0)} "
        f"insights, {done.tables.get('messages', 0)} messages, {done.raw_files} originals"
    )
    if done.config is not None and done.config.name != "config.json":
        print(f"kept the existing config.json; the backup's config is in {done.config}")
    print("start the daemon with: incremind start")
    return 0


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    """Write memory as JSON lines or Markdown, to a file or standard output."""
    from incremind_daemon.ops.export import export_memory, export_to_file

    if args.out is None:
        counts = export_memory(settings, sys.stdout, fmt=args.format, project=args.project, with_text=args.with_text)
    else:
        counts = export_to_file(settings, args.out, fmt=args.format, project=args.project, with_text=args.with_text)
    where = f" to {args.out}" if args.out else ""
    print(
        f"exported {counts.insights} insights, {counts.summaries} summaries and {counts.sources} sources{where}",
        file=sys.stderr,
    )
    return 0
