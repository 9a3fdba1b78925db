"""Passages and sentences keep exact offsets into the text they came from."""

from __future__ import annotations

import itertools
import random
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incremind_daemon.pipeline.organize import Passage, split_passages, split_sentences

ENGLISH = (
    "Active recall means pulling an idea out of memory instead of reading it again. "
    "Each retrieval strengthens the memory trace, so the next recall comes easier. "
    "Rereading feels productive, but it mostly builds familiarity with the page. "
    "Close the book, write down what you remember, then check the gaps. "
)
CHINESE = (
    "间隔重复是一种利用遗忘曲线安排复习的记忆方法。"
    "新学的内容在最初几天遗忘得最快，所以第一次复习要来得早。"
    "之后每次复习的间隔逐渐拉长，记忆也随之巩固。"
    "我按第 1、2、4、7、15 天复习，每次先回忆，再对照原文。"
)
MIXED = (
    "我用 Anki 做间隔重复，FSRS 算法会根据回忆结果安排下一次复习。"
    "The scheduler v1.2 estimates stability and difficulty for every card. "
    "卡片要短，一张卡片只问一个问题。"
)

# Pieces that stress the contract: words, CJK, emoji, lone and paired surrogates, marks, space runs.
PIECES = [
    "alpha", "recall", "memory", "v1.2", "3.14", "e.g.", "间隔", "重复", "复习", "。", "，", "；",
    ". ", "! ", "? ", ", ", "; ", ": ", " ", "   ", "\n", "\n\n", "\t", "\u3000", "😀", "\ud83d\ude00",
    "\ud83d", "\ude00", "\udc80", "e\u0301", "”", ")", "https://example.com/a", "-", "_",
]  # fmt: skip
CJK = re.compile(
    "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f\u3040-\u30ff\u31f0-\u31ff\uac00-\ud7af]"
)
texts = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=150).map("".join),
    st.text(max_size=400),
    st.text(alphabet=st.characters(codec=None, categories=["Cs", "Zs", "Lo", "Ll", "Po", "So"]), max_size=300),
)


def is_latin_word_char(char: str) -> bool:
    return char.isalnum() and not CJK.match(char)


def splits_surrogate_pair(text: str, index: int) -> bool:
    return 0 < index < len(text) and "\ud800" <= text[index - 1] <= "\udbff" and "\udc00" <= text[index] <= "\udfff"


def longest_unit(text: str) -> int:
    """Length of the longest run that may not be cut: a word with its marks, joiners, surrogate pairs."""
    longest = run = 1 if text else 0
    for index in range(1, len(text)):
        before, char = text[index - 1], text[index]
        glued = (
            (is_latin_word_char(before) and is_latin_word_char(char))
            or unicodedata.category(char).startswith("M")
            or "\u200d" in (before, char)
            or "\U0001f3fb" <= char <= "\U0001f3ff"
            or splits_surrogate_pair(text, index)
        )
        run = run + 1 if glued else 1
        longest = max(longest, run)
    return longest


def prose(sentences: str, paragraphs: int) -> str:
    rng = random.Random(7)
    parts = [sentences[i:] + sentences[:i] for i in (rng.randrange(len(sentences)) for _ in range(paragraphs))]
    return "\n\n".join(parts)


@pytest.mark.parametrize("text", ["", "   ", "\n\t\u3000\n"])
def test_split_passages_returns_nothing_when_text_is_blank(text: str) -> None:
    assert split_passages(text) == []


@pytest.mark.parametrize("text", [ENGLISH, CHINESE, MIXED])
def test_split_passages_returns_one_trimmed_passage_when_text_fits(text: str) -> None:
    padded = "\n  " + text + "  \n"
    assert split_passages(padded) == [Passage(text.strip(), 3, 3 + len(text.strip()))]


@pytest.mark.parametrize("text", [ENGLISH, CHINESE, MIXED])
def test_split_passages_cuts_at_paragraph_break_when_one_is_in_the_window(text: str) -> None:
    document = text + "\n\n" + text
    passages = split_passages(document, max_chars=len(text) + 40, overlap=0)
    assert [p.text for p in passages] == [text.strip(), text.strip()]


@pytest.mark.parametrize(
    ("text", "ending"),
    [(ENGLISH * 3, "."), (CHINESE * 3, "。")],
    ids=["english", "chinese"],
)
def test_split_passages_ends_passages_at_sentence_ends(text: str, ending: str) -> None:
    passages = split_passages(text, max_chars=200, overlap=40)
    assert all(p.text.endswith(ending) for p in passages)


