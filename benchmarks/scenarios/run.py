"""Play scenario halves through the product as a person would, and score its insight step.

Run from the repository root:

    PYTHONPATH=. python benchmarks/scenarios/run.py                      # both halves, the product's defaults
    PYTHONPATH=. python benchmarks/scenarios/run.py --half tune --misses # what went wrong, item by item
    PYTHONPATH=. python benchmarks/scenarios/run.py --file my.json --show --embedder none

For each source of a half, in time order: write it where the product finds it
(an agent's transcript under ~/.claude, ~/.codex or ~/.gemini, run in
~/code/<project>; a note under ~/.incremind/inbox/<project>/), take it in with
the writer the daemon, `incremind backfill` and `incremind ingest` use, run
the insight step to the end, then review `incremind pending` as the person
would: confirm the candidate of each labelled statement, reject the rest.
Figures are printed, never asserted; see README.md for what each one means.

HOME and INCREMIND_HOME point into a fresh temporary folder (one home per
half) before incremind is imported; the folder is removed unless --keep.
"""

from __future__ import annotations

from benchmarks.isolation import isolate_home

ROOT = isolate_home("incremind-scenarios-")  # before jieba and incremind_daemon are imported

import argparse  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import datetime, timedelta  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import apsw  # noqa: E402

from benchmarks.retrieval.clock_at import clock_at as clock_at  # noqa: E402  (context.py takes it from here)
from benchmarks.scenarios.render import write_note, write_session  # noqa: E402
from benchmarks.scenarios.scenario import Half, ScenarioError, Source, Statement, load_half  # noqa: E402
from benchmarks.scenarios.score import (  # noqa: E402
    MATCH_SHARE,
    Figures,
    Judged,
    Proposal,
    Seen,
    Spans,
    TakenRepeat,
    best_statement,
    count_figures,
    figures_json,
    lacking,
    merge,
    overlap,
    quote_spans,
    render_confusion,
    render_figures,
    wording_faults,
)
from incremind_daemon.cli import review  # noqa: E402
from incremind_daemon.cli.app import configure_logging  # noqa: E402
from incremind_daemon.cli.insight_view import render_insight  # noqa: E402
from incremind_daemon.config import Settings, load_settings  # noqa: E402
from incremind_daemon.daemon import prepare_home  # noqa: E402
from incremind_daemon.embedding.configured import make_embedder, may_embed_project  # noqa: E402
from incremind_daemon.errors import IncremindError  # noqa: E402
from incremind_daemon.pipeline.steps import (  # noqa: E402
    StepState,
    embed_pending,
    examine_pending,
    ingest_item,
    open_writer,
    summarize_due,
)
from incremind_daemon.pipeline.work import IngestFile, Outcome, TailSession  # noqa: E402
from incremind_daemon.sources.extract import extract_bytes  # noqa: E402
from incremind_daemon.sources.inbox import project_for  # noqa: E402
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader  # noqa: E402
from incremind_daemon.store import items  # noqa: E402
from incremind_daemon.store.db import connect  # noqa: E402
from incremind_daemon.store.records import row_number  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
HALVES = {"tune": ("tune",), "heldout": ("heldout",), "both": ("tune", "heldout")}
NOTES_SHOWN = 12  # problems of a half-written file and refusals printed before the tables
ALL_BUT_REJECTED: dict[str, object] = {"status": None, "project": None, "category": None, "limit": 10**9}


