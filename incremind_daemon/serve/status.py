"""What the daemon is doing and what memory holds, for `incremind status`.

The daemon rewrites ``status.json`` atomically on every heartbeat; readers see
the old file or the new one, never half. Whether the daemon runs is decided by
the lock it holds, not by the file, so a crashed daemon never looks alive.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from dataclasses import asdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError

from incremind_daemon.config import Settings
from incremind_daemon.errors import IncremindError
from incremind_daemon.private import make_private_folders, replace_file
from incremind_daemon.serve.disk import DiskStatus, measure_disk

if TYPE_CHECKING:
    import apsw

HEARTBEAT_STALE_SECONDS = 30.0  # six missed heartbeats (the daemon beats every 5 s)
NO_ROOM_BYTES = 1024 * 1024  # less than this free and a stale heartbeat is put down to the full disk


class Heartbeat(BaseModel):
    """What the running daemon publishes in status.json."""

    pid: int
    started_at: str
    heartbeat_at: str
    version: str
    queue_depth: int = 0
    busy_with: str | None = None
    inbox_waiting: int = 0
    added: int = 0
    duplicates: int = 0
    failed: int = 0
    messages: int = 0
    last_message_at: str | None = None
    embedded: int = 0
    last_error: str | None = None
    errors: dict[str, str] = {}  # component -> its last error, when the daemon reports them
    mcp_url: str | None = None  # where the daemon serves MCP over HTTP, if it does
    disk_full_since: str | None = None  # a write found no space then, and none has succeeded since
    disk_full: str | None = None  # what hit it: "<item or step>: <error>"


class ContextTargetStatus(BaseModel):
    """One file that holds (or will hold) a managed context block."""

    path: str
    kind: str  # global or project
    mode: str  # inline or import
    enabled: bool
    last_written_at: str | None
    tokens: int | None
    problem: str | None


class AgentUse(BaseModel):
    """How one MCP client used memory over the last week."""

    client: str
    transport: str
    calls: int
    errors: int
    last_at: str


class ProcessUsage(BaseModel):
    """The daemon process's resources, from /proc (Linux only)."""

    rss_bytes: int
    cpu_seconds: float  # user + system since the process started
    cpu_percent: float  # of one core, averaged since the process started
    threads: int


class DaemonState(BaseModel):
    running: bool
    pid: int | None = None
    started_at: str | None = None
    uptime_seconds: int | None = None
    heartbeat_at: str | None = None
    queue_depth: int | None = None
    busy_with: str | None = None
    last_error: str | None = None
    process: ProcessUsage | None = None
    heartbeat_stale: bool = False  # running, but status.json has not been rewritten lately: figures are old


class TodayCounts(BaseModel):
    """What was taken in since midnight UTC (the day the token budget counts in)."""

    day: str = ""
    sources: int = 0
    messages: int = 0


class ProjectCounts(BaseModel):
    sources: int = 0
    passages: int = 0
    summaries: int = 0
    insights: int = 0


class InboxCounts(BaseModel):
    waiting: int = 0
    failed: int = 0


class SessionSourceStatus(BaseModel):
    """One agent's transcripts: where they are and how far they have been read."""

    agent: str
    root: str
    enabled: bool
    exists: bool
    files_tracked: int = 0
    files_skipped: int = 0
    messages: int = 0
    last_message_at: str | None = None
    unread_bytes: int = 0
    lag_seconds: int = 0
    errors: int = 0


class EmbeddingStatus(BaseModel):
    """One embedding model's vectors: how much of memory they cover."""

    model: str
    dimension: int
    state: str  # active (answers searches) or building (re-embedding after a switch)
    embedded: dict[str, int]
    total: dict[str, int]


class InsightStatus(BaseModel):
    """The insight step: what waits for review, what waits to be examined, and the model's spend."""

    pending: int = 0
    confirmed: int = 0
    sources_waiting: int = 0
    sources_failed: int = 0
    last_error: str | None = None
    extraction: str = "local"  # local, the chat model's name, or agent:<name> (a headless coding agent)
    tokens_today: int = 0
    token_budget: int = 0
    budget_spent: bool = False


