"""Summarize a source into an index line and a few salient sentences (the L2 tier).

Deterministic and local: no model. Sentences are scored by how much of the
document's recurring vocabulary they carry, so the summary holds what the text
keeps talking about rather than its opening boilerplate.
"""

from __future__ import annotations

import logging
import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from incremind_daemon.pipeline.organize import Passage, split_sentences
from incremind_daemon.store.charsets import CJK, CJK_CHAR, WIDE_PUNCTUATION
from incremind_daemon.store.tokenizer import STOPWORDS, Token, iter_tokens

log = logging.getLogger(__name__)

INDEX_LINE_CHARS = 80
_MAX_SCORED_SENTENCES = 2_000

_Surfaces = dict[str, Counter[str]]  # word key -> how often each spelling of it occurs

_WIDE = re.compile(f"[{CJK}{WIDE_PUNCTUATION}]")
_WORD = re.compile(rf"[^\W_{CJK}]")
_LINK_TARGET = re.compile(r"https?://\S+|\]\([^)]*\)|`[^`]*`")
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_SETEXT_UNDERLINE = re.compile(r"[ \t]*(?:=+|-+)[ \t]*")
_FENCE = re.compile(r"[ \t]*(?:```|~~~)")
_MARKUP_LINE = re.compile(r"[ \t]*(?:\|.*|(?:[-*_][ \t]*){3,}|<[^>]*>[ \t]*|!?\[[^\]]*\]\([^)]*\)[ \t]*)")
# Cue phrases mark methods and conclusions; stigma phrases mark boilerplate (Edmundson's cues).
_CUE = re.compile(
    r"方法|做法|步骤|关键|结论|建议|核心|原则|总结|规律|技巧|要点|原理"
    r"|\b(?:key|important|conclusion|in summary|in short|recommend\w*|method|technique|principle"
    r"|rule of thumb|best way|way to|the trick|finding)\b",
    re.I,
)
_STIGMA = re.compile(
    r"转载|出处|版权|订阅|关注我们|点赞|扫码|公众号|免责声明|原文链接|广告"
    r"|\b(?:subscribe|originally published|all rights reserved|click here|share this|newsletter"
    r"|cookies?|sign up|follow us|thanks for reading|sponsored|advertisement)\b",
    re.I,
)
_DIGIT = re.compile(r"\d")
_DOC_EXTENSION = re.compile(r"\.(?:md|markdown|txt|text|pdf|docx?|html?|csv|json|rst|org)$", re.I)
_VERSION_OR_NUMBER = re.compile(r"v?\d+[a-z]?|[a-z]?\d+|\d+[-_.]\d+.*", re.I)

# The tokenizer's stopwords serve queries; summaries also drop common function words.
# fmt: off
_STOPWORDS = STOPWORDS | frozenset({
    "not", "no", "but", "if", "then", "than", "so", "such", "there", "their", "they", "them",
    "these", "those", "has", "have", "had", "will", "just", "also", "very", "more", "most", "some",
    "any", "all", "each", "other", "only", "own", "same", "too", "its", "his", "her", "he", "she",
    "us", "one", "two", "may", "might", "must", "shall", "here", "when", "where", "while",
    "because", "after", "before", "over", "under", "between", "through", "during", "without",
    "within", "many", "much", "few", "lot", "lots", "get", "got", "make", "made", "use", "used",
    "using", "like", "well", "even", "still", "yet", "ever", "every", "back", "out", "up", "down",
    "off", "again", "once", "new", "way", "以及", "因为", "所以", "但是", "如果", "然后", "这个",
    "那个", "这样", "那样", "一些", "通过", "进行", "可能", "已经", "自己", "非常", "就是", "不是",
    "以后", "之后", "时候", "还是", "或者", "而且", "虽然", "只是", "这些", "那些", "其实", "比较",
    "一样", "一种", "每次", "时", "后", "前", "中", "上", "下", "再", "才", "很", "更", "最", "等",
    "着", "过", "得", "地", "不", "没", "而", "或", "并", "且", "但", "如", "若", "则", "即",
})
_GENERIC_TITLE_WORDS = frozenset({
    "notes", "note", "untitled", "document", "doc", "docs", "draft", "file", "files", "new", "copy",
    "final", "export", "scan", "img", "image", "screenshot", "readme", "tmp", "temp", "misc",
    "memo", "page", "text", "index", "main", "笔记", "文档", "新建", "副本", "未命名", "无标题",
    "新建文本文档", "新建文档",
})
# fmt: on


