"""Complete an agent's report with the values the person's ask named and the report leaves out.

An agent often reports a change by the thing it touched ("改了 profiles.yml 的 dev warehouse", "Fixed the
defaults") while the value the person set ("TRANSFORM_WH_M", "fk-lake-raw in eu-central-1") is only in the
ask it answers. The next session needs the value, so the report borrows it: into the clause that names the
same thing, or, for a report that names nothing of the ask, as the ask's sentence that names the most.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from incremind_daemon.pipeline.cues import BARE_REPORT, fold
from incremind_daemon.pipeline.markdown import (
    as_item,
    clean_sentence,
    clip,
    named_values,
    split_blocks,
    words_of,
)
from incremind_daemon.pipeline.organize import split_sentences
from incremind_daemon.pipeline.stance import RESTATED
from incremind_daemon.store.charsets import CJK_CHAR

log = logging.getLogger(__name__)

_HEAD = re.compile(r"[,，:：;；。.!！]")
_CLAUSE_CUT = re.compile(r"[,;:]\s+|[，；：]\s*|\s[—–]\s")
_FLAG = re.compile(r"(?:^|\s)--?[a-z]")
_ASIDE = re.compile(r"`[^`\n]+`|\([^()\n]*\)|（[^（）\n]*）")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# a question without its mark ("why would flat_track fail, …") asks nothing a report answers
_WONDERS = re.compile(r"(?:why|how come|what if|i wonder)(?![a-z])|为什么|怎么会")
# a report of commits and pushes, which the ask's words would not complete: "已提交，未推送"
_GIT_REPORT = re.compile(r"(?<![a-z])(?:commit|push|merg|pr |pull request)|提交|推送|合并")
_PATH_LIKE = re.compile(r"/|\.[a-z]{1,5}$")
# a clause that sets what it names: "dev 的 warehouse 换成 X", "flush at 50,000 records", "the bucket is X"
_SETS = re.compile(
    r"(?<![a-z])(?:to|is|are|at|use|set|becomes?)(?![a-z])|=|换成|改成|改为|改到|设成|设为|调到|换到|用|定为"
)
# words before a value that turn it down: "not XS", "instead of eu-west-1", "而不是 S"
_REFUSED = re.compile(r"(?:\bnot|\bno|instead of|rather than|不是|而非|别用|不要|不用)\W{0,3}$")


def with_asked(report: str, ask: str, limit: int) -> str:
    """Complete an opening report with the values the ask it answers named and it leaves out.

    "改了 profiles.yml 的 dev warehouse" answers "dev 的 warehouse 换成 TRANSFORM_WH_M", so the value joins the
    clause that names the same thing; a report that names nothing of the ask ("Fixed the defaults"), or only
    results after a bare "加好了", takes the sentence of the ask that names the most.
    """
    named = _named(report)
    if not named.missing(named_values(ask[:2000])):
        return report  # the report names all the ask did, or the ask names nothing
    sentences = [(sentence, values) for sentence in _ask_sentences(ask) if (values := _set_values(sentence))]
    asked = [(sentence, missing) for sentence, values in sentences if (missing := named.missing(values))]
    if not asked:
        return report
    head = _HEAD.split(named.text, maxsplit=1)[0].strip()
    names_some = sum(len(values) for _, values in sentences) > sum(len(missing) for _, missing in asked)
    own = _names(report)
    vague = not named_values(report) and own.isdisjoint(_names(" ".join(s for s, _ in sentences)))
    # in a Chinese report the Latin words are names: "refund 的 handler 和测试都写好了" says what it did
    vague = vague and not (CJK_CHAR.search(report) and sum(name.isascii() for name in own) >= 2)
    if not names_some and (vague or BARE_REPORT.fullmatch(head)) and not _GIT_REPORT.search(named.text):
        best = max(asked, key=lambda entry: len(entry[1]))[0]
        return f"{report.rstrip(' —–-')} — {as_item(clip(best, limit // 2 + 20, clause=True))}"
    ours = [(end, _names(report[start:end])) for start, end in _clause_spans(report)]
    for sentence, _ in asked:
        for clause in _CLAUSE_CUT.split(sentence):
            # a clause that sets a value ("dev 的 warehouse 换成 X"), not a command line or a file it names
            values = _set_values(clause)
            missing = named.missing(values)
            shown = [value for value in missing if not _PATH_LIKE.search(value)]
            if not shown or len(missing) < len(values) or _FLAG.search(clause) or not _SETS.search(fold(clause)):
                continue
            plain = clause
            for value in values:
                plain = plain.replace(value, " ")
            end = next((end for end, words in ours if not words.isdisjoint(_names(plain))), -1)
            completed = f"{report[:end].rstrip()} → {', '.join(shown)}{report[end:]}"
            if end >= 0 and len(completed) <= limit - 20:  # room for the file it names, so no value is cut
                return completed
    return report


def _ask_sentences(ask: str) -> list[str]:
    said = (clean_sentence(s.text) for block in split_blocks(ask[:2000]) for s in split_sentences(block.text))
    # a rule said again ("error codes stay snake_case strings as usual", "还是老规矩") asks for no work
    return [s for s in said if not s.endswith(("?", "？")) and not _WONDERS.match(fold(s)) and not RESTATED.search(s)]


def _set_values(text: str) -> list[str]:
    """Return the values a text names, leaving out those it turns down ("not XS", "而不是 S")."""
    folded = fold(text).casefold()
    values = []
    for value in named_values(text):
        at = max(0, folded.find(value.casefold()))
        if not _REFUSED.search(folded[max(0, at - 16) : at]):
            values.append(value)
    return values


@dataclass(frozen=True, slots=True)
class _Named:
    """What a report names, to tell which of the ask's values it leaves out."""

    text: str  # folded and casefolded
    numbers: frozenset[str]

    def missing(self, values: list[str]) -> list[str]:
        return [value for value in values if value.strip("`").casefold() not in self.text and not self._counts(value)]

    def _counts(self, value: str) -> bool:
        number = _NUMBER.match(value)  # "10 秒" is named by "timeout=10"
        return number is not None and number.group() in self.numbers


def _named(report: str) -> _Named:
    text = fold(report).casefold()
    return _Named(text, frozenset(_NUMBER.findall(text)))


def _names(text: str) -> frozenset[str]:
    """Return the words that name a thing: names of five letters or more and CJK pairs, not "code" or "fix"."""
    return frozenset(word for word in words_of(text) if not word.isascii() or (len(word) >= 5 and word.isalpha()))


def _clause_spans(text: str) -> list[tuple[int, int]]:
    # a clause never ends inside `code` or (an aside)
    masked = _ASIDE.sub(lambda part: "x" * len(part.group()), text)
    spans, at = [], 0
    for mark in _CLAUSE_CUT.finditer(masked):
        spans.append((at, mark.start()))
        at = mark.end()
    return [*spans, (at, len(text))]
