"""Cue phrases of a session's state that cues.py leaves out, in English and Chinese.

Reports in more forms, more ways a person settles the work, and what tells a step put off from what only sounds
like one: an absence, a rule for every time, a step the person takes on."""

from __future__ import annotations

import logging
import re

from incremind_daemon.pipeline.cues import (
    ACCEPT_CUES,
    ACK,
    BARE_REPORT,
    DECISION,
    DECISION_CUES,
    DONE,
    DONE_CUES,
    MORE_DONE_CUES,
    NEXT,
    NEXT_CUES,
    NOT_DONE_CUES,
    NOT_ITEM_CUES,
    OFFER_CUES,
    OVERRULE_CUES,
    PROPOSAL_CUES,
    REPORT_CUES,
    SIGNING_OFF,
    SLASH_COMMAND,
    WEAK_NEXT_CUES,
    fold,
    is_more_report,
    wordset,
)
from incremind_daemon.pipeline.lasting import REQUEST
from incremind_daemon.pipeline.markdown import CJK_RUN, LATIN_WORD, named_values, split_blocks, text_weight
from incremind_daemon.pipeline.organize import split_sentences

log = logging.getLogger(__name__)


def phrases(*phrases: str) -> str:
    # bounded by ASCII word characters, as cues.py bounds its phrases
    return rf"(?<![a-z0-9_])(?:{'|'.join(phrases)})(?![a-z0-9_]|[.-][a-z0-9])"


# what opens a report without adding to it: "好, PR #421。", "👍 Added …", "OK — pushed"
REPORT_LEAD = re.compile(r"^(?:(?:ok(?:ay)?|sure|yes|yep|好的?|行|嗯|👍|👌|🙂)(?:[\s,，.。!！:：]+|\s*[—–]\s*))+")
# done reports in forms cues.py leaves out: a subject and its participle ("addons.tf updated",
# "both files updated"), a participle without -ed ("Rewritten as bullets"), past tenses that look like the
# present ("I put it into build.sh", "I set …"), and Chinese verb-好了 and verb-了 of more verbs
# ("画好了：…", "我顺手跑了 `luaotfload-tool --update`", "导出了")
LATER_DONE_CUES = re.compile(
    r"^(?!(?:not|nothing|none|no|never|neither|nor)\b)[\w`'./-]+(?: [\w`'./-]+)? (?:updated|added|removed|fixed"
    r"|bumped|pinned|renamed|created|deleted|reverted|rewritten|regenerated|merged|pushed|committed)(?=$|[\s,;:.!—–(])"
    r"|^(?:rewritten|overwritten|rebuilt|reworded|rerun|redone|reordered)(?![a-z])"
    r"|^(?:(?:so|and|also) )?(?:i|we)(?:'ve| have)? (?:also |just |already )?(?:put|set|ran|kept|rewrote|reran|split)"
    r"(?![a-z])"
    r"|^[\u4e00-\u9fff]{1,2}好了|我(?:顺手|顺便|也|又|还|先|刚)?(?:跑|画|拷|导出|导|同步|生成|拉|重新跑)了"
    r"|(?:画|拷|导出|同步|生成|拉取|下载|上传)(?:好|完)了"
)
# a warning or an error the change made go away: "warning 没了", "the error is gone"
GONE = re.compile(
    r"(?:warning|warnings|error|errors|报错|警告|错误|告警)\s*(?:也|都|就)?(?:没了|没有了|消失了)"
    r"|(?<![a-z])(?:warnings?|errors?) (?:is |are )?(?:all )?gone(?![a-z])"
)
# a short report that gives only what a changed value now reads, once the turn's tools changed it:
# "Both files → 1.9.8.", "Header now: prod Wed 31 Mar"
# "Service port = containerPort in fx-quotes", "values-prod.yaml: `minReplicas: 2`, `maxReplicas: 4`"
_FILE_CAPTION = re.compile(r"`?[\w./-]+\.[a-z]{2,5}`?\s*[:：]\s*(?=\S)")
CHANGED_TO = re.compile(
    r"^[^→\n]{1,60}(?:→|->)\s*\S|^[\w`'./ -]{1,40} now\s*[:：]\s*\S|^[\w`'./ -]{1,40}\s=\s\S|^" + _FILE_CAPTION.pattern
)


def may_hold_later_done_cue(text: str) -> bool:
    """Tell quickly whether text may hold a report that only LATER_DONE_CUES, CHANGED_TO or GONE know."""
    if "→" in text or "->" in text or " = " in text or "好了" in text or ("了" in text and "我" in text):
        return True
    if "没了" in text or "消失了" in text or "gone" in text:
        return True
    head = text.lstrip("-*#>• \t\n`").lower()
    if _FILE_CAPTION.match(head):
        return True
    return head.startswith(("re", "i ", "we ", "so i", "and i", "also i", "overwritten")) or " now:" in head


