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
from incremind_daemon.pipeline.markdown import as_item, clean_sentence, named_values, split_blocks, text_weight
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


# an item of the agent's list that the reply turns down by its place: "第二点不行", "第 4 步不要", "你第 3 条不对",
# "2 不行，immediate 模式下…"
_TURNED_DOWN = re.compile(
    r"第\s*([1-9一二三四五六七八九])\s*[点點条條项項个個步](?:也|就|先|暂时|暫時)?\s*"
    r"(?:不行|不要|不用|算了|不对|不對|别|別|不同意|先不|不做|去掉|删掉|刪掉)"
    r"|(?:^|(?<=[\s,，;；。.!！]))([1-9])\s*(?:也)?(?:不行|不要|算了|先不)"
)
# …and the others taken: "第一点可以", "其他的都可以"
_TAKEN = re.compile(
    r"第\s*[1-9一二三四五六七八九]\s*[点點条條项項个個步]\s*(?:也|就)?\s*(?:可以|行|没问题|沒問題|同意|ok|好)"
    r"|其[他它余餘](?:的|几[点条项个])?\s*(?:都|就)?\s*(?:可以|行|没问题|沒問題|同意|照做|ok)"
)


def turned_down(reply: str, asked: str) -> tuple[tuple[str, ...], bool]:
    """Return the items of the agent's last list that the reply turns down by their place, folded, and whether it
    takes the others: "第一点可以。第二点不行，金额还是按整数分存" takes the first suggestion and not the second, which
    no state may show as decided."""
    folded = fold(reply)
    places = {int(_NUMERALS.get(got, got)) for found in _TURNED_DOWN.finditer(folded) for got in found.groups() if got}
    if not places:
        return (), False
    last: list[str] = []
    run: list[str] = []
    for block in split_blocks(asked):
        if block.item:
            run.append(block.text)
        elif run:
            last, run = run, []
    last = run or last
    down = tuple(fold(as_item(last[place - 1])) for place in sorted(places) if place <= len(last))
    return down, bool(down) and _TAKEN.search(folded) is not None


def among(own: str, down: tuple[str, ...]) -> bool:
    """Tell whether a sentence of the agent's turn is one of the items ``turned_down`` found."""
    head = fold(own)[:24]
    return bool(head) and any(head in item for item in down)
