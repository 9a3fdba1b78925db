"""Ranking metrics for one query's results, and their means over groups of queries.

Relevance is binary. Every cut-off counts distinct relevant passages, so a query with two
relevant passages has recall@k 0.5 when only one of them is in the first k.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields

EVIDENCE_CHARS = 4_000
HIT_SEPARATOR = "\n\n"  # how returned texts are concatenated for the evidence budget


@dataclass(frozen=True, slots=True)
class Scores:
    """The figures of one query, or the means of a group of queries."""

    recall_5: float
    recall_10: float
    mrr: float  # reciprocal rank of the first relevant passage within the first 10, else 0
    ndcg_10: float
    evidence_4k: float  # share of relevant passages whose text lies in the first 4,000 returned characters


COLUMNS = {
    "recall_5": "recall@5",
    "recall_10": "recall@10",
    "mrr": "MRR",
    "ndcg_10": "nDCG@10",
    "evidence_4k": "evidence@4k",
}


def score_query(
    ranked: Sequence[str | None], texts: Sequence[str], relevant: Sequence[str], text_of: dict[str, str]
) -> Scores:
    """Score one result list.

    ``ranked`` holds the set's passage id of each hit in order (None for a hit that is no set
    passage, such as a summary); ``texts`` the text each hit returned.
    """
    wanted = set(relevant)
    first_rank: dict[str, int] = {}
    for rank, pid in enumerate(ranked, start=1):
        if pid in wanted and pid not in first_rank:
            first_rank[pid] = rank
    ranks = sorted(first_rank.values())
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(len(wanted), 10) + 1))
    context = HIT_SEPARATOR.join(texts)[:EVIDENCE_CHARS]
    return Scores(
        recall_5=sum(1 for r in ranks if r <= 5) / len(wanted),
        recall_10=sum(1 for r in ranks if r <= 10) / len(wanted),
        mrr=1 / ranks[0] if ranks and ranks[0] <= 10 else 0.0,
        ndcg_10=sum(1 / math.log2(r + 1) for r in ranks if r <= 10) / ideal,
        evidence_4k=sum(1 for pid in wanted if text_of[pid] in context) / len(wanted),
    )


def mean_scores(scores: Sequence[Scores]) -> Scores:
    """Average each figure over a group of queries."""
    if not scores:
        return Scores(0.0, 0.0, 0.0, 0.0, 0.0)
    return Scores(*(sum(getattr(s, f.name) for s in scores) / len(scores) for f in fields(Scores)))