# a bare report BARE_REPORT leaves out: "改了：", "加了。", "Changed:", "跑完了：", "Finished:"
_DONE_VERB = r"(?:补充|补|写|加|改|修|删除|删|换|调|挪|移|装|配置|配|更新|添加|修改|重命名)"
MORE_BARE_REPORT = re.compile(
    r"(?:好的?[，,\s]*)?(?:都|也)?(?:改|加|修|换|删|调|补|更新|修改|添加)了|(?:ok(?:ay)?[,\s]*)?changed"
    r"|(?:都|也)?(?:跑|测|装|部署|迁)(?:完|好)了|(?:all )?(?:finished|ran it|ran them)"
    # "已补上", "已经写好了", "都挪好了", "删掉了": a verb of change with what says it is done
    rf"|(?:好的?[，,\s]*)?(?:都|也)?(?:已经?(?:都|也)?{_DONE_VERB}(?:好|上|完|掉)?了?|{_DONE_VERB}(?:好|上|完|掉)了)"
)


def is_bare_report(head: str) -> bool:
    """Tell whether folded words only say that something was done: "Done", "改了", "Changed"."""
    return any(cue.fullmatch(head) for cue in (BARE_REPORT, MORE_BARE_REPORT))


def is_bare_caption(text: str) -> bool:
    """Tell whether a paragraph is a bare report over a list of what was done: "跑完了：", "Changed:"."""
    head = fold(text.strip())
    if not head.endswith((":", "：")):
        return False
    return is_bare_report(head[:-1].strip())


# a caption that announces the changes listed under it: "两件事一起改：", "改两处：", "I'll change three things:",
# "Two changes:"; once the turn's tools changed files, each item under it is done
_ANNOUNCE_CAPTION = re.compile(
    r"(?:^|[，,\s])(?:[\u4e00-\u9fff]{0,8}(?:一起|都|分别|这样|如下)?(?:改|加|修|换|删|调|更新|修改|处理)(?:一下|了)?)$"
    r"|(?<![a-z])(?:i'll|i will|let me|i'm going to)\b[^:：]{0,40}$"
    r"|^(?:(?:ok(?:ay)?|sure|got it)\W+)?(?:two|three|four|both|the|my) (?:changes|fixes|edits|things)\b[^:：]{0,30}$"
)


# a caption over the report that follows it: "Here's what I changed and why:", "改动如下："
_REPORT_BELOW = re.compile(
    r"^(?:here(?:'s| is) )?what (?:i|we) (?:changed|did|fixed|added)\b|^(?:改动|修改|变更)(?:如下|是这些)"
    r"|^(?:我)?(?:改|做)了(?:这些|以下|如下)"
)


def says_done_only(text: str) -> bool:
    """Tell whether a turn's opening paragraph only says the work is done: "Done. Here's what I changed and why:"."""
    said = [fold(s.text).strip(" .。!！:：") for s in split_sentences(text.strip()[:300])]
    if not said or not (is_bare_report(said[0]) or said[0] in ("done", "all done", "好了", "搞定")):
        return False
    return all(_REPORT_BELOW.match(rest) for rest in said[1:] if text_weight(rest) >= 1)


def captions_done(text: str, *, changed: bool) -> bool:
    """Tell whether a paragraph captions a list of what was done: "跑完了：", or "两件事一起改：" once files changed."""
    if is_bare_caption(text):
        return True
    head = fold(text.strip())
    if not changed or not head.endswith((":", "：")) or len(head) > 60:
        return False
    return _ANNOUNCE_CAPTION.search(head[:-1].strip()) is not None


# a person's sentence that settles the work in a form cues.py leaves out: one value over another
# ("times in SGT please, not UTC", "vector PDF, not PNG"), a "no X" rule ("no CPU limits on anything",
# "no force unwraps in app code please"), a permission ("read-only kubectl on prod is fine", "慢点没关系"),
# and keeping or dropping a thing ("pino-http 留着吧", "codemod 算了", "keep the SQLAlchemy layer")
_NOT_A_VALUE = (
    "yet|now|today|tonight|really|sure|just|only|that|this|it|a|an|the|all|everything|always|much|bad|great|good"
    "|so|too|even|quite|exactly|necessarily|me|us|you"
)
_NO_NOT_A_RULE = "idea|worries|problem|luck|need|rush|clue|way|thanks|change|changes|one|more|longer|matter|doubt"
STILL_MORE_SETTLE_CUES = re.compile(
    rf"[\w`'\")]\s*(?:please |pls )?,\s*not (?!(?:{_NOT_A_VALUE})\b)[\w`'\".-]"
    rf"|(?:^|[:：—–]\s*)(?:and |but |also |so )?no (?!(?:{_NO_NOT_A_RULE})\b)[a-z][\w.-]*(?: [a-z][\w.-]*){{0,3}}"
    r" (?:in|on|for|anywhere|anymore|please|pls|at all|ever|unless)\b"
    r"|(?<!\bthat)(?<!\bthis)(?<!\bit)(?<!\bwhich)(?<!\ball)(?<!\beverything)(?<!\bthat's)"
    r" (?:is|are) (?:totally |perfectly |also )?(?:fine|ok|okay|allowed|acceptable)(?![a-z])"
    r"|^(?:and |also |so |but |just )?keep (?!going|on\b|it up\b)(?:the |our |using )?[\w`'.-]+"
    # (not a count gone wrong: "我怀疑是重复算了", "多算了一笔")
    r"|[\w`'.)\]]\s*(?:就|也)?(?:(?<![复多少漏又错])算了|留着|保留着|不用管|没关系)"
)
_STILL_MORE_SETTLE_WORDS = ("not ", "no ", "fine", "ok", "allowed", "acceptable")
_STILL_MORE_SETTLE_CJK = ("算了", "留着", "保留着", "不用管", "没关系")


