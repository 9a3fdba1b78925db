"""The lists of a note whose caption says what their items are: decisions, rules, or talk.

A meeting note's "## Decisions" holds one decision per item, however plainly worded; a study note's
"the method I'm sticking with from now on:" holds one rule per item; a "## 讨论" section records what
was talked about, where nothing is settled by being listed, and "## Action items" what to do once. The
candidate finder reads each item with what its list says of it (``candidates.read_pieces``), and a
line whose label names nothing takes its subject from its heading (``under_heading``). A line that
is one person's task ("李伟：跟进…", "王磊：…周五给数据") or a standup's slot ("上周：…", "阻塞：无")
holds nothing that lasts (``ACTION_ITEM``, ``STANDUP_SLOT``). An article a note says it clipped from
elsewhere is its author's word, not the person's (``clipped_article``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from incremind_daemon.pipeline.cues import WEEKDAY, bounded, fold
from incremind_daemon.pipeline.lasting import GENERAL

# a heading or caption over a list of decisions
DECISION_SECTION = re.compile(
    r"^(?!.*(?:(?<![a-z])not|(?<![a-z])yet to be|未|没|待)).*?(?:"
    + bounded(r"decisions?|decided|agreed|agreements?|outcomes?|resolutions?|conclusions?|we settled|settled")
    + r"|决定|决议|结论|(?<![搞稳])定了|共识|决策|拍板"
    # …and the writer's record of what was changed: "## What we changed", "## changes this week", "## 改动"
    + "|"
    + bounded(r"what we changed|changes(?: this week| made)?|change of plans?")
    + r"|改动|变更"
    # the headings of minutes kept in German, over English items, in a Berlin team ("## Beschlüsse")
    + "|"
    + bounded("beschl(?:ü|ue)sse|beschluss|entscheidungen")
    + ")"
)
# a heading over what was talked about or reported, where nothing is settled by being listed: what is still
# open ("## Not decided", "待定")
DISCUSSION_SECTION = re.compile(
    bounded(
        r"discussion|discussed|background|not (?:yet )?decided|undecided|open (?:questions?|items?|points?|issues?)"
        r"|parked|offen|offene punkte|diskussion"
    )
    + r"|讨论|背景|未决|待定|没定|未定|遗留问题"
)
# a heading over who does what next ("## Action items", "行动项"): tasks for once, whatever their words; a
# person's own to-do list holds facts as well ("域名 12 月 1 号到期，记得续费")
TASK_SECTION = re.compile(
    bounded(r"action items?|follow-?ups?|next steps?|aufgaben|n(?:ä|ae)chste schritte")
    + r"|行动项|后续跟进|下一步|跟进事项"
    + r"|^(?:#{1,6}\s*)?(?:\*\*)?actions?\s*[:：]?(?:\*\*)?\s*[:：]?$"  # "## Actions", not "## GitHub Actions"
)
# a caption over a list of rules: "the method I'm sticking with from now on:", "以后都按这几条来："
RULE_CAPTION = re.compile(
    bounded(
        r"from now on|going forward|from here on|(?:house |ground )?rules|my method|the method|sticking with"
        r"|reminders? to (?:my)?self|notes? to (?:my)?self|conventions|guidelines"
    )
    + r"|以后|今后|从现在起|从今天起|规则|规矩|原则|约定|守则|提醒自己|给自己的提醒"
    # "按这个来：" over what the agent is to follow (59 of 68 items under such captions in the halves' chat turns last)
    r"|(?:按|照)这个(?:来|办|做)"
)
# "Tang Hao: check whether …": an action item under a name, for one person, once
_DUE_DAY = (
    r"(?:周[一二三四五六日天]|星期[一二三四五六日天]|\d{1,2}\s*[/.月]\s*\d{1,2}\s*[日号]?|明天|后天"
    r"|下周[一二三四五六日天]?|月底)"
)
ACTION_ITEM = re.compile(
    r"^(?:\[[ xX]\]\s*)?(?:(?:[A-Z][a-zà-öø-ÿ]+(?: [A-Z][a-zà-öø-ÿ]+)?|[\u4e00-\u9fff]{2,3})\s*[:：]\s*"
    r"(?:(?:check|look into|follow up"
    r"|investigate|ask|find out|send|prepare|draft|write up|write down|update|review|fix|set up|talk to|ping|confirm"
    r"|schedule|book|share|try|test|benchmark|measure|file|open)\b|跟进|确认|整理|负责|调研|测一下|写一下|问一下"
    # "Dana: Graviton AMI test on harbor-stg-2 by Dec 18": one person's task, due on a day (not "v2 ships by Friday")
    r"|.{0,60}\b(?:test|check|write|draft|review|send|ask|fix|update|prepare|benchmark|measure|try)\b"
    r".{0,60}\bby (?i:(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov"
    r"|dec)[a-z]* \d{1,2}|eod|eow|next week|\d{1,2}[/.]\d{1,2})\b)"
    # "王磊：A14 上 Coil vs Glide 内存对比，周五给数据", "林凯：下载 worker PR（周五前）": the same, said in Chinese
    rf"|(?!截止|期限|时间|日期)[\u4e00-\u9fff]{{2,3}}\s*[:：].{{0,60}}?(?:{_DUE_DAY}\s*(?:前|之前|以前)|{_DUE_DAY}\s*(?:给|交|出|发|提)))"
)
# a standup's slot: "- 上周：分页改完了，已经部署到 staging", "Today: fct_orders has duplicates", "阻塞：无";
# what was done or is planned around one day, not what holds
# …and the task at hand under its label: "今天的事：fct_orders 有重复的 order_id", "Task: the backtest …"
STANDUP_SLOT = re.compile(
    r"^(?:\[[ x]\]\s*)?(?:(?:上周|昨天|今天|明天|本周|这周|下周)(?:的(?:事|任务|安排|计划))?|阻塞|卡点|任务"
    r"|(?:yesterday|today|tomorrow)(?:'s (?:task|plan|job))?|blockers?|blocked on|last week|this week|next week"
    r"|task|the task"
    # a day of a week's plan or log: "周二：EKS 1.30 升级，10 点开始", "Tue: upgrade staging", "Mon 14 Oct:"
    r"|(?:周|星期|礼拜)[一二三四五六日天](?:[上下]午|晚上|早上)?"
    rf"|{WEEKDAY}(?![a-z])(?: \d{{1,2}}(?: [a-z]{{3}})?)?"
    r")\s*[:：]"
)
# a heading over how things went: progress, what went well or badly, the mood ("## 进度", "## 做得好的",
# "## What went well", "## 待改进"): reports of the week, whatever their words
REPORT_SECTION = re.compile(
    r"^(?:#{1,6}\s*)?(?:\*\*)?(?:(?<![a-z0-9_])(?:"
    r"progress|status(?: update)?|stand|updates?|done|completed|shipped|highlights|lowlights|wins|mood|feelings"
    r"|(?:what )?went (?:well|badly|wrong)|what (?:didn't|did not) go well|what (?:could|to) improve"
    r"|(?:to|could be) improved?|pain points|problems"
    # a weekly review's "## didn't" and "## numbers", a fortnight's "## 顺的" and "## 不顺的"
    r"|didn'?t|did not|numbers|stats"
    r"|incidents?|outages?"  # an on-call handover's "## Incidents": what happened that week
    r")(?![a-z0-9_])|进度|进展|完成情况|已完成|做得好的?|亮点|不足|待改进|需要改进|改进点|问题|踩坑|心情|感受|事故|故障"
    r"|顺的|不顺的?|顺利的|不顺利的|数字)(?:\*\*)?\s*[:：]?$"
)
# a Markdown heading, a bold caption, or a short line ending in a colon
HEADING = re.compile(r"^(?:#{1,6}\s+\S.*|\*\*[^*]+\*\*[:：]?|[^-*+•\d\s][^:：]{0,30}[:：])$")
LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)、])\s+\S")


def decision_items(text: str) -> list[tuple[int, int]]:
    """Return the spans of the list items under a heading or caption that names decisions.

    A meeting note's "## Decisions" (结论, 决定, Agreed, Outcomes) holds one decision per item,
    however plainly worded: "Launch date: 2026-12-12", "灰度由李伟负责".
    """
    # …and the first sentence of a line the writer labels a decision, wherever it stands: "- DECIDED: online
    # cancellation closes 48 hours before the appointment.", "- **Decision:** half-life of 7 days for the decay",
    # "- 决定：支付回调的超时时间设为 30 秒" (what follows it on the line says why, or who objected)
    labelled = [(m.start(), m.end()) for m in _DECISION_LABEL.finditer(text)]
    return _items_under(text, _headed(DECISION_SECTION)) + labelled + _settling_actions(text)


# an action item that sets how the system runs, under no one's name: a postmortem's "payments-gateway PDB back to
# maxUnavailable: 1. (owner ZP, due 3 Apr)", "node group max surge 3 instead of 2", "max_client_conn 2000 → 4000"
_SETS_VALUE = re.compile(
    r"(?<![\w-])[a-z][\w.-]*:\s*\d|\d[\w.%]*\s*(?:→|->)\s*\S|(?<![a-z])(?:back|up|down) to (?:\w+:\s*)?\d"
    r"|(?<![a-z])\d[\w.%]* instead of \d|(?<![a-z])from \S*\d\S* to \S*\d"
    r"|(?:改成|改为|调到|调成|调整为|降到|提到|升到)\s*\d"
)
# "- [ ] 孟凡：…", "- @我 9/11 前…", "- [Ken] …", "- me — KL-212 PR", "- Farah: alert rules draft": one person's work
_OWNED = re.compile(
    r"^\s*(?:[-*+•]|\d{1,2}[.)、])?\s*(?:\[[ xX]\]\s*)?"
    r"(?:@|\[|(?:me|我)\s*[:：—–-]|[A-Z][\w'-]*(?: [A-Z][\w'-]*)?\s*(?:[:：—–]|\+)\s|[\u4e00-\u9fff]{2,3}\s*[:：])"
)


def _settling_actions(text: str) -> list[tuple[int, int]]:
    """Return the spans of the action items that change a setting and name no one over it (``_settles``)."""
    return [(start, end) for start, end in _items_under(text, _headed(TASK_SECTION)) if _settles(text[start:end])]


def _settles(item: str) -> bool:
    """Tell whether an action item changes a setting and names no one over it: a postmortem's corrective change is
    how the system runs from then on, where "Farah: alert rules draft" is work for once."""
    return _SETS_VALUE.search(item) is not None and not _OWNED.match(item)


_DECISION_LABEL = re.compile(
    r"^[ \t]*(?:[-*•][ \t]+)?(?:\*\*)?(?:(?i:decided|decision|agreed)|决定|結論|结论|拍板|定了)(?:\*\*)?[ \t]*[:：]"
    r"(?:\*\*)?[ \t]*\S(?:[^\n。！!.]|\.(?![ \t]|$))*[。！!.]?",
    re.M,
)


def labels_a_decision(line: str) -> bool:
    """Tell whether a line opens on the writer's label of a decision: "DECIDED: …", "**Decision:** …", "决定：…"."""
    return _DECISION_LABEL.match(line) is not None


