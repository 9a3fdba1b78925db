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
from incremind_daemon.store.db import fetch_row, fetch_rows
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.items import HIT_SQL, make_source_ref
from incremind_daemon.store.records import TIER_OF_KIND, TIERS, Hit, item_id, row_number
from incremind_daemon.store.semantic import fuse, vector_search
from incremind_daemon.store.tokenizer import fold_text, query_words

log = logging.getLogger(__name__)

MODES = ("keyword", "vector", "hybrid")
DEFAULT_FUSION = "weighted"  # chosen on benchmarks/retrieval: see its README
CANDIDATES = 50  # each list's depth before fusion
MARK_OPEN = "«"
MARK_CLOSE = "»"
_LOOSE_FACTOR = 0.5  # an any-word hit ranks below an all-words hit of equal BM25
_TIER_ORDER = {"insight": 0, "summary": 1, "organized": 2, "raw": 3}
_TIER_WEIGHT = {"insight": 1.2, "summary": 1.1, "organized": 1.0, "raw": 0.9}


@dataclass(frozen=True, slots=True)
class _TierQuery:
    """How one kind of item is ranked by words: its FTS table, BM25 weights and filters."""

    kind: str
    table: str
    weights: str  # extra bm25() arguments (column weights)
    project_filter: str  # rowids of the project's items
    live_filter: str = ""  # rowids that must not answer (rewound messages)

    @property
    def tier(self) -> str:
        return TIER_OF_KIND[self.kind]

    def rank_sql(self) -> str:
        live = f" AND f.rowid NOT IN ({self.live_filter})" if self.live_filter else ""
        return f"""SELECT f.rowid, bm25({self.table}{self.weights}) AS score FROM {self.table} f
                   WHERE {self.table} MATCH :match{live}
                     AND (:project IS NULL OR f.rowid IN ({self.project_filter}))
                   ORDER BY score LIMIT :limit"""


_QUERIES = (
    _TierQuery(
        "organized",
        "chunks_fts",
        "",
        "SELECT c.id FROM chunks c JOIN sources s ON s.id = c.source_id WHERE s.project = :project",
    ),
    _TierQuery(
        "summary",
        "summaries_fts",
        ", 2.0, 1.0",
        "SELECT m.id FROM summaries m JOIN sources s ON s.id = m.source_id WHERE s.project = :project",
    ),
    _TierQuery(
        "message",
        "messages_fts",
        "",
        "SELECT m.id FROM messages m JOIN sources s ON s.id = m.source_id WHERE s.project = :project",
        "SELECT id FROM messages WHERE dropped = 1",
    ),
)


def quote_query(query: str, *, any_word: bool = False) -> str:
    """Turn user text into a safe FTS5 expression of quoted words.

    Raises QueryError when the text holds no searchable word.
    """
    words = query_words(query)
    if not words:
        raise QueryError(f"the query {query!r} has no searchable words; use letters, digits or Chinese characters")
    return quote_words(words, any_word=any_word)


def quote_words(words: list[str], *, any_word: bool = False) -> str:
    """Join already-cut query words into an FTS5 expression, each quoted."""
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
    mode: str | None = None,
    embedder: Embedder | None = None,
    fusion: str = DEFAULT_FUSION,
) -> list[Hit]:
    """Find passages, summaries and messages by words and by meaning; best first.

    ``mode`` is keyword, vector or hybrid; None picks hybrid when an embedder
    with vectors is at hand, else keyword. Each hit's ``start``/``end`` index
    into its source's raw text, so ``raw_text[start:end] == text`` for
    passages, and every hit's ``mode`` holds the score each mode gave it.
    """
    if tier is not None and tier not in TIERS:
        raise QueryError(f"unknown tier {tier!r}; choose one of {', '.join(TIERS)}")
    if limit < 1:
        raise QueryError("limit must be at least 1")
    if mode is not None and mode not in MODES:
        raise QueryError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    if not query.strip():
        raise QueryError("the query is empty; give some words to look for")
    wanted = mode or ("hybrid" if embedder is not None else "keyword")
    if wanted == "keyword" or embedder is None:
        if wanted != "keyword":
            raise QueryError(f"{wanted} search needs an embedding model; set embedding.backend or use --mode keyword")
        return keyword_search(conn, query, home=home, project=project, tier=tier, limit=limit)
    pool = max(limit, CANDIDATES)
    vector = vector_search(conn, embedder, query, home=home, project=project, tier=tier, limit=pool)
    if vector is None:  # no vectors for this model yet: keywords answer, and say so in each hit's mode
        return keyword_search(conn, query, home=home, project=project, tier=tier, limit=limit)
    if wanted == "vector":
        return vector[:limit]
    keyword = keyword_search(conn, query, home=home, project=project, tier=tier, limit=pool)
    return fuse(keyword, vector, method=fusion, limit=limit)


