"""Cut a person's text into the pieces the insight step reads: sentences, items, and clauses that hold.

``candidates.read_pieces`` reads prose sentence by sentence; in a chat turn a sentence is cut again
where the person starts the next one in lower case, where a semicolon opens another item, and
before a closing ask for the task at hand, which is no part of a rule ("用 pnpm install，workflow 里那个
npm ci 顺便改掉"). Weights here count Latin words plus half the CJK characters.
"""

from __future__ import annotations

import re

from incremind_daemon.pipeline.at_hand import COMPLAINT
from incremind_daemon.pipeline.cues import ACK, fold
from incremind_daemon.pipeline.dictation import dictated_parts
from incremind_daemon.pipeline.lasting import (
    CUES,
    ENTITY,
    GENERAL,
    HOLDS_ON,
    IDENTITY,
    LOCAL_HEDGE,
    REQUEST,
    one_off,
)
from incremind_daemon.pipeline.organize import split_sentences
from incremind_daemon.pipeline.replacing import NOW_SET
from incremind_daemon.pipeline.statement import split_condition, strip_lead_in
from incremind_daemon.store.charsets import CJK_CHAR

MIN_WEIGHT = 3.0  # Latin words plus half the CJK characters: "I prefer tabs", "我是后端工程师"
_MAYBE = re.compile(r"可能|也许|或许|(?<![a-z])(?:maybe|might|probably|perhaps)(?![a-z])")
_LATIN_WORD = re.compile(r"[a-z0-9]+(?:['.-][a-z0-9]+)*")
_CLAUSE_MARKS = ("，", ", ", "；", "; ", " — ", " – ", " so ")
_NUMBER_VALUE = re.compile(r"\d{2,}")
_ASKS_OUTRIGHT = re.compile(r"(?:please|pls|can you|could you|would you)(?![a-z])|帮我|麻烦你?|请你?|你(?:帮我|把)")
_RULE_AFTER_ASK = re.compile(
    r"(?:always|never|(?:don'?t|do not) (?!know|think|see|get|understand|remember)|use [^;:]{1,80}?, not )"
    # "revert the config: retries stay at 0 …, a flaky test gets fixed, not retried", "add a step: any PDB with
    # ALLOWED DISRUPTIONS 0 blocks the upgrade until …"
    r"|[^;:]{1,80}?, not [a-z]|(?:any|every|each) [^;:]{1,60}? (?:blocks?|needs?|must|gets?|has to|goes)(?![a-z])"
    r"|(?:一律|统一|永远|不要|别|都用|只用)"
    # how its messages are written, not what this one says: "commit 吧，commit message 用英文，祈使句"
    r"|^(?:commit )?(?:message|msg)\s*(?:麻烦|请)?\s*(?:都|一律|统一|还是)?\s*(?:用|按|写|中文|英文)(?!你)"
)
# an ask to change how things are written, over how they are to be: "改一下风格：SQL 关键字都小写，缩进 4 空格"
_STYLE_ASKED = re.compile(r"风格|格式|规范|写法|命名|(?<![a-z])(?:style|format(?:ting)?|conventions?|naming)(?![a-z])")
_CHAT_BREAK = re.compile(r"(?<=[.!?？！])(?<!\s[?!])[.!?？！]*\s+(?=[^\s—–])")  # "用 ? 加 .context()": a symbol
# a space typed for a stop before what holds from now on: "表结构这次先手写 sql 建就行 以后 schema 有变化都用 …"
# (not "改完 以后 …", after it is done), when what comes before is for this time
_SPOKEN_BREAK = re.compile(r"(?<=[\u3400-\u9fff\w])(?<![完好了过之])[ \t]+(?=以后|今后|从今以后|从现在起)")
_THIS_TIME = re.compile(r"这次|这回|今天|暂时|目前先|现在先")
# …and one before the day's own plan: "中期报告 12 月 10 号交 PDF 这周先把第三章的图弄完" is a date, then the
# week's work
_PLAN_BREAK = re.compile(
    r"(?<=[\u3400-\u9fff\w])[ \t]+(?=(?:这周|本周|今天|今晚|明天|下次|这次|这回)(?:先|再|就|要|得|接着|把|还是))"
)
# a space typed for a comma between Chinese words: "figures/ 里的 pdf 都是脚本生成的 别手改 也不进 git"
SPOKEN_PAUSE = re.compile(r"(?<=[\u3400-\u9fff])[ \t]+(?=[\u3400-\u9fff])")
# …and one before an ask while at it ("… 也不进 git 顺手加到 .gitignore"; in "那个 npm ci 顺便改掉" what to change is
# before it) or one to the agent ("文档在 docs/api/report-card.md 你先看下")
_SPOKEN_STOP = re.compile(
    SPOKEN_PAUSE.pattern + r"|(?<=\S)[ \t]+(?=(?:顺手|顺便)[^，。,;；\n]{4}|你(?:先|去|帮|来|再|把|看))"
)
# words that open another item of a list: "also …", "还有…"
OTHER_EN, OTHER_ZH = r"also|plus|btw", r"还有|另外|此外|再有|以及"
# a semicolon before another item of a list of rules: "；也别…", "; also never…", "；还有…", "；2）…"
_ANOTHER_ITEM = re.compile(
    rf"(?i)\s*[；;]\s*(?=(?:and also|{OTHER_EN})\b|也|{OTHER_ZH}|\d{{1,2}}[)）、]|[(（]\d{{1,2}}[)）])"
)
# a stop after a title or a Latin abbreviation ends no sentence ("Prof. Zhou", "e.g. pnpm"); one after a
# number, a version or "etc." usually does
_ABBREVIATION = re.compile(
    r"(?i)(?:\be\.g|\bi\.e|\bvs|\bmrs?|\bms|\bdr|\bprof|\b[sj]r|\bst|\bfig|\bcf|\bapprox|\bincl|\bexcl|/)\.$"
)
# an aside at the end of a rule that asks for the task at hand: "顺便改掉", "put that in the checklist"
_ASIDE = re.compile(
    r"(?<![a-z])(?:put (?:that|it|this)|move (?:them|it)|while you're at it|update (?:it|the)|add it|fix (?:it|that)"
    r"|open a pr$|commit it)(?![a-z])|顺便|一下$|改掉$|都检查|照这个来|先不管|等真有|再说$"
)
# …though "只要超過三個檔案的改動我都想先看計畫再說" is what comes first whenever it holds: the rule
_WHENEVER_FIRST = re.compile(r"只要[^，。]{1,24}?[都就][^，。]*先[^，。]*再说$")
# an ask that opens on someone to do it: what it changes is the task at hand
ASKED_CHANGE = re.compile(
    r"(?:please |pls )?(?:can|could|would) you\b|(?:please |pls )?help me\b|(?:请|麻烦)?(?:你)?(?:帮我|帮忙|麻烦你?)"
    r"|(?:请|麻烦)?你(?:先|再|就)?把"  # "…现在是 900 秒，你把 Kconfig 的默认值改一下": the agent is told what to do now
    r"|(?=[^，。,;]*试试看?(?:[，,。！!]|$))"  # "把这个 join 改成 broadcast 试试": a trial, once
)
_IF_AFTER = re.compile(r"(?<![a-z])(?:if|whenever|unless|once)(?![a-z])")
_THEN_BEFORE = re.compile(r"(?:就|的话|则)\s*$")


