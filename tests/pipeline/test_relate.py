"""A candidate repeats, supplements, contradicts or is new to what the person knows."""

from __future__ import annotations

import pytest

from incremind_daemon.config import InsightSettings
from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.features import similarity
from incremind_daemon.pipeline.relate import Known, Relation, relate
from incremind_daemon.store.records import Candidate

THRESHOLDS = InsightSettings()

ARTICLE_EN = """# Active recall and adaptive intervals

Spaced repetition means reviewing on days 1, 2, 4, 7, 15.
But fixed intervals are too coarse; adjust by difficulty.
Answer from memory before flipping the card.
"""
ARTICLE_ZH = """# 主动回忆与自适应间隔
间隔重复就是按第 1、2、4、7、15 天复习。
但固定间隔太粗糙，应该按难度调整。
复习时先自答再翻面。
"""
KNOWN_EN = Known(1, "Review on days 1, 2, 4, 7, 15", "When learning new vocabulary", "method")
KNOWN_ZH = Known(2, "按第 1、2、4、7、15 天复习", "背新单词时", "method")
OTHER = Known(9, "The API listens on port 8080", "", "entity")


def related(candidate: Candidate, known: list[Known]) -> Relation:
    return relate(
        candidate,
        known,
        repeat_similarity=THRESHOLDS.repeat_similarity,
        related_similarity=THRESHOLDS.related_similarity,
    )


def as_candidate(statement: str, condition: str = "") -> Candidate:
    return Candidate(statement, "method", condition, statement, 0, len(statement))


@pytest.mark.parametrize(
    ("article", "known", "restated", "different", "new"),
    [
        (ARTICLE_EN, KNOWN_EN, "reviewing on days", "Fixed intervals are too coarse", "Answer from memory"),
        (ARTICLE_ZH, KNOWN_ZH, "间隔重复就是", "固定间隔太粗糙", "复习时先自答再翻面"),
    ],
)
def test_later_article_yields_only_increments_over_spaced_repetition(
    article: str, known: Known, restated: str, different: str, new: str
) -> None:
    relations = {c.statement: related(c, [OTHER, known]) for c in extract_candidates(article)}
    kinds = {next(s for s in relations if part in s): relations[next(s for s in relations if part in s)].kind
             for part in (restated, different, new)}  # fmt: skip
    assert list(kinds.values()) == ["repeat", "different", "new"], relations
    differing = next(r for s, r in relations.items() if different in s)
    assert differing.known_id == known.id
    assert [r.kind for r in relations.values()].count("new") == 1  # nothing restating spaced repetition is new


@pytest.mark.parametrize(
    ("known", "statement", "condition", "kind"),
    [
        (KNOWN_EN, "Review on days 1, 2, 4, 7 and 15", "", "repeat"),
        (KNOWN_EN, "Review on days 1, 2, 4, 7, 15 and add day 30 for words you keep missing", "", "supplement"),
        (KNOWN_EN, "Review on days 1, 3, 7, 14", "", "different"),
        (KNOWN_ZH, "按第 1、2、4、7、15 天复习，总记错的单词再加第 30 天", "", "supplement"),
        (KNOWN_ZH, "按第 1、3、7、14 天复习", "", "different"),
        (OTHER, "The API listens on port 8080", "when running in Docker", "supplement"),
        (OTHER, "The API listens on port 9090", "", "different"),
        (OTHER, "API 服务监听 8080 端口", "", "repeat"),
        (Known(3, "I prefer tabs over spaces in Go code", "", "preference"), "In Go code I prefer tabs to spaces", "",
         "repeat"),
        (Known(3, "I prefer tabs over spaces in Go code", "", "preference"), "Use spaces, never tabs, even in Go code",
         "", "different"),
        (Known(4, "用 uv 安装 Python 依赖", "", "preference"), "别用 uv 装依赖，CI 只支持 pip", "", "different"),
        (Known(4, "用 uv 安装 Python 依赖", "", "preference"), "每个项目单独建虚拟环境", "", "new"),
        (Known(5, "Use uv to install Python dependencies", "", "preference"),
         "Use uv to install Python dependencies and commit uv.lock", "", "supplement"),
        (Known(6, "Use ruff for linting and formatting", "", "preference"), "用 ruff 做 lint 和格式化", "",
         "repeat"),
    ],
)  # fmt: skip
def test_relation_of_candidate_to_known_insight(known: Known, statement: str, condition: str, kind: str) -> None:
    relation = related(as_candidate(statement, condition), [known])
    assert relation.kind == kind, relation
    assert relation.known_id == (None if kind == "new" else known.id)


def test_best_matching_known_insight_is_the_one_linked() -> None:
    known = [OTHER, KNOWN_EN, Known(7, "Keep each card small: one question, one answer", "", "method")]
    relation = related(as_candidate("Review cards on days 1, 2, 4, 7 and 15"), known)
    assert (relation.kind, relation.known_id) == ("repeat", KNOWN_EN.id)


def test_no_known_insight_means_new() -> None:
    assert related(as_candidate("Answer from memory"), []) == Relation("new", None, 0.0)


def test_vector_similarity_links_a_paraphrase_the_words_miss() -> None:
    candidate = as_candidate("Test yourself before turning the flashcard over")
    known = Known(8, "Answer from memory before flipping the card", "", "method")
    assert related(candidate, [known]).kind == "new"
    with_vector = Known(8, known.statement, "", "method", vector_similarity=0.92)
    relation = related(candidate, [with_vector])
    assert relation.kind in ("repeat", "supplement") and relation.known_id == 8
    assert relation.similarity >= THRESHOLDS.related_similarity


def test_vector_similarity_does_not_lower_a_lexical_match() -> None:
    low_vector = Known(KNOWN_EN.id, KNOWN_EN.statement, KNOWN_EN.condition, "method", vector_similarity=0.0)
    candidate = as_candidate("Review on days 1, 2, 4, 7, 15", "When learning new vocabulary")
    assert related(candidate, [low_vector]).kind == "repeat"


@pytest.mark.parametrize(
    ("a", "b", "low", "high"),
    [
        ("Review on days 1, 2, 4, 7, 15", "review on days 1, 2, 4, 7, 15", 1.0, 1.0),
        ("按第 1、2、4、7、15 天复习", "按第1、2、4、7、15天复习", 1.0, 1.0),
        ("復習間隔", "复习间隔", 1.0, 1.0),  # traditional characters fold to simplified
        ("按第 1、2、4、7、15 天复习", "Review on days 1, 2, 4, 7, 15", 0.6, 0.95),  # concepts and numbers meet
        ("我一周跑步三次，每次五公里", "每周跑三次步，每次 5 公里", 0.5, 1.0),  # Chinese numerals are numbers
        ("The API listens on port 8080", "The API listens on port 9090", 0.4, 0.9),  # numbers matter
        ("Answer from memory before flipping the card", "The API listens on port 8080", 0.0, 0.0),
        ("", "anything", 0.0, 0.0),
    ],
)
def test_similarity_is_bounded_and_bilingual(a: str, b: str, low: float, high: float) -> None:
    value = similarity(a, b)
    assert low <= value <= high
    assert value == pytest.approx(similarity(b, a))
