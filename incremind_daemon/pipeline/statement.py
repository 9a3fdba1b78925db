"""Word a quoted sentence as a clean standalone statement, and find when to recall it.

People talk to their agents in lead-ins and fillers ("Stop — always use pnpm", "No, the
port is 8443", "还有样式统一用 tailwind 吧"). The statement keeps the words that carry the
rule and drops the rest; the verbatim quote stays as evidence. A leading "when to recall"
clause ("when reviewing vocabulary, …", "复习时，…") moves into the condition.
"""

from __future__ import annotations

import logging
import re

from incremind_daemon.pipeline.cues import fold, wordset
from incremind_daemon.pipeline.stance import RESTATED_TAIL
from incremind_daemon.store.charsets import CJK_CHAR

log = logging.getLogger(__name__)

_TRAILING = " \t.。!！;；:：,，、~～"
# Lead-ins end at punctuation or a dash; a bare word that can start a rule ("no more", "stop using")
# is a lead-in only when punctuation follows it.
# (a dot before a name is the name's: "fyi .terraform-version is 1.10.5 now")
_LEAD_PUNCT = r"(?:\s*(?:[,，。:：;；!！—–~]|\.(?![\w/]))[,，.。:：;；!！—–~]*\s*|\s+-+\s+)"
_EN_LEAD = re.compile(
    r"^(?:(?:(?:no|nope|yes|yeah|yep|yup|ok(?:ay)?|right|alright|stop|wait|hold on|hmm+|hm+|ah|oh|look|listen"
    r"|important|note|heads up|reminder|fyi|ps|p\.s\.|actually|correction|update|also|btw|anyway|anyways|well"
    r"|great|thanks|thank you|cool|nice|perfect|good|sure|got it|one more thing|another thing|quick note|side note"
    r"|i told you|as i said|again|reminder|(?:ok(?:ay)? )?fair(?: enough)?|(?:just )?to be clear|just so we're clear"
    # giving in to someone's point before saying what follows from it: "ok fine, he's right: prod goes to …"
    r"|(?:ok(?:ay)? )?fine|(?:you|he|she|they)(?:'re|'s| are| is) (?:right|correct)"
    # where the rule holds, said before it: "for everything we do together: …"
    r"|(?:for|in) (?:everything|anything|all the (?:work|stuff)) (?:we do|we work on)(?: together)?"
    r"|change of plans?(?: again)?|(?:new )?plan from now on|new plan|one change(?: first)?|heads[- ]up(?: first)?"
    r"|that(?:'s| is) (?:wrong|not right|not it)|wrong|so|good news|bad news|that(?:'s| is) (?:exactly |precisely )?why"
    # words about the telling, not the thing told: "For future sessions: …", "I've told you before: …"
    r"|for (?:all )?(?:future|later|next|the next) sessions?|for (?:future reference|the record)|remember"
    r"|not quite(?: done)?"
    r"|(?:(?:setup|background|some|quick) )?for context|quick context"  # "Setup for context: CI is …"
    r"|(?:i've|i have|i) told you (?:before|already|this before)|like i told (?:you|the other agents?)(?: before)?"
    r"|(?:(?:as|like) (?:i|we)(?:'ve| have)? (?:already )?(?:said|told you|mentioned)"
    r"|i(?:'ve| have)? said (?:this|that))"
    r"(?: (?:before|earlier|already|last (?:time|week)|yesterday|the other day))?"
    r"|while you're (?:in there|at it)|new repo for you|if it does|scrap that|forget that|never ?mind(?: that)?"
    rf"|claude|codex|gemini|hey(?: claude| codex| gemini)?|hi|hello){_LEAD_PUNCT})"
    r"|(?:so|and|but|also|oh|oh and|and also|ok so|okay so|btw|by the way|fyi|i think(?: that)?|i guess|i believe"
    r"|(?:yeah|yes|yep|ok|okay)(?=\s+(?:i|we|the|my|our|it|this|that|that's|we're|we'll|i'm|i'll|let's)\s)"
    # "Hm ok, but always show me the diff", "spotless yes, but before you commit, …": a yes to what was asked
    r"|(?:hm+ |[\w.-]+ )?(?:ok(?:ay)?|yeah|yes|fine|alright|hm+),?(?=\s+but\s)"
    r"|actually(?=\s+(?:let's|we|i|the)\s)"
    r"|honestly|basically|just so you know|for the record|to be clear|please note(?: that)?|remember that"
    r"|keep in mind(?: that)?|note that|just|please|my habit is(?: to)?|the (?:trick|key|rule|tip) is(?: to)?"
    r"|remember(?: that)?(?=\s+the\b)|remember to|ok(?:ay)?(?=\s+[\u4e00-\u9fff]))\s+"
    r"|(?:one|another|big|small|quick|last) (?:more )?(?:[a-z]+ )?(?:thing|change)[^:：,，.。]{0,40}[:：]\s*"
    r"|[^:：,，.。]{0,30}(?:addition|update|note|rule|reminder|tip|补充|(?<!按)(?<!照)(?<!按老)(?<!照老)规矩|更新|提醒"
    r"|说明|原则|约定)"
    # (not a time's colon: "作业提醒推送改到晚上 20:00，…" names 提醒 before one; "按老规矩 wdg: 开头" follows one)
    r"[^:：,，.。]{0,20}(?:：|:(?!\d\d))\s*"
    r"|(?:decision|decided|agreed)(?: for th(?:is|e) \w+)?\s*[:：]\s*|(?:决定|结论|拍板)[:：]\s*"
    r"|(?:quick |some |a bit of |short )?(?:context|background|intro)\s*[:：]\s*"
    r"|first (?:time|session)\b[^:：.。]{0,60}[:：]\s*"  # "first time using you in this repo so quick context: …"
    r"|(?:quick |small )?heads[- ]up(?: first)?\s*[:：,]\s*|my (?:take|view|opinion)(?: is)?\s*[:：]\s*"
    # when it comes up, said before it: "Since you'll be in there: …", "While you're here: …", "PR-wise: …"
    r"|(?:since|while|as|now that|before) you(?:'re| are|'ll be| will be|'ve| have)? [^:：,，.。]{1,40}[:：]\s*"
    r"|[\w-]+-wise\s*[:：]\s*"
    r"|\[[ x]\]\s+"  # a checklist's box: "[ ] tidy.dev 域名 12 月 1 号到期"
    r"|(?:no|yes) on (?:the |that |your )?[\w -]{1,24}:\s*"  # "no on the bump: pin every action to a SHA"
    r"|re:? (?:the |your |my |our )?[\w' -]{1,40}?\s*[—–]\s*"  # what it answers: "re Conor's action item 4 — …"
    # why, before what it convinced the person of: "I read the FSRS paper …, and I'm convinced: we're switching …"
    r"|[^:：]{0,160}?(?:i'm|i am) (?:convinced|sold)\s*[:：]\s*"
    # who said it and where, before what they said: "Siobhán just posted in #team-bookings: freeze extended to …"
    r"|[\w'’-]+ (?:just )?(?:posted|wrote|announced|messaged|confirmed)(?: (?:in|on) [#\w.-]+)?\s*[:：]\s*"
    # "先说下背景，你第一次进这个 repo：我是…": the introduction, not the thing introduced
    r"|(?:先说下|先说一下|简单说下|先交代(?:一下|下|几句)?)?背景[:：，,]\s*|你?第一次(?:进|来|用|在)[^，,。:：]{0,20}[:：]\s*"
    # "👍 再记一下背景：…", "Infra change first, so you have the right picture: …"
    r"|[\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F]+\s*|(?:再|先)?记(?:一下|下)[^:：,，.。]{0,6}[:：]\s*"
    r"|[^:：.。]{0,40}(?:the|a) (?:right|full|whole|clear) picture\s*[:：]\s*"
    r"|(?:the (?:trick|key|rule|tip)|tip|rule of thumb)\s*:\s*)+",
    re.I,
)
_ZH_LEAD = re.compile(
    r"^(?:(?:嗯+好的?|好吧|行吧|算了|嗯+|好的?|对了?|哦+对?|喔+对?|噢|啊|诶|欸|哎|是的|ok|okay|行|不行|不对|不是的?|错了|停|等等|等一下"
    # a reply before the point: "加，双许可证…", "我不同意，我们就用…", "端口错了，staging 的 API 是 8443"
    r"|加|要|可以|同意|没问题|我?不同意|[\u4e00-\u9fffa-z]{1,6}?也?(?:错了|不对)|我的(?:看法|意见|观点|想法)是?|(?:就这么)?定了"
    # an ask before the rule it comes with: "提交一下，commit message 用中文写"
    r"|(?:帮我)?[\u4e00-\u9fff]{1,3}一下(?=[，,])"
    r"|我(?:这边|这儿)?有个(?:习惯|原则|规矩|要求)|好消息|坏消息)\s*[，,。.:：!！、~～—]+\s*"
    # typed with a space for the pause: "对了 我们最低支持 iOS 16", "哦对 那是产品要求的"
    r"|(?:嗯+|好的|对了|哦+对?|喔+对?|噢|诶|欸|哎|是的)\s+(?=[\u4e00-\u9fff])|那(?=以后|之后|就)|也(?=别|不|要|都|用|得|该)"
    r"|对了(?=[\u4e00-\u9fff])(?!解)"  # typed with no pause at all: "对了这个 blog 不要任何 client-side JS"
    # "先说一下：…" leads in, "先说结论，再讲理由" is the rule itself
    r"|(?:注意|记住|提醒一下|另外|顺便(?:说一下|提一下|说一句|说下|记一下)?|记一下|先说(?:一下|下|一句|两句|(?=[\s，,。:：!！、~～—]|[一两二三几]?个[^，,。:：]{0,4}[:：]))|补充(?:一下|一点|一句)?|再说一下|说一下|话说|其实"
    r"|我觉得|我想了(?:一)?下|我想了想|我想过了|我想(?![了过])|我认为|然后|还有一点|还有个事|还有件事|还有|先(?:讲|講|说|說)一下|说过了|我说过了?|跟你说过了?|再说一遍|又来了|但是?|而且|所以"
    r"|不过|然而|此外|因此|我的习惯是|我习惯是|我的原则是|原则是|关键是|诀窍是|欸|喔|你好|您好|(?:先)?自我介绍一下|那就)"
    r"(?:[\s，,。:：!！、~～—]|\.(?!\w))*"  # not the dot of ".env.example"
    r"|(?:说个|有个|一个|个)?(?:流程|计划|安排|规则|规矩)?(?:变化|变动|改动|变更)[:：]\s*|(?:你|帮我)?记一下[:：]\s*"
    # a count of what follows ("两件事：", "一个问题："), an introduction, the person saying it again
    r"|(?:[一两二三四几]|这|有|还有)(?:件事|个事|个问题|个变化|个改动|点)(?:[，,][^，,。:：]{1,10})?[:：]\s*"
    r"|(?:先)?简单介绍一下[\s，,。:：]*|省得[^，,。:：]{1,10}[:：]\s*"
    # "先讲一件事：", "先把规则讲好："
    r"|先(?:讲|講|说|說)(?=[一两兩]件事)|先把[^，,。:：]{1,6}(?:讲|講|说|說)(?:好|清楚)[:：]\s*"
    # a supplement naming the rule it adds to: "clippy 那条再加一个：", "给我看 diff 那条补充一下："
    r"|[^，,。:：]{1,16}那条(?:规则|规矩)?(?:再加一(?:个|点|条|句)|补充一下|补充一点|再补充一?(?:点|句)?)[:：，,]\s*"
    # who it was settled with: "跟产品确认过了，…"
    r"|(?:跟|和|同)[^，,。:：\s]{1,8}(?:确认|商量|对)过了?[，,:：]\s*"
    r"|还是那句话[\s，,:：]*|[^，,。:：\s]{1,8}的时候注意[:：]\s*|决定了[:：]\s*"
    # a reproach before the rule it brings: "谁让你 push 的 push 到 main 之前必须先问我"
    r"|谁(?:让|叫|允许)你[^，,。:：]{1,16}?的[\s，,。!！?？]+"
    # an item's own marker left at the front: "1）dbt 1.8 升级推迟…", "(a) 不行，…"
    r"|[(（](?:\d{1,2}|[a-z])[)）]\s*|\d{1,2}[)）]\s*)+"
)
_TOPIC = re.compile(
    r"^(?:about|regarding|re|as for|as to|on the topic of|change of plans? (?:on|for|about|re))"
    r"\s+([^\d:,，：][^:,，：]{0,39})(?:[:，：]|,(?!\d))\s*(?=\S)",  # not "About 2,300 failed authorisations"
    re.I,
)
_ZH_TOPIC = re.compile(
    r"^(?:关于|至于)([^:,，：]{1,20})[:,，：]\s*(?=\S)"
    # "部署步骤记一下：先跑 …", "迟交政策你记一下，后面写脚本要用：…": what to note is the subject
    r"|^([^，,。:：\s][^，,。:：]{0,15}?)\s*(?:你|帮我)?记一下(?:[，,][^:：。]{0,30})?[:：]\s*(?=\S)"
    # "测试这块：CLI 的输出都要有 snapshot test": the matter, without the word for a part of it
    r"|^([^，,。:：\s]{1,12}?)\s*(?:这块|这一块|这边|方面)[:：]\s*(?=\S)"
    # "端口的事说一下：dashboard 改成 8765", "说一下部署的事：…": the matter is the subject
    r"|^([^，,。:：\s]{1,12}?)的事(?:情|儿)?(?:我?(?:说一下|说下|讲一下|讲下|提一下|交代一下))?[:：]\s*(?=\S)"
    r"|^(?:我?(?:说一下|说下|讲一下|讲下|提一下))([^，,。:：\s]{1,12}?)的事(?:情|儿)?[:：]\s*(?=\S)"
    # "那个错误处理，还是那句话，error 往上抛…": said again of a subject
    r"|^(?:那个|这个)?([^，,。:：\s]{1,10}?)[，,]\s*(?:还是那句话|老规矩|还是老样子|跟之前一样)[，,:：]\s*(?=\S)"
)
# a subject before a colon: what follows may open with a lead-in of its own ("对外回调：定了，所有回调都带签名")
_SUBJECT = re.compile(r"^([^，,。:：\s]{1,12})[:：]\s*(?=\S)")
_ZH_PARTICLE_END = re.compile(r"(?<=[\u4e00-\u9fff\w])\s*[吧啊呀哈哦啦嘛噢哟]+$")
_EN_POLITE_END = re.compile(
    # "…, ok" asks for a yes; "wait for my ok" and "only with Jonas' OK" name one, and "还 ok" says it is fine
    r"(?:,?\s+(?:please|pls|thanks|thank you"
    r"|(?<!my )(?<!your )(?<!the )(?<!an )(?<!our )(?<!' )(?<!'s )(?<![\u4e00-\u9fff]\s)(?:ok|okay))"
    r"|\s*\(?please\)?|[,，]\s*(?:remember|记住了?))$",
    re.I,
)
# emphasis markers, not a glob's star ("preview/*", "*.py", "stg_kobo__*", "src/**/*.ts"), a mask's ("0912***678"),
# a dunder ("__init__.py") nor a code span
_EMPHASIS = re.compile(
    r"(?P<kept>`[^`\n]*`|(?<=\w)\*+(?=\w))"
    r"|(?<!/)\*\*(?!/)|~~|(?<![\w/])\*(?=[^\s.*/])|(?<=[^\s/*_.-])\*(?![\w/])"
)
# "__bold__", not a dunder ("__init__", "__all__")
_UNDERSCORED = re.compile(r"`[^`\n]*`|(?<!\w)__(?=\S)([^_\n]+?)(?<=\S)__(?!\w)")
_DUNDER = re.compile(r"[a-z][a-z0-9]*")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(([^)\s]*)\)")
_IDENTIFIER = re.compile(r"[\d_./\\-]|[a-z][A-Z]")  # a digit, a separator or a camel hump: as written
_SPEAKER = re.compile(r"^(?:user|assistant|human|ai|me|q|a|用户|助手|问|答)\s*[:：]\s*", re.I)
# whom a teammate's chat message was addressed to: "林蔚：@阿明 D-01 我改了…" is 林蔚's word, for anyone
_MENTION = re.compile(r"^([^\s:：@]{1,12}[:：]\s*)@[\w.-]{1,20}[\s,，:：]+|^@[\u4e00-\u9fff]{1,4}[\s,，:：]+")
_ARROW = re.compile(r"^(?:[→⇒➜➔►▶]|-+>|=+>)\s*")  # a note's "→ 以后 PR 描述里必须写 why": its arrow leads in

