"""Tell whether a sentence says in its own words that it holds on, beyond the task at hand.

Such a sentence is the person's rule by its own word, and the lasting model, which reads short plain rules weakly,
may not drop it: "always", "from now on", "以后", a change of plan, an instruction that forbids, a rule of every one
of a kind ("每个 View 都要有 #Preview"), a step before each commit.
"""

from __future__ import annotations

import re

from incremind_daemon.pipeline.cues import MY_STEP
from incremind_daemon.pipeline.lasting import BEFORE_EACH_STEP, HOLDS_ON
from incremind_daemon.pipeline.pieces import weight
from incremind_daemon.pipeline.sections import recurs_weekly
from incremind_daemon.pipeline.stance import CHANGE_OF_PLAN

_AT_HAND_WORK = re.compile(r"(?<![a-z])(?:this|these|that|those)(?![a-z])|这些|这个|这次|这几|那个|那些")  # the work
_FORBIDDING = re.compile(r"(?:(?:pls|please) )?(?:don'?t|do not|never)\s|(?:请)?(?:别|不要|不准|禁止|不许)")
_MUST = re.compile(  # "goose 的 migration 必须带 Down", "没上传成功的一条都不许删", "每个 View 都要有 #Preview"
    r"[^，。,;；]{2,30}?(?<!不)(?:必须|一定要)|[^，。,;；]{2,30}?(?:都|一律|千万|绝对)?(?:不许|不准|禁止)"
    r"|(?:每个|每一个|所有的?)[^，。,;；]{1,20}?都(?:要|得|不能|不要|别)(?![^，。,;；]*一[下遍])"
    r"|[^，。,;；]{2,30}?只(?:能|许)(?!说|先|等)"
)


_MY_STEP = re.compile(MY_STEP)  # a step of the work the person keeps for themselves: "push 我自己来"


def says_it_holds(folded: str, *, conversational: bool) -> bool:
    """Tell whether a sentence says in its own words that it holds on, which the lasting model may not overrule:
    "always", "from now on", "以后", a change of plan ("switch … to", "改成"), said to an agent an instruction that
    forbids ("Don't roll back migrations by hand"), a step before each commit or push ("commit 之前先把 diff 给我看") or
    one the person keeps for themselves ("push 我自己来"), and in a note a slot every week ("每周三晚上打羽毛球")."""
    if HOLDS_ON.search(folded) or CHANGE_OF_PLAN.search(folded):
        return True
    if conversational and _MY_STEP.search(folded):
        return True
    if conversational:
        # (a step before each commit that names no work at hand: not "squash these wip commits before pushing")
        each = BEFORE_EACH_STEP.search(folded) if not _AT_HAND_WORK.search(folded) else None
        said = _FORBIDDING.match(folded) or _MUST.match(folded) or each
        return (said is not None or recurs_weekly(folded)) and weight(folded) >= 4
    return recurs_weekly(folded)
