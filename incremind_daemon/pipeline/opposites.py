"""Words that say opposite things of the same subject: fixed / adaptive, always / never, manual / automatic.

A text that holds one word of a pair disagrees with a text that holds the other. A text that holds both
says each of its own thing ("the prod app is manual sync, staging is auto-sync"): a candidate disagrees
with the clause about what it names ("prod goes to automated sync too"), not with the text as a whole.
"""

from __future__ import annotations

import re

from incremind_daemon.pipeline.cues import bounded as _words
from incremind_daemon.pipeline.features import Features, features_of, keys_of

# fmt: off
_OPPOSITES = tuple((re.compile(a), re.compile(b)) for a, b in (
    (_words(r"fixed|static|constant|hard-?coded") + "|固定|静态|写死",
     _words(r"adjust\w*|adaptive|adapt\w*|dynamic\w*|variable|flexib\w*") + "|调整|动态|自适应|灵活"),
    (_words(r"always|every time") + "|总是|始终|每次都", _words(r"never") + "|从不|从来不|绝不"),
    (_words(r"enabled?|enabling|turn on") + "|开启|打开|启用", _words(r"disabled?|disabling|turn off") + "|关闭|禁用"),
    (_words(r"increase\w*|raise|more|higher") + "|增加|提高|加大|调高|更多",
     _words(r"decrease\w*|reduce\w*|lower|less|fewer") + "|减少|降低|调低|更少"),
    (_words(r"sync|synchronous(?:ly)?") + "|同步", _words(r"async\w*|asynchronous(?:ly)?") + "|异步"),
    (_words(r"manual(?:ly)?|by hand") + "|手动|手工", _words(r"automatic(?:ally)?|automate\w*|auto") + "|自动"),
    (_words(r"tabs?"), _words(r"spaces")),
    (_words(r"morning") + "|早上|上午|早晨", _words(r"evening|night") + "|晚上|夜里|睡前"),
    (_words(r"local(?:ly)?") + "|本地", _words(r"remote(?:ly)?|cloud") + "|远程|云端"),
    (_words(r"allow\w*|permit\w*") + "|允许", _words(r"forbid\w*|deny|block\w*") + "|禁止|不允许"),
    (_words(r"monolith\w*") + "|单体", _words(r"microservices?") + "|微服务"),
))
# fmt: on
_CLAUSE = re.compile(r"\s*(?:[,;，；。]|\s[—–-]+\s|[—–])\s*")


def opposed(folded: str, their_folded: str, mine: Features) -> bool:
    """Tell whether a folded candidate holds one word of a pair where the folded known text holds the other:
    in the whole text, or, where the known text holds both, in its one clause that shares most of what the
    candidate names (``mine``)."""
    for first, second in _OPPOSITES:
        if _apart(first, second, folded, their_folded):
            return True
        if first.search(their_folded) and second.search(their_folded):
            clause = _clause_about(their_folded, keys_of(mine), (first, second))
            if clause is not None and _apart(first, second, folded, clause):
                return True
    return False


def _apart(first: re.Pattern[str], second: re.Pattern[str], mine: str, theirs: str) -> bool:
    mine_first, mine_second = first.search(mine), second.search(mine)
    their_first, their_second = first.search(theirs), second.search(theirs)
    return bool(
        (mine_first and their_second and not mine_second and not their_first)
        or (mine_second and their_first and not mine_first and not their_second)
    )


def _clause_about(text: str, keys: frozenset[str], pair: tuple[re.Pattern[str], ...]) -> str | None:
    """Of the clauses of text that hold a word of the pair, the one that shares the most of keys; None when
    none or several do."""
    clauses = [clause for clause in _CLAUSE.split(text) if any(word.search(clause) for word in pair)]
    shared = [(len(keys & keys_of(features_of(clause))), clause) for clause in clauses]
    most = max((count for count, _ in shared), default=0)
    best = [clause for count, clause in shared if count == most]
    return best[0] if most and len(best) == 1 else None
