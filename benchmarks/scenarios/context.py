"""What a new agent session in each project starts with, judged against questions and leaks.

Run from the repository root:

    PYTHONPATH=. python benchmarks/scenarios/context.py --half heldout
    PYTHONPATH=. python benchmarks/scenarios/context.py --half tune --show   # the text and every miss

A half (FORMAT.md) is played through the product as run.py plays it: every
source taken in by the daemon's writer, `incremind pending` reviewed as the
person would (the candidate of each labelled statement confirmed, the rest
rejected). Then the context writer runs once, and for each repo project and
each agent (Claude Code, Codex, Gemini CLI) the text that agent receives when
a session starts in the project's folder is put together: the block of its
global instruction file and what its SessionStart hook prints for that folder.
That text is judged against the half's companion labels
(`<half>.context.json`, CONTEXT_FORMAT.md): questions a new session must be
able to answer from it alone, and things that must not be there.

`--ideal` confirms every labelled statement directly (its labelled wording,
category and scope; a supersedes retires its target) instead of the product's
candidates, so the context step is judged apart from the insight step.
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
from contextlib import redirect_stderr
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.scenarios.run import ROOT, clock_at, next_session, play_half  # first: isolates HOME
from benchmarks.scenarios.scenario import Half, load_half
from incremind_daemon.config import Settings
from incremind_daemon.pipeline.redact import redact
from incremind_daemon.serve.context import hook
from incremind_daemon.serve.context.blockfile import BEGIN, END
from incremind_daemon.serve.context.tokens import estimate_tokens
from incremind_daemon.serve.context.writer import ContextWriter
from incremind_daemon.store import clock, insights
from incremind_daemon.store.db import connect, write_transaction
from incremind_daemon.store.records import Candidate

HERE = Path(__file__).resolve().parent
AGENTS = ("claude", "codex", "gemini")
GLOBAL_FILES = {"claude": ".claude/CLAUDE.md", "codex": ".codex/AGENTS.md", "gemini": ".gemini/GEMINI.md"}
Conjunction = list[list[str]]


@dataclass(frozen=True, slots=True)
class Judgement:
    """One agent's start-up text in one project, judged."""

    project: str
    agent: str
    tokens: int
    answered: list[str]
    unanswered: list[str]
    leaked: list[str]
    text: str


def matches(conjunction: Conjunction, text: str) -> bool:
    """Tell whether every group of the conjunction has an alternative in the text (case-insensitive)."""
    folded = text.casefold()
    return all(any(alt.casefold() in folded for alt in group) for group in conjunction)


def received(settings: Settings, home: Path, project: str, agent: str, now: datetime) -> str:
    """Return what the agent reads at start-up in the project's folder: its global block, then its hook's."""
    parts = []
    global_file = home / GLOBAL_FILES[agent]
    if global_file.exists():
        text = global_file.read_text(encoding="utf-8")
        if BEGIN in text and END in text:
            parts.append(text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip())
    with redirect_stderr(io.StringIO()):
        hooked = hook.context_for(str(home / "code" / project), agent=agent, home=str(settings.home_dir), now=now)
    if hooked:
        parts.append(hooked)
    return "\n\n".join(parts)


def judge(labels: dict[str, Any], project: str, agent: str, text: str) -> Judgement:
    wanted = labels["projects"][project]
    answered = [q["id"] for q in wanted["questions"] if matches(q["answer"], text)]
    unanswered = [q["id"] for q in wanted["questions"] if q["id"] not in answered]
    leaked = [x["id"] for x in wanted["must_not"] if matches(x["tokens"], text)]
    return Judgement(project, agent, estimate_tokens(text), answered, unanswered, leaked, text)


def confirm_labelled(settings: Settings, half: Half) -> None:
    """Replace the product's insights by the labelled statements, confirmed as a person would write them."""
    conn = connect(settings.database_path)
    now = clock.stamp()
    try:
        held: dict[str, int] = {}
        project_of = {source.id: source.project for source in half.sources}
        with write_transaction(conn):
            conn.execute("UPDATE insights SET status = 'rejected' WHERE status IN ('pending', 'confirmed')")
            for s in half.statements:
                target = held.get(s.target) if s.target else None
                if s.kind == "repeat" and target is not None:
                    held[s.id] = target
                    continue
                relation = s.kind if s.kind in ("supplement", "supersedes", "different") and target else "new"
                candidate = Candidate(s.statement, s.category, "", s.quote, 0, 0, scope=s.scope)
                new_id = insights.insert_insight(
                    conn,
                    project=project_of[s.source],
                    candidate=candidate,
                    relation=relation,
                    source_id=None,
                    known_id=target,
                    status="pending",
                    now=now,
                )
                insights.review(conn, new_id, "confirm", actor="benchmark", now=now)
                held[s.id] = new_id
    finally:
        conn.close()


