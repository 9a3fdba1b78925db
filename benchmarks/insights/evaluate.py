"""Score the local insight path: relate() on a labelled set, extract_candidates() on real-ish notes.

Run from the repository root:

    PYTHONPATH=. python benchmarks/insights/evaluate.py [--documents N] [--samples N] [--embedder use-m3]

Prints, never asserts:
- accuracy and the confusion matrix of relate() per language and overall, at the
  configured thresholds (``InsightSettings``), and over a threshold grid; the grid is
  scored on the even blocks of each set ("tune") and the best pair re-scored on the
  odd blocks ("check"), so the chosen defaults are not judged on the data that chose them;
  with ``--embedder use-m3`` each known insight carries the cosine production gives it
  (see ``with_cosines``), without one relate() is lexical only;
- candidates per 1,000 characters of input, on the notes of benchmarks/retrieval/passages.jsonl;
- time per source for extract_candidates, and for relate() of every candidate against
  five known insights (words only), and extraction throughput on one long document.

HOME and INCREMIND_HOME point into a fresh temporary folder before incremind is imported,
though the code under test reads neither.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path


def isolate_home() -> Path:
    """Point HOME and INCREMIND_HOME into a new temporary folder; drop inherited INCREMIND_* variables."""
    root = Path(tempfile.mkdtemp(prefix="incremind-insights-")).resolve()
    for name in [key for key in os.environ if key.startswith("INCREMIND_")]:
        del os.environ[name]
    os.environ["HOME"] = str(root / "home")
    os.environ["INCREMIND_HOME"] = str(root / "home" / ".incremind")
    (root / "home" / ".incremind").mkdir(parents=True)
    return root


EVAL_ROOT = isolate_home()  # before jieba and incremind_daemon are imported

from incremind_daemon.config import InsightSettings  # noqa: E402
from incremind_daemon.embedding.use_m3 import UseM3Embedder  # noqa: E402
from incremind_daemon.pipeline.candidates import extract_candidates  # noqa: E402
from incremind_daemon.pipeline.pairs import Known  # noqa: E402
from incremind_daemon.pipeline.relate import relate  # noqa: E402
from incremind_daemon.store.embedder import Embedder  # noqa: E402
from incremind_daemon.store.records import RELATIONS, Candidate  # noqa: E402
from incremind_daemon.store.tokenizer import ensure_segmenter  # noqa: E402

HERE = Path(__file__).resolve().parent
PASSAGES = HERE.parent / "retrieval" / "passages.jsonl"
LABELS = {"R": "repeat", "S": "supplement", "D": "different", "N": "new"}
REPEAT_GRID = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
RELATED_GRID = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55)
EMBEDDERS = ("none", "use-m3")


@dataclass(frozen=True, slots=True)
class Pair:
    lang: str
    block: int
    candidate: Candidate
    known: tuple[Known, ...]  # its own block's insight first, then the neighbours'
    label: str
    expected_id: int | None


def split_condition(line: str) -> tuple[str, str]:
    statement, _, condition = line.partition("||")
    return statement.strip(), condition.strip()


def load_pairs(lang: str) -> list[Pair]:
    blocks: list[tuple[Known, list[tuple[str, str]]]] = []
    for raw in (HERE / f"set_{lang}.txt").read_text(encoding="utf-8").splitlines():
        tag, _, rest = raw.partition(":")
        if tag == "K":
            statement, condition = split_condition(rest)
            blocks.append((Known(len(blocks) + 1, statement, condition, "method"), []))
        elif tag in LABELS:
            blocks[-1][1].append((tag, rest.strip()))
    pairs = []
    for index, (known, lines) in enumerate(blocks):
        neighbours = [blocks[i][0] for i in (index - 1, index + 1) if 0 <= i < len(blocks)]
        for tag, line in lines:
            statement, condition = split_condition(line)
            candidate = Candidate(statement, "method", condition, statement, 0, len(statement))
            expected = None if tag == "N" else known.id
            pairs.append(Pair(lang, index, candidate, (known, *neighbours), LABELS[tag], expected))
    return pairs


def with_cosines(pairs: list[Pair], embedder: Embedder) -> list[Pair]:
    """Give every known insight of every pair the cosine production would give it.

    As in pipeline.insights.nearest_known, the candidate is embedded as a query
    ("statement condition") and each insight as the passage store.vectors keeps
    for it ("statement\\ncondition"); the cosine is the float32 dot product of
    the two unit vectors, as store.vectors.nearest ranks them. Each pair has three
    known insights, fewer than InsightSettings.neighbours, so all of them get one.
    """
    texts = list(dict.fromkeys(f"{k.statement}\n{k.condition}" for pair in pairs for k in pair.known))
    passage = dict(zip(texts, embedder.embed_passages(texts), strict=True))
    out: list[Pair] = []
    for pair in pairs:
        query = embedder.embed_query(f"{pair.candidate.statement} {pair.candidate.condition}".strip())
        cosines = [float(passage[f"{k.statement}\n{k.condition}"] @ query) for k in pair.known]
        known_with = tuple(replace(k, vector_similarity=c) for k, c in zip(pair.known, cosines, strict=True))
        out.append(replace(pair, known=known_with))
    return out


@dataclass(frozen=True, slots=True)
class Scores:
    accuracy: float
    linked: float  # share of repeat/supplement/different answers that name the right known insight
    confusion: Counter[tuple[str, str]]
    misses: tuple[tuple[Pair, str], ...]


def score(pairs: list[Pair], repeat: float, related: float) -> Scores:
    confusion: Counter[tuple[str, str]] = Counter()
    misses: list[tuple[Pair, str]] = []
    right = linked = linkable = 0
    for pair in pairs:
        relation = relate(pair.candidate, pair.known, repeat_similarity=repeat, related_similarity=related)
        confusion[(pair.label, relation.kind)] += 1
        if relation.kind == pair.label:
            right += 1
        else:
            misses.append((pair, relation.kind))
        if pair.expected_id is not None and relation.kind == pair.label:
            linkable += 1
            linked += relation.known_id == pair.expected_id
    return Scores(right / len(pairs), linked / max(1, linkable), confusion, tuple(misses))


def print_confusion(title: str, scores: Scores, total: int) -> None:
    print(f"\n{title}: accuracy {scores.accuracy:.1%} of {total}, right known insight {scores.linked:.1%}")
    # the pairs have no order, yet a candidate that says it changes things ("switch to", "改成") is
    # proposed as superseding: a disagreement found all the same, shown beside the strict figure
    found = scores.confusion[("different", "different")] + scores.confusion[("different", "supersedes")]
    labelled = sum(n for (label, _), n in scores.confusion.items() if label == "different")
    print(f"  disagreements found (different or supersedes): {found} of {labelled}")
    print(f"  {'label / answer':<16}" + "".join(f"{kind:>12}" for kind in RELATIONS))
    for label in RELATIONS:
        row = "".join(f"{scores.confusion[(label, kind)]:>12}" for kind in RELATIONS)
        print(f"  {label:<16}{row}")


def print_cosines(pairs: list[Pair]) -> None:
    """Print how the cosine to a pair's own known insight spreads per label, with the neighbours' best."""
    print("\nCosine to its own known insight by label (min / quartiles / max), and the best neighbour's")
    print(f"  {'label':<12}{'min':>7}{'q1':>7}{'median':>8}{'q3':>7}{'max':>7}{'neighbour':>11}")
    for label in RELATIONS:
        own = sorted(p.known[0].vector_similarity or 0.0 for p in pairs if p.label == label)
        if len(own) < 2:
            continue  # the set labels no pair this way (supersedes: the pairs have no order)
        other = max(k.vector_similarity or 0.0 for p in pairs if p.label == label for k in p.known[1:])
        q1, median, q3 = statistics.quantiles(own, n=4)
        print(f"  {label:<12}{own[0]:>7.3f}{q1:>7.3f}{median:>8.3f}{q3:>7.3f}{own[-1]:>7.3f}{other:>11.3f}")


def print_grid(pairs: list[Pair], configured: tuple[float, float]) -> tuple[float, float]:
    tune = [p for p in pairs if p.block % 2 == 0]
    check = [p for p in pairs if p.block % 2 == 1]
    print(f"\nThreshold grid: accuracy on the tune half ({len(tune)} pairs, even blocks), zh+en")
    print(f"  {'repeat / related':<18}" + "".join(f"{r:>7}" for r in RELATED_GRID))
    results: dict[tuple[float, float], float] = {}
    for repeat in REPEAT_GRID:
        cells = []
        for related in RELATED_GRID:
            results[(repeat, related)] = score(tune, repeat, related).accuracy if related < repeat else 0.0
            cells.append(f"{results[(repeat, related)]:>7.1%}" if related < repeat else f"{'-':>7}")
        print(f"  {repeat:<18}" + "".join(cells))
    top = max(results.values())
    # among ties, prefer the configured pair, then the widest band between the thresholds
    best = max((key for key, value in results.items() if value == top), key=lambda k: (k == configured, k[0] - k[1]))
    for name, half in (("tune", tune), ("check", check)):
        chosen, default = score(half, *best).accuracy, score(half, *configured).accuracy
        print(f"  {name:<6} best {best}: {chosen:.1%}   configured {configured}: {default:.1%}")
    return best


def load_documents(limit: int) -> dict[str, list[str]]:
    by_lang: dict[str, list[str]] = {}
    with PASSAGES.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            by_lang.setdefault(record["lang"], []).append(record["text"])
    rng = random.Random(5)  # a fixed sample, so runs compare
    return {lang: rng.sample(texts, min(limit, len(texts))) for lang, texts in sorted(by_lang.items())}


def measure_documents(documents: dict[str, list[str]], known: list[Known], samples: int) -> None:
    settings = InsightSettings()
    print("\nCandidates on notes of benchmarks/retrieval/passages.jsonl (limit = max_per_source)")
    print(f"  {'lang':<6}{'docs':>6}{'chars':>10}{'cands':>7}{'per 1k':>8}{'at limit':>9}{'ms/src':>8}{'+relate':>9}")
    rng = random.Random(7)
    for lang, texts in documents.items():
        count = chars = full = 0
        extract_ms: list[float] = []
        relate_ms: list[float] = []
        categories: Counter[str] = Counter()
        shown: list[Candidate] = []
        for text in texts:
            began = time.perf_counter()
            found = extract_candidates(text, limit=settings.max_per_source)
            middle = time.perf_counter()
            neighbours = rng.sample(known, 5)
            for candidate in found:
                relate(candidate, neighbours, repeat_similarity=settings.repeat_similarity,
                       related_similarity=settings.related_similarity)  # fmt: skip
            relate_ms.append((time.perf_counter() - middle) * 1000)
            extract_ms.append((middle - began) * 1000)
            count, chars, full = count + len(found), chars + len(text), full + (len(found) == settings.max_per_source)
            categories.update(c.category for c in found)
            shown.extend(found[:1] if len(shown) < samples else [])
        print(
            f"  {lang:<6}{len(texts):>6}{chars:>10}{count:>7}{1000 * count / chars:>8.2f}{full:>9}"
            f"{statistics.mean(extract_ms):>8.2f}{statistics.mean(relate_ms):>9.2f}"
        )
        print(f"        categories: {dict(categories.most_common())}")
        for candidate in shown:
            condition = f"  [when: {candidate.condition}]" if candidate.condition else ""
            print(f"        e.g. ({candidate.category}) {candidate.statement}{condition}")
    long_text = "\n\n".join(text for texts in documents.values() for text in texts)
    began = time.perf_counter()
    extract_candidates(long_text, limit=settings.max_per_source)
    seconds = time.perf_counter() - began
    size_kb = len(long_text.encode("utf-8")) / 1000
    print(f"  one document of {size_kb:,.0f} KB: {seconds * 1000:,.0f} ms, {size_kb / seconds:,.0f} KB/s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=300, help="notes per language for the candidate figures")
    parser.add_argument("--samples", type=int, default=0, help="print this many example candidates per language")
    parser.add_argument("--misses", action="store_true", help="list every pair relate() got wrong")
    parser.add_argument(
        "--embedder", choices=EMBEDDERS, default="none", help="give relate() this model's cosines, as the daemon does"
    )
    try:
        args = parser.parse_args(argv)  # inside, so --help and usage errors remove the temporary home too
        ensure_segmenter()
        settings = InsightSettings()
        configured = (settings.repeat_similarity, settings.related_similarity)
        print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; thresholds repeat {configured[0]}, "
              f"related {configured[1]}; embedder {args.embedder}")  # fmt: skip
        pairs = {lang: load_pairs(lang) for lang in ("en", "zh")}
        if args.embedder == "use-m3":
            embedder = UseM3Embedder(threads=2)
            began = time.perf_counter()
            embedder.embed_query("warm up")  # loads the weights, so what follows times embedding alone
            loaded = time.perf_counter()
            pairs = {lang: with_cosines(lang_pairs, embedder) for lang, lang_pairs in pairs.items()}
            embedder.close()
            count = sum(map(len, pairs.values()))
            print(f"use-m3 loaded in {loaded - began:.1f} s; cosines of {count} pairs in "
                  f"{time.perf_counter() - loaded:.1f} s (one query embedding per candidate)")  # fmt: skip
        everything = [pair for lang_pairs in pairs.values() for pair in lang_pairs]
        for lang, lang_pairs in pairs.items():
            print_confusion(f"relate() {lang}", score(lang_pairs, *configured), len(lang_pairs))
        overall = score(everything, *configured)
        print_confusion("relate() overall", overall, len(everything))
        if args.misses:
            for pair, answer in overall.misses:
                print(f"  {pair.lang} {pair.label:>10} -> {answer:<10} {pair.candidate.statement}")
        if args.embedder != "none":
            print_cosines(everything)
        print_grid(everything, configured)
        known = [k for pair in everything for k in pair.known[:1]]
        measure_documents(load_documents(args.documents), list(dict.fromkeys(known)), args.samples)
    finally:
        shutil.rmtree(EVAL_ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