def discussion_items(text: str) -> list[tuple[int, int]]:
    """Return the spans of the list items under a heading over what was discussed or reported.

    A meeting note's "## 讨论" ("Sam 提到海外用户反馈登录慢，怀疑是 CDN 节点问题") records talk: an item
    there lasts only by its own words, never by the model's reading alone.
    """
    return _items_under(text, _headed(DISCUSSION_SECTION))


def task_items(text: str) -> list[tuple[int, int]]:
    """Return the spans of the list items under a heading over who does what next, that say nothing of always.

    A meeting note's "## Action items" ("李娜：写 outbox 设计文档（12 月 4 日前）", "Marco：ListOrders 改成
    keyset 分页") lists work to do once; an item there that says "from now on" or "每次" still holds.
    So does a retro's or a weekly note's report of how things went ("## 进度", "## What went well",
    "## 待改进": "ROWNUM 方言问题一次性清掉了（7 处）").
    """
    spans = [(a, b) for a, b in _items_under(text, _headed(TASK_SECTION)) if not _settles(text[a:b])]
    # …and one that moves something from a week on ("weekly sync 从下周开始改到周三 14:00") is decided there
    tasks = [(a, b) for a, b in spans if not (GENERAL.search(said := fold(text[a:b])) or _STARTING.search(said))]
    # a report may say "every time" of what went wrong ("每次都要问"): only a rule from now on still holds
    reports = _items_under(text, _headed(REPORT_SECTION))
    return tasks + [(start, end) for start, end in reports if _FROM_NOW.search(fold(text[start:end])) is None]


