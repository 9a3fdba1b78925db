"""Search passages, summaries and messages by words, by meaning, or both.

User text never reaches FTS5 as syntax: it is cut into words by the same
tokenizer the index uses, and each word is quoted. All words must match
first; when that finds fewer than ``limit`` results, any word may match, and
those looser hits rank below the strict ones. When the best hit holds less than
GATE_COVERAGE of the words, the other language's words for the concepts the
query names (``glossary.bridge_words``) are looked up too, any of them: in full
when the best hit by meaning is in the other language than the query, less
when it is in the same (a paraphrase, likely).

BM25 costs a few microseconds per matching row, and a word found in a third
of a large memory matches tens of thousands: so each kind of item ranks at
most the newest MAX_SCORED rows of its match set, and the any-word fallback
leaves out words that alone match more than that (they add little to BM25
and most of its cost). Below MAX_SCORED matches, ranking is exact.

Every query is cut before any work (``cut_query``): to MAX_QUERY_CHARS
characters, then to MAX_QUERY_WORDS words, and the any-word fallback probes
at most MAX_ANY_WORDS of them per kind of item; so no query, however long,
costs more than a bounded number of FTS5 queries and tokens embedded.

Each mode ranks items without reading their rows; rows are read, and
snippets marked, only for the hits that are returned (see semantic.py for
ranking by meaning and for fusion).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import apsw

from incremind_daemon.errors import QueryError
from incremind_daemon.store import clock
from incremind_daemon.store.db import Row, fetch_row, fetch_rows
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.glossary import bridge_words, is_chinese
from incremind_daemon.store.items import HIT_SQL, make_source_ref
from incremind_daemon.store.on_days import openings_of_the_days
from incremind_daemon.store.query_parts import query_parts
from incremind_daemon.store.records import MODES, TIER_OF_KIND, TIERS, Hit, item_id
from incremind_daemon.store.retired import retired_last
from incremind_daemon.store.semantic import (
    FUSION_DEPTH,
    FUSIONS,
    GATE_COVERAGE,
    Ranked,
    best_first,
    fuse,
    kinds_for,
    rank_by_meaning,
    word_coverage,
)
from incremind_daemon.store.snippet import mark_snippet
from incremind_daemon.store.tokenizer import iter_tokens, query_words, quote_words, register_tokenizer
from incremind_daemon.store.unmatched import split_unmatched
from incremind_daemon.store.when import TimeRange, time_range

log = logging.getLogger(__name__)

DEFAULT_FUSION = "gated"  # chosen on benchmarks/retrieval: see its README
_LOOSE_FACTOR = 0.5  # an any-word hit ranks below an all-words hit of equal BM25
_BRIDGE_FACTOR = 1.0  # a hit through the other language's words (glossary.bridge_words)
_SAME_LANGUAGE_BRIDGE = 0.3  # the same, when the best hit is in the question's language: a paraphrase, likely
_TIER_WEIGHT = {"insight": 1.2, "summary": 1.1, "organized": 1.0, "raw": 0.9}
MAX_SCORED = 2_000  # rows of one kind BM25 ranks per query: p95 latency at 100k passages (benchmarks/semantic.py)
# A question or a pasted error message fits. Uncut, a 450 KB query made the embedder take 2 GB
# and a 300 KB one ran the any-word step for 7 minutes (issue 17; see benchmarks/attack_inputs.py).
MAX_QUERY_CHARS = 2_000
MAX_QUERY_WORDS = 64
MAX_ANY_WORDS = 32  # words the any-word fallback probes, each with one FTS5 query per kind of item


@dataclass(frozen=True, slots=True)
class QueryCut:
    """A query as it is searched: at most MAX_QUERY_CHARS characters and MAX_QUERY_WORDS words.

    ``text`` is a prefix of the query as given, ending at the end of a word;
    ``words`` are its distinct searchable words (stopwords dropped when
    others remain), in order.
    """

    text: str
    words: tuple[str, ...]
    given_chars: int  # the length of the query as given
    kept_words: int  # words (token positions) left in text

    @property
    def is_cut(self) -> bool:
        return len(self.text) < self.given_chars

    def note(self) -> str | None:
        """Say how the query was cut, in a sentence for the person or the model; None when it was not."""
        if not self.is_cut:
            return None
        words = "word" if self.kept_words == 1 else f"{self.kept_words} words"
        return (
            f"The query was cut: only its first {words} ({len(self.text):,} of "
            f"{self.given_chars:,} characters) were searched, as a query is cut to {MAX_QUERY_WORDS} words "
            f"and {MAX_QUERY_CHARS:,} characters; search for the few words that matter."
        )


def cut_query(query: str) -> QueryCut:
    """Cut a query to MAX_QUERY_CHARS characters, then to MAX_QUERY_WORDS words, at a word's end.

    The characters are cut first, so the tokenizer never sees more than
    MAX_QUERY_CHARS of them. A word the character cut splits is left out
    (unless it is the only one): its first letters would match other words.
    """
    text = query[:MAX_QUERY_CHARS]
    tokens = list(iter_tokens(text, for_query=True))
    end = len(text)
    split_word = len(query) > end and text[-1:].isalnum() and query[end].isalnum()
    if split_word and len(tokens) > 1 and tokens[-1].end == end:
        tokens.pop()
        end = tokens[-1].end
    if len(tokens) > MAX_QUERY_WORDS:
        del tokens[MAX_QUERY_WORDS:]
        end = tokens[-1].end
    text = text[:end]
    words = query_words(text)[:MAX_QUERY_WORDS]  # a long Chinese word may give several pieces
    return QueryCut(text, tuple(words), len(query), len(tokens))


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

    def _where(self) -> str:
        live = f" AND f.rowid NOT IN ({self.live_filter})" if self.live_filter else ""
        return f"""WHERE {self.table} MATCH :match{live}
                     AND (:project IS NULL OR f.rowid IN ({self.project_filter}))"""

    def rank_sql(self) -> str:
        """Rank the matching rows from :floor up (0: all of them) by BM25, best first."""
        return f"""SELECT f.rowid, bm25({self.table}{self.weights}) AS score FROM {self.table} f
                   {self._where()} AND f.rowid >= :floor
                   ORDER BY score LIMIT :limit"""

    def floor_sql(self) -> str:
        """Find the rowid of the :cap-th newest matching row, if there are that many."""
        return f"SELECT f.rowid FROM {self.table} f {self._where()} ORDER BY f.rowid DESC LIMIT 1 OFFSET :cap"

    def exceeds_sql(self) -> str:
        """Tell whether a match expression alone matches more than :cap rows (no filters: a word's reach)."""
        return f"SELECT 1 FROM {self.table} WHERE {self.table} MATCH :match LIMIT 1 OFFSET :cap"


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
    _TierQuery(
        "insight",
        "insights_fts",
        ", 2.0, 1.0",
        # a project's own insights and the global ones (who the person is, how to talk to them)
        "SELECT id FROM insights WHERE project = :project OR scope = 'global'",
        # only what the person confirmed counts, unless another status is asked for (superseded ones)
        "SELECT id FROM insights WHERE status != :insight_status",
    ),
)


