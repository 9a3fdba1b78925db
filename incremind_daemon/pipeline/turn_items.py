"""Read one turn of a session into state items: what it reports done, decides or leaves to do next.

Each sentence is judged in the light of the dialogue around it: an agent's report by how the
person answered it and by what its tools changed, a person's sentence by whether it directs the
work, holds a step back, takes the agent's plan or answers its question. A report that names
nothing ("改好了：", "Done.") borrows the ask it answers, one that leaves out the value the ask
set borrows the value (report_values.py), and "fixed both" borrows the clause before it; a step
that names its object by pronoun ("I'll push it") borrows it from the sentence or offer it answers.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass

from incremind_daemon.pipeline.answers import picked_option
from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.cues import (
    ACCEPT_CUES,
    ANNOUNCE_CUES,
    ASK_CAPTION,
    CHOICE_CUES,
    CORRECTION_CUES,
    DECISION,
    DIRECTIVE_CUES,
    DONE,
    FORBID_CUES,
    HOLD_CUES,
    LATER_CUES,
    NEXT,
    NEXT_CUES,
    NOT_DONE_CUES,
    NOT_ITEM_CUES,
    OFFER_CUES,
    OVERRULE_CUES,
    POLITE,
    PROPOSAL_CAPTION,
    QUOTED_WORDS,
    REPORT_OF_THOSE,
    REVERSE_CUES,
    SETTLE_CUES,
    SUPPOSE_CUES,
    UNDO_CUES,
    WEAK_NEXT_CUES,
    fold,
    is_later_more,
    settles_more,
)
from incremind_daemon.pipeline.goal import introduces_only
from incremind_daemon.pipeline.lasting import FORGET_PASTE, IDENTITY, REQUEST
from incremind_daemon.pipeline.leaning import named_before, names_nothing
from incremind_daemon.pipeline.markdown import (
    COMMON_WORDS,
    Block,
    as_item,
    clip,
    named_values,
    split_blocks,
    text_weight,
    words_of,
)
from incremind_daemon.pipeline.mentions import MentionedFiles
from incremind_daemon.pipeline.openers import INTRO_CUES
from incremind_daemon.pipeline.organize import split_sentences
from incremind_daemon.pipeline.prose import INLINE_CODE
from incremind_daemon.pipeline.reach import holds_everywhere
from incremind_daemon.pipeline.replies import reply_slots
from incremind_daemon.pipeline.report_values import with_asked
from incremind_daemon.pipeline.reports import (
    CHAT_BREAK,
    CODE_DOES,
    ITEM_CHARS,
    ask_of,
    goes_on_after_bare_done,
    is_checks,
    is_result,
    may_hold,
    opens_bare_done,
    shown_code,
    shown_diff,
    tools_told,
    with_code_shown,
    with_file,
)
from incremind_daemon.pipeline.state_cues import (
    ABSENCE_CUES,
    CHANGED_TO,
    PERSON_STEP_CUES,
    STANDING_CUES,
    asks_for_work,
    captions_done,
    classify_item,
    is_ack_or_command,
    is_asking,
    is_bare_report,
    is_carried_out,
    is_done,
    is_leaving,
    only_put_off,
    only_yes,
    overrules,
    proposes,
    settles_still_more,
    strip_prefix,
    without_conditions,
)
from incremind_daemon.pipeline.statement import strip_lead_in
from incremind_daemon.pipeline.step_words import (
    NEXT_STEP,
    PROPOSAL_TAIL,
    RULES_CAPTION,
    awaits,
    changes_plan,
    is_set_aside,
    offer_joined,
    proposed,
    put_off_till,
    resolved,
    says_when_it_runs,
    unlabelled,
    waits_then_acts,
    with_command,
    without_hold,
)

log = logging.getLogger(__name__)

TURN_CHARS = 20_000
SENTENCE_END = re.compile(r"[.!?](?:\s|$)|[。！？…\n]")
# a clause, or a report and the offer a dash or a Chinese comma hangs on it: "The dry run was clean — want me to
# run --apply?", "PlanService 改好了，ViewModel 那边要我一起改吗？"
_CLAUSE = re.compile(
    r"(?<=\S);\s+|；|\s[—–]\s(?=(?:want me|should i|shall i|do you want|would you like|要不要|需要我))"
    r"|(?<=[了完过])[，,]\s*(?=[^，,。？?]{0,24}(?:要我|要不要|需要我)[^，,。]*[？?]$)"
    r"|,\s+(?=(?:want me|should i|shall i|do you want|would you like)\b[^,.]*\?$)"
    # a hold said last is a decision of its own: "revive 那五个明天再修，今天先这样，先不要 commit"
    r"|[，,]\s*(?=(?:这次|這次)?(?:先|暂时|暫時)(?:别|別|不要)\s*(?:commit|push|merge|提交|推|合并|上线)[^，,。]{0,6}[。.!！]?$)"
    r"|,\s+(?=(?:but )?(?:don't|do not) (?:commit|push|merge)(?: it| this| anything)? yet[.!]?$)"
)
_GO = re.compile(r"(?:go|ship it|let's go|那就这样|就这样)\W*$")
# an agent's plan, which a bare "Go." takes: "I'll print the table and …", "我打算…" (a "Plan: …" caption proposes)
_PLAN = re.compile(r"(?<![a-z])(?:i'll|i will|i'm going to|i plan to)(?![a-z])|我打算|我会|计划|方案")
_CAPTION_WORDS = ("propos", "plan", "option", "方案", "建议", "提议", "建議", "提議")
_CLAUSE_HEAD = re.compile(r"[,，:：;；。.!！]")
# a reply that opens by turning down what the agent named: "PSK 不行，broker 不支持", "nginx 不要" (not "还是不行")
_TURNS_DOWN = re.compile(r"[\w.+-]{1,24}\s*(?<!还是)(?<!仍然)(?<!依然)(?:不行|不可以|不要|不用)(?:[，,。.！!\s]|$)")
# a hedge on a step put off, which leaves it the step: "Panel D tomorrow probably", "明天可能再看"
_HEDGE = re.compile(r"maybe|perhaps|probably|也许|或许|可能")
# the house way, which makes a rule of a step put off: "老规矩，你只管 commit，别 push，我自己看完再推"
_AS_USUAL = re.compile(r"老规矩|照旧|(?<![a-z])(?:as usual|as always|same as always|same rule as always)(?![a-z])")
# a goodbye that names a time, which puts nothing off: "謝啦，週末愉快", "明天见", "have a good weekend"
_FAREWELL = re.compile(
    r"周末(?:愉快|快乐|见)|(?:明天|后天|下周|周[一二三四五六日]|下次|回头|晚点)见"
    r"|have a (?:good|nice|great) (?:weekend|evening)|that's (?:it|all|enough) for tonight|done for tonight|晚安"
    r"|see you (?:tomorrow|next week|(?:on )?(?:mon|tues|wednes|thurs|fri)day)"
)
_FAREWELL_WORDS = ("见", "周末", "have a", "see you", "tonight", "晚安")
_CLAUSE_BREAK = re.compile(r"[,，;；]|\s[—–]\s")
# a sentence that says outright it is the next step ("接下来" and "next" also open rules: "接下来都用 pnpm")
# a turn that opens with a short caption over code: "改了：\n\n```\nMARKETING_VERSION = 3.8.0\n```"
_SHOWN_CHANGE = re.compile(r"\s*[^\n]{1,40}[:：]\s*\n\s*(?:`{3,}|~{3,})")
# what the person does once back: "周五回来再合", "I'm off tomorrow, I'll merge it Friday"
_AFTER_ABSENCE = re.compile(r"再|(?<![a-z])(?:then|i'll|i will|we'll|merge|push|deploy|review)(?![a-z])")
# when the work asked for is due, or that it comes first: the goal's, not a decision
_DUE = re.compile(
    r"(?<![a-z])(?:has|have|needs?) to (?:be )?(?:done|finished|ready|shipped|out|live)"
    r"(?= (?:by|before|until|this|next|today|tomorrow)\b|[,.;!]|$)"
    r"|(?:that's|that is|this is|it's) the (?:top )?priority"
    r"|(?:之前|以前|前)(?:要|得|必须)把.{1,20}(?:做完|完成|上线|交付)|(?:这|这个)是(?:现在|目前|当前)?的?(?:重点|最高优先级|头等大事)"
)
# a question that only asks for a yes: "可以吗？", "Sound good?", "Should I go ahead?"
_NAMES_NOTHING = re.compile(r"\W*(?:go ahead|proceed|do (?:it|that|this)|sounds? good|ok(?:ay)?)\W*")


@dataclass(frozen=True, slots=True)
class TurnView:
    """What a turn's sentences mean depends on where the turn stands and how the person answered it."""

    role: str
    round_end: bool  # the agent's last message before the person speaks again
    closing: bool  # in the last exchange, where the next step is agreed
    goal: bool  # the opening request
    verdict: str | None  # the person's answer to this agent turn: ACCEPTED, OVERRULED or None
    reply: str  # the text of that answer
    acted: bool  # the agent went on working after the answer
    bare: bool  # the answer only says yes, so what it took is the agent's proposal
    deep: bool  # look for the person's lasting statements too
    before: str  # for the agent, the person's ask it answers; for the person, the agent's turn they answer
    after: str  # for the person, the agent's turn that answers them
    edited: tuple[str, ...]  # the names of the files the agent's tools changed in this turn
    asks: bool = False  # the agent's turn ends with a question, which the person's answer answers


