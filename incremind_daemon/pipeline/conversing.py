"""Tell whether what a person says to an agent holds beyond the task at hand.

Said to an agent, most sentences are the work of the hour: an ask, a plan for today, what went wrong after a
change. A sentence lasts when its cues say so and nothing in it ties it to the task (``lasts_in_conversation``).
"""

from __future__ import annotations

import re

from incremind_daemon.pipeline.at_hand import COMPLAINT, EXPLANATION, TODAY_PLAN
from incremind_daemon.pipeline.lasting import (
    COMMUNICATION,
    CONVERSATION_CUES,
    CORRECTION,
    DECISION,
    ENTITY,
    EVENT,
    GENERAL,
    HAPPENED,
    IDENTITY,
    METHOD,
    REQUEST,
    STANDING,
    one_off,
)
from incremind_daemon.pipeline.openers import CONTEXT_OPENER
from incremind_daemon.pipeline.pieces import ASKED_CHANGE, VALUE, weight

# a sentence that says when what it reports happens: "the deploy job is failing whenever …", "导入一直是 0 条的话，…"
WHEN_SAID = re.compile(r"(?<![a-z])(?:if|when|whenever|unless|otherwise)(?![a-z])|如果|要是|否则|不然|的话")
# an instruction that forbids, which holds beyond the task however plainly put, and a failure named beside it
# does not undo: "Don't roll back migrations by hand", "dbt test 挂了就是挂了 不许改 severity 成 warn"
FORBIDS = re.compile(r"(?<![a-z])(?:don't|do not|never)(?![a-z])|不要|别|不许|禁止")
# what a piece of work is for, up to its clause's end: "… so that every card gets a level", "so I start associating …"
_PURPOSE = re.compile(r"(?<![a-z])so (?:that )?(?:i|we|you|it|every|each|all|the)(?![a-z])[^,;]*")
_EVERY_REPLY = re.compile(r"(?<![a-z])(?:your|all|every|any) (?:replies|answers|responses|messages)|code comments")
# a change the sentence tells what followed: "升到 0.13 之后", "after we bumped it to 0.13"
_AFTER_A_CHANGE = re.compile(
    r"(?:升|降|改|换|切|装|更新|upgrade|bump)[^，。,;；]{0,20}?(?:之后|以后|后)(?!再)"
    r"|(?<![a-z])(?:since|after) (?:we |i |you )?(?:bump|upgrad|switch|mov|chang|updat)"
)
# a value that configures something: a number with a unit or a name=value pair
_IMPERATIVE_START = re.compile(
    r"(?:use|set|keep|run|make|give|train|cap|limit|clip|pin|default to|stick to|flush|poll|retry|subscribe)\b"
)
_SETTING = re.compile(r"\d+(?:\.\d+)?\s*(?:ms|s|sec|seconds?|min|minutes?|h|hours?|days?|%|mb|gb|px|k)?\b|\w+=\S")
# an ask that closes on what to do with it now: show it, plan it, run it
_NOW_TAIL = re.compile(
    r"(?:,|;|(?<![a-z])and|(?<![a-z])then)\s*(?:then\s+)?(?:show me|plan (?:it|staging|prod|that)|run (?:it|them)"
    r"|apply it|push it|commit it|open a pr)(?![a-z])|然后[^，。]{0,20}给我看|给我看一下|先不要执行|跑一下看看"
)
MINE_TO_DO = re.compile(r"(?:i'll|i will|i'm going to|let me|我来|我自己|我去)\b")


def lasts_in_conversation(folded: str, matched: frozenset[str], *, setting_said: bool) -> bool:
    """Tell whether a person's sentence to an agent states something beyond the task at hand; ``setting_said``: it says
    what a setting is set to, and no other cue reads it (``states_setting``)."""
    if CONTEXT_OPENER.match(folded):
        return False  # "First time running you in this repo so some quick context." says context follows
    if setting_said:  # what a setting is set to, unless it asks to set it now ("bump 版本到 3.8.0")
        return not (REQUEST.search(folded) or one_off(folded) or COMPLAINT.search(folded))
    strong = matched & CONVERSATION_CUES
    setting = _IMPERATIVE_START.match(folded) and _SETTING.search(folded)
    if not strong and METHOD.pattern in matched and setting and not REQUEST.search(folded):
        return True  # "Use max_batch 64 and a 5 ms batch window" sets how things are done
    if not strong or EXPLANATION.match(folded):
        return False
    standing = strong - {ENTITY.pattern}
    # what the work is for says no rule: "import the HSK lists so that every card gets a level"
    # …but how to talk in every reply is no task: "Please write in British English … in your replies, in code comments"
    spoken_to = COMMUNICATION.pattern in standing and _EVERY_REPLY.search(folded) is not None
    if REQUEST.search(folded) and not (
        standing - {COMMUNICATION.pattern, STANDING.pattern, EVENT.pattern}
        or GENERAL.search(_PURPOSE.sub("", folded))
        or spoken_to
    ):
        return (
            False  # an ask for the task at hand; "用 X 跑一下" names a tool, "Swap it for … (got them last night)" too
        )
    if ASKED_CHANGE.match(folded) and standing <= {DECISION.pattern} and not GENERAL.search(folded):
        return False  # "帮我把 fetchPlans 改成 async/await", "can you switch the test to vitest": this change, once
    if _NOW_TAIL.search(folded) and not GENERAL.search(folded):
        return False  # "pin both to v2.3.1 and plan staging", "…然后生成一个修复 SQL 给我看": the work of the hour
    if TODAY_PLAN.search(folded) and IDENTITY.pattern not in strong:
        return False  # "今天要把通知切到 DingTalk", "reuse run_helm() for this": the day's work
    if COMPLAINT.search(folded) and _AFTER_A_CHANGE.search(folded):
        return False  # "vllm 升到 0.13 之后 eval 起不来了": what went wrong after a change, which decides nothing
    if strong == {EVENT.pattern}:
        return HAPPENED.search(folded) is not None and VALUE.search(folded) is not None
    if strong <= {ENTITY.pattern, EVENT.pattern}:
        # a fact needs its value (a number, a path, a host); a plan for today is none, nor is a report of what
        # is going wrong ("POST /invoices is throwing 500s since yesterday's deploy")
        return VALUE.search(folded) is not None and not one_off(folded) and not COMPLAINT.search(folded)
    if strong == {CORRECTION.pattern}:
        # "no, I'll push it" turns down a step; a correction that lasts says what is right, not what went wrong
        if COMPLAINT.search(folded):
            return False
        return VALUE.search(folded) is not None or (weight(folded) >= 4 and not MINE_TO_DO.match(folded))
    # "it always fails on CI" reports a problem, "记得明天…" is for one day: no rule; what fails whenever
    # something is done says when it will ("the deploy job is failing whenever a file under db/ is edited by hand")
    # …and a forbidding stands beside a failure it names ("dbt test 挂了就是挂了 不许改 severity 成 warn")
    complaint = COMPLAINT.search(folded) and not WHEN_SAID.search(folded) and not FORBIDS.search(folded)
    return not (standing == {STANDING.pattern} and (complaint or one_off(folded)))