_STARTING = re.compile(
    r"从(?:下|这|本)(?:周|个?月|礼拜|星期)[一二三四五六日天]?(?:开始|起)"
    r"|(?<![a-z])(?:starting|from) next (?:week|month|monday|tuesday|wednesday|thursday|friday)(?![a-z])"
)
_FROM_NOW = re.compile(
    r"(?<![a-z])(?:from now on|going forward|in (?:the )?future|must|always|never)(?![a-z])"
    # not "搬到 Fly 以后，部署就是一条命令": 以后 before a comma says after what, not from when
    r"|(?<!方便)(?<!以便)以后(?![再，,])|今后|从现在起|一律|必须|永远"
)


def rule_items(text: str) -> list[tuple[int, int]]:
    """Return the spans of the items of a list under a caption that says they hold from now on.

    "I keep forgetting vocabulary, so this is the method I'm sticking with from now on:" over "1. Review
    each new card on day 1, 3, 7 and 21. 2. … 3. Max 20 new cards a day." makes each item a rule of the
    writer's, however plainly worded.
    """

    def opens(line: str, body: str) -> bool | None:
        caption = body.endswith((":", "：")) and not LIST_ITEM.match(line)
        if not caption and not HEADING.match(body):  # "## House rules" heads such a list too
            return None
        return RULE_CAPTION.search(fold(body)) is not None

    return _items_under(text, opens)


