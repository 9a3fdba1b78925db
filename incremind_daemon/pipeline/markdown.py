"""Read a turn's Markdown-ish text: its blocks, clean sentences, and items cut to size.

Agents write Markdown (headings, lists, checkboxes, fences, bold captions) and people write
plain lines; both are read the same way, code fences left out, so the session state sees the
prose. Cuts happen at a clause or a word, never inside a word, in Latin and CJK text alike.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from incremind_daemon.pipeline.cues import (
    DONE,
    DONE_CUES,
    NEXT,
    NOT_DONE_CUES,
    SECTION_CUES,
    SUMMARY_CAPTION,
    fold,
    wordset,
)
from incremind_daemon.store.charsets import CJK, WIDE_PUNCTUATION

log = logging.getLogger(__name__)

_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+(.*)")
_BOLD_LINE = re.compile(r"[ \t]*(?:\*\*|__)([^*_]{1,60})(?:\*\*|__)[ \t]*[:：]?[ \t]*")
_ITEM = re.compile(r"([ \t]*)(?:[-*+•]|\d{1,3}[.)、])[ \t]+(?:\[([ xX])\][ \t]+)?(.*)")
_RULE = re.compile(r"[ \t]*(?:(?:[-*_][ \t]*){3,}|\|.*|[=-]+)[ \t]*")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*\)")
_EMPHASIS = re.compile(r"\*\*|~~")  # not "__": it belongs to __init__.py
# (not the # of an issue or a pull request: "#416 waits for aisha + sunday")
_LEAD_NOISE = re.compile(r"^(?:[\s>*•·\-+–—|=]|#(?!\d))+|^\[[ xX]\]\s+|^\d{1,3}[.)、]\s+")
_WIDE = re.compile(f"[{CJK}{WIDE_PUNCTUATION}]")
LATIN_WORD = re.compile(rf"[^\W_{CJK}]+")
CJK_RUN = re.compile(f"[{CJK}]+")
_CLAUSE_CUT = re.compile(r"[,，;；:：、]|\s[—–-]\s")
_CJK_BREAK = re.compile(
    f"(?<=[的了和与或在是把给让被将就也都及并从向对，。、；：！？ ])(?=[{CJK}])|(?<=[{CJK}])(?=[^{CJK}])"
)
# a value a sentence names: something in backticks, a PR or MR number, a path, an identifier, a version, a
# number with its unit ("TRANSFORM_WH_M", "fk-lake-raw", "eu-central-1", "#279", "3-day", "7 天")
_UNIT = (  # a unit joined to its number ("30s", "200k") or one of the units people write apart ("60 seconds")
    r"(?:[a-zA-Z]{1,3}\b|\s?(?:ms|s|secs?|seconds?|mins?|minutes?|h|hours?|days?|weeks?|[kKMGT]i?B|records?|rows?"
    r"|items?|messages?|files?|partitions?|replicas?|pods?|nodes?|gpus?|steps?|epochs?|tokens?|px|%)\b"
    r"|\s?(?:[天秒个条行次]|分钟|小时))"
)
_NAME_CHAR = rf"[^\W{CJK}]|[.~/:=+@-]"
_NAMED = re.compile(
    rf"`[^`\n]{{1,80}}`|(?<![\w/])[#!][0-9]+\b"
    rf"|(?<![\w.,])[0-9]{{1,3}}(?:,[0-9]{{3}})+(?:\.[0-9]+)?{_UNIT}?"  # "50,000 records"
    rf"|(?<![\w.])[0-9]+(?:\.[0-9]+)?{_UNIT}"  # a number with its unit: "60 seconds", "7 天"
    # a word with a mark in it ("fk-lake-raw", "order_id", "v0.9.0"); the lookahead leaves plain words to re
    rf"|(?<![\w.~/@-])(?=(?:{_NAME_CHAR})*?(?:[_./=+@:0-9]|-(?:{_NAME_CHAR})*-))(?:{_NAME_CHAR})+"
)
_NAME_MARKS = re.compile(r"[_./=+@:]|-.*-|\d")
_NOT_NAMES = frozenset(("e.g", "i.e", "etc", "vs"))
_PULL_REQUEST = re.compile(r"^[#!]\d+$|^pull/\d+$|/pull/\d+")
# words too common to tell two items apart
COMMON_WORDS = wordset(
    "the and for with that this from into are was were has have not but you your our its now all also then than just"
    " only one two add added use used run ran file files test tests make made new fix fixed done"
)
_LAST_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
_TRAILING = " ,;:、，；：—–-([{（【「"


@dataclass(frozen=True, slots=True)
class Block:
    text: str  # one paragraph or list item, its lines joined
    hint: str | None  # the category its section caption or checkbox implies
    item: bool


def split_blocks(text: str) -> Iterator[Block]:
    """Yield the paragraphs and list items of Markdown-ish text, leaving out code fences."""
    lines = text.split("\n")
    block: list[str] = []
    hint: str | None = None
    section: str | None = None
    item = nested = False
    indent = 0
    fence = ""
    for number, line in enumerate(lines):
        if fence:
            fence = "" if line.strip().startswith(fence) else fence
            continue
        label = None
        plain = line[:1].isalpha() or not line.strip()  # prose and blank lines need no Markdown tests
        if not plain and (opened := _FENCE.match(line)):
            fence = opened.group(1)
        elif not plain and (caption := _HEADING.fullmatch(line) or _BOLD_LINE.fullmatch(line)):
            label = caption.group(1)
        elif not plain and (bullet := _ITEM.fullmatch(line)):
            depth = len(bullet.group(1).expandtabs(4))
            if block and item and depth > indent and (nested or block[-1].endswith((":", "："))):
                # "Added notes to:" over nested items reads as one item: "Added notes to: a, b"
                block[-1] += "," if nested else ""
                block.append(bullet.group(3))
                nested = True
                continue
            if block:
                yield Block(" ".join(block), hint, item)
            box = bullet.group(2)
            hint = section if box is None else (NEXT if box == " " else DONE)
            block, item, nested, indent = [bullet.group(3)], True, False, depth
            continue
        elif line.strip() and (plain or not _RULE.fullmatch(line)):
            if _is_label(line, lines, number):
                label = line
            else:
                if not block:
                    section, hint, item = None, None, False
                block.append(line.strip())  # a new paragraph, or a wrapped line of the block above
                continue
        if block:
            yield Block(" ".join(block), hint, item)
            block = []
        if label is not None:
            tail = _LAST_SENTENCE.split(label.strip())[-1]  # "Done. Summary of this branch:" captions with its end
            section = _section_of(tail)
            head = label.strip()[: -len(tail)].strip() if tail and section is not None else ""
            if text_weight(head) >= 3:  # "stg upgrade, doing it now. control plane done:" says more than its caption
                yield Block(head, None, False)
            if section is None:
                yield Block(label.strip(), None, False)
                # "已提交到 `feat/x`：" or "I've changed these:" over a list: each item is something done
                folded = fold(tail)
                done = DONE_CUES.search(folded) or SUMMARY_CAPTION.search(folded)
                section = DONE if done and not NOT_DONE_CUES.search(folded) else None
    if block:
        yield Block(" ".join(block), hint, item)


def _is_label(line: str, lines: list[str], number: int) -> bool:
    """Return whether line is a short caption such as "Changes made" or "Next steps:" over a list."""
    stripped = line.strip()
    if line[:1] in " \t":
        return False
    if stripped.endswith((":", "：")):
        return len(_LAST_SENTENCE.split(stripped)[-1]) <= 48
    if len(stripped) > 48:
        return False
    following = next((later for later in lines[number + 1 : number + 3] if later.strip()), "")
    return stripped[-1] not in ".!?。！？" and _ITEM.fullmatch(following) is not None


def _section_of(label: str) -> str | None:
    caption = fold(clean_sentence(label))
    if len(caption) > 48:
        return None
    return next((kind for kind, pattern in SECTION_CUES if re.search(pattern, caption)), None)


def clean_sentence(text: str) -> str:
    """Strip Markdown noise from one sentence and collapse its whitespace; backticks stay."""
    text = _EMPHASIS.sub("", _LINK.sub(r"\1", text)) if "*" in text or "[" in text or "~" in text else text
    return _LEAD_NOISE.sub("", " ".join(text.split()))


def as_item(text: str) -> str:
    item = clean_sentence(text)
    return item if item.endswith(("...", "…")) else item.rstrip(" :：.。!！;；")


def text_weight(text: str) -> float:
    return len(LATIN_WORD.findall(text)) + sum(map(len, CJK_RUN.findall(text))) / 2


def named_values(text: str) -> list[str]:
    """Return the values a text names, in order: paths, identifiers, versions, numbers, PR numbers, `code`."""
    values: list[str] = []
    for match in _NAMED.finditer(text):
        token = match.group()
        if not token.startswith("`"):
            token = token.strip(".:/-~=+@")
        named = token.startswith(("`", "#", "!")) or (_NAME_MARKS.search(token) and token.casefold() not in _NOT_NAMES)
        if named and token not in values:
            values.append(token)
    return values


def words_of(text: str) -> frozenset[str]:
    """Return the telling words of a text: names and numbers, and its CJK character pairs."""
    folded = fold(text).casefold()
    latin = {w for w in LATIN_WORD.findall(folded) if len(w) >= 3 or w.isdigit()} - COMMON_WORDS
    return frozenset(latin | {run[i : i + 2] for run in CJK_RUN.findall(folded) for i in range(len(run) - 1)})


def value_weight(value: str) -> int:
    """Weigh a named value by how much it says: a PR or MR number is the handle a reader follows first."""
    return 2 if _PULL_REQUEST.search(value) else 1


def join_sentences(sentences: Sequence[str], limit: int) -> str:
    text = ""
    for sentence in sentences:
        wide = text and _WIDE.match(text[-1]) and _WIDE.match(sentence[0])  # no space between CJK sentences
        text += sentence if not text or wide else " " + sentence
        if len(text) > limit:
            break
    return text


def clip(text: str, limit: int, *, clause: bool = False) -> str:
    """Collapse whitespace and cut to limit characters at a clause or word boundary, ending in "…"."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = limit - 1
    clauses = [m.start() for m in _CLAUSE_CUT.finditer(text, limit // 2, cut)] if clause else []
    if clauses:
        cut = clauses[-1]
    elif LATIN_WORD.match(text[cut - 1]) and LATIN_WORD.match(text[cut]):
        space = text.rfind(" ", 0, cut)
        cut = space if space > cut - 30 else cut
    elif CJK_RUN.match(text[cut - 1]) and CJK_RUN.match(text[cut]):
        # CJK has no spaces: back to a particle, a punctuation mark or a change of script, so no word is split
        breaks = [m.start() for m in _CJK_BREAK.finditer(text, max(0, cut - 12), cut + 1)]
        cut = breaks[-1] if breaks else cut
    if "\ud800" <= text[cut - 1] <= "\udbff":
        cut -= 1
    return (text[:cut].rstrip(_TRAILING) or text[: limit - 1]) + "…"
