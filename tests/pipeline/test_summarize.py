"""Summaries pick salient sentences with offsets and write a one-line index entry."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incremind_daemon.pipeline.organize import Passage
from incremind_daemon.pipeline.summarize import Summary, summarize_text

CHINESE_NOTE = """本文是我的读书笔记，仅供个人参考，转载请注明出处。

# 间隔重复

间隔重复是一种利用遗忘曲线来安排复习的记忆方法。
艾宾浩斯的实验表明，新学的内容在最初几天遗忘得最快，之后遗忘速度逐渐放缓。
如果在快要遗忘的时候复习，记忆会被重新巩固，下一次遗忘也会变慢。
所以复习的间隔应该逐渐拉长，而不是每天机械地重复同样的内容。
我的做法是按第 1、2、4、7、15 天的间隔复习，每次复习前先尝试回忆，再对照原文。
用 Anki 这样的软件可以自动安排复习间隔，省去手工记日程的麻烦。
昨天下雨了，图书馆里的人很多。
每张卡片只放一个知识点，复习时回忆更快，记忆也更牢。
回忆失败的卡片要缩短间隔，回忆轻松的卡片可以把间隔拉得更长。
坚持一个月后，我发现复习的总时间反而减少了。
下周打算把英语单词也改成间隔重复的方式来复习。

## 参考

- 《认知天性》第三章
"""
CHINESE_KEY_SENTENCE = "我的做法是按第 1、2、4、7、15 天的间隔复习，每次复习前先尝试回忆，再对照原文。"
CHINESE_BOILERPLATE = "本文是我的读书笔记，仅供个人参考，转载请注明出处。"

ENGLISH_ARTICLE = """This article was originally published on our company blog. Subscribe to get weekly updates.

Active Recall: Study Smarter
============================

Most students prepare for exams by rereading their notes and highlighting their textbooks.
It feels productive, but it mostly creates an illusion of knowing the material.
Active recall is the practice of retrieving information from memory instead of looking at it again.
Every time you retrieve a fact from memory, you strengthen the memory trace and make later recall easier.
Researchers call this the testing effect, and it has been replicated in hundreds of studies.
In one classic experiment, students who practised recall remembered far more a week later than students who reread.
The weather on the day of the exam did not seem to matter.
A simple way to use active recall is to close your notes and write down everything you remember.
Flashcards work well too, as long as you try to recall the answer before you flip the card.
Recall feels harder than rereading, and that difficulty is exactly what makes the memory stick.