# a value set over the one before it ("bump chart version 0.7.2 -> 0.8.0", "timeout from 3s to 5s"), and a
# thing left as it is ("so leave `image.tag: ""` empty in the values files", "这个字段留空", "版本号保持不变")
SET_VALUE_CUES = re.compile(
    r"[\w.`'\")]\s*(?:->|→|=>)\s*`?v?\d|(?<![a-z])from `?v?\d[\w.]*`?\s*(?:[a-z%]+ )?to `?v?\d"
    r"|(?:^|(?<![a-z])(?:so|just|please|pls|and|but|then) )leave (?!(?:it|this|that) to\b)"
    r"(?:`[^`]{0,40}`|[^,.;!?`]){0,48}?"
    r"(?<![a-z])(?:empty|blank|unset|alone|as is|as-is|untouched|in place)(?![a-z])"
    r"|留空|保持原样|保持不变|原样保留"
    # a value moved to a new one: "min deployment target goes to iOS 17", "timeout 放宽到 180 秒"
    r"|(?<![a-z])(?:goes|went|moves|is going) (?:down |up |back )?to (?:[\w.-]+ )?v?\d"
    r"|(?:放宽|延长|缩短|增加|减少|扩大|缩小|提高|降低|加到|减到|放到)到?\s*v?\d"
    # a bound on a value: "max 24h, anything longer needs a change ticket", "每次最多 3 个", "不超过 60 秒"
    r"|(?<![a-z])(?:max(?:imum)?|min(?:imum)?|at most|at least|no more than|no longer than|capped at)\s*`?\d"
    r"|(?:最多|最少|至多|至少|不超过|不能超过|上限|下限)(?:是|为)?\s*\d"
    # a rule the person states as one: "Policy for cases like this: …", "one minute late counts as a full day late"
    r"|^(?:our |the |my )?(?:policy|rule|convention)s?(?: (?:for|on) [^:：]{1,40})?\s*[:：]"
    r"|^(?:规则|规定|约定|原则)\s*[:：]"
    r"|(?<![a-z])(?:counts as|is treated as|are treated as)(?![a-z])|(?:一律|都)?(?:算作|算成|按[^，。,]{1,12}算)"
    # a side matter the person drops: "ok 不管了 test data 的锅", "never mind the warning, not our problem"
    r"|(?:^|[\s,，。!！])(?:先|就)?(?:不管了|不用管了|别管了|不管它了?)"
    r"|(?<![a-z])(?:never ?mind|not (?:our|my) problem)(?![a-z])"
)


# the house way, a value put right and a manner of answer: "secrets through external-secrets like everything
# else", "照老规矩", "payments isn't P3XK2LM there, it's the team payments-core-oncall", "shorter answers pls"
HOUSE_CUES = re.compile(
    phrases(
        r"like everything else|like (?:all|every) (?:the )?others?|as (?:always|usual)|same as (?:always|the others?)"
    )
    + r"|跟(?:其他|别的)(?:的|项目|服务|仓库)?一样|照旧|老规矩"
    r"|(?<![a-z])(?:isn't|is not|aren't|are not|wasn't|was not)\s+[^,.;!?]{1,40},\s*(?:it's|it is|they're|they are"
    r"|that's|but)(?![a-z])"
    # where a thing is kept: "source of truth is 1Password: vault SRE", "secret 都在 1Password 的 vault 里"
    r"|(?<![a-z])(?:source of truth|(?:lives?|is kept|are kept|is stored|are stored) in)(?![a-z])"
    r"|都(?:在|放在|存在)[^，。,;；]{1,48}里"
    r"|^(?:shorter|briefer|simpler|fewer|less|more concise|terser) (?:answers?|replies|responses|messages"
    r"|explanations?|words)(?![a-z])"
)