@pytest.mark.parametrize("text", [prose(ENGLISH, 40), prose(CHINESE, 40), prose(MIXED, 40)])
def test_split_passages_overlap_is_roughly_as_configured(text: str) -> None:
    text = text.replace("\n\n", " ")  # one long paragraph: between paragraphs nothing overlaps
    passages = split_passages(text, max_chars=400, overlap=80)
    overlaps = [before.end - after.start for before, after in itertools.pairwise(passages)]
    assert len(passages) > 10
    assert all(40 <= overlap <= 120 for overlap in overlaps), overlaps


def test_split_passages_starts_overlap_after_a_sentence_or_space_when_text_is_latin() -> None:
    text = prose(ENGLISH, 30).replace("\n\n", " ")
    passages = split_passages(text, max_chars=300, overlap=60)
    assert all(text[p.start - 1].isspace() for p in passages[1:])
    assert sum(text[p.start - 2] == "." for p in passages[1:]) > len(passages) // 2


@pytest.mark.parametrize("language", ["english", "chinese"])
def test_split_passages_starts_each_paragraph_afresh_when_the_cut_falls_between_paragraphs(language: str) -> None:
    english = "I moved to Seattle in May and joined a climbing gym."
    said = english if language == "english" else "五月搬到了西雅图，还办了攀岩馆的卡。"
    paragraphs = [f"**{name}:** {said} ({i})" for i, name in enumerate(["Maya", "Tom"] * 15)]
    text = "\n\n".join(paragraphs)
    passages = split_passages(text, max_chars=200, overlap=60)
    assert len(passages) > 3
    assert all(before.end < after.start for before, after in itertools.pairwise(passages))
    assert all(p.text.startswith("**") for p in passages)  # a turn is never cut in two
    assert "\n\n".join(p.text for p in passages) == text


def test_split_passages_shares_nothing_when_overlap_is_zero() -> None:
    passages = split_passages(prose(MIXED, 20), max_chars=128, overlap=0)
    assert all(before.end <= after.start for before, after in itertools.pairwise(passages))


def test_split_passages_caps_overlap_when_it_exceeds_half_a_passage() -> None:
    passages = split_passages(prose(MIXED, 20).replace("\n\n", " "), max_chars=128, overlap=10_000)
    overlaps = [before.end - after.start for before, after in itertools.pairwise(passages)]
    assert all(0 < overlap <= 96 for overlap in overlaps), overlaps


def test_split_passages_hard_splits_a_word_longer_than_max_chars() -> None:
    text = "see " + "x" * 250 + " end"
    passages = split_passages(text, max_chars=100, overlap=10)
    assert all(len(p.text) <= 100 for p in passages)
    assert "".join(p.text for p in passages).count("x") >= 250


def test_split_passages_keeps_surrogate_pair_whole_when_hard_splitting() -> None:
    text = "\ud83d\ude00" * 100
    passages = split_passages(text, max_chars=33, overlap=0)
    assert all(p.start % 2 == 0 and p.end % 2 == 0 for p in passages)


@settings(deadline=None, max_examples=300)
@given(text=texts, max_chars=st.integers(2, 120), overlap=st.integers(0, 120))
def test_split_passages_slices_text_exactly_within_max_chars(text: str, max_chars: int, overlap: int) -> None:
    passages = split_passages(text, max_chars=max_chars, overlap=overlap)
    for passage in passages:
        assert text[passage.start : passage.end] == passage.text
        assert 0 < len(passage.text) <= max_chars
        assert not passage.text[0].isspace() and not passage.text[-1].isspace()
        assert not splits_surrogate_pair(text, passage.start) and not splits_surrogate_pair(text, passage.end)
    assert [p.start for p in passages] == sorted({p.start for p in passages})


@settings(deadline=None, max_examples=300)
@given(text=texts, max_chars=st.integers(2, 120), overlap=st.integers(0, 120))
def test_split_passages_covers_every_non_space_character(text: str, max_chars: int, overlap: int) -> None:
    covered = [False] * len(text)
    for passage in split_passages(text, max_chars=max_chars, overlap=overlap):
        covered[passage.start : passage.end] = [True] * (passage.end - passage.start)
    assert all(covered[i] for i, char in enumerate(text) if not char.isspace())


@settings(deadline=None, max_examples=300)
@given(text=texts, max_chars=st.integers(24, 160), overlap=st.integers(0, 160))
def test_split_passages_never_cuts_a_word_when_words_are_short(text: str, max_chars: int, overlap: int) -> None:
    if longest_unit(text) >= max_chars:
        return
    for passage in split_passages(text, max_chars=max_chars, overlap=overlap):
        for boundary in (passage.start, passage.end):
            if 0 < boundary < len(text):
                assert not (is_latin_word_char(text[boundary - 1]) and is_latin_word_char(text[boundary]))


