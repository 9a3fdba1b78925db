"""Score keyword, vector and hybrid search on the bilingual retrieval set.

Run from the repository root:

    PYTHONPATH=. python benchmarks/retrieval/evaluate.py [--modes keyword,vector,hybrid-rrf,hybrid-gated,...]
        [--limit N] [--embedder use-m3|none|MODEL_FOLDER] [--json OUT] [--keep]

Everything happens in a fresh temporary folder: HOME and INCREMIND_HOME point
inside it before incremind is imported, and inherited INCREMIND_* variables
are dropped, so the real memory is never read or written. Each passage of the
set becomes one note with one organized passage; the passages are embedded the
way the daemon's worker does it; then every query runs in every mode on a
read-only connection. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchmarks.isolation import isolate_home

EVAL_ROOT = isolate_home("incremind-retrieval-")  # before apsw, jieba and incremind_daemon are imported

import apsw  # noqa: E402

from benchmarks.figures import machine_line  # noqa: E402
from benchmarks.retrieval.harness import mode_list, run_harness  # noqa: E402
from benchmarks.retrieval.metrics import COLUMNS, Scores, mean_scores, score_query  # noqa: E402
from incremind_daemon.embedding.onnx import OnnxEmbedder  # noqa: E402
from incremind_daemon.embedding.use_m3 import UseM3Embedder  # noqa: E402
from incremind_daemon.errors import IncremindError, QueryError  # noqa: E402
from incremind_daemon.store import items, vectors  # noqa: E402
from incremind_daemon.store.db import connect, fetch_int  # noqa: E402
from incremind_daemon.store.embedder import Embedder  # noqa: E402
from incremind_daemon.store.records import Hit, NewPassage, NewSource, item_id  # noqa: E402
from incremind_daemon.store.search import search  # noqa: E402

HERE = Path(__file__).resolve().parent
PROJECT = "retrieval"
NOW = "2024-09-17T00:00:00+00:00"  # a fixed clock keeps the database the same from run to run
EMBED_BATCH = 64
MIN_LIMIT = 10  # recall@10, MRR and nDCG@10 need ten hits
GROUPS = ("all", "zh", "en", "lexical", "paraphrase", "cross")

Search = Callable[[apsw.Connection, str, Path, int, Embedder | None], list[Hit]]

# which call serves which mode; a mode listed with an embedder needs vectors
SEARCHES: dict[str, Search] = {
    "keyword": lambda conn, q, home, limit, _: search(
        conn, q, home=home, tier="organized", limit=limit, mode="keyword"
    ),
    "vector": lambda conn, q, home, limit, e: search(
        conn, q, home=home, tier="organized", limit=limit, mode="vector", embedder=e
    ),
    "hybrid": lambda conn, q, home, limit, e: search(
        conn, q, home=home, tier="organized", limit=limit, mode="hybrid", embedder=e
    ),
    "hybrid-rrf": lambda conn, q, home, limit, e: search(
        conn, q, home=home, tier="organized", limit=limit, mode="hybrid", embedder=e, fusion="rrf"
    ),
    "hybrid-weighted": lambda conn, q, home, limit, e: search(
        conn, q, home=home, tier="organized", limit=limit, mode="hybrid", embedder=e, fusion="weighted"
    ),
    "hybrid-gated": lambda conn, q, home, limit, e: search(
        conn, q, home=home, tier="organized", limit=limit, mode="hybrid", embedder=e, fusion="gated"
    ),
}
DEFAULT_MODES = ("keyword", "vector", "hybrid-rrf", "hybrid-weighted", "hybrid-gated")
KEYWORD_ONLY = {"keyword"}


@dataclass(frozen=True, slots=True)
class Passage:
    id: str
    lang: str
    topic: str
    text: str


@dataclass(frozen=True, slots=True)
class Query:
    id: str
    lang: str
    kind: str
    topic: str
    query: str
    relevant: tuple[str, ...]

    def in_group(self, group: str) -> bool:
        return group == "all" or group in (self.lang, self.kind)


@dataclass(slots=True)
class ModeResult:
    """What one mode did over all queries."""

    mode: str
    available: bool = True
    reason: str = ""
    seconds: float = 0.0
    groups: dict[str, tuple[int, Scores]] = field(default_factory=dict)
    first_rank: dict[str, int | None] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # query id -> QueryError message

    def ms_per_query(self) -> float:
        return 1000 * self.seconds / max(1, len(self.first_rank))


@dataclass(slots=True)
class Timings:
    build_seconds: float = 0.0
    model_load_seconds: float = 0.0
    embed_seconds: float = 0.0
    embedded: int = 0

    def passages_per_second(self) -> float:
        return self.embedded / self.embed_seconds if self.embed_seconds > 0 else 0.0


def load_set(folder: Path) -> tuple[list[Passage], list[Query]]:
    """Read passages.jsonl and queries.jsonl."""
    with (folder / "passages.jsonl").open(encoding="utf-8") as lines:
        passages = [Passage(**json.loads(line)) for line in lines if line.strip()]
    queries: list[Query] = []
    with (folder / "queries.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                row = json.loads(line)
                row["relevant"] = tuple(row["relevant"])
                queries.append(Query(**row))
    return passages, queries


def build_memory(conn: apsw.Connection, passages: Sequence[Passage]) -> dict[str, str]:
    """Store each passage as one note with one organized passage; map each pas-N to the set's id."""
    set_id: dict[str, str] = {}
    with conn:
        for passage in passages:
            source = NewSource(
                kind="note",
                project=PROJECT,
                title=passage.id,
                raw_text=passage.text,
                size_bytes=len(passage.text.encode("utf-8")),
            )
            source_id = items.insert_source(conn, source, now=NOW)
            items.insert_passages(conn, source_id, [NewPassage(passage.text, 0, len(passage.text))])
            rowid = fetch_int(conn, "SELECT id FROM chunks WHERE source_id = ?", (source_id,))
            set_id[item_id("organized", rowid)] = passage.id
    return set_id


