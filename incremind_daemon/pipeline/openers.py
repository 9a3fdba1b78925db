"""How a person opens a session: who they are, what the project is, and words that only say context follows.

Neither asks nor settles anything: the goal leaves them out (goal.py), and a rule about the project names an
introduction without adding to it (relate_rules.py).
"""

from __future__ import annotations

import re

# an opening sentence that sets the scene rather than asks: "Context: …", "reminder: …"
SCENE_CAPTION = re.compile(r"^(?:context|background|fyi|btw|reminder|note|ps)\s*[:：]")
# an introduction on the way in: "Quick intro since …", "New repo for you: …", "先自我介绍一下", "我是嘉禾，…"
INTRO_CUES = re.compile(
    r"^(?:my name is|i'm [a-z]+ from|i'm [a-z]+, |背景|先自我介绍|自我介绍|补充|我叫|我是[^，,。]{1,16}[，,])"
    # a name, then who they are: "I'm Chia-ying (林佳穎), analytics engineer …", "I'm Daniel Wu, I do the iOS app"
    r"|^i'?m [a-z]+(?:-[a-z]+)?(?: [a-z]+)? ?[(（,，]"
    r"|^(?:quick )?intro\b|^(?:a )?new (?:repo|project|codebase) for you|first time you're (?:in|on) this"
    # "first time using you on this repo so some context before the actual problem"
    r"|^first time (?:using|with|working with) you\b|^(?:some|a bit of|quick) (?:context|background) (?:first|before)"
    r"|^first (?:session|time) (?:in|on|with) (?:this|the|a new) (?:repo|project|codebase)"
    # "第一次在这个 repo 用你，先交代几句"
    r"|^第一次(?:在|用)[^，,。]{0,16}(?:repo|仓库|项目|用你)|^先交代(?:一下|几句|下)"
)
# an opener that only says some context follows, and holds none itself: "First time running you in this repo so some
# quick context.", "Quick intro since it's the first time you're in this repo" (its words "in this repo" settle nothing)
CONTEXT_OPENER = re.compile(
    r"^(?:(?:ok|okay|so|hey|hi)[,\s]+)?(?:(?:a |some )?quick (?:intro|context|background)\b[^:：]*$"
    r"|first (?:time|session)\b[^:：]{0,60}(?:\b(?:context|intro|background)\b|自我介绍|介绍一下|交代一下)[^:：]*$"
    r"|first (?:time|session) (?:(?:using|running|with|working with) you )?(?:in|on) this (?:repo|project)\W*$"
    # "Ok different repo, side project time", "Different client, different repo." ("换个项目了" reads as no rule)
    r"|different (?:repo|client|project)\b[^:：]{0,40}$"
    # "Before we dive in, a bit of context, since …", "a few things today, sorry in advance for the long message",
    # "Quick session on the train home, so several things in one go — sorry, it's long."
    r"|(?:before we (?:dive|get|jump) in,? )?(?:a bit of|some) (?:context|background)\b[^:：]*$"
    r"|(?:a few|several|some|a couple of|two|three) things (?:today|in one go|for you)\b[^:：]{0,60}$"
    r"|quick session\b[^:：]{0,100}(?:things|long)\W*$"
    # words that only point to rules said elsewhere: "先交代背景，以后新开会话也按这个来。", "以后…都按这个来。"
    r"|[^:：]{0,30}?(?:都|也)?(?:按|照)(?:这个|这样|上面的?|下面的?)(?:来|做|办)\W*$)"
)
# a statement that introduces what others are about, a project ("Kakeibo is my personal budgeting app — …",
# "trip-etl 是我维护的行程数仓 ETL", "It's a monorepo: …", "Stack: Django 4.2, …") or the person ("I'm Daniel Wu, …",
# "我系陈家乐，…"): a rule about the project names it without adding to it
INTRODUCTION = re.compile(
    r"^(?:(?:it|this(?: repo| project)?)(?:'s| is) (?:a|an|my|our)\b|[\w.-]+ is (?:my|our)\b|(?:tech )?stack\s*[:：]"
    r"|my name is\b|i'm (?!not\b|sure\b|fine\b|ok\b)[a-z]+(?: [a-z]+)?,"
    r"|我(?:是|系|叫)|[\w.-]+ ?(?:是|系)我|技术栈\s*[:：])"
)
# who the person is, said as a name and a role (folded): "I'm Chia-ying (林佳穎), platform engineer at Kiezbox",
# "I'm wei, freelance frontend dev in taipei" (lasting.IDENTITY)
ROLE_INTRO = (
    r"^(?:i am|i'm|im) [\w-]+(?: [\w-]+)?(?: \([^)]{1,20}\))?,? (?:a |an |the )?(?:[\w-]+ ){0,3}"
    r"(?:engineer|developer|dev|designer|manager|scientist|analyst|student|researcher|postdoc|founder"
    r"|consultant|freelancer|architect|sre|teacher|eng|lead)s?(?= (?:at|in|for|on|with|from)| ?[,.;—–-]|$)"
)
