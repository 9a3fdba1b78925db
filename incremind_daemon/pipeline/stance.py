"""Whether two statements disagree: what each turns down, uses, criticises or numbers otherwise.

A negation turns down the one thing right after it ("not redux", "不想上 redux", "don't mock the
db"); a thing turned down flips only against a text that says to use it. A criticism is about
what precedes it ("fixed intervals are too coarse"); a change of plan ("switch to", "改成") names
what replaces; opposite words (fixed / adjust, always / never) and another number for the same
thing disagree too. Words that say a thing is said again ("like I said", "还是那句话") say
nothing of what it is.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Set

from incremind_daemon.pipeline.amounts import different_numbers, measured_apart
from incremind_daemon.pipeline.cues import FROM_DAY_ON, MOVED_TO, WEEKDAY, bounded, fold
from incremind_daemon.pipeline.features import CONCEPT_NAMES, Features, features_of, keys_of, numbers_of
from incremind_daemon.pipeline.opposites import opposed

log = logging.getLogger(__name__)

_FOCUS_LINK = 0.5  # a contradicted phrase this much about a known topic links to it, however short
_REMINDER = re.compile(r"(?:don't|do not|never) forget|别忘了?|不要忘了?|别忘记|不要忘记")


def flipped(mine: str, theirs: str, shared: Iterable[str], my_negated: Set[str], their_negated: Set[str]) -> bool:
    """Tell whether one side turns down a thing the other uses, or a value the other states.

    A thing merely mentioned beside a negation ("不要给我 npx / npm 的指令" names npm without
    using it) is not turned around by "not npm"; nor is one a side both uses and turns down
    ("用 uv add，不要用 uv pip install" beside "use uv for everything").
    """
    my_used, their_used = used(mine), used(theirs)
    # a thing given up ("R2 不用了") where the other relies on it by any verb ("全部丢 R2 的 bucket")
    my_dropped, their_dropped = dropped(mine), dropped(theirs)
    # both give the same value ("port stays 8443" beside "8443, not 8080"): another number is a side note
    agreed = any(
        k.startswith("#") and k not in my_negated | their_negated and _stated(k[1:], mine) and _stated(k[1:], theirs)
        for k in shared
    )
    for key in shared:
        either_way = key in my_negated & my_used or key in their_negated & their_used
        if (key in my_negated) == (key in their_negated) or either_way:
            continue
        if (
            (key.startswith("#") and not agreed)
            or (key in my_negated and key in their_used | (my_dropped - their_dropped))
            or (key in their_negated and key in my_used | (their_dropped - my_dropped))
        ):
            return True
    return False


def switched_from(text: str) -> frozenset[str]:
    """Return the named things a text says it switches away from: "switching the scheduler from SM-2 to FSRS"."""
    found = _SWITCHED_FROM.finditer(fold(text))
    return frozenset(key for match in found for key in keys_of(features_of(match.group("thing") or match.group("zh"))))


def dropped(text: str) -> frozenset[str]:
    """Return the named things a text says are given up: "R2 不用了", "poetry 以后不用了", "PagerDuty is out"."""
    # …and "So scrap Formspree", "we ditched Jenkins", "弃用 Detox"; not a bare "drop", which also filters
    # ("drop genes seen in fewer than 3 cells")
    return _given_up(fold(text), bare_drop=False)


def _given_up(folded: str, *, bare_drop: bool) -> frozenset[str]:
    """The named things a folded text gives up ("R2 不用了", "scrap Formspree"); with ``bare_drop``, "drop X" too."""
    out = {key for match in _DROPPED.finditer(folded) for key in keys_of(features_of(match.group(1)))}
    for match in _DROPPING.finditer(folded):
        if bare_drop or not _BARE_DROP.match(match.group(0)):
            named = match.group("thing") or match.group("zh") or match.group("via") or match.group("ripped")
            out.update(keys_of(features_of(named)))
    return frozenset(out)


def _stated(number: str, text: str) -> bool:
    """Tell whether a number stands as a value in a text, not as part of a name ("v1", "BM25")."""
    return re.search(rf"(?<![\w.]){re.escape(number)}(?![\w.])", text) is not None


# what runs a module is not what is used: "别再用 python -m unittest 了" turns down unittest
_LAUNCHED = re.compile(r"(?<![\w.-])python3?\s+-m\s+(?=[a-z])")
# "from now on DI 用 Koin" says when, and its "on" uses nothing
_FROM_NOW_ON = re.compile(r"(?<![a-z])(?:from now|from here|from today|from tomorrow|later) on(?![a-z])")


def used(text: str, *, imperative: bool = True) -> frozenset[str]:
    """Return the named things a text says to use: after a verb of use, held better, or an imperative's verb.

    ``imperative``: the first word counts as the verb of an imperative ("pnpm everything"), which
    also takes a subject for a thing used ("staging is at …"); without it, only a verb of use does.
    """
    folded = _FROM_NOW_ON.sub(" ", _LAUNCHED.sub("", fold(text)))
    out: set[str] = set()
    for match in (*_USED.finditer(folded), *_USED_LANGUAGE.finditer(folded)):
        if not _DENIED.search(folded[max(0, match.start() - 12) : match.start()]):  # not "不要用 X", "never use X"
            out.update(keys_of(features_of(match.group("thing"))))
    for match in _PRAISED.finditer(folded):
        out.update(keys_of(features_of(match.group("thing") or match.group("cjk_thing"))))
    for match in _MANAGED.finditer(folded):
        out.update(keys_of(features_of(match.group("thing") or match.group("cjk"))))
    for match in _INCLUDED.finditer(folded):
        out.update(keys_of(features_of(match.group("thing") or match.group("then") or match.group("cjk"))))
    # an imperative's verb, and one after a dash ("Don't mock httpx — record …"), not "don't" nor "pip is banned"
    clauses = _DASHED.split(folded) if imperative else []
    firsts = (_FIRST_WORD.match(clause) for at, clause in enumerate(clauses) if not at or not _SAID_OF.match(clause))
    for first in firsts:
        if first is not None and first.group(1) not in _NOT:  # not the subject of what is given up: "R2 不用了"
            out.update(keys_of(features_of(first.group(1))) - dropped(text))
    return frozenset(out)


def negated(text: str) -> frozenset[str]:
    """Return the named things a text turns down: "not redux", "不想上 redux", "instead of MySQL".

    Only a thing right after the negation counts: "never block the writer in WAL mode"
    turns down blocking, not WAL.
    """
    folded = _REMINDER.sub(" remember ", _LAUNCHED.sub("", fold(text)))
    out: set[str] = set()
    for match in _TURNED_DOWN.finditer(folded):
        thing = match.group("latin") or match.group("used") or match.group("placed") or match.group("named")
        out.update(keys_of(features_of(thing)))
    out.update(_given_up(folded, bare_drop=True))
    for match in _HANDS_OFF.finditer(folded):
        out.update(keys_of(features_of(match.group("thing"))))
    for match in _SAID_WRONG.finditer(folded):
        out.update(keys_of(features_of(match.group("thing"))))
    for match in _SWITCHED_FROM.finditer(folded):
        out.update(keys_of(features_of(match.group("thing") or match.group("zh"))))
    return frozenset(out)


_words = bounded  # the same bounds as lasting.words
# Stance cues over folded text. A negation or a change of plan is about what follows it
# ("instead of *MySQL*", "不再用 *pip*"); a criticism about what precedes it ("*fixed intervals*
# are too coarse", "*固定间隔*太粗糙").
_NEGATION = re.compile(
    _words(
        r"not|never|no longer|no|don't|do not|doesn't|does not|didn't|isn't|aren't|shouldn't|won't|can't|cannot"
        # typed without the apostrophe: "dont ever run terraform apply yourself"
        r"|dont|doesnt|didnt|isnt|arent|shouldnt"
        r"|avoid|stop|instead of|rather than|without"
    )
    + r"|不再|不要|别|而不是|没有|不必|无需|避免|停止|禁止|不能|不应该?|不用|从不|不是|不会|不该"
    r"|不[^同断少仅过错久然但如管论足]"
)
_CRITIQUE = re.compile(
    _words(
        r"wrong|incorrect|outdated|obsolete|a myth|overrated|too \w+|doesn't work|does not work|bad idea|misleading"
        r"|not true|useless|inaccurate|broken|flawed|coarse|overkill|a waste|(?:doesn't|does not|don't) matter"
        r"|no difference|unnecessary|not (?:needed|necessary|required)|good enough|(?:is|are) fine|worse"
    )
    + r"|(?<![不差出纠容报])错(?![误开过])|过时|太粗糙|太死板|太[^\W\d_]|没用|无效|不准|误区|不靠谱|不对|粗糙|死板"
    r"|有问题|不合理|不好用|浪费"
    r"|没必要|不重要|没(?:什么)?区别|不需要|就够|就行|更差|效果差|不适合"
)
# what a critique calls enough: "跑单测就行" argues against more only where the known text asks for more
_SUFFICES = re.compile(r"就够|就行|good enough|(?:is|are) fine")
# what is allowed from now on: "commit message 以后可以用中文写了" (今后 alone says a change of plan already)
_ALLOWED_NOW = r"(?:以后|现在|今后)(?:也)?可以[^，。；]{1,20}了"
# the thing changed between the verb and its new value: "switch the database to SQLite", "move staging over to k3s"
_OBJECT_TO = r"(?:switch|chang|mov|migrat|upgrad)\w* (?:[\w.-]+ ){1,3}?(?:over )?to"
_NOT_BUT = r"不是[^，。,]{1,20}[，,]?\s*而是"  # "不是 X，而是 Y": the old value, then the new one
_BACK_TO = r"(?:(?:go|goes|going|went) |^\W*|[,;:]\s*|so,? |ok,? )back to"  # to an earlier choice: "so back to X"
# from a release on: "4.14 起最低支持 iOS 16", "从 4.14 版本开始迁", "starting with v2.3 the API is JSON-only"
_FROM_VERSION = (
    r"(?:从\s*)?v?\d+(?:\.\d+){1,2}\s*(?:版本?)?\s*(?:起|开始)"
    r"|(?<![a-z])(?:from|starting(?: with| from| in)?|as of) (?:v|version |release )?\d+\.\d+(?:\.\d+)?"
    r"(?: on)?(?![\d.])"
)
CHANGE = re.compile(
    _words(
        r"actually|in fact|turns out|switch(?:es|ed|ing)? (?:to|from|over|off)|replaced?|"
        + _OBJECT_TO
        + r"|mov(?:e|es|ed|ing) (?:to|from|off)|migrat(?:e|es|ing) (?:to|from|off)"
        r"|now use|(?:use|uses|using) [\w.+#-]+ now|migrated|chang(?:e|es|ed|ing) to|upgrad(?:e|es|ed|ing) to"
        r"|no longer|correction|change of plans?"
        r"|from now on|going forward|instead|(?:from|starting|as of) (?:today|tomorrow|this week|next week)"
        r"|not (?!only|just)[\w./~-]+(?: [\w./~-]+){0,2},? but(?! also)"
        rf"|(?:go|goes|going|went) (?:down|up) to|{_BACK_TO}"
        r"|got (?:pushed|moved|bumped)|(?:we're|we are) on|bumped|now (?:on|at|is|are)|is now|are now"
        r"|slipp(?:ed|ing)|slips|pushed (?:back )?to|postponed|delayed|retired|decommissioned|no more"
    )
    + r"|其实|实际上|改用|换成|改为|改成|替换|纠正|更正|不再|换用|迁移(?:到|至)|迁到|搬到|升到|升级到|现在用"
    r"|以后不|" + _NOT_BUT + r"|改到|推迟|提前|延期|延后|以后(?:都|就|一律|统一|全|只)|今后|从现在起|从今天起"
    r"|不用[^，。]{0,15}了|现在是|升级到|换到|换人了?|被回收|下线了|退役|作废|取消了|[改换切][回返](?![来去])"
    + f"|{_ALLOWED_NOW}|{FROM_DAY_ON}|{_FROM_VERSION}"
)
# what a document says to replace an older rule; a person's own newer words replace it anyway
CHANGE_OF_PLAN = re.compile(
    _words(
        r"switch(?:es|ed|ing)? (?:to|from|off)|change of plans?|from now on|going forward|no longer|moved? to"
        r"|(?:from|starting|as of) (?:today|tomorrow|this week|next week)|"
        # a day the change starts on: "from Mon 15 Mar every PR goes straight to main", "starting 4/1"
        rf"(?:from|starting|as of) (?:{WEEKDAY}"
        r"|\d{1,2}(?:/\d{1,2}| (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))"
        r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2})|"
        + _OBJECT_TO
        + r"|mov(?:es|ing) to|mov(?:e|es|ed|ing) (?:from|off)|migrat\w* (?:to|from|off)"
        rf"|moved:|(?:is|are) now|any ?more|{_BACK_TO}"
    )
    + f"|改用|换成|改为|改成|以后不|不再|{_NOT_BUT}|现在改|换用|以后(?:都|就|一律|统一)|今后"
    + r"|[改换切][回返](?![来去])|换\s*[a-z][\w.-]+\s*吧|调课|调班"
    r"|现在是(?=每|周|星期|礼拜|\s*\d)"  # "樱花日语调课了：日语课现在是每周四晚上 20:00–21:30"
    + r"|从现在起|(?:从\s*)?\d{1,2}\s*[/月]\s*(?:\d{1,2}\s*[日号]?\s*)?(?:起|开始)|新(?:的|时间|日期)是"  # "2月开始"
    + f"|{_ALLOWED_NOW}|{MOVED_TO}|{FROM_DAY_ON}|{_FROM_VERSION}"
)
# the person says they said it before: "like I said", "as I told the other agents", "还是那句话", "又确认了一遍"
RESTATED = re.compile(
    _words(
        r"(?:like|as) (?:i|we)(?:'ve| have)? (?:already )?(?:said|told|mentioned|asked)"
        r"(?: (?:you|the \w+(?: \w+)?|before|earlier|already|last time))*"
        r"|(?:i|we)(?:'ve| have)? (?:already )?(?:said|told you) (?:this|that|so)(?: before)?|as before",
        # "versions go in libs.versions.toml only, said that on day one"
        r"said (?:this|that|so|it) (?:on|from) day one|(?:said|told you) (?:this|that|it) (?:\w+ )?times",
        r"i(?:'ve| have)? told you (?:before|already|this before|many times|last time|the other day)",
        r"as (?:usual|always|ever)|same as (?:always|usual)|same as (?:every|all (?:the )?other|the other) \w+",
        # "like everything else", "same rule as the warehouse", "you know the drill", "as we agreed"
        r"like (?:everything|everywhere|all the rest) else|same rule as|you know the drill",
        r"(?:as|like) (?:we )?(?:agreed|discussed|decided)(?: (?:before|earlier|last time))?",
        r"we (?:settled|agreed on) (?:that|this)",
        r"that was the (?:whole )?point",  # "Stored in UTC, shown in Europe/Lisbon, that was the whole point"
        # "Remember: dev target only", "No prefixes, remember": a reminder, not "remember to" (a step)
        r"remember(?! (?:to|when|the time|that time|how)\b)(?=\s*(?:[:,—–]|$|i\b|only\b|we\b))",
    )
    + r"|还是那句话|(?:我|之前|上次|早就|已经)+(?:跟你|和你)?(?:说过|讲过|提过|强调过)(?:了|的)?|又确认了?一遍"
    # "说过了，用 pnpm", "3000 是 BFF，说过了", "讲过喇", "不是说过…吗", "都说了别用 npm"
    r"|(?<![他她没未不还])(?:说|讲)过(?:了|啦|喇)|不是(?:说|讲)过|都(?:说|讲)了"
    r"|(?<![他她没未不还听])(?:说|讲)过(?=不|别|要|只用)|(?<![他她])[跟和]你(?:说|讲|提)过"  # "plotly 说过不引"
    # "讲过好多次", "讲咗几次", "我講咗喇" (Cantonese)
    r"|(?<![他她])(?:说|讲)(?:过|咗|了)(?:好|很)?(?:多|几|\d+)(?:次|遍)|我(?:讲|说)了(?:喇|啦)"
    r"|再(?:说|强调|重复)一(?:遍|次)|重申一下|老规矩|[跟和同](?:之前|以前|其他[^，。]{1,8})一样|(?:跟你)?说(?:了|过)多少(?:次|遍)"
    # what a meeting settled, said again: "SN 按会上定的 MB加年月加5位流水", "卡粮重试改3次 复盘会定的"
    # (not "会上定的是 30 天", which says what was settled, and is the ask's reason)
    r"|(?:按|照)?(?:会上|上周周会|周会|复盘会|例会)(?:上)?(?:说好|定好|定|决定)的(?!是)"
    # "…，这个不变", "that doesn't change": what held before still does
    # "benchmark 不换，还是 000905": no change, the same value again
    r"|(?:这个|这条|这点|这一点)(?:还是|依然|仍然)?不变|不(?:换|变|改)了?[，,、\s]*(?:还是|依然|仍然|照旧)"
    r"|(?<![a-z])that (?:doesn't|does not) change(?![a-z])"
)
# a tail that only says it was said before, which a statement leaves: "— I told you last time", "，上次跟你说过了"
RESTATED_TAIL = re.compile(r"(?:\s*[—–]+\s*|\s+-{1,2}\s+|\s*[,，;；]\s*)(?:" + RESTATED.pattern + r")[吧啊]?$", re.I)
# The one thing right after a negation is what it turns down: "don't mock the db" turns down mocking,
# "不想上 redux" redux. A Chinese object counts only after a verb of use ("别在回复里加 emoji" is about emoji).
_TURNED_DOWN = re.compile(
    r"(?:(?<![a-z])(?:not|no|never|don't|dont|do not|instead of|rather than|without|avoid|stop using|no more)\s+"
    # "dont ever run terraform apply", "no longer uses Glide": what it turns down follows
    r"(?:(?:ever|even|really|yet|longer)\s+)?"
    r"(?:(?:uses?|using|add|put|include|write|install|touch|pick|go with|bring in|switch to|change to|move to|run"
    r"|going to|go to)\s+)?"
    r"(?:the\s+|a\s+|an\s+|any\s+)?"
    # "instead of the old `deploy.sh`": the thing, not its age
    r"(?:(?:old|current|previous|existing|legacy|original)\s+)?`?"
    r"(?P<latin>[\w.+#-]+)"
    r"|(?:不要|不用|别|不想|不再|而不是|不是|避免|禁止|不能|不许|不)\s*"
    r"(?:(?:用|上|引入|装|加|使用|选|要|改成|换成|改用|换回|换|切回|切到)\s*(?P<used>[a-z0-9][\w.+#-]*|[\u4e00-\u9fff]{1,4})"
    # "别在回复和代码里加 emoji": a place between the negation and its verb, then a named thing
    r"|[^，。,；;]{1,8}?(?:用|装|加|引入|写)\s*(?P<placed>[a-z0-9][\w.+#-]*)|(?P<named>[a-z0-9][\w.+#-]*)))"
)
_USED = re.compile(
    r"(?:(?<![a-z])(?:use|using|uses|go with|switch(?:ed)? to|move to|stick with|prefer|pick|install|run|runs on"
    r"|(?:go|goes|going|went) (?:back to|through|(?:straight |directly )?to)|on|with)\s+(?:the\s+|a\s+)?"
    r"|(?:就用|改用|换成|换到|都用|一律用|统一用|[改换切][回返](?![来去])|用|走|上|采用|选)\s*)(?P<thing>[a-z0-9][\w.+#-]*)"
)
# a value said to be wrong, after it: "5432 不对，order-db 是 5433", "8080 is wrong"
_SAID_WRONG = re.compile(r"(?<![\w.+#-])(?P<thing>[a-z0-9][\w.+#-]*)\s*(?:不对|错了|是错的|(?:is|was) wrong\b)")
# a language a text says to write or answer in: "代码注释写中文就行", "回复用英文"
_USED_LANGUAGE = re.compile(r"(?:用|写|说|讲|回|回复|回答)\s*(?P<thing>(?:简体|繁体)?中文|英文|粤语|日文)")
_DENIED = re.compile(
    r"(?:(?:不要|不用|不|别|不再|禁止|不能|不应该?|没)[再也都还]?"
    r"|(?<![a-z])(?:never|not|don't|dont|do not|stop|no longer|won't|can't|cannot))\s*$"
)
_FIRST_WORD = re.compile(r"^[\"'“「(\s]*([a-z][\w.+#-]*)\b")
_DASHED = re.compile(r"\s[—–]\s|;\s")
_NOT = frozenset(("don", "dont", "never", "not", "no", "stop", "avoid", "forget"))
_SAID_OF = re.compile(r"\s*\S+\s+(?:is|are|was|were|isn't|aren't|ha[sd]|have|will|would|should|must|can|may)(?![a-z])")
# what a text holds to be better: "a learnable temperature is always better than …", "org-mode 更好用"
_PRAISED = re.compile(
    r"(?P<thing>[a-z0-9][\w.+#-]*)(?:\s+[a-z]+)?\s+(?:is|are) (?:always |much |far |way )?(?:better|superior)"
    r"|(?P<cjk_thing>[a-z0-9][a-z0-9.+#_-]*)\s*[\u4e00-\u9fff]{0,4}?(?:更好|更好用|效果更好|更合适|更稳|更靠谱|更成熟)"
)
_INCLUDED = re.compile(  # what a text takes in: "slow tests included", "including the slow ones", "包括慢测试"
    r"(?P<thing>[a-z0-9][\w.+#-]*)(?:\s+[a-z]+)?\s+included(?![a-z])|(?<![a-z])including\s+(?:the\s+)?"
    r"(?P<then>[a-z0-9][\w.+#-]*)|(?:包括|包含|连同)\s*(?P<cjk>[a-z0-9][\w.+#-]*|[\u4e00-\u9fff]{1,4})"
)
# what a text has a thing look after: "dependencies are managed by poetry", "依赖是 poetry 管的"
_MANAGED = re.compile(
    r"(?<![a-z])(?:managed|handled|built|packaged|installed) (?:by|with|through|via) (?:the\s+)?"
    r"(?P<thing>[a-z0-9][\w.+#-]*)|(?:是|由|靠|归)\s*(?P<cjk>[a-z0-9][\w.+#-]*)\s*(?:来)?(?:管|负责|处理|维护|打包)"
)
# an exception said outright ("exception: …", "unless", "测试类例外"): the case it names is what it adds
EXCEPTION_SAID = re.compile(r"(?<![a-z])(?:except|unless|besides)|例外|除外|除了")
# a case of its own named as such: "only for …", "on GPU machines", "for local testing a relative source is fine",
# "on devices with ≤3GB RAM the cap is 200 MB", "单卡调试的时候"
CASE_SAID = re.compile(
    EXCEPTION_SAID.pattern + r"|(?<![a-z])(?:only (?:for|when|in|on)|on [\w-]+ machines"
    r"|for local (?:testing|dev(?:elopment)?|debugging|runs)|on (?:[\w-]+ )?(?:devices|machines|phones|hosts) with)"
    r"|只有在|单卡|本地调试"
)
# a case of its own: the rule stands, this one is the exception (any "when" or "if" too)
EXCEPTION = re.compile(CASE_SAID.pattern + r"|(?<![a-z])(?:when(?:ever)? |if )|的时候|时候|如果")
# "date-fns 不用了", "Redis is out": what a text drops, named before the words that drop it
_DROPPED = re.compile(
    r"([\w.+/:-]{2,30})(?:\s*(?:branch|分支))?\s*(?:以后|今后|现在|之后)?(?:就|也|都)?\s*"  # "poetry 以后不用了"
    r"(?:不用了|不要了|去掉|弃用|废掉|废了|废弃|停用|砍掉|干掉|拿掉|被回收|下线了|退役|作废|取消了?"
    r"|(?:is|'s) (?:out|gone|dead|off)|no more"  # "PagerDuty is out", "Algolia's out"
    r"|(?:is|was|got|has been) (?:dropped|scrapped|ditched|retired))"
)
# what a verb of dropping names after it: "We dropped Great Expectations last week", "So scrap Formspree", "弃用 Detox"
_DROPPING = re.compile(
    r"(?<![a-z])(?:drop(?:ped|ping)?|scrap(?:ped)?|ditch(?:ed)?|got rid of|get(?:ting)? rid of|retired?"
    # …and "Forget Stormglass: …" opening a clause, not "don't forget the …"
    r"|rip(?:ped)? out|phased? out|(?<![\w'] )forget(?: about)?)"
    r"\s+(?:the\s+|our\s+)?(?!(?:last|this|support)\b)(?P<thing>[\w.+#-]+"
    # …not a time after it, and not a version of it: "dropping android 8.x" drops a version, not Android
    r"(?:\s+(?!(?:last|this|yesterday|today|now|in|from|for|and|because|since|so|as|at|on|the|with|it|them)\b)"
    r"(?!\d)[\w.+#-]+){0,2})(?![\w.+#-])(?!\s+\d)"
    r"|(?:弃用|废弃|停用|砍掉|干掉|去掉|拿掉)\s*(?P<zh>[a-z0-9][\w.+#-]*|[\u4e00-\u9fff]{1,4})"
    # …and where a stopped habit went: "we stopped mirroring alerts to slack" gives up Slack
    r"|(?<![a-z])stopped \w+ing (?:[\w-]+ ){0,2}?(?:to|on|in|into|via) (?P<via>[\w.+#-]+)"
    r"|(?<![a-z])rip(?:ped|ping)? (?:the )?(?P<ripped>[\w.+#-]+) out(?![a-z])"  # "rip Contex out"
)
_BARE_DROP = re.compile(r"drop(?:ping)?\s")  # "drop X", "dropping X": also a filter, unlike "dropped X"
# what a switch leaves: "switch the backtest scoring from MAPE to WAPE", "评估指标从 MAPE 换成 WAPE"
_SWITCHED_FROM = re.compile(
    r"(?<![a-z])(?:switch|chang|mov|migrat)\w* (?:[\w.-]+ ){0,3}?from (?:the )?(?P<thing>[a-z][\w.+#-]*) (?:over )?to\b"
    r"|从\s*(?P<zh>[a-z][\w.+#-]*)\s*(?:改成|换成|切到|换到|迁到|改为|改用|切换到)"
)
# a thing named before the words that keep hands off it, as "never touch X" names it after: "automations.yaml
# 别动", "dev.py 唔好掂", "template/ 里的东西不要碰"
_HANDS_OFF = re.compile(
    r"(?<![\w.+/-])(?P<thing>[a-z0-9][\w.+/#-]*)\s*[\u4e00-\u9fff]{0,4}?\s*(?:千万|一律|都|也|就)?\s*"
    r"(?:别|不要|不许|不能|不准|唔好)\s*(?:去)?(?:动|碰|改|删|掂)"
)
_CLAUSE_BREAK = re.compile(r"[,;!?，；：。！？]|[:.](?!\d)")  # not inside "23:00" or "1.5"


def contradicts(
    mine_text: str, their_text: str, mine: Features, theirs: Features, *, linking: bool, negations: bool = True
) -> bool:
    """Return whether the candidate disagrees with the known statement.

    With ``linking``, the two are not similar overall, so only a negation, criticism
    or change whose own words are mostly about the known insight counts. Without
    ``negations``, the polarity of named things has been read already (``negated``):
    only criticism, a change, other numbers and opposite words count.
    """
    folded, their_folded = fold(mine_text), fold(their_text)
    for pattern in (_NEGATION, _CRITIQUE, CHANGE) if negations else (_CRITIQUE,):
        if pattern.search(their_folded) is not None and pattern is not CHANGE:
            continue  # both sides negate or criticise: no flip of polarity here
        for word, scope in _scopes(folded, pattern):
            if _is_about(scope, theirs, linking=linking) and not (
                _SUFFICES.fullmatch(word) and _says_the_same(scope, their_folded, theirs)
            ):
                if pattern is _CRITIQUE and _turned_down_too(scope, their_folded):
                    continue  # "5432 不对" beside "it listens on 5433, not 5432": the same value put right
                return True
    # the known insight negates what the candidate states plainly: "use tabs" against "don't use tabs"
    if negations and _NEGATION.search(folded) is None:
        for _, scope in _scopes(their_folded, _NEGATION):
            if _is_about(scope, mine, linking=linking):
                return True
    if different_numbers(mine, theirs) and not measured_apart(mine_text, their_text):
        return True
    if linking:
        return False
    return opposed(folded, their_folded, mine)


def _turned_down_too(scope: str, their_folded: str) -> bool:
    """Tell whether what a critique is of is all turned down by the known text as well."""
    keys = keys_of(features_of(scope))
    keys = keys - CONCEPT_NAMES or keys  # the value, not the topic word beside it ("the port 8080 is wrong")
    return bool(keys) and keys <= negated(their_folded)


def _says_the_same(scope: str, their_folded: str, theirs: Features) -> bool:
    """Tell whether what a "…就行" calls enough is what the known text says to do: agreement, no critique."""
    said = features_of(scope)
    keys = keys_of(said) - numbers_of(said)
    # …or, naming no thing, the topics it calls enough: "术语保留英文就行" beside "technical terms 保持英文"
    named = keys - CONCEPT_NAMES or keys
    return bool(named) and named <= keys_of(theirs) and not named & negated(their_folded)


def _scopes(folded: str, pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    """Return (cue word, the words it is about) for each cue of the pattern in the text."""
    scopes: list[tuple[str, str]] = []
    for match in pattern.finditer(folded):
        before = max((m.end() for m in _CLAUSE_BREAK.finditer(folded, 0, match.start())), default=0)
        after = _CLAUSE_BREAK.search(folded, match.end())
        following = folded[match.end() : after.start() if after else len(folded)]
        preceding = folded[before : match.start()]
        if pattern is _CRITIQUE:
            scopes.append((match.group(), preceding))
        elif pattern is CHANGE:
            scopes.append((match.group(), preceding + " " + following))
        else:
            scopes.append((match.group(), following))
    return scopes


def _is_about(scope: str, other: Features, *, linking: bool) -> bool:
    topical = features_of(scope).topical
    if not topical:
        return False
    shared = topical & other.weights.keys()
    if not linking:
        return bool(shared)
    weights = features_of(scope).weights
    shared_weight = sum(weights[f] for f in shared)
    return shared_weight >= 1.0 and shared_weight >= _FOCUS_LINK * sum(weights[f] for f in topical)
