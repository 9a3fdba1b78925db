"""Score the session state the product keeps (goal, done, decisions, next) against labelled halves.

Run from the repository root:

    PYTHONPATH=. python benchmarks/scenarios/state.py                    # the tuning halves
    PYTHONPATH=. python benchmarks/scenarios/state.py --half tune --show # each snapshot beside its labels
    PYTHONPATH=. python benchmarks/scenarios/state.py --file my.json

Each session of a half is written in its agent's real transcript format
(render.py), read by the daemon's transcript reader and stored by the
writer, and its stored messages become the turns `snapshot_session` condenses,
as pipeline/sessions.py does; the snapshot is rendered and parsed back as the
context writer reads it. Labels come from `<half>.context.json`, section
`sessions` (CONTEXT_FORMAT.md). A field is scored as:

- goal: its conjunction matches the goal, and the goal does not end mid-word;
- done, decisions: the share of labelled conjunctions found in that field
  (an empty label list scores 1);
- next: its conjunction matches the next field (both empty when the label is
  null), and no `not_next` conjunction matches it.

"Fields right" is the mean of the four field scores. HOME and INCREMIND_HOME
point into a fresh temporary folder, removed at the end.
"""

from __future__ import annotations

from benchmarks.isolation import isolate_home

ROOT = isolate_home("incremind-state-")  # before jieba and incremind_daemon are imported

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import jieba  # noqa: E402

from benchmarks.scenarios.render import write_session  # noqa: E402
from benchmarks.scenarios.scenario import LANGS, Half, ScenarioError, Source, load_half  # noqa: E402
from incremind_daemon.cli.app import configure_logging  # noqa: E402
from incremind_daemon.config import load_settings  # noqa: E402
from incremind_daemon.daemon import prepare_home  # noqa: E402
from incremind_daemon.pipeline.snapshot import Turn, snapshot_session  # noqa: E402
from incremind_daemon.pipeline.steps import StepState, ingest_item, open_writer  # noqa: E402
from incremind_daemon.pipeline.work import TailSession  # noqa: E402
from incremind_daemon.sources.extract import extract_bytes  # noqa: E402
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader  # noqa: E402
from incremind_daemon.store import sessions  # noqa: E402
from incremind_daemon.store.db import connect  # noqa: E402
from incremind_daemon.store.records import row_number  # noqa: E402
from incremind_daemon.store.snapshots import SnapshotParts  # noqa: E402

HERE = Path(__file__).resolve().parent
TUNING = ("tune", "tune2", "tune3", "tune4", "tune5", "tune6", "tune7", "tune8")
# labelled after the state rules were tuned, read item by item since
FRESH = ("tune11", "tune12", "tune13", "tune14", "tune17", "tune18", "tune19", "tune20")
# written in the thirty-fifth to forty-seventh sessions, each first read by its session's starting code or, for the
# last two of a session, by its final code
NEW = (
    "tune33",
    "tune34",
    "tune35",
    "tune36",
    "tune37",
    "tune38",
    "tune39",
    "tune40",
    "tune41",
    "tune42",
    "tune43",
    "tune44",
    "tune45",
    "tune46",
    "tune47",
    "tune48",
    "tune49",
    "tune50",
    "tune51",
    "tune52",
    "tune53",
    "tune54",
    "tune55",
    "tune56",
    "tune57",
    "tune58",
    "tune59",
    "tune60",
)
HALVES = {
    "tuning": TUNING,
    "fresh": FRESH,
    "new": NEW,
    **{name: (name,) for name in (*TUNING, *FRESH, *NEW, "heldout", "heldout2")},
}
FIELDS = ("goal", "done", "decisions", "next")

Conjunction = list[list[str]]


