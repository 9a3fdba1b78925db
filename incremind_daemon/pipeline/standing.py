"""Which of a session's decisions still stand, read newest first.

A decision to use what a later one turns down ("用 Redis" before "算了，不用 Redis 了") no longer
stands, nor does the choice a later one goes back on ("质量检查用 great_expectations" before
"质量检查还是用 dbt tests"). snapshot.py keeps the items of every list as ``Kept``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.lasting import HOLDS_ON
from incremind_daemon.pipeline.stance import negated, used

# the words that join a sentence to the one before, which an item's key may open with
CONNECTIVES = re.compile(r"^(?:and|also|so|but|then|plus|ok|okay|还有|另外|然后|而且|并且|顺便|对了)+")


# a way of working said to hold on, which is no step for next time: "以后都这样", "我的习惯是…", "push 还是我自己来"
_HOLDS = re.compile(r"我的习惯|习惯是|还是我自己|照旧|(?<![a-z])(?:as usual|as always|like always)(?![a-z])")


def a_standing_rule(item: str) -> bool:
    """Tell whether a step the person names is a way of working said to hold on ("commit 吧 别 push 我自己看过再推
    以后都这样", "push 还是我自己来"): a decision that stands, not the next step."""
    folded = re.sub(r"never ?mind", "", fold(item))
    return HOLDS_ON.search(folded) is not None or _HOLDS.search(folded) is not None


@dataclass(frozen=True, slots=True)
class Kept:
    """One item of a session's state as kept: its text, the key and tokens it is compared by, and its rank."""

    item: str
    key: str
    tokens: frozenset[str]
    rank: int  # which of too many to keep: the person's own words, and reports of what was done over checks


def standing(decisions: list[Kept]) -> list[Kept]:
    """Drop a decision to use what a later one turns down: "用 Redis" once "算了，不用 Redis 了" is said,
    and the choice a later one goes back on (``_reversed``).

    ``decisions`` are newest first.
    """
    kept: list[Kept] = []
    turned_down: set[str] = set()
    going_back: list[tuple[str, frozenset[str]]] = []  # (subject, what it uses) of each later reversal
    for decision in decisions:
        uses, refuses = used(decision.item, imperative=False), negated(decision.item)
        if uses & turned_down and not uses & refuses:
            continue
        if any(_reversed(decision.item, subject, chosen) for subject, chosen in going_back):
            continue
        kept.append(decision)
        turned_down |= refuses
        folded = fold(decision.item).casefold()
        if (back := _GOING_BACK.search(folded)) is not None and uses:
            subject = CONNECTIVES.sub("", folded[: back.start()]).strip(" ,，:：")
            going_back.append((subject, uses))
    return kept


# a later word that goes back on a choice: "算了，还是用 DuckDB", "质量检查还是用 dbt tests", "stick with X"
_GOING_BACK = re.compile(
    r"(?:^|[，,:：]\s*)算了|还是(?:用|选|走|回到)|(?<![a-z])(?:scratch that|never ?mind|on second thought|stick with"
    r"|go(?:ing)? back to|switch(?:ing)? back to)(?![a-z])"
)
_NAMES = re.compile(r"[a-z][\w.+-]{2,}")


def _reversed(item: str, subject: str, chosen: frozenset[str]) -> bool:
    """Tell whether an earlier decision is the choice a later reversal goes back on: it names something the
    reversal does not choose, about the subject the reversal names ("质量检查用 great_expectations" before
    "质量检查还是用 dbt tests"), or, when the reversal names none, it is a choice of a named thing ("我倾向
    Postgres" before "算了，还是用 DuckDB")."""
    folded = fold(item).casefold()
    names = set(_NAMES.findall(folded))
    if not names or names & chosen:
        return False
    if subject:
        return len(subject) >= 2 and folded.startswith(subject)
    return _CHOICE.search(folded) is not None


_CHOICE = re.compile(r"倾向|打算用|想用|就用|(?<![a-z])(?:let's (?:use|go with)|i(?:'d)? lean|go with|prefer)(?![a-z])")