# a choice the person leaves to the agent ("control 那边用哪个 seed 你定就行", "message 你来写", "your call"), a good
# idea put off ("a good idea, but not today"), what goes first ("ch4 work takes priority over polishing ch5") and a
# rule to keep ("迟交政策你记一下：…"), leave given ("you can push feature branches yourself now") and what is not
# allowed beside what is (".env.local 可以，.env 不行", "for this PR skip the README")
LEFT_CUES = re.compile(
    r"你(?:来)?(?:定|决定|写|选|挑|看着办)(?:就行|就好|吧|了)?(?:$|[\s,，。.!！])"
    r"|(?:你)?记(?:一下|住|下来)|(?:但|不过)(?:是)?(?:今天|现在|这次)(?:先)?(?:不|别)"
    r"|(?<![a-z])(?:but )?not (?:today|now|this time|for now)\W*$|^not (?:the )?[\w`.-]+ this time\b|优先"
    r"|[，,]\s*[\w.`-]{1,20}\s*(?<!还是)(?<!仍然)(?<!依然)(?<!也)(?<!都)不行(?![吗吧啊了])"
    + r"|"
    + phrases(
        r"your call|up to you|you (?:pick|decide|choose)|you write (?:it|the message)|takes? priority over"
        r"|comes? first|(?:is|are) (?:the )?(?:top )?priority|note (?:that|this)|remember (?:that|this)"
        r"|you can (?:push|merge|commit|deploy|run|install|delete|open|apply|use|add|edit|change|skip|drop|tag)"
        r" [^,.;]{0,40}?(?:yourself|on your own|now)|for this (?:pr|mr|branch|change|one),? (?:skip|no)"
    )
)


def settles_still_more(folded: str) -> bool:
    """Tell whether a person's folded sentence settles the work in a way only the cues above know."""
    hinted = "keep " in folded[:10] or any(word in folded for word in _STILL_MORE_SETTLE_WORDS)
    hinted = hinted or (not folded.isascii() and any(word in folded for word in _STILL_MORE_SETTLE_CJK))
    if hinted and STILL_MORE_SETTLE_CUES.search(folded) is not None:
        return True
    if SET_VALUE_CUES.search(folded) is not None and not _PRAISED.match(folded):
        return True  # "timeout 30 → 60"; not "Nice, 4s → 2ms", a result the person is glad of
    return any(cue.search(folded) is not None for cue in (HOUSE_CUES, LEFT_CUES))


# a reaction to what the agent reports: "Nice, …", "太好了，…"
_PRAISED = re.compile(
    r"(?:nice|great|perfect|awesome|sweet|cool|wow|excellent|lovely|beautiful|neat)\b[\s,!.—–-]"
    r"|(?:好耶|太好了|不错|漂亮|厉害|牛|赞)[，,！!。\s]"
)
# how someone feels about it: "我媽看到這些一定很開心", "she'll love it", "so happy with this"
_FEELS = re.compile(
    r"(?<![a-z])(?:happy|glad|excited|thrilled|relieved|love (?:it|this|that)|loves (?:it|this|that))(?![a-z])"
    r"|开心|高兴|激动|太棒|感动|欣慰|爽"
)


def feels_only(folded: str) -> bool:
    """Tell whether a sentence only says how someone feels or reacts, which no step or decision points back to."""
    return (_PRAISED.match(folded + " ") is not None and len(folded) < 24) or _FEELS.search(folded) is not None


# What follows tells a step put off from what only sounds like one.