def embed_all(conn: apsw.Connection, embedder: Embedder, total: int) -> int:
    """Embed every queued passage as the daemon's worker does; return how many were embedded."""
    identity = embedder.identity
    with conn:
        vectors.register_model(conn, identity.key, identity.name, identity.dimension, now=NOW)
    key = identity.key
    done = 0
    while True:
        with conn:
            entries = vectors.pending(conn, key, limit=EMBED_BATCH)
        if not entries:
            break
        found = embedder.embed_passages([text for _, _, text, _ in entries])
        with conn:
            vectors.store_vectors(conn, key, entries, found)
        done += len(entries)
        if done % (EMBED_BATCH * 16) == 0 or done == total:
            progress(f"embedded {done:,} of {total:,} passages")
    with conn:
        vectors.promote_if_built(conn, key)
    return done


def check_vectors(conn: apsw.Connection, embedder: Embedder | None) -> str:
    """Return why search by meaning cannot answer, or "" when it can.

    search() answers by keywords alone when the model has no active vectors;
    that would score keyword search under another mode's name.
    """
    if embedder is None:
        return "no embedding model (--embedder none)"
    model = vectors.active_model(conn)
    if model is None or model.key != embedder.identity.key:
        return f"no active vectors of {embedder.identity.name} in the memory"
    return ""


def run_mode(
    conn: apsw.Connection,
    mode: str,
    queries: Sequence[Query],
    *,
    home: Path,
    limit: int,
    embedder: Embedder | None,
    set_id: dict[str, str],
    text_of: dict[str, str],
) -> ModeResult:
    """Run every query in one mode and score it per group."""
    result = ModeResult(mode)
    if mode not in KEYWORD_ONLY:
        reason = check_vectors(conn, embedder)
        if reason:
            result.available, result.reason = False, reason
            return result
    call = SEARCHES[mode]
    scores: dict[str, Scores] = {}
    started = time.perf_counter()
    for index, query in enumerate(queries):
        try:
            hits = call(conn, query.query, home, limit, embedder)
        except QueryError as exc:
            if index == 0:
                result.available, result.reason = False, str(exc)
                return result
            result.errors[query.id] = str(exc)
            hits = []
        except IncremindError as exc:  # no model, a closed or failing embedder: the mode cannot run
            where = "" if index == 0 else f", at query {query.id}"
            result.available, result.reason = False, f"{exc}{where}"
            return result
        ranked = [set_id.get(hit.id) for hit in hits]
        scores[query.id] = score_query(ranked, [hit.text for hit in hits], query.relevant, text_of)
        wanted = set(query.relevant)
        result.first_rank[query.id] = next((rank for rank, pid in enumerate(ranked, 1) if pid in wanted), None)
    result.seconds = time.perf_counter() - started
    for group in GROUPS:
        members = [scores[q.id] for q in queries if q.in_group(group)]
        result.groups[group] = (len(members), mean_scores(members))
    return result


def open_embedder(choice: str) -> Embedder:
    """Build the embedder named on the command line; a bad model folder raises ConfigError."""
    if choice == "use-m3":
        return UseM3Embedder()
    return OnnxEmbedder(Path(choice).expanduser().resolve())


def set_line(passages: Sequence[Passage], queries: Sequence[Query]) -> str:
    def count(values: Sequence[str], names: Sequence[str]) -> str:
        return ", ".join(f"{name} {sum(1 for v in values if v == name):,}" for name in names)

    return (
        f"set: {len(passages):,} passages ({count([p.lang for p in passages], ('zh', 'en', 'mixed'))}), "
        f"{len(queries):,} queries ({count([q.lang for q in queries], ('zh', 'en'))}; "
        f"{count([q.kind for q in queries], ('lexical', 'paraphrase', 'cross'))})"
    )