def _headed(section: re.Pattern[str]) -> Callable[[str, str], bool | None]:
    """Return the caption test of a list under a heading: whether the heading names ``section``."""

    def opens(line: str, body: str) -> bool | None:
        return section.search(fold(body)) is not None if HEADING.match(body) else None

    return opens


def _items_under(text: str, opens: Callable[[str, str], bool | None]) -> list[tuple[int, int]]:
    """Return the spans of the list items under the captions ``opens`` says open a list of the kind asked for.

    ``opens(line, stripped line)`` is True or False for a caption (it opens such a list, or another),
    None for any other line; prose after a list ends it.
    """
    if "\n" not in text:
        return []
    spans: list[tuple[int, int]] = []
    in_list = False
    position = 0
    for line in text.splitlines(keepends=True):
        body = line.strip()
        if (caption := opens(line, body)) is not None:
            in_list = caption
        elif in_list and LIST_ITEM.match(line):
            spans.append((position, position + len(line)))
        elif body and not line[:1].isspace():
            in_list = False
        position += len(line)
    return spans


# a note that opens by saying it was clipped from elsewhere: "clipped from a blog post, to read later",
# "Saved from a blog someone posted in the HA Discord", "> 转自一个技术博客，收藏返嚟", "Farah 转过来的"
_CLIPPED = re.compile(
    r"(?<![a-z])(?:clipped|saved|copied|reposted|excerpted|forwarded|pasted)\s+(?:\w+\s+){0,3}?from(?![a-z])"
    r"|(?<![a-z])forwarded (?:this )?(?:to me|over)(?![a-z])"
    r"|^(?:clipping|excerpt)s?(?![a-z])|转自|转载|摘自|摘录自|剪藏|收藏(?:返嚟|回来|下来|起来|一下)|转(?:发)?过来的"
)
# a message from the person's own team, pasted where it was posted: "pasted from #infra-announce — Dana, Wed 25 Nov"
# says what the team is to do, where an article someone shared says what its author thinks
_TEAM_MESSAGE = re.compile(r"(?<![a-z])(?:pasted|copied|forwarded)\s+from\s+#[\w-]+")
# a note of someone else's talk, by its heading: "# Vue.js SG meetup — Oct edition", "# Fullstack Fest Melbourne —
# day 1", "# 看回放：QCon 上海 2026《…》", "# 王磊技术分享：《…》"; not a course's lecture, whose method is studied
_TALK = re.compile(
    r"(?<![a-z])(?:meetups?|keynotes?|conference|summit|fest|festival|webinar"
    r"|talks?(?! (?:with|to)\b| w/))(?![a-z])"
    r"|技术分享|分享会|讲座|峰会|看回放|回放[:：]"
)
# where the clipping's reader takes the word back: "我嘅批注：", "## My notes", "What I'll take from it"
_READERS_OWN = re.compile(
    r"^(?:#{1,6}\s*)?(?:\*\*)?(?:我(?:嘅|的|自己的)?(?:批注|笔记|看法|想法|评论|备注|总结|结论)|批注|读后感"
    r"|my (?:own )?(?:notes|take|thoughts|comments|view)|notes? to self|what i(?:'ll| will) take from it)"
    r"(?:\*\*)?\s*[:：]?"
)
_BREAK = re.compile(r"^(?:(?:[-*_]\s*){3,})$")


