"""Insights as people read them (pending review, listings, history) and as JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import apsw

from incremind_daemon.errors import NotFound
from incremind_daemon.store import insights, items
from incremind_daemon.store.insights import Evidence
from incremind_daemon.store.records import Insight, item_id

QUOTE_CHARS = 240  # evidence shown per quote in text listings (JSON carries it whole)


@dataclass(frozen=True, slots=True)
class Related:
    """The known insight a candidate supplements or differs from."""

    id: int
    link: str  # refutes, supplements, supersedes
    statement: str
    status: str


def related_of(conn: apsw.Connection, insight: Insight) -> Related | None:
    """Return the known insight this one was linked to when it was found, if any."""
    for link in insights.links_of(conn, insight.id):
        if link.from_id == insight.id and link.relation in ("refutes", "supplements", "supersedes"):
            try:
                other = insights.get_insight(conn, link.to_id)
            except NotFound:
                return None
            return Related(other.id, link.relation, other.statement, other.status)
    return None


def insight_data(conn: apsw.Connection, insight: Insight, *, home: Path) -> dict[str, object]:
    """Return an insight as JSON-ready data: kind, statement, condition, relation and evidence."""
    related = related_of(conn, insight)
    return {
        "id": item_id("insight", insight.id),
        "status": insight.status,
        "kind": insight.relation,
        "category": insight.category,
        "statement": insight.statement,
        "condition": insight.condition,
        "project": insight.project,
        "scope": insight.scope,
        "confidence": round(insight.confidence, 4),
        "revision": insight.revision,
        "origin": insight.origin,
        "created_at": insight.created_at,
        "updated_at": insight.updated_at,
        "relates_to": None
        if related is None
        else {
            "id": item_id("insight", related.id),
            "link": related.link,
            "statement": related.statement,
            "status": related.status,
        },
        "evidence": [_evidence_data(conn, e, home=home) for e in insights.evidence_of(conn, insight.id)],
    }


def _evidence_data(conn: apsw.Connection, evidence: Evidence, *, home: Path) -> dict[str, object]:
    try:
        source = items.get_source(conn, evidence.source_id)
        title, path, kind = source.title, (str(home / source.raw_path) if source.raw_path else None), source.kind
    except NotFound:
        title, path, kind = "(gone)", None, "?"
    return {
        "source": {"id": item_id("raw", evidence.source_id), "title": title, "path": path, "kind": kind},
        "quote": evidence.quote,
        "start": evidence.start,
        "end": evidence.end,
    }


def render_insight(data: dict[str, object]) -> str:
    """Render one insight's data (from insight_data) as a short block."""
    where = "global" if data.get("scope") == "global" else str(data["project"])
    head = f"{data['id']}  {data['kind']} · {data['category']} · {data['status']} · {where}"
    evidence = data["evidence"]
    assert isinstance(evidence, list)
    sources = {entry["source"]["id"] for entry in evidence}
    if len(evidence) > 1:  # a repeat adds its words to the insight: say how often and in how many places
        head += f" · said {len(evidence)}× in {len(sources)} source{'s' if len(sources) != 1 else ''}"
    lines = [head, f"  {data['statement']}"]
    if data["condition"]:
        lines.append(f"  when: {data['condition']}")
    related = data["relates_to"]
    if isinstance(related, dict):
        verb = {"refutes": "differs from", "supersedes": "replaces"}.get(str(related["link"]), "supplements")
        lines.append(f"  {verb} {related['id']}: {related['statement']}")
    for entry in evidence[:3]:
        quote = " ".join(str(entry["quote"]).split())
        if len(quote) > QUOTE_CHARS:
            quote = quote[: QUOTE_CHARS - 1] + "…"
        source = entry["source"]
        lines.append(f"  “{quote}” — {source['title']} ({source['id']} {entry['start']}–{entry['end']})")
    if len(evidence) > 3:
        lines.append(f"  … and {len(evidence) - 3} more source(s)")
    return "\n".join(lines)


def render_history(conn: apsw.Connection, insight_id: int) -> tuple[str, dict[str, object]]:
    """Return an insight's revisions and audit trail, as text and as data."""
    insight = insights.get_insight(conn, insight_id)
    revisions = insights.revisions_of(conn, insight_id)
    trail = insights.history_of(conn, insight_id)
    lines = [f"{item_id('insight', insight_id)} ({insight.status}, revision {insight.revision})", "revisions:"]
    for revision in revisions:
        condition = f"  [when: {revision.condition}]" if revision.condition else ""
        lines.append(f"  {revision.revision}. {revision.at}  {revision.statement}{condition}")
    lines.append("audit:")
    for at, actor, action, detail in trail:
        lines.append(f"  {at}  {action:<9} by {actor}  {detail}")
    data: dict[str, object] = {
        "id": item_id("insight", insight_id),
        "status": insight.status,
        "revisions": [
            {"revision": r.revision, "statement": r.statement, "condition": r.condition, "at": r.at} for r in revisions
        ],
        "audit": [
            {"at": at, "actor": actor, "action": action, "detail": json.loads(detail)}
            for at, actor, action, detail in trail
        ],
    }
    return "\n".join(lines), data
