"""Word a state item well: drop the caption it repeats, say what its pronoun points to, add the command handed over.

"Next steps: add tests" is "add tests"; "I'll push it" after the agent's "Want me to push the tag?" is
"I'll push it (push the tag)"; "apply 我晚点自己跑" after a fenced `terraform … apply` names that command.
"""

from __future__ import annotations

import re

from incremind_daemon.pipeline.cues import ITEM_LABEL, LATER_CUES, OFFER_CUES, fold
from incremind_daemon.pipeline.lasting import GENERAL
from incremind_daemon.pipeline.markdown import COMMON_WORDS, LATIN_WORD, as_item, text_weight
from incremind_daemon.pipeline.organize import split_sentences
from incremind_daemon.pipeline.stance import CHANGE_OF_PLAN
from incremind_daemon.pipeline.state_cues import (
    CHECKS_THAT,
    OBJECT_PRONOUN,
    POINTED_STEP,
    feels_only,
    phrases,
    proposes,
)

_FENCE_BODY = re.compile(r"^[ \t]*(`{3,}|~{3,})([^\n]*)\n(.*?)^[ \t]*\1", re.M | re.S)
_SHELL = frozenset(("", "sh", "bash", "zsh", "fish", "shell", "console", "terminal"))  # fences that hand over commands
_PROPOSAL_LEAD = re.compile(
    # the agent's acknowledgement first: "明白，改为从 TIDE_DATA 读取", "Got it: deploys move to …"
    r"^(?:(?:明白了?|收到|了解|好的|got it|understood|noted|sure)[\s,，.。!！:：]+)?"
    r"(?:(?:so |then )?(?:i can(?: also)?|(?:do you )?want me to(?: also)?|should i|shall i|would you like me to"
    r"|i(?:'d)? (?:suggest|recommend|propose)(?: that)?|how about"
    r"|我(?:可以|建议)|建议(?:你|我们)?|要不要我?|需要我|是否需要我?)"
    r"[\s,，:：]*)?"
)
_YES_FIRST = re.compile(r"[^\w\s]+\s*|(?:ok(?:ay)?|good|great|nice|好的?|行|嗯)[\s,，.。!！]+")
PROPOSAL_TAIL = re.compile(r"[\s,，]*(?:可以吗|好吗|吗|呢|吧)?\s*[?？]*$")
NEXT_STEP = re.compile(r"(?i)^(?:下一步|next steps?\b|next\s*:)")
# a caption over a list of rules the person sets: "几条规矩我先定下来：", "Ground rules:", "Conventions for this repo:"
RULES_CAPTION = re.compile(
    r"(?:规矩|规则|规定|约定|原则)[^:：，,。]{0,12}[:：]\s*$"
    r"|(?<![a-z])(?:ground rules|rules|conventions|guidelines|house rules)(?: [^:：,.]{1,30})?\s*[:：]\s*$"
)


def offer_joined(sentences: list[str]) -> list[str]:
    """Join the step an agent names next ("下一步：positions.py 还是 pandas，…") and the short question right after
    it that offers the step ("明天把它迁到 polars？"): one offer, which a yes takes whole."""
    joined: list[str] = []
    for sentence in sentences:
        last = joined[-1].rstrip() if joined else ""
        named = bool(last) and NEXT_STEP.match(fold(last.lstrip())) is not None and not last.endswith(("?", "？"))
        offers = sentence.rstrip().endswith(("?", "？")) and len(sentence.strip()) <= 80
        # …which names what it does ("Sound good?", "你看可以吗？" only ask for a yes)
        if named and offers and text_weight(PROPOSAL_TAIL.sub("", fold(sentence))) >= 3:
            joined[-1] = f"{last} {sentence.strip()}"
        else:
            joined.append(sentence)
    return joined


def proposed(item: str) -> str:
    """Word an accepted proposal as what was decided: "Want me to kill it?" → "kill it"."""
    folded = fold(item)
    lead = _PROPOSAL_LEAD.match(folded)
    rest = item[lead.end() :] if lead else item
    rest = PROPOSAL_TAIL.sub("", rest)
    return rest if text_weight(rest) >= 2 else item