# an object named by pronoun, though "Kevin 他们组的" names a group beside its member
OBJECT_PRONOUN = re.compile(phrases(r"it|them|him|her|he|she|they|that one|this one") + "|[他她它](?![们們])")
# a step that finds out what the sentence before asks: "…, or does Starlight emit them? check that next time"
CHECKS_THAT = re.compile(
    phrases(r"(?:check|verify|confirm|look into|find out|figure out|test) (?:that|this|it)")
    + "|(?:查|确认|看|试)一下(?:这个|那个)?"
)
# a step that points at what was proposed: "yep, do that tomorrow", "明天再弄这个", "不用，周一早上再跑"
POINTED_STEP = re.compile(phrases(r"do (?:that|this)") + r"|(?:做|弄|搞)(?:这个|那个)|再(?:跑|弄|做|搞|试)吧?(?=\W|$)")
# the person says when they are away, which is no step of the work: "明天我请假, 周五回来", "I'm off tomorrow"
ABSENCE_CUES = re.compile(
    phrases(r"on leave|out of (?:the )?office|ooo|pto|day off|on (?:vacation|holiday)|i'm (?:off|out|away)")
    + r"|请假|休假|调休|出差|放假|不在(?:公司|办公室|电脑前)?"
)
# a rule that holds every time, which is no step even when it says who does it when: "数据和结果文件一律不删,
# 要清理就挪到 ~/trash/ 里, 我自己定期清", "never run apply, I do it myself"
STANDING_CUES = re.compile(
    phrases(
        r"always|never|from now on|going forward|whenever|any repo|every repo|all (?:my )?repos"
        r"|every (?:time|day|night|week|month|(?:mon|tues|wednes|thurs|fri)day)"
    )
    + r"|一律|今后|每次|永远|始终|从来|所有(?:的)?(?:项目|仓库|repo)|都一样|每(?:周|天|晚|个?月|个?星期)"
)
# a step the person takes on themselves after the session, which LATER_CUES leaves out: "我把 crash 和 diff 转给他",
# "我跟运维确认一下", "I'll forward it to Priya", "I'll sort it out with him"
PERSON_STEP_CUES = re.compile(
    phrases(
        r"i'll (?:forward|send|pass|tell|ping|talk to|check with|follow up|sort (?:it|this|that) out|take care of"
        r"|raise|bring|loop in|point|show|email|message)"
        # a step that waits on someone: "once Dev confirms he can read them I'll point him at that folder"
        r"|once [a-z]+ (?:confirms|approves|replies|signs off|gets back)"
    )
    + r"|我(?:来|会|去|再|先)?把[^，。！？,!?]{1,24}?(?:转给|发给|交给|转发给|同步给|告诉)"
    # a step the person takes in a moment: "STAGING_HOST 变量我等下去改", "我待会儿再看"
    r"|我(?:等下|等一下|等会儿?|待会儿?|一会儿?)(?:再|去|就|自己)?"
    # a pull request or a ticket the person opens: "那我开 PR 了", "我去提个 issue"
    r"|我(?:就|先|去|来|这就)?(?:开|提|发|建)(?:个|一个)?\s*(?:pr|mr|issue|ticket|工单)(?![a-z])"
    # …or names it first: "行，MR 我自己提", "PR 我晚点开"
    r"|(?<![a-z])(?:pr|mr|issue|ticket|工单)\s*我(?:自己|来|去|就|先|晚点|等下|待会儿?|回头|明天)*(?:开|提|发|建)"
    # the rest of the work the person takes over: "剩下的我手动一个个迁", "I'll do the rest by hand"
    r"|剩下的?(?:这些|那些|几个)?(?:我|我们)(?:来|自己|手动)?|"
    + phrases(r"(?:i'll|i will|we'll) (?:do|handle|migrate|finish|take|fix|move) the rest|the rest i'll")
    + r"|我(?:去|来|会|再)?(?:跟|和|找)[^，。！？,!?]{1,12}?(?:说一下|说一声|聊|确认|对一下|商量|沟通)"
)
# more that a person says to end a session, which CLOSING_WORDS leaves out: "ok 今天就这些 谢", "that's everything"
MORE_CLOSING_WORDS = re.compile(
    phrases(r"that's everything|nothing else|all good|we're done|done for (?:today|now|tonight|the (?:day|night|week))")
    + r"|(?:今天)?(?:就|先)这些(?:了|吧)?|没(?:有)?别的了?|今天(?:就)?(?:到这儿?|这样)(?:了|吧)?|收工"
)

# a reply that lets a side matter go, which opens no exchange of its own: "ok 不管了 test data 的锅", "never mind"
_DROPPED = re.compile(
    r"(?:^|[\s,，。!！])(?:先|就)?(?:不管了|不用管了|别管了|不管它了?)|"
    + phrases(r"never ?mind|not (?:our|my) problem|not worth it")
)


def drops_side_matter(folded: str) -> bool:
    """Tell whether a short folded sentence only lets a side matter go: "ok 不管了 test data 的锅"."""
    return text_weight(folded) <= 10 and _DROPPED.search(folded) is not None


# what a person says while leaving, so the rest of the sentence is their own plan, no step of the work:
# "晚上还要背单词 先撤了", "gotta run, dentist at 4", called away ("later, standup now", "wait my mum calling")
LEAVING_CUES = re.compile(
    phrases(
        SIGNING_OFF,
        r"gotta (?:go|run)|(?:have|got) to (?:go|run)|gonna go|going to go|off to (?:eat|lunch|dinner|bed|sleep)"
        r"|(?:grab|grabbing|getting) (?:lunch|dinner|food|a bite)|(?:standup|meeting|call) now|(?:mum|mom|boss) calling"
        r"|off for (?:lunch|dinner|the day|today)|calling it a (?:day|night)|done for (?:the day|today|tonight)",
    )
    + r"|先?撤了|下线了|先下了|溜了|先走了|下班了|睡觉去|(?:^|[\s，,])[先去要]?睡了|先休息了?|掰掰|ㄅㄅ|zzz"
    r"|(?<!\d)886(?!\d)|去吃(?:个|点)?(?:饭|午饭|晚饭|东西)|吃(?:个|点)?(?:午|晚)?饭去"
)

# "好，先这样", "今天先到这": the person stops here, unless the same words put this work off
# ("今天先这样，脚本明天再弄"); not "先这样做", "先到这个目录"
_STOPS_HERE = re.compile(
    r"先这样(?!做|写|改|弄|处理)|(?:今天)?(?:就|先)到这(?:里|儿)?(?![个些样])|"
    + phrases(r"that's it for (?:today|now|the day)|let's (?:stop|leave it) (?:here|there)(?: for (?:today|now))?")
)
_PUT_OFF = re.compile(r"再|回头|明天|改天|下次|晚点|晚些|稍后|" + phrases(r"tomorrow|tmrw|later"))
_CAN_WAIT = re.compile(phrases(r"can wait|will wait|can keep"))


