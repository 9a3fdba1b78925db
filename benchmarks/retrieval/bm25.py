"""The simplest baseline every retrieval harness compares with: plain Okapi BM25 over pre-cut words."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence


def bm25_ranker(docs: Sequence[list[str]], k1: float = 1.5, b: float = 0.75) -> Callable[[list[str]], list[int]]:
    """Build Okapi BM25 (Lucene's idf) over docs; it ranks the docs sharing a word with a query, best first."""
    bags = [Counter(d) for d in docs]
    norms = [k1 * (1 - b + b * len(d) * len(docs) / max(1, sum(map(len, docs)))) for d in docs]
    frequency = Counter(w for bag in bags for w in bag)
    idf = {w: math.log(1 + (len(docs) - n + 0.5) / (n + 0.5)) for w, n in frequency.items()}

    def rank(query: list[str]) -> list[int]:
        words = set(query)
        scores = {
            i: sum(idf[w] * bag[w] * (k1 + 1) / (bag[w] + norm) for w in words & bag.keys())
            for i, (bag, norm) in enumerate(zip(bags, norms, strict=True))
            if words & bag.keys()
        }
        return sorted(scores, key=lambda i: (-scores[i], i))

    return rank