def cli_json(handler: Callable[[argparse.Namespace, Settings], int], settings: Settings, **options: object) -> Any:
    """Run an `incremind` subcommand in-process with --json and return what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        handler(argparse.Namespace(json=True, **options), settings)
    return json.loads(out.getvalue())


@dataclass
class HalfRun:
    """One half played through one fresh home: what the product did, and how it was judged."""

    half: Half
    home: Path  # HOME of this half: the agents' folders and code/<project> are inside
    settings: Settings
    state: StepState  # the writer's steps, run in-process as `incremind ingest` and `backfill` run them
    writer: apsw.Connection
    show: bool
    holder: dict[str, str] = field(default_factory=dict)  # statement id -> the insight that holds it
    examined: set[str] = field(default_factory=set)  # candidate ids already reviewed
    seen: list[Seen] = field(default_factory=list)
    judged: list[Judged] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    statuses: dict[str, str] = field(default_factory=dict)  # insight id -> status at the end
    taken: list[TakenRepeat] = field(default_factory=list)  # evidence known insights took as repeats

    @property
    def statements(self) -> dict[str, Statement]:
        return {s.id: s for s in self.half.statements}

    def play(self) -> None:
        for source in self.half.sources:
            with clock_at(source_end(source)):  # the half's clock: a note dropped then, not today
                self.play_one(source)
        final = cli_json(review.cmd_insights, self.settings, **ALL_BUT_REJECTED)
        self.statuses = {str(d["id"]): str(d["status"]) for d in final}

    def play_one(self, source: Source) -> None:
        outcome = self.take_in(source)
        if outcome.source_id is None or outcome.status not in ("added", "unchanged"):
            self.notes.append(f"{source.id}: {outcome.status} {outcome.message}")
        if outcome.project != source.project:
            self.notes.append(f"{source.id}: stored in project {outcome.project!r}, not {source.project!r}")
        self.review(source, outcome.source_id)

    def take_in(self, source: Source) -> Outcome:
        """Write one source where the product finds it and run it through the writer to the end."""
        if source.kind == "session":
            path = write_session(source, home=self.home, code=self.home / "code", seed=self.half.name)
            outcome = ingest_item(self.writer, self.state, TailSession(path, str(source.agent)))
            summarize_due(self.writer, self.state, force=True)
        else:
            path = write_note(source, inbox=self.settings.inbox_dir)
            project = project_for(path, self.settings.inbox_dir, self.settings.default_project)
            outcome = ingest_item(self.writer, self.state, IngestFile(path, project, from_inbox=True))
        examine_pending(self.writer, self.state)
        embed_pending(self.writer, self.state)
        return outcome

    def review(self, source: Source, product_id: str | None) -> None:
        """Judge the source's pending candidates, confirm and reject them, and note what became of each statement."""
        raw = [d for d in cli_json(review.cmd_pending, self.settings, project=None) if d["id"] not in self.examined]
        self.examined.update(str(d["id"]) for d in raw)
        fresh = [Proposal.from_json(d) for d in raw]
        statements = [s for s in self.half.statements if s.source == source.id]
        text = self.stored_text(product_id)
        spans = {s.id: quote_spans(s.quote, text) for s in statements}
        claims: dict[str, list[tuple[float, int, int, Proposal]]] = {}
        for proposal in fresh:
            statement, share = best_statement(proposal, product_id or "", statements, spans)
            if statement is None:
                self.judge(proposal, source, None, "junk")
            else:  # the best-overlapping candidate of a statement is its own, any other a duplicate; of two
                # that overlap it alike (one sentence said in two), the one that keeps what it must say
                lacks = len(lacking(proposal, statement))
                claims.setdefault(statement.id, []).append((-share, lacks, row_number(proposal.id), proposal))
        known = [Proposal.from_json(d) for d in cli_json(review.cmd_insights, self.settings, **ALL_BUT_REJECTED)]
        self.note_taken(source, product_id, known, fresh, statements, spans)
        for statement in statements:
            target = self.holder.get(statement.target) if statement.target else None
            ranked = [proposal for *_, proposal in sorted(claims.get(statement.id, []))]
            if ranked:
                self.settle(source, statement, ranked, target)
                continue
            took = _took_as_evidence(known, fresh, statement, product_id, spans[statement.id])
            self.seen.append(Seen(statement, "repeat" if took else "missed", took, None, target))
            if took or (target and statement.kind == "repeat"):
                self.hold(statement, took or target)
        if self.show:
            self.show_source(source, product_id, raw)
        self.apply([j for j in self.judged if j.source == source.id])

    def note_taken(
        self,
        source: Source,
        product_id: str | None,
        known: list[Proposal],
        fresh: list[Proposal],
        statements: list[Statement],
        spans: dict[str, Spans],
    ) -> None:
        """Note every piece of this source a known insight took as a repeat, and whether a statement says it."""
        made_here = {p.id for p in fresh}
        for insight in known:
            pieces = insight.evidence[1:] if insight.id in made_here else insight.evidence
            for evidence in pieces:
                if evidence.source != product_id:
                    continue
                said = any(overlap(s.quote, spans[s.id], evidence) >= MATCH_SHARE for s in statements)
                self.taken.append(TakenRepeat(insight.id, evidence.quote, source.lang, said))

    def settle(self, source: Source, statement: Statement, ranked: list[Proposal], target: str | None) -> None:
        """Judge the candidates of one statement: its own is confirmed, unless it repeats what is held already."""
        first = ranked[0]
        redundant = statement.kind == "repeat" and target is not None
        self.judge(first, source, statement, "redundant" if redundant else "match")
        for other in ranked[1:]:
            self.judge(other, source, statement, "duplicate")
        self.seen.append(Seen(statement, first.kind, first.id, first.relates_to, target))
        self.hold(statement, target if redundant else first.id)

    def hold(self, statement: Statement, insight: str | None) -> None:
        """Note the insight that holds a statement; a repeat's holds its targets too when they found none."""
        if insight is None:
            return
        self.holder[statement.id] = insight
        while statement.kind == "repeat" and statement.target and statement.target not in self.holder:
            self.holder[statement.target] = insight
            statement = self.statements[statement.target]

    def judge(self, proposal: Proposal, source: Source, statement: Statement | None, role: str) -> None:
        self.judged.append(Judged(proposal, source.id, statement.lang if statement else source.lang, statement, role))

    def apply(self, judged: list[Judged]) -> None:
        """Confirm and reject as `incremind confirm` and `incremind reject` do, each verb at once."""
        for verb, handler, ids in (
            ("confirm", review.cmd_confirm, [j.proposal.id for j in judged if j.confirmed]),
            ("reject", review.cmd_reject, [j.proposal.id for j in judged if not j.confirmed]),
        ):
            if not ids:
                continue
            extra = {"all": False, "project": None} if verb == "confirm" else {}
            try:
                cli_json(handler, self.settings, ids=ids, **extra)
            except IncremindError as exc:  # all or nothing: take them one at a time, so one refusal costs one
                self.notes.append(f"{verb} {' '.join(ids)} refused ({exc}); one at a time instead")
                for one in ids:
                    with contextlib.suppress(IncremindError):
                        cli_json(handler, self.settings, ids=[one], **extra)

    def stored_text(self, product_id: str | None) -> str:
        if product_id is None:
            return ""
        conn = connect(self.settings.database_path, readonly=True)
        try:
            return items.get_source(conn, row_number(product_id)).raw_text
        finally:
            conn.close()

    def show_source(self, source: Source, product_id: str | None, raw: list[dict[str, Any]]) -> None:
        where = f"{source.agent} session" if source.kind == "session" else f"note {source.filename}"
        print(f"\n── {self.half.name} {source.id} {where} · {source.project} · {source.lang} → {product_id}")
        verdicts = {j.proposal.id: j for j in self.judged if j.source == source.id}
        for data in raw:
            judged = verdicts[str(data["id"])]
            about = f" ({judged.statement.id})" if judged.statement else ""
            verb = "confirm" if judged.confirmed else "reject"
            print("  " + render_insight(data).replace("\n", "\n  ") + f"\n    → {verb}: {judged.role}{about}")
        if not raw:
            print("  nothing pending")