def is_leaving(folded: str, context: str) -> bool:
    """Tell whether a sentence says the person leaves, naming nothing of the work in context: "gonna go eat"."""
    cue = LEAVING_CUES.search(folded) or (None if _PUT_OFF.search(folded) else _STOPS_HERE.search(folded))
    if cue is None:
        return False
    rest = folded[: cue.start()] + " " + folded[cue.end() :]  # "calling it a day": its "it" is no thing of the work
    if named_values(rest) or OBJECT_PRONOUN.search(rest) or _CAN_WAIT.search(rest):
        return False  # "…, the painter labels can wait till the weekend" leaves a thing of the work for later
    # "明天再补测试 先撤了" names the tests the agent just spoke of; "晚上还要背单词" names nothing of the session
    return _named(rest).isdisjoint(_named(fold(context[-2000:])))


_COMMON = wordset(
    "the and for are was were been being this that these those with from how what which who does did can could"
    " should would you your our its has have had not but all any then than them they there here will just also"
    " some more now out into about after before when"
)


def _named(folded: str) -> set[str]:
    words = (part for word in LATIN_WORD.findall(folded) for part in re.split(r"[_.]", word))  # make_feedback.py
    latin = {word.casefold() for word in words if len(word) >= 3} - _COMMON  # "the" names nothing of the work
    return latin | {run[i : i + 2] for run in CJK_RUN.findall(folded) for i in range(len(run) - 1)}


# a yes and "later", with nothing to do later: "ok 知道了，回头再说", "ok, later", "not now", "that's it, thx"
_ONLY_LATER = re.compile(
    r"^(?:(?:ok(?:ay)?|好的?|好吧|行吧?|嗯+|哦+|知道了|了解|明白了?|收到|那|got it|sure|fine|alright)"
    r"[\s,，。.!！~～]*)*"
    r"(?:(?:回头|以后|之后|改天|下次|晚点|有空)?再说(?:吧|了|啦)?|(?:maybe )?later|let's see|we'll see|not now"
    r"|that's (?:it|all)(?: for (?:today|tonight|now))?|收工了?|今天(?:就)?到这(?:里|儿)?(?:吧)?)"
    r"(?:[\s,，。.!！]*(?:thx|thanks|谢谢|辛苦了?))?$"
)


def only_put_off(folded: str) -> bool:
    """Tell whether a sentence says only "later", naming nothing to do: "ok 知道了，回头再说"."""
    return _ONLY_LATER.match(folded.strip(" .。!！~～")) is not None


def is_done(folded: str) -> bool:
    """Tell whether a folded sentence reports work done: "Fixed the redirect", "好, PR #421。"."""
    if NOT_DONE_CUES.search(folded) or _APOLOGY.match(folded):
        return False
    # "好, PR #421。", "👍 Added …", "`model/metrics.py`：新增 …": read past the yes, or the file, it opens on
    lead = REPORT_LEAD.match(folded) or _FILE_CAPTION.match(folded)
    return any(_reports(text) for text in ((folded, folded[lead.end() :]) if lead else (folded,)))


# the agent owning up to a mistake the person corrected, which reports no work: "抱歉，已确认端口是 8443"
_APOLOGY = re.compile(
    r"(?:抱歉|对不起|不好意思|(?:sorry|my bad|apologies)\b)[\s,，.。!！—-]*"
    r"(?:已(?:经)?确认|确认了|记下了|明白|了解|你说得对|您说得对|(?:you're|you are) right|noted|understood|confirmed)"
)


def _reports(folded: str) -> bool:
    cues = (DONE_CUES, MORE_DONE_CUES, REPORT_CUES, LATER_DONE_CUES, GONE)
    return any(cue.search(folded) for cue in cues) or is_more_report(folded)


# the words that only say a step is next, which tell nothing of what it is
_STEP_WORDS = frozenset(("next", "step", "steps", "then", "yes", "yeah", "now", "下一", "一步", "接下", "下来", "然后"))


def is_carried_out(step: str, after: str, *, asked: bool = False) -> bool:
    """Tell whether the agent's answer reports a step done: "Yes, feedback file next", then "I changed …".

    asked: the step asks the agent for the work ("然后帮我画一张…图，下周的 slides 要用"), so an answer that reports
    work and names two of its words did it, however many more words the ask spends on what it is for.
    """
    words = _named(fold(step)) - _STEP_WORDS
    if not words:
        return False
    reports = (
        sentence.text
        for block in split_blocks(after[:4000])
        for sentence in split_sentences(block.text)
        if is_done(fold(sentence.text)) and not sentence.text.rstrip().endswith(("?", "？"))
    )
    # the answer that reports work names what the step named, in its report or in what it shows
    shared = len(words & _named(fold(after[:4000])))
    return next(reports, None) is not None and (shared >= 0.5 * len(words) or (asked and shared >= 2))