def _when_it_fails(tail: str, failed: re.Match[str]) -> bool:
    """Tell whether a clause says when the failure it names comes ("fails the build if …", "超过 2 天没新数据就报错"),
    not that something failed ("nobody will notice if this stays red")."""
    return bool(_IF_AFTER.search(tail, failed.end()) or _THEN_BEFORE.search(tail[: failed.start()]))


# a clause that says when what follows it is done: "so when something is about infra", "如果是线上问题"
_WHEN = re.compile(
    r"^(?:so |and |but )?(?:when|whenever|if|once|every time|each time|unless)\b"
    r"|^(?:所以|那)?(?:如果|要是|只要|每次|凡是|遇到)|(?:的时候|之前|以前|之后)$"
)
# a value a fact can rest on: a number, a path, a host, a version, a named thing ("lumen-serve is …")
VALUE = re.compile(
    r"\d|/[\w.-]+|https?://|[\w-]+\.[a-z]{2,}|[a-z]+-\d|[a-z0-9]+(?:-[a-z0-9]+){2,}|`[^`]+`|#[\w-]{3,}"
    r"|[\w.-]+<[\w -]+>"  # a name's pattern: "stg_<source>__<entity>", "refill.<medication id>"
    r"|^[a-z][a-z0-9]*-[a-z][\w-]* (?:is|are|uses?|runs)\b"
)