def quote_query(query: str, *, any_word: bool = False) -> str:
    """Turn user text into a safe FTS5 expression of quoted words.

    The text is cut first, as every query is (see ``cut_query``). Raises
    QueryError when the text holds no searchable word.
    """
    words = list(cut_query(query).words)
    if not words:
        shown = query if len(query) <= 80 else query[:80] + "…"
        raise QueryError(f"the query {shown!r} has no searchable words; use letters, digits or Chinese characters")
    return quote_words(words, any_word=any_word)


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
    insight_status: str = "confirmed",
) -> list[Hit]:
    """Find passages, summaries and messages by words and by meaning; best first.

    The query is cut first (``cut_query`` tells a caller whether and how).
    ``mode`` is keyword, vector or hybrid; None picks hybrid when an
    embedder with vectors is at hand, else keyword. Each hit's
    ``start``/``end`` index into its source's raw text, so
    ``raw_text[start:end] == text`` for passages, and every hit's ``mode``
    holds the score each mode gave it.
    """
    if tier is not None and tier not in TIERS:
        raise QueryError(f"unknown tier {tier!r}; choose one of {', '.join(TIERS)}")
    if limit < 1:
        raise QueryError("limit must be at least 1")
    if mode is not None and mode not in MODES:
        raise QueryError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    if fusion not in FUSIONS:
        raise QueryError(f"unknown fusion {fusion!r}; choose one of {', '.join(FUSIONS)}")
    if not query.strip():
        raise QueryError("the query is empty; give some words to look for")
    wanted = mode or ("hybrid" if embedder is not None else "keyword")
    if wanted != "keyword" and embedder is None:
        raise QueryError(f"{wanted} search needs an embedding model; set embedding.backend or use --mode keyword")
    cut = cut_query(query)
    window = time_range(cut.text, clock.now().astimezone())
    look_up = partial(
        _ranked_hits,
        conn,
        home=home,
        project=project,
        tier=tier,
        limit=limit,
        wanted=wanted,
        embedder=embedder,
        fusion=fusion,
        insight_status=insight_status,
    )
    hits = look_up(cut)
    parts = query_parts(cut.text)
    if parts:  # a question that asks several things: each part's best results take turns with the whole's
        hits = take_turns(hits, [look_up(cut_query(part)) for part in parts])
    if window is not None:  # "last week", "in May 2025", "去年": what is from those days comes first
        deeper = look_up(cut, limit=WINDOW_FACTOR * limit)
        hits = from_those_days(hits, deeper, window)
        if not hits or not window.holds(hits[0].source.date):  # the words found nothing of those days worth it
            days = openings_of_the_days(conn, window, project=project, tier=tier, score=hits[0].score if hits else 1.0)
            opening = read_hits(conn, days, home, list(cut.words))
            listed = {hit.id for hit in opening}
            hits = opening + [hit for hit in hits if hit.id not in listed]
    if insight_status == "confirmed":  # what a newer decision replaced comes after what holds now
        hits = retired_last(conn, hits)
    return one_per_summary(hits, limit)


