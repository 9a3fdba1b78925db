"""Generate the bilingual retrieval set: passages.jsonl and queries.jsonl beside this file.

Run from the repository root:

    PYTHONPATH=. python benchmarks/retrieval/make_set.py            # write the set, print its statistics
    PYTHONPATH=. python benchmarks/retrieval/make_set.py --check    # regenerate and compare, write nothing

The facts and their queries are hand-written (facts_*.py). This script embeds each fact in
surrounding text of its topic (a note, a journal line, a list, an agent session), writes a second
passage for facts that have an echo, fills the memory up with near-miss distractors (topics_*.py,
templates.py), shuffles and numbers everything. One seeded ``random.Random`` drives every choice,
so the same seed gives the same bytes.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from benchmarks.retrieval.facts_life import LIFE_FACTS
from benchmarks.retrieval.facts_tech import TECH_FACTS
from benchmarks.retrieval.facts_work import WORK_FACTS
from benchmarks.retrieval.records import Fact, TopicWords
from benchmarks.retrieval.set_stats import Row, describe_set
from benchmarks.retrieval.templates import ASK, DAYS, GENERIC, PEOPLE
from benchmarks.retrieval.topics_life import LIFE_TOPICS
from benchmarks.retrieval.topics_tech import TECH_TOPICS
from benchmarks.retrieval.topics_work import WORK_TOPICS

HERE = Path(__file__).resolve().parent
SEED = 20240917
TOTAL_PASSAGES = 5200
MAX_CHARS = 768  # the organized tier's longest passage
MAX_FILE_BYTES = 5_000_000
HAND_LINE_SHARE = 0.3  # of distractor sentences; the rest are filled templates
# characters of sentences per passage, drawn uniformly; Chinese says as much in about half the characters
BUDGET = {"en": (120, 680), "zh": (60, 360)}
MIXED_SHARE = 0.12  # of passages framed in both languages (a Chinese prompt, an English reply, ...)

ALL_FACTS: tuple[Fact, ...] = LIFE_FACTS + TECH_FACTS + WORK_FACTS
ALL_TOPICS: dict[str, TopicWords] = LIFE_TOPICS | TECH_TOPICS | WORK_TOPICS
OTHER = {"zh": "en", "en": "zh"}


@dataclass(frozen=True, slots=True)
class Draft:
    """A passage before numbering; ``fact`` is the index of the fact it states, if any."""

    text: str
    topic: str
    fact: int | None = None


def detect_lang(text: str) -> str:
    """Label text zh, en or mixed by its share of Han characters among letters."""
    han = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    latin = sum(1 for ch in text if ch.isascii() and ch.isalpha())
    if han == 0:
        return "en"
    if latin == 0 or han / (han + latin) >= 0.55:
        return "zh"
    return "mixed"


def fill(template: str, rng: random.Random, nouns: tuple[str, ...], lang: str) -> str:
    a, b = rng.sample(nouns, 2)
    text = template.format(a=a, b=b, who=rng.choice(PEOPLE[lang]), day=rng.choice(DAYS[lang]))
    if lang == "zh":  # a space between Han and Latin, as the facts are written
        return _HAN_LATIN.sub(r"\1 \2", _LATIN_HAN.sub(r"\1 \2", text))
    return text[0].upper() + text[1:]


_HAN_LATIN = re.compile(r"([\u4e00-\u9fff])([A-Za-z0-9.@])")
_LATIN_HAN = re.compile(r"([A-Za-z0-9])([\u4e00-\u9fff])")


def topic_sentences(rng: random.Random, words: TopicWords, lang: str, count: int = 0, *, chars: int = 0) -> list[str]:
    """Pick sentences on a topic, at least count of them and chars in all.

    They are hand-written near misses and filled templates, none used twice.
    """
    lines = words.lines_zh if lang == "zh" else words.lines_en
    nouns = words.nouns_zh if lang == "zh" else words.nouns_en
    picked: list[str] = []
    used: set[str] = set()
    while len(picked) < count or sum(map(len, picked)) < chars:
        source = rng.choice(lines) if rng.random() < HAND_LINE_SHARE else rng.choice(GENERIC[lang])
        if source in used:
            continue
        used.add(source)
        picked.append(source if source in lines else fill(source, rng, nouns, lang))
    return picked


def some_day(rng: random.Random, lang: str) -> str:
    day = date(2023, 1, 1) + timedelta(days=rng.randrange(1000))
    return f"{day.year}年{day.month}月{day.day}日" if lang == "zh" else day.isoformat()


def join(sentences: list[str], lang: str) -> str:
    return ("" if lang == "zh" else " ").join(sentences)


def frame(rng: random.Random, words: TopicWords, lang: str, sentences: list[str]) -> str:
    """Lay sentences out as one kind of material this memory takes in."""
    title = rng.choice(words.titles_zh if lang == "zh" else words.titles_en)
    day = some_day(rng, lang)
    body = join(sentences, lang)
    kind = rng.randrange(5)
    if kind == 0:
        return f"# {title}\n\n{body}"
    if kind == 1:
        return f"{day}：{body}" if lang == "zh" else f"{day}: {body}"
    if kind == 2:
        heading = f"{title}（{day}）" if lang == "zh" else f"{title} ({day})"
        return heading + "".join(f"\n- {s}" for s in sentences)
    if kind == 3:
        return session(rng, words, ask_lang=lang, reply=body)
    return body


def session(rng: random.Random, words: TopicWords, *, ask_lang: str, reply: str) -> str:
    """One turn of an agent session: the person's prompt in ask_lang, then the reply."""
    nouns = words.nouns_zh if ask_lang == "zh" else words.nouns_en
    ask = fill(rng.choice(ASK[ask_lang]), rng, nouns, ask_lang)
    if ask_lang == "zh":
        return f"用户：{ask}\n\n助手：{reply}" if detect_lang(reply) == "zh" else f"用户：{ask}\n\nAssistant: {reply}"
    return f"User: {ask}\n\nAssistant: {reply}"