def says_clipped(line: str) -> bool:
    """Tell whether a line of a note's opening says where it was clipped from: "Clipped from: https://…", "转自…"."""
    return bool(_CLIPPED.search(fold(line.strip().lstrip(">").strip()).casefold()))


def clipped_article(text: str) -> tuple[int, int] | None:
    """Return the span of the article a note says it clipped from elsewhere, or None.

    "clipped from a blog post, to read later" over a blog post's "Don't write your own uploader" makes
    its "don't" the blogger's, not the person's: the writer's own words are the opening that says so
    and what follows a rule ("---") or a caption of their own ("我嘅批注：") after the article. Only the
    note's opening (its first paragraph) can say it is a clipping; a byline alone cannot, since a
    person's own design doc or postmortem carries one too ("作者：何嘉树").
    """
    lines = text.splitlines(keepends=True)
    position, start = 0, None
    for index, line in enumerate(lines):
        body = line.strip().lstrip(">").strip()
        if start is None:
            talk = index == 0 and line.startswith("#") and _TALK.search(fold(body).casefold())
            if body and ((says_clipped(body) and not _TEAM_MESSAGE.search(fold(body).casefold())) or talk):
                start = position + len(line)
            elif body and index > 2:
                return None
        elif _READERS_OWN.match(fold(body).casefold()) or (_BREAK.match(body) and text[start:position].strip()):
            return start, position
        position += len(line)
    return (start, len(text)) if start is not None and text[start:].strip() else None


# a note on one named work, by its first line: "# reading: "Your cassettes are lying to you" — Priya Raman",
# "# Reading notes: "Error Handling in …"", "# 《The Site Reliability Workbook》第 16 章", "# 看视频笔记：GDC "…""
# (not "# Study note: Rust error handling（读 "…"）", whose subject is a topic the person studies)
_WORK_TITLE = re.compile(r"^(?:[\"“「《]|[^:：\"“「《]{0,16}[:：]\s*[^\"“「《:：]{0,20}[\"“「《])")
_READING = re.compile(
    r"(?<![a-z])(?:reading(?: notes?)?|notes on|read|book|paper|article|blog)(?![a-z])|读书|讀書|阅读|閱讀|笔记|筆記"
)
# where the reader speaks in a note on a work: "## my take", "What I'll take from it", "读完的结论：", "## todo"
_OWN_SECTION = re.compile(
    r"(?<![a-z])(?:my|me|i|i'll|takeaways?|lessons?|to ?dos?|questions?|next)(?![a-z])"
    r"|我|咱|结论|結論|心得|收获|收穫|感想|体会|體會|启发|啟發|想法|看法|待办|待辦|疑问|疑問|没搞懂|沒搞懂"
)
# a line of a note that says where its material is from: "Source: blog post from a team …", "link: https://…",
# "讲师：刘老师", "Further reading: …" (not who took part: "参会：我（晓雯）、老周（周凯，后端）" says who is who)
_WHERE_FROM = re.compile(
    r"^(?:source|link|url|found via|via|author|speaker|further reading|references"
    r"|来源|來源|链接|鏈接|原文|出处|出處|作者|讲师|講師|讲者|講者|读的|讀的)\s*[:：]"
    # …and a pasted mail's header: "Date: Wed, 25 Nov 2026 08:47 +0000", "发件人：…"
    r"|^(?:from|to|cc|bcc|date|sent|subject|reply-to|发件人|收件人|抄送|主题)\s*[:：]"
    # …and the minutes' own header: "参会：宋佳、李婧…", "Present: Priya (chair), Tom", "时间：… 地点：5 楼小会议室"
    r"|^(?:\*\*)?(?:attendees|present|participants|chair|note-?taker|参会(?:人员?|者)?|出席(?:人员)?|与会(?:人员)?"
    r"|主持人?|记录人?)(?:\*\*)?\s*[:：]"
    r"|^(?:\*\*)?(?:time|date|时间|日期)(?:\*\*)?\s*[:：].*(?:location|where|room|地点|会议室)",
    re.I,
)