class StatusReport(BaseModel):
    """The whole answer of `incremind status --json`."""

    home: str
    database: str
    database_bytes: int
    schema_version: int
    daemon: DaemonState
    tiers: dict[str, int]
    projects: dict[str, ProjectCounts]
    inbox: InboxCounts
    last_ingest_at: str | None
    search_modes: list[str]
    sessions: list[SessionSourceStatus] = []
    embedding_backend: str = "none"
    embeddings: list[EmbeddingStatus] = []
    insights: InsightStatus = InsightStatus()
    today: TodayCounts = TodayCounts()
    last_errors: dict[str, str] = {}  # component -> its last error (daemon heartbeat, sessions, context)
    context_targets: list[ContextTargetStatus] = []
    mcp_url: str | None = None
    mcp_problem: str | None = None  # why the running daemon does not serve MCP over HTTP although it should
    agent_use: list[AgentUse] = []
    disk: DiskStatus | None = None  # None only when the file system could not be measured


def write_heartbeat(path: Path, beat: Heartbeat) -> None:
    """Replace status.json atomically with this heartbeat."""
    make_private_folders(path.parent)
    # the next beat replaces a lost one: no fsync, so a full disk (which fails fsync first) still shows in it
    replace_file(path, beat.model_dump_json(indent=2).encode("utf-8"), sync=False)


def read_heartbeat(path: Path) -> Heartbeat | None:
    """Return the last heartbeat, or None when there is none (or it is unreadable)."""
    try:
        return Heartbeat.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError):
        return None


def lock_path(settings: Settings) -> Path:
    """Return the lock file the running daemon holds."""
    return settings.home_dir / "daemon.lock"


def running_pid(settings: Settings) -> int | None:
    """Return the pid of the daemon holding this home's lock, or None if none does."""
    path = lock_path(settings)
    try:
        handle = open(path, "r+")  # noqa: SIM115 - closed below on every path
    except OSError:
        return None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            text = handle.read().strip()
            return int(text) if text.isdigit() else -1
        fcntl.flock(handle, fcntl.LOCK_UN)
        return None