@dataclass(frozen=True, slots=True)
class Item:
    """One piece of state read from a turn: done, decided or next."""

    kind: str  # DONE, DECISION or NEXT
    text: str  # as shown; it may carry words from around its sentence (the ask a bare "Done." answers)
    rank: int  # which of too many to keep
    own: str  # the sentence's own words, which say whether later work covers it


ACCEPTED, OVERRULED = "accepted", "overruled"
# how a decision was found: a lasting statement or a choice in the person's words, a rule they set,
# or a proposal of the agent they took
_STATED, _DIRECTED, _TAKEN = 3, 2, 1


def read_items(text: str, view: TurnView, files: MentionedFiles, at: int) -> Iterator[Item]:
    """Yield the state items of one turn's cue sentences, in order, and record the files it names."""
    if len(text) > TURN_CHARS:  # a long paste: its head and tail say what matters, in bounded time
        text = f"{text[: TURN_CHARS // 2]}\n\n{text[-TURN_CHARS // 2 :]}"
    blocks = list(split_blocks(text))
    for block in blocks:
        files.see_prose(block.text, at)
    if view.role == "user":
        yield from _person_items(text, blocks, view)
    else:
        items = list(_agent_items(text, blocks, view, over_code=_SHOWN_CHANGE.match(text) is not None))
        yield from items
        reported = any(item.kind == DONE for item in items)
        if shown := shown_diff(text, prose := [block.text for block in blocks], reported):
            yield Item(DONE, clip(shown, ITEM_CHARS), 0, shown)
        elif view.edited and view.verdict != OVERRULED:  # what the tools changed: a table of files, or the files
            told = tools_told(text, prose, view.edited, silent=view.round_end and not reported)
            yield from (Item(DONE, clip(said, ITEM_CHARS), 0, said) for said in told if not _is_undone(said, view))
    # an opening that ends on a question ("…其实应该在新分支上。怎么挪过去？") sets it up: it settles nothing
    if view.deep and not (view.goal and text.rstrip().endswith(("?", "？"))):
        for statement in extract_candidates(text, conversational=True):
            folded = fold(statement.statement)
            goal = view.goal and (REQUEST.search(strip_prefix(POLITE, folded)) or _opens(folded) or _DUE.search(folded))
            asks = is_asking(folded) or goal
            step = NEXT_STEP.match(folded)  # "下一步把导出改成异步任务": the step next, not settled
            if statement.category != "identity" and not statement.reported and not asks and not step:
                yield Item(DECISION, clip(statement.statement, ITEM_CHARS), _STATED, statement.statement)