_POLITE = re.compile(r"^(?:请|麻烦)?你?(?:帮我|帮忙)\s*")  # "麻烦帮我 commit 一下" asks no more than "commit 一下"
_BARE_NO = re.compile(r"(?i:no|不要|别|不用)\s*`?[A-Za-z][\w.-]*`?\s*[。.!！]")


def whole_code_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Return the sentences of text[start:end], a sentence never ending inside a `code span`.

    "regenerate with `go test ./... -update`" is one sentence, whatever the dots say.
    """
    merged: list[tuple[int, int]] = []
    open_code = False
    for sentence in split_sentences(text[start:end]):
        first, last = start + sentence.start, start + sentence.end
        # a bare refusal of a named thing is read with the sentence after it on its line, which says why or what
        # instead: "不要 langchain。依赖太重 升级一次炸一次", "no ZHA. staying on z2m"
        refused = merged and _BARE_NO.fullmatch(text[merged[-1][0] : merged[-1][1]].strip()) is not None
        if (open_code or (refused and "\n" not in text[merged[-1][1] : first])) and merged:
            merged[-1] = (merged[-1][0], last)
        else:
            merged.append((first, last))
        open_code = text.count("`", merged[-1][0], merged[-1][1]) % 2 == 1
    return merged


def _first_mark(text: str, start: int, end: int, marks: tuple[str, ...]) -> tuple[int, int]:
    """Return where the first of ``marks`` in ``text[start:end]``, past its first character, begins and ends;
    (-1, -1) when there is none."""
    found = [(at, at + len(mark)) for mark in marks if (at := text.find(mark, start, end)) > start]
    return min(found) if found else (-1, -1)


def _facts_after_an_ask(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Return the trailing clause of a request that states a fact of its own.

    "Add me as owner in CODEOWNERS, my GitHub handle is jhlin-hx": the ask is for today,
    the handle lasts.
    """
    if not REQUEST.search(fold(strip_lead_in(text[start:end]))):
        return []
    # "Please convert them and keep the numbering: use sequential versions (00001_…), not timestamps": the ask is
    # for today, the rule after its colon lasts
    # …or after a dash: "revert the mock part tho — dont mock prisma in the integration tests"
    colon, after = _first_mark(text, start, end, (": ", "：", " — ", " – ", "——"))
    asked = colon > start and _ASKS_OUTRIGHT.match(fold(text[start:colon].lstrip())) is not None
    head = fold(strip_lead_in(text[start:colon].strip())) if colon > start else ""
    bare = bool(head and REQUEST.match(head) and weight(head) <= 5)
    asked = asked or bare  # "revert the config: …"
    styled = bare and _STYLE_ASKED.search(head) is not None  # "改一下风格：…", not "帮我 commit 一下，…按格式："
    if asked and (rule := text[after:end].strip()) and (styled or _RULE_AFTER_ASK.match(fold(rule))):
        return [] if REQUEST.search(fold(rule)) else [(end - len(text[after:end].lstrip()), end)]
    # …or after the comma of a bare ask: "commit 啦，message 用英文 ok，但係唔好加 Co-Authored-By 嗰啲 trailer"
    comma, after = _first_mark(text, start, end, ("，", ", "))
    head = fold(strip_lead_in(text[start:comma].strip())) if comma > start else ""
    if head and REQUEST.match(head) and weight(_POLITE.sub("", head)) <= 3:
        rest = text[after:end].lstrip(" ,，")
        if _RULE_AFTER_ASK.search(fold(rest)) and not REQUEST.search(fold(rest)):
            return [(end - len(rest), end)]
    cut = _last_clause(text, start, end)
    if cut <= start:
        return []
    tail = text[cut + 1 : end].lstrip(" ,，;；—–")
    folded = fold(tail)
    if IDENTITY.search(folded) or (ENTITY.search(folded) and VALUE.search(folded)):
        return [(end - len(tail), end)]
    return []