def report(args: argparse.Namespace) -> int:
    files = args.file or [HERE / f"{args.half}.json"]
    totals = {"answered": 0, "questions": 0, "leaked": 0, "must_not": 0, "tokens": 0}
    for number, path in enumerate(files, start=1):
        half = load_half(path)
        labels = json.loads(path.with_suffix(".context.json").read_text(encoding="utf-8"))
        home = ROOT / f"ctx{number}-{half.name}" / "home"
        run = play_half(half, home, embedder=args.embedder, show=False)
        settings = run.settings
        for agent in AGENTS:  # every agent is installed: each has its global file
            (home / GLOBAL_FILES[agent]).parent.mkdir(parents=True, exist_ok=True)
        with clock_at(next_session(half)):  # the next session starts an hour after the half's last source
            if args.ideal:
                confirm_labelled(settings, half)
            conn = connect(settings.database_path)
            try:
                ContextWriter(settings, scrub=redact).regenerate(conn)
            finally:
                conn.close()
            now = clock.now().astimezone()
            texts = {(p, a): received(settings, home, p, a, now) for p in labels["projects"] for a in AGENTS}
        mode = "ideal review" if args.ideal else "product candidates, reviewed"
        print(f"\n{half.name} ({path.name}; {mode})")
        print(f"  {'project':<20} {'agent':<7} {'answered':>9} {'leaked':>7} {'tokens':>7}")
        for project in labels["projects"]:
            for agent in AGENTS:
                j = judge(labels, project, agent, texts[project, agent])
                questions = len(labels["projects"][project]["questions"])
                must_not = len(labels["projects"][project]["must_not"])
                print(
                    f"  {project:<20} {agent:<7} {len(j.answered):>4}/{questions:<4} "
                    f"{len(j.leaked):>3}/{must_not:<3} {j.tokens:>7}"
                )
                totals["answered"] += len(j.answered)
                totals["questions"] += questions
                totals["leaked"] += len(j.leaked)
                totals["must_not"] += must_not
                totals["tokens"] = max(totals["tokens"], j.tokens)
                if args.show and agent == "claude":
                    show(labels, j)
    q, a = totals["questions"], totals["answered"]
    print(
        f"\nall: answered {a}/{q} ({100 * a / max(q, 1):.1f} %), leaked {totals['leaked']}/{totals['must_not']}, "
        f"largest start-up text {totals['tokens']} tokens"
    )
    return 0


def show(labels: dict[str, Any], j: Judgement) -> None:
    wanted = labels["projects"][j.project]
    print(f"\n── what {j.agent} receives in {j.project} ({j.tokens} tokens)\n{j.text}\n")
    for q in wanted["questions"]:
        if q["id"] in j.unanswered:
            print(f"  unanswered {q['id']}: {q['question']} want {q['answer']} from {q['from']}")
    for x in wanted["must_not"]:
        if x["id"] in j.leaked:
            print(f"  leaked {x['id']} ({x['why']}): {x['tokens']} from {x['from']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--half", default="tune", help="which half: tune, tune2, heldout (default tune)")
    parser.add_argument("--file", type=Path, action="append", help="play this scenario file instead (repeatable)")
    parser.add_argument("--embedder", choices=("none", "use-m3"), default="use-m3", help="embedding backend")
    parser.add_argument("--ideal", action="store_true", help="confirm the labelled statements, not the candidates")
    parser.add_argument("--show", action="store_true", help="print Claude Code's text per project and the misses")
    parser.add_argument("--keep", action="store_true", help="keep the temporary homes")
    args = parser.parse_args(argv)
    try:
        return report(args)
    finally:
        if args.keep:
            print(f"kept {ROOT}", file=sys.stderr)
        else:
            shutil.rmtree(ROOT, ignore_errors=True)
        os.environ.pop("INCREMIND_HOME", None)


if __name__ == "__main__":
    sys.exit(main())