def _reads_work(text: str) -> bool:
    """Tell whether a note is on one named work (an article, book or talk), by its first line."""
    first = next((line.strip() for line in text[:400].splitlines() if line.strip()), "")
    title = fold(first.lstrip("#").strip())
    if not first.startswith("#") or (named := _WORK_TITLE.match(title)) is None:
        return False
    return title.startswith("《") or _READING.search(named.group().casefold()) is not None


def work_points(text: str) -> list[tuple[int, int]]:
    """Return the spans of the list items of a note on a named work that give the work's points, not the reader's.

    "# reading: "Your cassettes are lying to you" — Priya Raman" over "## her points" lists what the author
    says ("cassettes bloat the repo — 40 MB of yaml"); "## my take", "读完的结论：" and "## todo" list the
    person's own. An item of the work's in the person's own voice ("我们现在 staging 上看的其实都是前后对比")
    is theirs again; ``candidates.read_pieces`` reads that by the sentence.
    """
    if "\n" not in text or not _reads_work(text):
        return []
    spans: list[tuple[int, int]] = []
    theirs = True  # the list right under the title gives the work's points ("记几个点：")
    titled = False
    position = 0
    for line in text.splitlines(keepends=True):
        body = line.strip()
        if not titled:
            titled = bool(body)
        elif LIST_ITEM.match(line):
            if theirs:
                spans.append((position, position + len(line)))
        elif HEADING.match(body):
            theirs = _OWN_SECTION.search(fold(body).casefold()) is None
        position += len(line)
    return spans


def says_where_from(line: str) -> bool:
    """Tell whether a line of a note only says where its material is from: "Source: …", "link: https://…"."""
    return _WHERE_FROM.match(fold(line.strip())) is not None


# "due: 3/24 23:59" under "## HW3": a label that names no thing of its own, and headings that name none
_BARE_LABEL = re.compile(r"^([^\W\d_][^:：=,，。\d]{0,15})[:：=]\s*\S")
_SECTION_HEADING = re.compile(
    r"(?i)^(?:notes?|decisions?|action items?|actions?|todos?|next steps?|summary|misc|questions?|discussion"
    r"|open(?: questions)?|(?:this|last|next) week|[本上下这]周\w{0,4}"
    r"|links?|context|background|agenda|takeaways?|thoughts|beschl(?:ü|ue)sse|stand|aufgaben|offen|sonstiges|讨论|决定|决策|结论|待办|总结|备注|其他|问题|背景|议程"
    r"|链接|笔记|收获|心得|感想)\W*$"
    # the writer's own section ("What I'll take from it", "my take", "我的看法") names no thing either
    r"|(?<![a-z])(?:i|i'll|i'm|my|myself|me|we|our)(?![a-z])|我|咱"
)
_LIST_KINDS = (DECISION_SECTION, DISCUSSION_SECTION, TASK_SECTION, RULE_CAPTION)
_DAY_HEADING = re.compile(r"[\d/.\-\s年月日号]+")
# a heading that dates the note names the occasion, not a subject: "# 1:1 with Priya, 19 Mar", "# 站会 12.02",
# "# platform sync — Wed 11/11", "# 中文 — week 10"
_DATED_HEADING = re.compile(
    r"\d\s*[/.\-]\s*\d|\d\s*月\s*\d|第?\d{1,2}\s*周|(?<![a-z])(?:\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct"
    r"|nov|dec)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2}|(?:week|wk) \d)(?![a-z])"
)
# a label that names who said it: "小何：…", "刘工意见：…", "讲师建议：…", "Declan 说: …"
_SPEAKER_LABEL = re.compile(
    r"^(?:[小老][\u4e00-\u9fff]|[\u4e00-\u9fff]{1,3}(?:工|总|老师))$|(?:说|意见|建议|反馈|提到|觉得|认为)$"
)
_SECTION_NUMBER = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*[.、)）]?|[一二三四五六七八九十]+[、.])\s*")