def unlabelled(item: str) -> str:
    """Drop a caption that only repeats the item's kind: "Next steps: add tests" → "add tests"."""
    folded = fold(item)
    yes = _YES_FIRST.match(folded)  # "👌 下一步: depot filter …", "ok, next: …": a yes before the caption
    label = ITEM_LABEL.match(folded[yes.end() :]) if yes else ITEM_LABEL.match(folded)
    rest = item[(yes.end() if yes else 0) + label.end() :] if label else item
    return rest if text_weight(rest) >= 2 else item


# someone's review of the work as a whole, which no sentence before names: "Marcus reviews this before it goes …"
_REVIEWS_THE_WORK = re.compile(r"[a-z]+ (?:(?:will|has to|needs to|must|should) )?(?:reviews?|approves?) (?:this|it)\b")


def resolved(step: str, said: str, before: str) -> str:
    """Say what a step names by pronoun: from the person's sentence before it, or the agent's offer it answers."""
    if said.rstrip().endswith(("?", "？")) and (checks := CHECKS_THAT.search(fold(step))) and checks.start() < 4:
        return f"{as_item(said)} — {step}"  # "do we need hreflang, or does Starlight emit them? — check that next time"
    pronoun = OBJECT_PRONOUN.search(fold(step)) or POINTED_STEP.search(fold(step))
    if pronoun is None or text_weight(step[: pronoun.start()]) > 5 or _REVIEWS_THE_WORK.match(fold(step)):
        return step  # "the exception to the rule: if it's on a branch, edit it" points inside its own sentence
    said = unlabelled(as_item(said))  # "Next step: regenerate the notebook. I start on it after lunch.": one label
    if text_weight(said) >= 2 and not said.endswith(("?", "？")) and not feels_only(fold(said)):
        # "that one's flaky upstream — skip it for now, I'll open an issue" (not "我媽看到這些一定很開心", a feeling)
        return f"{said} — {step}"
    if not _offers(fold(before[-600:])):
        return step
    offers = [s.text for s in split_sentences(before[-600:]) if _offers(fold(s.text))]
    return f"{step} ({proposed(as_item(offers[-1]))})" if offers else step  # "I'll push it (push the tag)"


def _offers(folded: str) -> bool:
    return OFFER_CUES.search(folded) is not None or proposes(folded)


def with_command(step: str, after: str, before: str) -> str:
    """Add the command the agent handed over for a step the person takes: "apply 我晚点自己跑 (`terraform … apply`)"."""
    words = {w for w in LATIN_WORD.findall(fold(step)) if len(w) >= 3 and w.isalpha()} - COMMON_WORDS
    for text in (after, before):
        fences = (body for _, info, body in _FENCE_BODY.findall(text) if info.strip().lower() in _SHELL)
        lines = [line.strip() for body in fences for line in body.splitlines()]
        handed = [line for line in lines if 0 < len(line) <= 100 and not words.isdisjoint(LATIN_WORD.findall(line))]
        if handed:
            return f"{step} (`{handed[-1].removeprefix('$ ')}`)"
    return step


# a hold ahead of the step, which the decisions keep: "Don't commit yet — I'll send Ruth the new PNG first"
_HOLD_HEAD = re.compile(
    r"^(?:don't|do not) (?:commit|push|merge|deploy|release|ship|tag)(?: (?:it|this|that|anything))? yet\s*[—–:;,]\s*"
    # "Don't run it now though, the migration PR needs Meng Fan's review first"
    r"|^(?:but )?(?:don't|do not) [a-z]+ (?:it|this|that|them) (?:now|yet|today)(?: though)?\s*[—–:;,]\s*"
    r"|^(?:这次)?(?:先|暂时)(?:别|不要|不)\s*(?:commit|push|merge|提交|推送?|合并?|上线|发布)\s*了?\s*[，,：:—]\s*"
)


