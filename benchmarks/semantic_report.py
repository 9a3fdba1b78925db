"""The semantic benchmark's plan, its latency rows and how the figures are printed."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import figures
from benchmarks.figures import machine_line, percentile, progress


@dataclass(frozen=True, slots=True)
class Plan:
    """How big each benchmark is."""

    mode: str
    embed_passages: int
    scales: tuple[int, ...]
    real_vectors: int  # passages per database that get a real use-m3 vector; the rest are synthetic
    queries: int
    rounds: int
    daemon_files: int
    settle_seconds: float
    cpu_seconds: float


@dataclass(frozen=True, slots=True)
class Latency:
    """Percentiles of one timed operation, in milliseconds."""

    section: str
    name: str
    count: int
    p50: float
    p95: float
    p99: float
    max: float
    no_hit: int | None = None

    @classmethod
    def of(cls, section: str, name: str, ms: Sequence[float], no_hit: int | None = None) -> Latency:
        return cls(section, name, len(ms), percentile(ms, 50), percentile(ms, 95), percentile(ms, 99), max(ms), no_hit)


@dataclass(slots=True)
class Report(figures.Report):
    """Figures and notes, plus latency rows and a profile."""

    latencies: list[Latency] = field(default_factory=list)
    profile: str = ""

    def latency(self, row: Latency) -> Latency:
        self.latencies.append(row)
        progress(f"{row.section}: {row.name} p50 {row.p50:.2f} p95 {row.p95:.2f} max {row.max:.2f} ms")
        return row


def clock(call: Callable[..., object], *args: Any, **kwargs: Any) -> float:
    """Run call(*args, **kwargs) once; return its wall time in milliseconds."""
    started = time.perf_counter()
    call(*args, **kwargs)
    return (time.perf_counter() - started) * 1000


def render_table(report: Report, plan: Plan, load: tuple[float, float]) -> str:
    """Render figures and latency rows as aligned text, one block per section."""
    sections = list(dict.fromkeys([f.section for f in report.figures] + [r.section for r in report.latencies]))
    name_width = max([len(f.name) for f in report.figures] + [len(r.name) for r in report.latencies] + [10])
    value_width = max([len(f.shown()) for f in report.figures] + [6])
    scales = " and ".join(f"{s:,}" for s in plan.scales)
    lines = [
        f"incremind-daemon semantic benchmark ({plan.mode}: {plan.embed_passages} passages embedded; "
        f"search over {scales} passages; {plan.queries} queries x {plan.rounds} round(s))",
        machine_line(),
        f"load average (1 min) {load[0]:.2f} at start, {load[1]:.2f} at end: other jobs share this machine",
    ]
    for section in sections:
        lines += ["", section]
        for figure in (f for f in report.figures if f.section == section):
            lines.append(f"  {figure.name:<{name_width}}  {figure.shown():>{value_width}}  {figure.unit}".rstrip())
        rows = [r for r in report.latencies if r.section == section]
        if rows:
            head = f"  {'latency, ms':<{name_width}}  {'n':>5}  {'p50':>7}  {'p95':>7}  {'p99':>7}  {'max':>7}  no hit"
            lines.append(head)
            for r in rows:
                no_hit = "" if r.no_hit is None else f"{r.no_hit:>6}"
                lines.append(f"  {r.name:<{name_width}}  {r.count:>5}  {r.p50:>7.2f}  {r.p95:>7.2f}  "
                             f"{r.p99:>7.2f}  {r.max:>7.2f}  {no_hit}".rstrip())
    if report.notes:
        lines += ["", *report.notes]
    return "\n".join(lines)


def write_json(path: Path, report: Report, plan: Plan, load: tuple[float, float]) -> None:
    data = {"plan": asdict(plan), "machine": machine_line(), "load_average": load,
            "figures": [asdict(f) for f in report.figures], "latencies": [asdict(r) for r in report.latencies],
            "notes": report.notes, "profile": report.profile}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