@dataclass(frozen=True, slots=True)
class Summary:
    index_line: str  # <= 80 characters, one line: what the source is about
    sentences: tuple[Passage, ...]  # salient sentences in document order, offsets into the text

    @property
    def text(self) -> str:
        parts: list[str] = []
        for sentence in self.sentences:
            piece = " ".join(sentence.text.split())
            if not piece:
                continue
            if parts and not (_WIDE.match(parts[-1][-1]) and _WIDE.match(piece[0])):
                parts.append(" ")
            parts.append(piece)
        return "".join(parts)


@dataclass(frozen=True, slots=True)
class _Candidate:
    passage: Passage
    index: int
    words: frozenset[str]
    size: int  # CJK characters plus two per Latin word
    after_heading: bool


def summarize_text(text: str, *, title: str = "", max_sentences: int = 5) -> Summary:
    """Pick up to max_sentences salient sentences and write a one-line index entry."""
    candidates, headings, surface = _collect_candidates(text)
    heading_words = [w for heading in headings for w in _content_words(heading.text, surface)]
    title_words = _content_words(title, surface)
    body: Counter[str] = Counter()
    for candidate in candidates:
        body.update(candidate.words)
    # words in headings and the title mark the topic; count them once more
    frequency = body + Counter(set(heading_words) | set(title_words))
    scores = {c.index: _score(c, frequency) for c in candidates}
    ranked = sorted(candidates, key=lambda c: (-scores[c.index], c.index))
    wanted = min(max(max_sentences, 0), max(1, math.ceil(len(candidates) / 3)))
    picked: list[_Candidate] = []
    for candidate in ranked:
        if len(picked) >= wanted or (picked and scores[candidate.index] <= 0):
            break
        if not any(_is_redundant(candidate, other) for other in picked):
            picked.append(candidate)
    top_sentence = ranked[0].passage if ranked else next(iter(headings), None)
    keywords = _keywords(body, surface, candidates, exclude=set(title_words))
    return Summary(
        index_line=_index_line(title, keywords, top_sentence.text if top_sentence else ""),
        sentences=tuple(c.passage for c in sorted(picked, key=lambda c: c.index)),
    )


def _collect_candidates(text: str) -> tuple[list[_Candidate], list[Passage], _Surfaces]:
    """Return the sentences worth scoring, the headings, and the spellings of words."""
    line_starts, kinds = _classify_lines(text)
    headings: list[Passage] = []
    prose: list[tuple[Passage, bool]] = []  # each sentence, and whether it opens a section
    for sentence in split_sentences(text):
        kind = kinds[bisect_right(line_starts, sentence.start) - 1]
        if kind == "heading":
            headings.append(sentence)
        elif kind == "text":
            opens_section = bool(headings) and (not prose or prose[-1][0].start < headings[-1].start)
            prose.append((sentence, opens_section))
    # tokenizing dominates the cost, so a long source scores an even sample of its sentences
    stride = max(1, math.ceil(len(prose) / _MAX_SCORED_SENTENCES))
    surface: _Surfaces = {}
    candidates: list[_Candidate] = []
    for sentence, opens_section in prose[::stride]:
        cleaned = _LINK_TARGET.sub(" ", sentence.text)
        if not any(c.isalpha() for c in cleaned):
            continue
        tokens = list(iter_tokens(cleaned, for_query=True))
        size = sum(len(t.text) if CJK_CHAR.match(t.text) else 2 for t in tokens)
        words = frozenset(_content_keys(cleaned, tokens, surface))
        candidates.append(_Candidate(sentence, len(candidates), words, size, opens_section))
    return candidates, headings, surface


def _classify_lines(text: str) -> tuple[list[int], list[str]]:
    """Label each line text, heading, code (inside fences, front matter) or markup."""
    lines = text.split("\n")
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    kinds = ["text"] * len(lines)
    closing: str | None = None
    # YAML front matter counts only when it is closed near the top
    if lines[0].strip() == "---" and any(line.strip() in ("---", "...") for line in lines[1:50]):
        closing = "---"
    for number, line in enumerate(lines):
        stripped = line.strip()
        if closing is not None:
            kinds[number] = "code"
            if number and (stripped in ("---", "...") if closing == "---" else stripped.startswith(closing)):
                closing = None
        elif _FENCE.match(line):
            kinds[number], closing = "code", stripped[:3]
        elif _HEADING.match(line):
            kinds[number] = "heading"
        elif stripped and _SETEXT_UNDERLINE.fullmatch(line) and number and lines[number - 1].strip():
            kinds[number] = "markup"
            if kinds[number - 1] == "text":
                kinds[number - 1] = "heading"
        elif _MARKUP_LINE.fullmatch(line):
            kinds[number] = "markup"
    return starts, kinds


