"""The hand-written material of the retrieval set: facts with their queries, and topic vocabularies."""

from __future__ import annotations

from dataclasses import dataclass

LANGS = ("zh", "en")


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing worth remembering, and the questions that should find it.

    ``text`` is written into a target passage verbatim. ``lexical`` shares its
    key words; ``paraphrase`` asks for the same thing in other words, in the
    same language; ``cross`` asks in the other language. ``echo`` is a second
    passage (a later note or session) that states the fact again; it is
    relevant to every query of the fact.
    """

    topic: str
    lang: str
    text: str
    lexical: str
    paraphrase: str
    cross: str = ""
    echo: str = ""


@dataclass(frozen=True, slots=True)
class TopicWords:
    """What distractor passages of one topic are made of, per language.

    ``nouns`` fill the generic templates (they repeat the facts' key words, so
    keyword search meets near misses); ``lines`` are hand-written sentences on
    the topic that answer none of the queries; ``titles`` head notes.
    """

    nouns_en: tuple[str, ...]
    nouns_zh: tuple[str, ...]
    lines_en: tuple[str, ...]
    lines_zh: tuple[str, ...]
    titles_en: tuple[str, ...]
    titles_zh: tuple[str, ...]


def facts(topic: str, *rows: tuple[str, ...]) -> tuple[Fact, ...]:
    """Build a topic's facts from rows of (lang, text, lexical, paraphrase[, cross[, echo]])."""
    built = tuple(Fact(topic, *row) for row in rows)
    for fact in built:
        if fact.lang not in LANGS:
            raise ValueError(f"{topic}: unknown language {fact.lang!r} in {fact.text[:30]!r}")
    return built


def split_lines(text: str) -> tuple[str, ...]:
    """Return the non-empty lines of a block, stripped."""
    return tuple(line.strip() for line in text.strip().splitlines() if line.strip())