def under_heading(text: str, start: int, statement: str) -> str:
    """Name a note line's subject from its heading when its label names none ("HW3 due：3/24 23:59")."""
    label = _BARE_LABEL.match(statement)
    name = label.group(1).strip() if label else ""
    # a camel-cased or capitalised name ("PlanService:") is a thing; an acronym ("URL:", "SSH:") a label
    if label is None or len(name.split()) > 2 or (any(c.isupper() for c in name[1:]) and not name.isupper()):
        return statement
    if _SPEAKER_LABEL.search(name):
        return statement
    line_start = text.rfind("\n", 0, start) + 1
    if not LIST_ITEM.match(text[line_start:start] + "x") and text[line_start:start].strip():
        return statement
    for line in reversed(text[:line_start].splitlines()):
        heading = re.match(r"\s*#{1,6}\s+(.+)", line)
        if heading is None:
            continue
        subject = re.sub(r"\s*[（(][^）)]*[）)]\s*", " ", heading.group(1)).strip(" :：.。")
        if _DAY_HEADING.fullmatch(subject):
            return statement  # a diary's day ("# 11/30 (一)") names no subject
        subject = _SECTION_NUMBER.sub("", subject)  # "## 3. 其他" is the section 其他
        if not subject or len(subject) > 30 or _SECTION_HEADING.search(subject) or fold(subject) in fold(statement):
            return statement
        said = fold(subject).casefold()
        if _DATED_HEADING.search(said) or any(kind.search(said) for kind in _LIST_KINDS):
            return statement  # "## Rules for myself", "## Open", "## 本周完成" name what the list is, not a thing
        first = statement[:1].lower() if statement[1:2].islower() else statement[:1]
        return f"{subject} {first}{statement[1:]}"
    return statement


# a slot that comes back every week or two, on a day or at an hour: "每周三晚上打羽毛球", "每兩週一次，星期四 19:00",
# "周会固定周二下午 3 点", "週一和週四 20:00"
_DAY_NAME = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_WEEKLY_SLOT = re.compile(
    r"[每逢隔](?:两|2)?(?:周|星期|礼拜)|(?:两|2)周一次|固定(?:周|星期|礼拜)|周[一二三四五六日天]\s*[、和与及]?\s*周[一二三四五六日天]"
    rf"|(?<![a-z])(?:every (?:other )?(?:week|{_DAY_NAME})|biweekly|fortnightly)(?![a-z])"
)
_DAY_OR_HOUR = re.compile(
    r"(?:周|星期|礼拜)[一二三四五六日天]|\d{1,2}[:：]\d{2}|\d{1,2}\s*点|[早晚]上?[一二三四五六七八九十]+点"
    rf"|(?<![a-z])(?:{_DAY_NAME}|\d{{1,2}}\s*[ap]m)(?![a-z])"
)


def recurs_weekly(folded: str) -> bool:
    """Tell whether a sentence (folded) names a slot that comes back every week or two, on a day or at an hour."""
    return _WEEKLY_SLOT.search(folded) is not None and _DAY_OR_HOUR.search(folded) is not None


# a speaker and the time into the recording, on a line of their own, as meeting tools write a transcript:
# "王磊 00:01:10", "[00:01:10] 王磊", "Speaker 2 (0:01:10)"; not a chat's clock ("林涛  11月24日 17:52")
_SPEAKER_LINE = re.compile(
    r"^[ \t]*(?:\[\d{1,2}:\d{2}:\d{2}\][ \t]*[^\W\d][^\d\n]{0,24}?|[^\W\d][^\d\n]{0,24}?(?:\d{1,2})?[ \t]+[\[(（]?"
    r"\d{1,2}:\d{2}:\d{2}[\])）]?)[ \t]*[:：]?[ \t]*$"
)


