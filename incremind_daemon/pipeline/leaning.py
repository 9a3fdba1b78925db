"""Read what a person's short sentence leans on: the words before it that say what it is about.

People name a thing once and then go on with a bare noun: "后面写 late penalty 脚本要用：…。今天先这样，
脚本明天再弄", "the migration for the orders table … ok, the migration tomorrow then". A step that
short borrows the clause before it that names the same word more fully, so the state says which
script or which migration, and one drawn from the sentence before ("那我开 PR 了") takes that sentence.
A Chinese decision that names nothing at all ("…CORE_API_TOKEN 谁写的真值?? 赶紧换成占位符") borrows
the whole sentence before it, a question included.
"""

from __future__ import annotations

import logging
import re

from incremind_daemon.pipeline.cues import fold, wordset
from incremind_daemon.pipeline.markdown import LATIN_WORD, clip, named_values, text_weight, words_of

log = logging.getLogger(__name__)

LEAN_WEIGHT = 8  # a step of more words than this says what it is about by itself
LEAN_CHARS = 80
_DRAWN = re.compile(r"^(?:那就?|那么|所以)(?=我|咱|先)|^(?:so|then)[, ]+(?:i'll|i will|we'll|let's)(?![a-z])")
_CLAUSE = re.compile(r"[,，;；:：。.!！?？]\s*|\s[—–]\s")
# words of the session's time and manner, which a step shares with any sentence: "今天", "明天", "先这样"
_NOT_TELLING = wordset("今天 明天 这样 先这 然后 一下 我们 你们 today tomorrow then later that this the and")


def named_before(step: str, before: str) -> str:
    """Return the clause of before that names a word of a short step more fully, or ""."""
    if not before or text_weight(step) > LEAN_WEIGHT:
        return ""
    ours = words_of(step) - _NOT_TELLING
    if not ours:
        return ""
    for clause in reversed(_CLAUSE.split(before)):
        theirs = words_of(clause)
        # the clause says more of what they share: "后面写 late penalty 脚本要用" beside "脚本明天再弄"
        if ours & theirs and len(theirs - ours) >= 2 and text_weight(clause) >= 2:
            return clause.strip()
    # "那我开 PR 了", "so I'll open the PR then": a step drawn from the sentence before takes it whole
    if _DRAWN.match(fold(step.lstrip())) and text_weight(before) >= 3 and not before.rstrip().endswith(("?", "？")):
        return clip(before.strip().rstrip("。.!！"), LEAN_CHARS)
    return ""


def names_nothing(item: str) -> bool:
    """Tell whether a short sentence names no thing of its own, so the sentence before says what: "不用修 看看就行"."""
    return text_weight(item) <= 4 and not LATIN_WORD.search(item) and not named_values(item)