Thanks for reading! Share this post with your friends.
"""
ENGLISH_KEY_SENTENCE = (
    "Active recall is the practice of retrieving information from memory instead of looking at it again."
)
ENGLISH_BOILERPLATE = "This article was originally published on our company blog."

MIXED_NOTE = """周会记录：讨论了检索方案。
我们决定用 SQLite FTS5 做关键词检索，用 sqlite-vec 存向量。
FTS5 的分词器用 jieba 处理中文，英文按单词切分。
Hybrid search fuses the FTS5 ranking and the vector ranking with reciprocal rank fusion.
午饭吃了面条。
向量检索依赖 embedding 模型，没有模型时退回到 FTS5 关键词检索。
Every search hit keeps the offsets of its passage, so the answer can be traced to the original text.
"""


@pytest.mark.parametrize(
    ("text", "key", "boilerplate"),
    [
        (CHINESE_NOTE, CHINESE_KEY_SENTENCE, CHINESE_BOILERPLATE),
        (ENGLISH_ARTICLE, ENGLISH_KEY_SENTENCE, ENGLISH_BOILERPLATE),
    ],
    ids=["chinese-note", "english-article"],
)
def test_summarize_picks_salient_middle_sentence_over_boilerplate_first_line(
    text: str, key: str, boilerplate: str
) -> None:
    picked = [s.text for s in summarize_text(text).sentences]
    assert key in picked
    assert boilerplate not in picked


@pytest.mark.parametrize(
    ("text", "offtopic"),
    [(CHINESE_NOTE, "昨天下雨了，图书馆里的人很多。"),
     (ENGLISH_ARTICLE, "The weather on the day of the exam did not seem to matter."),
     (MIXED_NOTE, "午饭吃了面条。")],
    ids=["chinese-note", "english-article", "mixed-note"],
)  # fmt: skip
def test_summarize_leaves_out_off_topic_sentence(text: str, offtopic: str) -> None:
    assert offtopic not in [s.text for s in summarize_text(text).sentences]


def test_summarize_picks_sentences_that_share_the_topic_when_text_is_mixed() -> None:
    picked = " ".join(s.text for s in summarize_text(MIXED_NOTE).sentences)
    assert "FTS5" in picked


@pytest.mark.parametrize("text", [CHINESE_NOTE, ENGLISH_ARTICLE, MIXED_NOTE])
def test_summary_sentences_slice_the_text_in_document_order(text: str) -> None:
    sentences = summarize_text(text).sentences
    assert sentences
    assert all(text[s.start : s.end] == s.text for s in sentences)
    assert [s.start for s in sentences] == sorted(s.start for s in sentences)


@pytest.mark.parametrize("max_sentences", [0, 1, 3, 5])
def test_summary_holds_at_most_max_sentences(max_sentences: int) -> None:
    long_text = ENGLISH_ARTICLE + "\n" + CHINESE_NOTE + "\n" + MIXED_NOTE
    assert len(summarize_text(long_text, max_sentences=max_sentences).sentences) <= max_sentences


def test_summary_holds_five_sentences_at_most_by_default() -> None:
    long_text = ENGLISH_ARTICLE + "\n" + CHINESE_NOTE + "\n" + MIXED_NOTE
    assert len(summarize_text(long_text).sentences) == 5


@pytest.mark.parametrize(
    "text", ["Active recall beats rereading.", "间隔重复比集中突击更有效。", "用 Anki 做间隔重复。"]
)
def test_summarize_returns_the_sentence_when_text_has_one_sentence(text: str) -> None:
    summary = summarize_text(text)
    assert summary.sentences == (Passage(text, 0, len(text)),)
    assert summary.index_line == text


@pytest.mark.parametrize("text", ["", "  \n\t", "```\ncode()\n```", "| a | b |\n|---|---|"])
def test_summarize_returns_title_and_no_sentences_when_text_has_none(text: str) -> None:
    assert summarize_text(text, title="Weekly review") == Summary("Weekly review", ())


@pytest.mark.parametrize(("title", "expected"), [("", "Spaced repetition"), ("notes_v2", "Spaced repetition")])
def test_index_line_falls_back_to_heading_when_text_has_only_headings(title: str, expected: str) -> None:
    assert summarize_text("# Spaced repetition\n\n## 间隔重复\n", title=title) == Summary(expected, ())


def test_summarize_skips_headings_tables_and_code() -> None:
    text = (
        "# Retrieval practice\n\n| step | day |\n|---|---|\n| review | 1 |\n\n"
        "```python\nschedule = [1, 2, 4, 7, 15]  # review days for retrieval practice\n```\n\n"
        "Retrieval practice makes review sessions shorter over time."
    )
    assert [s.text for s in summarize_text(text).sentences] == [
        "Retrieval practice makes review sessions shorter over time."
    ]


def test_summarize_skips_near_duplicate_sentences() -> None:
    text = (
        "Spaced repetition schedules each review just before you forget. "
        "Spaced repetition schedules every review just before you forget. "
        "Spaced repetition lets review intervals grow after each success. "
        "Review intervals in spaced repetition shrink after each failure."
    )
    picked = [s.text for s in summarize_text(text, max_sentences=2).sentences]
    assert len(picked) == 2
    assert not all(p.startswith("Spaced repetition schedules") for p in picked)


@pytest.mark.parametrize(
    ("title", "expected_start"),
    [("Active recall", "Active recall — "), ("间隔重复学习笔记", "间隔重复学习笔记 — "),
     ("spaced_repetition.md", "spaced repetition — ")],
)  # fmt: skip
def test_index_line_starts_with_title_when_title_is_informative(title: str, expected_start: str) -> None:
    assert summarize_text(ENGLISH_ARTICLE, title=title).index_line.startswith(expected_start)


@pytest.mark.parametrize("title", ["notes_2024_v2", "IMG_1234", "untitled.md", "2024-05-01", "新建文本文档"])
def test_index_line_leaves_out_title_when_title_is_a_file_stem(title: str) -> None:
    assert title not in summarize_text(ENGLISH_ARTICLE, title=title).index_line


def test_index_line_names_recurring_words_after_title() -> None:
    line = summarize_text(CHINESE_NOTE, title="间隔重复学习笔记").index_line
    assert "复习" in line.split(" — ", 1)[1]


def test_index_line_cuts_at_a_word_with_ellipsis_when_sentence_is_long() -> None:
    sentence = "Retrieval practice strengthens memory " * 4 + "because effortful recall builds durable traces."
    line = summarize_text(sentence).index_line
    assert len(line) <= 80 and line.endswith("…")
    assert line[:-1].split(" ")[-1] in sentence.split(" ")


@pytest.mark.parametrize(
    ("sentences", "expected"),
    [
        ((Passage("间隔重复有效。", 0, 7), Passage("复习要早。", 7, 12)), "间隔重复有效。复习要早。"),
        ((Passage("Recall works.", 0, 13), Passage("Test\n  yourself.", 14, 30)), "Recall works. Test yourself."),
        ((Passage("用 Anki 复习。", 0, 10), Passage("It helps.", 10, 19)), "用 Anki 复习。 It helps."),
    ],
    ids=["chinese", "english", "mixed"],
)
def test_summary_text_joins_sentences_by_script(sentences: tuple[Passage, ...], expected: str) -> None:
    assert Summary("x", sentences).text == expected


@pytest.mark.parametrize("text", [CHINESE_NOTE, ENGLISH_ARTICLE, MIXED_NOTE])
def test_summarize_gives_the_same_summary_when_run_twice(text: str) -> None:
    assert summarize_text(text, title="Notes on memory") == summarize_text(text, title="Notes on memory")


@settings(deadline=None, max_examples=150)
@given(
    text=st.one_of(
        st.text(max_size=600),
        st.lists(
            st.sampled_from(["复习", "间隔重复", "recall", "memory", "。", ". ", "\n", " ", "😀"]), max_size=200
        ).map("".join),
    ),
    title=st.text(max_size=200),
)
def test_index_line_is_one_line_of_at_most_80_characters(text: str, title: str) -> None:
    line = summarize_text(text, title=title).index_line
    assert len(line) <= 80
    assert "\n" not in line and "\r" not in line


@settings(deadline=None, max_examples=100)
@given(text=st.text(max_size=800), max_sentences=st.integers(0, 8))
def test_summary_sentences_never_exceed_max_sentences(text: str, max_sentences: int) -> None:
    summary = summarize_text(text, max_sentences=max_sentences)
    assert len(summary.sentences) <= max_sentences
    assert all(text[s.start : s.end] == s.text for s in summary.sentences)
