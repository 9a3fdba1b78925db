"""Keyword search over passages, summaries and insights.

User text never reaches FTS5 as syntax: it is cut into words by the same
tokenizer the index uses, and each word is quoted. All words must match
first; when that finds fewer than ``limit`` results, any word may match, and
those looser hits rank below the strict ones.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import apsw

from incremind_daemon.errors import QueryError
from incremind_daemon.store.db import fetch_rows
from incremind_daemon.store.items import SOURCE_COLUMNS, SOURCE_JOIN, make_source_ref
from incremind_daemon.store.records import TIER_OF_KIND, TIERS, Hit, item_id, row_number
from incremind_daemon.store.tokenizer import query_words

log = logging.getLogger(__name__)

MARK_OPEN = "«"
MARK_CLOSE = "»"
_LOOSE_FACTOR = 0.5  # an any-word hit ranks below an all-words hit of equal BM25
_TIER_ORDER = {"insight": 0, "summary": 1, "organized": 2, "raw": 3}
_TIER_WEIGHT = {"insight": 1.2, "summary": 1.1, "organized": 1.0, "raw": 0.9}


@dataclass(frozen=True, slots=True)
class _TierQuery:
    kind: str
    sql: str

    @property
    def tier(self) -> str:
        return TIER_OF_KIND[self.kind]


_QUERIES = (
    _TierQuery(
        "organized",
        f"""SELECT c.id, c.text, c.start, c."end", c.page,
                   snippet(chunks_fts, 0, '{MARK_OPEN}', '{MARK_CLOSE}', '…', 24),
                   bm25(chunks_fts), {SOURCE_COLUMNS}
            FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
            JOIN sources s ON s.id = c.source_id {SOURCE_JOIN}
            WHERE chunks_fts MATCH :match AND (:project IS NULL OR s.project = :project)
            ORDER BY bm25(chunks_fts) LIMIT :limit""",
    ),
    _TierQuery(
        "summary",
        f"""SELECT m.id, m.index_line || char(10) || m.summary, NULL, NULL, NULL,
                   snippet(summaries_fts, -1, '{MARK_OPEN}', '{MARK_CLOSE}', '…', 24),
                   bm25(summaries_fts, 2.0, 1.0), {SOURCE_COLUMNS}
            FROM summaries_fts JOIN summaries m ON m.id = summaries_fts.rowid
            JOIN sources s ON s.id = m.source_id {SOURCE_JOIN}
            WHERE summaries_fts MATCH :match AND (:project IS NULL OR s.project = :project)
            ORDER BY bm25(summaries_fts, 2.0, 1.0) LIMIT :limit""",
    ),
    _TierQuery(
        "message",
        f"""SELECT m.id, m.text, m.start, m."end", NULL,
                   snippet(messages_fts, 0, '{MARK_OPEN}', '{MARK_CLOSE}', '…', 24),
                   bm25(messages_fts), {SOURCE_COLUMNS}
            FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
            JOIN sources s ON s.id = m.source_id {SOURCE_JOIN}
            WHERE messages_fts MATCH :match AND m.dropped = 0 AND (:project IS NULL OR s.project = :project)
            ORDER BY bm25(messages_fts) LIMIT :limit""",
    ),
)


def quote_query(query: str, *, any_word: bool = False) -> str:
    """Turn user text into a safe FTS5 expression of quoted words.

    Raises QueryError when the text holds no searchable word.
    """
    words = query_words(query)
    if not words:
        raise QueryError(f"the query {query!r} has no searchable words; use letters, digits or Chinese characters")
    quoted = ['"' + word.replace('"', '""') + '"' for word in words]
    return (" OR " if any_word else " AND ").join(quoted)


def search(
    conn: apsw.Connection,
    query: str,
    *,
    home: Path,
    project: str | None = None,
    tier: str | None = None,
    limit: int = 10,
) -> list[Hit]:
    """Find passages and summaries by words; best first.

    Each hit's ``start``/``end`` index into its source's raw text (passages),
    so ``raw_text[start:end] == text``.
    """
    if tier is not None and tier not in TIERS:
        raise QueryError(f"unknown tier {tier!r}; choose one of {', '.join(TIERS)}")
    if limit < 1:
        raise QueryError("limit must be at least 1")
    if not query.strip():
        raise QueryError("the query is empty; give some words to look for")
    if not query_words(query):
        return []  # only punctuation or symbols: nothing can match, and that is no error
    strict = quote_query(query)
    hits = _run(conn, strict, home=home, project=project, tier=tier, limit=limit, factor=1.0)
    if len(hits) < limit and len(query_words(query)) > 1:
        seen = {h.id for h in hits}
        loose = quote_query(query, any_word=True)
        extra = _run(conn, loose, home=home, project=project, tier=tier, limit=limit, factor=_LOOSE_FACTOR)
        hits.extend(h for h in extra if h.id not in seen)
    hits.sort(key=lambda h: (-h.score, _TIER_ORDER[h.tier], -row_number(h.id)))
    return hits[:limit]


def _run(
    conn: apsw.Connection,
    match: str,
    *,
    home: Path,
    project: str | None,
    tier: str | None,
    limit: int,
    factor: float,
) -> list[Hit]:
    hits: list[Hit] = []
    for spec in _QUERIES:
        if tier is not None and spec.tier != tier:
            continue
        params = {"match": match, "project": project, "limit": limit}
        try:
            rows = fetch_rows(conn, spec.sql, params)
        except apsw.SQLError as exc:
            # quote_query should make this unreachable; keep the user out of a traceback
            log.warning("search failed for %r: %s", match, exc)
            raise QueryError(f"the search could not run ({exc}); try fewer or plainer words") from exc
        for row in rows:
            rowid, text, start, end, page, snippet, bm25 = row[:7]
            score = round(-float(bm25) * _TIER_WEIGHT[spec.tier] * factor, 6)
            hits.append(
                Hit(
                    id=item_id(spec.kind, int(rowid)),
                    tier=spec.tier,
                    score=score,
                    text=str(text),
                    source=make_source_ref(row[7:], home),
                    start=start,
                    end=end,
                    snippet=str(snippet),
                    page=page,
                    mode={"keyword": score},
                )
            )
    return hits
