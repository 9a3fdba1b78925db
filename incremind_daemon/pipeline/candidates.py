"""Pick candidate insight statements from new material, by cue phrases in Chinese and English.

The local, deterministic extraction path: every candidate is one sentence of the text that
carries a cue for a method, a preference or decision, a correction, a fact about a named
thing (port, path, version, URL, owner), who the person is, or a dated event. Its ``quote``
is that sentence verbatim with offsets into the text; its ``statement`` is the same words
cleaned, with a leading "when to recall" clause moved into ``condition``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from incremind_daemon.pipeline.cues import DECISION_CUES, fold, wordset
from incremind_daemon.pipeline.organize import split_sentences
from incremind_daemon.pipeline.redact import find_secrets, redact
from incremind_daemon.store.records import Candidate

log = logging.getLogger(__name__)

_MIN_WEIGHT = 3.0  # Latin words plus half the CJK characters: "I prefer tabs", "我是后端工程师"
_MAX_CHARS = 320
_MAX_SECRET_SHARE = 0.3


def _words(*phrases: str) -> str:
    # bounded by ASCII word characters, so "port" misses "report" yet matches "端口port"
    return rf"(?<![a-z0-9_])(?:{'|'.join(phrases)})(?![a-z0-9_])"


_IMPERATIVE_VERBS = (
    "add|adjust|answer|ask|avoid|back up|break|build|bump|cache|call|check|clear|close|commit|configure|copy|create"
    "|delete|deploy|disable|do|don't|drink|eat|enable|explain|export|focus|keep|leave|limit|log|make|mark|measure"
    "|merge|move|never|always|note|open|pin|practice|practise|prefer|put|read|rebase|recall|record|reduce|remember"
    "|remove|rename|repeat|restart|retry|review|rotate|run|save|schedule|set|skip|sleep|space|split|start|stop"
    "|store|study|switch|take|test|try|turn|update|upgrade|use|wait|warm up|watch|write"
)
# (category, strength, pattern) over the folded sentence; the strongest match names the category
_CUES: tuple[tuple[str, float, re.Pattern[str]], ...] = (
    (
        "identity",
        3.0,
        re.compile(
            _words(
                r"^(?:i am|i'm) (?:a|an)",
                r"my name is",
                r"i work (?:as|at|for)",
                r"i(?:'m| am) based in",
                r"i live in",
                r"my (?:role|job|title) is",
            )
            + r"|^我是|^我叫|我的名字|^我在[^，。,]{1,12}(?:工作|上班|读书|上学)"
            r"|^我(?:的)?(?:职位|职业|工作|身份)是|^本人"
        ),
    ),
    (
        "preference",
        3.0,
        re.compile(
            _words(
                r"i (?:really |much |strongly )?(?:prefer|like|love|hate|dislike|enjoy|can't stand)",
                r"i(?:'d| would) rather",
                r"i (?:always|usually|never|tend to) (?:use|write|run|pick|choose|keep|put|read|work|go)",
                r"(?:i|we) (?:don't|do not) (?:like|want)",
                r"my (?:favorite|favourite|preferred|go-to)",
                r"(?:please )?(?:always|never) use",
                r"(?:don't|do not) use",
            )
            + r"|我(?:很|更|比较|最|一直|还是)?(?:喜欢|偏好|爱用|讨厌|不喜欢|倾向于?)|习惯(?:用|于|先|在)|偏好"
            r"|不要用|别用|一律用|统一用|我(?:一般|通常|总是|从不|从来不)"
        ),
    ),
    (
        "correction",
        3.0,
        re.compile(
            _words(
                r"actually",
                r"in fact",
                r"turns out",
                r"it turned out",
                r"correction",
                r"(?:is|was|are|were) (?:wrong|incorrect|outdated|a myth|not true)",
                r"i was wrong",
                r"mistaken(?:ly)?",
                r"misremembered",
            )
            + r"|其实|纠正|更正|实际上|搞错|弄错|记错|说错|错了|不对|并不是|并非|误区|不是[^，。,]{1,20}而是"
        ),
    ),
    ("preference", 2.5, DECISION_CUES),  # a decision is a standing choice of how things are done
    (
        "method",
        2.0,
        re.compile(
            rf"^(?:first,? |then,? |always |never |please )?(?:{_IMPERATIVE_VERBS})(?![a-z0-9_'])"
            + r"|[;:] (?:"
            + _IMPERATIVE_VERBS
            + r")(?![a-z0-9_'])|"
            + _words(
                r"how to",
                r"steps?",
                r"first\b.{1,60}\bthen",
                r"make sure",
                r"remember to",
                r"be sure to",
                r"the (?:trick|key|rule) is",
                r"rule of thumb",
                r"best practice",
                r"tip",
                r"works? (?:better|best)",
                r"(?:is|are) better than",
                r"better to",
                r"(?:you|we|one) (?:should|must|need to)",
                r"should (?:always|never|be)",
                r"too (?:coarse|slow|fast|long|short|fine|aggressive|strict|loose|rigid)",
                r"on days? \d",
                r"every \d+ (?:days?|hours?|weeks?|minutes?|months?)",
            )
            + r"|方法|步骤|做法|技巧|诀窍|先[^，。；,;]{1,24}(?:再|然后)|记得|务必|一定要|最好|建议|尽量|应该|应当"
            r"|(?:设成|设为|设置为|调到|调成|改成|改为)\s*\S{0,12}\d|第[一二三四五六七八九十\d]+步|^每(?:天|周|次|隔)|^按|按第|太粗糙|太死板|更好|更有效|关键是|要点|原则"
        ),
    ),
    (
        "entity",
        2.0,
        re.compile(
            _words(
                r"port\s*:?\s*\d{2,5}",
                r"(?:localhost|127\.0\.0\.1|0\.0\.0\.0):\d{2,5}",
                r"listens on",
                r"runs on",
                r"(?:is|are) (?:located|stored|kept|hosted|deployed|mounted|installed) (?:in|at|on|under)",
                r"lives (?:in|at|under)",
                r"(?:is|are) (?:maintained|owned|run) by",
                r"(?:is|are) responsible for",
                r"(?:owner|maintainer|contact) (?:is|of)",
                r"version\s*v?\d+(?:\.\d+)*",
                r"v\d+\.\d+(?:\.\d+)*",
            )
            + r"|https?://[^\s]+|(?:^|[\s(（\"'`“：:=])(?:~|\.{1,2})?/[\w.-]+/[\w./-]*|[a-z]:\\[\w\\.-]+"
            r"|端口(?:号)?\s*(?:是|为|:|：|改成|改为)?\s*\d{2,5}|监听|位于|存放在|存储在|部署在|放在|装在|在\s*/[\w.-]"
            r"|负责|维护者|联系人|版本(?:号)?\s*(?:是|为|:|：)?\s*v?\d"
        ),
    ),
    (
        "event",
        1.5,
        re.compile(
            r"\d{4}[-/.年]\d{1,2}(?:[-/.月]\d{1,2}日?)?|\d{1,2}月\d{1,2}[日号]|"
            + _words(
                r"(?:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?",
                r"yesterday",
                r"last (?:week|month|night|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)",
                r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)",
            )
            + r"|昨天|前天|上周|上个月|上星期|去年"
        ),
    ),
)
_HAPPENED = re.compile(
    _words(
        r"released|launched|shipped|deployed|migrated|met|started|finished|broke|failed|went down|outage|incident"
        r"|moved|joined|left|signed|upgraded|renewed|bought|passed|booked"
    )
    + r"|发布|上线|部署|迁移|开会|见了|开始|完成|故障|宕机|入职|离职|签了|搬|升级|买了|考过|订了"
)
_BOILERPLATE = re.compile(
    _words(
        r"subscribe|all rights reserved|copyright|cookies?|click here|sign up|share this|newsletter|follow us"
        r"|thanks for reading|sponsored|advertisement|let me know|feel free|happy to help|table of contents"
    )
    + r"|转载|版权|订阅|关注我们|点赞|扫码|公众号|免责声明|原文链接|广告|随时告诉我|目录"
)
_QUESTION = re.compile(
    _words(r"^(?:how|what|why|where|which|who|is|are|do|does|did|can|could|should|would|will|shall)") + r"[^.;]*$"
    r"|[吗呢么]$|^(?:为什么|怎么|如何|是否|要不要|能不能)[^。；]*$"
)
# guesses and open decisions are not knowledge yet
_HEDGE = re.compile(
    _words(r"not sure|unsure|i wonder|maybe|perhaps|not certain|haven't decided|not decided|undecided|tbd|todo")
    + r"|不太确定|不确定|也许|或许|不知道|待确认|还没决定|没决定|待定|有待"
)
_SPEAKER = re.compile(r"^(?:user|assistant|human|ai|me|q|a|用户|助手|问|答)\s*[:：]\s*", re.I)
_CONNECTIVE = re.compile(
    r"^(?:but|and|so|also|however|then|still)\b,?\s+|^(?:但是?|而且|所以|不过|然而|另外|此外|因此)[，,]?", re.I
)
_CODE = re.compile(r"[{}\[\]();=<>$\\|]")
_CODE_WORDS = re.compile(r"\b(?:def|class|import|return|const|let|var|fn|func)\s+\w|=>|::|&&|\|\||\)\s*\{|^\s*[@$#>]")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
_LATIN_WORD = re.compile(r"[a-z0-9]+(?:['.-][a-z0-9]+)*")
_DIGIT = re.compile(r"\d")

# A leading clause that says when to recall the rest; kept out of the statement when a comma
# separates it. Chinese "复习时先自答" carries its clause without a comma: the statement keeps it.
_EN_CONDITION = re.compile(
    r"(?P<cond>(?:if|when|whenever|while|during|before|after|once|for|in)\s[^,;:]{2,80}?)\s*,\s+(?P<rest>[^\W\d_].*)",
    re.S,
)
_EN_NOT_CONDITION = re.compile(
    _words(
        r"for (?:example|instance|now|this reason|that reason|me|us|years|months|days|weeks|a while|once)",
        r"after (?:all|that|this)",
        r"before (?:that|this)",
        r"in (?:short|fact|general|practice|theory|other words|addition|particular|the end|contrast|summary)",
        r"on (?:the other hand|top of that|average)",
        r"once (?:again|more)",
        r"when (?:possible|in doubt)",
        r"if (?:possible|needed|so|not)",
    )
)
_ZH_CONDITION = re.compile(
    r"(?P<cond>(?:对于|如果|假如|若是?|要是|当|每当|遇到|一旦|只要)[^，,。；;：:]{1,30}"
    r"|在[^，,。；;：:]{1,24}(?:时|时候|中|里|上|下|前|后)"
    r"|[^，,。；;：:]{2,24}?(?:时|的时候|之前|以前|之后))[，,：:]\s*(?P<rest>\S.*)",
    re.S,
)
_ZH_BARE_CONDITION = re.compile(r"(?P<cond>[\u4e00-\u9fff]{2,8}?(?:的时候|时))(?P<rest>[\u4e00-\u9fff].{3,})", re.S)
_NOT_TIME_CLAUSE = tuple(
    wordset("同时 有时 及时 当时 临时 随时 平时 按时 准时 小时 暂时 实时 定时 过时 那时 此时 届时 一时 超时 适时")
    | {"到时", "不时"}
)
_EMPHASIS = re.compile(r"\*\*|__|~~|(?<!\w)\*(?=\S)|(?<=\S)\*(?!\w)")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(([^)\s]*)\)")
_TRAILING = " \t.。!！;；:：,，、"


@dataclass(frozen=True, slots=True)
class _Scored:
    candidate: Candidate
    score: float
    key: str


def extract_candidates(text: str, *, limit: int = 12) -> list[Candidate]:
    """Pick up to ``limit`` cue-bearing sentences of text as candidate insights.

    The strongest cues win (a correction or a preference before a method, a method
    before a dated event); the result is in document order. For every candidate,
    ``text[c.start:c.end] == c.quote``.
    """
    if limit <= 0 or not text:
        return []
    fences = [(m.start(), m.end()) for m in _FENCE.finditer(text)] if "``" in text or "~~" in text else []
    scored: list[_Scored] = []
    seen: set[str] = set()
    for sentence in split_sentences(text):
        if fences and any(start <= sentence.start < end for start, end in fences):
            continue
        found = _score_sentence(text, sentence.text, sentence.start, sentence.end)
        if found is not None and found.key not in seen:
            seen.add(found.key)
            scored.append(found)
    best = sorted(scored, key=lambda s: (-s.score, s.candidate.start))[:limit]
    return [s.candidate for s in sorted(best, key=lambda s: s.candidate.start)]


def _score_sentence(text: str, quote: str, start: int, end: int) -> _Scored | None:
    if len(quote) > _MAX_CHARS or _is_block_line(text, start) or _weight(quote) < _MIN_WEIGHT:
        return None
    folded = fold(" ".join(quote.split()))
    if _BOILERPLATE.search(folded) or _QUESTION.search(folded.rstrip(" .。!！")) or folded.endswith(("?", "？")):
        return None
    if _is_code(folded) or _HEDGE.search(folded):
        return None
    strengths: dict[str, float] = {}
    for category, strength, pattern in _CUES:
        if strength > strengths.get(category, 0.0) and pattern.search(folded):
            strengths[category] = strength
    if "event" in strengths and not _HAPPENED.search(folded):
        del strengths["event"]  # a date alone is a heading or a diary stamp, not an event
    if not strengths:
        return None
    if "[redacted:" not in folded and "[REDACTED:" not in quote:
        secret = sum(span.end - span.start for span in find_secrets(quote))
        if secret > _MAX_SECRET_SHARE * len(quote):
            return None
    category = max(strengths, key=lambda c: strengths[c])
    statement, condition = _split_condition(_clean(quote))
    if _weight(statement) < _MIN_WEIGHT - 1:
        statement, condition = _clean(quote), condition
    statement, condition = redact(statement), redact(condition)
    # more kinds of cue and a recall condition make a sentence a better insight; length does not
    score = strengths[category] + 0.25 * (len(strengths) - 1) + (0.5 if condition else 0.0)
    score += 0.25 if _DIGIT.search(folded) else 0.0
    score -= 0.5 if len(quote) > 200 else 0.0
    key = re.sub(r"[\W_]+", "", fold(statement).casefold())
    return _Scored(Candidate(statement, category, condition, quote, start, end), score, key)


def _is_block_line(text: str, start: int) -> bool:
    """Return whether the sentence at start is a heading, a table row or an indented code line."""
    line_start = text.rfind("\n", 0, start) + 1
    prefix = text[line_start:start]
    if "#" in prefix or "|" in prefix or text.startswith("|", start):
        return True
    line_end = text.find("\n", start)
    line = text[start : len(text) if line_end < 0 else line_end]
    return line.count("|") >= 2 or (prefix.startswith(("    ", "\t")) and not prefix.strip())


def _is_code(folded: str) -> bool:
    if _CODE_WORDS.search(folded):
        return True
    return len(_CODE.findall(folded)) > max(2, len(folded) // 12)


def _weight(text: str) -> float:
    cjk = len(_CJK_CHAR.findall(text))
    return len(_LATIN_WORD.findall(text.lower())) + cjk / 2


def _clean(quote: str) -> str:
    """Return the quote on one line, without Markdown emphasis or trailing punctuation."""
    cleaned = _CONNECTIVE.sub("", _SPEAKER.sub("", " ".join(quote.split())))
    if "[" in cleaned:
        cleaned = _LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})" if m.group(2) else m.group(1), cleaned)
    if "*" in cleaned or "_" in cleaned or "~" in cleaned:
        cleaned = _EMPHASIS.sub("", cleaned)
    stripped = cleaned.rstrip(_TRAILING)
    if stripped[:1].isascii() and stripped[:1].islower() and quote.lstrip()[:1].isupper():
        stripped = stripped[0].upper() + stripped[1:]  # "But fixed intervals..." -> "Fixed intervals..."
    return stripped if stripped else " ".join(quote.split())


def _split_condition(statement: str) -> tuple[str, str]:
    """Return (statement, condition): a leading "when to recall" clause moves to the condition."""
    folded = fold(statement)
    match = _EN_CONDITION.fullmatch(folded)
    if match and not _EN_NOT_CONDITION.match(folded):
        condition = statement[: match.end("cond")].rstrip(_TRAILING)
        rest = statement[match.start("rest") :]
        return (rest[:1].upper() + rest[1:] if rest[:1].isascii() else rest), condition
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