# the person says the result is right, which opens no exchange of its own: "better. thx", "works now, thanks"
# (ACK reads "好多了", "可以了" already)
RESULT_ACK = re.compile(
    phrases(r"(?:(?:much|way|a lot) )?better|(?:that |it )?works(?: now)?|looks (?:good|right|better) now")
)

# a plan caption heads what it proposes ("Plan: …", "my plan: …", "方案：…"); after a report it names a tool's
# result instead: "addons.tf updated, plan: 0 to add, 3 to change", "改好了，terraform plan：0 个新增"
_CAPTION = re.compile(r"(?:plan|计划|方案)\s*[:：]")
_CAPTION_OWNER = re.compile(r"(?:^|(?<![a-z])(?:my|our|the|a|new|revised|here's|here is)\s+|我的|我们的|新的|这个)$")


def proposes(folded: str) -> bool:
    """Tell whether a folded sentence proposes, a plan caption counted only where it heads what follows."""
    for match in PROPOSAL_CUES.finditer(folded):
        if not _CAPTION.fullmatch(match.group()):
            return True
        before = folded[: match.start()].strip(" \t-*#>•`")
        if _CAPTION_OWNER.search(before):
            return True
    return False


# a caption over context the person gives on the way in, which openers.SCENE_CAPTION leaves out: "quick context: …",
# "some background first: …", "先说下背景：…", "交代一下背景，…"
CONTEXT_CAPTION = re.compile(
    r"^(?:(?:quick|some|a bit of|a little|brief|short|for) )?(?:context|background)(?: first)?\s*[:：,，-]"
    r"|^(?:先|简单)?(?:说下|说一下|讲下|讲一下|交代一下|交代下|介绍一下|介绍下|补充一下|补充下)?(?:一下)?背景(?:信息|一下)?\s*[:：,，]"
)


# a lead that asks the agent for work, so what follows is the ask: "帮我把 fetchPlans 改成 async/await",
# "can you switch to async/await"; after "please" or "请" only a request is one ("please always use tabs" sets a rule)
_GREETED = r"^(?:(?:hi|hey|ok(?:ay)?|so|and|also|now|then)[\s,!.]+)*"
_ASK_LEAD = re.compile(
    _GREETED + r"(?:(?:can|could|would|will) (?:you|u)|help me|i(?:'d| would) like you to|i (?:want|need) you to)"
    r"(?![a-z'])[\s,]*(?:please )?"
    r"|^(?:然后|另外|还有|顺便|再)?[\s,，]*(?:麻烦你?|能不能|能否|可不可以|帮我们?|帮忙)(?:帮我们?)?\s*"
)
_PLEASE_LEAD = re.compile(_GREETED + r"(?:please|pls|plz|kindly)(?![a-z'])[\s,]*|^请你?\s*")
# an ask that names what it replaces is the person's change of plan: "can you use SQLite instead of Postgres"
_REPLACES = re.compile(
    phrases(r"instead|rather than|no longer|scratch that|on second thought|change of plans?|not")
    + r"|而不是|代替|取代|不再|放弃|不用|别用|不要用"
)


# an ask that sets a value binds the work after it as a choice does: "can you change the timeout to 5s",
# "帮我把超时改成 5 秒", "bump it 0.7.2 -> 0.8.0"
_SETS_NUMBER = re.compile(
    r"(?:改成|改为|换成|设成|设为|调成|调到|改到|(?<![a-z])(?:to|at))\s*`?v?\d|(?:->|→|=>)\s*`?v?\d"
)
_ASK_CLAUSE = re.compile(r"[,，;；]\s*|\s[—–]\s")


def opens_ask(folded: str) -> bool:
    """Tell whether a person's folded sentence opens by asking the agent for work: "然后帮我画…", "can you …"."""
    lead = _ASK_LEAD.match(folded)
    return lead is not None and lead.end() > 0


_ASK_WITHIN = re.compile(
    r"(?:顺手|顺便)(?:帮|给)我们?|[，,：:]\s*再?(?:帮我们?|麻烦你)|再补一句|还要(?:加|补|写)(?:一个|个)?"
)


def asks_for_work(folded: str) -> bool:
    """Tell whether a person's folded sentence asks the agent for work, at its opening or after a lead-in: "下周三周会
    我要讲成本分析，…顺手帮我导个 csv", "测试那条再补一句：…还要加一个 recency 测试"."""
    return opens_ask(folded) or _ASK_WITHIN.search(folded) is not None