def source_end(source: Source) -> datetime:
    """When a source is done: a note when dropped, a session at its last line (render.py steps 7 s a line).

    The product runs on the half's clock (``clock_at``) while it takes a source in and the person reviews it, and
    the next session starts just after the last. Halves are dated from 2026 into 2027: on the machine's clock a note
    dropped "today" would be older than sessions stamped next year, and a half of last spring would start its next
    session eight months on."""
    lines = sum(1 + 2 * len(turn.tools) for turn in source.turns) + 2  # a bound for any agent's log
    return source.at + timedelta(seconds=7 * lines)


def next_session(half: Half) -> datetime:
    """When the half's next session starts: an hour after its last source."""
    return max(source_end(source) for source in half.sources) + timedelta(hours=1)


def _took_as_evidence(
    known: list[Proposal], fresh: list[Proposal], statement: Statement, product_id: str | None, spans: Spans
) -> str | None:
    """Return the insight that took the statement's quote as further evidence (a repeat), if any.

    A candidate's own first evidence is what made it; only evidence added
    later (a repeat merged into it) counts.
    """
    made_here = {p.id for p in fresh}
    for insight in known:
        pieces = insight.evidence[1:] if insight.id in made_here else insight.evidence
        for evidence in pieces:
            if evidence.source == product_id and overlap(statement.quote, spans, evidence) >= MATCH_SHARE:
                return insight.id
    return None