def without_hold(step: str) -> str:
    """Drop the hold a step opens with: "Don't commit yet — I'll send Ruth the new PNG first" → the step."""
    held = _HOLD_HEAD.match(fold(step))
    rest = step[held.end() :] if held else ""
    return rest if text_weight(rest) >= 3 else step


# something held until someone answers, and then done: "MR 先不开，等王工回邮件确认…再开", "metrics 先别动，等老钱…定了
# 再迁", "don't open the MR until Wang confirms the limit" (not "…再说": that sets it aside)
_WAITS_THEN = re.compile(
    r"等[^，,。；;]{2,40}?(?:[，,]\s*(?:我|我们)?)?再\s*(?!说|看看?吧|讨论)(?:[\u4e00-\u9fff]|[a-z])"
    # …or until someone answers, then settled: "下午跟 Ken 确认一下 worker 上的版本再说", "等 Dennis 确认…再说"
    # …or for CI or a run to pass: "先别 merge，等 CI green 了再说"
    r"|(?:等|跟|和|问)[^，,。；;]{1,30}?(?:确认|回复|回邮件|答复|拍板|商量|review|green|绿|通过)[^，,。；;]{0,40}?再说"
    r"|(?:还要|还得|要先|得先)(?:跟|和|问)[^，,。；;]{1,12}(?:确认|商量|聊)"  # "…要不要开我还要跟阿凯确认"
    # "don't open the MR until Wang confirms", "wait till 阿凱 says when /api/quote lands", "wait for Dev to reply"
    # (not "don't tell me it's done until the tests are green", a rule on what the agent reports every time)
    r"|(?<![a-z])(?:(?:don'?t|do not|no|hold off on) (?!(?:tell|say)\b)[^,.;]{2,40} (?:until|till) (?!further notice)"
    r"|wait (?:till|until|for) \S+ to|wait (?:till|until) [^,.;]{1,20} (?:says|confirms|replies|answers|approves)"
    # "Don't run it now though, the migration PR needs Meng Fan's review first"
    r"|needs? [^,.;]{1,30}'s (?:review|approval|sign-?off|ok|okay|go-ahead|green light) first"
    # "don't merge, Ravi needs to look at the hook first", "merge after Ravi approves"
    r"|(?!(?:i|we|you|it|this|that|they|he|she)\b)[a-z]+ (?:needs|has|wants) to (?:look at|review|approve|check|see)"
    r" [^,.;]{1,30} first|(?:merge|deploy|ship|push|apply|sync|release) (?:it |this |that )?(?:only )?(?:after|once)"
    r" (?!(?:i|we|you|it|ci)\b)[a-z]+ (?:approves|reviews|signs off|okays|oks|confirms|has (?:reviewed|approved))"
    # "Marcus reviews this before it goes anywhere near prod", "Priya has to approve it before we merge"
    r"|(?!(?:i|we|you|it|this|that|they|he|she|someone|somebody|nobody|no one|everyone|anyone)\b)[a-z]+"
    r" (?:(?:will|has to|needs to|must|should|gets to) )?(?:reviews?|approves?|signs? off on|looks? over|checks?)"
    r" (?:this|it|that|them|the (?:pr|mr|diff|change|changes|branch|migration))(?: first)? before )"
)


def _this_time(pattern: re.Pattern[str], folded: str) -> bool:
    # a hold or a wait said of the work at hand, not a rule for every time: "以后 MR 一律等我 review 完再合"
    return pattern.search(folded) is not None and GENERAL.search(folded) is None


def waits_then_acts(folded: str) -> bool:
    return _this_time(_WAITS_THEN, folded)


# work held back now and named for a later time: "今天 backtest 先不跑了，明天再说", "这个先不改了，下周再弄"
_PUT_OFF_TILL = re.compile(
    r"先不\s*[\u4e00-\u9fff]{1,2}了?\s*[，,]\s*(?:等)?(?:明天|明早|下次|回头|改天|下周|周[一二三四五六日]|晚点|下午|今晚)再"
    r"(?:说|跑|做|弄|看|搞|改|试|测)"
)