def sentence_pieces(text: str, start: int, end: int, conversational: bool) -> list[tuple[int, int]]:
    """Split a sentence of a chat turn where people start the next one in lower case, and trim its asks.

    "You pushed to main?? never push to main directly" is two sentences; "用 pnpm install，workflow 里那个
    npm ci 顺便改掉" ends with a request for the task at hand, which is no part of the rule.
    """
    items = [(first, _before_a_caption(text, first, last)) for first, last in _items(text, start, end)]
    items = [part for first, last in items for part in dictated_parts(text, first, last)]  # talk with no stops
    if not conversational:
        return [(first, _without_aside_tail(text, first, last)) for first, last in items]
    pieces: list[tuple[int, int]] = []
    for item_start, item_end in items:
        begin = item_start
        breaks = [*_CHAT_BREAK.finditer(text, item_start, item_end)]
        breaks += _SPOKEN_BREAK.finditer(text, item_start, item_end)
        breaks += _PLAN_BREAK.finditer(text, item_start, item_end)
        for match in sorted(breaks, key=lambda m: m.start()):
            # the break begins after its stop: the word before it ends at match.start()
            if match.re is _SPOKEN_BREAK or match.re is _PLAN_BREAK:
                if match.re is _SPOKEN_BREAK and not _THIS_TIME.search(text, begin, match.start()):
                    continue  # "commit message 以后一律写英文": what holds from now on is of the thing named before it
                pieces.append((begin, match.start()))
                begin = match.end()
            elif not _ABBREVIATION.search(text, max(item_start, match.start() - 8), match.start()):
                pieces.append((begin, match.start() + 1))
                begin = match.end()
        pieces.append((begin, item_end))
    trimmed: list[tuple[int, int]] = []
    for first, last in pieces:
        while True:
            cut = _last_clause(text, first, last)
            if cut <= first:
                break
            if _only_when(text, first, cut, last):
                break  # "When writing blog posts, put a space …": the clause before says when, the rest is the rule
            before = _last_clause(text, first, cut)
            if _WHEN.search(fold(text[max(first, before + 1) : cut].strip(" ,，;；—–"))):
                break  # "…, so when it's about packaging, explain it a bit more": the ask is what the rule says to do
            tail = fold(strip_lead_in(text[cut + 1 : last].strip(" ,，;；—–")))
            if tail.startswith("so "):
                tail = tail[3:]
            # "push 永远是我自己来" opens on a verb's word and asks nothing: it says always
            # "不是 115200，是 1000000": a clause that names a value is the rule's, however like a yes it reads
            said_yes = ACK.fullmatch(tail) and not _NUMBER_VALUE.search(tail)
            aside = _ASIDE.search(tail) and not _WHENEVER_FIRST.match(tail)
            asks = (REQUEST.search(tail) and not GENERAL.search(tail)) or aside or said_yes
            # a failure the rule says when it comes is the rule's ("CI … fails the build if what's committed is stale",
            # "超过 2 天没新数据就报错"), not a report of what went wrong
            reports = (failed := COMPLAINT.search(tail)) and not _when_it_fails(tail, failed)
            if not (asks or (reports and not any(p.search(tail) for _, _, p in CUES))):
                break
            last = cut
        last = _without_aside_tail(text, first, _before_an_ask(text, first, last))
        if last > first:
            trimmed.append((first, last))
            trimmed.extend(_facts_after_an_ask(text, first, last))
    return trimmed


