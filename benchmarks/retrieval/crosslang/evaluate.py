"""Score search on questions asked in the other language than the developer notes that answer them.

Run from the repository root:

    PYTHONPATH=. python benchmarks/retrieval/crosslang/evaluate.py [--modes keyword,hybrid,baseline-bm25]
        [--half tune|heldout|all] [--embedder use-m3|e5-small|none] [--json OUT] [--keep]

Importing evidence.py points HOME and INCREMIND_HOME into a fresh temporary folder before
incremind is imported (``isolate_home``); this harness uses that folder and evidence.py's
reading rules. Each item of ``crosslang.json`` becomes a Markdown file taken in into its project,
as ``incremind ingest`` does, and is embedded as the daemon's writer does; each question is
searched in the whole memory as ``search_memory`` does, and scored by the share of its evidence
quotes that the first five results, and the first 2,000 / 4,000 returned characters, cover (a
result covers a quote when it holds half of it or more; README.md).
"""

from __future__ import annotations

# evidence.py calls isolate_home on import: before apsw, jieba and incremind_daemon are imported
from benchmarks.retrieval.evidence import (  # isolates HOME first
    EVAL_ROOT,
    Read,
    covers,
    has_vectors,
    hit_reads,
    recall,
)

# isort: split
import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import apsw
import jieba

from benchmarks.figures import machine_line
from benchmarks.retrieval.bm25 import bm25_ranker
from benchmarks.retrieval.harness import mode_list, run_harness
from incremind_daemon.config import EmbeddingSettings, Settings
from incremind_daemon.embedding.configured import make_embedder
from incremind_daemon.pipeline.steps import StepState, embed_pending, ingest_item, open_writer
from incremind_daemon.pipeline.work import IngestFile
from incremind_daemon.serve.mcp_tools import MAX_LIMIT
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store import items as stored_items
from incremind_daemon.store.db import connect
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.records import row_number
from incremind_daemon.store.search import search

SET = Path(__file__).resolve().parent / "crosslang.json"
MODES = ("keyword", "hybrid", "baseline-bm25")
BUDGETS = (2_000, 4_000)
FIGURES = ("top5", "@2k", "@4k")
DEFAULT_LIMIT = 10  # search_memory's default: top 5 comes from this call
GROUPS = ("cross", "cross-zh", "cross-en", "control")  # cross-zh: Chinese questions about English words


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    kind: str  # cross or control
    lang: str  # the question's language
    half: str
    question: str
    evidence: tuple[tuple[str, str], ...]  # (item id, verbatim quote)

    def groups(self) -> tuple[str, ...]:
        return (self.kind, f"cross-{self.lang}") if self.kind == "cross" else (self.kind,)


@dataclass(slots=True)
class ModeResult:
    mode: str
    reason: str = ""  # why the mode could not run; "" when it ran
    scores: dict[str, dict[str, float]] = field(default_factory=dict)  # question id -> figure -> recall
    misses: dict[str, list[str]] = field(default_factory=dict)  # question id -> the first results, when 4k missed


Searcher = Callable[[Question, int | None], list[Read]]  # limit None: as deep as the budgets need


def load_set() -> tuple[list[dict[str, str]], list[Question]]:
    raw = json.loads(SET.read_text(encoding="utf-8"))
    questions = [
        Question(
            q["id"],
            q["kind"],
            q["lang"],
            q["half"],
            q["question"],
            tuple((e["item"], e["quote"]) for e in q["evidence"]),
        )
        for q in raw["questions"]
    ]
    return raw["items"], questions


def render_item(item: dict[str, str]) -> str:
    """Write one item as the Markdown file a person drops in: a note as written, a session under its title."""
    text = item["text"] if item["text"].startswith("# ") else f"# {item['title']}\n\n{item['text']}"
    return text + "\n"


def build_memory(
    settings: Settings,
    items: Sequence[dict[str, str]],
    questions: Sequence[Question],
    folder: Path,
    embedder: Embedder | None,
) -> tuple[dict[tuple[str, str], Read], list[Read]]:
    """Take every item in as a file and embed; return where each quote lies, and every paragraph (for BM25)."""
    state = StepState(settings, extract_bytes, embedder=embedder, actor="benchmark")
    quotes = {e for q in questions for e in q.evidence}
    located: dict[tuple[str, str], Read] = {}
    paragraphs: list[Read] = []
    with open_writer(state) as conn:
        for item in items:
            path = folder / item["project"] / f"{item['id']}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render_item(item), encoding="utf-8")
            outcome = ingest_item(conn, state, IngestFile(path, item["project"]))
            if outcome.status != "added" or outcome.source_id is None:
                raise RuntimeError(f"{path.name} was not taken in: {outcome.status} {outcome.message}")
            raw_text = stored_items.get_source(conn, row_number(outcome.source_id)).raw_text
            for item_id, quote in quotes:
                if item_id == item["id"]:
                    start = raw_text.index(quote)
                    located[(item_id, quote)] = Read(
                        outcome.source_id, ((start, start + len(quote)),), len(quote), item_id
                    )
            for match in re.finditer(r"[^\n]+(?:\n(?!\n)[^\n]*)*", raw_text):  # paragraphs, for the baseline
                paragraphs.append(Read(outcome.source_id, (match.span(),), len(match.group()), match.group()))
        embed_pending(conn, state)
    return located, paragraphs


