"""Cue phrases, in English and Chinese, that mark a sentence as done, decided or still to do.

Also the phrases that mark a turn as an acknowledgement, a slash command or a polite opener,
and the quick test that rules a text out before any cue pattern runs on it.
"""

from __future__ import annotations

import logging
import re

from incremind_daemon.store.hanzi import TRADITIONAL_TO_SIMPLIFIED

log = logging.getLogger(__name__)

DONE, DECISION, NEXT = "done", "decisions", "next"

# Cues match text folded to lower case, simplified Chinese and straight quotes, so one pattern
# serves "Done" and "done", 已經完成 and 已经完成. The fold maps one character to one, keeping offsets,
# and patterns run without re.IGNORECASE, which makes Python's re several times slower.
_TRADITIONAL = "刪幫續決換囉將裡沒還裝補後麼選採辦預優調啟據須確認錯誤遷併並於從讀寫處構則該維護進給繼過實經測試單’‘"
_SIMPLIFIED = "删帮续决换啰将里没还装补后么选采办预优调启据须确认错误迁并并于从读写处构则该维护进给继过实经测试单''"
_FOLD_PAIRS = {**TRADITIONAL_TO_SIMPLIFIED, **dict(zip(_TRADITIONAL, _SIMPLIFIED, strict=True))}
_FOLD = str.maketrans({**_FOLD_PAIRS, **{chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)}})


def fold(text: str) -> str:
    return text.translate(_FOLD)


def _words(*phrases: str) -> str:
    # bounded by ASCII word characters: "next" matches neither "nextjs" nor "next.js", yet does in "然后next"
    return rf"(?<![a-z0-9_])(?:{'|'.join(phrases)})(?![a-z0-9_]|[.-][a-z0-9])"


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
        r"(?:tests?|specs?|checks?|ci|builds?|lint(?:ing)?|type ?checks?)\s+(?:(?:now|all|are|is|still)\s+)*"
        r"(?:pass(?:es|ed|ing)?|green|succeed(?:s|ed)?)|\d+ (?:tests? )?passed",
        r"(?:is|are) now (?:working|fixed|passing|done|complete|in place|live|green)|now works?|works now",
    )
    + rf"|^(?:✅\s*)?{_words(_PAST, 'done|all done|all set|completed?|finished')}|✅|✔"
    r"|已经?(?:帮你|为你|替你|给你)?(?:完成|修复|修正|修好|添加|新增|加入|加上|更新|删除|删掉|移除|创建|建立"
    r"|新建|实现|提交|修改|改好|改成|改为|替换|重构|处理|解决|整理|写好|写入|编写|撰写|安装|配置|设置|设定"
    r"|合并|迁移|部署|推送|调整|优化|补充|补上|生成|产生|统一|切换|换成|还原|恢复|清理|更正|抽离|搞定|上线"
    r"|发布|改)|(?:改|修|做|写|弄|整理|搞|加|建|装|配|调|处理|准备|设置|更新|跑|测)好(?:了|啦|啰|喽|咯)"
    r"|搞定|完成了|提交了|(?:删|去|移|拿|干)掉了|(?:改|换|统一|更新|升级|降级)(?:成|为|到)了"
    r"|(?:加|放|写|移|挪|合并)(?:到|进|入|上)了|(?:测试|单测|用例|构建|编译|检查)(?:已经?|全部|均|都|也)*(?:通过|跑通)"
)
NOT_DONE_CUES = re.compile(
    _words("haven't|have not|hasn't|has not|didn't|did not|not yet|wasn't able|were not able|unable to|couldn't")
    + r"|还没|尚未|未能|没能|没有(?:完成|修复|通过)"
)
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
    r"|代替|而不是|取代|不再|放弃|方案[是为定:：]|定了|确定用|最终用|先不|暂时不|不要用|别用"
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
WEAK_NEXT_CUES = re.compile(_words("next|after that") + r"|下一步|接下来|然后再")
OFFER_CUES = re.compile(
    "^(?:"
    + _words("want me to|would you like me to|do you want me to|should i|shall i|i can also|if you(?:'d)? like")
    + r"|要不要我|需要我|是否需要)"
)
NOT_ITEM_CUES = re.compile(  # closing pleasantries and captions over what follows
    _words("let me know|feel free|happy to help") + r"|随时告诉我|如有|如果有任何|^(?:以下|如下|下面是)"
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
_UNFOLD = str.maketrans({simplified: traditional for traditional, simplified in _FOLD_PAIRS.items()})
# every branch a literal, so re skips ahead on the set of first characters
_CUE_PAIRS = re.compile("|".join({v for a in _CUE_ANCHORS.split() for v in (a, a.translate(_UNFOLD))}))
_CUE_BYTES = frozenset(word.encode() for word in _CUE_WORDS)
_PUNCTUATION = b'"`*_()[]{}<>.,:;!?~/|=#'
_PUNCTUATION_TO_SPACE = bytes.maketrans(_PUNCTUATION, b" " * len(_PUNCTUATION))

ACK = re.compile(
    r"(?:(?:thank you|thanks?|thx|ty|ok(?:ay)?|k|yes|yep|yeah|yup|y|sure|fine|great|perfect|nice|cool|awesome|good"
    r"|sounds good|looks good|lgtm|please|pls|continue|proceed|go on|go ahead|go|carry on|keep going|do it|do that"
    r"|right|correct|agreed?|alright|approved?|confirm(?:ed)?|hi|hello|hey|resume|retry|again|next|done|got it|wow"
    r"|hm+|ah|oh)(?![^\W\d_])|继续|谢谢|多谢|感谢|收到|明白|了解|你好|您好|开始|执行|同意|确认|没问题|没错|不错|可以|辛苦"
    r"|[好嗯是对行请吧啊呀了哈哦棒的太很做去嗨]|[\W_\d])+"
)
SLASH_COMMAND = re.compile(r"\s*/[A-Za-z][\w:.-]*(?:\s|$)")
POLITE = re.compile(
    r"^(?:(?:hi|hey|hello|ok(?:ay)?|so|and|also|now|please|pls|plz|kindly|(?:can|could|would|will) (?:you|u)"
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