def _before_an_ask(text: str, first: int, last: int) -> int:
    """Return where a sentence ends before a clause that asks for work, its own clauses after it included.

    "staging 的地址是 https://…，帮我在 client.ts 里配一下 axios，带上 interceptor": the address lasts,
    the ask and what it goes on to ask are the task at hand.
    """
    marks = sorted(
        {i for mark in _CLAUSE_MARKS for i in _find_all(text, mark, first, last)}
        | {m.start() for m in _SPOKEN_STOP.finditer(text, first, last)}
    )
    for cut in marks:
        tail = fold(strip_lead_in(text[cut + 1 : last].strip(" ,，;；—–")))
        if ASKED_CHANGE.match(tail) and weight(text[first:cut]) >= MIN_WEIGHT:
            return cut
    return last


def _find_all(text: str, mark: str, start: int, end: int) -> list[int]:
    found, at = [], text.find(mark, start, end)
    while at >= 0:
        found.append(at)
        at = text.find(mark, at + 1, end)
    return found


def _only_when(text: str, first: int, cut: int, last: int) -> bool:
    """Tell whether the clauses before ``cut`` only say when the rest holds ("写博客的时候，…")."""
    # (after its connective: "and before you tell me something is done, run `uv run sqlfluff lint` on …")
    head = strip_lead_in(" ".join(text[first:cut].split())).rstrip(" ,，")
    condition = split_condition(strip_lead_in(" ".join(text[first:last].split())))[1]
    return bool(head) and fold(condition.rstrip(" ,，")) == fold(head)


