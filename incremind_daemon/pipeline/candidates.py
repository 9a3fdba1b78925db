"""Pick candidate insight statements from new material, by cue phrases in Chinese and English.

The local, deterministic extraction path: every candidate is one sentence of the writer's
own prose that carries a cue (``lasting``) for who the person is, how to talk to them, a
standing preference, a correction, a decision, a fact about a named thing (port, path,
version, URL, owner), a method or a dated event. Its ``quote`` is that sentence verbatim
with offsets into the text; its ``statement`` is the same words cleaned (``statement``),
with a leading "when to recall" clause moved into ``condition``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection
from dataclasses import dataclass, replace

from incremind_daemon.pipeline.amounts import sets_value
from incremind_daemon.pipeline.answers import picked_decision, picks_option
from incremind_daemon.pipeline.at_hand import STATUS, SYMPTOM, TODAY_PLAN
from incremind_daemon.pipeline.conversing import FORBIDS, MINE_TO_DO, WHEN_SAID, lasts_in_conversation
from incremind_daemon.pipeline.cues import ACK, QUOTED_WORDS, fold
from incremind_daemon.pipeline.features import features_of, keys_of, names_a_day, numbers_of
from incremind_daemon.pipeline.holding import says_it_holds
from incremind_daemon.pipeline.lasting import (
    BOILERPLATE,
    COMMUNICATION,
    CUES,
    GENERAL,
    HAPPENED,
    HEDGE,
    PUT_OFF,
    QUESTION,
    REQUEST,
    names_a_standing_choice,
    one_off,
    without_task_tail,
)
from incremind_daemon.pipeline.lasting_model import Chance, LastingReader
from incremind_daemon.pipeline.openers import CONTEXT_OPENER
from incremind_daemon.pipeline.pieces import (
    MIN_WEIGHT,
    OTHER_EN,
    OTHER_ZH,
    POINTS_BACK,
    VALUE,
    pointed_at,
    sentence_pieces,
    weight,
    whole_code_spans,
)
from incremind_daemon.pipeline.prose import INLINE_CODE, is_block_line, is_code, is_list_item, prose_spans
from incremind_daemon.pipeline.reach import REACH_BACK, widens_the_one_before, with_reach
from incremind_daemon.pipeline.redact import find_secrets, redact
from incremind_daemon.pipeline.reported import reported_view
from incremind_daemon.pipeline.scope import about_the_person, rules_scope_stands, scope_of
from incremind_daemon.pipeline.sections import (
    ACTION_ITEM,
    STANDUP_SLOT,
    clipped_article,
    decision_items,
    discussion_items,
    recurs_weekly,
    rule_items,
    says_clipped,
    says_where_from,
    spoken_lines,
    taken_quotes,
    task_items,
    under_heading,
    work_points,
)
from incremind_daemon.pipeline.setting_words import states_setting
from incremind_daemon.pipeline.stance import RESTATED, RESTATED_TAIL
from incremind_daemon.pipeline.statement import clean_statement, split_condition, strip_lead_in
from incremind_daemon.pipeline.step_words import waits_then_acts
from incremind_daemon.store.charsets import CJK_CHAR
from incremind_daemon.store.records import Candidate

log = logging.getLogger(__name__)

_MAX_CHARS = 320
_MAX_SECRET_SHARE = 0.3
_DIGIT = re.compile(r"\d")
_DATED_WEIGHT = 8.0  # "约了 10/9 周五晚上 8 点视频聊", not a day's heading ("3/5 周四", "Next sync: 4/17, same time.")
_NARRATED = re.compile(r"(?<![a-z])(?:was|were|got|had|did|used to)(?![a-z])")
# a note's "label: value" line, but not its metadata ("Author:", "Next sync:", "参会：") nor an action item
_KEY_VALUE = re.compile(
    r"^(?!\[[ x]\]|我[:：]|i:|(?:author|date|time|attendees|participants|next (?:sync|meeting)|location|owner of the"
    r" action|reviewed|参会|时间|地点|记录人?|下次|日期)\b)[^:：,，。]{1,16}[:：=]\s*(?![a-z]+ (?:whether|if)\b)\S"
)
_SCOPED_PREFIX = re.compile(r"[a-z]\([\w./-]+\):$")  # a conventional commit's "fix(exif):" is an example, no caption
# the person speaking in their own voice in a note on someone else's work: "我们现在 staging 上看的其实都是前后对比"
_OWN_VOICE = re.compile(r"(?<![\w'])(?:i|i'm|i'll|i've|i'd|my|me|mine|we|we're|we've|our|ours)(?![\w'])|我|咱")


@dataclass(frozen=True, slots=True)
class _Scored:
    candidate: Candidate
    score: float
    key: str


def extract_candidates(
    text: str,
    *,
    limit: int = 12,
    conversational: bool = False,
    reader: LastingReader | None = None,
    asked: str = "",
) -> list[Candidate]:
    """Pick up to ``limit`` lasting sentences of text as candidate insights.

    Only the writer's own prose is read (``prose.prose_spans``): pasted logs, code, tracebacks and
    quoted lines never yield a candidate. ``conversational`` text is a person's turn in a session,
    where only standing words count (see ``lasting``). With a ``reader`` (``lasting_model``), how likely
    each sentence is to last, read from its meaning, decides beside the cues: it takes a sentence no cue
    names ("this repo is on pnpm") and drops one a cue took by its words alone. ``asked``: the agent's
    message the turn answers, whose option a sentence picking it by label decides ("就 2 吧"). The
    strongest win, in document order. For every candidate, ``text[c.start:c.end] == c.quote``.
    """
    if limit <= 0 or not text:
        return []
    pieces = _widened(text, read_pieces(text, conversational=conversational))
    picked = {(p.start, p.end): o for p in pieces if asked and (o := picks_option(text[p.start : p.end], asked))}
    pieces = [replace(p, decided=True) if (p.start, p.end) in picked else p for p in pieces]
    chances = reader.chances([text[p.start : p.end] for p in pieces], conversational) if reader and pieces else None
    scored: list[_Scored] = []
    seen: set[str] = set()
    for index, piece in enumerate(pieces):
        chance = chances[index] if chances is not None else None
        found = _score_sentence(text, piece, conversational=conversational or piece.spoken, chance=chance)
        if found is not None and found.key not in seen:
            seen.add(found.key)
            scored.append(found)
    joined = _with_reasons(text, _joined(text, scored), pieces, picked.keys())
    best = sorted(joined, key=lambda s: (-s.score, s.candidate.start))[:limit]
    reached = with_reach(text, [s.candidate for s in sorted(best, key=lambda s: s.candidate.start)])
    reached = [replace(c, about=pointed_at(text, c.start)) if POINTS_BACK.match(c.quote) else c for c in reached]
    return [picked_decision(c, picked[c.start, c.end]) if (c.start, c.end) in picked else c for c in reached]


_SHORT_RULE = 4.0  # the weight of a rule too short to say why it holds ("don't set PORT", "No third-party packages")
_REASON_WEIGHT = 25.0
_TO_THE_AGENT = re.compile(r"(?<![a-z])(?:you|your|you're|you've)(?![a-z])|你")


def _with_reasons(
    text: str, scored: list[_Scored], pieces: list[Piece], picked: Collection[tuple[int, int]]
) -> list[_Scored]:
    """Give a short rule the plain sentence right after it on its line, which says why or how it holds.

    "don't set PORT. render gives us 10000 and puma.rb already reads it from the env": apart, the rule lacks
    what an agent needs (10000), and the reason is no rule of its own. A sentence that is a candidate itself,
    opens another item ("and …", "还有…"), says when it holds (a rule of its own), asks for the task at hand,
    reports how things stand, what the agent did or what the person will do next, or is someone else's view
    stays apart; and a sentence that ``picked`` an option the agent offered ("按方案二") is that option.
    """
    taken = {found.candidate.start for found in scored}
    out: list[_Scored] = []
    for found in scored:
        rule = found.candidate
        after = next((p for p in pieces if p.start >= rule.end), None)
        if after is None or after.start in taken or rule.reported or (rule.start, rule.end) in picked:
            out.append(found)
            continue
        between, quote = text[rule.end : after.start], text[after.start : after.end]
        why = not between.strip() and "\n" not in between and weight(rule.quote) <= _SHORT_RULE
        why = why and weight(quote) <= _REASON_WEIGHT and not (_ANOTHER.match(quote) or _TOLD.search(after.folded))
        # "I'll check the logs later" is the person's next step; "你看的是 staging 的 aws-node" what the agent did
        why = why and not (MINE_TO_DO.match(after.folded) or _TO_THE_AGENT.search(after.folded))
        why = why and not WHEN_SAID.search(after.folded)  # "if it's still on an unmerged branch, just edit it": a rule
        for_now = _for_now(after.folded) or CONTEXT_OPENER.match(after.folded) is not None
        if not why or for_now or reported_view(after.whole, clipped=after.clipped):
            out.append(found)
            continue
        said = redact(clean_statement(quote))
        reason = Candidate(said, rule.category, "", quote, after.start, after.end, rule.scope)
        out.append(_join(text, found, _Scored(reason, found.score, "")))
    return out


def _joined(text: str, scored: list[_Scored]) -> list[_Scored]:
    """Make one candidate of back-to-back sentences on one named thing, in one line of one text.

    "Argo auto-syncs stg only. Prod is a manual sync I do myself — never run `argocd app sync` on
    prod." is one rule said in two sentences: apart, the first lacks what matters and the second
    repeats its subject. Two sentences join when only spaces stand between them, they name a thing
    in common (not only a number), are of one category, scope and voice (both the person's, or both
    reported), and the second does not open on another item ("and …", "还有…", "memory 的话"): two
    rules stay two insights, so that a later change replaces only the one it changes.
    """
    out: list[_Scored] = []
    for found in sorted(scored, key=lambda s: s.candidate.start):
        after = bool(out) and not text[out[-1].candidate.end : found.candidate.start].strip()
        if after and _BECAUSE.match(found.candidate.quote):
            continue  # "不加的话, 一个 pod 可以把整个 node 的 CPU 吃光": why the rule before it holds, no rule itself
        # "not you, not me" names nothing: it stresses the sentence right before it, and alone says nothing
        if not keys_of(features_of(found.candidate.statement)) and not CJK_CHAR.search(found.candidate.statement):
            if after:
                out[-1] = _join(text, out[-1], found)
            continue
        if out and found.candidate.start < out[-1].candidate.end:
            # a fact read again past the ask that holds it: the surer of the two stands ("commit it — message '…'"),
            # or the fact when the ask is a bare verb ("然后 commit，message 写中文")
            ask = strip_lead_in(text[out[-1].candidate.start : found.candidate.start].strip(" ,，:：—–"))
            if found.score > out[-1].score or (REQUEST.match(fold(ask)) and weight(ask) <= 3):
                out[-1] = found
            continue
        if out and _continues(text, out[-1].candidate, found.candidate):
            # "your kubectl had no --context and my current-context is tw-prod-ca. always pass --context": what the
            # agent got wrong is why the rule after it is said, not part of it
            told = _TOLD.search(fold(out[-1].candidate.quote)) and not _NARRATED.search(fold(found.candidate.quote))
            out[-1] = found if told else _join(text, out[-1], found)
        else:
            out.append(found)
    return out


# a sentence about what the agent did: "your kubectl had no --context", "you used npm again"
_TOLD = re.compile(r"^\W*(?:(?:no|nope|hey|ugh|wait|again)[,!.\s]+)?(?:you|your)\b.*\b(?:was|were|got|had|did|used)\b")
_INSTEAD = re.compile(r"^\W*(?:(?:just |only )?(?:use|go with|go through|keep them in)\b|(?:改)?用|走|放到|放在)")
# a sentence that says why the one before it holds: "Otherwise …", "否则…", "不加的话，…"
_BECAUSE = re.compile(
    r"(?i)^\W*(?:because|since|otherwise|or else|that's why|this is because|否则|不然|要不然|因为|毕竟"
    r"|不[\u4e00-\u9fff]{1,3}的话|没有的话)"
)
# a second sentence that opens with "and", "还有", "也别" or a new topic ("memory 的话") says another thing, and so
# does one that opens on a rule from now on ("以后写 shell 脚本都先过一遍 shellcheck") or on what follows from the
# first ("所以对客户的 report 还是用 MAPE": the fact, then the decision it leads to)
_ANOTHER = re.compile(
    rf"(?i)^\W*(?:and|{OTHER_EN}|another|other than that|besides|separately|oh and|from now on)\b"
    rf"|^\W*(?:{OTHER_ZH}|其次|再就是|顺便|对了|也(?=[别不要请用改记])|以后|以後|今后|所以|因此)|^[^，,。.]{{1,16}}的话[，,\s]"
)


def _continues(text: str, first: Candidate, second: Candidate) -> bool:
    between = text[first.end : second.start]
    if between.strip() or "\n" in between or first.reported != second.reported:
        return False
    # how to talk to the person is a thing of its own: "I'm Chia-ying … I switch between English and 中文. Reply in
    # English though." is who they are, then a rule
    if bool(COMMUNICATION.search(fold(first.quote))) != bool(COMMUNICATION.search(fold(second.quote))):
        return False
    if second.end - first.start > _MAX_CHARS or first.scope != second.scope:
        return False
    # one rule in two kinds of sentence: what not to do, then what to do instead ("secrets 不要放在 values 里。用
    # external-secrets, 从 AWS Secrets Manager 拿。")
    instead = FORBIDS.search(fold(first.quote)) and _INSTEAD.match(fold(second.quote))
    if (first.category != second.category and not instead) or _ANOTHER.match(second.quote):
        return False
    mine, theirs = features_of(first.statement), features_of(second.statement)
    # "answer" is every reply's: "reply in English" and "keep answers short" are two rules
    return bool((keys_of(mine) - numbers_of(mine)) & (keys_of(theirs) - numbers_of(theirs)) - {"answer"})


def _join(text: str, first: _Scored, second: _Scored) -> _Scored:
    a, b = first.candidate, second.candidate
    mark = "；" if CJK_CHAR.match(a.statement[-1:]) else "; "
    rest = b.statement
    if re.match(r"[A-Z][a-z]+\b", rest):  # "Prod is …" reads on as "prod is …"; "I", "CI", "PlanService" stay
        rest = rest[0].lower() + rest[1:]
    statement = f"{a.statement}{mark}{rest}"
    lead = first if first.score >= second.score else second
    candidate = Candidate(
        statement,
        lead.candidate.category,
        a.condition or b.condition,
        text[a.start : b.end],
        a.start,
        b.end,
        a.scope,
        reported=a.reported,
    )
    return _Scored(candidate, max(first.score, second.score), first.key + second.key)


@dataclass(frozen=True, slots=True)
class Piece:
    """A sentence (or a chat turn's clause) of the writer's own prose that may hold a candidate."""

    start: int
    end: int
    decided: bool  # an item of a list under a "Decisions" heading
    whole: str  # its words on one line, folded (``cues.fold``)
    folded: str  # the same past its lead-in, where requests and questions show
    ruled: bool = False  # an item of a list under a caption that says its items hold from now on
    discussed: bool = False  # an item of a list under a "Discussion" or "Background" heading
    clipped: bool = False  # a sentence of an article the note says it clipped from elsewhere
    everywhere: bool = False  # a remark after it says it holds in every project
    spoken: bool = False  # said in a meeting a note transcribes, read as talk in a chat is


def read_pieces(text: str, *, conversational: bool) -> list[Piece]:
    """Return the pieces of text worth reading, in document order: prose sentences past the
    hard checks (not too long or too short, not a heading, question, acknowledgement, code, hedge)."""
    pieces: list[Piece] = []
    decided = decision_items(text)
    ruled = rule_items(text)  # said to an agent too: "团队约定，按这个来：" over "1. 组件文件名 PascalCase …"
    discussed = [] if conversational else discussion_items(text)
    tasks = [] if conversational else task_items(text)  # "## Action items": work for once, never proposed
    article = None if conversational else clipped_article(text)
    points = [] if conversational else work_points(text)  # a note on a book or article lists its points
    spoken = [] if conversational else spoken_lines(text)
    taken = taken_quotes(text) if conversational else []
    for span_start, span_end in prose_spans(text, quoted=not conversational, taken=taken):
        for sentence_start, sentence_end in whole_code_spans(text, span_start, span_end):
            for start, end in sentence_pieces(text, sentence_start, sentence_end, conversational):
                in_decisions = any(a <= start < b for a, b in decided)
                if any(a <= start < b for a, b in tasks):
                    continue
                if not conversational and (article is None or end <= article[0]) and says_clipped(text[start:end]):
                    continue  # "Clipped from: https://…", "pasted from #infra-announce": where it is from, no rule
                if not conversational and says_where_from(text[text.rfind("\n", 0, start) + 1 : end]):
                    continue  # "Source: blog post from …", "讲师：刘老师": where a note's material is from
                if (piece := _readable(text, start, end, decided=in_decisions)) is not None:
                    # an item's first sentence is the rule; what follows it in the item says why
                    rule = next((span for span in ruled if span[0] <= start < span[1]), None)
                    if rule is not None:
                        ruled.remove(rule)
                    piece = piece if rule is None else replace(piece, ruled=True)
                    if any(a <= start < b for a, b in discussed):
                        piece = replace(piece, discussed=True)
                    if any(a <= start < b for a, b in spoken):
                        piece = replace(piece, spoken=True)
                    if article is not None and article[0] <= start < article[1]:
                        piece = replace(piece, clipped=True)
                    elif any(a <= start < b for a, b in points) and not _OWN_VOICE.search(piece.whole.casefold()):
                        piece = replace(piece, clipped=True)  # the work's point, unless the reader speaks in it
                    pieces.append(piece)
    return pieces


def _widened(text: str, pieces: list[Piece]) -> list[Piece]:
    """Drop a remark on where the rules before it hold ("Applies to all my repos, client or not"; "thats every repo
    not just this one" reaches back over its paragraph) and read those rules as global; the sentence it follows on
    its line is a rule the person stands by."""
    out: list[Piece] = []
    for piece in pieces:
        reach = widens_the_one_before(piece.whole) if out and "\n" not in text[out[-1].end : piece.start] else None
        if reach is None:
            out.append(piece)
            continue
        start = text.rfind("\n\n", 0, piece.start) if reach == "paragraph" else out[-1].start
        if is_list_item(text[(line := text.rfind("\n", 0, piece.start) + 1) : piece.start]):
            start = max(start, line)  # "- always tf plan before apply. no exceptions, any repo": its item alone
        # …back to where the paragraph turns to another thing ("另外以后代码注释不要写中文了…。哪个仓库都一样。")
        start = max([start, *(p.start for p in out if p.end > start and _ANOTHER.match(text[p.start : p.end]))])
        out = [replace(p, everywhere=True) if p.end > start and piece.start - p.end <= REACH_BACK else p for p in out]
        out[-1] = replace(out[-1], ruled=True)
    return out


def _readable(text: str, start: int, end: int, *, decided: bool) -> Piece | None:
    """Return the piece when it may hold a statement at all, whatever its cues; else None."""
    quote = text[start:end]
    if len(quote) > _MAX_CHARS or is_block_line(text, start):
        return None
    line = " ".join(quote.split())
    whole = fold(line)
    folded = fold(strip_lead_in(line))  # requests and questions show past the lead-in
    # one word short of a sentence is read only as a whole: "先开华东区" under "## 结论" is a decision, and
    # "minSdk 26。" a setting
    heft = weight(quote)
    if heft < MIN_WEIGHT and (heft < MIN_WEIGHT - 1 or not (decided or states_setting(quote, folded))):
        return None
    bare = folded.rstrip(" .。!！\"”」'’)）")
    # (bold or not: "**From now on:**" over a numbered list)
    caption = whole.rstrip("*_ ").endswith((":", "：")) and not _SCOPED_PREFIX.search(whole)  # not "…like fix(exif):"
    if caption or whole.startswith(("—", "--")) or ACTION_ITEM.match(quote.strip()):
        return None  # a caption over a list, an aside under one, an action item for one person
    if STANDUP_SLOT.match(whole) and not GENERAL.search(whole) and not _NEW_VERSION.search(whole):
        # "上周：分页改完了" reports one day's work ("今天：以后都先跑 lint" still holds, and so does the version
        # a switch leaves things on: "今天的事: we switched to dbt-core 1.9.1 last Friday")
        return None
    # "how I like answers: short, conclusion first" says how, and asks nothing
    asks = QUESTION.search(bare) is not None and not _SAYS_HOW.match(bare)
    if BOILERPLATE.search(folded) or asks or bare.endswith(("?", "？")) or ACK.fullmatch(folded):
        return None
    hedge = HEDGE.search(QUOTED_WORDS.sub("", folded))
    # "…，这次就是 SCF-418-20270315，以后都这么起": this time is the example of a rule said for from now on
    if hedge is not None and _THIS_TIME.fullmatch(hedge.group().strip()) and _FROM_NOW_ON.search(folded):
        hedge = None
    if hedge is not None and decided and _UNTIL_CHANGED.fullmatch(hedge.group().strip()):
        hedge = None  # a meeting's "The status topic stays JSON for now": decided, until a later meeting changes it
    if is_code(folded) or hedge is not None:
        return None
    if "[redacted:" not in folded and "[REDACTED:" not in quote:
        secret = sum(span.end - span.start for span in find_secrets(quote))
        if secret > _MAX_SECRET_SHARE * len(quote):
            return None
    return Piece(start, end, decided, whole, folded)


_SAID_TO_HOLD = {"identity", "decision", "correction", "entity", "event"}  # kinds a one-off word leaves standing
_THIS_TIME = re.compile(r"这次|this time")
_UNTIL_CHANGED = re.compile(r"for now|暂时先")
_NEW_VERSION = re.compile(
    r"(?<![a-z])(?:switched|moved|upgraded|migrated|bumped)(?: \w+)? to [a-z][\w.-]* v?\d+\.\d+"
    r"|(?:换成|换到|升到|升级到|切到|迁到)了?\s*[a-z][\w.-]*\s*v?\d+\.\d+"
)
_FROM_NOW_ON = re.compile(r"以后|今后|从现在起|每次|from now on|going forward|every time")


# a caption that says how the person wants something, with no inversion of a question: "how I like answers: short"
_SAYS_HOW = re.compile(r"(?:how|what) (?:i|we) [^:?]{1,40}:\s*\S")


# a sentence that opens by saying the agent got it wrong: "No, …", "不对，…", "时间也不对，…"
_SETS_RIGHT = re.compile(
    r"(?:no|nope|wrong|not quite)\s*[,.!:;—–-]|(?:[\u4e00-\u9fffa-z]{0,6}?也?(?:不对|错了)|不是的?)\s*[，,。.:：!！]"
)


# what arrived today, said to an agent: "Marta's batch 3 is back from the sequencer", "New pseudobulk exports are in
# data/from_pipeline/", "许晴的接口文档出来了"
_NEWS = re.compile(
    r"^new [a-z]+(?: [a-z]+)? (?:is|are) (?:in|at|on|up|out|ready)\b|(?<![a-z])(?:is|are) back from\b"
    r"|[^，,。\s]{1,12}(?:文档|结果|报告|数据|样本)(?:已经|都)?(?:出来|回来|到)了"
)


# a value a note says went somewhere is what happened: "p99 went from 180 ms to 4.2 s", "v1.9.0 went to prod"
_WENT = re.compile(r"(?<![a-z])went (?:from|to|up|down|back)\b")


def _without_code_words(folded: str, mark: str = " ") -> str:
    """The sentence with each code span of several words replaced by ``mark`` (one word, "`pnpm`", stays): words in
    code are no one's change, a commit message or a command ("commit `MQ-236: … move to 20:00`")."""
    return INLINE_CODE.sub(lambda span: mark if any(c.isspace() for c in span.group()) else span.group(), folded)


def _sets_value(folded: str) -> bool:
    """Tell whether a sentence (folded) sets a thing to a new value in its own words (``amounts.sets_value``)."""
    return sets_value(_without_code_words(folded))


def _for_now(folded: str) -> bool:
    """Tell whether a sentence (folded) is the task at hand: an ask, a plan for today or for once, how things stand
    today, news, or work put off until later."""
    return bool(
        REQUEST.search(folded)
        or TODAY_PLAN.search(folded)
        or one_off(folded)
        or STATUS.search(folded)
        or _NEWS.search(folded)
        or PUT_OFF.search(folded)
    )


def _score_sentence(text: str, piece: Piece, *, conversational: bool, chance: Chance | None = None) -> _Scored | None:
    """Judge a readable piece (``read_pieces``) by its cues and, when given, its ``chance`` of lasting."""
    quote, whole, folded, decided = text[piece.start : piece.end], piece.whole, piece.folded, piece.decided
    # a cue may sit in the lead-in ("No, …", "不对，…"): both forms are read, once when they are the same
    readings = (whole,) if folded == whole else (whole, folded)
    # …and a decision not in the words of code ("commit `MQ-236: make reminder idempotent and move to 20:00`"),
    # which may still name a thing ("commit msgs are `ITIN-<n>: imperative summary`")
    said = tuple(_without_code_words(reading, "`x`") for reading in readings)
    strengths: dict[str, float] = {}
    matched: set[str] = set()
    for category, strength, pattern in CUES:
        if any(pattern.search(reading) for reading in (said if category == "decision" else readings)):
            matched.add(pattern.pattern)
            strengths[category] = max(strength, strengths.get(category, 0.0))
    if "event" in strengths and not HAPPENED.search(folded):
        del strengths["event"]  # a date alone is a heading or a diary stamp, not an event
    if not conversational and not strengths and _KEY_VALUE.match(folded) and VALUE.search(folded):
        strengths["entity"] = 2.0  # a note's "Staging: https://…", "房租 16,500（每月 5 号）"
    setting = states_setting(quote, folded)  # "The batch key is sample_id.": a standing fact a change replaces
    setting_alone = setting and not strengths  # no other cue reads it
    if setting_alone:
        strengths["entity"] = 2.4
    # a setting moved to a new amount, though said as an ask: "change to cl_waiting > 25 for 1 min" (as "改成" is),
    # or as a note's plain line: "lookback goes to 7 days."
    moved = not strengths and _sets_value(folded) and (conversational or not _WENT.search(folded))
    moved = moved and not (one_off(folded) or TODAY_PLAN.search(folded))
    if moved:
        strengths["decision"] = 2.2
    # a note's plan or record for a calendar day ("10 月 24 日（周六）搬，约了搬家公司", "1.4 定在 11 月 27 日发布")
    # holds until then, and a later "搬家不是 24 号而是 25 号了" moves it; "周五家长会改线上了" is the week's news;
    # a slot every week holds until it is moved ("每两周一次，星期四 19:00，在 Waterstones 楼上")
    dated = not conversational and not strengths and weight(whole) >= _DATED_WEIGHT
    dated = dated and (names_a_day(whole) or recurs_weekly(folded))
    if dated:
        strengths["event"] = 2.2
    if decided:
        strengths["decision"] = max(strengths.get("decision", 0.0), 3.2)
    if piece.ruled and not strengths:  # "Max 20 new cards a day." under "the method I'm sticking with from now on:"
        ruled_as = chance.category if conversational and chance is not None else "method"  # to an agent: its kind
        strengths[ruled_as] = 2.0
    # someone else's view counts only as a disagreement with what is known (relate decides)
    reported = reported_view(whole, clipped=piece.clipped)
    lasts = True
    if reported:  # the reporting verb ("坚持要", "would rather", "argues") marks a view
        strengths = {c: s for c, s in strengths.items() if c not in ("identity", "event", "entity")}
        strengths = strengths or {"preference": 1.0}
    elif conversational and not (
        moved or decided or piece.ruled or lasts_in_conversation(folded, frozenset(matched), setting_said=setting_alone)
    ):
        lasts = False
    elif conversational and (STATUS.search(folded) or _NEWS.search(folded) or waits_then_acts(folded)) and not decided:
        # where a run or a release stands today ("Deployed 1.15.0 to staging, all green"), or work held until
        # someone answers ("MR 先不开，等王工回邮件确认…再开"): the task at hand
        return None
    if (
        not reported
        and not piece.ruled  # under "提醒自己" or "house rules", "周五下午不写新功能" is every Friday
        # (not in a tail that says it was said before: "Stored in UTC, shown in Lisbon, that was the whole point")
        and (one_off(folded) or _NARRATED.search(RESTATED_TAIL.sub("", folded.rstrip(" .!。！"))))
        and not strengths.keys() & _SAID_TO_HOLD
    ):
        lasts = False  # "周六去外婆家，记得带药" is for one day; "they got lost on every page change" is a story
    if not reported and not piece.ruled and PUT_OFF.search(folded):
        lasts = False
    lasts = lasts and bool(strengths)
    if chance is not None:
        # the cues' verdict stands unless the sentence's meaning says clearly otherwise
        # …and what a person says of themselves ("I prefer tabs over spaces", "回复用中文") is theirs to say:
        # such short sentences read weakly to the model, and on the tuning halves it never rightly dropped one
        # …and an item the writer put under a "Decisions" heading is a decision by their own word
        # …and a setting moved to a new amount, path or version ("超时改成 5 秒吧", "results 目录改成 /scratch/…") is
        # a decision, however much it reads as an ask
        # …and what the person says they have said before ("讲咗几次", "said that on day one") lasts by their word
        # …and what a setting is set to ("回测默认滑点 单边 5bp") is plain and short, and reads weakly
        if (
            lasts
            and chance.likelihood < chance.keep
            and not (decided or piece.ruled or setting or _sets_value(folded))
            and not any(RESTATED.search(reading) for reading in readings)  # "我說過兩三行就好", its lead-in gone
            and not about_the_person(folded, frozenset(matched))
            and not names_a_standing_choice(folded)
            and not any(says_it_holds(reading, conversational=conversational) for reading in readings)
            and not POINTS_BACK.match(quote)  # "make that us-east-2 instead" changes what was just said
        ):
            return None
        if not lasts:
            # an ask, a plan for today or for once is the task at hand, however lasting its words sound
            for_now = _for_now(folded)
            # …and, said to an agent, what is seen going wrong ("it flakes about 1 run in 5", "重连很慢"), unless it
            # says when it would ("the hook fails the commit if …")
            for_now = for_now or (conversational and bool(SYMPTOM.search(folded)) and not WHEN_SAID.search(folded))
            if chance.likelihood < chance.accept or for_now or piece.discussed or CONTEXT_OPENER.match(folded):
                return None
            strengths = {chance.category: 2.0 * chance.likelihood, **strengths}
            strengths[chance.category] = max(strengths[chance.category], 2.0 * chance.likelihood)
    elif not lasts:
        return None
    category = max(strengths, key=lambda c: strengths[c])
    if chance is not None and category == "preference" and chance.category != category and not reported:
        # "preference" is the cues' catch-all (every "always", "别", "don't"); read apart from the halves
        # it was fitted on, the model names the kind of such a statement better (a decision, a fact)
        category = chance.category
        strengths.setdefault(category, 2.0 * chance.likelihood)
    if "correction" in strengths and not reported and _SETS_RIGHT.match(fold(whole).casefold()):
        category = "correction"  # "不对，金额统一用 int64 存分": what it decides, it decides to put a mistake right
    if conversational and category == "method":
        strengths["preference"] = strengths.pop("method")
        category = "preference"  # a standing instruction to the agent
    slot = STANDUP_SLOT.match(fold(quote))  # "今天：以后都先跑 lint" holds without the day it was said on
    cleaned = without_task_tail(clean_statement(quote[slot.end() :] if slot else quote))
    if not conversational:
        cleaned = under_heading(text, piece.start, cleaned)
    statement, condition = split_condition(cleaned)
    if weight(statement) < MIN_WEIGHT - 1:
        statement = cleaned
    statement, condition = redact(statement), redact(condition)
    scope = "project" if reported else scope_of(whole, category, frozenset(matched))
    # a sentence that names this project is said of it: the scope model is not asked
    reads = chance is not None and not reported and not rules_scope_stands(whole)
    held_everywhere = chance.reads_global(scope == "global") if chance is not None and reads else None
    if held_everywhere is not None:  # the scope model reads the sentence beside the rules' verdict
        scope = "global" if held_everywhere else "project"
    scope = "global" if piece.everywhere and not reported else scope
    # more kinds of cue and a recall condition make a sentence a better insight; length does not
    score = strengths[category] + 0.25 * (len(strengths) - 1) + (0.5 if condition else 0.0)
    score += 0.25 if _DIGIT.search(folded) else 0.0
    score -= 0.5 if len(quote) > 200 else 0.0
    key = re.sub(r"[\W_]+", "", fold(statement).casefold())
    candidate = Candidate(
        statement, category, condition, quote, piece.start, piece.end, scope, reported=reported, decided=decided
    )
    return _Scored(candidate, score, key)