@dataclass(frozen=True, slots=True)
class Labels:
    """What a person reading one session's state would accept (CONTEXT_FORMAT.md, `sessions`)."""

    goal: Conjunction
    done: list[Conjunction]
    decisions: list[Conjunction]
    next: Conjunction | None
    not_next: list[Conjunction]

    @classmethod
    def from_json(cls, raw: dict[str, object]) -> Labels:
        def conjunction(value: object) -> Conjunction:
            return [[str(token) for token in group] for group in value] if isinstance(value, list) else []

        def conjunctions(value: object) -> list[Conjunction]:
            return [conjunction(c) for c in value] if isinstance(value, list) else []

        nxt = raw.get("next")
        return cls(
            conjunction(raw.get("goal")),
            conjunctions(raw.get("done")),
            conjunctions(raw.get("decisions")),
            None if nxt is None else conjunction(nxt),
            conjunctions(raw.get("not_next")),
        )


@dataclass(frozen=True, slots=True)
class Scored:
    source: Source
    parts: SnapshotParts
    labels: Labels | None
    scores: dict[str, float]  # field -> 0..1; empty without labels
    mid_word: bool


def matches(conjunction: Conjunction, text: str) -> bool:
    """Return whether every group has an alternative in text (case-insensitive substring)."""
    folded = text.casefold()
    return all(any(token.casefold() in folded for token in group) for group in conjunction)


def ends_mid_word(goal: str, asks: list[str]) -> bool:
    """Return whether a shortened goal stops inside a word of the person's own text.

    The goal's last characters are found in the person's turns; it ends
    mid-word when the next character there continues a Latin word, or when
    jieba puts no word boundary at that point of a CJK run.
    """
    shown = goal.rstrip("… ").removesuffix("...")
    tail = shown[-12:]
    if not tail:
        return False
    for text in asks:
        spaced = " ".join(text.split())
        at = spaced.find(tail)
        while at >= 0:
            end = at + len(tail)
            if end < len(spaced):
                before, after = spaced[end - 1], spaced[end]
                if before.isalnum() and after.isalnum():
                    if before.isascii() and after.isascii():
                        return True
                    if not before.isascii() and not after.isascii():
                        return end not in _word_bounds(spaced)
            at = spaced.find(tail, at + 1)
    return False


def _word_bounds(text: str) -> set[int]:
    bounds, position = set(), 0
    for word in jieba.cut(text):
        position += len(word)
        bounds.add(position)
    return bounds


def score(source: Source, parts: SnapshotParts, labels: Labels | None) -> Scored:
    asks = [t.text for t in source.turns if t.role == "user"]
    mid = ends_mid_word(parts.goal, asks)
    if labels is None:
        return Scored(source, parts, None, {}, mid)
    done, decisions, nxt = "; ".join(parts.done), "; ".join(parts.decisions), "; ".join(parts.next_steps)

    def share(wanted: list[Conjunction], text: str) -> float:
        return sum(matches(c, text) for c in wanted) / len(wanted) if wanted else 1.0

    next_right = (not nxt) if labels.next is None else bool(nxt) and matches(labels.next, nxt)
    next_right = next_right and not any(matches(c, nxt) for c in labels.not_next if c)
    scores = {
        "goal": float(matches(labels.goal, parts.goal) and not mid),
        "done": share(labels.done, done),
        "decisions": share(labels.decisions, decisions),
        "next": float(next_right),
    }
    return Scored(source, parts, labels, scores, mid)


def read_states(half: Half, home: Path) -> dict[str, SnapshotParts]:
    """Write each session of a half as its agent would, read it as the daemon does, return its state."""
    (home / ".incremind").mkdir(parents=True)
    os.environ["HOME"], os.environ["INCREMIND_HOME"] = str(home), str(home / ".incremind")
    settings = load_settings()
    prepare_home(settings)
    reader = TranscriptReader(ReadRules.from_settings(settings))
    state = StepState(settings, extract_bytes, read_session=reader, use_model=False)
    stored: dict[str, int] = {}
    with open_writer(state) as writer:
        for source in half.sources:
            if source.kind != "session":
                continue
            path = write_session(source, home=home, code=home / "code", seed=half.name)
            outcome = ingest_item(writer, state, TailSession(path, str(source.agent)))
            if outcome.source_id is not None:
                stored[source.id] = row_number(outcome.source_id)
    conn = connect(settings.database_path, readonly=True)
    try:
        states = {}
        for source_id, row in stored.items():
            turns = [Turn(m.role, m.text) for m in sessions.live_messages(conn, row)]
            states[source_id] = snapshot_session(turns).parts()
        return states
    finally:
        conn.close()