def keyword_search(
    conn: apsw.Connection,
    query: str,
    *,
    home: Path,
    project: str | None = None,
    tier: str | None = None,
    limit: int = 10,
) -> list[Hit]:
    """Find items by words alone (FTS5 BM25); best first."""
    words = query_words(query)
    if not words:
        return []  # only punctuation or symbols: nothing can match, and that is no error
    strict = quote_words(words)
    hits = _run(conn, strict, home=home, project=project, tier=tier, limit=limit, factor=1.0, words=words)
    if len(hits) < limit and len(words) > 1:
        seen = {h.id for h in hits}
        loose = quote_words(words, any_word=True)
        extra = _run(conn, loose, home=home, project=project, tier=tier, limit=limit, factor=_LOOSE_FACTOR, words=words)
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
    words: list[str],
) -> list[Hit]:
    hits: list[Hit] = []
    for spec in _QUERIES:
        if tier is not None and spec.tier != tier:
            continue
        try:
            # rank on the index alone, then look up the few rows kept; snippets are marked
            # here rather than by FTS5's snippet(), which re-tokenizes every row it touches
            ranked = fetch_rows(conn, spec.rank_sql(), {"match": match, "project": project, "limit": limit})
            for rowid, bm25 in ranked:
                row = fetch_row(conn, HIT_SQL[spec.kind], (rowid,))
                if row is None:
                    continue
                score = round(-float(bm25) * _TIER_WEIGHT[spec.tier] * factor, 6)
                hits.append(
                    Hit(
                        id=item_id(spec.kind, int(rowid)),
                        tier=spec.tier,
                        score=score,
                        text=str(row[0]),
                        source=make_source_ref(row[4:], home),
                        start=row[1],
                        end=row[2],
                        snippet=mark_snippet(str(row[0]), words),
                        page=row[3],
                        mode={"keyword": score},
                    )
                )
        except apsw.SQLError as exc:
            # quote_query should make this unreachable; keep the user out of a traceback
            log.warning("search failed for %r: %s", match, exc)
            raise QueryError(f"the search could not run ({exc}); try fewer or plainer words") from exc
    return hits


SNIPPET_WIDTH = 160


def mark_snippet(text: str, words: list[str], *, width: int = SNIPPET_WIDTH) -> str:
    """Cut a window of text around the first query word and mark every word in it «like this».

    Matching is on the folded text (width, case, traditional characters), the
    same folding the index uses, so what the index matched is what is marked.
    """
    folded, offsets = fold_text(text)
    spans: list[tuple[int, int]] = []
    for word in words:
        at = folded.find(word)
        while at != -1 and len(spans) < 64:
            spans.append((offsets[at], offsets[at + len(word)]))
            at = folded.find(word, at + len(word))
    spans.sort()
    first = spans[0][0] if spans else 0
    begin = max(0, first - width // 4)
    end = min(len(text), begin + width)
    out: list[str] = ["…" if begin else ""]
    cursor = begin
    for start, stop in spans:
        if start < cursor or stop > end:
            continue
        out += [text[cursor:start], MARK_OPEN, text[start:stop], MARK_CLOSE]
        cursor = stop
    out += [text[cursor:end], "…" if end < len(text) else ""]
    return " ".join("".join(out).split())