def _items(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Split a sentence where a semicolon opens another item: "回答短一点；也别在回复里加 emoji" is two rules.

    A second clause on the same thing ("argo syncs stg only; prod is a manual sync") stays, and
    back-to-back rules on one thing join again later (``_joined``); one that opens on "also", "也",
    "还有" says another thing, so that a later change replaces only the one it changes.
    """
    found: list[tuple[int, int]] = []
    begin = start
    for match in _ANOTHER_ITEM.finditer(text, start, end):
        if weight(text[begin : match.start()]) >= MIN_WEIGHT:
            found.append((begin, match.start()))
            begin = match.end()
    found.append((begin, end))
    # …and where the rule follows a dash after what happened one day ("…this morning… — never for prod")
    # …and where who the person is follows a rule as its reason ("用简体中文回我 — 我是马来西亚华人，我们学的是简体")
    parts = [part for first, last in found for part in apart_after_a_day(text, first, last)]
    return [piece for first, last in parts for piece in _apart_before_who(text, first, last)]


_DASH_BREAK = re.compile(r"\s+[—–]\s+|\s*——\s*")


def apart_after_a_day(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Part text[start:end] at the dash between its account of one day and a standing rule said after it.

    "re the staging sync this morning: the app picked up the broken secret, which is how it should be —
    auto-sync stays on for dev and staging, but never for prod" tells of a morning, then says what holds on.
    """
    for match in _DASH_BREAK.finditer(text, start, end):
        head, tail = fold(text[start : match.start()]), fold(text[match.end() : end])
        if one_off(head) and not one_off(tail) and HOLDS_ON.search(tail) and len(tail.split()) >= 3:
            return [(start, match.start()), (match.end(), end)]
    return [(start, end)]


def _apart_before_who(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Part text[start:end] at a dash after which the person says who they are: the reason is a statement too."""
    for match in _DASH_BREAK.finditer(text, start, end):
        tail = strip_lead_in(fold(text[match.end() : end]))
        if weight(text[start : match.start()]) >= MIN_WEIGHT and IDENTITY.match(tail):
            return [(start, match.start()), (match.end(), end)]
    return [(start, end)]


def _last_clause(text: str, start: int, end: int) -> int:
    """Return where the last clause of text[start:end] begins (its mark), or -1 when it has one clause."""
    spoken = max((m.start() for m in _SPOKEN_STOP.finditer(text, start, end)), default=-1)
    return max(spoken, *(text.rfind(mark, start, end) for mark in _CLAUSE_MARKS))


def _without_aside_tail(text: str, start: int, end: int) -> int:
    """Return where a sentence ends without its closing clauses about this time only.

    "我在备考 JLPT N2，这次一定要一把过" states who the person is before its wish for this time;
    "用 fetch，不要引 axios，header 自己拼一下就行" its rule before an aside. A hedge that doubts
    the whole ("还没决定", "maybe") is no aside: the sentence keeps it, and is no candidate.
    """
    while True:
        cut = _last_clause(text, start, end)
        if cut <= start or weight(text[start:cut]) < MIN_WEIGHT:
            return end
        tail = fold(text[cut:end])
        # "…一律用英文，这个店以后可能换别的开发接手": a maybe in the reason after a rule that says always
        # ("以后都用 Postgres，可能吧" doubts the whole)
        doubt = _MAYBE.search(tail) and weight(tail) >= MIN_WEIGHT + 2 and GENERAL.search(fold(text[start:cut]))
        if not (LOCAL_HEDGE.search(tail) or doubt):
            return end
        end = _before_open_bracket(text, start, cut)


def _before_a_caption(text: str, start: int, end: int) -> int:
    """Return where a sentence ends before its last clause when that clause captions what follows and the clauses
    before it set a value now ("blog 升到 Astro 5 了，昨晚 `pnpm up --latest` 的，现在 build 一堆 warning：" over a
    pasted log): that setting stands; what went wrong before a log ("剛剛 POST /v1/match/queue 直接 500，log：") not."""
    if not text[start:end].rstrip().endswith((":", "：")):
        return end
    cut = _last_clause(text, start, end)
    if cut <= start or weight(text[start:cut]) < MIN_WEIGHT or not NOW_SET.search(fold(text[start:cut]).casefold()):
        return end
    return cut


def _before_open_bracket(text: str, start: int, cut: int) -> int:
    """Return ``cut``, or where the bracket it falls inside opens: "There are two EKS clusters, prod-fra and
    staging-fra (a 1.30 upgrade is coming, not today)" loses its aside whole, not from its comma on."""
    opened: list[int] = []
    for at in range(start, cut):
        if text[at] in "(（":
            opened.append(at)
        elif text[at] in ")）" and opened:
            opened.pop()
    end = opened[0] if opened else cut
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def weight(text: str) -> float:
    cjk = len(CJK_CHAR.findall(text))
    return len(_LATIN_WORD.findall(text.lower())) + cjk / 2


# a change that points back at what was just said: "Scrap that — we're going with microbatch", "actually make it 7
# days", "算了，还是用 Redis"
POINTS_BACK = re.compile(
    r"(?i)^\W*(?:scrap that|forget (?:that|it|what i said)|never ?mind(?: that)?|ignore that|drop that"
    r"|(?:(?:no,? )?actually,? |wait,? )?make (?:it|that|them) |算了|那个(?:不要了|算了|不用了)|改主意了)"
)


def pointed_at(text: str, start: int) -> str:
    """Return the sentence before ``start`` in its text, where a change points back at it ("" if none)."""
    before = text[max(0, start - 400) : start]
    sentences = split_sentences(before)
    return sentences[-1].text.strip() if sentences else ""
