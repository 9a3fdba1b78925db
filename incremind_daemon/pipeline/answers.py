"""Read a person's short answer to the agent as the option it picks: "改 1 吧", "Yes, 100.", "(b) then".

An answer that short names its choice only by the label or the value the agent's turn offered, so
the option is taken from that turn: the numbered or lettered item with the label, or the closing
question that names the value ("要改成 100 吗？" answered by "Yes, 100.").
"""

from __future__ import annotations

import logging
import re

from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.markdown import as_item, clean_sentence, named_values
from incremind_daemon.pipeline.organize import split_sentences

log = logging.getLogger(__name__)

_TAIL_CHARS = 1500  # the options sit at the end of the turn that asks
# an option the agent lists: "1. 在 char_to_subword 里跳过…", "(b) 换成 lualatex 编译…", "- a) keep it"
_OPTION = re.compile(
    r"(?:^|\n)[ \t]*(?:[-*•][ \t]+)?(?:\(([1-9a-d])\)|([1-9a-d])[.)、．])[ \t]+([^\n]+)"
    r"|(?<![\w(])\(([1-9a-d])\)[ \t]+([^\n(]+)",
    re.I,
)
# the label an answer picks: "改 1 吧", "option b", "(a) then"
_LABEL = re.compile(
    r"(?<![\w.(])\(?([a-d])\)(?![\w])|(?:option|方案|选项?|选)[ \t]*\(?([1-9a-d])\b|(?<![\w.])([1-9])(?![\w.%])",
    re.I,
)


def picked_option(answer: str, asked: str) -> str | None:
    """Return the option of the agent's turn that a short answer picks by label or value, in the agent's words."""
    tail = asked[-_TAIL_CHARS:]
    options: dict[str, str] = {}
    for match in _OPTION.finditer(tail):
        label = (match.group(1) or match.group(2) or match.group(4) or "").casefold()
        text = (match.group(3) or match.group(5) or "").strip()
        if label and text and label not in options:
            options[label] = as_item(text)
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