def mixed_frame(rng: random.Random, words: TopicWords, lang: str, sentences: list[str]) -> str:
    """Frame lang sentences with words of the other language, as code-switching notes and sessions do."""
    other = OTHER[lang]
    if rng.random() < 0.6:
        return session(rng, words, ask_lang=other, reply=join(sentences, lang))
    aside = topic_sentences(rng, words, other, 1)[0]
    title = rng.choice(words.titles_zh if lang == "zh" else words.titles_en)
    return f"# {title}\n\n{join(sentences, lang)}\n\n> {aside}"


def fit(rng: random.Random, words: TopicWords, lang: str, sentences: list[str], *, mixed: bool) -> str:
    """Frame the sentences, dropping fillers from the ends until the passage fits MAX_CHARS."""
    while True:
        text = mixed_frame(rng, words, lang, sentences) if mixed else frame(rng, words, lang, sentences)
        if len(text) <= MAX_CHARS or len(sentences) == 1:
            return text
        sentences = sentences[1:] if len(sentences[0]) < len(sentences[-1]) else sentences[:-1]


def target_passage(rng: random.Random, fact: Fact) -> str:
    """Embed a fact among other sentences of its topic."""
    words = ALL_TOPICS[fact.topic]
    sentences = topic_sentences(rng, words, fact.lang, 1, chars=rng.randint(*BUDGET[fact.lang]) - len(fact.text))
    sentences.insert(rng.randint(0, len(sentences)), fact.text)
    text = fit(rng, words, fact.lang, sentences, mixed=rng.random() < MIXED_SHARE)
    if fact.text not in text:
        raise ValueError(f"fact lost while fitting: {fact.text[:40]!r}")
    return text


def echo_passage(rng: random.Random, fact: Fact) -> str:
    """Place a fact's echo as written (a session turn) or under a dated heading."""
    if "\n" in fact.echo:
        return fact.echo
    lang = "zh" if detect_lang(fact.echo) != "en" else "en"
    return frame(rng, ALL_TOPICS[fact.topic], lang, [fact.echo]) if rng.random() < 0.7 else fact.echo


def distractor(rng: random.Random, topic: str) -> str:
    words = ALL_TOPICS[topic]
    roll = rng.random()
    lang = "zh" if roll < (1 - MIXED_SHARE) / 2 else "en"
    sentences = topic_sentences(rng, words, lang, 2, chars=rng.randint(*BUDGET[lang]))
    return fit(rng, words, lang, sentences, mixed=roll >= 1 - MIXED_SHARE)


