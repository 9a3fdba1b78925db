"""Human-readable rendering of hits and items, and their drill-down to the original."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import apsw

from incremind_daemon.cli.insight_view import insight_data, render_insight
from incremind_daemon.errors import NotFound
from incremind_daemon.store import insights, items, sessions
from incremind_daemon.store.records import Hit, SourceRecord, item_id, row_number
from incremind_daemon.store.sessions import SessionRecord
from incremind_daemon.store.snippet import MARK_CLOSE, MARK_OPEN

CONTEXT_CHARS = 240  # shown on each side of a passage when drilling down
RAW_PREVIEW_CHARS = 2_000


def render_hits(hits: list[Hit], *, color: bool) -> str:
    """Render search hits as numbered blocks with marked snippets."""
    if not hits:
        return "no results"
    blocks: list[str] = []
    for number, hit in enumerate(hits, start=1):
        where = f"{hit.source.project} · {hit.tier} · {hit.id}"
        if hit.source.date:
            where += f" · {hit.source.date[:10]}"
        if hit.page is not None:
            where += f" · page {hit.page}"
        snippet = " ".join(hit.snippet.split())
        if color:
            snippet = snippet.replace(MARK_OPEN, "\033[1m").replace(MARK_CLOSE, "\033[0m")
        blocks.append(f"{number}. {hit.source.title}  [{where}]  {hit.score:.2f}\n   {snippet}")
    return "\n".join(blocks)


def render_item(conn: apsw.Connection, kind: str, rowid: int, *, home: Path) -> tuple[str, dict[str, object]]:
    """Return one item as text and as JSON-ready data, with its drill-down."""
    tier = kind
    if kind == "message":
        return _render_message(conn, rowid)
    if tier == "organized":
        passage = items.get_passage(conn, rowid, home=home)
        source = items.get_source(conn, row_number(passage.source.id))
        before = source.raw_text[max(0, passage.start - CONTEXT_CHARS) : passage.start]
        after = source.raw_text[passage.end : passage.end + CONTEXT_CHARS]
        page = f", page {passage.page}" if passage.page is not None else ""
        text = "\n".join(
            [
                f"{passage.id}  passage {passage.seq + 1} of {source.title} ({source.id}, {source.project})",
                f"original: {passage.source.path or '-'}",
                f"characters {passage.start}–{passage.end} of the raw text{page}",
                "",
                f"…{before}{MARK_OPEN}{passage.text}{MARK_CLOSE}{after}…",
            ]
        )
        data = asdict(passage) | {"tier": tier, "before": before, "after": after}
        return text, data
    if tier == "summary":
        summary = items.get_summary(conn, rowid, home=home)
        source = items.get_source(conn, row_number(summary.source.id))
        text = "\n".join(
            [
                f"{summary.id}  summary of {source.title} ({source.id}, {source.project})",
                f"original: {summary.source.path or '-'}",
                "",
                summary.index_line,
                "",
                summary.summary,
                "",
                f"drill down: incremind show {source.id}",
            ]
        )
        return text, asdict(summary) | {"tier": tier}
    if tier == "raw":
        source = items.get_source(conn, rowid)
        session = sessions.get_session(conn, rowid)
        if session is not None:
            return render_session(conn, session, home=home)
        return _render_source(conn, source, home)
    if tier == "insight":
        data = insight_data(conn, insights.get_insight(conn, rowid), home=home)
        return render_insight(data) + "\n\nhistory: incremind history " + str(data["id"]), data | {"tier": tier}
    raise NotFound(f"no {tier} item {item_id(tier, rowid)} in memory")


def render_session(conn: apsw.Connection, session: SessionRecord, *, home: Path) -> tuple[str, dict[str, object]]:
    """Return a session's header and its whole cleaned conversation."""
    rowid = row_number(session.source_id)
    text = sessions.session_text(conn, rowid)
    summary_id = items.summary_of_source(conn, rowid)
    summary = items.get_summary(conn, summary_id, home=home).summary if summary_id else ""
    header = [
        f"{session.source_id}  {session.agent} session {session.session_id}",
        f"project     {session.project}" + (f" ({session.cwd})" if session.cwd else ""),
        f"when        {session.started_at or '?'} – {session.last_message_at or '?'}, {session.messages} messages",
        f"transcript  {session.transcript or '-'}",
    ]
    if summary:
        header += ["", summary]
    data = asdict(session) | {"tier": "raw", "summary": summary, "text": text}
    return "\n".join([*header, "", text]), data


def render_sessions(found: list[SessionRecord]) -> str:
    """Render recent sessions as aligned lines."""
    if not found:
        return "no sessions yet (run `incremind backfill` to take in existing history)"
    lines = []
    for session in found:
        when = (session.last_message_at or session.started_at or "")[:16].replace("T", " ")
        lines.append(
            f"{when:<16}  {session.agent:<7} {session.project[:20]:<20} {session.messages:>5}  "
            f"{session.session_id[:8]}  {session.index_line or ''}"
        )
    return "\n".join(lines)


def _render_message(conn: apsw.Connection, rowid: int) -> tuple[str, dict[str, object]]:
    message = sessions.get_message(conn, rowid)
    if message is None:
        raise NotFound(f"no message {item_id('message', rowid)} in memory")
    source_id, row = message
    session = sessions.get_session(conn, source_id)
    text = sessions.session_text(conn, source_id)
    before = text[max(0, row.start - CONTEXT_CHARS) : row.start]
    after = text[row.end : row.end + CONTEXT_CHARS]
    name = f"{session.agent} session {session.session_id}" if session else item_id("raw", source_id)
    lines = [
        f"{item_id('message', rowid)}  {row.role} message in {name} ({item_id('raw', source_id)})",
        f"at {row.at or '?'}; characters {row.start}–{row.end} of the session text",
        "",
        f"…{before}{MARK_OPEN}{row.text}{MARK_CLOSE}{after}…",
    ]
    data: dict[str, object] = asdict(row) | {"tier": "raw", "source_id": item_id("raw", source_id)}
    return "\n".join(lines), data


def _render_source(conn: apsw.Connection, source: SourceRecord, home: Path) -> tuple[str, dict[str, object]]:
    rowid = row_number(source.id)
    summary_id = items.summary_of_source(conn, rowid)
    passages = items.passages_of_source(conn, rowid)
    preview = source.raw_text[:RAW_PREVIEW_CHARS]
    more = len(source.raw_text) - len(preview)
    original = home / source.raw_path if source.raw_path else None
    lines = [
        f"{source.id}  {source.title}",
        f"project     {source.project}",
        f"kind        {source.kind} ({source.media_type or '-'}, {source.size_bytes} bytes)",
        f"file        {source.original_name or '-'}",
        f"original    {original or '-'}",
        f"taken in    {source.created_at}" + (f", seen {source.seen_count} times" if source.seen_count > 1 else ""),
        f"derived     {passages} passages" + (f", summary {item_id('summary', summary_id)}" if summary_id else ""),
        "",
        preview + (f"\n… ({more} more characters; --json prints all)" if more > 0 else ""),
    ]
    data = asdict(source) | {
        "tier": "raw",
        "path": str(original) if original else None,
        "summary_id": item_id("summary", summary_id) if summary_id else None,
        "passages": passages,
    }
    return "\n".join(lines), data
