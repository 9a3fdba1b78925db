"""Decide how a candidate relates to what the person already knows.

The rules decide (``relate_rules``, on what the candidate adds); the relation model of
``lasting_model`` reads their verdict again where they are weakest (see ``relate``).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Concatenate, ParamSpec

from incremind_daemon.pipeline.conflicts import conflict, may_conflict
from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.features import CONCEPT_NAMES, dice, features_of, keys_of, names_in
from incremind_daemon.pipeline.lasting_model import RelationReader
from incremind_daemon.pipeline.pairs import Known, Relation, pair_features, said_of, text_of
from incremind_daemon.pipeline.relate_rules import (
    CHANGES,
    answers_otherwise,
    introduced,
    own_words,
    relate_by_rules,
    says_again,
)
from incremind_daemon.pipeline.replacing import (
    NOW_SET,
    changed_subject,
    for_other_writing,
    moved_from,
    respelled,
    sets_again,
    stands_with,
    turns_down,
    value_replaced,
)
from incremind_daemon.pipeline.replies import answer_slots
from incremind_daemon.pipeline.reported import REPORTED
from incremind_daemon.pipeline.scope import scope_beside
from incremind_daemon.pipeline.stance import CHANGE, EXCEPTION_SAID, RESTATED, negated, used
from incremind_daemon.store.records import Candidate

log = logging.getLogger(__name__)
_P = ParamSpec("_P")
# the relation model's odds of a change or a difference from which someone else's view disagrees
_REPORTED_AT_ODDS = 0.2
# the relation model's odds of "unrelated" from which what the person says again is no repeat of an insight
# the rules linked by a word: far above the model's own ``unrelated``, as the person's word counts for much
# ("one thing per PR, you know the drill" beside "Prod runs 6 replicas" reads 0.91; a Cantonese restatement
# beside its English original, filed under another category, 0.72)
_SAID_AGAIN_UNRELATED = 0.85
_SHARED_WORDS = 0.15  # the word overlap (dice) at which a change the model reads is of that insight


def _own_word(
    read: Callable[Concatenate[Candidate, Sequence[Known], _P], Relation],
) -> Callable[Concatenate[Candidate, Sequence[Known], _P], Relation]:
    """Make a reading in which the person's own word repeats or adds to no one else's view: "手續費一律由後端算，不要在
    前端自己算" beside "Marcus 覺得手續費在前端用浮點數算也 OK" is their rule, related to the rest as if the view were
    not there."""

    @functools.wraps(read)
    def reading(candidate: Candidate, known: Sequence[Known], /, *args: _P.args, **kwargs: _P.kwargs) -> Relation:
        while True:
            relation = read(candidate, known, *args, **kwargs)
            view = next((item for item in known if item.id == relation.known_id), None)
            if relation.kind not in ("repeat", "supplement") or candidate.reported or view is None:
                return relation
            if not REPORTED.search(fold(view.statement)):
                return relation
            known = [item for item in known if item.id != view.id]

    return reading


@_own_word
def relate(
    candidate: Candidate,
    known: Sequence[Known],
    *,
    repeat_similarity: float,
    related_similarity: float,
    ordered: bool = False,
    reading: RelationReader | None = None,
) -> Relation:
    """Decide whether candidate repeats, supplements, supersedes, contradicts or is new to the known insights.

    The person's own word repeats or adds to no one else's view (``_own_word``).
    The rules decide (``relate_by_rules``); with a ``reading`` (``lasting_model``), a model over
    each pair's cosine and what the rules measure reads them again where the rules are weakest:
    a paraphrase or translation they call new or a supplement is a repeat when the model is sure
    of it, and a supplement of an insight the model reads as unrelated is new. A change of
    decision or a difference stays the rules' call unless the model reads a repeat at the far
    higher ``overrule``; a change of decision the rules call new or a supplement is one when the
    model reads it at ``change``, and a change of an insight the model reads as unrelated is one of the
    insight it reads as changed at ``overrule``, when there is one. Someone else's view, kept only as a
    disagreement, differs from the insight the model reads it as most at odds with, when the rules find
    no difference. What the rules call a repeat only because the person says it is said again is none
    of an insight the model reads as unrelated. What both still read as new or a supplement changes the
    nearest insight when it sets a new value in the place of one that insight holds (``_value_changed``).
    """
    said = said_of(candidate)
    known = [item for item in known if not for_other_writing(said, text_of(item.statement, item.condition))]
    verdict, said_again = relate_by_rules(
        candidate, known, repeat_similarity=repeat_similarity, related_similarity=related_similarity, ordered=ordered
    )
    if reading is None:
        return verdict
    pairs = ((item, pair_features(_beside(candidate, item), item, ordered=ordered)) for item in known)
    rows = [(item, row) for item, row in pairs if row is not None]
    if not rows:
        return verdict
    read = list(zip((item for item, _ in rows), reading.relation_odds([row for _, row in rows]), strict=True))
    if candidate.reported:
        # someone else's view is kept only as a disagreement: with the insight the model reads it as most
        # at odds with ("老周觉得新测试也应该继续用 XCTest" beside "新写的测试都用 Swift Testing")
        if verdict.kind == "different":
            return verdict
        item, chances = max(read, key=lambda pair: _at_odds(pair[1]))
        if _at_odds(chances) >= _REPORTED_AT_ODDS:
            return Relation("different", item.id, round(item.vector_similarity or 0.0, 4))
        return verdict
    # the insight the rules linked, and how the model reads it
    linked = next((pair for pair in read if pair[0].id == verdict.known_id), None)
    if (
        said_again
        and linked is not None
        and linked[1]["none"] >= _SAID_AGAIN_UNRELATED
        and not _names_alike(candidate, linked[0])
        and not _restates(candidate, linked[0])
    ):
        # what the rules linked by a word and made a repeat only because it is said again is not one of an
        # insight the model reads as unrelated ("the replica bump goes in its own PR, one thing per PR, you
        # know the drill" beside "Prod runs 6 replicas"), unless both name the same things ("别给我看 MAPE，周一说过了，
        # P50 只看 WAPE" beside "评估指标用 WAPE，不要 MAPE", which the model reads at 0.93 unrelated)
        verdict, linked = Relation("new", None, verdict.similarity), None
    if (
        said_again
        and verdict.kind == "repeat"
        and linked is not None
        and linked[1].get("supersedes", 0.0) >= max(reading.change, linked[1]["repeat"])
        and CHANGE.search(own_words(candidate))  # not "like [OMS-2315] Switch FX source to Wise"
        and may_conflict(candidate, linked[0])
    ):
        # "as before" beside a change the model reads as one is no restatement: "Stripe Checkout is out, we're
        # integrating Airwallex's hosted page instead — same shape as before" changes "支付用 Stripe Checkout"
        return conflict(candidate, linked[0], verdict.similarity, ordered)
    if verdict.kind in CHANGES and linked is not None:
        answer = answer_slots(candidate.statement)
        if answer and answers_otherwise(answer, linked[0]):
            # how to answer the person set to another value ("你也用简单的中文回答" beside "Reply in English"): the
            # rules read that exactly, where the model may read a repeat of "I'm learning Mandarin (HSK3)"
            return verdict
    item, chances = max(read, key=lambda pair: pair[1]["repeat"])
    # a restatement with a "never" or "别动" in it reads to the rules as turning something down; a
    # change of decision stands unless the model is far surer it is the same words again
    # …unless the person says they are saying it again ("还是那句话", "as usual")
    least = (
        reading.repeat if verdict.kind in ("new", "supplement", "repeat") or says_again(candidate) else reading.overrule
    )
    # …and a candidate that turns down a name the insight holds as it stands repeats none of it
    if chances["repeat"] >= least and (verdict.kind == "repeat" or not turns_down(candidate.statement, item.statement)):
        similarity = verdict.similarity if verdict.known_id == item.id else round(chances["repeat"], 4)
        return Relation("repeat", item.id, similarity)
    # of the insights that name what a change is of, the one the model reads as most changed
    subject = changed_subject(candidate.statement, candidate.about) - introduced(known)
    about = [pair for pair in read if subject & keys_of(features_of(text_of(pair[0].statement, pair[0].condition)))]
    changed, chances = max(about or read, key=lambda pair: pair[1].get("supersedes", 0.0))
    # how the model reads the insight the rules linked: unrelated, or not read at all (None)
    unrelated = linked[1]["none"] if linked is not None else None
    if verdict.kind in ("new", "supplement"):
        if chances.get("supersedes", 0.0) >= reading.change and _same_change(candidate, changed):
            return Relation("repeat", changed.id, round(changed.vector_similarity or 0.0, 4))
        if (
            chances.get("supersedes", 0.0) >= reading.change
            # …of an insight that names what changes, or shares words with it, unless the model is far surer: "重连上限
            # 改成 60 秒" changes no "功率模块那条 can 是 250k 不是 500k", though both say 改成
            and (about or _shares_words(candidate, changed) or chances.get("supersedes", 0.0) >= reading.overrule)
            # an exception said outright, which the rules read as one: "min 2 in prod is fine — it's the one
            # exception to the min-3 rule" (not any "when": "from now on in English, even when I write Chinese"),
            # or a case of its own the rules read: "for UserInBlacklist: no retries, … Mama Grace calls them instead"
            and not (
                verdict.kind == "supplement"
                and (EXCEPTION_SAID.search(fold(candidate.statement)) or candidate.condition)
            )
            and may_conflict(candidate, changed)
            and not stands_with(
                candidate.statement, changed.statement, negated(candidate.statement), negated(changed.statement)
            )
        ):
            return conflict(candidate, changed, verdict.similarity, ordered)  # supersedes, or different
    elif (
        # the rules' change is of an insight the model reads as unrelated, and the model reads another as the
        # one changed ("课改到周二" against a rule on bash scripts, beside "陈老师, 每周四 晚上 7:30")
        verdict.kind in ("supersedes", "different")
        and changed.id != verdict.known_id
        and unrelated is not None
        and unrelated >= reading.unrelated
        and chances.get("supersedes", 0.0) >= reading.overrule
        and may_conflict(candidate, changed)
    ):
        return conflict(candidate, changed, round(changed.vector_similarity or 0.0, 4), ordered)
    if (
        verdict.kind == "supplement"
        and linked is not None
        and linked[1]["none"] >= reading.unrelated
        and not _both_use(candidate, linked[0])
    ):
        verdict = Relation("new", None, verdict.similarity)
    if verdict.kind in ("new", "supplement") and (nearest := _value_changed(candidate, known)) is not None:
        return conflict(candidate, nearest, nearest.vector_similarity or 0.0, ordered, moved=True)
    return verdict


def _value_changed(candidate: Candidate, known: Sequence[Known]) -> Known | None:
    """The nearest insight, when the candidate moves a value it holds to another ("bump replicas from 6 to 8"
    beside "Prod runs 6 replicas"), or says it sets a new value of the same form in its place: "The dashboard
    runs on 5174 now" beside "Dev server runs on 5173 and proxies /api to …", "pay-recon 的 parent 改成 3.3.6"
    beside "Spring Boot 是 3.2.5", which share too few words for the rules or the model; or writes a name it holds in
    another form ("每段改 snake_case：`billing.invoice_list.export_btn`" beside "`billing.invoiceList.exportBtn`")."""
    read = [item for item in known if item.vector_similarity is not None]
    if not read:
        return None
    nearest = max(read, key=lambda item: item.vector_similarity or 0.0)
    mine, theirs = said_of(candidate), text_of(nearest.statement, nearest.condition)
    if moved_from(mine, theirs):
        return nearest  # it says the change it makes, whatever day it names ("… went to 16 partitions last week")
    said = [fold(text) for text in (candidate.quote, candidate.statement)]
    # (the change and the value in one sentence: "Emergency fund moves from M-Shwari to the CIC money market fund.
    # … standing order KES 25,000 on the 28th" sets no new amount of "School fees: balance KES 18,500")
    changes = any(
        (CHANGE.search(sentence) or NOW_SET.search(sentence)) and value_replaced(sentence, theirs)
        for text in (*said, fold(mine))
        for sentence in _SENTENCE_END.split(text)
    )
    # (a name written another way is a change said in few words: "每段改 snake_case：…")
    restyled = any(_RESTYLED.search(text) for text in said) and respelled(mine, theirs)
    if (changes or restyled) and may_conflict(candidate, nearest):
        return nearest
    return None


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])")


_RESTYLED = re.compile(r"改|(?<![a-z])(?:renam|chang|switch)")


def _shares_words(candidate: Candidate, item: Known) -> bool:
    """Tell whether the two share enough of their words to be about one thing (``_SHARED_WORDS``)."""
    return dice(features_of(said_of(candidate)), features_of(text_of(item.statement, item.condition))) >= _SHARED_WORDS


def _same_change(candidate: Candidate, item: Known) -> bool:
    """Tell whether a change says again the change an insight holds: it turns down what that one turns down and
    names nothing it does not ("we're dropping RabbitMQ and moving all order events to Oban" beside "決定唔再用
    RabbitMQ，order event 全部改行 Oban"), which the model reads as a change for its words; or it sets, on a subject
    both speak of, the value that one already gives: "查重阈值改成 70%" beside "代码类作业查重阈值统一为 70%"."""
    mine, names = negated(candidate.statement), names_in(candidate.statement)
    if bool(mine) and mine == negated(item.statement) and bool(names - mine) and names <= names_in(item.statement):
        return True
    return sets_again(candidate.statement, text_of(item.statement, item.condition)) and _shares_words(candidate, item)


def _both_use(candidate: Candidate, item: Known) -> bool:
    """Tell whether both say to use a named tool ("use pnpm, not npm" beside "我所有 JS 项目都用 pnpm")."""
    return bool((used(candidate.statement) & used(item.statement)) - CONCEPT_NAMES)


def _beside(candidate: Candidate, item: Known) -> Candidate:
    """The candidate in the scope it takes beside a known insight (``scope_beside``), as the relation model was
    fitted: a global-looking statement that adds to or changes a project's rule is that project's, unless it
    says it holds everywhere ("老周昨天定了新的分支规则，以后 PR 不是提 main，而是提 dev" beside "PR 直接提 main")."""
    scope = scope_beside(candidate.scope, candidate.quote or candidate.statement, item.scope)
    return candidate if scope == candidate.scope else replace(candidate, scope=scope)


def _restates(candidate: Candidate, item: Known) -> bool:
    """Tell whether what the person says again names only what the insight names, two things or more: "`pickup.ts` 里
    `fmt(d: any)`，我说过 TS 不许 any，这个项目也一样" beside "TS 里禁止 `any`…", whatever the words before it name."""
    words = own_words(candidate)
    mark = RESTATED.search(words)
    again = keys_of(features_of(words[mark.end() :])) if mark is not None else frozenset()
    return len(again) >= 2 and again <= keys_of(features_of(text_of(item.statement, item.condition)))


def _names_alike(candidate: Candidate, item: Known) -> bool:
    """Tell whether both name two or more of the same proper names ("MAPE" and "WAPE")."""
    return len(names_in(candidate.statement) & names_in(item.statement)) >= 2


def _at_odds(chances: dict[str, float]) -> float:
    return chances.get("supersedes", 0.0) + chances.get("different", 0.0)
