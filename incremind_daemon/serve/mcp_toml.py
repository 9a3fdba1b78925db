"""Edit one ``[mcp_servers.<name>]`` table of a Codex config.toml as text.

There is no TOML writer among the dependencies, and rewriting a parsed file
would drop the person's comments and layout. So the table is cut out or
put in by lines, every other line stays byte-for-byte, and the result is
parsed with tomllib to prove it says what was meant.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence

from incremind_daemon.errors import IncremindError

MARKER = "# added by `incremind setup codex`; `incremind setup --undo codex` removes it"
_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")

TomlValue = str | bool | int | Sequence[str] | Mapping[str, str]


def _table_path(header: str) -> list[str]:
    """Split a table header such as ``mcp_servers."incremind".env`` into its keys."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)', header)
    return [a or b or c for a, b, c in parts]


def _block_span(lines: list[str], name: str) -> tuple[int, int] | None:
    """Return the line range of the [mcp_servers.<name>] table and its sub-tables, if present."""
    start: int | None = None
    for number, line in enumerate(lines):
        match = _HEADER.match(line)
        if match is None:
            continue
        path = _table_path(match.group(1))
        ours = path[:2] == ["mcp_servers", name]
        if start is None and ours:
            start = number
        elif start is not None and not ours:
            return _with_marker(lines, start), _trim_blank(lines, start, number)
    if start is None:
        return None
    return _with_marker(lines, start), _trim_blank(lines, start, len(lines))


def _with_marker(lines: list[str], start: int) -> int:
    return start - 1 if start > 0 and lines[start - 1].strip() == MARKER else start


def _trim_blank(lines: list[str], start: int, end: int) -> int:
    """Leave the blank lines before the next table where they are."""
    while end - 1 > start and not lines[end - 1].strip():
        end -= 1
    return end


def render_value(value: TomlValue) -> str:
    """Render a string, bool, int, list of strings or string table as TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON string escapes are valid TOML basic strings
    if isinstance(value, Mapping):
        inner = ", ".join(f"{json.dumps(k, ensure_ascii=False)} = {render_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    return "[" + ", ".join(render_value(v) for v in value) + "]"


def render_table(name: str, values: Mapping[str, TomlValue]) -> str:
    """Render our table, with the marker comment that says who added it."""
    lines = [MARKER, f"[mcp_servers.{name}]"]
    lines += [f"{key} = {render_value(value)}" for key, value in values.items()]
    return "\n".join(lines) + "\n"


def _parse(text: str, what: str) -> dict[str, object]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise IncremindError(f"{what} is not valid TOML ({exc}); fix it, then run setup again") from exc


def _without(data: Mapping[str, object], name: str) -> dict[str, object]:
    servers = data.get("mcp_servers")
    out = dict(data)
    if isinstance(servers, dict):
        rest = {k: v for k, v in servers.items() if k != name}
        if rest:
            out["mcp_servers"] = rest
        else:
            out.pop("mcp_servers")
    return out


def set_table(text: str, name: str, values: Mapping[str, TomlValue], *, what: str) -> str:
    """Return the text with [mcp_servers.<name>] set to values, everything else unchanged."""
    before = _parse(text, what)
    lines = text.splitlines(keepends=True)
    block = render_table(name, values)
    span = _block_span(lines, name)
    if span is not None:
        start, end = span
        new = "".join(lines[:start]) + block + "".join(lines[end:])
    else:
        if _has_entry(before, name):
            raise IncremindError(
                f"{what} defines mcp_servers.{name} in a form setup does not edit (an inline table or dotted "
                "keys); remove that entry by hand, then run setup again"
            )
        base = text if not text or text.endswith("\n") else text + "\n"
        new = base + ("\n" if base.strip() else "") + block
    after = _parse(new, f"the edited {what}")
    servers = after.get("mcp_servers")
    if (
        not isinstance(servers, dict)
        or servers.get(name) != _plain(values)
        or _without(after, name) != _without(before, name)
    ):
        raise IncremindError(f"editing {what} would change more than mcp_servers.{name}; it was left as it was")
    return new


def remove_table(text: str, name: str, *, what: str) -> str | None:
    """Return the text without [mcp_servers.<name>], or None if it has no such table."""
    before = _parse(text, what)
    lines = text.splitlines(keepends=True)
    span = _block_span(lines, name)
    if span is None:
        if _has_entry(before, name):
            raise IncremindError(
                f"{what} defines mcp_servers.{name} as an inline table or dotted keys; remove it by hand"
            )
        return None
    start, end = span
    head, tail = lines[:start], lines[end:]
    if not tail and head and not head[-1].strip():
        head = head[:-1]  # the blank line setup put before the table
    new = "".join(head) + "".join(tail)
    if _without(_parse(new, f"the edited {what}"), name) != _without(before, name) or _has_entry(
        _parse(new, what), name
    ):
        raise IncremindError(f"removing mcp_servers.{name} from {what} would change more; it was left as it was")
    return new


def _has_entry(data: Mapping[str, object], name: str) -> bool:
    servers = data.get("mcp_servers")
    return isinstance(servers, dict) and name in servers


def _plain(values: Mapping[str, TomlValue]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in values.items():
        if isinstance(value, str | bool | int):
            out[key] = value
        elif isinstance(value, Mapping):
            out[key] = dict(value)
        else:
            out[key] = list(value)
    return out