def words_of(text: str) -> list[str]:
    """The baseline's words: jieba's cut, lowercased, Latin and Chinese alike."""
    return [w for w in (w.strip().lower() for w in jieba.lcut(text)) if w[:1].isalnum()]


def product_searcher(conn: apsw.Connection, mode: str, home: Path, embedder: Embedder | None) -> Searcher:
    find = partial(search, conn, home=home, mode=mode, embedder=embedder)

    def run(question: Question, limit: int | None) -> list[Read]:
        return hit_reads(conn, find(question.question, limit=limit or MAX_LIMIT))

    return run


def baseline_searcher(paragraphs: Sequence[Read]) -> Searcher:
    """Rank every paragraph of every item by plain BM25 over jieba words."""
    rank = bm25_ranker([words_of(p.label) for p in paragraphs])

    def run(question: Question, limit: int | None) -> list[Read]:
        return [paragraphs[i] for i in rank(words_of(question.question))[:limit]]

    return run


def run_mode(
    mode: str, questions: Sequence[Question], searcher: Searcher, located: dict[tuple[str, str], Read]
) -> ModeResult:
    result = ModeResult(mode)
    for question in questions:
        evidence = [located[e] for e in question.evidence]
        first = searcher(question, DEFAULT_LIMIT)
        deep = searcher(question, None)
        found = {f"@{b // 1000}k": recall(deep, evidence, b) for b in BUDGETS}
        found["top5"] = {i for read in first[:5] for i, turn in enumerate(evidence) if covers(read, turn, read.chars)}
        result.scores[question.id] = {name: len(hits) / len(evidence) for name, hits in found.items()}
        if len(found["@4k"]) < len(evidence):
            result.misses[question.id] = [r.label[:40] for r in first]
    return result


def group_means(result: ModeResult, questions: Sequence[Question]) -> dict[str, dict[str, float]]:
    means: dict[str, dict[str, float]] = {}
    for group in GROUPS:
        keys = [q.id for q in questions if group in q.groups()]
        means[group] = {"n": len(keys)} | {
            f: sum(result.scores[k][f] for k in keys) / max(1, len(keys)) for f in FIGURES
        }
    return means


def table(results: Sequence[ModeResult], questions: Sequence[Question]) -> list[str]:
    lines = [f"{'mode':<14}{'group':<10}{'n':>4}" + "".join(f"{f:>8}" for f in FIGURES)]
    for result in results:
        if result.reason:
            lines.append(f"{result.mode:<14}not available ({result.reason})")
            continue
        for group, figures in group_means(result, questions).items():
            lines.append(
                f"{result.mode:<14}{group:<10}{int(figures['n']):>4}" + "".join(f"{figures[f]:>8.3f}" for f in FIGURES)
            )
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Score search on questions asked in the other language than their evidence.",
        epilog="example:\n  PYTHONPATH=. python benchmarks/retrieval/crosslang/evaluate.py --half tune",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--modes", type=mode_list(MODES), default=list(MODES), help=f"modes ({', '.join(MODES)})")
    parser.add_argument("--half", choices=("tune", "heldout", "all"), default="tune", help="questions to score")
    parser.add_argument("--embedder", choices=("use-m3", "e5-small", "none"), default="use-m3", help="embedding model")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write every figure and miss as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder with its memory.db")
    return parser


def evaluate(args: argparse.Namespace, root: Path) -> dict[str, object]:
    """Build the memory, run every mode on the chosen half; print and return the figures."""
    items, every = load_set()
    questions = [q for q in every if args.half in ("all", q.half)]
    embedding = EmbeddingSettings(backend=args.embedder if "hybrid" in args.modes else "none")
    settings = Settings(home=root / "home" / ".incremind", embedding=embedding)
    embedder = make_embedder(settings)
    started = time.perf_counter()
    located, paragraphs = build_memory(settings, items, every, root / "files", embedder)
    build_seconds = time.perf_counter() - started
    reader = connect(settings.database_path, readonly=True)
    embedded = has_vectors(reader, embedder)
    results: list[ModeResult] = []
    for mode in args.modes:
        print(f"running {len(questions)} questions in {mode} mode", file=sys.stderr, flush=True)
        if mode == "baseline-bm25":
            results.append(run_mode(mode, questions, baseline_searcher(paragraphs), located))
        elif mode == "hybrid" and not embedded:
            results.append(ModeResult(mode, reason="no embedding model with vectors (--embedder none?)"))
        else:
            searcher = product_searcher(reader, mode, settings.home_dir, embedder)
            results.append(run_mode(mode, questions, searcher, located))
    reader.close()
    if embedder is not None:
        embedder.close()
    name = "none" if embedder is None else f"{embedder.identity.name} ({embedder.identity.dimension}-d)"
    described = f"set: {len(items)} items; {len(questions)} {args.half} questions"
    print("\n".join([described, machine_line(), f"embedder {name}, build {build_seconds:.1f} s", ""]))
    print("\n".join(table(results, questions)))
    return {
        "set": described,
        "machine": machine_line(),
        "embedder": name,
        "modes": {
            r.mode: {"groups": {} if r.reason else group_means(r, questions), "scores": r.scores, "misses": r.misses}
            for r in results
        },
    }


def main(argv: list[str] | None = None) -> int:
    return run_harness("crosslang", argv, build_parser, evaluate, EVAL_ROOT)


if __name__ == "__main__":
    sys.exit(main())