def collect_status(settings: Settings, inbox: InboxCounts) -> StatusReport:
    """Gather the status from the lock, status.json and a read-only look at the database."""
    import apsw

    from incremind_daemon.serve.context.writer import target_statuses
    from incremind_daemon.store import clock, vectors
    from incremind_daemon.store.db import connect
    from incremind_daemon.store.schema import schema_version

    pid = running_pid(settings)
    beat = read_heartbeat(settings.status_path) if pid is not None else None
    if beat is not None and pid is not None and pid > 0 and beat.pid != pid:
        beat = None  # left by an earlier daemon; this one has not published yet
    usage = process_usage(pid) if pid is not None and pid > 0 else None
    stale = pid is not None and _heartbeat_age(settings, beat) > HEARTBEAT_STALE_SECONDS
    daemon = DaemonState(running=pid is not None, pid=pid, process=usage, heartbeat_stale=stale)
    if beat is not None:
        started = datetime.fromisoformat(beat.started_at)
        daemon = DaemonState(
            running=True,
            pid=pid,
            started_at=beat.started_at,
            heartbeat_at=beat.heartbeat_at,
            uptime_seconds=int((clock.now() - started).total_seconds()),
            queue_depth=beat.queue_depth,
            busy_with=beat.busy_with,
            last_error=beat.last_error,
            process=usage,
            heartbeat_stale=stale,
        )
    db = settings.database_path
    tiers = {"raw": 0, "organized": 0, "summary": 0, "insight": 0}
    projects: dict[str, ProjectCounts] = {}
    last_ingest: str | None = None
    embeddings: list[EmbeddingStatus] = []
    insight_status = InsightStatus(extraction=settings.model.insight_path)
    today = TodayCounts(day=clock.now().date().isoformat())
    errors = dict(beat.errors) if beat is not None else {}
    disk = _disk(settings, beat, stale=stale)
    if disk is not None and disk.full:
        errors["disk"] = " ".join(filter(None, (disk.full_since, disk.full_part)))
    targets: list[ContextTargetStatus] = []
    agent_use: list[AgentUse] = []
    try:
        # a read-only look still works on a full disk; what cannot be read is reported, not raised
        conn = connect(db, readonly=True) if db.exists() else None
    except (IncremindError, apsw.Error) as exc:
        conn, errors["database"] = None, f"cannot open {db}: {exc}"
    if conn is not None:
        try:
            tiers, projects, last_ingest = _count(conn)
            embeddings = [EmbeddingStatus(**asdict(c)) for c in vectors.coverage(conn)]
            insight_status = _insight_status(conn, settings)
            today = _today(conn, today.day)
            errors = _stored_errors(conn) | errors
            targets = [ContextTargetStatus(**asdict(row)) for row in target_statuses(settings, conn)]
            agent_use = _agent_use(conn)
        except apsw.Error as exc:
            errors["database"] = f"cannot read {db}: {exc}"
        finally:
            conn.close()
    semantic = any(e.state == "active" and sum(e.embedded.values()) > 0 for e in embeddings)
    modes = ["keyword", "vector", "hybrid"] if semantic and settings.embedding.backend != "none" else ["keyword"]
    size = sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())
    return StatusReport(
        home=str(settings.home_dir),
        database=str(db),
        database_bytes=size,
        schema_version=schema_version(),
        daemon=daemon,
        tiers=tiers,
        projects=projects,
        inbox=inbox,
        last_ingest_at=last_ingest,
        search_modes=modes,
        embedding_backend=settings.embedding.backend,
        embeddings=embeddings,
        insights=insight_status,
        today=today,
        last_errors=errors,
        context_targets=targets,
        mcp_url=beat.mcp_url if beat is not None else None,
        mcp_problem=_mcp_problem(settings, beat),
        agent_use=agent_use,
        disk=disk,
    )


def _mcp_problem(settings: Settings, beat: Heartbeat | None) -> str | None:
    """Say why a running daemon that should serve MCP over HTTP does not (its port taken, say)."""
    if beat is None or beat.mcp_url is not None or not settings.mcp.enabled:
        return None
    return f"not served over HTTP: {mcp_off_reason(beat) or 'see incremind logs'}"


def mcp_off_reason(beat: Heartbeat) -> str | None:
    """Return what the daemon said when it could not serve MCP over HTTP, if that is its last error."""
    said = beat.last_error or ""
    return said.split(" mcp: ", 1)[1] if " mcp: " in said else None


def _heartbeat_age(settings: Settings, beat: Heartbeat | None) -> float:
    """Seconds since the daemon last published (before its first beat: since it took the lock)."""
    if beat is not None:
        return time.time() - datetime.fromisoformat(beat.heartbeat_at).timestamp()
    try:
        return time.time() - lock_path(settings).stat().st_mtime
    except OSError:
        return 0.0


def _disk(settings: Settings, beat: Heartbeat | None, *, stale: bool) -> DiskStatus | None:
    """Measure free space, and say whether writes found none: as the daemon saw it, or inferred.

    On a full disk status.json itself cannot be rewritten, so the daemon's own
    word may never arrive: a stale heartbeat on a disk with (next to) no room
    left counts as full since that heartbeat.
    """
    try:
        disk = measure_disk(settings)
    except OSError:
        return None
    if beat is not None and beat.disk_full_since is not None:
        return disk.model_copy(update={"full": True, "full_since": beat.disk_full_since, "full_part": beat.disk_full})
    if stale and disk.free_bytes < NO_ROOM_BYTES:
        since = beat.heartbeat_at if beat is not None else None
        part = f"{settings.status_path.name}: the daemon cannot rewrite it (no space left)"
        return disk.model_copy(update={"full": True, "full_since": since, "full_part": part})
    return disk


