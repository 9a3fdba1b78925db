"""Fusion of a keyword and a vector ranking, on rankings written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from incremind_daemon.errors import QueryError
from incremind_daemon.store.db import connect
from incremind_daemon.store.search import search
from incremind_daemon.store.semantic import GATE_COVERAGE, Ranked, fuse, kinds_for, word_coverage

KEYWORD = [
    Ranked("organized", 1, 9.0, {"keyword": 9.0}),
    Ranked("organized", 2, 5.0, {"keyword": 5.0}),
    Ranked("organized", 3, 1.0, {"keyword": 1.0}),
]
VECTOR = [
    Ranked("organized", 4, 0.62, {"vector": 0.62}),
    Ranked("organized", 2, 0.55, {"vector": 0.55}),
    Ranked("organized", 5, 0.30, {"vector": 0.30}),
]


def order(ranked: list[Ranked]) -> list[int]:
    return [r.item for r in ranked]


def test_gated_fusion_lets_keywords_lead_when_the_best_keyword_hit_holds_the_query() -> None:
    fused = fuse(KEYWORD, VECTOR, method="gated", limit=5, coverage=1.0)
    assert order(fused)[:2] == [1, 2]


def test_gated_fusion_lets_meaning_lead_when_keywords_matched_few_words() -> None:
    fused = order(fuse(KEYWORD, VECTOR, method="gated", limit=5, coverage=GATE_COVERAGE / 2))
    assert fused.index(4) < fused.index(1)


def test_fused_hit_keeps_both_mode_scores() -> None:
    fused = {r.item: r for r in fuse(KEYWORD, VECTOR, method="gated", limit=5, coverage=0.0)}
    assert fused[2].mode == {"keyword": 5.0, "vector": 0.55}
    assert fused[4].mode == {"vector": 0.62}


@pytest.mark.parametrize("method", ["gated", "weighted", "rrf"])
def test_fusion_answers_from_one_list_when_the_other_is_empty(method: str) -> None:
    assert order(fuse([], VECTOR, method=method, limit=3)) == [4, 2, 5]
    assert order(fuse(KEYWORD, [], method=method, limit=3, coverage=1.0)) == [1, 2, 3]


def test_rrf_ranks_an_item_in_both_lists_first() -> None:
    assert order(fuse(KEYWORD, VECTOR, method="rrf", limit=5))[0] == 2


def test_equal_scores_go_to_the_more_distilled_tier_then_the_newer_row() -> None:
    tied = [
        Ranked("organized", 7, 1.0, {"keyword": 1.0}),
        Ranked("summary", 3, 1.0, {"keyword": 1.0}),
        Ranked("organized", 9, 1.0, {"keyword": 1.0}),
    ]
    fused = fuse(tied, [], method="weighted", limit=3)
    assert [(r.kind, r.item) for r in fused] == [("summary", 3), ("organized", 9), ("organized", 7)]


def test_word_coverage_folds_width_case_and_traditional_characters() -> None:
    assert word_coverage("間隔 uses ＡＮＫＩ", ["间隔", "anki", "port", "cards"]) == 0.5


def test_kinds_for_a_tier_lists_only_kinds_search_can_show() -> None:
    assert kinds_for("organized") == ("organized",)
    assert kinds_for("raw") == ("message",)
    # with no tier a session is searched through its passages, which hold every message
    assert set(kinds_for(None)) == {"organized", "summary", "insight"}


def test_search_rejects_an_unknown_fusion(tmp_path: Path) -> None:
    conn = connect(tmp_path / "memory.db")
    try:
        with pytest.raises(QueryError, match="unknown fusion"):
            search(conn, "port", home=tmp_path, fusion="max")
    finally:
        conn.close()
