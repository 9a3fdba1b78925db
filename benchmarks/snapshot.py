"""How long the session state takes to compute for long sessions (pipeline.snapshot).

Run: ``python -m benchmarks.snapshot [--rounds 400]``. Three shapes of a
2,000-turn session are timed, best of seven runs each:

- a working day: each round a request, a read, an edit and a report;
- a quiet session: questions and answers with no cue at all, so every turn
  is read to the start;
- a session that never fills its slots: every round an unanswered proposal
  and a report of nothing in particular.

The session state is renewed every time a session's summary is, so this is
paid once per renewal, on the daemon's worker. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time

from incremind_daemon.pipeline.snapshot import Turn, snapshot_session

FEATURES = ["csv export", "json import", "retry policy", "rate limiter", "audit log", "dark mode", "search index"]
PROSE = "The exporter writes rows one at a time, so memory stays flat for large tables. "


def working_day(rounds: int) -> list[Turn]:
    turns: list[Turn] = []
    for n in range(rounds):
        feature = FEATURES[n % len(FEATURES)]
        path = f"src/{feature.replace(' ', '_')}/tenant_{n}.py"
        turns += [
            Turn("user", f"Please add {feature} for tenant {n}; 其实也要支持 CSV 格式，之后再加 JSON。"),
            Turn("assistant", f"Next, I'll read `{path}` and its tests.\n\n```python\nx = {n}\n```"),
            Turn("tool", f"Read: /home/me/proj/{path}"),
            Turn("tool", f"Edit: /home/me/proj/{path}"),
            Turn(
                "assistant",
                f"I've added {feature} for tenant {n} in `{path}`. 已经修复了第 {n} 个租户的问题。\n\n" + PROSE * 8,
            ),
        ]
    return turns


def quiet(rounds: int) -> list[Turn]:
    turns: list[Turn] = []
    for n in range(rounds):
        turns += [
            Turn("user", f"How does the exporter handle table {n}?"),
            Turn("tool", f"Read: /home/me/proj/src/export/table_{n}.py"),
            Turn("assistant", PROSE * 8),
            Turn("tool", f"Grep: table_{n} in /home/me/proj/src"),
            Turn("assistant", PROSE * 2),
        ]
    return turns


def unfilled(rounds: int) -> list[Turn]:
    turns: list[Turn] = []
    for n in range(rounds):
        turns += [
            Turn("user", f"hmm, what about table {n}? 这个我再想想"),
            Turn("assistant", f"I could add an index on table_{n}; want me to? {PROSE * 3}"),
            Turn("user", "not sure yet"),
            Turn("assistant", f"Okay. Nothing changed for table {n}. {PROSE * 3}"),
            Turn("tool", f"Read: /home/me/proj/src/t{n}.py"),
        ]
    return turns


def best_of(turns: list[Turn], runs: int = 7) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        snapshot_session(turns)
        timings.append(time.perf_counter() - started)
    return min(timings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=400, help="rounds of five turns (default 400: 2,000 turns)")
    args = parser.parse_args()
    for name, build in (("working day", working_day), ("quiet", quiet), ("never filled", unfilled)):
        turns = build(args.rounds)
        print(f"{name:<13} {len(turns):>6} turns: {best_of(turns) * 1000:7.1f} ms (best of 7)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