def table(results: Sequence[ModeResult]) -> list[str]:
    """Format the figures as plain aligned text: one row per mode and group."""
    mode_width = max([len("mode"), *(len(r.mode) for r in results)])
    header = [f"{'mode':<{mode_width}}", f"{'queries':<10}", f"{'n':>4}"]
    header += [f"{name:>11}" for name in COLUMNS.values()]
    header += [f"{'seconds':>8}", f"{'ms/query':>8}"]
    lines = ["  ".join(header)]
    for result in results:
        if not result.available:
            lines.append(f"{result.mode:<{mode_width}}  not available ({result.reason})")
            continue
        for group in GROUPS:
            n, scores = result.groups[group]
            cells = [f"{result.mode:<{mode_width}}", f"{group:<10}", f"{n:>4}"]
            cells += [f"{getattr(scores, name):>11.3f}" for name in COLUMNS]
            if group == "all":
                cells += [f"{result.seconds:>8.1f}", f"{result.ms_per_query():>8.1f}"]
            lines.append("  ".join(cells).rstrip())
    for result in results:
        for qid, message in result.errors.items():
            lines.append(f"{result.mode}: query {qid} counted as no hits: {message}")
    return lines


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def parse_limit(text: str) -> int:
    value = int(text)
    if value < MIN_LIMIT:
        raise argparse.ArgumentTypeError(f"the limit must be at least {MIN_LIMIT}, since the figures look at 10 hits")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Score keyword, vector and hybrid search on the retrieval set.",
        epilog="example:\n  PYTHONPATH=. python benchmarks/retrieval/evaluate.py --modes keyword --json keyword.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--modes",
        type=mode_list(tuple(SEARCHES)),
        default=list(DEFAULT_MODES),
        help=f"modes to run, in order ({', '.join(SEARCHES)})",
    )
    parser.add_argument("--limit", type=parse_limit, default=MIN_LIMIT, help="hits asked of each search (at least 10)")
    parser.add_argument(
        "--embedder", default="use-m3", help="use-m3 (default), none, or the folder of an ONNX model with manifest.json"
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write every figure as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder with its memory.db")
    return parser


def evaluate(args: argparse.Namespace, root: Path) -> dict[str, object]:
    """Build the memory, embed it, run every mode; print and return the figures."""
    passages, queries = load_set(HERE)
    text_of = {p.id: p.text for p in passages}
    home = root / "home" / ".incremind"
    db_path = home / "memory.db"
    modes: list[str] = args.modes
    wants_vectors = args.embedder != "none" and any(m not in KEYWORD_ONLY for m in modes)
    timings = Timings()

    conn = connect(db_path)
    started = time.perf_counter()
    set_id = build_memory(conn, passages)
    timings.build_seconds = time.perf_counter() - started
    progress(f"built the memory in {timings.build_seconds:.1f} s")

    embedder: Embedder | None = None
    if wants_vectors:
        embedder = open_embedder(args.embedder)
        started = time.perf_counter()
        embedder.embed_passages(["warm up"])  # loads the weights, which is no part of the throughput
        timings.model_load_seconds = time.perf_counter() - started
        started = time.perf_counter()
        timings.embedded = embed_all(conn, embedder, len(passages))
        timings.embed_seconds = time.perf_counter() - started

    reader = connect(db_path, readonly=True)
    results: list[ModeResult] = []
    for mode in modes:
        progress(f"running {len(queries)} queries in {mode} mode")
        results.append(
            run_mode(
                reader, mode, queries, home=home, limit=args.limit, embedder=embedder, set_id=set_id, text_of=text_of
            )
        )
    reader.close()
    conn.close()
    if embedder is not None:
        embedder.close()

    name = "none" if embedder is None else f"{embedder.identity.name} ({embedder.identity.dimension}-d)"
    lines = [set_line(passages, queries), machine_line(), f"limit {args.limit}, embedder {name}"]
    lines.append(f"build: {timings.build_seconds:.1f} s")
    if embedder is not None:
        lines.append(
            f"embedding: {timings.embedded:,} passages in {timings.embed_seconds:.1f} s, "
            f"{timings.passages_per_second():.1f} passages/s (model load {timings.model_load_seconds:.1f} s)"
        )
    print("\n".join([*lines, "", *table(results)]))
    return {
        "set": {
            "passages": dict(Counter(p.lang for p in passages), all=len(passages)),
            "queries": dict(Counter(q.lang for q in queries) + Counter(q.kind for q in queries), all=len(queries)),
        },
        "machine": machine_line(),
        "limit": args.limit,
        "embedder": name,
        "timings": {**asdict(timings), "passages_per_second": timings.passages_per_second()},
        "modes": {
            r.mode: {
                "available": r.available,
                "reason": r.reason,
                "seconds": r.seconds,
                "ms_per_query": r.ms_per_query() if r.available else None,
                "groups": {g: {"n": n, **asdict(s)} for g, (n, s) in r.groups.items()},
                "first_relevant_rank": r.first_rank,
                "errors": r.errors,
            }
            for r in results
        },
    }


def main(argv: list[str] | None = None) -> int:
    return run_harness("evaluate", argv, build_parser, evaluate, EVAL_ROOT)


if __name__ == "__main__":
    sys.exit(main())
