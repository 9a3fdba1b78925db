"""How likely a sentence is to last, read from its meaning: a linear model over the embedder's vectors.

The cue rules (``lasting``) see words. Many lasting statements carry none ("this repo is on
pnpm", "staging 在 10.2.0.14", "周会改到周三了"), and some sentences carry a cue and are
passing talk. A logistic model over a sentence's vector gives each readable sentence
(``candidates.read_pieces``) a likelihood of lasting and its likeliest category; a softmax
over the same vector names the category. ``benchmarks/scenarios/train_lasting.py`` fits both
on labelled weeks of sessions and notes, chooses the two thresholds on files it left out,
and writes ``lasting_weights.json``. The likelihood also reads the sentence's words,
hashed into a fixed number of slots (``word_slots``): what the vector blurs
("commit it", "这周", "下周", "from now on") is read as said. The weights belong to one
embedder (name and dimension); with any other embedder, or none, the rules decide alone.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from incremind_daemon.pipeline.traditional import as_mandarin
from incremind_daemon.store.embedder import Embedder, is_semantic
from incremind_daemon.store.tokenizer import iter_tokens

log = logging.getLogger(__name__)

WEIGHTS_PATH = Path(__file__).with_name("lasting_weights.json")
FORMAT = 1


@dataclass(frozen=True, slots=True)
class Chance:
    """What the model reads in one sentence, with the thresholds the rules defer to."""

    likelihood: float  # of lasting, 0..1
    category: str  # the likeliest category if it lasts
    accept: float  # a sentence no cue takes is taken from this likelihood up
    keep: float  # a sentence a cue took is dropped below this
    scope_logit: float | None = None  # the scope model's log-odds of "global", before the rules' verdict
    scope_rule_weight: float = 0.0  # what the rules' "global" adds to them
    scope_threshold: float = 0.5

    def reads_global(self, by_rules: bool) -> bool | None:
        """Whether the statement holds in every project, read beside the rules' verdict; None without a scope model."""
        if self.scope_logit is None:
            return None
        logit = self.scope_logit + (self.scope_rule_weight if by_rules else 0.0)
        return 1.0 / (1.0 + math.exp(-logit)) >= self.scope_threshold


@dataclass(frozen=True, slots=True)
class RelationReader:
    """A softmax over what relate() measures of a candidate beside one known insight, its cosine first.

    ``kinds`` are "none" (unrelated) and the relations; ``relation_odds`` gives each pair's
    probability of each. ``repeat``, ``unrelated``, ``overrule`` and ``change`` are the
    probabilities from which relate() follows the model (``relate.relate``).
    """

    features: tuple[str, ...]
    kinds: tuple[str, ...]
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    weights: npt.NDArray[np.float64]  # (len(kinds), len(features))
    bias: npt.NDArray[np.float64]
    repeat: float
    unrelated: float
    overrule: float = 1.01  # a repeat this likely stands against the rules' supersedes or different
    change: float = 1.01  # a change this likely stands against the rules' new or supplement

    def relation_odds(self, rows: Sequence[Sequence[float]]) -> list[dict[str, float]]:
        if not rows:
            return []
        z = (np.asarray(rows, dtype=np.float64) - self.mean) / self.scale
        logits = z @ self.weights.T + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        odds /= odds.sum(axis=1, keepdims=True)
        return [dict(zip(self.kinds, (float(v) for v in row), strict=True)) for row in odds]


@dataclass(frozen=True, slots=True)
class LastingWeights:
    embedder: str
    dimension: int
    accept: float
    keep: float
    weights: npt.NDArray[np.float64]  # (dimension + 1,): the vector, then 1.0 for a chat turn
    bias: float
    categories: tuple[str, ...]
    category_weights: npt.NDArray[np.float64]  # (len(categories), dimension + 1)
    category_bias: npt.NDArray[np.float64]  # (len(categories),)
    relations: RelationReader | None = None
    scope: ScopeWeights | None = None
    words: WordWeights | None = None


