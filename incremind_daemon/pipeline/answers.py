"""Read a person's answer to the agent as the option it picks: "改 1 吧", "Yes, 100.", "(b) then".

An answer names its choice by the label or the value the agent's turn offered, so the option is taken
from that turn: the numbered or lettered item with the label, or the closing question that names the
value ("要改成 100 吗？" answered by "Yes, 100."). A sentence that picks a labelled option is the person's
decision, said in the agent's words ("就 2 吧 chinese_calendar 省事" after "2) 用 `chinese_calendar` 包判断工作日").
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace

from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.markdown import as_item, clean_sentence, named_values, text_weight
from incremind_daemon.pipeline.organize import split_sentences
from incremind_daemon.pipeline.redact import redact
from incremind_daemon.store.records import Candidate

log = logging.getLogger(__name__)

_TAIL_CHARS = 1500  # the options sit at the end of the turn that asks
# an option the agent lists: "1. 在 char_to_subword 里跳过…", "(b) 换成 lualatex…", "- a) keep it", "- **B**：直接用…"
_OPTION = re.compile(
    r"(?:^|\n)[ \t]*(?:[-*•][ \t]+)?"
    r"(?:\(([1-9a-d])\)[ \t]+|([1-9a-d])[.)、．][ \t]+|\*\*([1-9a-d])[.)、．:：]?\*\*[:：.]?[ \t]*)([^\n]+)"
    r"|(?<![\w(])\(([1-9a-d])\)[ \t]+([^\n(]+)",
    re.I,
)
# the label an answer picks: "改 1 吧", "option b", "(a) then"
_LABEL = re.compile(
    r"(?<![\w.(])\(?([a-d])\)(?![\w])|(?:option|方案|选项?|选)[ \t]*\(?([1-9a-d])\b|(?<![\w.])([1-9])(?![\w.%])",
    re.I,
)
# a sentence that picks an option by its label, wherever it stands: "就 2 吧", "go w/ option 2", "DB 用方案 B", "B 吧",
# "(b) then"; a letter picks only in capitals or brackets ("pick a name" picks nothing)
_PICK = re.compile(
    r"(?:(?i:go with|go w/|let's go with|let's do|pick)[ \t]+(?:(?i:option|choice)[ \t]*)?"
    r"|(?i:option|choice)|方案|选项|選項|选|選|就按|就)[ \t]*"
    r"(\([1-9a-dA-D]\)|[1-9A-D])(?![\w.%:/+-])(?:[ \t]*(?:吧|好了|就好|就行))?"
    r"|(?:^|(?<=[\s,，;；]))(\([1-9a-dA-D]\)|[1-9A-D])[ \t]*(?:吧|好了|就好|就行|(?i:then|it is|please))(?!\w)"
    # …and in Chinese numerals: "可以，按方案三，订阅消息兜底"
    r"|(?:方案|选项|選項)[ \t]*([一二三四五六七八九])(?=[吧好就，,。.;；\s]|$)"
)
_NUMERALS = dict(zip("一二三四五六七八九", "123456789", strict=True))
# …but not a count: "就 2 个 worker", "go with 3 replicas"
_COUNT = re.compile(
    r"[ \t]*(?:[个個次天周週台张張条條行人倍]|小时|小時|分钟|分鐘|(?i:x|times|days|hours|replicas|workers|pods)\b)"
)


def options_of(asked: str) -> dict[str, str]:
    """Return the labelled options the agent's turn ends with, by their folded label, in the agent's words."""
    options: dict[str, str] = {}
    for match in _OPTION.finditer(asked[-_TAIL_CHARS:]):
        label = next((group for group in (match.group(i) for i in (1, 2, 3, 5)) if group), "").casefold()
        text = (match.group(4) or match.group(6) or "").strip()
        if label and text and label not in options:
            options[label] = as_item(text)
    return options


def picks_option(said: str, asked: str) -> str | None:
    """Return the option of the agent's turn that a sentence of the reply picks by its label, in the agent's words.

    "就 2 吧 chinese_calendar 省事" after "1) 硬编码节假日表 2) 用 `chinese_calendar` 包判断工作日" picks 2;
    "A 和 C 都不行" picks nothing, nor does a turn that offers one option or none.
    """
    if not asked or _PICK.search(said) is None:
        return None
    options = options_of(asked)
    labels = {
        _NUMERALS.get(label, label)
        for match in _PICK.finditer(said)
        if not _COUNT.match(said, match.end()) and (label := match.group(match.lastindex or 0).strip("()").casefold())
    }
    picked = [options[label] for label in labels if label in options]
    return picked[0] if len(options) >= 2 and len(picked) == 1 else None


def picked_decision(candidate: Candidate, option: str) -> Candidate:
    """Return a candidate picking ``option`` as the decision it makes: the option, and what the person adds to it.

    "就 B 用 row_number 按 updated_at 取最新 顺手把 is_deleted = 1 的也滤掉" adds a step; "2 吧 省事" only says why.
    """
    said = candidate.quote
    rest = _FILLER.sub(" ", _PICK.sub(" ", said))
    rest = re.sub(r"\s+(?=[，,。;；])", "", " ".join(rest.split())).strip(" ,，;；—–-:：.。")
    # what the person adds that the option does not name ("chunk 用 1024" adds nothing to "每 1024 个 token")
    added = [
        value for value in [*named_values(rest), *_NUMBER.findall(rest)] if value.casefold() not in option.casefold()
    ]
    statement = redact(f"{option} — {rest}" if added and text_weight(rest) >= 2 else option)
    return replace(candidate, statement=statement, category="decision", condition="")


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# the words around a pick that say nothing of the choice: "yeah go w/ option 2 —", "结构 ok。就按你说的方案 B，"
_FILLER = re.compile(
    r"^(?:\s*(?:(?i:yeah|yes|yep|ok|okay|sure|sounds good|then)|好的?|行|嗯|那|就?按你说的|你说的)[\s,，.。!！]*)+"
)


def picked_option(answer: str, asked: str) -> str | None:
    """Return the option of the agent's turn that a short answer picks by label or value, in the agent's words."""
    tail = asked[-_TAIL_CHARS:]
    options = options_of(asked)
    folded = fold(answer)
    for match in _LABEL.finditer(folded):
        label = next(group for group in match.groups() if group).casefold()
        if label in options and len(options) >= 2:
            return options[label]
    values = [value.casefold() for value in named_values(answer)]
    sentences = [clean_sentence(sentence.text) for sentence in split_sentences(tail.rstrip())]
    question = sentences[-1] if sentences and sentences[-1].endswith(("?", "？")) else ""
    if values and question and any(value in fold(question).casefold() for value in values):
        return question
    return None
