"""Organize cleaned text into passages and sentences (the L1 tier).

Every span keeps character offsets into the text it came from, so
``text[p.start:p.end] == p.text`` always holds and any hit drills down to the
original words. Spans never start or end on whitespace, never fall between the
two halves of a surrogate pair, and never cut a Latin word unless that word
alone is longer than a passage.
"""

from __future__ import annotations

import itertools
import logging
import re
import unicodedata
from dataclasses import dataclass

from incremind_daemon.store.charsets import CJK, CJK_CHAR

log = logging.getLogger(__name__)

_WORD_CHAR = re.compile(rf"[^\W_{CJK}]")
_CLOSERS = "\"'”’」』）)\\]】》〉"

# Cut positions by preference; each pattern names the cut by its start or its end.
_PARAGRAPH = re.compile(r"\n[^\S\n]*\n")
_NEWLINE = re.compile(r"\n")
# lookbehinds start a match only at the head of a punctuation run, so long runs stay linear
_SENTENCE_END = re.compile(rf"(?<![。！？；…])[。！？；…]++[{_CLOSERS}]*+|(?<![.!?])[.!?]++[{_CLOSERS}]*+(?=\s|\Z)")
_CLAUSE_END = re.compile(r"[，、；：]|[,;:](?=\s)")
_WHITESPACE = re.compile(r"\s+")
_LEVELS: tuple[tuple[re.Pattern[str], bool], ...] = (
    (_PARAGRAPH, False),
    (_NEWLINE, False),
    (_SENTENCE_END, True),
    (_CLAUSE_END, True),
    (_WHITESPACE, False),
)
_WORD_RUN = re.compile(rf"[^\W_{CJK}]+")
_WORD_TAIL = re.compile(rf"[^\W_{CJK}]*+\Z")

# Where the content after an overlap may begin, by preference.
_SENTENCE_START = re.compile(
    rf"(?<![.!?])[.!?]++[{_CLOSERS}]*+\s+|(?<![。！？；…])[。！？；…]++[{_CLOSERS}]*+\s*|\n\s*"
)
_CLAUSE_START = re.compile(r"[，、；：]\s*|[,;:]\s+")
_OVERLAP_STARTS = (_SENTENCE_START, _CLAUSE_START, _WHITESPACE)

# Sentences: terminators, and the line breaks that end a sentence.
# a sentence may end inside emphasis: "**Deadline moved: now due April 8.** Zhou wants…"
_EMPHASIS_CLOSE = rf"(?:(?:\*{{1,3}}|_{{1,3}}|~~)[{_CLOSERS}]*)?"
_SENTENCE_BREAK = re.compile(
    rf"(?P<cjk>[。！？]+[…]*[{_CLOSERS}]*{_EMPHASIS_CLOSE}|…+[{_CLOSERS}]*{_EMPHASIS_CLOSE})"
    rf"|(?P<latin>[.!?]+[{_CLOSERS}]*{_EMPHASIS_CLOSE})"
    r"|(?P<newline>\n[^\S\n]*(?:\n[^\S\n]*)*)"
)
_CLAUSE_GOES_ON = frozenset(",，;；:：、")  # what never opens a sentence: a mark before it ends none
_BLOCK_LINE = re.compile(r"[ \t]*(?:#|[-*+•][ \t]|>|\||```|~~~|\d+[.)、][ \t]|[=-]{3,}[ \t]*$)", re.M)
_CLOSED_LINE = re.compile(r"[ \t]*(?:#|\||```|~~~|[=-]{3,}[ \t]*$)", re.M)
_LINE_MARKER = re.compile(r"(?:[ \t]*(?:#{1,6}|[-*+•]|>|\d+[.)])[ \t]+)+")
# fmt: off
_ABBREVIATIONS = frozenset({
    "e.g", "i.e", "eg", "ie", "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "cf",
    "fig", "figs", "no", "nos", "vol", "al", "approx", "inc", "incl", "excl", "ltd", "co", "dept", "est",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    "u.s", "u.k", "a.m", "p.m", "ph.d",
})
# fmt: on


