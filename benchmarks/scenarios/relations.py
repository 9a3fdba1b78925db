"""Score relate() on labelled statements alone: each beside the earlier ones of its half as the known insights.

Run from the repository root:

    PYTHONPATH=. python benchmarks/scenarios/relations.py                 # every tuning half
    PYTHONPATH=. python benchmarks/scenarios/relations.py --halves tune5 tune6 --wrong supersedes

Extraction is left out: a labelled statement is the candidate (its quote, cleaned as the product cleans one)
and the earlier labelled statements of its project (or global ones) are the known insights, its six nearest
by cosine or by named things (``train_lasting.pairings_of``). relate() then reads each with the shipped
relation model, as the insight step does. A statement is right when relate() names its labelled relation
to its labelled target (for a new one: no relation). The held-out halves are read only when named.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.isolation import isolate_home

ROOT = isolate_home("incremind-relations-")  # before jieba and incremind_daemon are imported

import argparse  # noqa: E402

from benchmarks.scenarios.scenario import load_half  # noqa: E402
from benchmarks.scenarios.train_lasting import HERE, named_in, names_the_label, pairings_of, related  # noqa: E402
from incremind_daemon.embedding.use_m3 import UseM3Embedder  # noqa: E402
from incremind_daemon.pipeline.lasting_model import load_weights  # noqa: E402

ORDER = ("repeat", "supplement", "supersedes", "different", "new")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tuning = sorted((p.stem for p in HERE.glob("tune*.json") if ".context" not in p.name), key=_number)
    parser.add_argument("--halves", nargs="*", default=tuning, help="the halves to read (default: every tuning half)")
    parser.add_argument("--wrong", metavar="KIND", help="also print each statement of this labelled kind read wrong")
    args = parser.parse_args()
    reading = load_weights().relations
    embedder = UseM3Embedder()
    totals: dict[str, list[int]] = {kind: [0, 0] for kind in ORDER}
    for name in args.halves:
        half = load_half(HERE / f"{name}.json")
        for pairing in pairings_of(half, embedder):
            relation = related(pairing, reading)
            right = names_the_label(pairing, relation)
            totals[pairing.kind][0] += right
            totals[pairing.kind][1] += 1
            if args.wrong == pairing.kind and not right:
                said = pairing.candidate.statement[:100]
                print(f"{name}: {said!r} -> {relation.kind} {named_in(pairing, relation)} (want {pairing.target})")
    right = sum(r for r, _ in totals.values())
    total = sum(t for _, t in totals.values())
    print(f"\n{len(args.halves)} halves: {right} of {total} statements related right")
    for kind in ORDER:
        r, t = totals[kind]
        print(f"  {kind:<11} {r:>5} of {t:<5} {r / t:.1%}" if t else f"  {kind:<11}     -")
    return 0


def _number(name: str) -> int:
    digits = name.removeprefix("tune")
    return int(digits) if digits else 1


if __name__ == "__main__":
    raise SystemExit(main())