_EN_CONDITION = re.compile(
    # "for"/"in" name a case in a few words ("for Go code,"); longer, the clause is the rule itself
    r"(?P<cond>(?:if|when|whenever|while|during|before|after|once)\s[^,;:]{2,80}?|(?:for|in)(?:\s[^\s,;:]+){1,4})"
    r"\s*(?:,|:(?=\s))\s+(?P<rest>[^\W\d_].*)",  # …and a caption's: "for UserInBlacklist: no retries, …"
    re.S,
)
_ALSO = re.compile(r"^(?:also|then|and)\s+(?=\S)", re.I)
_EN_NOT_CONDITION = re.compile(
    r"(?<![a-z0-9_])(?:for (?:example|instance|now|this reason|that reason|me|us|years|months|days|weeks|a while|once)"
    r"|after (?:all|that|this)|before (?:that|this)|in (?:short|fact|general|practice|theory|other words|addition"
    r"|particular|the end|contrast|summary|this repo|this project|the future|future)|once (?:again|more)"
    r"|when (?:possible|in doubt)|if (?:possible|needed|so|not))(?![a-z0-9_])"
)
_ZH_CONDITION = re.compile(
    r"(?P<cond>(?:对于|如果|假如|若是?|要是|当|每当|遇到|一旦|只要)[^，,。；;：:]{1,30}"
    r"|在[^，,。；;：:]{1,24}(?:时|时候|中|里|上|下|前|后)"
    r"|[^，,。；;：:]{2,24}?(?:时|的时候|之前|以前|之后))[，,：:]\s*(?P<rest>\S.*)",
    re.S,
)
# not the 时 of a word of time ("日志里的时间戳", "跟我说时间的时候")
_ZH_BARE_CONDITION = re.compile(
    r"(?P<cond>[\u4e00-\u9fff]{2,8}?(?:的时候|时(?![间刻段区长效])))(?P<rest>[\u4e00-\u9fff].{3,})", re.S
)
_NOT_TIME_CLAUSE = tuple(
    wordset("同时 有时 及时 当时 临时 随时 平时 按时 准时 小时 暂时 实时 定时 过时 那时 此时 届时 一时 超时 适时")
    | {"到时", "不时"}
)


def clean_statement(quote: str) -> str:
    """Return the quote as one clean line: no lead-in, filler, emphasis or trailing punctuation."""
    text = _ARROW.sub("", _MENTION.sub(r"\1", _SPEAKER.sub("", " ".join(quote.split()))))
    if "[" in text:
        text = _LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})" if m.group(2) else m.group(1), text)
    if "*" in text or "_" in text or "~" in text:
        text = _UNDERSCORED.sub(_unbolded, text)
        # "** I prefer tabs": a stray marker leaves its space
        text = _EMPHASIS.sub(lambda m: m.group("kept") or "", text).strip()
    text = strip_lead_in(text)
    text = text.rstrip(_TRAILING)
    text = _EN_POLITE_END.sub("", text).rstrip(_TRAILING)
    text = _ZH_PARTICLE_END.sub("", text).rstrip(_TRAILING)
    text = RESTATED_TAIL.sub("", text).rstrip(_TRAILING)
    if not text:
        return " ".join(quote.split()).rstrip(_TRAILING)
    return capitalized(text)


def _colon_after(subject: str) -> str:
    """The colon a subject kept before its rule is written with: "部署步骤：先跑 …", "Prod: moving it to 31 Mar",
    "Dana: pin it" (once "please" is gone)."""
    return "：" if CJK_CHAR.match(subject[-1:]) else ": "


def _unbolded(match: re.Match[str]) -> str:
    """A "__bold__" pair's words; a code span or a dunder ("__init__") as written."""
    inside = match.group(1)
    return match.group() if inside is None or _DUNDER.fullmatch(inside) else inside


def capitalized(text: str) -> str:
    """Capitalise a sentence's first word, unless it is a name as written ("gpu3", "max_seq_len", "pnpm-lock")."""
    first = text.split(maxsplit=1)[0] if text.strip() else ""
    if not (text[:1].isascii() and text[:1].islower()) or _IDENTIFIER.search(first):
        return text
    if CJK_CHAR.search(text):
        return text  # "tidy 是个 Rust CLI": a Chinese sentence's Latin word is as written, a name more often than not
    return text[0].upper() + text[1:]


def strip_lead_in(text: str) -> str:
    """Drop interjections, address and topic lead-ins from the start of a sentence."""
    previous = None
    while previous != text:
        previous = text
        for pattern in (_EN_LEAD, _ZH_LEAD):
            match = pattern.match(fold(text))  # fold keeps offsets: 還有 is read as 还有
            if match and match.end() < len(text):
                text = text[match.end() :]
        topic = _TOPIC.match(text) or _ZH_TOPIC.match(fold(text))
        if topic:
            rest = text[topic.end() :]
            subject = next(group for group in topic.groups() if group is not None).strip()
            # "About commits: squash them" keeps its subject unless the rest names it again
            named = fold(subject) in fold(rest) or _names_again(subject, rest)
            text = rest if named else f"{subject[0].upper()}{subject[1:]}{_colon_after(subject)}{rest}"
        elif subject := _SUBJECT.match(text):
            rest = text[subject.end() :]
            for pattern in (_EN_LEAD, _ZH_LEAD):
                match = pattern.match(fold(rest))
                if match and match.end() < len(rest):
                    text = f"{subject.group(1)}{_colon_after(subject.group(1))}{rest[match.end() :]}"
                    break
    return text


def _names_again(subject: str, rest: str) -> bool:
    """Tell whether the rest names the subject's Latin name ("staging 环境的信息" before "The staging backend …")."""
    names = {word.casefold() for word in re.findall(r"[A-Za-z][\w.-]{2,}", subject)}
    return bool(names) and names <= {word.casefold() for word in re.findall(r"[A-Za-z][\w.-]{2,}", rest)}


def _balanced(text: str) -> bool:
    return text.count("(") <= text.count(")") and text.count("（") <= text.count("）")


def split_condition(statement: str) -> tuple[str, str]:
    """Return (statement, condition): a leading "when to recall" clause moves to the condition."""
    folded = fold(statement)
    match = _EN_CONDITION.fullmatch(folded)
    # (not at a comma inside brackets: "if a business rule is unclear (what counts as a repayment, when a loan is in
    # arrears) ask me")
    if match and not _EN_NOT_CONDITION.match(folded) and _balanced(match.group("cond")):
        condition = statement[: match.end("cond")].rstrip(_TRAILING)
        rest = statement[match.start("rest") :]
        rest = _ALSO.sub("", rest, count=1) or rest  # "before you say done, also run what CI runs"
        return capitalized(rest), condition
    match = _ZH_CONDITION.fullmatch(folded)
    if match and not match.group("cond").endswith(_NOT_TIME_CLAUSE):
        return statement[match.start("rest") :], statement[: match.end("cond")].rstrip(_TRAILING)
    match = _ZH_BARE_CONDITION.match(folded)
    if match and not match.group("cond").endswith(_NOT_TIME_CLAUSE):
        return statement, statement[: match.end("cond")]
    # a trailing clause after a comma: "review on days 1, 2, 4, 7, 15, when learning vocabulary"
    tail = re.search(r",\s+((?:if|when|whenever|while|during|before|unless)\s[^,;]{3,80})$", folded)
    if tail and tail.start() > 12:
        return statement[: tail.start()].rstrip(_TRAILING), statement[tail.start(1) :]
    return statement, ""
