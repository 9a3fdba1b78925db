"""Relate a candidate to the known insights by rules: what it adds decides.

Repeat, supplement, supersedes, different or new, decided on what the candidate adds: the
named things and numbers it states (``features``), whether it turns any of them around
(``stance``), and whether the rest is other words for the same. Lexical and deterministic;
the embedder's cosine helps rank the neighbours and confirm a paraphrase, never alone.
``relate.relate`` reads the rules' verdict again with the relation model.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from incremind_daemon.pipeline.amounts import different_numbers, measured_apart, moved_value
from incremind_daemon.pipeline.conflicts import conflict, may_conflict, says_change
from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.features import (
    CONCEPT_NAMES,
    Features,
    address_versions,
    dice,
    features_of,
    keys_of,
    names_in,
    new_numbers,
    numbers_of,
    sharing,
)
from incremind_daemon.pipeline.openers import INTRODUCTION
from incremind_daemon.pipeline.pairs import Known, Relation, has_chinese, said_in, said_of, text_of
from incremind_daemon.pipeline.pieces import weight
from incremind_daemon.pipeline.replacing import (
    changed_subject,
    of_its_own,
    replaces,
)
from incremind_daemon.pipeline.replies import answer_slots, held_alike, reply_slots, set_otherwise
from incremind_daemon.pipeline.reported import REPORTED
from incremind_daemon.pipeline.stance import (
    CASE_SAID,
    CHANGE,
    CHANGE_OF_PLAN,
    EXCEPTION,
    EXCEPTION_SAID,
    RESTATED,
    contradicts,
    flipped,
    negated,
    switched_from,
    used,
)
from incremind_daemon.store.records import Candidate

log = logging.getLogger(__name__)
_FROM_NOW = re.compile(r"^\W*(?:以后|今后|往后)|from now on|going forward")  # a change said as such, case or not

_TRANSLATION_COSINE = 0.55  # across languages, of the tuning halves' labelled pairs above it 26 of 27 are repeats
_PARAPHRASE_COSINE = 0.75  # with every named thing shared, a cosine this high reads as the same statement
_NOVEL_REPEAT = 0.2  # at most this share of a candidate's weight may be unknown for a repeat
_MATERIAL_WORDS = 2.0  # new topical weight that makes even a similar candidate a supplement
# across languages, a candidate under this share of the known insight's weight, read near it, is its gist said again:
# of the tuning halves' labelled pairs at a cosine from 0.4 to 0.55 so much shorter, 29 repeats and 3 supplements
_SHORTER = 0.8
_GIST_COSINE = 0.4
_GIST_UNNAMED_COSINE = 0.5  # …where the two share no named thing ("回答短一点" beside "keep answers short")
CHANGES = ("supersedes", "different")
_LEADING_NAME = re.compile(r"[a-z0-9][\w.-]*")  # "hdb-price", as an introduction opens on it


# an example of the thing, whose words say nothing of the rule: "like [OMS-2315] Switch FX source to Wise"
_EXAMPLE = re.compile(
    r"(?:(?<![a-z])(?:like|e\.g\.,?|for example|such as)|例如|比如)\s*"
    r"(?:「[^」]*」|“[^”]*”|\"[^\"]*\"|`[^`]*`|\[[^\]]*\][^，,。;；—–]*)"
)


def says_again(candidate: Candidate) -> bool:
    """Tell whether the person says they say it again, and says no change beside it."""
    quote = own_words(candidate)
    return RESTATED.search(quote) is not None and CHANGE_OF_PLAN.search(quote) is None


def own_words(candidate: Candidate) -> str:
    """The quote (folded) without the examples it gives, whose words say nothing of the rule."""
    return _EXAMPLE.sub(" ", fold(candidate.quote or candidate.statement))


def relate_by_rules(
    candidate: Candidate,
    known: Sequence[Known],
    *,
    repeat_similarity: float,
    related_similarity: float,
    ordered: bool = False,
) -> tuple[Relation, bool]:
    """Decide by the rules alone (``_by_rules``); what the person says again changes nothing.

    A candidate that says it is said again ("还是那句话：…", "as usual, …") and that the rules read
    as turning a known insight around is that insight in other words: a repeat, never a change.
    Return the verdict, and whether it is a repeat only because the candidate says it is said again.
    """
    verdict = _by_rules(
        candidate, known, repeat_similarity=repeat_similarity, related_similarity=related_similarity, ordered=ordered
    )
    # …and "As I said before, keep it brief — a few bullets" beside "keep replies short, bullets" adds nothing
    # …though "Figures are PDF as always, but the screenshots can stay JPG" brings its exception
    restated = verdict.kind in ("supersedes", "different", "supplement") and not candidate.reported
    if restated and says_again(candidate):
        if not _brings_a_case(candidate):
            return Relation("repeat", verdict.known_id, verdict.similarity), True
        # …and "每天最多 5 次这个不变，但截止当天放宽到 10 次" keeps the rule and adds its exception
        return Relation("supplement", verdict.known_id, verdict.similarity), False
    linked = next((item for item in known if item.id == verdict.known_id), None)
    if verdict.kind == "supplement" and linked is not None and _translated(candidate, linked):
        return Relation("repeat", verdict.known_id, verdict.similarity), False
    if verdict.kind in ("new", "supplement") and not candidate.reported:
        # "room state is only ever touched inside the room goroutine" beside "room 的 state 只能在 room 自己的
        # goroutine 裡改，外面要改就透過 channel 丟 command 進去"
        gist = _gist_of(candidate, known)
        if gist is not None and verdict.known_id in (None, gist.id):
            return Relation("repeat", gist.id, round(max(verdict.similarity, gist.vector_similarity or 0.0), 4)), False
    # what the statement sets, not its condition ("用中文回答的时候" says when, and sets nothing)
    answer = answer_slots(candidate.statement) if verdict.kind in ("new", "supplement", "repeat") else {}
    for item in known if answer and not candidate.reported else ():
        # "以后回复都用英文" beside "回复一律用中文" sets another value: a change, or this project's exception to
        # a global rule ("you can answer in English in this repo")
        if answers_otherwise(answer, item):
            # …or a case of its own: "我打中文的时候你就用中文回我" beside "reply in English" (not "以后我…的时候")
            case = candidate.condition and not _FROM_NOW.search(fold(candidate.quote or candidate.statement))
            if (candidate.scope == "project" and item.scope == "global") or case:
                return Relation("supplement", item.id, verdict.similarity), False
            return conflict(candidate, item, verdict.similarity, ordered), False
    if verdict.kind in ("new", "supplement") and not candidate.reported:
        # "别写那么长" beside "Keep replies short": how to answer the person, set again in any words or language
        # (what the statement sets, not its condition: "用中文回答的时候，生词后面加个 English" sets no language)
        mine = answer_slots(said_in(candidate.statement))
        theirs = ((item, reply_slots(text_of(item.statement, item.condition))) for item in known if mine)
        again = [item for item, slots in theirs if held_alike(mine, slots)]
        if again:
            item = linked if linked in again else again[0]
            return Relation("repeat", item.id, round(max(verdict.similarity, item.vector_similarity or 0.0), 4)), False
    return verdict, False


def introduced(known: Sequence[Known]) -> frozenset[str]:
    """The names the known introductions open on ("hdb-price 是我跟老公 Kai 自己看的小 dashboard"): projects, people."""
    names: set[str] = set()
    for folded in (fold(item.statement) for item in known):
        if INTRODUCTION.match(folded) and (first := _LEADING_NAME.match(folded)):
            names.update(keys_of(features_of(first.group())))
    return frozenset(names)


def answers_otherwise(answer: dict[str, str], item: Known) -> bool:
    """Tell whether a known insight sets how to answer the person to another value than ``answer`` does."""
    held = answer_slots(text_of(item.statement, item.condition))  # not "commit messages in English"
    return set_otherwise(answer, held)


def _translated(candidate: Candidate, item: Known) -> bool:
    """Tell whether a supplement in the other language is the known insight said again, by its meaning.

    Across Chinese and English the words the rules weigh are the other language's, so what looks added
    is mostly translation ("any query against a ReplacingMergeTree table needs FINAL" beside
    "ReplacingMergeTree 的表查的时候记得加 FINAL"); the rules linked the two, and the embedder reads them
    as one meaning. A condition, an exception, a "but" or a new number still adds something.
    """
    if (item.vector_similarity or 0.0) < _TRANSLATION_COSINE:
        return False
    mine, theirs = features_of(said_of(candidate)), features_of(text_of(item.statement, item.condition))
    return _adds_nothing_across(candidate, mine, theirs, fold(candidate.quote or candidate.statement))


def _adds_nothing_across(candidate: Candidate, mine: Features, theirs: Features, own: str) -> bool:
    """Tell whether a candidate is in the other language than a known insight and adds none of what always says
    more: a new number, a case of its own (``_brings_a_case``), or an exception in its ``own`` words."""
    if has_chinese(mine) == has_chinese(theirs) or new_numbers(mine, theirs):
        return False
    return not (_brings_a_case(candidate) or EXCEPTION_SAID.search(own))


def _gist_of(candidate: Candidate, known: Sequence[Known]) -> Known | None:
    """The known insight a shorter candidate in the other language says the gist of again, if any.

    Across Chinese and English the rules' words seldom meet, and a restatement is mostly shorter than
    what it restates ("Commit messages: English, module prefix like `risk: ...`, no conventional-commit
    prefixes" beside "commit message 写英文，第一行 `模块: 小写祈使句`，比如 `fees: charge stamp duty on sells
    only`，不要用 feat:/fix: 那种前缀，两个 repo 都这么写"); one that adds a case,
    a number, a change or (said in Chinese) a name says more, and one that turns the known insight around says
    otherwise. Only the known insight the embedder reads nearest is such a restatement.
    """
    nearest = max(known, key=lambda item: item.vector_similarity or 0.0, default=None)
    cosine = (nearest.vector_similarity or 0.0) if nearest is not None else 0.0
    if nearest is None or cosine < _GIST_COSINE:
        return None
    said, their_text = said_of(candidate), text_of(nearest.statement, nearest.condition)
    mine, theirs = features_of(said), features_of(their_text)
    own = own_words(candidate)
    if weight(said) >= _SHORTER * weight(their_text) or not _adds_nothing_across(candidate, mine, theirs, own):
        return None
    if says_change(own):
        return None
    shared = keys_of(mine) & keys_of(theirs)
    if not shared and cosine < _GIST_UNNAMED_COSINE:
        return None
    if has_chinese(mine) and names_in(candidate.statement) - keys_of(theirs) - CONCEPT_NAMES:
        return None  # a name the English one never gives ("CI 里装依赖用 pnpm install --frozen-lockfile")
    my_negated, their_negated = negated(candidate.statement), negated(nearest.statement)
    if flipped(candidate.statement, nearest.statement, shared, my_negated, their_negated):
        return None
    return nearest


def _brings_a_case(candidate: Candidate) -> bool:
    """Tell whether a candidate adds a case of its own: a condition, an exception, or a "but"."""
    said = fold(candidate.quote or candidate.statement)
    return bool(candidate.condition or EXCEPTION.search(said) or _BUT.search(said))


def _by_rules(
    candidate: Candidate,
    known: Sequence[Known],
    *,
    repeat_similarity: float,
    related_similarity: float,
    ordered: bool = False,
) -> Relation:
    """Decide by the rules alone whether candidate repeats, supplements, supersedes, contradicts or is new.

    What a candidate adds decides, not its wording: when the named things and numbers it
    states are all in a known insight with the same polarity it is a repeat, whatever the
    language; when it keeps them and adds a step or condition, a supplement; when it turns
    one of them around or changes a value on the same subject, it supersedes the known one
    (it says so, or it is the person's newer word in the same scope: ``ordered``) or differs
    from it. The embedder's cosine, when given, helps rank the neighbours and is averaged in
    without lowering a lexical match; it never decides alone.
    """
    mine = features_of(said_of(candidate))
    scored: list[tuple[float, Known, Features]] = []
    for item in known:
        theirs = features_of(text_of(item.statement, item.condition))
        lexical = dice(mine, theirs)
        combined = lexical if item.vector_similarity is None else max(lexical, (lexical + item.vector_similarity) / 2)
        scored.append((combined, item, theirs))
    if not scored:
        return Relation("new", None, 0.0)
    keys = keys_of(mine)
    # an introduction of the project or the person is named by what follows, not added to (cues.INTRODUCTION)
    intros = {item.id for item in known if INTRODUCTION.match(fold(item.statement))}
    # the known insight that shares the most named things comes first, and of those the one they cover
    # most of ("launch moved to 3/27" is about "上线日期 3/20" more than about a note naming the launch once)
    scored.sort(key=lambda entry: -(entry[0] + sharing(mine, entry[2])))
    if keys:
        verdicts = (
            _by_keys(candidate, item, mine, theirs, score, related_similarity, repeat_similarity, ordered)
            for score, item, theirs in scored
        )
        found = [v for v in verdicts if v is not None and not (v.kind == "supplement" and v.known_id in intros)]
        # someone else's view matters only where it disagrees, with whichever known insight that is
        if candidate.reported:
            found = [verdict for verdict in found if verdict.kind == "different"] or found
        linked = [verdict for verdict in found if verdict.kind != "new"]
        # "Remember the insert_overwrite thing? Scrap that — …": what the sentence pointed back at names is changed
        pointed = changed_subject("", candidate.about) if candidate.about and not candidate.reported else frozenset()
        ids = {v.known_id for v in linked}
        if named := [(score, item) for score, item, theirs in scored if item.id in ids and pointed & keys_of(theirs)]:
            return conflict(candidate, named[0][1], named[0][0], ordered)
        subject_named = False
        if not candidate.reported and len(linked) > 1:
            # the person's change replaces their own rule before a colleague's view of it ("阿杰觉得 retries
            # 应该开到 3" beside "retries are 2 on CI"): a view is settled by it, not the thing it changes
            views = {item.id for _, item, _ in scored if REPORTED.search(fold(item.statement))}
            # …and a change is of the thing named before its change word, not of its new value: "TestFlight
            # 改回 Xcode Cloud" changes how TestFlight builds, not a rule that names Xcode
            subject = changed_subject(candidate.statement, candidate.about) - introduced(known)
            about = {item.id for _, item, theirs in scored if subject & keys_of(theirs)}
            # …and of the value it names and leaves: "We're on 1.30 now, so the 1.29 AMI lookups can go" changes
            # "running EKS 1.29", not a rule on the live/*/ca-central-1/eks paths it shares more words with
            left = {item.id for _, item, theirs in scored if _leaves_value(mine, theirs)}
            # …and of one that gives a value it now gives otherwise: "we're on terraform 1.9.8 now" changes "stays
            # on 1.7.5 until the atlantis image gets upgraded", not a rule on applying when atlantis is down
            valued = {item.id for _, item, theirs in scored if _gives_otherwise(mine, theirs)}
            # …and a change is of a rule before the introduction that names the same project, and a project named
            # as introduced is not what changes: "hdb-price 也改成 uv 吧" changes "这个 repo 不用 uv，用 venv +
            # pip-tools", not "hdb-price 是我跟老公 Kai 自己看的小 dashboard" nor "deploy: pip-sync, restart hdb-price"
            linked.sort(
                key=lambda v: (
                    v.kind in CHANGES and v.known_id in views,
                    v.kind in CHANGES and v.known_id in intros,
                    bool(about) and v.known_id not in about,
                    v.kind in CHANGES and bool(left) and v.known_id not in left,
                    v.kind in CHANGES and bool(valued) and v.known_id not in valued,
                )
            )
            # …and the one that names what is changed stands before one that names only the doing it turns down:
            # "main no longer deploys to production automatically" changes "Merges to main go straight to production
            # on Vercel", not "don't push or deploy anything, ever" (a name turned down still decides: "no longer
            # going to Nature Communications first")
            subject_named = linked[0].kind in CHANGES and linked[0].known_id in about
            subject_named = subject_named and not negated(candidate.statement) & names_in(candidate.statement)
        if linked or found:
            if subject_named:
                return linked[0]
            return _turned_down(candidate, linked, scored) or (linked or found)[0]  # "new" only where none relates
    scored.sort(key=lambda entry: -entry[0])
    # a value moved on a subject both name, however few words they share ("组会改到周四" beside "组会每周二")
    for score, item, features in scored:
        if may_conflict(candidate, item) and _moves(candidate, item, mine, features):
            return _bounded(candidate, item, score, ordered, moved=True)
    best, match, theirs = scored[0]
    # named things were read for polarity above; the loose reading of a negation's scope is for texts without them
    if best < related_similarity:
        # a short disagreement ("fixed intervals are too coarse") shares few words with what it refutes
        for score, item, features in scored:
            loose = score >= related_similarity / 2
            if may_conflict(candidate, item) and contradicts(
                candidate.statement, item.statement, mine, features, linking=not loose, negations=not keys
            ):
                return _bounded(candidate, item, score, ordered, cases=CASE_SAID)
        return Relation("new", None, round(best, 4))
    if may_conflict(candidate, match) and contradicts(
        candidate.statement, match.statement, mine, theirs, linking=False, negations=not keys
    ):
        return _bounded(candidate, match, best, ordered, cases=CASE_SAID)
    if _adds_nothing(mine, theirs, candidate.condition, best >= repeat_similarity):
        return Relation("repeat", match.id, round(best, 4))
    if match.id in intros:
        return Relation("new", None, round(best, 4))
    return Relation("supplement", match.id, round(best, 4))


def _leaves_value(mine: Features, theirs: Features) -> bool:
    """Tell whether the candidate names a number the known insight holds, and another it does not."""
    held = numbers_of(mine) & numbers_of(theirs)
    return bool(held) and bool(numbers_of(mine) - held)


def _gives_otherwise(mine: Features, theirs: Features) -> bool:
    """Tell whether the known insight gives numbers and the candidate one it does not (``_leaves_value`` without the
    number both hold)."""
    return bool(numbers_of(theirs)) and bool(numbers_of(mine) - numbers_of(theirs))


def _turned_down(
    candidate: Candidate, linked: list[Relation], scored: list[tuple[float, Known, Features]]
) -> Relation | None:
    """Return the change of the known insight that names what the candidate turns down, when the first one does not.

    "Switch to hardlinks instead of copies — originals still stay in ~/Pictures/inbox" changes "Never move
    originals — always copy", not "Originals stay in ~/Pictures/inbox untouched", which shares more words.
    """
    changes = [verdict for verdict in linked if verdict.kind in ("supersedes", "different")]
    if len(changes) < 2:
        return None
    turned = negated(candidate.statement)
    keys: dict[int | None, frozenset[str]] = {item.id: keys_of(features) for _, item, features in scored}
    naming = [verdict for verdict in changes if turned & keys.get(verdict.known_id, frozenset())]
    return naming[0] if naming and not turned & keys.get(changes[0].known_id, frozenset()) else None


# a condition that places the rule before or after a step of the person's own ("before I sync", "after we merge")
_OWN_STEP = re.compile(r"(?:before|after|until|once|when|whenever)\s+(?:i|we)\b")


def _by_keys(
    candidate: Candidate,
    item: Known,
    mine: Features,
    theirs: Features,
    score: float,
    related_similarity: float,
    repeat_similarity: float,
    ordered: bool,
) -> Relation | None:
    """Relate by the named things and numbers both state; None when they share none, or no subject."""
    my_keys, their_keys = keys_of(mine), keys_of(theirs)
    shared = my_keys & their_keys
    named = {key for key in shared if not key.startswith("#")}
    if _OWN_STEP.match(fold(candidate.condition)):
        # what the candidate sets, not the step of the person's it comes before or after: "migrations run by
        # hand from the bastion, before I sync" is about migrations, not about how the prod app syncs
        named &= keys_of(features_of(said_in(candidate.statement)))
    if not named or of_its_own(candidate.statement, item.statement, named):
        return None  # no common subject
    my_negated = negated(candidate.statement)
    their_negated = negated(item.statement)
    history = not may_conflict(candidate, item)
    covered = my_keys - numbers_of(mine) <= their_keys
    tools = named - CONCEPT_NAMES  # a named tool both speak of, not a topic word: one subject
    subject = covered or tools or len(named) >= 2 or len(named) * 2 >= len(their_keys - numbers_of(theirs))
    if subject and not history and flipped(candidate.statement, item.statement, shared, my_negated, their_negated):
        return _bounded(candidate, item, score, ordered)  # "not redux" against "use redux"
    if not history and switched_from(candidate.statement) & named - their_negated:
        return _bounded(candidate, item, score, ordered)  # "switching the scheduler from SM-2 to FSRS" beside "… SM-2"
    if not subject and score < related_similarity:
        return None  # a word in common ("mock server" beside "don't mock"), not a subject
    if not tools and my_negated - their_keys - CONCEPT_NAMES and not covered:
        return Relation("new", None, round(score, 4))  # a rule on a thing the known one never names ("no emoji")
    # another number for the same unit, on more than the unit word alone ("metrics on port 9301" is not
    # "the service on port 9300"); or a rule that says it changes things and names something new
    # …of the same measure: "缓存 30 天" gives the cache no other value than "cache capped at 500 MB"
    apart = measured_apart(said_of(candidate), text_of(item.statement, item.condition))
    renumbered = different_numbers(mine, theirs) and (covered or len(named) >= 2) and not apart
    says_change = CHANGE.search(fold(f"{candidate.quote} {candidate.statement}")) is not None
    # a value the known one gives a thing ("staging 在 10.2.0.14"), not a bare count ("两个都做吧")
    their_values = frozenset().union(*theirs.units.values()) & numbers_of(theirs)
    other_value = bool(their_values and numbers_of(mine) - numbers_of(theirs)) and not apart
    # a change to the values the known one already gives ("minSdk 升到 28" beside "minSdk changes to 28") is that change
    said_before = bool(numbers_of(mine)) and numbers_of(mine) <= numbers_of(theirs)
    valued = {unit for unit in named if mine.units.get(unit) and theirs.units.get(unit)}
    if valued and not apart:
        # a thing both give a value: what the known one gives it, not a number it says of something else
        # ("Node 版本升到 22" beside "Target is Node 20 LTS, so don't reach for APIs that only exist in 22")
        moved = any(not mine.units[unit] & theirs.units[unit] for unit in valued)
        other_value, said_before = other_value or moved, said_before and not moved
        # a named thing given another value, where both also name a thing beside its number ("retries 应该开到 3
        # on CI" beside "Retries are 2 on CI"; not "ten search results" beside "search results for 5 minutes")
        renumbered = renumbered or (moved and bool(named - mine.units.keys()))
    # (on more than one word in common, or on a meaning near at all: "it pins connections" changes no "pinned in …")
    far = item.vector_similarity is not None and item.vector_similarity < related_similarity / 4
    lone = len(named) < 2 and not covered and far
    replaced = says_change and not said_before and not lone and bool((my_keys - my_negated) - their_keys)
    replaced = replaced and replaces(
        candidate.statement,
        item.statement,
        named,
        their_keys,
        (my_negated, their_negated),
        covered=covered,
        other_value=other_value,
    )
    if (_moves(candidate, item, mine, theirs) or _readdressed(candidate, item)) and not history:
        # "timeout 放宽到 180 秒" beside "60 秒以内"; "base https://api.example.com/v3" beside "…/v2"
        return _bounded(candidate, item, score, ordered, moved=True)
    if (renumbered or replaced) and not history:
        return _bounded(candidate, item, score, ordered)
    # one thing in common, and little else: related only where both say to use it ("CI 里用 pnpm install")
    # (one of them by a verb of use: "gRPC 错误码…" beside "gRPC server listens on 9090" only open with it)
    both_use = tools & used(candidate.statement) & used(item.statement)
    both_use &= used(candidate.statement, imperative=False) | used(item.statement, imperative=False)
    if score < related_similarity / 2 and len(named) < 2 and not both_use:
        return None
    if not history and contradicts(candidate.statement, item.statement, mine, theirs, linking=False, negations=False):
        # "X is overkill", "fixed" against "adaptive"; "exception: in test classes field @Autowired is fine"
        return _bounded(candidate, item, score, ordered)
    novel = my_keys - their_keys
    if EXCEPTION_SAID.search(fold(candidate.statement)) and not EXCEPTION_SAID.search(fold(item.statement)):
        return Relation("supplement", item.id, round(score, 4))  # "测试类例外，可以用字段 @Autowired 注入"
    if _adds_nothing(mine, theirs, candidate.condition, score >= repeat_similarity or not novel):
        return Relation("repeat", item.id, round(score, 4))
    # the same named things, and the model reads the rest as the same meaning: other words, or the other language
    if not novel and covered and not candidate.condition and (item.vector_similarity or 0.0) >= _PARAPHRASE_COSINE:
        return Relation("repeat", item.id, round(score, 4))
    # a restatement may name one thing more ("straight to main", "pnpm install"); a step, condition or
    # example brings a thing and what to do with it, or a condition of its own; a change that names one
    # thing more names what replaces it
    fresh = novel & my_negated or (says_change and novel) or new_numbers(mine, theirs)
    if fresh or candidate.condition:
        return Relation("supplement", item.id, round(score, 4))
    translated = _translates(mine, theirs, novel - names_in(candidate.statement), len(novel))
    if len(novel) <= 1 or translated:
        extra = sum(mine.weights[f] for f in mine.topical - theirs.weights.keys() if not f.isascii())
        if extra < 2 * _MATERIAL_WORDS or translated:  # other words for the same things
            return Relation("repeat", item.id, round(score, 4))
    return Relation("supplement", item.id, round(score, 4))


def _translates(mine: Features, theirs: Features, unnamed: frozenset[str], novel: int) -> bool:
    """Tell whether what the candidate names beyond the known insight may be its words in the other language.

    Beside an English insight, a Chinese statement's words are the other language's for its things, and
    it may name one topic more. Beside a Chinese insight, an English statement that names all it names
    may have one word for each of its Chinese words, and one more. A name ("dev-dependencies",
    "Postgres") is never a translation.
    """
    if len(unnamed) < novel:
        return False
    if not has_chinese(theirs):
        return novel <= 1 and unnamed <= CONCEPT_NAMES
    if has_chinese(mine) or not keys_of(theirs) <= keys_of(mine):
        return False
    return novel <= 1 + sum(1 for f, weight in theirs.weights.items() if not f.isascii() and weight >= 0.5)


_BUT = re.compile(r"(?<![a-z])but(?![a-z])|但|不过")  # beside EXCEPTION, which has except and 除了


def _moves(candidate: Candidate, item: Known, mine: Features, theirs: Features) -> bool:
    return moved_value(candidate.quote or candidate.statement, mine, text_of(item.statement, item.condition), theirs)


def _readdressed(candidate: Candidate, item: Known) -> bool:
    """Tell whether the candidate gives an address the known insight gives at another version, and not that one."""
    mine, theirs = address_versions(said_of(candidate)), address_versions(text_of(item.statement, item.condition))
    return any(host in theirs and not versions & theirs[host] for host, versions in mine.items())


def _bounded(
    candidate: Candidate,
    item: Known,
    score: float,
    ordered: bool,
    *,
    moved: bool = False,
    cases: re.Pattern[str] = EXCEPTION,
) -> Relation:
    """A turned-around candidate that keeps to a case of its own ("except admin forms") supplements.

    ``cases``: what says the case; a contradiction read from critique or numbers alone takes only a case
    named as such (``CASE_SAID``: "it's the one exception to the min-3 rule", "for local testing …"), not any
    "when" ("sleep when tired" beside a bedtime still disagrees with it).
    """
    if candidate.condition or cases.search(fold(candidate.statement)):
        return Relation("supplement", item.id, round(score, 4))
    return conflict(candidate, item, score, ordered, moved=moved)


def _adds_nothing(mine: Features, theirs: Features, condition: str, similar: bool) -> bool:
    """Return whether the candidate brings no new number, condition or material words.

    A similar candidate may bring one new topical word ("the *whole* test suite");
    two or more, such as a new step with its object, are material.
    """
    if mine.total <= 0:
        return True
    if any(f.startswith("#") and f not in theirs.weights for f in mine.weights):
        return False
    if condition and not (features_of(condition).topical <= theirs.weights.keys()):
        return False
    novel = sum(w for f, w in mine.weights.items() if f not in theirs.weights)
    if similar:
        return sum(mine.weights[f] for f in mine.topical if f not in theirs.weights) < _MATERIAL_WORDS
    return novel <= _NOVEL_REPEAT * mine.total