def _agent_items(text: str, blocks: list[Block], view: TurnView, *, over_code: bool) -> Iterator[Item]:
    # a lone "改好了：" or "Done." answers the ask before the turn, as does one over the code it changed;
    # a summary says more
    listed = False  # under a bare report that captions a list ("跑完了：", "Finished:") each item is done
    start = len(blocks) == 1 or over_code
    opening = True  # the turn's first report, which may say less than the ask it answers named
    captioned = ""  # the sentence over the code the block before showed: "给 `X` 加 `@MainActor` 就行："
    heads = opens_bare_done(text, blocks[0].text if blocks else "")  # so the first paragraph says what was done
    # …or a bare "Done." opens a paragraph that goes on: "Done. Gateway is back on -Os; the mbedTLS libraries get -O2."
    leading = _sentences(blocks[0].text) if blocks and not heads and not blocks[0].item else []
    inline = goes_on_after_bare_done(leading)
    for block in blocks:
        inline = inline and block is blocks[0]  # the first paragraph's, once
        head = (heads or inline) and not block.item
        first = as_item(leading[1] if inline else _sentences(block.text)[0]) if head else ""
        if text_weight(first) >= 4 and not first.endswith(("?", "？")) and not _is_undone(first, view):
            yield Item(DONE, clip(with_file(first, view.edited), ITEM_CHARS), 0, first)
        heads = False
        # a report that ends over code says what it did there: "Updated the two places that still said 20:"
        code = shown_code(block.text, text) if block.text.rstrip().endswith((":", "：")) else ""
        # "warning 没了", "编译通过了" right under that code say how the change it shows went
        over, captioned = captioned, as_item(_sentences(block.text)[-1]) if code and not block.item else ""
        captioned = captioned if text_weight(captioned) >= 3 else ""  # "改成：" over code says nothing itself
        caption = not block.item and captions_done(block.text, changed=bool(view.edited))
        listed = listed if block.item else caption
        block = Block(block.text, DONE, True) if block.item and listed and block.hint is None else block
        if block.hint is None and not caption and not may_hold(block.text):
            start = False
            continue
        previous = said = ""  # said: the clause before, which "fixed both" points to
        read = leading if leading and block is blocks[0] else _sentences(block.text)  # the first paragraph's, once
        sentences = offer_joined(read[2:] if inline else read)
        start = start and not inline  # the bare report said what it did in its next sentence
        if block.item and block.hint == DONE:
            sentences = sentences[:1]  # a summary's item says what in its first sentence; the rest is detail
        for sentence in sentences:
            for clause in _CLAUSE.split(sentence):
                if block.hint is None and clause != block.text and not may_hold(clause):
                    start, said = False, clause
                    continue
                item = as_item(clause)
                # "The launcher never set X. Fixed.": a report too short to stand alone joins the sentence before
                chained = bool(previous) and text_weight(item) < 3 and is_done(fold(item))
                those = not chained and bool(said) and REPORT_OF_THOSE.match(fold(item)) is not None
                those = those and text_weight(said) >= 2
                bare = None if chained or those else _bare_report(item, view, start=start)
                # what a pronoun points to says which; it leaves the report itself room to say what was done
                before = clip(as_item(CHAT_BREAK.split(said)[-1]), ITEM_CHARS // 2) if those else ""
                report = f"{previous} — {item}" if chained else f"{before} — {item}" if those else bare
                prior, start, previous, said = said, False, previous if chained else item, item
                if report:
                    # "…改成了 axios. 测试都过了" joins the sentence before, which the person may have taken back
                    undone = _is_undone(item, view) or (chained and _is_undone(previous, view))
                    if not (view.verdict == OVERRULED and undone):
                        shown = report if bare or not opening else with_asked(report, view.before, ITEM_CHARS)
                        shown = f"{over} — {item}" if over and is_result(fold(item)) else shown
                        shown = shown if bare else with_code_shown(shown, clause, block.text, code)  # the ask names it
                        opening = False
                        yield Item(DONE, clip(with_file(shown, view.edited), ITEM_CHARS), 0, item)
                    continue
                found = _judge(item, view, block.hint, settles=False)
                if found is not None:
                    kind, rank = found
                    shown = proposed(item) if kind == DECISION else unlabelled(item)
                    if kind in (DECISION, NEXT) and _asks_a_yes(shown):
                        if text_weight(prior) < 2:
                            continue  # a yes asked for, and nothing before it that says for what
                        # "可以吗？", "你看可以吗？", "Sound good?" ask about the plan or the step before them
                        shown = proposed(as_item(prior)) if kind == DECISION else unlabelled(as_item(prior))
                    if kind == DONE and over and is_result(fold(item)):
                        shown, opening = f"{over} — {item}", False
                    if kind == DONE and opening:  # "我来更新这两个测试" says what it does: no ask beside it
                        announced = ANNOUNCE_CUES.match(fold(item)) is not None
                        shown, opening = shown if announced else with_asked(shown, view.before, ITEM_CHARS), False
                    shown = with_code_shown(shown, clause, block.text, code) if kind == DONE else shown
                    shown = with_file(shown, view.edited) if kind == DONE and not block.item else shown
                    yield Item(kind, clip(shown, ITEM_CHARS), rank, item)


def _person_items(text: str, blocks: list[Block], view: TurnView) -> Iterator[Item]:
    # the first sentence of an objection ("不用。测试里不 mock 数据库") says what the person wants instead,
    # and what follows a bare "Go." to the agent's plan amends the plan
    # a reply to the agent's question settles it when it takes or names a choice ("3-day lookback is fine")
    opening = fold(text.lstrip()[:40])
    turned = OVERRULE_CUES.match(opening) is not None or REVERSE_CUES.match(opening) is not None
    turned = turned or _TURNS_DOWN.match(opening) is not None
    first = turned or _answers(view.before)
    amends = _amends(text, view.before)
    head = True  # the reply's first words, which may answer the agent by a label or a value alone
    last = ""  # the turn's sentence before, across paragraphs, which a short step may name more fully
    ruled = False  # the list is under a caption that says it sets rules: "几条规矩我先定下来：", "Ground rules:"
    for at, block in enumerate(blocks):
        listed = at + 1 < len(blocks) and blocks[at + 1].item  # a caption over a list decides in its items
        ruled = (ruled and block.item) or (listed and RULES_CAPTION.search(fold(block.text)) is not None)
        said = ""  # the sentence before, which a pronoun in the next one may point to
        instead = False  # the sentence before forbade something, so this one may say what to do instead
        # people start a sentence in lower case: "not (a), we don't mock the db. go with ubuntu-latest"; an ask
        # about a paste ("刚才那一行不要记，也不要写进任何文件") is none of the state
        sentences = (part for whole in _sentences(block.text) for part in CHAT_BREAK.split(whole))
        for sentence in (part for part in sentences if not FORGET_PASTE.search(fold(part))):
            found: list[Item] = []
            for clause in _CLAUSE.split(sentence):
                item = as_item(clause)
                chooses = first and (turned or named_values(item) or CHOICE_CUES.search(fold(item)) is not None)
                judged = _judge(item, view, block.hint, settles=bool(chooses) or amends or instead or ruled)
                if head and (picked := _picked(item, view)):
                    found.append(Item(DECISION, clip(picked, ITEM_CHARS), _DIRECTED, item))
                head = head and is_ack_or_command(item)
                if hold := _held(item, said, view):
                    found.append(Item(DECISION, hold, _DIRECTED, item))
                if judged is not None and judged[0] == NEXT:
                    step = without_hold(resolved(without_hold(unlabelled(item)), said, view.before))
                    lean = named_before(step, last) if step == unlabelled(item) else ""
                    step = with_command(f"{step} ({lean})" if lean else step, view.after, view.before)
                    found.append(Item(NEXT, clip(step, ITEM_CHARS), 0, item))
                elif judged is not None:
                    shown = resolved(unlabelled(item), said, "")
                    shown = f"{as_item(said)} — {shown}" if shown == item and names_nothing(item) and said else shown
                    found.append(Item(judged[0], clip(shown, ITEM_CHARS), judged[1], item))
                if text_weight(item) >= 3 and not item.endswith(("?", "？")):
                    first = False
            decided = [entry for entry in found if entry.kind == DECISION]
            if len(decided) > 1:  # "Plan 用 staging workspace；don't touch prod": one sentence, one decision
                whole = as_item(sentence)
                rank = max(entry.rank for entry in decided)
                found = [e for e in found if e.kind != DECISION]
                found.append(Item(DECISION, clip(whole, ITEM_CHARS), rank, whole))
            if listed and sentence.rstrip().endswith((":", "：")):
                found = [entry for entry in found if entry.kind != DECISION]  # "Two process things for this repo:"
            yield from found
            said = last = sentence
            instead = bool(decided) and FORBID_CUES.match(fold(sentence.lstrip())) is not None


def _judge(item: str, view: TurnView, hint: str | None, *, settles: bool) -> tuple[str, int] | None:
    """Return the category of one sentence of a turn, seen in the light of how the person answered it."""
    folded = fold(item)
    if NOT_ITEM_CUES.search(folded):
        return None  # "Here's what I changed:", "let me know if …"
    if hint == DONE and (NOT_DONE_CUES.search(folded) or NEXT_CUES.match(folded) or WEAK_NEXT_CUES.match(folded)):
        hint = None  # "I did not touch the integration tests yet", "next I'll …" under "Implemented:"
    # a step put off is said in few words: "好，明天 review" (a time word and what is done then), "好，等思琪 review"
    waiting = view.role == "user" and view.closing and awaits(folded)
    short = text_weight(item) < (2 if view.closing and (waiting or _is_later(folded)) else 3)
    if view.role == "user" and (short or folded.endswith(("?", "？"))):
        return None
    if view.role == "user" and text_weight(_without_farewell(folded)) < 1.5:
        return None  # "see you Monday 👋", "週末愉快": a goodbye, after a rule or not
    if view.role == "user" and (only_yes(folded) or only_put_off(folded)):
        return None  # "可以，就这么办": the yes takes the agent's proposal; "ok 知道了，回头再说" leaves nothing to do
    if view.role == "user" and (IDENTITY.search(led := strip_lead_in(folded)) or introduces_only(led)):
        return None  # "记住：我叫林晓，是后端工程师": who the person is, remembered as such, not decided here
    # cue words inside `code` name things ("`TODO.md`", "`# TODO(multi-region)`"); they say nothing of the state
    kind = classify_item(INLINE_CODE.sub("`x`", item) if "`" in item else item, view.role, hint, view.round_end)
    if view.role == "user":
        if waiting or (view.closing and (waits_then_acts(folded) or put_off_till(folded))):
            return NEXT, 0  # "MR 先不开，等王工回邮件确认…再开": held until someone answers, then done, at the end
        supposed = SUPPOSE_CUES.search(folded)
        if supposed and not (view.closing and _HEDGE.fullmatch(supposed.group()) and _is_later(folded)):
            # "if we ever move to k8s …" settles nothing, unless what follows the what-if directs:
            # "if we ever go multi-region, 先记个 TODO 就行", "if you're not sure just say so, don't guess"
            parts = _CLAUSE_BREAK.split(QUOTED_WORDS.sub("", folded[supposed.end() :]), maxsplit=1)
            rest = parts[1] if len(parts) > 1 else ""
            return (DECISION, _DIRECTED) if _directs(rest) and not SUPPOSE_CUES.search(rest) else None
        asked = strip_prefix(POLITE, folded)
        if view.goal and REQUEST.search(asked) and (kind != DECISION or asked != folded.lstrip()):
            return None  # the ask itself is the goal, though "change of plans: json by default" decides too
        if view.goal and (_opens(folded) or _DUE.search(folded)):
            return None  # "X has to be done before Monday, that's the priority now" is the goal, with its date
        ask = is_asking(folded)  # "帮我把 X 改成 Y", "can you change X to Y": work asked for, done or not, not decided
        if (kind == DECISION or changes_plan(folded)) and not ask:
            return DECISION, _STATED
        later = kind is None and _is_later(folded)
        if later and ABSENCE_CUES.search(folded) and not _AFTER_ABSENCE.search(folded) and not _step_besides(folded):
            return None  # "明天我请假, 周五回来" says when the person is away, not what happens next
        if later and (STANDING_CUES.search(folded) or _AS_USUAL.search(folded)) and _directs(folded):
            return DECISION, _DIRECTED  # a rule for every time, though it names who does it: "…我自己定期清"
        if (later or kind == NEXT) and is_leaving(folded, view.before):
            return None  # "晚上还要背单词 先撤了": the person's own evening, not a step of the work
        if (later or kind == NEXT) and is_set_aside(folded):
            return DECISION, _DIRECTED  # "图 4.2 先别管，等…跑完再说", "我自己提": settled, and no step of the work
        if later or kind == NEXT:
            # though "Yes, feedback file next" or an ask for work that the agent's answer carried out is done
            asks_work = asks_for_work(folded)
            carried = view.acted and is_carried_out(item, view.after, asked=asks_work)
            if view.closing and not view.goal and not ((not later or asks_work) and carried):
                return NEXT, 0
            if asks_work and carried:
                return None  # work asked for and done is neither a step nor settled
            # a step the person puts off to a time before the end is settled: "prod 那次我跟 Marta 约了周四一起做"
            return (DECISION, _DIRECTED) if later and not view.goal else None
        if not ask and (settles or _directs(QUOTED_WORDS.sub("", folded)) or holds_everywhere(folded)):
            return DECISION, _DIRECTED  # a rule for the work, or what the person wants instead of the agent's way
        return None
    if view.verdict == OVERRULED:
        # what the person turned down is neither decided nor next; what they took back is not done,
        # though a reply about the agent's manner ("不用每次都列 summary") takes back none of its summary
        done = (kind == DONE or is_done(folded)) and not folded.endswith(("?", "？"))
        return (DONE, 0) if done and not _is_undone(item, view) else None
    offer = view.round_end and OFFER_CUES.search(folded) is not None
    # "下一步：下周一用新 loader 跑一遍全市场，跟 CsvLoader 逐日对 NAV？", "Next: replay it on UAT tomorrow?"
    offer = offer or (view.round_end and folded.endswith(("?", "？")) and NEXT_STEP.match(folded) is not None)
    if offer or (view.round_end and proposes(folded)):
        if view.verdict == ACCEPTED and not view.acted:
            return NEXT, 0  # taken at the very end: the step agreed
        if view.verdict == ACCEPTED:
            return (DECISION, _TAKEN) if view.bare else None  # else the person's own words say what was taken
        if offer:
            return None  # an offer nobody took is no agreed step
    if kind == DECISION:
        # the agent's own plan is no decision until the person takes it, though it may say what was done
        if is_done(folded):
            return DONE, 0  # "已改成自己 parse": what the agent did, whoever chose it
        return (DECISION, _TAKEN) if view.verdict == ACCEPTED and view.bare else None
    if kind == NEXT and is_done(folded) and says_when_it_runs(folded):
        return DONE, 0  # "已 commit 并部署…，timer 已 enable：下次运行是明早 07:00"
    if kind == NEXT:
        return (NEXT, 0) if view.closing else None
    if kind is None and text_weight(item) >= 2 and is_done(folded) and not folded.endswith(("?", "？")):
        return DONE, 0
    if kind is None and view.edited and ANNOUNCE_CUES.match(folded) and not folded.endswith(("?", "？")):
        return DONE, 0  # the tools of the same turn made the change it announces
    if kind is None and view.edited and text_weight(item) <= 16 and CHANGED_TO.search(folded):
        return DONE, 0  # "Both files → 1.9.8.": what the turn's tools changed, and to what
    if kind is None and view.edited and CODE_DOES.match(item) and not folded.endswith(("?", "？")):
        return DONE, 0  # "`components/HeroVideo.tsx` renders the poster with `next/image`": the edited code now does
    return None if kind is None else (kind, 0)


def _asks_a_yes(shown: str) -> bool:
    """Tell whether the agent's words only ask for a yes: "可以吗？", "你看可以吗？", "Sound good?"."""
    folded = fold(shown)
    return text_weight(PROPOSAL_TAIL.sub("", folded)) < 2 or _NAMES_NOTHING.fullmatch(folded) is not None


_SENT = re.compile(
    r"(?:(?:ok(?:ay)?|done)[,\s]*)?(?:submitted|pushed|merged|deployed|sent|launched|started|queued)"
    r"|(?:好的?[，,\s]*)?(?:已经?(?:提交|推送|推|部署|合并|发布|跑起来)了?|(?:提交|推送|推|部署|合并|发布)(?:好|完)?了)"
)


def _bare_report(item: str, view: TurnView, *, start: bool) -> str | None:
    """Return a turn's opening report that names nothing ("改好了：", "Done.") with the ask it answers."""
    if not start or not view.before:
        return None
    folded = fold(item)
    head, *rest = _CLAUSE_HEAD.split(folded, maxsplit=1)
    # "Submitted." after a yes to "… Submit?" reports what the question offered
    offered = view.before.rstrip().endswith(("?", "？"))
    bare = is_bare_report(head.strip()) or (offered and _SENT.fullmatch(head.strip()) is not None)
    bare = bare and text_weight(" ".join(rest)) < 3
    if not bare and not (is_checks(folded) and is_done(folded)):
        return None
    # the offer may be one question: "两个 commit 都在 feat/retry 上了，要推吗？"
    ask = ask_of(view.before) or (clip(as_item(view.before), ITEM_CHARS // 2) if offered else "")
    return f"{item} — {ask}" if ask else None


def _is_undone(item: str, view: TurnView) -> bool:
    """Tell whether the person's answer takes back what an item reports."""
    reply = fold(view.reply)
    if UNDO_CUES.search(reply):
        # "改回去" takes back the whole turn; a reply that names what it takes back takes back only that
        # ("金额一律存整数分，别给我 double，那个 parseMinorUnits … 改回去" leaves the date format fix done)
        named = {w for w in words_of(view.reply) if w.isascii() and len(w) >= 3} - COMMON_WORDS
        return not named or _shares_words(item, view.reply)
    if view.asks and not CORRECTION_CUES.search(reply):
        return False  # "No — wait for Priya's review" answers "Want me to merge it?", not the commit before it
    objection = SENTENCE_END.split(view.reply.lstrip(), maxsplit=1)[0]  # the words that object, not what follows
    return overrules(reply) and _shares_words(item, objection)


def _shares_words(item: str, reply: str) -> bool:
    ours = {w for w in words_of(item) if w.isascii()}
    return not ours.isdisjoint(words_of(reply))


def _amends(text: str, before: str) -> bool:
    """Tell whether a reply opens with a bare yes to the agent's plan, so what follows amends it: "Go. Detect …"."""
    head = SENTENCE_END.split(fold(text.lstrip()[:200]), maxsplit=1)
    if len(head) < 2 or text_weight(head[0]) >= 2 or not (ACCEPT_CUES.match(head[0]) or _GO.match(head[0])):
        return False
    tail = fold(before[-400:])
    return proposes(tail) or OFFER_CUES.search(tail) is not None or _PLAN.search(tail) is not None


def _opens(folded: str) -> bool:
    """Tell whether a sentence of the opening leads into the ask ("Today: …", "Quick intro since …"): the goal's."""
    return INTRO_CUES.match(folded) is not None or ASK_CAPTION.match(folded) is not None


def _answers(before: str) -> bool:
    """Tell whether the agent's turn asks the person to choose, so the first words of the reply settle it:
    "How many days should the lookback be?" is answered by "3-day lookback is fine"; a list under "Proposal:" by
    "DLQ topics are named <topic>.dlq"."""
    tail = before.rstrip()
    if tail.endswith(("?", "？")):
        return True
    tail = tail[-1500:]
    # most turns hold no caption word at all, and a substring test rules them out faster than the pattern
    lowered = tail.lower()
    return any(word in lowered for word in _CAPTION_WORDS) and PROPOSAL_CAPTION.search(fold(tail)) is not None


def _picked(item: str, view: TurnView) -> str | None:
    """Return what a short answer opening the reply settles: "改 1 吧" with option 1, "慢点没关系" as it is."""
    folded = fold(item)
    if view.goal or not view.before or text_weight(item) >= 3 or folded.endswith(("?", "？")):
        return None  # a longer answer says what it settles in its own words
    if option := picked_option(item, view.before):
        return f"{item} — {proposed(option)}"
    return item if text_weight(item) >= 2 and _directs(folded) else None  # a bare "别" or "不用" only objects


def _held(item: str, said: str, view: TurnView) -> str | None:
    """Return the decision in a step the person holds back: "don't merge yet, wait for Sam", "先别推"."""
    folded = fold(item)
    # "skip it for now with a reason, I'll open an issue": put off, and settled how
    if (not HOLD_CUES.search(folded) and not (_is_later(folded) and _directs(folded))) or only_put_off(folded):
        return None  # …but "ok 知道了，回头再说" holds nothing back
    if text_weight(item) < 1.5 or folded.endswith(("?", "？")) or (view.goal and _DUE.search(folded)):
        return None  # "… has to be done before Monday": when the goal is due, not a step held back
    shown = resolved(item, said, view.before)  # what "it" is, unless saying so would cut the hold off
    return clip(shown if len(shown) <= ITEM_CHARS else item, ITEM_CHARS)


def _without_farewell(folded: str) -> str:
    """Return folded text without its goodbyes that name a time ("see you Monday", "週末愉快")."""
    return _FAREWELL.sub(" ", folded) if any(word in folded for word in _FAREWELL_WORDS) else folded


def _directs(folded: str) -> bool:
    if DIRECTIVE_CUES.search(folded) is not None or SETTLE_CUES.search(folded) is not None:
        return True
    return settles_more(folded) or settles_still_more(folded)


def _step_besides(folded: str) -> bool:  # "load test it on Monday, I'm off tmr afternoon", not "明天请假, 周五回来"
    rest = [part for part in _CLAUSE_BREAK.split(folded) if not ABSENCE_CUES.search(part)]
    return any(_is_later(p) and text_weight(p) >= 3 and not re.search(r"\bback\b|回来|返来|返嚟", p) for p in rest)


def _is_later(folded: str) -> bool:
    if reply_slots(folded):
        return False  # "回答别太长，最后不要来一段总结，我自己会看 diff": how to answer, and why, is no step put off
    folded = without_conditions(folded)  # "如果凌晨 3 点还没到，就发告警" says when a rule acts, not what is later
    folded = _without_farewell(folded)
    return LATER_CUES.search(folded) is not None or is_later_more(folded) or PERSON_STEP_CUES.search(folded) is not None


def _sentences(text: str) -> list[str]:
    # most blocks are one sentence, and splitting costs more than all the rest
    if SENTENCE_END.search(text.rstrip(".!?。！？… ")) is None:
        return [text]
    if "`" not in text:
        return [sentence.text for sentence in split_sentences(text)]
    # a sentence never ends inside `code`: "flagged my `QUALIFY ... OVER` and a missing space; fixed both"
    masked = INLINE_CODE.sub(lambda code: "`" + "x" * (len(code.group()) - 2) + "`", text)
    return [text[sentence.start : sentence.end] for sentence in split_sentences(masked)]
