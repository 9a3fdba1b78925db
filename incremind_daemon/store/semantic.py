"""Rank items by meaning, and fuse that ranking with the keyword ranking.

Both rankings are lists of ``Ranked`` items (kind, row, score): no row is
read and no snippet is cut until fusion has chosen the few hits returned.

Fusion methods (the default is chosen on benchmarks/retrieval, not by taste):
- ``gated``: each list's scores are scaled to [0, 1] over the list (min-max)
  and mixed with a vector weight set by how well the words matched: when the
  best keyword hit holds at least GATE_COVERAGE of the query's words the
  keywords lead (weight 0.2 on vectors), else the vectors do (0.6). A
  paraphrase or a question in the other language shares few words with its
  answer, so its best keyword hit is a weak one, and that is what trusts
  meaning over words.
- ``weighted``: keyword scores scaled by the best keyword hit, times 0.4,
  plus 0.6 times the cosine; one weight for every query.
- ``rrf``: reciprocal rank fusion, 1/(60 + rank) summed over both lists; kept
  as the baseline.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import apsw

from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.items import HIT_SQL
from incremind_daemon.store.records import KIND_BY_PREFIX, TIER_OF_KIND, UNLESS_ASKED
from incremind_daemon.store.tokenizer import fold_text
from incremind_daemon.store.vectors import KIND_CODES, active_model, nearest

log = logging.getLogger(__name__)

FUSIONS = ("gated", "weighted", "rrf")
FUSION_DEPTH = 20  # each list's depth before fusion: deeper lists let more near-misses in (see the retrieval README)
RRF_K = 60
VECTOR_WEIGHT = 0.6  # 'weighted' everywhere; 'gated' when the keywords matched poorly
KEYWORD_LED_WEIGHT = 0.2  # 'gated' when the best keyword hit holds most of the query's words
GATE_COVERAGE = 0.6
KINDS_OF_TIER = {
    tier: tuple(kind for kind in KIND_BY_PREFIX.values() if TIER_OF_KIND[kind] == tier and kind in KIND_CODES)
    for tier in set(TIER_OF_KIND.values())
}
TIER_ORDER = {"insight": 0, "summary": 1, "organized": 2, "raw": 3}  # ties go to the more distilled tier


@dataclass(frozen=True, slots=True)
class Ranked:
    """One item of a ranking, before its row is read; ``mode`` holds each mode's score."""

    kind: str
    item: int
    score: float
    mode: dict[str, float] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, int]:
        return self.kind, self.item


def best_first(ranked: Ranked) -> tuple[float, int, int]:
    """Order a ranking: score, then the more distilled tier, then the newer item."""
    return -ranked.score, TIER_ORDER[TIER_OF_KIND[ranked.kind]], -ranked.item


def kinds_for(tier: str | None) -> tuple[str, ...]:
    """Return the item kinds a tier filter allows, of those search can show."""
    kinds = KINDS_OF_TIER.get(tier, ()) if tier is not None else tuple(k for k in KIND_CODES if k not in UNLESS_ASKED)
    return tuple(kind for kind in kinds if kind in HIT_SQL)


def rank_by_meaning(
    conn: apsw.Connection,
    embedder: Embedder,
    query: str,
    *,
    project: str | None,
    tier: str | None,
    limit: int,
) -> list[Ranked] | None:
    """Rank items by cosine to the query, or return None when no vectors of this model exist."""
    model = active_model(conn)
    if model is None or model.key != embedder.identity.key:
        return None
    kinds = kinds_for(tier)
    if not kinds:
        return []
    vector = embedder.embed_query(query)
    found = nearest(conn, model.key, vector, limit=limit, kinds=kinds, project=project)
    return [Ranked(hit.kind, hit.item, round(hit.similarity, 6), {"vector": round(hit.similarity, 6)}) for hit in found]


def word_coverage(text: str, words: Sequence[str]) -> float:
    """Return the share of query words found in a text, folded as the index folds it."""
    if not words:
        return 0.0
    folded, _ = fold_text(text)
    return sum(1 for word in words if word in folded) / len(words)


def fuse(
    keyword: Sequence[Ranked],
    vector: Sequence[Ranked],
    *,
    method: str,
    limit: int,
    coverage: float = 0.0,
) -> list[Ranked]:
    """Merge a keyword and a vector ranking into one, best first.

    ``coverage`` is the share of the query's words in the best keyword hit
    (see word_coverage); only 'gated' reads it. Equal scores go to the more
    distilled tier, then to the newer row.
    """
    if method not in FUSIONS:
        raise ValueError(f"unknown fusion {method!r}; choose one of {', '.join(FUSIONS)}")
    if method == "rrf":
        parts = [_reciprocal_ranks(keyword), _reciprocal_ranks(vector)]
    elif method == "weighted":
        top = max((r.score for r in keyword), default=0.0) or 1.0
        parts = [
            {item.key: (1 - VECTOR_WEIGHT) * item.score / top for item in keyword},
            {item.key: VECTOR_WEIGHT * max(item.score, 0.0) for item in vector},
        ]
    else:
        weight = VECTOR_WEIGHT if coverage < GATE_COVERAGE else KEYWORD_LED_WEIGHT
        parts = [_min_max(keyword, 1 - weight), _min_max(vector, weight)]
    scores: dict[tuple[str, int], float] = {}
    merged: dict[tuple[str, int], Ranked] = {}
    for ranked, part in zip((keyword, vector), parts, strict=True):
        for item in ranked:
            scores[item.key] = scores.get(item.key, 0.0) + part[item.key]
            seen = merged.get(item.key)
            merged[item.key] = item if seen is None else replace(seen, mode={**seen.mode, **item.mode})
    best = sorted(merged, key=lambda key: (-round(scores[key], 6), TIER_ORDER[TIER_OF_KIND[key[0]]], -key[1]))
    return [replace(merged[key], score=round(scores[key], 6)) for key in best[:limit]]


def _reciprocal_ranks(ranked: Sequence[Ranked]) -> dict[tuple[str, int], float]:
    return {item.key: 1.0 / (RRF_K + rank) for rank, item in enumerate(ranked, start=1)}


def _min_max(ranked: Sequence[Ranked], weight: float) -> dict[tuple[str, int], float]:
    """Scale a list's scores to [0, 1] by its best and worst, times weight; a lone score counts 1."""
    if not ranked:
        return {}
    high = max(item.score for item in ranked)
    low = min(item.score for item in ranked)
    span = high - low
    return {item.key: weight * ((item.score - low) / span if span > 0 else 1.0) for item in ranked}