# the session left waiting on someone: "好，等思琪 review。", "等 Ken 确认", "waiting on Dev's review"
_AWAITS = re.compile(
    r"(?:^|[，,。;；:：]\s*)等\s*[^，,。;；\s]{1,12}\s*(?:的\s*)?(?:review|审核?|审批|批准?|确认|回复|回邮件|approve)"
    r"|(?<![a-z])(?:wait(?:ing)? (?:on|for) \S+(?: \S+)?'s (?:review|approval|sign-?off|go-ahead|ok)"
    r"|wait(?:ing)? (?:on|for) \S+(?: \S+)? to (?:review|approve|sign off|confirm|reply))"
)


def awaits(folded: str) -> bool:
    """Tell whether a sentence leaves the work waiting on someone's review or answer: "好，等思琪 review"."""
    return _this_time(_AWAITS, folded)


def put_off_till(folded: str) -> bool:
    """Tell whether a sentence holds work back and names when it is taken up: "今天 backtest 先不跑了，明天再说"."""
    return _this_time(_PUT_OFF_TILL, folded)


# when a job set up in the session runs, said in the report of it: "timer 已 enable：下次运行是明早 07:00"
_RUNS_NEXT = re.compile(
    r"下一?次(?:运行|执行|触发)|(?<![a-z])(?:next run|next trigger|will (?:next )?run (?:at|on))"
)


def says_when_it_runs(folded: str) -> bool:
    """Tell whether a sentence names when something set up runs next, which is no step of anyone's."""
    return _RUNS_NEXT.search(folded) is not None


def changes_plan(folded: str) -> bool:
    """Tell whether the person's sentence says how things go from now: "we moved email to Resend", "develop is
    gone as of today, so the v3 pr goes against main" (a change of plan, as a decision)."""
    if NEXT_STEP.match(folded) or LATER_CUES.search(folded):
        return False  # "下一步把分享图的字体换成跑团那套，下周弄": a step to come, not how things now go
    return CHANGE_OF_PLAN.search(folded) is not None and text_weight(folded) >= 4


# what the person sets aside, which sounds like a step put off but is none: a thing left alone for now ("图 4.2
# 先别管，等 attention head 那部分跑完再说", "ignore it for today") and the agent's work the person commits or
# pushes themselves, with no time or condition to it ("好的 我自己提", "I'll commit it myself")
_LEFT_ALONE = re.compile(
    r"先?(?:别|不用)管|先不管|不管(?:它|这个|那个)?了|先放着|先放一放|"  # not "不管怎样明天都发": regardless
    + phrases(r"ignore (?:it|that|this|them)(?: for (?:now|today))?|leave (?:it|that|this|them) (?:alone|for now)")
)
_SELF_COMMIT = re.compile(
    r"(?:^|[，,;；]\s*|\s)(?:好的?|行|嗯|那)?\s*我自己(?:来)?(?:提|提交|commit|push|推|合)(?:吧|了|就行)?$"
    r"|(?:^|[,;]\s*)(?:ok(?:ay)?|sure|thanks|thx)?[\s,]*i'll (?:commit|push|merge) (?:it|this|them) myself$"
)
_OPENS_REQUEST = re.compile(r"(?<![a-z])(?:pr|mr)\s*$")
_TIMED = re.compile(r"明天|今晚|晚点|回头|下午|等|之后|以后|" + phrases(r"tomorrow|tonight|later|once|after|when"))


def is_set_aside(folded: str) -> bool:
    """Tell whether a person's folded sentence sets a thing aside rather than putting a step off: "先别管"."""
    if _LEFT_ALONE.search(folded):
        return True
    commit = _SELF_COMMIT.search(folded.strip(" .。!！~～"))
    if commit is None or _TIMED.search(commit.group()):
        return False
    # the request the person opens themselves is a step of its own: "行，MR 我自己提" (not "好的 我自己提")
    return _OPENS_REQUEST.search(folded[: commit.start() + 1]) is None