def _content_words(text: str, surface: _Surfaces) -> list[str]:
    cleaned = _LINK_TARGET.sub(" ", text)
    return _content_keys(cleaned, iter_tokens(cleaned, for_query=True), surface)


def _content_keys(text: str, tokens: Iterable[Token], surface: _Surfaces) -> list[str]:
    """Return the content-word keys among tokens, counting the spellings seen for each key."""
    words: list[str] = []
    for token in tokens:
        word = token.text
        if len(word) < 2 or word in _STOPWORDS or not any(c.isalpha() for c in word):
            continue
        # a light plural fold so "notes" and "note" count together
        key = word[:-1] if word.isascii() and len(word) > 3 and word[-1] == "s" and word[-2] != "s" else word
        surface.setdefault(key, Counter())[text[token.start : token.end]] += 1
        words.append(key)
    return words


def _score(candidate: _Candidate, frequency: Counter[str]) -> float:
    if not candidate.words:
        return 0.0
    weight = sum(math.log(frequency[w]) for w in candidate.words) / math.sqrt(len(candidate.words))
    if candidate.size < 8:
        weight *= 0.3
    elif candidate.size > 200:
        weight *= math.sqrt(200 / candidate.size)
    text = candidate.passage.text
    if _CUE.search(text):
        weight *= 1.25
    if _DIGIT.search(text):
        weight *= 1.1  # figures and schedules are concrete
    if _STIGMA.search(text):
        weight *= 0.4
    position = 1 + 0.2 * max(0, 3 - candidate.index) / 3
    if candidate.after_heading:
        position *= 1.1
    return weight * position


def _is_redundant(candidate: _Candidate, other: _Candidate) -> bool:
    if " ".join(candidate.passage.text.split()) == " ".join(other.passage.text.split()):
        return True
    union = candidate.words | other.words
    return bool(union) and len(candidate.words & other.words) / len(union) > 0.5


def _keywords(
    frequency: Counter[str], surface: _Surfaces, candidates: list[_Candidate], exclude: set[str]
) -> list[str]:
    first_seen: dict[str, int] = {}
    for candidate in candidates:
        for word in sorted(candidate.words):
            first_seen.setdefault(word, candidate.index)
    recurring = [w for w in first_seen if frequency[w] >= 2 and w not in exclude]
    recurring.sort(key=lambda w: (-frequency[w], first_seen[w], w))
    # the most common spelling: "recall" over a sentence-initial "Recall", "FTS5" over "fts5"
    return [surface[w].most_common(1)[0][0] for w in recurring[:5]]


def _index_line(title: str, keywords: list[str], top_sentence: str) -> str:
    title = " ".join(title.split())
    if _is_informative_title(title):
        head = _readable_title(title)
        if keywords:
            separator = "、" if all(CJK_CHAR.match(k) for k in keywords) else ", "
            return _truncate(f"{head} — {separator.join(keywords)}")
        return _truncate(f"{head} — {top_sentence}" if top_sentence else head)
    return _truncate(top_sentence or title)


def _is_informative_title(title: str) -> bool:
    stem = _DOC_EXTENSION.sub("", title).strip()
    if not any(c.isalpha() for c in stem):
        return False
    parts = [p for p in re.split(r"[\s_\-.()（）]+", stem) if p]
    meaningful = [
        p
        for p in parts
        if any(c.isalpha() for c in p) and p.lower() not in _GENERIC_TITLE_WORDS and not _VERSION_OR_NUMBER.fullmatch(p)
    ]
    if any(CJK_CHAR.match(c) for c in stem):
        return sum(len(CJK_CHAR.findall(p)) >= 2 for p in meaningful) >= 1
    # a bare file stem (notes_2024_v2) says little; a spaced title says what it is
    return len(meaningful) >= (1 if " " in stem else 2)


def _readable_title(title: str) -> str:
    stem = _DOC_EXTENSION.sub("", title).strip()
    return stem if " " in stem else re.sub(r"[_]+|(?<=\w)-(?=\w)", " ", stem)


def _truncate(line: str, limit: int = INDEX_LINE_CHARS) -> str:
    """Collapse whitespace and cut to limit characters at a word boundary."""
    line = " ".join(line.split())
    if len(line) <= limit:
        return line
    cut = limit - 1
    if _WORD.match(line[cut - 1]) and _WORD.match(line[cut]):
        space = line.rfind(" ", 0, cut)
        if space > cut - 30:
            cut = space
    if "\ud800" <= line[cut - 1] <= "\udbff":
        cut -= 1
    return line[:cut].rstrip(" ,;:、，；：—-") + "…"
