"""Extract CSV, JSON and JSON Lines as readable lines of text."""

from __future__ import annotations

import csv
import io
import json
import logging
from collections import Counter
from collections.abc import Iterator

from incremind_daemon.errors import ExtractError

from .extracted import Extracted, display_name, finish
from .text import decode_text

log = logging.getLogger(__name__)

CELL_SEPARATOR = " | "
MAX_JSON_DEPTH = 200
_DELIMITERS = (",", "\t", ";")  # in order of preference when the evidence ties
_SNIFF_ROWS = 50

JsonValue = object  # json.loads returns dict, list, str, int, float, bool or None


def extract_csv(data: bytes, name: str) -> Extracted:
    """Extract CSV as one line per row with cells joined by ' | '."""
    text = decode_text(data, name)
    delimiter = _sniff_delimiter(text)
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    except csv.Error as exc:
        raise ExtractError(
            f"{display_name(name)} could not be read as CSV ({exc}); export it again as CSV and drop it again."
        ) from None
    lines = [CELL_SEPARATOR.join(row) for row in rows if any(cell.strip() for cell in row)]
    return finish("\n".join(lines), title="", media_type="text/csv", name=name)


def extract_json(data: bytes, name: str) -> Extracted:
    """Extract JSON as 'key.path: value' lines, one per scalar."""
    text = decode_text(data, name)
    try:
        value = _load_json(text, name)
    except json.JSONDecodeError as exc:
        raise ExtractError(
            f"{display_name(name)} is not valid JSON ({exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}); fix it or save it as .txt and drop it again."
        ) from None
    lines = list(flatten_json(value, name))
    return finish("\n".join(lines), title="", media_type="application/json", name=name)


def extract_jsonl(data: bytes, name: str) -> Extracted:
    """Extract JSON Lines; broken lines are skipped unless every line is broken."""
    text = decode_text(data, name)
    records: list[str] = []
    first_error = ""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            records.append("\n".join(flatten_json(_load_json(line, name), name)))
        except (json.JSONDecodeError, ExtractError) as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            first_error = first_error or f"line {number}: {reason}"
            log.warning("skipping line %d of %s: %s", number, display_name(name), reason)
    if not records:
        raise ExtractError(
            f"{display_name(name)} has no valid JSON line ({first_error}); fix it or save it as .txt and drop it again."
        )
    return finish("\n\n".join(r for r in records if r), title="", media_type="application/x-ndjson", name=name)


def flatten_json(value: JsonValue, name: str) -> Iterator[str]:
    """Yield 'path: value' for every scalar, in document order.

    Keys join with '.', list items add '[i]'; strings are kept verbatim.
    """
    stack: list[tuple[str, JsonValue, int]] = [("", value, 0)]
    while stack:
        path, node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise _too_deep(name)
        if isinstance(node, dict):
            children = [(f"{path}.{key}" if path else str(key), item) for key, item in node.items()]
        elif isinstance(node, list):
            children = [(f"{path}[{index}]", item) for index, item in enumerate(node)]
        else:
            yield f"{path}: {_scalar(node)}" if path else _scalar(node)
            continue
        stack.extend((child_path, item, depth + 1) for child_path, item in reversed(children))


def _load_json(text: str, name: str) -> JsonValue:
    try:
        return json.loads(text)
    except RecursionError:
        raise _too_deep(name) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # e.g. an integer longer than Python's digit limit
        raise ExtractError(
            f"{display_name(name)} has a value that cannot be read ({exc}); "
            "fix it or save it as .txt and drop it again."
        ) from None


def _too_deep(name: str) -> ExtractError:
    return ExtractError(
        f"{display_name(name)} is nested more than {MAX_JSON_DEPTH} levels deep; "
        "flatten it or save it as .txt and drop it again."
    )


def _scalar(node: JsonValue) -> str:
    if isinstance(node, str):
        return node
    return json.dumps(node, ensure_ascii=False)


def _sniff_delimiter(text: str) -> str:
    """Pick the delimiter that splits the first rows into the most consistent columns."""
    best, best_score = ",", (0.0, 0)
    for delimiter in _DELIMITERS:
        widths = _row_widths(text, delimiter)
        if not widths:
            continue
        width, count = Counter(widths).most_common(1)[0]
        score = (count / len(widths), width) if width > 1 else (0.0, 0)
        if score > best_score:
            best, best_score = delimiter, score
    return best


def _row_widths(text: str, delimiter: str) -> list[int]:
    widths: list[int] = []
    try:
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter):
            if row:
                widths.append(len(row))
            if len(widths) >= _SNIFF_ROWS:
                break
    except csv.Error:
        pass
    return widths
