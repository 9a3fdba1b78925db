"""What ties a sentence to the task at hand rather than to what lasts: a plan for today, where a run stands, what is
seen going wrong, a complaint about it, a reason given alone.

Every pattern runs on text folded by ``cues.fold``. A sentence these read is about now, however lasting its words
sound; ``lasting`` holds what makes one worth remembering.
"""

from __future__ import annotations

import re

from incremind_daemon.pipeline.cues import bounded

words = bounded  # bounded by ASCII word characters, as lasting's patterns are

# a plan for the day: what the person means to do today, not a rule
TODAY_PLAN = re.compile(
    words(
        r"today (?:we|i)(?:'ll| will| are going to|'re going to)?",
        r"(?<!decision )for this\b(?! (?:repo|project|sprint|quarter|release|milestone))",
        r"^(?:ok(?:ay)?,? )?(?:the )?next (?:step|up)\b|^next(?: time| thing| steps?)?\s*:",  # "Next: a job that …"
    )
    + r"|今天要|今天先|今天把|今天准备|这次先|^(?:好|行|ok)?[，,\s]*(?:下一步|接下来)"
)
# a report of where a run or a release stands now: "Training job 4471 finished, val loss 0.312", "1.14.2 is out on
# prod", "部署好了": news of the day, however many names and numbers it holds
STATUS = re.compile(
    words(
        r"(?:job|run|build|pipeline|deploy(?:ment)?|migration|release|tests?|ci) (?:\w+ )?(?:finished|completed"
        r"|succeeded|passed|ran (?:fine|clean|green|ok))",
        r"(?:is|are|went) (?:out|live) (?:on|to|in) (?:prod|production|staging)",
        r"^(?:(?:actual|real|main|today's|the) )?(?:status|update|problem|issue|task)\s*:|^deployed (?:v?\d|it|to)",
        # "repo is basically empty" (not the case a rule is for: "if the tank is empty, the pump must never start")
        r"(?:is|are) (?:basically |pretty much |mostly |still |almost )*empty(?![^.;]{0,40}(?:must|should|never))",
        r"(?:i'm|i am|we're|we are) starting (?:a|an|on|to)",  # "I'm starting a small python service for the pi"
        # "v0.2.0 tag is pushed", "Staging has been on 1.30 since Friday night" (not "release got pushed": moved)
        r"(?:tag|branch|commit)s? (?:is|are|was|were|has been|have been) pushed|(?:has|have) been on \S+ since",
    )
    + r"|部署(?:好|完)了|上线了[，,。！!]|跑完了|基本(?:上)?是空的|还是空的|(?:我|我们)(?:刚)?开始(?:做|写|搞)一个"
    r"|又挂了|^(?:问题|现象)[:：]"  # "问题：昨天那批账单对出来 37 笔 AMOUNT_MISMATCH": the task, as "Problem: …"
    # what the person has just set up themselves: "Xcode 專案我建好了（…）", "webhook URL 我改好了"
    r"|我(?:已经|都)?(?:刚)?(?:建|弄|装|配|改|搞|设|开|加|删)好了"
)
# what is seen going wrong: "it flakes about 1 run in 5", "pnpm test broke after …", "读数一直是 0", "重连很慢"
SYMPTOM = re.compile(
    words(r"flakes|broke|broken|failing|failed|crash(?:es|ed)|throwing|(?:is|are|was|gets?) (?:(?!not)\w+ )?slow")
    + r"|一直是\s*0(?![\d.])|[很太]慢|啥都没有|什么都没有|报错了|挂了|崩了|起不来|启动不了|不太行|又?不稳定了"
)
# a report of what just went wrong is about now, whatever "always" it holds
COMPLAINT = re.compile(
    words(
        r"fails?|failing|failed|broken|breaks|crash(?:es|ed|ing)?|flaky|hangs?|errors? out|throw(?:s|ing)"
        r"|doesn't work|red|crash-?loop(?:s|ing|ed)?|crashloopbackoff|oomkilled"
    )
    + r"|报错|失败|挂了|挂掉|崩|卡住|不工作|跑不起来|不行|居然|竟然|难怪|怪不得"
    # a symptom: "偶尔报 500", "现在每次跑都 OOM", "颜色每次刷新都会变", "…导致的" (what caused it)
    r"|报\s*[45]\d\d|\boom\b|内存溢出|偶尔(?:报|会|挂|失败|出)|都会变|导致的|引起的|造成的"
    r"|现在(?:每次|一直|老是|总是)[^，。,]{0,12}?(?:报|挂|失败|崩|超时|出错|卡|\boom\b)"
    # a reproach for what the agent did again: "又用 Mockito 的 @MockBean……" (not one that says the rule again in
    # the same breath: "又「數據庫」😑 講過了是「資料庫」")
    r"|^又(?![^。！？!?]*(?:说过|讲过|说了|讲了))|" + SYMPTOM.pattern
)
# a reason given alone: "因为运营那边经常需要把误删的评价恢复回来，…" explains, it decides nothing
EXPLANATION = re.compile(r"^(?:因为|由于|because)(?!.*(?:所以|因此|于是|就用|(?<![a-z])so(?![a-z])|therefore))")