@dataclass(frozen=True, slots=True)
class Passage:
    text: str
    start: int  # character offsets into the raw text, so every hit drills down to the original
    end: int


# What one search result reads: a conversation turn or two with their neighbours, a paragraph. Passages
# of 384 characters found more of the evidence within 4,000 returned characters than 768 did (0.69 ->
# 0.79 on benchmarks/retrieval/conversations' held-out half), as a long one dilutes its vector and
# spends the reader's budget on text around the one turn that answers.
PASSAGE_CHARS = 384
PASSAGE_OVERLAP = 64


def split_passages(text: str, *, max_chars: int = PASSAGE_CHARS, overlap: int = PASSAGE_OVERLAP) -> list[Passage]:
    """Split cleaned text near paragraph, then sentence, boundaries.

    Cuts prefer, in order: a blank line, a newline, a sentence end, a clause
    end, whitespace, a CJK character boundary. Consecutive passages share
    about ``overlap`` characters, starting at a sentence or word boundary,
    unless the cut falls between paragraphs: then the next passage starts
    with the next paragraph and nothing is read twice.
    """
    if max_chars < 2:
        raise ValueError(f"max_chars must be at least 2, not {max_chars}")
    overlap = max(0, min(overlap, max_chars // 2))
    start = _skip_space(text, 0)
    last = _trim_end(text, start, len(text))
    passages: list[Passage] = []
    min_cut = start + 1
    while start < last:
        if last - start <= max_chars:
            passages.append(Passage(text[start:last], start, last))
            break
        cut = _find_cut(text, start, min_cut, max_chars)
        end = _trim_end(text, start, cut)
        passages.append(Passage(text[start:end], start, end))
        following = _skip_space(text, cut)
        # a passage that ends at a paragraph's end needs no overlap: the next one starts a new paragraph
        at_paragraph = _PARAGRAPH.search(text, end, following + 1) is not None
        start = following if at_paragraph else _overlap_start(text, start, end, following, overlap, max_chars)
        min_cut = following + 1
    return passages


def split_sentences(text: str) -> list[Passage]:
    """Split text into sentences with offsets, for Chinese, English and mixed text.

    Leading list, quote and heading markers are left out of a sentence's span.
    """
    breaks = [0]
    for match in _SENTENCE_BREAK.finditer(text):
        if match.lastgroup == "cjk":
            # "goose's -s style, 00001_…), not timestamps", "我想想……，还是用 pnpm": a clause goes on after the marks
            if text[match.end() : match.end() + 1] not in _CLAUSE_GOES_ON:
                breaks.append(match.end())
        elif match.lastgroup == "latin":
            if _is_latin_sentence_end(text, match):
                breaks.append(match.end())
        elif _is_line_sentence_end(text, match):
            breaks.append(match.start())
    breaks.append(len(text))
    sentences: list[Passage] = []
    for begin, finish in itertools.pairwise(breaks):
        start = _skip_space(text, begin)
        line_start = _line_start(text, start)
        marker = None if line_start is None else _LINE_MARKER.match(text, line_start, finish)
        if marker and marker.end() > start:
            start = _skip_space(text, marker.end())
        end = _trim_end(text, start, finish)
        if end > start:
            sentences.append(Passage(text[start:end], start, end))
    return sentences


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Return ``(start, end)`` moved past the whitespace at either end of ``text[start:end]``."""
    start = min(_skip_space(text, start), end)
    return start, _trim_end(text, start, end)


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index].isspace():
        index += 1
    return index


def _trim_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _is_word_char(char: str) -> bool:
    return _WORD_CHAR.match(char) is not None


def _splits_pair(text: str, index: int) -> bool:
    return "\ud800" <= text[index - 1] <= "\udbff" and "\udc00" <= text[index] <= "\udfff"


def _splits_cluster(text: str, index: int) -> bool:
    """Return whether index falls inside a surrogate pair or before a combining mark."""
    if index <= 0 or index >= len(text):
        return False
    before, after = text[index - 1], text[index]
    if _splits_pair(text, index):
        return True
    # keep a base character with its combining marks, joiners and emoji modifiers
    if "\u200d" in (before, after) or "\U0001f3fb" <= after <= "\U0001f3ff":
        return True
    return unicodedata.category(after).startswith("M")


def _is_free(text: str, index: int) -> bool:
    """Return whether a span may begin or end at index."""
    if index <= 0 or index >= len(text):
        return True
    before, after = text[index - 1], text[index]
    if before.isascii() and after.isascii():
        return not (before.isalnum() and after.isalnum())
    if _is_word_char(before) and _is_word_char(after):
        return False
    return not _splits_cluster(text, index)


def _find_cut(text: str, start: int, min_cut: int, max_chars: int) -> int:
    """Return where the passage beginning at start should end (before trimming)."""
    limit = start + max_chars
    preferred = max(min_cut, start + max_chars // 2)
    scan_from = max(start, min_cut - 8)
    levels = [
        (pattern, at_end)
        for pattern, at_end in _LEVELS
        if pattern.search(text, scan_from, min(len(text), limit + 1)) is not None
    ]
    # first the later half of the window, then the rest before it
    for low, high in dict.fromkeys(((preferred, limit), (min_cut, preferred - 1))):
        for pattern, at_end in levels:
            cut = _last_match(text, pattern, at_end, max(start, low - 8), low, high)
            if cut is not None:
                return cut
        cut = _last_cjk_boundary(text, low, high)
        if cut is not None:
            return cut
    cut = _last_free(text, min_cut, limit)
    if cut is not None:
        return cut
    # one word longer than a passage: cut it, but keep surrogate pairs and marks whole
    for cut in range(limit, max(min_cut, limit - 8) - 1, -1):
        if not _splits_cluster(text, cut):
            return cut
    return max(min_cut, limit - 1 if _splits_pair(text, limit) else limit)


def _last_match(text: str, pattern: re.Pattern[str], at_end: bool, scan_from: int, low: int, high: int) -> int | None:
    """Return the last free cut in [low, high] that pattern names."""
    scan_to = min(len(text), high + 1)
    if high < low:
        return None
    # look at the tail of the window first: the last cut is usually near its end
    for width in (96, 384, scan_to - scan_from):
        tail_from = max(scan_from, scan_to - width)
        cuts = [m.end() if at_end else m.start() for m in pattern.finditer(text, tail_from, scan_to)]
        for cut in reversed(cuts):
            if low <= cut <= high and _is_free(text, cut):
                return cut
        if tail_from == scan_from:
            break
    return None


def _last_cjk_boundary(text: str, low: int, high: int) -> int | None:
    if CJK_CHAR.search(text, max(0, low - 1), min(len(text), high + 1)) is None:
        return None
    for cut in range(high, low - 1, -1):
        if (CJK_CHAR.match(text[cut - 1]) or CJK_CHAR.match(text[cut])) and _is_free(text, cut):
            return cut
    return None


def _last_free(text: str, low: int, high: int) -> int | None:
    """Return the last position in [low, high] where a span may begin or end."""
    cut = high
    while cut >= low:
        if 0 < cut < len(text) and _is_word_char(text[cut - 1]) and _is_word_char(text[cut]):
            word = _WORD_TAIL.search(text, max(0, low - 1), cut)
            cut = word.start() if word else cut - 1  # jump to the start of the word around cut
            continue
        if _is_free(text, cut):
            return cut
        cut -= 1
    return None


def _next_free(text: str, low: int, high: int) -> int | None:
    """Return the first position in [low, high] where a span may begin or end."""
    cut = low
    while cut <= min(high, len(text)):
        if 0 < cut < len(text) and _is_word_char(text[cut - 1]) and _is_word_char(text[cut]):
            run = _WORD_RUN.match(text, cut, high + 1)
            cut = run.end() if run else cut + 1
            continue
        if _is_free(text, cut):
            return cut
        cut += 1
    return None


def _overlap_start(text: str, start: int, end: int, following: int, overlap: int, max_chars: int) -> int:
    """Return where the next passage begins: about ``overlap`` chars before end."""
    if overlap == 0:
        return following
    # the first unit after the cut must still fit into the next passage
    first_free = _next_free(text, following + 1, following + max_chars) or following + 1
    low = max(start + 1, first_free - max_chars, start + (end - start) // 2)
    target = max(low, end - overlap)
    if target >= end:
        return following
    region_low, region_high = max(low, target - overlap // 4), min(end - 1, target + overlap // 2)
    for pattern in _OVERLAP_STARTS:
        positions = [m.end() for m in pattern.finditer(text, max(start, region_low - 8), region_high + 1)]
        positions = [i for i in positions if region_low <= i <= region_high and not text[i].isspace()]
        for index in sorted(positions, key=lambda i: (abs(i - target), i)):
            if _is_free(text, index):
                return index
    # no punctuation or space near the target: take the nearest free position (CJK text)
    nearest = [
        index
        for index in (_last_free(text, region_low, target), _next_free(text, target, region_high))
        if index is not None and not text[index].isspace()
    ]
    return min(nearest, key=lambda i: (abs(i - target), i)) if nearest else following


def _line_start(text: str, index: int) -> int | None:
    """Return the start of index's line if only spaces or tabs precede index on it."""
    while index > 0 and text[index - 1] in " \t":
        index -= 1
    return index if index == 0 or text[index - 1] == "\n" else None


def _is_latin_sentence_end(text: str, match: re.Match[str]) -> bool:
    end = match.end()
    if end >= len(text) or CJK_CHAR.match(text[end]):
        return True
    if not text[end].isspace():
        return False  # v1.2, 3.14, example.com, ?query=1
    if match.group() in ("?", "!") and match.start() > 0 and text[match.start() - 1] in " \t":
        return False  # a mark standing alone as a word is a symbol: "用 ? 加 .context()", "a ? b : c"
    following = _skip_space(text, end)
    if following < len(text) and (text[following].islower() or text[following] in "—–"):
        return False  # no sentence opens on a dash: "feat(consumer): ..., fix(settings): ... — in all my repos"
    if "." not in match.group() or ".." in match.group():
        return True  # "!", "?" and an ellipsis before a capital end the sentence
    word_start = match.start()
    while word_start > 0 and not text[word_start - 1].isspace():
        word_start -= 1
    word = text[word_start : match.start()].strip(_CLOSERS + "(（[【「『“‘").lower()  # "加 “incl. GST”"
    if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
        return False
    # "1. " at the start of a line is a list marker, not a sentence end
    return not (word.isdigit() and _line_start(text, word_start) is not None)


def _is_line_sentence_end(text: str, match: re.Match[str]) -> bool:
    if match.group().count("\n") > 1 or match.end() >= len(text):
        return True
    line_start = text.rfind("\n", 0, match.start()) + 1
    # list items may wrap onto the next line; headings, tables and fences never do
    if _CLOSED_LINE.match(text, line_start) or _BLOCK_LINE.match(text, match.end()):
        return True
    previous_line = text[line_start : match.start()].rstrip()  # drops the \r of \r\n
    after = text[_skip_space(text, match.end())] if _skip_space(text, match.end()) < len(text) else ""
    # hard-wrapped Latin prose continues on the next line in lower case, or after a word no sentence ends on
    # ("recall@200 is 0.91 on the\nNovember eval set")
    if previous_line and _OPEN_ENDED.search(previous_line) and after.isalnum():
        return False
    return not (previous_line and after.islower() and not CJK_CHAR.match(previous_line[-1]))


_OPEN_ENDED = re.compile(
    r"(?<![\w'-])(?:the|a|an|of|to|for|and|or|but|on|in|at|by|with|from|into|is|are|was|were|than|that|as|our|your"
    r"|my|its|their|this|these|those|be|not|no)$",
    re.I,
)