def _agent_use(conn: apsw.Connection) -> list[AgentUse]:
    from incremind_daemon.store import clock
    from incremind_daemon.store.tool_calls import summarize_tool_calls

    since = (clock.now() - timedelta(days=7)).isoformat(timespec="seconds")
    per_client: dict[tuple[str, str], AgentUse] = {}
    for use in summarize_tool_calls(conn, since=since):
        key = (use.client or "unnamed client", use.transport)
        seen = per_client.get(key)
        if seen is None:
            per_client[key] = AgentUse(
                client=key[0], transport=key[1], calls=use.calls, errors=use.errors, last_at=use.last_at
            )
        else:
            seen.calls += use.calls
            seen.errors += use.errors
            seen.last_at = max(seen.last_at, use.last_at)
    return sorted(per_client.values(), key=lambda u: u.last_at, reverse=True)


def process_usage(pid: int) -> ProcessUsage | None:
    """Read a process's RSS, CPU time and threads from /proc; None where there is no /proc."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
        uptime = float(Path("/proc/uptime").read_text(encoding="utf-8").split()[0])
    except (OSError, ValueError, IndexError):
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    # after the command name in parentheses (which may hold spaces), field 3 (state) comes first
    rest = stat[stat.rindex(")") + 2 :].split()
    try:
        rss_kb = int(fields.get("VmRSS", "0 kB").split()[0])
        threads = int(fields.get("Threads", "0").strip())
        ticks = os.sysconf("SC_CLK_TCK")
        cpu = (int(rest[11]) + int(rest[12])) / ticks
        elapsed = uptime - int(rest[19]) / ticks
    except (ValueError, IndexError, OSError):
        return None
    percent = 100 * cpu / elapsed if elapsed > 0 else 0.0
    return ProcessUsage(
        rss_bytes=rss_kb * 1024, cpu_seconds=round(cpu, 2), cpu_percent=round(percent, 2), threads=threads
    )


def _today(conn: apsw.Connection, day: str) -> TodayCounts:
    from incremind_daemon.store import report

    sources, messages = report.counts_since(conn, day)
    return TodayCounts(day=day, sources=sources, messages=messages)


def _stored_errors(conn: apsw.Connection) -> dict[str, str]:
    """Return the last problem the store records for transcripts and context files."""
    from incremind_daemon.store import report

    found: dict[str, str] = {}
    tail = report.last_tail_error(conn)
    if tail is not None:
        found["sessions"] = f"{tail[0]} {tail[1]}: {tail[2]}"
    context = report.last_context_problem(conn)
    if context is not None:
        found["context"] = f"{context[0]}: {context[1]}"
    return found


def _insight_status(conn: apsw.Connection, settings: Settings) -> InsightStatus:
    from incremind_daemon.store import clock, insight_jobs, insights, receipts

    jobs = insight_jobs.job_counts(conn)
    budget = receipts.budget_state(conn, settings.model, clock.now().date())
    configured = settings.model.insight_path != "local"
    return InsightStatus(
        pending=insights.count_insights(conn, status="pending"),
        confirmed=insights.count_insights(conn, status="confirmed"),
        sources_waiting=jobs.waiting,
        sources_failed=jobs.failed,
        last_error=jobs.last_error,
        extraction=settings.model.insight_path,
        tokens_today=budget.spent,
        token_budget=budget.limit,
        budget_spent=configured and budget.exhausted,
    )


def _count(conn: apsw.Connection) -> tuple[dict[str, int], dict[str, ProjectCounts], str | None]:
    """Count each tier per project; the totals are their sums (one pass over each table, not two)."""
    from incremind_daemon.store import report

    projects = {name: ProjectCounts(**counts) for name, counts in report.tier_counts(conn).items()}
    tiers = {
        "raw": sum(c.sources for c in projects.values()),
        "organized": sum(c.passages for c in projects.values()),
        "summary": sum(c.summaries for c in projects.values()),
        "insight": sum(c.insights for c in projects.values()),
    }
    return tiers, projects, report.last_intake_at(conn)


def status_json(report: StatusReport) -> str:
    """Render a status report as JSON."""
    return json.dumps(report.model_dump(), ensure_ascii=False, indent=2)
