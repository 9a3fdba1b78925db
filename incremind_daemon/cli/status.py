"""`incremind status`: whether the daemon runs, what memory holds, and what is wrong."""

from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING

from incremind_daemon.cli.base import Commands, command
from incremind_daemon.config import Settings
from incremind_daemon.errors import IncremindError

if TYPE_CHECKING:
    from incremind_daemon.serve.status import SessionSourceStatus
    from incremind_daemon.store import sessions


def register(commands: Commands, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    """Add this topic's subcommands."""
    status = command(
        commands,
        common,
        "status",
        cmd_status,
        "show whether the daemon runs and what memory holds",
        "incremind status --json",
    )
    status.add_argument("--json", action="store_true", help="print machine-readable JSON")


def cmd_status(args: argparse.Namespace, settings: Settings) -> int:
    """Print the daemon's state and what memory holds; exit 3 when not running."""
    from incremind_daemon.cli.status_text import format_status
    from incremind_daemon.serve.status import InboxCounts, collect_status, status_json
    from incremind_daemon.sources.inbox import scan_inbox

    waiting = sum(1 for _ in scan_inbox(settings.inbox_dir)) if settings.inbox_dir.exists() else 0
    failed_dir = settings.failed_dir
    failed = sum(1 for p in failed_dir.iterdir() if not p.name.endswith(".error.txt")) if failed_dir.exists() else 0
    report = collect_status(settings, InboxCounts(waiting=waiting, failed=failed))
    report = report.model_copy(update={"sessions": _session_sources(settings)})
    print(status_json(report) if args.json else format_status(report))
    return 0 if report.daemon.running else 3


def _session_sources(settings: Settings) -> list[SessionSourceStatus]:
    """Describe each agent's transcripts: root, files and messages read, what is still unread."""
    import apsw

    from incremind_daemon.serve.status import SessionSourceStatus
    from incremind_daemon.sources.sessions.discover import find_transcripts, watch_roots
    from incremind_daemon.store import sessions
    from incremind_daemon.store.db import connect

    progress: dict[str, sessions.SourceProgress] = {}
    marks: dict[str, tuple[str, int]] = {}
    # what cannot be read is in the report's errors already (collect_status): the lag is left out
    with contextlib.suppress(IncremindError, apsw.Error):
        if settings.database_path.exists():
            conn = connect(settings.database_path, readonly=True)
            try:
                progress = {p.agent: p for p in sessions.tail_progress(conn)}
                marks = sessions.tail_marks(conn)
            finally:
                conn.close()
    now = time.time()
    out: list[SessionSourceStatus] = []
    configured = {
        "claude": settings.sessions.claude,
        "codex": settings.sessions.codex,
        "gemini": settings.sessions.gemini,
    }
    for agent, source in configured.items():
        roots = watch_roots(settings, agents=(agent,))
        unread, oldest = 0, now
        for transcript in find_transcripts(roots):
            if str(transcript.path) not in marks:
                continue  # untracked history is for `incremind backfill`, not lag
            try:
                info = transcript.path.stat()
            except OSError:
                continue
            behind = info.st_size - marks[str(transcript.path)][1]
            if behind > 0:
                unread += behind
                oldest = min(oldest, info.st_mtime)
        seen = progress.get(agent)
        root = source.dir or Path("?")
        out.append(
            SessionSourceStatus(
                agent=agent,
                root=str(root),
                enabled=source.enabled,
                exists=root.is_dir(),
                files_tracked=seen.files if seen else 0,
                files_skipped=seen.skipped if seen else 0,
                messages=seen.messages if seen else 0,
                last_message_at=seen.last_message_at if seen else None,
                unread_bytes=unread,
                lag_seconds=int(now - oldest),
                errors=seen.errors if seen else 0,
            )
        )
    return out