def load_labels(path: Path) -> dict[str, Labels] | None:
    companion = path.with_name(f"{path.stem}.context.json")
    if not companion.exists():
        return None
    data = json.loads(companion.read_text(encoding="utf-8"))
    return {key: Labels.from_json(value) for key, value in (data.get("sessions") or {}).items()}


def render_table(title: str, scored: list[Scored]) -> str:
    rows = [
        f"{title}",
        f"  {'':<7}{'sessions':>9}" + "".join(f"{name:>11}" for name in FIELDS) + f"{'fields right':>15}",
    ]
    for lang in (*LANGS, "all"):
        group = [s for s in scored if s.scores and (lang == "all" or s.source.lang == lang)]
        if not group:
            continue
        means = [sum(s.scores[name] for s in group) / len(group) for name in FIELDS]
        cells = "".join(f"{100 * m:>10.0f}%" for m in means)
        rows.append(f"  {lang:<7}{len(group):>9}{cells}{100 * sum(means) / len(means):>14.1f}%")
    return "\n".join(rows)


def show(item: Scored) -> None:
    source, parts, labels = item.source, item.parts, item.labels
    print(f"\n── {source.id} {source.agent} · {source.project} · {source.lang}")
    mark = {
        name: "" if not item.scores else (" ✓" if item.scores[name] == 1 else f" ✗ {item.scores[name]:.2f}")
        for name in FIELDS
    }
    fields = (
        ("goal", parts.goal, labels.goal if labels else None),
        ("done", "; ".join(parts.done), labels.done if labels else None),
        ("decisions", "; ".join(parts.decisions), labels.decisions if labels else None),
        ("next", "; ".join(parts.next_steps), labels.next if labels else None),
    )
    for name, value, wanted in fields:
        print(f"  {name + mark[name]:<14} {value or '—'}")
        if wanted is not None:
            print(f"  {'':<14} want {json.dumps(wanted, ensure_ascii=False)}")
    if labels and labels.not_next:
        print(f"  {'':<14} not next {json.dumps(labels.not_next, ensure_ascii=False)}")
    if item.mid_word:
        print(f"  {'':<14} goal ends mid-word")
    if parts.files:
        print(f"  {'files':<14} {', '.join(parts.files)}")


def run_file(number: int, path: Path, *, show_all: bool) -> list[Scored]:
    try:
        half = load_half(path)
    except ScenarioError as exc:
        print(f"\nskipped: {exc}")
        return []
    states = read_states(half, ROOT / f"{number}-{half.name}" / "home")
    labels = load_labels(path)
    scored = [
        score(source, states.get(source.id, SnapshotParts()), labels.get(source.id) if labels else None)
        for source in half.sources
        if source.kind == "session"
    ]
    if show_all:
        for item in scored:
            show(item)
    if labels is None:
        print(f"\n{half.name}: no labels yet ({path.stem}.context.json); {len(scored)} sessions read")
    else:
        missing = [s.source.id for s in scored if s.labels is None]
        note = f" (unlabelled: {', '.join(missing)})" if missing else ""
        print("\n" + render_table(f"{half.name} ({path.name}): session state fields right{note}", scored))
    mid = [s.source.id for s in scored if s.mid_word]
    if mid:
        print(f"  goals ending mid-word: {', '.join(mid)}")
    return scored


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--half", choices=tuple(HALVES), default="tuning", help="which half (default: the first eight tuning halves)"
    )
    parser.add_argument("--file", type=Path, action="append", help="score this scenario file instead (repeatable)")
    parser.add_argument("--show", action="store_true", help="print each session's state beside its labels")
    configure_logging(verbose=False)
    try:
        args = parser.parse_args(argv)
        files = args.file or [HERE / f"{name}.json" for name in HALVES[args.half]]
        everything: list[Scored] = []
        for number, path in enumerate(files, start=1):
            everything += run_file(number, path, show_all=args.show)
        if len(files) > 1 and any(s.scores for s in everything):
            print("\n" + render_table("all halves: session state fields right", everything))
        return 0 if everything else 1
    finally:
        shutil.rmtree(ROOT, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