def play_half(half: Half, home: Path, *, embedder: str, show: bool) -> HalfRun:
    """Play one half in its own fresh home (``home/.incremind`` is incremind's; sessions run in ``home/code``)."""
    (home / ".incremind").mkdir(parents=True)
    os.environ["HOME"], os.environ["INCREMIND_HOME"] = str(home), str(home / ".incremind")
    settings = load_settings(embedding={"backend": embedder})
    prepare_home(settings)
    state = StepState(
        settings,
        extract_bytes,
        read_session=TranscriptReader(ReadRules.from_settings(settings)),
        embedder=make_embedder(settings),
        may_embed=lambda name: may_embed_project(settings, name),
        actor="daemon",
        use_model=False,  # as `incremind backfill` by default: the local rules, never a model or a headless agent
    )
    with open_writer(state) as writer:
        run = HalfRun(half, home, settings, state, writer, show)
        run.play()
    return run


def start_pairs(embedder: str) -> subprocess.Popen[str]:
    """Start benchmarks/insights/evaluate.py (the labelled-pair accuracy of relate()) beside the scenarios."""
    command = [sys.executable, str(REPO / "benchmarks" / "insights" / "evaluate.py"), "--documents", "1"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    command += ["--embedder", embedder]
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def pair_lines(process: subprocess.Popen[str]) -> list[str]:
    """Return the accuracy lines of the labelled-pair benchmark."""
    output, _ = process.communicate()
    lines = output.splitlines()
    kept: list[str] = []
    for index, line in enumerate(lines):
        if line.startswith("relate()"):
            kept.append(line)
            if "overall" in line:  # and its confusion matrix, down to the blank line
                kept.extend(itertools.takewhile(str.strip, lines[index + 1 :]))
        elif line.lstrip().startswith(("tune ", "check ")):
            kept.append(line)
    if process.returncode:
        kept.append(f"evaluate.py exited {process.returncode}: {lines[-1] if lines else 'no output'}")
    return kept


def print_misses(run: HalfRun) -> None:
    """Print every missed statement, wrong label, junk candidate and candidate a person would edit."""
    name = run.half.name
    print(f"\n{name}: missed statements")
    for seen in run.seen:
        if not seen.found:
            s = seen.statement
            taken = f" (taken as a repeat by {seen.insight})" if seen.did == "repeat" else ""
            print(f"  {s.id} {s.kind:<10} {s.lang:<5} {s.source}: “{s.quote}”{taken}")
    print(f"\n{name}: wrong labels (expected → product)")
    for seen in run.seen:
        if seen.found and not seen.right:
            s = seen.statement
            want = f"{s.kind} of {s.target} ({seen.target_insight or 'no insight'})" if s.target else s.kind
            got = f"{seen.did} {seen.insight}" + (f" → {seen.relates_to}" if seen.relates_to else "")
            print(f"  {s.id} {s.lang:<5} {want:<34} → {got}")
    print(f"\n{name}: junk, duplicate and redundant candidates")
    for judged in run.judged:
        if judged.role != "match":
            p = judged.proposal
            quote = " ".join(p.evidence[0].quote.split())[:100] if p.evidence else ""
            about = f" for {judged.statement.id}" if judged.statement else ""
            print(f"  {p.id} {judged.role}{about} ({judged.source} {judged.lang}, {p.kind}/{p.category})")
            print(f"      said: {p.statement}\n      from: “{quote}”")
    print(f"\n{name}: repeats of nothing said (a known insight took a sentence no statement says)")
    for taken in run.taken:
        if not taken.said:
            print(f"  {taken.insight} ({taken.lang}) took “{' '.join(taken.quote.split())[:100]}”")
    print(f"\n{name}: matched candidates filed under another category (labelled → product)")
    for judged in run.judged:
        if judged.role == "match" and judged.statement and judged.proposal.category != judged.statement.category:
            p, s = judged.proposal, judged.statement
            print(f"  {p.id} ({s.id}) {s.category} → {p.category}: {p.statement}")
    print(f"\n{name}: matched candidates given another scope (labelled → product)")
    for judged in run.judged:
        if judged.role == "match" and judged.statement and judged.proposal.scope != judged.statement.scope:
            p, s = judged.proposal, judged.statement
            print(f"  {p.id} ({s.id}, {judged.source}) {s.scope} → {p.scope}: {p.statement}")
    print(f"\n{name}: candidates a person would edit before accepting")
    for judged in run.judged:
        if judged.confirmed and judged.statement and (faults := wording_faults(judged.proposal, judged.statement)):
            print(f"  {judged.proposal.id} ({judged.statement.id}) {'; '.join(faults)}")
            print(f"      said: {judged.proposal.statement}\n      want: {judged.statement.statement}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--half", choices=tuple(HALVES), default="both", help="which half of the set (default both)")
    parser.add_argument("--file", type=Path, action="append", help="play this scenario file instead (repeatable)")
    parser.add_argument("--embedder", choices=("none", "use-m3"), default="use-m3", help="embedding backend")
    parser.add_argument("--misses", action="store_true", help="list every miss, junk, wrong label and edit")
    parser.add_argument("--show", action="store_true", help="print each source's pending candidates as reviewed")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--no-pairs", action="store_true", help="skip the labelled-pair accuracy of evaluate.py")
    parser.add_argument("--keep", action="store_true", help="keep the temporary homes (databases, transcripts)")
    keep = False
    configure_logging(verbose=False)  # as the CLI does: problems only, and jieba quiet
    try:
        args = parser.parse_args(argv)  # inside, so --help and usage errors remove the temporary folder too
        keep = args.keep
        return report(args)
    finally:
        if keep:
            print(f"kept {ROOT}", file=sys.stderr)
        else:
            shutil.rmtree(ROOT, ignore_errors=True)


def report(args: argparse.Namespace) -> int:
    """Play the chosen halves, print their tables and write the JSON."""
    files = args.file or [HERE / f"{name}.json" for name in HALVES[args.half]]
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; embedder {args.embedder}")
    pairs = None if args.no_pairs else start_pairs(args.embedder)
    try:
        played = [entry for number, path in enumerate(files, start=1) if (entry := play_file(number, path, args))]
    except BaseException:
        if pairs is not None:
            pairs.kill()
        raise
    if len(played) > 1:
        everything = merge(figures for _, figures, _ in played)
        print(render_figures("\nall halves", everything))
        print(render_confusion(everything))
    lines = pair_lines(pairs) if pairs else []
    if lines:
        print("\nlabelled pairs (benchmarks/insights/evaluate.py):")
        print("\n".join(f"  {line}" for line in lines))
    if args.json:
        halves = {
            run.half.name: figures_json(figures)
            | {"seconds": round(seconds, 2), "notes": [*run.half.problems, *run.notes]}
            for run, figures, seconds in played
        }
        data = {"embedder": args.embedder, "halves": halves, "pairs": lines}
        args.json.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 0 if played else 1


def play_file(number: int, path: Path, args: argparse.Namespace) -> tuple[HalfRun, Figures, float] | None:
    """Play one scenario file and print its tables; None when it cannot be read yet."""
    try:
        half = load_half(path)
    except ScenarioError as exc:
        print(f"\nskipped: {exc}")
        return None
    began = time.perf_counter()
    run = play_half(half, ROOT / f"{number}-{half.name}" / "home", embedder=args.embedder, show=args.show)
    seconds = time.perf_counter() - began
    figures = count_figures(run.seen, run.judged, run.statuses, run.taken)
    print(f"\n{half.name}: {len(half.sources)} sources, {len(half.statements)} statements, {seconds:.1f} s")
    notes = [*half.problems, *run.notes]
    for note in notes[:NOTES_SHOWN]:
        print(f"  note: {note}")
    if len(notes) > NOTES_SHOWN:
        print(f"  … and {len(notes) - NOTES_SHOWN} more notes (all of them in --json)")
    print(render_figures(f"\n{half.name} ({path.name})", figures))
    print(f"\n{half.name}: labelled kind × what the product did")
    print(render_confusion(figures))
    if args.misses:
        print_misses(run)
    return run, figures, seconds


if __name__ == "__main__":
    sys.exit(main())
