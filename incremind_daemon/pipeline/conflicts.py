"""Whether a candidate and a known insight can disagree, and whether the newer one then replaces the older.

Two statements disagree only where they can: what happened on a day is news beside an undated rule, and who the
person is changes only when they say it does. A disagreement supersedes when it says it changes things (a change
of plan, a thing dropped, a line labelled a decision) or is the person's newer word in the same scope; otherwise
the two stand side by side as different.
"""

from __future__ import annotations

import logging
import re

from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.features import names_a_day
from incremind_daemon.pipeline.lasting import EVENT
from incremind_daemon.pipeline.pairs import Known, Relation
from incremind_daemon.pipeline.replies import answer_slots, reply_slots
from incremind_daemon.pipeline.scope import scope_beside
from incremind_daemon.pipeline.sections import labels_a_decision
from incremind_daemon.pipeline.stance import CHANGE, CHANGE_OF_PLAN
from incremind_daemon.store.records import Candidate

log = logging.getLogger(__name__)

# a note's word that its line takes another's place ("instead of the Thursday", "New date Tuesday 3 November"), not
# how a thing is done ("… so team leads can edit their own quota instead of filing a ticket"); and a day a thing goes
# to, whatever the verb ("exam: nimeisongeza kwa Pearson VUE to Sat 28 March", Swahili for "I've moved it")
_REPLACES = re.compile(
    r"(?<![a-z])(?:instead of (?!\w+ing\b)|new (?:date|time|day|deadline):? (?=\d|\w+day\b)"
    r"|to (?=(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,? \d))"
)
_SHORT_DATE = re.compile(r"(?<![\d./:-])(?:1[0-2]|0?[1-9])/(?:3[01]|[12]\d|0?[1-9])(?![\d/:-])")  # "3/24", not 1/2/3
# a day moved or a thing dropped, which a dated sentence may say without a change word
# (stance.CHANGE has "retired", 不用…了, 推迟, 提前 and 延期)
_DROPS = re.compile(
    r"(?<![a-z])(?:dropp(?:ed|ing)|scrapp(?:ed|ing)|ditch(?:ed|ing)|got rid of|ripped out|phased out"
    r"|stopped \w+ing)(?![a-z])"
    r"|弃用|砍掉|干掉|去掉|拿掉|下线|顺延"
)
_SPACED_DATE = re.compile(r"(?<=\d)\s*([月日号])\s*(?=\d|(?<=[日号]))")


def may_conflict(candidate: Candidate, item: Known) -> bool:
    """Tell whether the two can disagree: what happened, or who the person is, is not refuted by a rule.

    What happened on a day, said without a word of change ("v0.9.0 went out to prod yesterday at 09:40",
    "11 月 7 日（周六）21:40–22:25 … 反复 rebalance"), is news beside an undated rule whatever category it was
    filed under; two dated sentences may disagree ("launch moved to March 27" beside "Launch is on March 20").
    """
    kinds = {candidate.category, item.category}
    mine, theirs = candidate.quote or candidate.statement, item.statement
    if answer_slots(theirs) and not reply_slots(mine):
        return False  # how to answer the person is changed only by words on answering, not "换成…有中文的声音"
    # …though someone else's view is theirs to hold against a rule, whatever day its reason names
    if not candidate.reported and _dated(mine) != _dated(theirs) and not (says_change(mine) or says_change(theirs)):
        return False
    if len(kinds) == 1 or not kinds & {"event", "identity"}:
        return True
    # …and who the person is, or a habit filed so, changes when they say it does, in its own scope
    # ("羽毛球由今个礼拜开始改咗礼拜三晚" beside "逢礼拜四晚七点后去打羽毛球"), as does a plan for a calendar day
    # ("搬家不是 24 号而是 25 号了" beside "10 月 24 日（周六）搬"), whichever of the two was filed as the event
    # ("Switched my SCSM registration to the half marathon — same day, 6 Dec" beside "race: SCSM, Sun 6 Dec — full")
    # …or a slot that recurs ("周会固定周二下午 3 点" beside "从下周起周会挪到周四上午 10 点")
    planned = (names_a_day(theirs) or _RECURS.search(fold(theirs)) is not None) and "identity" not in kinds
    return ("event" not in kinds or planned) and candidate.scope == item.scope and says_change(mine)


_RECURS = re.compile(
    r"每(?:周|星期|礼拜|天|月)|固定|逢(?:周|星期|礼拜)|(?<![a-z])(?:every|each) (?:week|day|month|[a-z]+day)|weekly"
)


def _dated(text: str) -> bool:
    """Tell whether a text names a day: a date ("11 月 7 日", "3/24") or a past one ("yesterday", "上周")."""
    folded = _SPACED_DATE.sub(r"\1", fold(text))  # "11 月 7 日" as "11月7日"
    return EVENT.search(folded) is not None or _SHORT_DATE.search(folded) is not None


def says_change(text: str) -> bool:
    """Tell whether a text says it changes something: a change word, or a thing dropped ("We dropped X")."""
    folded = fold(text)
    return bool(CHANGE.search(folded) or CHANGE_OF_PLAN.search(folded) or _DROPS.search(folded))


def conflict(candidate: Candidate, item: Known, score: float, ordered: bool, *, moved: bool = False) -> Relation:
    """A disagreement supersedes when it says it changes things, or is the person's newer word in that scope.

    ``moved``: a change word sets the new value ("改到周四", "cut it to 10 min"), which says so.
    """
    said = fold(f"{candidate.quote} {candidate.statement}")
    # …and so does a line the writer labels a decision ("- DECIDED: online cancellation closes 48 hours before …")
    says_so = moved or CHANGE_OF_PLAN.search(said) or _REPLACES.search(said) or labels_a_decision(candidate.quote)
    mine = (says_so or ordered) and not candidate.reported
    # a change of one project's rule is that project's (insights.record_increments gives it the scope), unless
    # it says it holds in every project: then both stand, side by side; a change of plan said of a rule that holds
    # everywhere, naming no project, is as wide as the rule
    wide = scope_beside(candidate.scope, said, item.scope, changes=True)
    if mine and wide == "project" and item.scope == "global":
        # said of this project, it is the project's exception to the rule, which holds everywhere else: "for
        # swellwatch you can run fly deploy yourself" beside "don't push or deploy anything, ever"
        return Relation("supplement", item.id, round(score, 4))
    kind = "supersedes" if mine and wide == item.scope else "different"
    return Relation(kind, item.id, round(score, 4))
