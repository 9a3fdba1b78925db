"""Load a scenario half (FORMAT.md) into frozen values, and say what is wrong with it."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

LANGS = ("en", "zh", "mixed")
KINDS = ("repeat", "supplement", "supersedes", "different", "new")
AGENTS = ("claude", "codex", "gemini")


class ScenarioError(Exception):
    """A half that cannot be read at all (missing, or not JSON yet)."""


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    input: dict[str, object]
    output: str


@dataclass(frozen=True, slots=True)
class Turn:
    role: str  # user | assistant
    text: str
    tools: tuple[Tool, ...] = ()


@dataclass(frozen=True, slots=True)
class Source:
    id: str
    kind: str  # session | note
    project: str
    lang: str
    at: datetime
    agent: str | None = None
    turns: tuple[Turn, ...] = ()
    filename: str | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class Statement:
    id: str
    source: str
    quote: str
    statement: str
    must: tuple[str, ...]
    category: str
    scope: str
    kind: str
    target: str | None
    lang: str


@dataclass(frozen=True, slots=True)
class Half:
    name: str
    sources: tuple[Source, ...]
    statements: tuple[Statement, ...]
    problems: tuple[str, ...]  # statements and sources left out, and why


def load_half(path: Path) -> Half:
    """Read a half; sources and statements that break the format are left out and named in problems."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ScenarioError(f"{path} does not exist (yet)") from exc
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{path}:{exc.lineno}: not valid JSON (yet): {exc.msg}") from exc
    problems: list[str] = []
    sources: list[Source] = []
    for raw in data.get("sources", []):
        try:
            sources.append(_source(raw))
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(f"source {raw.get('id', '?') if isinstance(raw, dict) else '?'} left out: {exc!r}")
    sources.sort(key=lambda s: s.at)  # the format promises time order; a half-written file may not keep it
    by_id = {s.id: s for s in sources}
    parsed: list[Statement] = []
    for raw in data.get("statements", []):
        try:
            parsed.append(_statement(raw))
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(f"statement {raw.get('id', '?') if isinstance(raw, dict) else '?'} left out: {exc!r}")
    statements: list[Statement] = []
    named = {s.id: s for s in parsed}
    for statement in parsed:
        problem = _check(statement, by_id, named)
        if problem:
            problems.append(f"statement {statement.id} left out: {problem}")
        else:
            statements.append(statement)
    return Half(str(data.get("half") or path.stem), tuple(sources), tuple(statements), tuple(problems))


def _source(raw: dict[str, Any]) -> Source:
    kind = str(raw["kind"])
    at = datetime.fromisoformat(str(raw["at"]).replace("Z", "+00:00"))
    source = Source(str(raw["id"]), kind, str(raw["project"]), str(raw["lang"]), at)
    if kind == "note":
        return replace(source, filename=str(raw["filename"]), text=str(raw["text"]))
    if kind != "session" or raw.get("agent") not in AGENTS:
        raise ValueError(f"kind {kind!r} / agent {raw.get('agent')!r} is not a session of {', '.join(AGENTS)}")
    return replace(source, agent=str(raw["agent"]), turns=tuple(_turn(t) for t in raw["turns"]))


def _turn(raw: dict[str, Any]) -> Turn:
    role = str(raw["role"])
    if role not in ("user", "assistant"):
        raise ValueError(f"turn role {role!r}")
    tools = tuple(
        Tool(str(t["name"]), dict(t.get("input") or {}), str(t.get("output") or "")) for t in raw.get("tools") or []
    )
    return Turn(role, str(raw["text"]), tools)


def _statement(raw: dict[str, Any]) -> Statement:
    must = raw["must"]
    if not isinstance(must, list):
        raise ValueError("must is not a list")
    target = raw.get("target")
    return Statement(
        id=str(raw["id"]),
        source=str(raw["source"]),
        quote=str(raw["quote"]),
        statement=str(raw["statement"]),
        must=tuple(str(m) for m in must),
        category=str(raw["category"]),
        scope=str(raw["scope"]),
        kind=str(raw["kind"]),
        target=None if target is None else str(target),
        lang=str(raw["lang"]),
    )


def _check(statement: Statement, sources: dict[str, Source], statements: dict[str, Statement]) -> str | None:
    source = sources.get(statement.source)
    if source is None:
        return f"its source {statement.source} is missing"
    texts = [source.text] if source.kind == "note" else [t.text for t in source.turns if t.role == "user"]
    if sum(text.count(statement.quote) for text in texts) != 1:
        return "its quote does not occur exactly once in the user turns or note text"
    if statement.kind not in KINDS:
        return f"kind {statement.kind!r}"
    if statement.lang not in LANGS:
        return f"lang {statement.lang!r}"
    if (statement.kind == "new") != (statement.target is None):
        return "a 'new' statement has no target, and every other kind has one"
    if statement.target is None:
        return None
    target = statements.get(statement.target)
    target_source = sources.get(target.source) if target else None
    if target is None or target_source is None or target_source.at > source.at or target.id == statement.id:
        return f"target {statement.target} is not a statement of an earlier source"
    return None