SPARE_HITS = 10  # summaries rank above passages of equal score: their passages come a little further down
WINDOW_FACTOR = 3  # a question that names days also ranks three times as deep, for what is from those days


def from_those_days(hits: list[Hit], deeper: list[Hit], window: TimeRange) -> list[Hit]:
    """Put the hits from a question's days first: in their order, then those only a deeper ranking found;
    the other hits follow in their order. A hit that barely matched stays among the others.

    The deeper ranking only adds: its fusion is scaled over longer lists, so
    its order is not the shallow one's, and a question whose days hold all
    of the memory ("this year") keeps the order it would have had.
    """
    known = {hit.id for hit in hits}
    within = _from_then(hits, window) + [hit for hit in _from_then(deeper, window) if hit.id not in known]
    taken = {hit.id for hit in within}
    return within + [hit for hit in hits if hit.id not in taken]


WINDOW_FLOOR = 0.05  # a hit from the named days that scored under this share of the best stays where it was


def _from_then(ranking: list[Hit], window: TimeRange) -> list[Hit]:
    """Return the hits of a ranking from the named days that matched the question at all (not just came
    along: in a small memory every item is some distance away by meaning), in order."""
    best = max((hit.score for hit in ranking), default=0.0)
    return [hit for hit in ranking if window.holds(hit.source.date) and (best <= 0 or hit.score >= WINDOW_FLOOR * best)]


def _ranked_hits(
    conn: apsw.Connection,
    cut: QueryCut,
    *,
    home: Path,
    project: str | None,
    tier: str | None,
    limit: int,
    wanted: str,
    embedder: Embedder | None,
    fusion: str,
    insight_status: str,
) -> list[Hit]:
    """Rank one cut query in the wanted mode; return up to 2 x limit + SPARE_HITS hits, best first."""
    words = split_unmatched(conn, list(cut.words))  # "晓雨学" glued by the segmenter: 晓雨, 学
    bridged = [word for word in bridge_words(cut.text) if word not in words]  # "测试" also looks for "test"
    deeper = 2 * limit + SPARE_HITS  # room for the passages that take the place of their source's summary
    # alone, the vectors read as deep as the words do: the nearest items are often insights still pending
    # (embedded to relate new candidates by meaning), which never answer a search
    depth = deeper if wanted == "vector" else max(limit, FUSION_DEPTH)
    vector = None
    if embedder is not None and wanted != "keyword":
        vector = rank_by_meaning(conn, embedder, cut.text, project=project, tier=tier, limit=depth)
    status = insight_status
    if vector is None:  # keyword mode, or no vectors for this model yet: keywords answer, and each hit says so
        ranked = rank_by_words(
            conn,
            words,
            project=project,
            tier=tier,
            limit=deeper,
            insight_status=status,
            bridged=bridged,
            asked_in_chinese=is_chinese(cut.text),
        )
        return read_hits(conn, ranked, home, words, insight_status=status)
    if wanted == "vector":
        return read_hits(conn, vector, home, words, insight_status=status)
    keyword = rank_by_words(
        conn,
        words,
        project=project,
        tier=tier,
        limit=max(depth, deeper),
        insight_status=status,
        bridged=bridged,
        asked_in_chinese=is_chinese(cut.text),
        material=vector,
    )
    top = _hit_row(conn, keyword[0], status) if keyword else None
    coverage = word_coverage(str(top[0]), words) if top is not None else 0.0
    fused = fuse(keyword, vector, method=fusion, limit=deeper, coverage=coverage)
    return read_hits(conn, fused, home, words, insight_status=status)


