"""A session's state snapshot as stored: goal, done, decisions, next steps, files.

The pipeline fills a ``SnapshotParts`` and the store keeps it as a JSON
object in ``sessions.snapshot`` (schema v7), beside the rendered summary text
that search finds and ``show`` prints. Readers build the parts from that
object, so an item holding "; ", ", " or a line that looks like a label comes
back as it was written.

``parse_rendered_snapshot`` reads the rendered text the way readers did
before v7; only the v7 migration uses it, once, for sessions summarized then.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SnapshotParts:
    """A session's state when it was last summarized (oldest item first in each list)."""

    goal: str = ""
    done: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()
    next_steps: tuple[str, ...] = ()
    files: tuple[str, ...] = ()


def snapshot_json(parts: SnapshotParts) -> str:
    """Encode the parts as the JSON object stored in ``sessions.snapshot``."""
    value = {
        "goal": parts.goal,
        "done": list(parts.done),
        "decisions": list(parts.decisions),
        "next": list(parts.next_steps),
        "files": list(parts.files),
    }
    return json.dumps(value, ensure_ascii=False)


def snapshot_from_json(text: str | None) -> SnapshotParts:
    """Decode a stored snapshot; NULL (never summarized since v7) is the empty state.

    A value that is not the object ``snapshot_json`` writes gives the empty
    state too, with a warning: a damaged row leaves one block without its
    state rather than failing every block.
    """
    if text is None:
        return SnapshotParts()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        log.warning("a stored session snapshot is not a JSON object; it is left out")
        return SnapshotParts()
    goal = value.get("goal")
    return SnapshotParts(
        goal if isinstance(goal, str) else "",
        _strings(value.get("done")),
        _strings(value.get("decisions")),
        _strings(value.get("next")),
        _strings(value.get("files")),
    )


def _strings(value: object) -> tuple[str, ...]:
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()


# the labels of the rendered summary text (pipeline/snapshot.py SessionSnapshot.render), in its order
_RENDERED_LABELS = ("Goal", "Done", "Decisions", "Next", "Files")


def parse_rendered_snapshot(summary: str) -> SnapshotParts:
    """Split a summary rendered before schema v7 back into its parts; unknown lines are ignored.

    The rendering joined items with "; " (files with ", "), so an item that
    held the separator comes back split: the best that text allows, and what
    those stores showed until then.
    """
    found: dict[str, str] = {}
    for line in summary.splitlines():
        label, sep, value = line.partition(": ")
        if sep and label in _RENDERED_LABELS and label not in found:
            found[label] = value.strip()

    def items(label: str, sep: str) -> tuple[str, ...]:
        return tuple(part.strip() for part in found.get(label, "").split(sep) if part.strip())

    return SnapshotParts(
        found.get("Goal", ""), items("Done", "; "), items("Decisions", "; "), items("Next", "; "), items("Files", ", ")
    )