def test_split_passages_finishes_five_megabytes_of_mixed_text() -> None:
    text = prose(ENGLISH + CHINESE + MIXED, 10_000)
    assert len(text) > 5_000_000
    passages = split_passages(text)
    assert passages[-1].end == len(text.rstrip())


def test_split_passages_rejects_max_chars_below_two() -> None:
    with pytest.raises(ValueError, match="max_chars"):
        split_passages("text", max_chars=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Use active recall, e.g. flashcards. It works in v1.2 too. Pi is 3.14 here.",
            ["Use active recall, e.g. flashcards.", "It works in v1.2 too.", "Pi is 3.14 here."],
        ),
        (
            "Mr. Smith said \"Test yourself.\" Then he left! Did it help? See https://example.com/a.b for more.",
            ['Mr. Smith said "Test yourself."', "Then he left!", "Did it help?",
             "See https://example.com/a.b for more."],
        ),
        (
            "间隔重复利用遗忘曲线。我按第 1、2、4、7、15 天复习！效果好吗？“很好。”结束……然后继续",
            ["间隔重复利用遗忘曲线。", "我按第 1、2、4、7、15 天复习！", "效果好吗？",
             "“很好。”", "结束……", "然后继续"],
        ),
        (
            # an abbreviation inside an opening quote or bracket ends no sentence
            "所有价格一律显示含 GST（后面加 “incl. GST”），后台录入的也是含税价。Prices show [approx. Two] rows.",
            ["所有价格一律显示含 GST（后面加 “incl. GST”），后台录入的也是含税价。", "Prices show [approx. Two] rows."],
        ),
        (
            "我用 Anki 复习。The FSRS scheduler is v4.5 now. 然后调整参数。",
            ["我用 Anki 复习。", "The FSRS scheduler is v4.5 now.", "然后调整参数。"],
        ),
        (
            "# Active recall\n\n- Test yourself first.\n- Then check the answer\n"
            "  against your notes.\n1. Close the book",
            ["Active recall", "Test yourself first.", "Then check the answer\n  against your notes.", "Close the book"],
        ),
        (
            "Spaced repetition spreads reviews\nover growing intervals.\nIt beats cramming.",
            ["Spaced repetition spreads reviews\nover growing intervals.", "It beats cramming."],
        ),
        (
            "**Deadline moved: the draft is now due April 8.** Zhou wants time. Use *pnpm*. Keep foo_bar. Next.",
            ["**Deadline moved: the draft is now due April 8.**", "Zhou wants time.", "Use *pnpm*.",
             "Keep foo_bar.", "Next."],
        ),
        (
            "**截止改到 4 月 8 日。**周老师要多留时间看。别改 template。",
            ["**截止改到 4 月 8 日。**", "周老师要多留时间看。", "别改 template。"],
        ),
        (
            "Keep the numbering: use sequential versions (goose's -s style, 00001_…), not timestamps. Thanks.",
            ["Keep the numbering: use sequential versions (goose's -s style, 00001_…), not timestamps.", "Thanks."],
        ),
        (
            "我想想……，还是用 pnpm 吧。版本号用 00001_…、00002_…，不用时间戳。",
            ["我想想……，还是用 pnpm 吧。", "版本号用 00001_…、00002_…，不用时间戳。"],
        ),
        (
            # no sentence opens on a dash: what follows it is the same sentence's (found in a tuning half)
            "Use conventional commits — feat(consumer): ..., fix(settings): ... — in all my repos. Split it.",
            ["Use conventional commits — feat(consumer): ..., fix(settings): ... — in all my repos.", "Split it."],
        ),
    ],
    ids=["english-abbreviations", "english-quotes-urls", "chinese", "abbreviation-in-quotes", "mixed", "markdown",
         "wrapped-lines",
         "english-emphasis", "chinese-emphasis", "english-ellipsis-mid-clause", "chinese-ellipsis-mid-clause",
         "english-ellipsis-before-a-dash"],
)  # fmt: skip
def test_split_sentences_finds_sentence_spans(text: str, expected: list[str]) -> None:
    assert [s.text for s in split_sentences(text)] == expected


@settings(deadline=None, max_examples=300)
@given(text=texts)
def test_split_sentences_slices_text_exactly_in_order(text: str) -> None:
    sentences = split_sentences(text)
    for sentence in sentences:
        assert text[sentence.start : sentence.end] == sentence.text
        assert sentence.text.strip() == sentence.text != ""
    assert all(a.end <= b.start for a, b in itertools.pairwise(sentences))