def take_turns(whole: list[Hit], parts: Sequence[list[Hit]]) -> list[Hit]:
    """Merge the whole question's hits with its parts': every other hit is the whole's, between them
    each part's next hit in rotation; each hit once.

    The whole keeps half the places, as a part split by rule may ask less well than the whole
    (on the retrieval sets, strict rotation lost 0.010 of the conversations' held-out evidence).
    """
    merged: list[Hit] = []
    seen: set[str] = set()
    queues = [iter(whole), *(iter(hits) for hits in parts)]
    turn = 0
    while queues:
        queue = queues[0] if turn % 2 == 0 or len(queues) == 1 else queues[1 + (turn // 2) % (len(queues) - 1)]
        turn += 1
        hit = next(queue, None)
        if hit is None:
            queues.remove(queue)
            continue
        if hit.id not in seen:
            seen.add(hit.id)
            merged.append(hit)
    return merged


def one_per_summary(hits: list[Hit], limit: int) -> list[Hit]:
    """Let a source's best passage or message stand in for its summary; return the first ``limit``.

    A summary is a digest of its source: when a passage or message of the same
    source was found too, that one (the words that matched, with offsets into
    the raw text) takes the summary's rank, and the source is not listed
    twice. A one-sentence note would otherwise come back as its summary and as
    its passage, the same text twice. A summary whose source has nothing else
    among the hits stays.
    """
    best: dict[str, Hit] = {}
    for hit in hits:
        if hit.tier not in ("summary", "insight"):
            best.setdefault(hit.source.id, hit)
    kept: list[Hit] = []
    used: set[str] = set()
    for hit in hits:
        if hit.tier == "summary":
            stand_in = best.get(hit.source.id)
            if stand_in is not None:  # at the summary's rank, with its score: what the source scored
                hit = replace(stand_in, score=max(stand_in.score, hit.score))
        if hit.id in used:
            continue
        used.add(hit.id)
        kept.append(hit)
        if len(kept) == limit:
            break
    return kept


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
    words = list(cut_query(query).words)
    return read_hits(conn, rank_by_words(conn, words, project=project, tier=tier, limit=limit), home, words)


def vector_search(
    conn: apsw.Connection,
    embedder: Embedder,
    query: str,
    *,
    home: Path,
    project: str | None = None,
    tier: str | None = None,
    limit: int = 10,
) -> list[Hit] | None:
    """Find items by meaning alone; None when no vectors of the embedder's model exist."""
    cut = cut_query(query)
    ranked = rank_by_meaning(conn, embedder, cut.text, project=project, tier=tier, limit=limit)
    return None if ranked is None else read_hits(conn, ranked, home, list(cut.words))


def rank_by_words(
    conn: apsw.Connection,
    words: list[str],
    *,
    project: str | None,
    tier: str | None,
    limit: int,
    insight_status: str = "confirmed",
    bridged: Sequence[str] = (),
    asked_in_chinese: bool = False,
    material: Sequence[Ranked] | None = None,
) -> list[Ranked]:
    """Rank items by BM25 over already-cut query words (at most MAX_QUERY_WORDS used); no row is read here.

    ``bridged`` are the other language's words for the concepts the query names
    (``glossary.bridge_words``): any of them may match, in a pass of its own.
    """
    words = words[:MAX_QUERY_WORDS]
    if not words:
        return []  # only punctuation or symbols: nothing can match, and that is no error
    rank = partial(_rank, conn, project=project, tier=tier, limit=limit, insight_status=insight_status)
    ranked = rank(words, any_word=False, factor=1.0)
    seen = {r.key for r in ranked}
    if len(ranked) < limit and len(words) > 1:
        loose = rank(words, any_word=True, factor=_LOOSE_FACTOR)
        ranked.extend(r for r in loose if r.key not in seen)
        seen.update(r.key for r in loose)
    factor = _bridge_factor(conn, ranked, words, insight_status, asked_in_chinese, material) if bridged else 0.0
    if factor > 0:
        ranked.extend(r for r in rank(list(bridged[:MAX_ANY_WORDS]), any_word=True, factor=factor) if r.key not in seen)
    ranked.sort(key=best_first)
    return ranked[:limit]


def _bridge_factor(
    conn: apsw.Connection,
    ranked: list[Ranked],
    words: list[str],
    insight_status: str,
    asked_in_chinese: bool,
    material: Sequence[Ranked] | None,
) -> float:
    """Weigh hits through the other language's words: 0 when the best hit by the question's own words
    holds GATE_COVERAGE of them; full when the best hit by meaning (without vectors: by the own words)
    is in the other language than the question, or there is none; else _SAME_LANGUAGE_BRIDGE."""
    own = min(ranked, key=best_first) if ranked else None
    row = _hit_row(conn, own, insight_status) if own is not None else None
    if row is not None and word_coverage(str(row[0]), words) >= GATE_COVERAGE:
        return 0.0
    if material is not None:
        row = _hit_row(conn, material[0], insight_status) if material else None
    if row is None or is_chinese(str(row[0])) != asked_in_chinese:
        return _BRIDGE_FACTOR
    return _SAME_LANGUAGE_BRIDGE


def _rank(
    conn: apsw.Connection,
    words: list[str],
    *,
    project: str | None,
    tier: str | None,
    limit: int,
    any_word: bool,
    factor: float,
    insight_status: str,
) -> list[Ranked]:
    """Rank each kind of item by BM25: all words must match, or any that is not too common."""
    ranked: list[Ranked] = []
    kinds = kinds_for(tier)  # the kinds ranking by meaning looks through too
    for spec in _QUERIES:
        if spec.kind not in kinds:
            continue
        try:
            match = quote_words(_telling_words(conn, spec, words), any_word=True) if any_word else quote_words(words)
            params = {
                "match": match,
                "project": project,
                "limit": limit,
                "cap": MAX_SCORED - 1,
                "insight_status": insight_status,
            }
            # rank on the index alone; rows are read, and snippets marked, only for the hits returned,
            # rather than by FTS5's snippet(), which re-tokenizes every row it touches
            floor = fetch_row(conn, spec.floor_sql(), params)
            rows = fetch_rows(conn, spec.rank_sql(), {**params, "floor": 0 if floor is None else floor[0]})
        except apsw.SQLError as exc:
            # quote_query should make this unreachable; keep the user out of a traceback
            log.warning("search failed for %r: %s", words, exc)
            raise QueryError(f"the search could not run ({exc}); try fewer or plainer words") from exc
        for rowid, bm25 in rows:
            score = round(-float(bm25) * _TIER_WEIGHT[spec.tier] * factor, 6)
            ranked.append(Ranked(spec.kind, int(rowid), score, {"keyword": score}))
    return ranked


def _telling_words(conn: apsw.Connection, spec: _TierQuery, words: list[str]) -> list[str]:
    """Return those of the first MAX_ANY_WORDS words that alone match at most MAX_SCORED rows of a table.

    All of those first words when none does; one FTS5 query per word probed.
    """
    probed = words[:MAX_ANY_WORDS]
    rare = [
        word
        for word in probed
        if fetch_row(conn, spec.exceeds_sql(), {"match": quote_words([word]), "cap": MAX_SCORED - 1}) is None
    ]
    return rare or probed


def _hit_row(conn: apsw.Connection, item: Ranked, insight_status: str) -> Row | None:
    params = (item.item, insight_status) if item.kind == "insight" else (item.item,)
    return fetch_row(conn, HIT_SQL[item.kind], params)


def read_hits(
    conn: apsw.Connection, ranked: Sequence[Ranked], home: Path, words: list[str], *, insight_status: str = "confirmed"
) -> list[Hit]:
    """Read the rows of ranked items and build their hits, in order; a row gone since is skipped."""
    hits: list[Hit] = []
    for item in ranked:
        row = _hit_row(conn, item, insight_status)
        if row is None:
            continue
        text = str(row[0])
        hits.append(
            Hit(
                id=item_id(item.kind, item.item),
                tier=TIER_OF_KIND[item.kind],
                score=item.score,
                text=text,
                source=make_source_ref(row[4:], home),
                start=row[1],
                end=row[2],
                snippet=mark_snippet(text, words),
                page=row[3],
                mode=dict(item.mode),
            )
        )
    return hits


def probe_index(text: str, query: str) -> int:
    """Index ``text`` alone in a scratch FTS5 table, as passages are indexed, and count matches of ``query``.

    This is doctor's check of the segmenter: raises apsw.Error if the tokenizer cannot run.
    """
    conn = apsw.Connection(":memory:")
    try:
        register_tokenizer(conn)
        conn.execute("CREATE VIRTUAL TABLE probe USING fts5 (text, tokenize='porter incremind')")
        conn.execute("INSERT INTO probe (text) VALUES (?)", (text,))
        row = fetch_row(conn, "SELECT count(*) FROM probe WHERE probe MATCH ?", (quote_query(query),))
        return 0 if row is None else int(row[0])
    finally:
        conn.close()