def draft_passages(rng: random.Random, total: int) -> list[Draft]:
    """Targets and echoes first, then distractors round-robin over topics until total."""
    drafts: list[Draft] = []
    seen: set[str] = set()
    for index, fact in enumerate(ALL_FACTS):
        # a cross-language query must not find its fact through an echo in the query's own language
        if fact.cross and fact.echo and detect_lang(fact.echo) == OTHER[fact.lang]:
            raise ValueError(f"fact {index} has a cross query and an echo in that query's language")
        for text in (target_passage(rng, fact), echo_passage(rng, fact) if fact.echo else ""):
            if text:
                if text in seen:
                    raise ValueError(f"duplicate passage for fact {index}: {text[:40]!r}")
                seen.add(text)
                drafts.append(Draft(text, fact.topic, index))
    topics = sorted(ALL_TOPICS)
    turn = 0
    while len(drafts) < total:
        topic = topics[turn % len(topics)]
        turn += 1
        text = distractor(rng, topic)
        if text not in seen and not any(f.text in text for f in ALL_FACTS if f.topic == topic):
            seen.add(text)
            drafts.append(Draft(text, topic))
    return drafts


def build(seed: int, total: int) -> tuple[list[Row], list[Row]]:
    """Return the passage and query rows of the set."""
    rng = random.Random(seed)
    drafts = draft_passages(rng, total)
    rng.shuffle(drafts)
    passages: list[Row] = []
    ids_of_fact: dict[int, list[str]] = {}
    for number, draft in enumerate(drafts, start=1):
        pid = f"p{number:05d}"
        passages.append({"id": pid, "lang": detect_lang(draft.text), "topic": draft.topic, "text": draft.text})
        if draft.fact is not None:
            ids_of_fact.setdefault(draft.fact, []).append(pid)
    queries: list[Row] = []
    for index, fact in enumerate(ALL_FACTS):
        relevant = sorted(ids_of_fact[index])
        asked = [(fact.lang, "lexical", fact.lexical), (fact.lang, "paraphrase", fact.paraphrase)]
        if fact.cross:
            asked.append((OTHER[fact.lang], "cross", fact.cross))
        for lang, kind, text in asked:
            queries.append(
                {
                    "id": f"q{len(queries) + 1:03d}",
                    "lang": lang,
                    "kind": kind,
                    "topic": fact.topic,
                    "query": text,
                    "relevant": relevant,
                }
            )
    return passages, queries


def to_jsonl(rows: list[Row]) -> bytes:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")


def check_set(passages: list[Row], queries: list[Row], files: dict[str, bytes]) -> list[str]:
    """Return the issue's requirements that the set misses (empty when it meets them all)."""
    problems: list[str] = []
    n = len(queries)
    share = {key: sum(1 for q in queries if key in (q["lang"], q["kind"])) / n for key in ("zh", "paraphrase", "cross")}
    if len(passages) < 5000:
        problems.append(f"only {len(passages)} passages; need at least 5,000")
    if n < 200:
        problems.append(f"only {n} queries; need at least 200")
    if not 0.45 <= share["zh"] <= 0.55:
        problems.append(f"{share['zh']:.0%} of queries are Chinese; need about half")
    if share["paraphrase"] < 0.30:
        problems.append(f"{share['paraphrase']:.0%} paraphrase queries; need at least 30%")
    if share["cross"] < 0.10:
        problems.append(f"{share['cross']:.0%} cross-language queries; need at least 10%")
    if any(len(str(p["text"])) > MAX_CHARS for p in passages):
        problems.append(f"some passages are longer than {MAX_CHARS} characters")
    problems.extend(
        f"{name} is {len(data):,} bytes; keep it under 5 MB"
        for name, data in files.items()
        if len(data) >= MAX_FILE_BYTES
    )
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the bilingual retrieval set beside this script.")
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    parser.add_argument(
        "--passages", type=int, default=TOTAL_PASSAGES, help=f"total passages (default {TOTAL_PASSAGES})"
    )
    parser.add_argument("--check", action="store_true", help="regenerate and compare with the files; write nothing")
    args = parser.parse_args(argv)
    passages, queries = build(args.seed, args.passages)
    files = {"passages.jsonl": to_jsonl(passages), "queries.jsonl": to_jsonl(queries)}
    problems = check_set(passages, queries, files)
    for problem in problems:
        print(f"make_set: {problem}", file=sys.stderr)
    if args.check:
        stale = [
            name for name, data in files.items() if not (HERE / name).is_file() or (HERE / name).read_bytes() != data
        ]
        print("files differ from a fresh run: " + ", ".join(stale) if stale else "files match a fresh run")
        return 1 if stale or problems else 0
    for name, data in files.items():
        (HERE / name).write_bytes(data)
    print(describe_set(passages, queries, {name: len(data) for name, data in files.items()}))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