def is_asking(folded: str) -> bool:
    """Tell whether a person's folded sentence only asks the agent for work: "帮我把 X 改成 Y"."""
    lead = _ASK_LEAD.match(folded) or _PLEASE_LEAD.match(folded)
    if lead is None or lead.end() == 0 or _REPLACES.search(folded) or _SETS_NUMBER.search(folded):
        return False
    if STANDING_CUES.search(folded):
        return False  # "can you always run the linter first": a rule for every time
    first, *rest = _ASK_CLAUSE.split(folded[lead.end() :])
    # "幫我 commit 就好，commit message 用 Conventional Commits": a rule said with the ask settles the work
    others = (clause for clause in rest if text_weight(clause) >= 2)
    asked = lead.re is _ASK_LEAD or REQUEST.search(first) is not None
    return asked and all(REQUEST.search(clause) for clause in others)


# a reply that stops the agent in forms OVERRULE_CUES leaves out: "等下 你怎么又直接装包了", "hold up, why axios"
MORE_OVERRULE = re.compile(
    r"^(?:等下|等会儿?|慢着|且慢|你怎么又|怎么又)|^" + phrases(r"hold up|whoa|why did you again")
)


def overrules(folded: str) -> bool:
    """Tell whether a reply opens by turning the agent down: "不对，…", "No — …", "等下 你怎么又…"."""
    return OVERRULE_CUES.match(folded) is not None or MORE_OVERRULE.match(folded) is not None


def is_ack_or_command(text: str) -> bool:
    """Tell whether a person's turn only acknowledges or runs a command: "ok thx", "/clear"."""
    stripped = text.strip()
    if not stripped or SLASH_COMMAND.match(stripped):
        return True
    if len(stripped) > 60 or ACK.fullmatch(fold(stripped)) is None:
        return False
    return not any(char.isdigit() for char in stripped)  # "Yes, 100." and "2" answer with a value


def strip_prefix(pattern: re.Pattern[str], text: str) -> str:
    """Drop the opener pattern matches at the start of text, unless nothing would be left."""
    text = text.lstrip()
    match = pattern.match(fold(text[:400]))  # the fold keeps offsets, so they cut the original
    rest = text[match.end() :] if match else text
    return rest if text_weight(rest[:80]) >= 1 else text


_EMPTY_YES = re.compile(
    phrases(r"let'?s do (?:it|that|this)|go ahead|go for it|sounds? good|do (?:it|that)|ship it")
    + r"|就这么(?:办|弄|定|做|来)了?|就这样(?:吧|办)?"
)


def only_yes(folded: str) -> bool:
    """Tell whether the person's words only say yes: "可以，就这么办", "yes, let's do that" (not "ok 加 default")."""
    yes = ACCEPT_CUES.match(folded)
    rest = _EMPTY_YES.sub(" ", folded[yes.end() :]) if yes else ""
    return yes is not None and text_weight(rest) < 3 and not LATIN_WORD.search(rest) and not named_values(rest)


# "没有遗留的 TODO", "nothing left to do": a next-step word that says there is none
_NOTHING_LEFT = re.compile(
    r"(?:没有|无|没)(?:任何)?(?:遗留|剩下|剩余|未完成)的?\s*(?:todo|待办|问题|工作|事项)?"
    r"|(?<![a-z])(?:nothing (?:left|remaining|pending|else to do)|no (?:remaining|open|pending|outstanding) "
    r"(?:todos?|items?|work|tasks?)|no todos?)(?![a-z])"
)


def classify_item(item: str, role: str, hint: str | None, round_end: bool) -> str | None:
    """Return the kind a turn's sentence reads as by its cue words alone: done, decision, next, or none.

    ``hint``: the kind its caption gives ("Implemented:"); ``round_end``: the agent's last reply of a round,
    where "next, I'll …" tells the step after the session rather than the next tool call.
    """
    if text_weight(item) < (2 if hint is not None else 3):  # "- commit `8f2c1d4`" under "本次變更摘要："
        return None
    folded = fold(item)
    if NOT_ITEM_CUES.search(folded) or _NOTHING_LEFT.search(folded):
        return None
    if round_end and role == "assistant" and OFFER_CUES.search(folded):
        return NEXT
    if folded.endswith(("?", "？")):
        return None
    if hint is not None:
        return hint
    weak_next = round_end or role == "user"
    if NEXT_CUES.match(folded) or (weak_next and WEAK_NEXT_CUES.match(folded)):
        return NEXT  # "TODO: switch to TOML" is an open item before it is a decision
    if DECISION_CUES.search(folded):
        return DECISION
    if role == "assistant" and DONE_CUES.search(folded) and not NOT_DONE_CUES.search(folded):
        return DONE
    # a next-step word inside a condition says when, not what is next: "对账文件如果凌晨 3 点还没到，就发告警"
    unconditional = without_conditions(folded)
    if NEXT_CUES.search(unconditional) or (weak_next and WEAK_NEXT_CUES.search(unconditional)):
        return NEXT
    return None


_CONDITION = re.compile(r"(?:如果|要是|假如|万一|(?<![a-z])(?:if|unless|in case)(?![a-z]))[^，,。；;:：]*")


def without_conditions(folded: str) -> str:
    """Return a folded sentence without its condition clauses ("如果 3 点还没到", "if it's not there by 3")."""
    return _CONDITION.sub(" ", folded)
