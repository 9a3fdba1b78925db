"""A candidate beside one known insight: what relate() takes and gives, and what its model reads of a pair."""

from __future__ import annotations

from dataclasses import dataclass

from incremind_daemon.pipeline.amounts import different_numbers
from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.features import Features, dice, features_of, keys_of, new_numbers, sharing
from incremind_daemon.pipeline.stance import CHANGE, CHANGE_OF_PLAN, RESTATED, flipped, negated
from incremind_daemon.store.records import Candidate


@dataclass(frozen=True, slots=True)
class Known:
    """A known insight as relate() sees it; vector_similarity is the embedder's cosine, if any."""

    id: int
    statement: str
    condition: str
    category: str
    vector_similarity: float | None = None
    scope: str = "project"


@dataclass(frozen=True, slots=True)
class Relation:
    kind: str  # one of records.RELATIONS: repeat, supplement, supersedes, different, new
    known_id: int | None
    similarity: float


def text_of(statement: str, condition: str) -> str:
    return f"{statement} {condition}" if condition and condition not in statement else statement


def said_of(candidate: Candidate) -> str:
    """What a candidate says, as both readings compare it: its statement (``said_in``) and its condition."""
    return text_of(said_in(candidate.statement), candidate.condition)


def said_in(statement: str) -> str:
    """A statement (folded) without words about saying it again ("like I told the other agents",
    "还是那句话"), which say nothing of what is said."""
    return RESTATED.sub(" ", fold(statement))


def has_chinese(features: Features) -> bool:
    return any(not f.isascii() for f in features.topical)


PAIR_FEATURES = (
    "cosine",
    "dice",
    "sharing",
    "shared_keys",
    "my_new_keys",
    "their_new_keys",
    "renumbered",
    "new_numbers",
    "i_turn_down",
    "they_turn_down",
    "flipped",
    "says_change",
    "change_of_plan",
    "same_category",
    "condition",
    "length_ratio",
    "ordered",
    "same_scope",
    "other_language",
)


def pair_features(candidate: Candidate, item: Known, *, ordered: bool) -> list[float] | None:
    """What the relation model reads of a candidate beside one known insight (``PAIR_FEATURES``).

    None when the pair has no cosine: the model is made for pairs the embedder has read.
    """
    if item.vector_similarity is None:
        return None
    mine_text = said_of(candidate)
    their_text = text_of(item.statement, item.condition)
    mine, theirs = features_of(mine_text), features_of(their_text)
    my_keys, their_keys = keys_of(mine), keys_of(theirs)
    my_negated, their_negated = negated(candidate.statement), negated(item.statement)
    quote = fold(candidate.quote or candidate.statement)
    return [
        item.vector_similarity,
        dice(mine, theirs),
        sharing(mine, theirs),
        float(len(my_keys & their_keys)),
        float(len(my_keys - their_keys)),
        float(len(their_keys - my_keys)),
        float(different_numbers(mine, theirs)),
        float(new_numbers(mine, theirs)),
        float(bool(my_negated)),
        float(bool(their_negated)),
        float(flipped(candidate.statement, item.statement, my_keys & their_keys, my_negated, their_negated)),
        float(CHANGE.search(quote) is not None),
        float(CHANGE_OF_PLAN.search(quote) is not None),
        float(candidate.category == item.category),
        float(bool(candidate.condition)),
        len(mine_text) / max(1, len(their_text)),
        float(ordered),
        float(candidate.scope == item.scope),
        float(has_chinese(mine) != has_chinese(theirs)),
    ]
