"""Words a newer decision replaced: the passages that said what a superseded insight said rank last.

Confirming "staging 的端口改成 9443" retires the insight "staging API 是 8443", so search,
MCP and context leave it out; but the passage of the session where 8443 was said is still
memory, and it matched "staging 端口是多少" as well as ever, often better than the passage
that changed it. Such a passage stays findable (it is history), after everything that holds.
"""

from __future__ import annotations

import apsw

from incremind_daemon.store.records import Hit, row_number

_PASSAGE_TIERS = ("organized", "raw")


def retired_last(conn: apsw.Connection, hits: list[Hit]) -> list[Hit]:
    """Move the passages and messages that are evidence of superseded insights alone after the others, in order."""
    sources = {row_number(hit.source.id) for hit in hits if hit.tier in _PASSAGE_TIERS and hit.start is not None}
    if not sources or not conn.execute("SELECT 1 FROM insights WHERE status = 'superseded' LIMIT 1").fetchall():
        return hits
    marks = ",".join("?" * len(sources))
    found = conn.execute(
        f"""SELECT e.source_id, e.start, e."end", i.status = 'superseded'
            FROM insight_sources e JOIN insights i ON i.id = e.insight_id
            WHERE e.source_id IN ({marks}) AND i.status IN ('superseded', 'confirmed', 'pending')""",
        tuple(sources),
    ).fetchall()
    rows = [(int(sid), int(start), int(end), bool(retired)) for sid, start, end, retired in found]  # type: ignore[arg-type]
    if not any(retired for *_, retired in rows):
        return hits
    held: list[Hit] = []
    retired: list[Hit] = []
    for hit in hits:
        (retired if _says_only_retired(hit, rows) else held).append(hit)
    return held + retired


def _says_only_retired(hit: Hit, evidence: list[tuple[int, int, int, bool]]) -> bool:
    """Tell whether a passage holds evidence of a superseded insight and of no insight that still holds."""
    if hit.tier not in _PASSAGE_TIERS or hit.start is None or hit.end is None:
        return False
    source, first, last = row_number(hit.source.id), hit.start, hit.end
    inside = [retired for sid, start, end, retired in evidence if sid == source and start < last and first < end]
    return any(inside) and all(inside)
