"""Render a status report as aligned plain text, for `incremind status`."""

from __future__ import annotations

from incremind_daemon.serve.disk import format_disk, format_size
from incremind_daemon.serve.status import StatusReport


def format_status(report: StatusReport) -> str:
    """Render a status report as aligned plain text."""
    d = report.daemon
    disk = report.disk
    if d.running:
        alive = f"running (pid {d.pid}"
        if d.uptime_seconds is not None:
            alive += f", up {_duration(d.uptime_seconds)}, last heartbeat {d.heartbeat_at}"
        if d.heartbeat_stale:
            why = "the disk is full" if disk is not None and disk.full else "see incremind logs"
            alive += f"; heartbeat stale: {why}"
        alive += ")"
    else:
        alive = "not running (start it with: incremind start)"
    size_mb = report.database_bytes / 1_048_576
    lines = [f"daemon        {alive}"]
    if d.process is not None:
        p = d.process
        lines.append(
            f"process       {p.rss_bytes / 1_048_576:.1f} MB RSS, CPU {p.cpu_seconds:.1f} s "
            f"({p.cpu_percent:.1f}% of a core since start), {p.threads} threads"
        )
    if disk is not None:
        lines += format_disk(disk, report.inbox.waiting)
    lines += [
        f"home          {report.home}" + (f" ({format_size(disk.free_bytes)} free)" if disk is not None else ""),
        f"database      {report.database} ({size_mb:.1f} MB, schema v{report.schema_version})",
        "memory        " + ", ".join(f"{count} {tier}" for tier, count in report.tiers.items()),
        f"inbox         {report.inbox.waiting} waiting, {report.inbox.failed} failed (see inbox/.failed)",
        f"last ingest   {report.last_ingest_at or 'never'}",
        f"search        {', '.join(report.search_modes)}",
    ]
    lines.append(f"embedding     {report.embedding_backend}")
    for e in report.embeddings:
        done, total = sum(e.embedded.values()), sum(e.total.values())
        per_tier = ", ".join(f"{kind} {e.embedded[kind]}/{e.total[kind]}" for kind in e.total if e.total[kind])
        detail = f" ({per_tier})" if per_tier else ""
        lines.append(f"  {e.model} ({e.dimension}-d, {e.state}): {done}/{total} embedded{detail}")
    i = report.insights
    lines.append(
        f"insights      {i.pending} pending (incremind pending), {i.confirmed} confirmed; "
        f"{i.sources_waiting} sources to examine" + (f", {i.sources_failed} failed" if i.sources_failed else "")
    )
    if i.extraction != "local":
        spend = "spent: local rules until tomorrow (UTC)" if i.budget_spent else "within budget"
        lines.append(f"  model {i.extraction}: {i.tokens_today}/{i.token_budget} tokens today, {spend}")
    if i.last_error:
        lines.append(f"  last failure  {i.last_error}")
    if d.running and d.queue_depth is not None:
        busy = f", working on {d.busy_with}" if d.busy_with else ""
        lines.append(f"queue         {d.queue_depth} waiting{busy}")
    if d.last_error:
        lines.append(f"last error    {d.last_error}")
    for component, error in report.last_errors.items():
        lines.append(f"error         {component}: {error}")
    t = report.today
    lines.append(
        # messages by when they were said: a backfill takes in last month's sessions today, none of it said today
        f"today         {t.sources} sources taken in, {t.messages} session messages said; "
        f"{i.pending} insights pending; {i.tokens_today} model tokens ({t.day} UTC)"
    )
    for source in report.sessions:
        if not source.enabled:
            lines.append(f"{source.agent:<13} off")
            continue
        where = source.root if source.exists else f"{source.root} (not found)"
        lag = (
            f", {source.unread_bytes / 1024:.0f} KB unread ({source.lag_seconds}s behind)"
            if source.unread_bytes
            else ""
        )
        errors = f", {source.errors} errors" if source.errors else ""
        lines.append(
            f"{source.agent:<13} {where}: {source.files_tracked} files, {source.messages} messages, "
            f"last {source.last_message_at or 'never'}{lag}{errors}"
        )
    if report.mcp_problem is not None:
        lines.append(f"mcp           ERROR {report.mcp_problem}; agents set up with --http cannot reach memory")
    else:
        lines.append(f"mcp           {report.mcp_url or 'not served over HTTP'} (incremind mcp serves stdio)")
    for use in report.agent_use:
        failed = f", {use.errors} errors" if use.errors else ""
        lines.append(f"  {use.client} ({use.transport}): {use.calls} calls this week{failed}, last {use.last_at}")
    for target in report.context_targets:
        state = "off" if not target.enabled else (target.problem or "ok")
        size = f"{target.tokens} tokens" if target.tokens is not None else "not written yet"
        lines.append(
            f"context       {target.path} [{target.kind}, {target.mode}]: {size}, "
            f"last written {target.last_written_at or 'never'}, {state}"
        )
    if report.projects:
        lines.append("projects")
        width = max(len(name) for name in report.projects)
        for name, c in report.projects.items():
            lines.append(
                f"  {name:<{width}}  {c.sources} sources, {c.passages} passages, "
                f"{c.summaries} summaries, {c.insights} insights"
            )
    return "\n".join(lines)


def _duration(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"