def spoken_lines(text: str) -> list[tuple[int, int]]:
    """Return the spans of what is said in a meeting transcript: the lines after each speaker-and-time line.

    Speech is read as talk is in a chat: "呃 现在是 8:30 之前 就是 正常七点多就出了" reports the day, and only standing
    words ("以后都按 8 点算", "不准直连 dwd") say what lasts. Two speaker lines make a transcript; one is a caption.
    """
    lines = text.splitlines(keepends=True)
    speakers = [_SPEAKER_LINE.match(line) is not None for line in lines]
    if sum(speakers) < 2:
        return []
    spans: list[tuple[int, int]] = []
    speaking = False
    position = 0
    for line, speaker in zip(lines, speakers, strict=True):
        if speaker:
            speaking = True
        elif not line.strip() or line.lstrip().startswith("#"):
            speaking = False
        elif speaking:
            spans.append((position, position + len(line)))
        position += len(line)
    return spans


# a message from the team passed on in a chat, quoted under a line that says where it was posted: "另外 Tina 剛在
# Slack 更新時程：", "dana just posted in #infra-announce:"
_RELAYED = re.compile(
    r"(?:在|(?<![a-z])(?:on|in))\s*(?:slack|飞书|钉钉|企业微信|企微|teams|微信群|工作群|群里|#[\w-]+)[^\n]{0,16}?"
    r"(?:更新|说|发|通知|公布|posted|said|announced|updated|wrote)"
    r"|(?<![a-z])(?:posted|announced|wrote) (?:this )?(?:in|on) (?:slack|teams|#[\w-]+)"
)


# …or a teammate's message the person makes their own: a line above it saying it was decided ("先说个改动 林蔚今天
# 定的", "Jonas decided:"), or one just below it taking it ("按这个来", "90天的按她的改", "let's go with that")
_DECIDED_ABOVE = re.compile(
    r"(?:定的|定了|拍板了?|决定了?)\s*[:：]?$|(?<![a-z])(?:decided|signed off(?: on (?:it|this))?)\s*:?$"
)
_TAKEN_BELOW = re.compile(
    r"^[^\n]{0,12}?(?:按|照)(?:这个|这条|这几条|这两条|她的|他的|[她他]说的)(?:来|改|办|做|弄)"
    r"|^(?:ok[, ]+)?(?:let's |we )?go with (?:that|this|it|hers|his|theirs)(?![a-z])"
)


def taken_quotes(text: str) -> list[tuple[int, int]]:
    """Return the (start, end) spans of the quoted blocks of a chat turn the person passes on as their own word.

    A block is quoted lines, blank lines between them allowed. The line above it says where it was posted or
    that it was decided, or the first line below it takes it. That block is the team's word on the
    work ("> code freeze 延到 12/9（三）"), read as the person's news of it; any other quote in the turn is
    pasted material and says nothing of the person's: "> Proposal: page on p99 latency" under "and the second
    one:" and over "this one I don't agree" stays pasted beside a first message taken with "ok go with that"."""
    if ">" not in text:
        return []
    lines = text.splitlines(keepends=True)
    offsets = list(itertools.accumulate((len(line) for line in lines), initial=0))
    quoted = [line.lstrip().startswith(">") for line in lines]
    blank = [not line.strip() for line in lines]
    taken: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        if not quoted[index]:
            index += 1
            continue
        last = index
        while last + 1 < len(lines) and (quoted[last + 1] or blank[last + 1]):
            last += 1
        while not quoted[last]:
            last -= 1
        # the line just above says where it is from; the first line below, past blank ones, takes it, unless it
        # captions a list of the person's own ("按这个来：" over "1. 截单 20:00 …")
        above = lines[index - 1] if index else ""
        below = next((lines[i] for i in range(last + 1, len(lines)) if not blank[i]), "").strip()
        said = fold(above).casefold().strip()
        takes = _TAKEN_BELOW.search(fold(below).casefold()) and not below.endswith((":", "："))
        if _RELAYED.search(said) or _DECIDED_ABOVE.search(said) or takes:
            taken.append((offsets[index], offsets[last + 1]))
        index = last + 1
    return taken
