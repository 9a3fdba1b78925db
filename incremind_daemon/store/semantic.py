"""Search by meaning, and fuse it with keyword search.

Fusion methods (the default is chosen on benchmarks/retrieval, not by taste):
- ``rrf``: reciprocal rank fusion, 1/(60 + rank) summed over both lists.
- ``weighted``: each list's scores scaled to [0, 1] by its best hit, then
  mixed with a weight on the vector side; a keyword hit keeps a floor so an
  exact identifier match is never buried by vague neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import apsw

from incremind_daemon.store.db import fetch_row
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.items import HIT_SQL, make_source_ref
from incremind_daemon.store.records import TIER_OF_KIND, Hit, item_id
from incremind_daemon.store.vectors import active_model, nearest

RRF_K = 60
VECTOR_WEIGHT = 0.6
SNIPPET_CHARS = 160
KINDS_OF_TIER = {"raw": ("message",), "organized": ("organized",), "summary": ("summary",), "insight": ("insight",)}


def kinds_for(tier: str | None) -> tuple[str, ...]:
    """Return the item kinds a tier filter allows."""
    if tier is None:
        return ("organized", "summary", "message")
    return tuple(kind for kind in KINDS_OF_TIER[tier] if kind in HIT_SQL)


def vector_search(
    conn: apsw.Connection,
    embedder: Embedder,
    query: str,
    *,
    home: Path,
    project: str | None,
    tier: str | None,
    limit: int,
) -> list[Hit] | None:
    """Return the nearest items by meaning, or None when no vectors of this model exist."""
    model = active_model(conn)
    if model is None or model.key != embedder.identity.key:
        return None
    kinds = kinds_for(tier)
    if not kinds:
        return []
    vector = embedder.embed_query(query)
    hits: list[Hit] = []
    for found in nearest(conn, model.key, vector, limit=limit, kinds=kinds, project=project):
        row = fetch_row(conn, HIT_SQL[found.kind], (found.item,))
        if row is None:
            continue
        text = str(row[0])
        score = round(found.similarity, 6)
        hits.append(
            Hit(
                id=item_id(found.kind, found.item),
                tier=TIER_OF_KIND[found.kind],
                score=score,
                text=text,
                source=make_source_ref(row[4:], home),
                start=row[1],
                end=row[2],
                snippet=_snippet(text),
                page=row[3],
                mode={"vector": score},
            )
        )
    return hits


def fuse(keyword: Sequence[Hit], vector: Sequence[Hit], *, method: str, limit: int) -> list[Hit]:
    """Merge a keyword list and a vector list into one ranking."""
    merged: dict[str, Hit] = {}
    scores: dict[str, float] = {}
    if method == "rrf":
        for ranked in (keyword, vector):
            for rank, hit in enumerate(ranked, start=1):
                scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (RRF_K + rank)
                merged[hit.id] = _combine(merged.get(hit.id), hit)
    else:
        top_keyword = max((h.score for h in keyword), default=0.0) or 1.0
        for hit in keyword:
            scores[hit.id] = (1 - VECTOR_WEIGHT) * hit.score / top_keyword
            merged[hit.id] = hit
        for hit in vector:
            scores[hit.id] = scores.get(hit.id, 0.0) + VECTOR_WEIGHT * max(hit.score, 0.0)
            merged[hit.id] = _combine(merged.get(hit.id), hit)
    best = sorted(merged, key=lambda key: -scores[key])[:limit]
    return [replace(merged[key], score=round(scores[key], 6)) for key in best]


def _combine(first: Hit | None, second: Hit) -> Hit:
    """Keep the keyword hit's marked snippet and both modes' scores."""
    if first is None:
        return second
    return replace(first, mode={**first.mode, **second.mode})


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[:SNIPPET_CHARS] + "…"
