"""What a benchmark prints: figures, notes, percentiles and the machine they ran on."""

from __future__ import annotations

import json
import math
import os
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

MB = 1_000_000  # sizes, throughput and RSS are decimal megabytes


@dataclass(frozen=True, slots=True)
class Figure:
    """One printed number."""

    section: str
    name: str
    value: float
    unit: str
    digits: int = 1

    def shown(self) -> str:
        if self.digits == 0:
            return f"{round(self.value):,}"
        return f"{self.value:,.{self.digits}f}"


@dataclass(slots=True)
class Report:
    """Figures in the order they were measured, plus free-form notes."""

    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, section: str, name: str, value: float, unit: str = "", digits: int = 1) -> None:
        figure = Figure(section, name, value, unit, digits)
        self.figures.append(figure)
        progress(f"{section}: {name} = {figure.shown()} {unit}".rstrip())

    def note(self, text: str) -> None:
        self.notes.append(text)
        progress(f"note: {text}")


def progress(message: str) -> None:
    """Print a progress line to stderr, keeping stdout for the figures."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(pct / 100 * len(ordered)) - 1)]


def machine_line() -> str:
    """Name Python, SQLite and the CPUs, for the head of every table."""
    return (f"python {platform.python_version()}, SQLite {apsw.sqlite_lib_version()}, "
            f"{os.cpu_count()} CPUs, {platform.machine()} {platform.system()}")


def render_table(report: Report, title: str) -> str:
    """Render the figures as an aligned table under title, one block per section."""
    name_width = max(len(f.name) for f in report.figures)
    value_width = max(len(f.shown()) for f in report.figures)
    lines = [title, machine_line()]
    section = ""
    for figure in report.figures:
        if figure.section != section:
            section = figure.section
            lines += ["", section]
        lines.append(f"  {figure.name:<{name_width}}  {figure.shown():>{value_width}}  {figure.unit}".rstrip())
    if report.notes:
        lines += ["", *report.notes]
    return "\n".join(lines)


def write_json(path: Path, report: Report, plan: DataclassInstance) -> None:
    """Write the plan, the machine, the figures and the notes to path."""
    data = {"plan": asdict(plan), "machine": machine_line(),
            "figures": [asdict(f) for f in report.figures], "notes": report.notes}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