@dataclass(frozen=True, slots=True)
class WordWeights:
    """What each hashed slot of a sentence's words adds to the log-odds of lasting (``word_slots``)."""

    weights: npt.NDArray[np.float64]  # (slots,)
    scale: float  # the value of a present slot, as the fit saw it

    def logits(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        slots = len(self.weights)
        return np.asarray([self.scale * float(self.weights[word_slots(t, slots)].sum()) for t in texts])


def word_slots(text: str, slots: int) -> list[int]:
    """The slots of a sentence's words (as search cuts them), each hashed once.

    Word pairs were tried beside the words and read no better (left out, at a precision of 0.81:
    recall 0.78 with pairs, 0.80 without).
    """
    words = {token.text for token in iter_tokens(sentence_text(text), for_query=True)}
    return sorted({zlib.crc32(word.encode()) % slots for word in words})


@dataclass(frozen=True, slots=True)
class ScopeWeights:
    """A logistic model of "this holds in every project": a sentence's vector, the chat flag, the rules' verdict."""

    weights: npt.NDArray[np.float64]  # (dimension + 2,): the vector, the chat flag, RULE_FLAG if the rules say global
    bias: float
    threshold: float


RULE_FLAG = 3.0  # the value of the rules' "global" column: a scale the regularised fit can lean on


def features(vectors: npt.NDArray[np.float32], conversational: bool) -> npt.NDArray[np.float64]:
    """Rows the model reads: each sentence's vector, then whether it is a person's chat turn."""
    flag = np.full((vectors.shape[0], 1), 1.0 if conversational else 0.0)
    return np.hstack([vectors.astype(np.float64), flag])


# a contraction typed without its apostrophe, as many type in chat: "dont add comments", "it doesnt build"
_BARE_CONTRACTION = re.compile(r"\b(do|does|did|ca|wo|is|are|was|were|should|would|could|have|has)nt\b", re.I)


def sentence_text(text: str) -> str:
    """The form of a sentence that is embedded: its words on one line, Cantonese's in Mandarin, "dont" as
    "don't"."""
    return " ".join(_BARE_CONTRACTION.sub(r"\1n't", as_mandarin(text)).split())


@functools.cache
def load_weights(path: Path = WEIGHTS_PATH) -> LastingWeights | None:
    """Read the shipped weights; None (rules alone) when they are missing or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, expected {FORMAT}")
        dimension = int(data["dimension"])
        weights = np.asarray(data["lasting"]["weights"], dtype=np.float64)
        names = tuple(str(name) for name in data["categories"]["names"])
        category_weights = np.asarray(data["categories"]["weights"], dtype=np.float64)
        category_bias = np.asarray(data["categories"]["bias"], dtype=np.float64)
        if weights.shape != (dimension + 1,) or category_weights.shape != (len(names), dimension + 1):
            raise ValueError("weights do not match the dimension")
        if category_bias.shape != (len(names),):
            raise ValueError("category biases do not match the categories")
        scope = _scope(data.get("scope"), dimension)
        words = _words(data["lasting"].get("words"))
        return LastingWeights(
            words=words,
            scope=scope,
            relations=_relations(data.get("relations")),
            embedder=str(data["embedder"]),
            dimension=dimension,
            accept=float(data["accept"]),
            keep=float(data["keep"]),
            weights=weights,
            bias=float(data["lasting"]["bias"]),
            categories=names,
            category_weights=category_weights,
            category_bias=category_bias,
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("the lasting model at %s is not usable (%s); candidates come from the cue rules alone", path, exc)
        return None


def _scope(data: object, dimension: int) -> ScopeWeights | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError("scope is not an object")
    weights = np.asarray(data["weights"], dtype=np.float64)
    if weights.shape != (dimension + 2,):
        raise ValueError("the scope weights do not match the dimension")
    return ScopeWeights(weights, float(data["bias"]), float(data["threshold"]))


def _words(data: object) -> WordWeights | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError("lasting words is not an object")
    weights = np.asarray(data["weights"], dtype=np.float64)
    if weights.ndim != 1 or not len(weights):
        raise ValueError("the word weights are not one row")
    return WordWeights(weights, float(data["scale"]))


def _relations(data: object) -> RelationReader | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError("relations is not an object")
    features = tuple(str(name) for name in data["features"])
    kinds = tuple(str(kind) for kind in data["kinds"])
    reader = RelationReader(
        features=features,
        kinds=kinds,
        mean=np.asarray(data["mean"], dtype=np.float64),
        scale=np.asarray(data["scale"], dtype=np.float64),
        weights=np.asarray(data["weights"], dtype=np.float64),
        bias=np.asarray(data["bias"], dtype=np.float64),
        repeat=float(data["repeat"]),
        unrelated=float(data["unrelated"]),
        overrule=float(data.get("overrule", 1.01)),
        change=float(data.get("change", 1.01)),
    )
    if "none" not in kinds or "repeat" not in kinds:
        raise ValueError("the relation kinds lack 'none' or 'repeat'")
    if reader.mean.shape != (len(features),) or reader.scale.shape != (len(features),) or (reader.scale <= 0).any():
        raise ValueError("the relation scaling does not match its features")
    if reader.weights.shape != (len(kinds), len(features)) or reader.bias.shape != (len(kinds),):
        raise ValueError("the relation weights do not match their features and kinds")
    return reader


class LastingReader:
    """Reads sentences with one embedder and the weights made for it."""

    def __init__(self, weights: LastingWeights, embedder: Embedder) -> None:
        self._weights = weights
        self._embedder = embedder

    def chances(self, texts: Sequence[str], conversational: bool) -> list[Chance]:
        """Return each text's chance of lasting, in order."""
        if not texts:
            return []
        w = self._weights
        rows = features(self._embedder.embed_passages([sentence_text(t) for t in texts]), conversational)
        lasting = rows @ w.weights + w.bias
        if w.words is not None:
            lasting = lasting + w.words.logits(texts)
        likelihood = 1.0 / (1.0 + np.exp(-lasting))
        best = np.argmax(rows @ w.category_weights.T + w.category_bias, axis=1)
        scope = w.scope
        logits = [None] * len(texts) if scope is None else [float(g) for g in rows @ scope.weights[:-1] + scope.bias]
        rule = 0.0 if scope is None else float(scope.weights[-1] * RULE_FLAG)
        threshold = 0.5 if scope is None else scope.threshold
        return [
            Chance(float(p), w.categories[int(c)], w.accept, w.keep, g, rule, threshold)
            for p, c, g in zip(likelihood, best, logits, strict=True)
        ]


def _weights_for(embedder: Embedder | None) -> LastingWeights | None:
    if embedder is None or not is_semantic(embedder):
        return None
    weights = load_weights()
    identity = embedder.identity
    if weights is None or (identity.name, identity.dimension) != (weights.embedder, weights.dimension):
        return None
    return weights


def reader_for(embedder: Embedder | None) -> LastingReader | None:
    """Return a reader when the shipped weights were made for this embedder, else None (rules alone)."""
    weights = _weights_for(embedder)
    if weights is None or embedder is None:
        return None
    return LastingReader(weights, embedder)


def relation_reader_for(embedder: Embedder | None) -> RelationReader | None:
    """Return the relation model when the shipped weights were made for this embedder's cosines, else None."""
    weights = _weights_for(embedder)
    return None if weights is None else weights.relations
