"""Export memory as text: insights (status, category, condition, evidence), summaries and sources.

JSON lines hold one record per line, each with a ``type`` (insight, source,
summary); Markdown is for reading. Sources carry their metadata and index
line, and their extracted text only when asked (``--with-text``). Rows are
streamed, so an export of a large memory does not hold it all at once. An
export file is a copy of memory, so it is written 0600, whatever the umask.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import apsw

from incremind_daemon.config import Settings
from incremind_daemon.errors import IncremindError
from incremind_daemon.ops import EXPORT_FORMATS
from incremind_daemon.private import replacing
from incremind_daemon.store import clock, insights, report
from incremind_daemon.store.db import connect
from incremind_daemon.store.records import item_id

log = logging.getLogger(__name__)

FORMATS = EXPORT_FORMATS


@dataclass(frozen=True, slots=True)
class ExportCounts:
    """How many of each were exported."""

    insights: int
    summaries: int
    sources: int


def export_memory(
    settings: Settings, out: TextIO, *, fmt: str, project: str | None = None, with_text: bool = False
) -> ExportCounts:
    """Write insights, summaries and sources as JSON lines or Markdown to out."""
    if not settings.database_path.exists():
        raise IncremindError(f"no memory at {settings.home_dir} yet: there is nothing to export")
    conn = connect(settings.database_path, readonly=True)
    try:
        records = _records(conn, project=project, with_text=with_text)
        if fmt == "jsonl":
            counts = {"insight": 0, "summary": 0, "source": 0}
            for record in records:
                counts[record["type"]] += 1
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            counts = _write_markdown(out, records, project=project)
    finally:
        conn.close()
    return ExportCounts(counts["insight"], counts["summary"], counts["source"])


def export_to_file(
    settings: Settings, path: Path, *, fmt: str, project: str | None = None, with_text: bool = False
) -> ExportCounts:
    """Write the export to a 0600 file that replaces path once it is whole."""
    try:
        with replacing(path) as handle:
            out = io.TextIOWrapper(handle, encoding="utf-8", write_through=True)
            counts = export_memory(settings, out, fmt=fmt, project=project, with_text=with_text)
            out.detach()  # every byte is written through; replacing syncs and closes the file
    except OSError as exc:
        raise IncremindError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return counts


def _records(conn: apsw.Connection, *, project: str | None, with_text: bool) -> Iterator[dict[str, Any]]:
    """Yield insights, then each source followed by its summary, as plain records (streamed)."""
    for ins in reversed(insights.list_insights(conn, project=project)):
        yield {
            "type": "insight",
            "id": item_id("insight", ins.id),
            "project": ins.project,
            "status": ins.status,
            "category": ins.category,
            "statement": ins.statement,
            "condition": ins.condition,
            "relation": ins.relation,
            "confidence": ins.confidence,
            "origin": ins.origin,
            "created_at": ins.created_at,
            "updated_at": ins.updated_at,
            "evidence": [
                {"source": item_id("raw", e.source_id), "quote": e.quote, "start": e.start, "end": e.end}
                for e in insights.evidence_of(conn, ins.id)
            ],
        }
    for row in report.export_sources(conn, project=project, with_text=with_text):
        source: dict[str, Any] = {
            "type": "source",
            "id": item_id("raw", row["id"]),
            **{key: row[key] for key in ("kind", "project", "title", "index_line", "original_name", "media_type")},
            **{key: row[key] for key in ("size_bytes", "sha256", "raw_path", "agent", "session_id")},
            "created_at": row["created_at"],
            "last_seen_at": row["last_seen_at"],
        }
        if row["dated"] is not None:  # the day the file's name or first line names
            source["dated"] = row["dated"]
        if with_text:
            source["text"] = row["text"]
        yield source
        if row["summary_id"] is not None:
            yield {
                "type": "summary",
                "id": item_id("summary", row["summary_id"]),
                "source": item_id("raw", row["id"]),
                "project": row["project"],
                "index_line": row["index_line"],
                "summary": row["summary"],
                "updated_at": row["summary_updated_at"],
            }


def _write_markdown(out: TextIO, records: Iterator[dict[str, Any]], *, project: str | None) -> dict[str, int]:
    counts = {"insight": 0, "summary": 0, "source": 0}
    scope = f" (project {project})" if project else ""
    out.write(f"# incremind export{scope}\n\n_{clock.stamp()}_\n")
    section = ""
    for record in records:
        kind = record["type"]
        counts[kind] += 1
        heading = "Insights" if kind == "insight" else "Sources and summaries"
        if heading != section:
            section = heading
            out.write(f"\n## {heading}\n")
        if kind == "insight":
            when = f"  \n  _when:_ {record['condition']}" if record["condition"] else ""
            out.write(
                f"\n- **{record['id']}** [{record['status']}, {record['category']}, {record['relation']}, "
                f"{record['project']}] {record['statement']}{when}\n"
            )
            for e in record["evidence"]:
                out.write(f"  - {e['source']} ({e['start']}-{e['end']}): > {_one_line(e['quote'])}\n")
        elif kind == "source":
            origin = record["original_name"] or (f"{record['agent']} session {record['session_id']}")
            out.write(f"\n### {record['id']} {_one_line(record['title'])}\n\n")
            out.write(f"{record['kind']} in {record['project']}, {origin}, taken in {record['created_at']}\n")
            if record["index_line"]:
                out.write(f"\n**{_one_line(record['index_line'])}**\n")
            if "text" in record and record["text"] is not None:
                fence = "`" * max(3, _longest_backtick_run(record["text"]) + 1)
                out.write(f"\n{fence}text\n{record['text']}\n{fence}\n")
        else:
            out.write(f"\n{record['summary']}\n")
    return counts


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest
