"""Cue phrases, in English and Chinese, that mark a sentence as done, decided or still to do.

Also the phrases that mark a turn as an acknowledgement, a slash command or a polite opener,
and the quick test that rules a text out before any cue pattern runs on it.
"""

from __future__ import annotations

import logging
import re

from incremind_daemon.pipeline.traditional import CANTONESE_CHARS, TO_SIMPLIFIED, as_mandarin_words, spellings

log = logging.getLogger(__name__)

DONE, DECISION, NEXT = "done", "decisions", "next"

# Cues match text folded to lower case, simplified Chinese and straight quotes, so one pattern
# serves "Done" and "done", 已經完成 and 已经完成. The fold maps one character to one, keeping offsets,
# and patterns run without re.IGNORECASE, which makes Python's re several times slower.
# …and written Cantonese's grammar words to Mandarin's (traditional.CANTONESE_CHARS)
_FOLD = str.maketrans(
    {**TO_SIMPLIFIED, **CANTONESE_CHARS, **{chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)}}
)


# words in quotes are named, not said ("I'd rather hear 'not sure'", 「偏红那个」)
QUOTED_WORDS = re.compile(r"「[^」]*」|“[^”]*”|\"[^\"]*\"|(?<!\w)'[^'\n]+'(?!\w)")


def fold(text: str) -> str:
    return as_mandarin_words(text.translate(_FOLD), text)


def _words(*phrases: str) -> str:
    # bounded by ASCII word characters: "next" matches neither "nextjs" nor "next.js", yet does in "然后next"
    return rf"(?<![a-z0-9_])(?:{'|'.join(phrases)})(?![a-z0-9_]|[.-][a-z0-9])"


def bounded(*phrases: str) -> str:
    """The phrases as alternatives bounded by ASCII word characters: "port" misses "report" yet matches "端口port"."""
    return rf"(?<![a-z0-9_])(?:{'|'.join(phrases)})(?![a-z0-9_])"


def wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


_PAST_WORDS = (
    "added fixed created updated implemented removed deleted refactored renamed moved wrote written changed replaced"
    " made configured installed committed pushed merged converted extracted migrated resolved split cleaned enabled"
    " introduced disabled documented completed finished switched applied patched adjusted modified bumped upgraded"
    " unified restored reverted optimized built simplified generated addressed corrected ensured verified tested"
    " deployed released published integrated restructured handled"
)
_PAST = "|".join(_PAST_WORDS.split()) + "|set up|wired up|hooked up|sorted out"
DONE_CUES = re.compile(
    _words(
        rf"(?:i|we)(?:'ve| have)?(?:\s+(?:now|just|also|already|successfully|finally))*\s+(?:{_PAST})",
        rf"(?:has|have) (?:now )?been (?:\w+ly )?(?:{_PAST})",
        # "make test-race passes", "test:unit is green"
        r"(?:tests?|specs?|checks?|ci|builds?|lint(?:ing)?|type ?checks?|runs?|workflows?|uploads?)(?:[-:][a-z0-9]+)*"
        r"\s+(?:(?:now|all|are|is|still)\s+)*"
        r"(?:pass(?:es|ed|ing)?|green|succeed(?:s|ed)?|went through)|\d+ (?:tests? )?passed",
        r"(?:is|are) now (?:working|fixed|passing|done|complete|in place|live|green)|now works?|works now",
    )
    + rf"|^(?:✅\s*)?{_words(_PAST, 'done|all done|all set|completed?|finished')}|✅|✔"
    # "已本地 commit `4e7b1c9`，没 push": a step of git said by its English verb
    r"|已经?(?:在?本地)?\s*(?:commit|push|merge|rebase|tag)\s*(?:了|到)?\s*`"
    r"|已经?(?:帮你|为你|替你|给你)?(?:完成|修复|修正|修好|添加|新增|加入|加上|更新|删除|删掉|移除|创建|建立"
    r"|新建|实现|提交|修改|改好|改成|改为|替换|重构|处理|解决|整理|写好|写入|编写|撰写|安装|配置|设置|设定"
    r"|合并|迁移|部署|推送|调整|优化|补充|补上|生成|产生|统一|切换|换成|还原|恢复|清理|更正|抽离|搞定|上线"
    r"|发布|改)|(?:改|修|做|写|弄|整理|搞|加|建|装|配|调|处理|准备|设置|更新|跑|测)好(?:了|啦|啰|喽|咯)"
    r"|搞定|完成了|实现了|提交了|(?:删|去|移|拿|干)掉了|(?:改|换|统一|更新|升级|降级)(?:成|为|到)了"
    r"|(?:加|放|写|移|挪|合并)(?:到|进|入|上)了|(?:测试|单测|用例|构建|编译|检查)(?:已经?|全部|均|都|也)*(?:通过|跑通)"
)
NOT_DONE_CUES = re.compile(
    _words("haven't|have not|hasn't|has not|didn't|did not|not yet|wasn't able|were not able|unable to|couldn't")
    + r"|还没|尚未|未能|没能|没有(?:完成|修复|通过)"
)
# Chinese words that move a date or a setting to a new value: "周会改到周三", "截止推迟到 4 月 8 号"
# …and Cantonese's, read through the fold: "batch size 改做 200", "场地换咗去天河体育中心"
MOVED_TO = (
    r"改到|挪到|推迟到|提前到|顺延到|延期到|改做|换做|转做|(?:改|换|搬|转)了去|迁(?:移)?到|搬到"
    r"|推后?到(?=\s*(?:\d|下|周|星期|礼拜|明天|后天|月底|年底))"  # "试点推到 12 月 11 号", not "推到 main"
)
# from a day on: "由今个礼拜开始改咗礼拜三晚", "从下个月起"; and, said beside a change of what is known, without
# 由/从: "下礼拜一开始…以后搵 Vivian" (alone, "下周开始带饭试一周看看" is a plan, no rule)
FROM_THEN_ON = r"(?:由|从)(?:今个|呢个|这个|下个|今|本|下)(?:礼拜|星期|周|月|年|天)[一二三四五六日天]?(?:开始|起)"
# a day of the week as English writes it, in full or short: "Monday", "tues", "Fri"
WEEKDAY = r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|mon|tue|wed|thu|fri|sat|sun)"
# a step before any change is made, which holds each time: "动手前还是先列一下要改的文件", "改之前先跑 eval 存基线"
BEFORE_CHANGE = r"(?:动手|改代码|改动|修改|开工|改)(?:之前|以前|前)(?!的)[^，。,;；]{0,8}?先"
# a step of the work the person keeps for themselves: "push 我自己来", "push 还是我自己来", "合并我自己来点"
MY_STEP = r"(?:push|merge|合并|推送)\s*(?:都|还是|永远|一律)?(?:是)?我自己(?:来|做|弄|推|点|push)"
FROM_DAY_ON = r"(?:由|从)?(?:今个|呢个|这个|下个|今|本|下)(?:礼拜|星期|周|月|年|天)[一二三四五六日天]?(?:开始|起)"
DECISION_CUES = re.compile(
    _words(
        r"let's\s+(?:just\s+|instead\s+|not\s+)?(?:use|go with|switch|stick with|keep|drop|go for|move to"
        r"|change|skip|avoid)|(?:we|i)(?:'ll|'d| will| would| should)?\s+(?:rather\s+)?(?:go with|stick with"
        r"|switch to|settle on|opt for)|decided|decide to|decision|instead(?: of)?|rather than|cho(?:se|sen)"
        r"|(?:switch|migrat|mov)(?:e|ed|ing)? (?:to|over)|(?:switch|migrat|mov)(?:e|ed|ing)? from \S+(?: \S+)? to"
        r"|choose to|opt(?:ed|ing)? (?:for|to)|settled? on|going with|change of plans?"
        r"|scratch that|on second thought|no longer|(?:don't|do not|won't|will not) use|we(?:'ll| will) use"
        r"|(?:i|we)(?:'d)? prefer|the plan is"
    )
    + r"|决定|决策|改用|就用|换用|不用[^，。！？,.!?]{0,15}了|换成|改成|改为|选用|采用|还是用|统一(?:用|成|为)"
    r"|代替|而不是|取代|不再|放弃|方案[是为定:：]|(?<![搞稳])定了|确定用|最终用|先不|暂时不|不要用|别用"
    r"|是[^，。,;；]{1,8}(?<![搞稳])定的"  # "這是產品定的": whose decision it is
)
NEXT_CUES = re.compile(
    _words(
        r"todo|to-do|fixme|tbd|still (?:need|needs|have to|has to|to)|remaining|remains to|follow-?ups?"
        r"|not yet|yet to|pending|left to do|open (?:items?|questions?|issues?)|next steps?|later on|afterwards"
        r"|eventually|in (?:a|the) (?:future|later|follow-?up|next)|future work|will need to|needs? to be"
        r"|should also|we (?:should|need to|must|still)|you(?:'ll| will)? (?:need to|should|must|may want to"
        r"|might want to)|(?:do|fix|handle|address) (?:it|this|that|them) later|come back to|revisit"
    )
    + r"|还需要|还要|还得|待办|之后再|以后再|稍后|回头再|还没|尚未|未完成|仍需|仍然需要|需要再|留待|下次|有待"
    r"|待定|待处理|待确认|后续(?:再|还|需要|要|可以|会|工作|任务|步骤|计划|处理|跟进|优化|改进|事项)"
)
# "Next, I'll read the config" narrates the very next tool call; it counts only in a round's last reply
# …though "Next 15", "Next 14's router", "next/image" name Next.js
# …and "我接下来把它改成 groupBy" says what the agent does next, as "接下来…" does
WEAK_NEXT_CUES = re.compile(_words(r"next(?!\s*\d|/|'s)|after that") + r"|(?:我们?|咱们)?(?:下一步|接下来|然后再)")
OFFER_CUES = re.compile(
    "^(?:"
    + _words("want me to|would you like me to|do you want me to|should i|shall i|i can also|if you(?:'d)? like")
    + r"|要不要我|需要我|是否需要)"
)
NOT_ITEM_CUES = re.compile(  # closing pleasantries and captions over what follows
    _words("let me know|feel free|happy to help|(?:call|ping) me if")
    + r"|随时告诉我|如有|如果有任何|^(?:以下|如下|下面是)"
    r"|有需要(?:的话)?(?:随时)?再?(?:叫|找|喊)我|需要的话(?:随时)?再?(?:叫|找|喊)我"
    r"|^(?:here(?:'s| is| are)|below|the following|summary)\b"
)
SECTION_CUES = (  # captions over a list: "Next steps:", "## Changes made", "**待办**"
    (NEXT, _words(r"next steps?|todo|to-do|remaining|follow-?ups?|open (?:items|questions|issues)")),
    (NEXT, "下一步|接下来|待办|后续|遗留|未完成"),
    (DECISION, _words(r"(?:design |key )?decisions?|decided|approach") + "|决定|决策|方案"),
    (DONE, _words(r"changes(?: made)?|what (?:i|we) (?:changed|did|fixed)|summary of changes|done|completed|fixed")),
    (DONE, "修改|改动|变更|完成|已修复"),
)

# Scanning long replies with the cue patterns is slow (re tries every branch at every position),
# so a text must first show a word or a CJK pair that some cue needs.
_CUE_WORDS = wordset(
    f"{_PAST_WORDS} set wired hooked sorted done complete finished pass passes passed passing green succeed succeeds"
    " succeeded works working place live let's lets let’s go going stick switch switching settle settled opt opted"
    " opting decide decided decision instead rather chose chosen choose plan plans scratch thought longer don't"
    " won't we'll will prefer todo to-do fixme tbd still remaining remains follow-up follow-ups followup yet pending"
    " left open next steps later afterwards eventually future need needs should must want revisit back after like"
    " shall also"
)
_CUE_ANCHORS = (
    "已 好了 好啦 好啰 好喽 好咯 搞定 完成 提交 掉了 成了 为了 到了 进了 入了 上了 通过 跑通 决定 决策 改用 就用"
    " 换用 不用 换成 改成 改为 选用 采用 还是 统一 代替 而不是 取代 不再 放弃 方案 定了 确定 最终 先不 暂时 不要用"
    " 别用 还需 还要 还得 待办 之后 以后 稍后 回头 还没 尚未 未完 仍需 仍然 需要 留待 下次 有待 待定 待处理 待确认"
    " 后续 下一步 接下来 然后再 要不要 是否 ✅ ✔"
)
# every branch a literal, so re skips ahead on the set of first characters
_CUE_PAIRS = re.compile("|".join({v for a in _CUE_ANCHORS.split() for v in spellings(a)}))
_CUE_BYTES = frozenset(word.encode() for word in _CUE_WORDS)
_PUNCTUATION = b'"`*_()[]{}<>.,:;!?~/|=#'
_PUNCTUATION_TO_SPACE = bytes.maketrans(_PUNCTUATION, b" " * len(_PUNCTUATION))

ACK = re.compile(
    r"(?:(?:thank you|thanks?|thx|ty|ok(?:ay)?|k|yes|yep|yeah|yup|y|sure|fine|great|perfect|nice|cool|awesome|good"
    r"|sounds good|looks good|lgtm|please|pls|continue|proceed|go on|go ahead|go|carry on|keep going|do it|do that"
    r"|right|correct|agreed?|alright|approved?|confirm(?:ed)?|hi|hello|hey|resume|retry|again|next|done|got it|wow"
    r"|hm+|ah|oh)(?![^\W\d_])|继续|谢谢|多谢|感谢|收到|明白|了解|你好|您好|开始|执行|同意|确认|没问题|没错|不错|可以|辛苦|搞定|搞掂"
    r"|[好嗯是对行请吧啊呀了哈哦棒的太很做去嗨]|[\W_\d])+"
)
SLASH_COMMAND = re.compile(r"\s*/[A-Za-z][\w:.-]*(?:\s|$)")
POLITE = re.compile(
    r"^(?:(?:hi|hey|hello|claude|gemini|codex|ok(?:ay)?|so|and|also|now|please|pls|plz|kindly"
    r"|(?:can|could|would|will) (?:you|u)"
    r"(?: please)?|i(?:'d| would) like (?:you )?to|i (?:want|need) (?:you )?to|(?:please )?help me(?: to)?"
    r"|let's|lets)(?![\w'])[\s,!.:]*)+"
    r"|^(?:你好|您好|嗨|请你?|麻烦你?|能不能|能否|可不可以|可以|帮我们?|帮忙|我想要?|我要|我需要|我希望)+[\s,，:：]*"
)
REFINE = re.compile(
    _words(r"actually|wait|hm+|scratch that|change of plans?|on second thought|instead|rather|no[,!.]|nope|correction")
    + r"|其实|算了|不对|不是|等等|等一下|改成|换成|改为|改用|换个|还是|不要|不用|别"
)
OPENING = re.compile(r"^(?:i'll|i will|i'm going to|i am going to|(?:now )?let me|我来|我将|我会|让我)\s*")


def may_hold_cue(text: str) -> bool:
    if _CUE_PAIRS.search(text):
        return True
    words = text.lower().encode("utf-8", "replace").translate(_PUNCTUATION_TO_SPACE).split()
    return not _CUE_BYTES.isdisjoint(words)


# What follows serves the session state (snapshot.py): who settled what, and when.

# a person's reply that turns down what the agent just proposed or did: "no, …", "不对，…", "停！撤回"
OVERRULE_CUES = re.compile(
    "^(?:"
    + _words(
        r"no+|nope|nah|not (?:that|this|\(?[a-c]\)?|yet|now)|wrong|stop|wait|hold on|revert|undo|roll ?back|don't"
        r"|do not|never|why did you|why would you|again\b[^a-z]*(?:never|don't|no)|that's (?:wrong|not)|instead"
    )
    + r"|停|撤回|回滚|还原|改回|不对|不是|不行|不要|不用|别(?![的人处家])|错了|算了|等等|等一下|为什么)"
)
# a prohibition in the first sentence of a reply: "go.mod 里是 go 1.22，别用 1.23 的新特性"
PROHIBITION_CUES = re.compile(
    r"^(?:(?![。！？]|[.!?](?:\s|$)).){0,40}?(?:"
    + _words(r"(?<!i )(?<!we )(?<!they )(?:don't|do not)|never|not (?:a|the|\(?[a-c]\)?)\b")
    + r"|别(?![的人处家])|不要|不用|不能|不准)"
)
# a reply that takes what the agent proposed: "ok 加 default", "yeah kill it", "行。"
ACCEPT_CUES = re.compile(
    "^(?:"
    + _words(
        r"ok(?:ay)?|yes|yeah|yep|yup|sure|sounds good|looks good|lgtm|go ahead|do it|do that|agreed?|approved?"
        r"|good|great|perfect|fine|right|correct|makes sense|let's do (?:it|that)|please do|go for it"
        r"|(?:go|proceed)(?=\W*$)"  # a bare "go" or "proceed", not "go through the logs"
    )
    + r"|行|好|可以|嗯|对|没问题|同意|就这么|就这样|加吧|改吧|做吧|按你说的|听你的|👍|👌)"
)
# an agent's proposal, which is a decision only once the person accepts it
PROPOSAL_CUES = re.compile(
    _words(
        r"i(?:'d)? (?:suggest|recommend|propose)|i'd (?:go with|lean|pick|prefer)|i lean"
        r"|my (?:suggestion|recommendation)"
        r"|recommended|the (?:fix|cleaner fix|simplest fix|best option) is|i can|want me to|should i|shall i"
        r"|would you like|option \(?[a-c]\)?|\([a-c]\)|plan:|how about|(?:we|you) could|(?:is it )?ok(?:ay)? (?:to|if)"
        r"|can i|may i"
    )
    + r"|建议|我倾向|推荐|不如|要不要我|需要我|我可以|可以[^。！？]{0,40}吗|行吗|好吗|能不能|是否需要|我打算"
    r"|计划[:：]|方案[:：]"
    r"|两个选择|要不要"
)
# a step the person put off to later: "I'll apply it tonight", "等老唐迁完再合", "don't merge yet"
LATER_CUES = re.compile(
    _words(
        r"tomorrow|tmrw|tmr|tonight|later(?: today| on)?|this (?:afternoon|evening|weekend)|next (?:week|time|session)"
        r"|on (?:monday|tuesday|wednesday|thursday|friday)|(?:mon|tues|wednes|thurs|fri)day"
        r"|when (?:i'm|i am|we're) back|(?:wait|waits|waiting) (?:for|until|till)"
        r"|until [a-z]+ (?:has|have|is|are|looks?|reviews?)"
        r"|once [a-z]+ (?:has|have|is|are)"
        r"|(?:don't|do not) (?:merge|push|deploy|release|apply|ship) (?:it |this |that )?yet"
        r"|i'll (?:do|apply|push|run|open|check|look|merge|deploy|ask|commit|chase|keep an eye|put|poke|test|review"
        r"|trigger|promote|rerun|backfill)"
        r"|once (?:it|this|that)(?:'s| gets) merged|(?:once|after) (?:it|this|that) merges"
        r"|tomorrow-?ish|(?:can|will) wait (?:till|until|for)|(?:at|on|till|until) the weekend"
        r"|after (?:lunch|dinner|standup|stand-up|the standup|the meeting|my meeting|the call|work)"
    )
    + r"|明天|今晚|晚点|晚些|稍晚|回头|回来再|下午|下周|(?<![上本这每两几一二三四0-9])周[一二三四五六日]"
    r"|下次|之后再|以后再|另外?开(?:个|一个)?\s*(?:branch|分支)\s*慢慢|慢慢(?:换|改|迁)"
    r"|听日|聽日|听朝|聽朝|迟啲|遲啲|下礼拜|下禮拜|(?<![上本这])礼拜[一二三四五六日天]|下一?个\s*(?:pr|mr)|午饭后|吃完饭|开完会"
    r"|等[^，。,.]{1,24}?(?:再|后|完|看)"
    r"|先别|暂时别|还没|我(?:自己|晚点|回头|去)"
)
UNDO_CUES = re.compile(  # the person takes back what the agent did: "put that file back", "改回去"
    _words(r"revert|undo|roll ?back|put [a-z]+(?: [a-z]+)? back") + r"|撤回|回滚|还原|改回|撤销|恢复原"
)
# "Noted, PaperMod stays at v7.0" acknowledges what was said; "Noted the flag in the README" did something
_ACK_STOP = r"\s*[,.:!，。：—–-]"
# done verbs DONE_CUES leaves out: "Edited 0011 in place", "已加 BOM", "换好了"
MORE_DONE_CUES = re.compile(
    "^"
    + _words(
        r"edited|squashed|rebased|grouped|marked|saved|skipped|dropped|wrapped|tightened|bumped|pinned|tagged|opened"
        r"|reset|killed|restarted|started|stopped|ran|reran|renamed|rewrote|regenerated|registered|recorded"
        rf"|noted(?!{_ACK_STOP})|documented|pushed|reverted|cleared|filled|swapped|wired|raised|lowered|capped|narrowed|widened|kept"
    )
    + r"|^(?:pr|mr) !?#?\d+|^(?:pushed|committed|merged|tagged)\b|\b(?:is|are) (?:up|pushed|merged|saved|green)\b"
    r"|\b(?:pr|mr) !?#?\d+ (?:is )?(?:open(?:ed)?|up|created)\b|, committed (?:on|to|as) "  # "…, committed on `x`"
    # the work as its subject, where the clause ends: "The refund handler and its tests are written; …",
    # not how a thing works ("errors are written to stderr")
    r"|\b(?:is|are) (?:all |both |now )?(?:written|implemented|in place|wired up|in)(?=\s*(?:$|[,;:.!—–]|and\b))"
    r"|\bnow (?:runs?|uses?|lives?|has|checks?|returns?|points?|reads?|writes?|says|shares?|waits?|goes|sets?|skips?"
    r"|loads?|calls?|keeps?|passes|handles?|shows?|defaults? to|falls? back|posts?|sends?|serves?|renders?|accepts?"
    r"|includes?|logs?|retries|emits?|fetches|exports?|validates?|filters?|stores?|caches?|formats?|parses?)\b"
    r"|\b(?:is|are) now (?=`|\d)|^[\w ]{2,30}\bnow (?=`)"  # "Hero is now `next/image` …", "Mock URL now `…`"
    # what was asked for, where it now is: "csv 在 `~/Downloads/top20.csv`（20 行）", "The CSV is at ~/Downloads/x.csv"
    r"|^[^，,。；;`]{1,30}?(?:\s在\s?`[^`]{1,80}`|\s(?:is|are) at `?~?/?[\w.-]+/[\w./-]*\.[a-z0-9]{2,5}`?)"
    r"\s*(?:[(（][^)）]{0,20}[)）])?[。.]?$"
    r"|已(?:经)?(?:加|改|修|删|装|存|推|撤|回滚|记|注册|标记|跳过|写|建|换|移|合|提|跑|验证|确认|同步|关|开|启|禁|重启|保存"
    r"|推送|撤回|转|补|去掉|接入|打|发|放|挪|拆|升级|降级|切到)|(?:换|调|配|修|弄|搭|接|补|装|跑|加|存|推|建|写|改|开)好了"
    r"|^(?:只|都|也|又|先|还|另外)?(?:加|改|删|补|换|装|建|写|推|存|跑|拆|挪|开)了|都过了|都通过|全过|全部通过|格式已修|已修"
    r"|(?:重跑|运行|部署|启动|推送|上传|编译|构建)成功|^(?:新增|新建|新加)|已(?:经)?在[^。，,；;]{1,40}?(?:加|改|删|补|换|装|建|写|放)了?"
    # "`status` revert 咗", "fixture 改返 `datetime(…)`" (Cantonese, folded), "写好 `backfill_refund_reason.py` 同 test"
    r"|(?<![a-z])(?:revert|rebase|merge|push|commit|deploy|rerun|pin|bump)\s*了|^[^，。；]{0,20}?[改换][回返]\s*`|^[写改修做建加]好\s*`"
    r"|^new (?:file|override|migration|test|module|script|config|endpoint|component|branch|section|column|table|flag"
    r"|option|command|job|struct|type|class|function|hook|helper|check|step)\b|^(?:set|launched|relaunched) |^new `"
)
# a caption that opens an item and only repeats its kind: "Next steps: …", "TODO: …", "下一步："
ITEM_LABEL = re.compile(
    _words(r"next steps?|next|todo|to-do|follow-?ups?|done|decisions?|changes(?: made)?|summary|remaining")
    + r"\s*[:：]\s*|^(?:下一步|接下来|待办|后续|已完成|完成|决定|改动|本次改动|变更)\s*[:：]\s*"
    # "下一步把 notebook 整理成脚本", "接下来我先把…": the step opens on what it does
    r"|^(?:下一步|接下来)(?:我们?|咱们|就|先|再|要|得|会|打算)*(?=[把将])|"
    + _words(r"next,? (?:i'll|i will|we'll|we will)")
    + r"\s*"
)
# a person's sentence that settles how the work is done, beyond asking for the next action:
# "use pnpm, not npm", "一律存 UTC", "the port is 9300", "别用 1.23 的新特性", "clippy has to pass"
DIRECTIVE_CUES = re.compile(
    _words(
        r"always|never|from now on|going forward|by default|no more|(?<!i )(?<!we )(?<!they )(?:don't|do not)"
        # a step each time, and a permission: "run test:e2e whenever you touch the form", "you're allowed to push"
        r"|whenever|every time|each time|(?:you're|you are) allowed to|you may(?! (?:want|need|have|see|notice|be))"
        r"|must|has to|have to|needs? to|required?|instead|rather than|not [\w.-]+ but|stick (?:to|with)|keep using"
        r"|use|go with|prefer|(?:slipped|pushed|moved|postponed|delayed|brought forward) to|the exception"
        r"|(?:is|are|should be|stays?|goes (?:down |up )?to|set to|changed? to|bump(?:ed)? to) (?:[\w.-]+ )?\d[\w.%]*"
        # what stays as it is: "kakeibo stays offline-only", "leave vpc-cni where it is", "no to Firebase"
        r"|stays? (?:[\w-]+-only|local|offline|private|as is|where it is)|no to"
        r"|leave [\w./-]+ (?:where it is|as is|alone)"
    )
    + r"|一律|统一|(?<![了完好过])以后|今后|每次|所有|默认|永远|始终|必须|只能|只用"  # not "改了以后": after
    r"|只跑|只在|得先|要先|也要|别(?![的人处家])"
    r"|不要|不用|不能"
    r"|禁止|不准|不许|(?:推迟|延期|提前|改|挪|定)到|例外"
    r"|(?<![作使费有])用\s*[a-z0-9]|就用|改用|都用|改成|换成|改为|设为|定为|固定|保留|不是.{1,20}?(?:而是|是)"
)
# a what-if, which settles nothing: "if we ever move to k8s …", "要是以后上多区域…"
SUPPOSE_CUES = re.compile(
    _words(r"if we ever|if you ever|what if|maybe|perhaps|might|probably|not sure|i wonder|hypothetically|in theory")
    + r"|如果以后|万一|要是|也许|或许|可能|说不定|假如|不确定"
)
# a caption over the agent's report of its work: "总结：", "Summary:", "改动汇总："
SUMMARY_CAPTION = re.compile(r"^(?:summary|recap|总结|小结|摘要|汇总|改动汇总|变更摘要|本次改动|本次变更)")
ASK_CUES = re.compile(  # the words of an ask: "add pagination", "帮我加个接口", "today: fix the port"
    _words(
        r"(?:please |pls |can you |could you |let's |today:? |task:? |now )?(?:add|fix|make|build|write|create"
        r"|implement|update|change|move|remove|delete|rename|refactor|migrate|switch|set up|wire|port|convert|replace"
        r"|clean up|speed up|debug|investigate|check|look at|figure out|find|bump|upgrade|support|handle|paginate"
        r"|split|merge|deploy|release|prepare|prep|draft|review|get)",
        r"needs?|want|would like|should|has to|must|plan|going to|the goal is",
    )  # "写 Rust 的时候别…" sets a condition, it asks nothing
    + r"|帮我|帮忙|请|麻烦|给我|把|加|改|修|做|写(?![^，。,.]{0,24}的时候)|换|删|看下|看看|看一下|搞|整理"
    r"|实现|支持|迁移|升级|优化|需要|想|要"
)
_STATE_ANCHORS = (
    "已 好了 过了 全过 格式已修 加了 改了 删了 补了 换了 装了 建了 写了 推了 存了 跑了 拆了 挪了 建议 倾向 推荐 不如"
    " 成功 新增 新建"
    " 要不要 需要我 我可以 可以吗 是否 打算 计划 方案 选择"
)
_STATE_PAIRS = re.compile("|".join({v for a in _STATE_ANCHORS.split() for v in spellings(a)}))
_STATE_BYTES = frozenset(
    word.encode()
    for word in wordset(
        "edited squashed rebased grouped marked saved skipped dropped wrapped tightened bumped pinned tagged opened"
        " reset killed restarted started stopped ran reran renamed rewrote regenerated registered recorded noted"
        " documented pushed reverted cleared filled swapped wired raised lowered capped narrowed widened kept pr mr up"
        " merged green suggest recommend propose lean go pick prefer suggestion recommendation recommended fix can want"
        " should shall would option plan how could now new set launched relaunched"
    )
)


def may_hold_state_cue(text: str) -> bool:
    """Tell quickly whether text may hold any cue, old or new, of a session's state."""
    if may_hold_cue(text) or _STATE_PAIRS.search(text):
        return True
    words = text.lower().encode("utf-8", "replace").translate(_PUNCTUATION_TO_SPACE).split()
    return not _STATE_BYTES.isdisjoint(words)


# done reports the cues above leave out: "已把 image.tag 改成 …", "`run_helm()` 里加了 …", "重新查了", "build 通过",
# "测试仍然全绿", "Recreated the cluster", "Seeded `random` with 42"
REPORT_CUES = re.compile(
    r"已(?:经)?把[^。！？]{1,60}?(?:改|换|加|删|设|调|移|挪|放|写|拆|合|升|降|钉|固定|替换|统一|切)"
    r"|(?<![没未别不要想])(?<!如果)(?<!要是)(?<!假如)(?:加|改|删|补|换|装|写|拆|挪|调|卸载|重跑|重建|重启|生成|导出|新增|创建|新建|上传|部署|提交|修复|还原|恢复)了(?![吗么没只就也会反])"
    r"|(?:搬|移|挪)到\s*`|`[^`\n]+`\s*(?:成功|跑过|通过|过)(?=[\s（(，,。；;]|$)"  # "wrapper 搬到 `internal/…`"
    r"|(?:重新|再)查了|(?:检查|核对|验证|确认)(?:了|过了)|已(?:经)?(?:卸载|检查|核对|重跑|重建|重新)"
    r"|全绿|都绿|(?:build|tests?|ci|lint|clippy|pytest|vet|tsc)\s*(?:已经?|全部|均|都|也|仍然?|还是)*(?:通过|跑通|过了|绿了)"
    r"|^改回|^(?:✅\s*)?(?!(?:based|need|seed|speed|feed|embed|proceed|exceed|succeed|red|bed|shred|hundred|failed"
    r"|crashed|errored|timed|stalled|exited|panicked|expected|assumed|seemed|supposed|used|tried|called|named"
    r"|related|detailed|advanced|limited|mixed|looked|noticed|wanted|needed|hoped|guessed|wondered|interested"
    r"|proceeded|blocked|refused|rejected|reported|asked|started|decided|planned|considered|preferred|agreed"
    rf"|opted|figured|realized|realised|suggested|proposed|recommended|intended|noted(?={_ACK_STOP}))\b)"
    r"[a-z]{3,}ed(?![a-z0-9_-])"
)
# a report that names nothing it did, so the ask it answers says what: "改好了：", "Done.", "已添加", "改好，…" (粤)
BARE_REPORT = re.compile(
    r"(?:ok(?:ay)?[,\s]*)?(?:all )?(?:done|fixed|updated|changed|added|implemented|applied)"
    r"|(?:好的?[，,\s]*)?(?:已经?(?:添加|修改|修复|完成|更新|实现|处理|调整|加上|改好|弄好|改|加|修|换|调)|(?:改|加|修|弄|做|调|换|整)好了?|搞定了?|完成了?)"
)
# a person's sentence that settles how the work is done and that DIRECTIVE_CUES leaves out: a choice for now
# ("just hardcode it for now", "这次先写死 10 秒", "自己 parse 就好"), a rule of this project, a value set ("调到
# 30s", "the old build is 9c41e07ab3f2"), a fact put on record, the how-verbs of an instruction ("mock the webhook")
SETTLE_CUES = re.compile(
    _words(
        r"for now|this time,? just|just (?:\w+ )+this time|for this one|just this once|this (?:project|repo)"
        r"|in this repo|i (?:disagree|don't agree|do not agree)|for the record"
        r"|(?:do|run|push|merge|apply|open|tag|deploy|handle|review|write|fix|release)\b[^.,;]{0,20}\bmyself"
        r"|should never|(?:is|are|=)\s+`?[a-z0-9][\w./:-]*\d[\w./:-]*"
    )
    + r"|^(?:just |pls |please )?(?:hardcode|mock|stub|pin|skip|reuse)\b"
    r"|(?:这次|此次)(?:先|就|只|不|别)|暂时(?:先|用|不|别|只|写死|保留)|暂且|(?<!一下)(?:就行|就好|即可)"
    r"|这个\s*(?:项目|专案|仓库|repo)|本项目|不同意|我(?:都|会)?自己(?:来|开|跑|推|弄|改|做|处理|执行|合|打|发)"
    r"|(?:调|设|升|降|提|减|写死)(?:到|成|为)?\s*[\w.]*\d"
)
# a step the person holds back until something happens: "don't merge yet, …", "先别推", "等老唐迁完再合"
HOLD_CUES = re.compile(
    _words(
        r"(?:don't|do not) \w+(?: (?:it|this|that|the \w+))? (?:yet|now)|hold off|wait (?:for|until)|not until"
        r"|(?:don't|do not) (?:merge|push|deploy|release|apply|ship)"
    )
    + r"|先别|先不要?|暂时(?:别|不要?)|别急着|等[^，。,.]{1,24}?(?:再|后|完)"
)
# leaving now, which "I'm off tmr afternoon" (away later) is not; state_cues.LEAVING_CUES says it too
SIGNING_OFF = r"i'm off(?! (?:tmr|tmrw|tomorrow|next|on|from|until|till)\b)|signing off|logging off|heading out"
# what a person says to end a session, once the thanks are said: "that's it for today", "先这样"
CLOSING_WORDS = re.compile(
    _words(
        r"that's (?:it|all|enough)(?: for (?:today|tonight|now))?|see you(?: tomorrow)?|bye|good ?night"
        r"|have a good \w+|cheers",
        SIGNING_OFF,
    )
    + r"|先这样|就这样|今天就到这|今天先到这|下次见|拜拜|掰掰|ㄅㄅ|886|回见|明天见|周末愉快|周末见|下周见|晚安"
    r"|先撤了?|撤了|下线了|先下了|溜了|(?:去|先)?(?:睡觉?|瞓觉?)了|[\W_\d]+"
)
# an agent's sentence that announces the change its tools then make: "I'll add `lumen/gradcache.py` …",
# "Yes — I'm capturing the RNG states …", "我在 livenessProbe 下面加一个 readinessProbe"
ANNOUNCE_CUES = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|sure|got it|right)\W+)?(?:(?:so |now |first |then )?"
    r"(?:i'll|i will|i'm going to|i am going to|let me)\s+(?:also\s+)?(?:add|change|update|fix|create|write|move"
    r"|replace|remove|rename|wire|set|put|switch|implement|refactor|patch|edit|bump|pin|drop|split|extract|convert"
    r"|make)|(?:i'm|i am) (?:now )?[a-z]{3,}ing)\b"
    r"|^(?:好的?\W*)?(?:我(?:来|先|会|将|在|把)|下面|接下来)[^。！？?]{0,30}?(?:加|改|写|建|删|换|修|补|替换|实现|重构|更新)"
)
# a report of checks alone says what passed, not what was done: "tsc is clean and the tests pass", "测试全部通过"
CHECK_WORDS = wordset(
    "tsc mypy ruff clippy fmt lint linting build builds ci test tests spec specs suite suites check checks typecheck"
    " vet pytest vitest jest unit integration e2e table all the and is are now still again pass passes passed passing"
    " green clean ok succeeds succeeded works locally both"
)
CHECK_CHARS = frozenset("测试单测用例构建编译检查全部都均也仍然还是通过跑通绿了过和个条项")


# literal-led, so a long reply with none of them is ruled out fast
_REPORT_HINT = re.compile(r"[把了绿綠过過]|我[来來先会會将將在]|下面|接下|好[，,。.\s]|好$|成功|[到在回返]\s*`| is at ")
_ANNOUNCE_WORDS = ("I'll", "I will", "I'm", "I am", "Let me", "let me")
_PAST_OPENER = re.compile(r"[A-Za-z]{3,}ed\b")
_LATER_PAST_OPENER = re.compile(r"[.!?;] +[A-Za-z]{3,}ed\b")


def may_hold_report_cue(text: str) -> bool:
    """Tell quickly whether text may hold a done report that only REPORT_CUES knows."""
    if _REPORT_HINT.search(text) or any(word in text for word in _ANNOUNCE_WORDS):
        return True
    return bool(_PAST_OPENER.match(text.lstrip("-*#>• \t\n")) or _LATER_PAST_OPENER.search(text))


# What follows reads what the cues above leave out: reports in more forms, a reply that turns the agent's
# way round, more times a step is put off to, and more ways a person settles the work.

# a reply that turns the agent's way round: "Other way round: use UTC in the code", "反过来"
REVERSE_CUES = re.compile("^(?:" + _words(r"(?:the )?other way (?:a)?round|the opposite") + r"|反过来|倒过来|相反)")
# times LATER_CUES leaves out: "明早我自己 clear task", "next sprint", "end of day"
MORE_LATER_CUES = re.compile(
    _words(r"next (?:month|sprint|release|iteration)|first thing|end of (?:the )?(?:day|week|month)|eod")
    + r"|明早|明晚|明儿|后天|周末|月底|下个?月|下个?(?:迭代|版本|sprint)|(?<!昨天)(?<!前天)(?<!每天)晚上"
)
# done reports the cues above leave out: "已 squash merge #279", "注释改成英文了", "full refresh 6 分 42 秒",
# "built in 4m 46s", "Two commits on `flush-buffer`, pushed", "The dry run was clean", "CI 那套也跑过了"
_CJK_REPORT_CUES = re.compile(
    r"已(?:经)?\s+(?:squash\s+)?(?:merge|push|commit|rebase|deploy|revert|tag|bump|apply|release|cherry-pick)\s*\S"
    r"|(?:改|换|转|设|调|统一|切)(?:成|为|到)[^，。；！？,;?!]{1,24}?了(?![吗么])|(?:跑|测|验证)过了|\d\s*分\s*\d+\s*秒"
)
_MORE_REPORT_CJK = re.compile(r"已\s|[成为為到][^，。；！？]{1,24}了|[过過]了|\d\s*分")
_MORE_REPORT_WORDS = wordset("pushed committed merged deployed tagged released published clean green successful") | {
    " are in",
    " now `",
}
_MEASURED = re.compile(r"m ?[0-9]")  # "4m 46s": led by a literal, which re finds far faster than a digit class
_MEASURED_RUN = re.compile(r"(?<![\w.])[0-9]+m ?[0-9]+(?:\.[0-9]+)?s(?![a-z])")
_TAIL_WORDS = ("pushed", "committed", "merged", "deployed", "tagged", "released", "published")
# a report of a result, which says how a check or a run went: "`mypy --strict` is clean", "The dry run was clean"
RESULT_CUES = re.compile(_words(r"(?:was|were|came back|is|are) (?:all )?(?:clean|green|successful)"))


def is_more_report(folded: str) -> bool:
    """Tell whether folded text reports something done in a form the older cues leave out."""
    # one pattern of every form would try each at every position; cheap tests pick the one that can match
    if not folded.isascii() and _CJK_REPORT_CUES.search(folded):
        return True
    tail = folded.rstrip(" .!")
    if tail.endswith(_TAIL_WORDS):  # "Two commits on `flush-buffer`, pushed"
        head = tail[: tail.rfind(" ") + 1].rstrip() if " " in tail else ""
        if not head or head.endswith((",", "，")) or head == "and" or head.endswith(" and"):
            return True
    if _is_measured(folded) and _MEASURED_RUN.search(folded):
        return True
    return any(word in folded for word in ("clean", "green", "successful")) and RESULT_CUES.search(folded) is not None


def may_hold_more_report_cue(text: str) -> bool:
    """Tell quickly whether text may hold a done report that only is_more_report knows."""
    if not text.isascii() and _MORE_REPORT_CJK.search(text):
        return True
    lowered = text.lower()  # a substring test per word is many times faster than one pattern of them all
    return any(word in lowered for word in _MORE_REPORT_WORDS) or _is_measured(text)


def _is_measured(text: str) -> bool:
    return any(text[m.start() - 1 : m.start()].isdigit() for m in _MEASURED.finditer(text))


# a done report whose object is a pronoun, so the clause before says what: "…and a missing space; fixed both"
REPORT_OF_THOSE = re.compile(
    r"^(?:and |then )?(?:(?:i|we)(?:'ve| have)? )?(?:fixed|addressed|resolved|handled|removed|changed|updated"
    r"|corrected|cleaned up|sorted out) (?:both|them|it|those|these|all (?:of them|three|four|five))(?![a-z])"
    r"|^(?:这|那)?(?:两个|两处|几个|几处|些|它们|都|全)+(?:都)?(?:修|改|处理|解决|补)(?:好|掉|上|完)?了"
)
# a person's sentence that settles the work and that DIRECTIVE_CUES and SETTLE_CUES leave out: a scope
# ("covers scripts/ too, not just the package", "X and Y only"), a default, a value changed ("from 6 to 8"),
# a split ("one thing per PR", "goes in its own PR"), a naming rule, and a recap of what was agreed ("So: …")
MORE_SETTLE_CUES = re.compile(
    _words(
        r"not (?:just|only)|(?:the|as(?: the)?) default|defaults? to|explicit(?:ly)?|from [\w.-]+ to [\w.-]*\d"
        r"|one \w+ per \w+|(?:in|into|gets?) (?:its|their) own \w+|(?:are|is|be) (?:named|called|prefixed|suffixed)"
    )
    + r"|(?<=[\w`'\"])\s+only(?=\s*(?:$|[—–,;.:!]))|^(?:so|ok(?:ay)? so|to sum up|in short|所以|那就|总结一下)\s*[:：]"
    + r"|从\s*[\w.]+\s*(?:改|调|升|降|提|减|扩|缩)?到\s*[\w.]*\d|单独(?:一个|开|提|拆|放)|命名"
)
_SETTLE_WORDS = frozenset(("only", "not just", "default", "explicit", "from ", " per ", " own ", "named", "called"))
_SETTLE_WORDS |= {"prefixed", "suffixed"}
_SETTLE_CJK = ("所以", "那就", "总结", "从", "单独", "命名")
_RECAP_OPENERS = ("so", "ok", "to sum", "in short")


def settles_more(folded: str) -> bool:
    """Tell whether a person's folded sentence settles the work in a way only MORE_SETTLE_CUES knows."""
    # substring tests first: the pattern opens with a lookbehind, which re tries at every position
    hinted = any(word in folded for word in _SETTLE_WORDS) or folded.lstrip().startswith(_RECAP_OPENERS)
    hinted = hinted or (not folded.isascii() and any(word in folded for word in _SETTLE_CJK))
    return hinted and MORE_SETTLE_CUES.search(folded) is not None


def is_later_more(folded: str) -> bool:
    """Tell whether a folded sentence puts a step off to a time only MORE_LATER_CUES knows.

    "周末去爬山了" tells what happened at the weekend: after 周末 or 月底, which may be gone, a verb
    ended by 了 with nothing ahead of it (要, 会, 再, 打算…) is past; 明早 and 后天 are always ahead.
    """
    hinted = not folded.isascii() or any(word in folded for word in ("next ", "first thing", "end of", "eod"))
    found = MORE_LATER_CUES.search(folded) if hinted else None
    past = found is not None and found.group() in ("周末", "月底", "晚上") and _GONE_BY.match(folded[found.end() :])
    return found is not None and not past


# what follows a time word when it says what happened then: "周末去爬山了", "月底已经发了"
_GONE_BY = re.compile(
    r"(?![^，。,;；！!？?]*?(?:要|会|再|打算|准备|计划|得|想|去做|之前))"
    r"[^，。,;；！!？?]{0,12}?了(?:[，。,;；！!\s]|$)"
)


# an agent's caption over what it proposes, so the person's reply answers it: "Proposal:", "两个方案："
PROPOSAL_CAPTION = re.compile(
    r"^[ \t>*#-]*(?:\*\*)?(?:proposal|proposed (?:fix|plan|change)s?|plan|options?|two options|(?:两|几)?个?方案"
    r"|建议|提议)(?:\*\*)?\s*[:：]",
    re.M,
)
# the time a caption gives the task it opens: "tonight: the booking page"
TASK_TIMES = r"tonight|this (?:morning|afternoon|evening|week|weekend)|今晚|今天晚上|今天下午|这周|本周"
# a caption that says the ask follows: "Today: fct_orders has duplicates", "Problem: …", "问题："
ASK_CAPTION = re.compile(
    r"^(?:today|task|problem|issue|the ask|ask|goal|bug|todo|今天|任务|问题|需求|目标|"
    + TASK_TIMES
    + r"|what i (?:want|need)(?: from you| you to do)?)\s*[:：]"  # "what I want from you: make `lint` reject …"
)
# a reply that takes or names a choice, so an answer to the agent's question settles it: "3-day lookback is fine",
# "目标表只扫最近 7 天就够了", "dev 上可以跑"
CHOICE_CUES = re.compile(
    _words(r"(?:is|are|'s|sounds|looks|seems) (?:fine|enough|ok|okay|good|right)|works(?: for me)?|go with|let's do")
    + r"|可以|就够|够了|没问题|就行|就好|选"
)
# a sentence that forbids, so the sentence after it may say what to do instead: "Don't write credentials into
# files. Locally they come from 1Password: op run …", "别在代码里写密钥。本地从 .env 读。"
FORBID_CUES = re.compile(
    r"^(?:please |pls )?" + _words(r"don't|do not|never|no more") + r"|^请?(?:别|不要|不准|禁止|不许|绝对不要)"
)
# a reply that says what the agent did is wrong, rather than only answering its question: "no, that's wrong, …"
CORRECTION_CUES = re.compile(_words(r"wrong|that's not|that isn't|isn't right") + r"|不对|错了|不是这样|搞错")
