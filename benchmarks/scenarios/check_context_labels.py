"""Check a context label file (`<half>.context.json`, CONTEXT_FORMAT.md) against its half.

Run from the repository root (standard library only):

    python benchmarks/scenarios/check_context_labels.py tune
    python benchmarks/scenarios/check_context_labels.py tune tune2 heldout
    python benchmarks/scenarios/check_context_labels.py path/to/half.json

What it checks, per file:

- structure: `half`, `projects` (exactly the half's repo projects, not the
  notes-only ones), `sessions` (exactly the half's sessions); 4-8 questions
  and 3-8 must_not items per project; token groups are non-empty lists of
  non-empty strings; conjunctions are lists of groups; `done`, `decisions`
  and `not_next` are lists of conjunctions; `next` is a conjunction or null;
  ids are unique; `why` is one of the four kinds;
- every `from` id is a statement or source of the half;
- every answer group and every must_not group has an alternative occurring
  (case-insensitive substring) in the material of its `from` items: a
  statement's quote and statement, a session's turns (text, tool input and
  output), a note's text;
- every session label group has an alternative in that session's material;
- a must_not alternative does not occur in what legitimately belongs in the
  project's context: the current (not superseded) global statements, the
  project's current statements, the labelled state (goal, done, decisions,
  next) of the project's last two sessions, and the project's answer tokens;
- warnings (printed, not failing): a must_not item that matches the whole
  text (turns and tools) of the project's last session, an alternative that occurs nowhere in its
  `from` material, a very short ASCII token, a question drawn from a
  superseded or other-project statement or an other-project session, a `why`
  that does not fit its `from` items.

Exits 1 when any error is found, else 0.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WHY = ("other-project", "superseded", "personal", "unconfirmed")
SESSION_FIELDS = ("goal", "done", "decisions", "next", "not_next")
LAST_SESSIONS = 2
SHORT = 3  # ASCII tokens shorter than this match too easily


class Report:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def error(self, where: str, message: str) -> None:
        self.errors.append(f"{where}: {message}")

    def warn(self, where: str, message: str) -> None:
        self.warnings.append(f"{where}: {message}")


def is_group(value: object) -> bool:
    return (isinstance(value, list) and bool(value)
            and all(isinstance(t, str) and t.strip() for t in value))


def is_conjunction(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(is_group(g) for g in value)


def session_material(source: dict) -> str:
    parts = []
    for turn in source.get("turns", []):
        parts.append(turn.get("text", ""))
        for tool in turn.get("tools") or []:
            tool_input = tool.get("input") or {}
            parts.append(json.dumps(tool_input, ensure_ascii=False))
            for value in tool_input.values():  # raw strings too: json.dumps escapes quotes and newlines
                if isinstance(value, str):
                    parts.append(value)
                elif isinstance(value, list):
                    parts += [v for v in value if isinstance(v, str)]
            parts.append(tool.get("output", ""))
    return "\n".join(parts)


class Half:
    def __init__(self, data: dict) -> None:
        self.data = data
        self.name = data["half"]
        self.repos = [p for p, v in data["projects"].items() if v.get("kind") == "repo"]
        self.sources = {s["id"]: s for s in data["sources"]}
        self.statements = {s["id"]: s for s in data["statements"]}
        self.sessions = [s["id"] for s in data["sources"] if s["kind"] == "session"]
        superseded = {s["target"] for s in data["statements"] if s["kind"] == "supersedes" and s["target"]}
        changed = True
        while changed:  # a repeat of a replaced statement goes with it
            changed = False
            for s in data["statements"]:
                if s["kind"] == "repeat" and s["target"] in superseded and s["id"] not in superseded:
                    superseded.add(s["id"])
                    changed = True
        self.superseded = superseded

    def material(self, item_id: str) -> str:
        if item_id in self.statements:
            st = self.statements[item_id]
            return st["quote"] + "\n" + st["statement"]
        source = self.sources[item_id]
        return session_material(source) if source["kind"] == "session" else source.get("text", "")

    def project_of(self, item_id: str) -> str:
        if item_id in self.statements:
            return self.sources[self.statements[item_id]["source"]]["project"]
        return self.sources[item_id]["project"]

    def is_global(self, item_id: str) -> bool:
        return item_id in self.statements and self.statements[item_id]["scope"] == "global"

    def legit_statements(self, project: str) -> list[str]:
        return [sid for sid, st in self.statements.items()
                if sid not in self.superseded
                and (st["scope"] == "global" or self.project_of(sid) == project)]

    def last_sessions(self, project: str) -> list[str]:
        return [sid for sid in self.sessions if self.sources[sid]["project"] == project][-LAST_SESSIONS:]


def occurs(token: str, text: str) -> bool:
    return token.casefold() in text.casefold()


def tokens_of(conjunction: list[list[str]]) -> list[str]:
    return [t for group in conjunction for t in group]


def check_group_in(report: Report, where: str, group: list[str], material: str, *, strict: bool = True) -> None:
    present = [t for t in group if occurs(t, material)]
    if not present:
        (report.error if strict else report.warn)(where, f"no alternative of {group} occurs in its material")
    for t in group:
        if t not in present and present:
            report.warn(where, f"alternative {t!r} does not occur in its material")
        if t.isascii() and len(t.strip()) < SHORT:
            report.warn(where, f"token {t!r} is very short")


def check_ids(report: Report, half: Half, where: str, ids: object) -> list[str]:
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        report.error(where, "`from` must be a non-empty list of ids")
        return []
    good = []
    for i in ids:
        if i in half.statements or i in half.sources:
            good.append(i)
        else:
            report.error(where, f"unknown id {i!r} in `from`")
    return good


def check_projects(report: Report, half: Half, labels: dict, session_labels: dict) -> dict[str, tuple[int, int]]:
    counts: dict[str, tuple[int, int]] = {}
    projects = labels.get("projects")
    if not isinstance(projects, dict):
        report.error("projects", "must be an object")
        return counts
    for name in projects:
        if name not in half.repos:
            report.error(f"projects.{name}", "not a repo project of the half")
    for name in half.repos:
        if name not in projects:
            report.error("projects", f"repo project {name!r} has no entry")
    for name, entry in projects.items():
        if name not in half.repos or not isinstance(entry, dict):
            continue
        questions, must_not = entry.get("questions", []), entry.get("must_not", [])
        if not isinstance(questions, list) or not 4 <= len(questions) <= 8:
            report.error(f"{name}.questions", f"want 4-8, got {len(questions) if isinstance(questions, list) else '?'}")
        if not isinstance(must_not, list) or not 3 <= len(must_not) <= 8:
            report.error(f"{name}.must_not", f"want 3-8, got {len(must_not) if isinstance(must_not, list) else '?'}")
        seen: set[str] = set()
        answer_tokens: list[str] = []
        for q in questions if isinstance(questions, list) else []:
            where = f"{name}.{q.get('id', '?')}"
            if q.get("id") in seen or not isinstance(q.get("id"), str):
                report.error(where, "missing or duplicate id")
            seen.add(q.get("id"))
            if not isinstance(q.get("question"), str) or not q["question"].strip():
                report.error(where, "missing question text")
            ids = check_ids(report, half, where, q.get("from"))
            if not is_conjunction(q.get("answer")):
                report.error(where, "`answer` must be a non-empty list of non-empty token groups")
                continue
            material = "\n".join(half.material(i) for i in ids)
            for group in q["answer"]:
                check_group_in(report, where, group, material)
            answer_tokens += tokens_of(q["answer"])
            for i in ids:
                if i in half.statements:
                    if i in half.superseded:
                        report.warn(where, f"{i} is superseded")
                    if not half.is_global(i) and half.project_of(i) != name:
                        report.warn(where, f"{i} belongs to project {half.project_of(i)!r}")
                elif half.sources[i]["project"] != name:
                    report.warn(where, f"{i} is a source of project {half.sources[i]['project']!r}")
        legit_ids = half.legit_statements(name)
        legit = [(i, half.material(i)) for i in legit_ids]
        for sid in half.last_sessions(name):
            state = session_labels.get(sid) or {}
            words = []
            for field in ("goal", "next"):
                if is_conjunction(state.get(field)):
                    words += tokens_of(state[field])
            for field in ("done", "decisions"):
                for c in state.get(field) or []:
                    if is_conjunction(c):
                        words += tokens_of(c)
            legit.append((f"{sid} state", "\n".join(words)))
        legit.append(("answers", "\n".join(answer_tokens)))
        for x in must_not if isinstance(must_not, list) else []:
            where = f"{name}.{x.get('id', '?')}"
            if x.get("id") in seen or not isinstance(x.get("id"), str):
                report.error(where, "missing or duplicate id")
            seen.add(x.get("id"))
            why = x.get("why")
            if why not in WHY:
                report.error(where, f"`why` must be one of {WHY}, got {why!r}")
            ids = check_ids(report, half, where, x.get("from"))
            if not is_conjunction(x.get("tokens")):
                report.error(where, "`tokens` must be a non-empty list of non-empty token groups")
                continue
            material = "\n".join(half.material(i) for i in ids)
            for group in x["tokens"]:
                check_group_in(report, where, group, material)
            own = set(ids)
            for group in x["tokens"]:
                for t in group:
                    for lid, text in legit:
                        if lid in own:
                            continue
                        if occurs(t, text):
                            report.error(where, f"must_not token {t!r} also occurs in legitimate {lid}")
            for sid in half.last_sessions(name)[-1:]:
                if sid in own:
                    continue
                text = half.material(sid)
                for group in x["tokens"]:
                    hits = [t for t in group if occurs(t, text)]
                    if hits and all(any(occurs(t, text) for t in g) for g in x["tokens"]):
                        report.warn(where, f"the whole must_not item matches the text of last session {sid} ({hits})")
                        break
            for i in ids:
                if why == "other-project" and (half.is_global(i) or half.project_of(i) in (name, "daily")):
                    report.warn(where, f"other-project item {i} is not another repo project's")
                if why == "superseded" and i in half.statements and i not in half.superseded:
                    report.warn(where, f"superseded item {i} is not replaced by a later statement")
                if why == "personal" and half.project_of(i) != "daily":
                    report.warn(where, f"personal item {i} is not from a daily note")
                if why == "personal" and half.is_global(i):
                    report.warn(where, f"personal item {i} is a global statement")
                if why == "unconfirmed" and i in half.statements:
                    report.warn(where, f"unconfirmed item {i} is a labelled statement")
        counts[name] = (len(questions), len(must_not))
    return counts


def check_sessions(report: Report, half: Half, sessions: object) -> int:
    if not isinstance(sessions, dict):
        report.error("sessions", "must be an object")
        return 0
    for sid in sessions:
        if sid not in half.sessions:
            report.error(f"sessions.{sid}", "not a session of the half")
    for sid in half.sessions:
        if sid not in sessions:
            report.error("sessions", f"session {sid} has no entry")
    for sid, state in sessions.items():
        if sid not in half.sessions:
            continue
        where = f"sessions.{sid}"
        if not isinstance(state, dict):
            report.error(where, "must be an object")
            continue
        for key in state:
            if key not in SESSION_FIELDS:
                report.error(where, f"unknown field {key!r}")
        material = half.material(sid)
        first_ask = next((t["text"] for t in half.sources[sid]["turns"] if t["role"] == "user"), "")
        if not is_conjunction(state.get("goal")):
            report.error(f"{where}.goal", "must be a non-empty conjunction")
        else:
            for group in state["goal"]:
                check_group_in(report, f"{where}.goal", group, material)
                if not any(occurs(t, first_ask) for t in group):
                    report.warn(f"{where}.goal", f"no alternative of {group} is in the first ask")
        for field, limit in (("done", 3), ("decisions", None), ("not_next", None)):
            value = state.get(field)
            if not isinstance(value, list):
                report.error(f"{where}.{field}", "must be a list of conjunctions")
                continue
            if limit is not None and len(value) > limit:
                report.error(f"{where}.{field}", f"at most {limit}, got {len(value)}")
            for n, c in enumerate(value):
                if not is_conjunction(c):
                    report.error(f"{where}.{field}[{n}]", "must be a conjunction (a list of token groups)")
                    continue
                for group in c:
                    check_group_in(report, f"{where}.{field}[{n}]", group, material)
        if "next" not in state:
            report.error(f"{where}.next", "missing (use null when the session ends with none)")
        elif state["next"] is not None:
            if not is_conjunction(state["next"]):
                report.error(f"{where}.next", "must be a conjunction or null")
            else:
                for group in state["next"]:
                    check_group_in(report, f"{where}.next", group, material)
                nxt = "\n".join(tokens_of(state["next"]))
                for c in state.get("not_next") or []:
                    if is_conjunction(c) and all(any(occurs(t, nxt) for t in g) for g in c):
                        report.error(f"{where}.not_next", f"{c} matches the labelled next step")
    return sum(1 for sid in sessions if sid in half.sessions)


def resolve(arg: str) -> tuple[Path, Path]:
    path = Path(arg)
    if not path.suffix:
        path = HERE / f"{arg}.json"
    return path, path.with_name(f"{path.stem}.context.json")


def check(arg: str) -> bool:
    half_path, label_path = resolve(arg)
    print(f"== {label_path.name} against {half_path.name}")
    if not label_path.exists():
        print(f"   no label file {label_path}")
        return False
    half = Half(json.loads(half_path.read_text(encoding="utf-8")))
    labels = json.loads(label_path.read_text(encoding="utf-8"))
    report = Report()
    if labels.get("half") != half.name:
        report.error("half", f"is {labels.get('half')!r}, the half is {half.name!r}")
    for key in labels:
        if key not in ("half", "projects", "sessions"):
            report.error("top", f"unknown key {key!r}")
    session_labels = labels.get("sessions") if isinstance(labels.get("sessions"), dict) else {}
    counts = check_projects(report, half, labels, session_labels)
    n_sessions = check_sessions(report, half, labels.get("sessions"))
    for name, (nq, nx) in counts.items():
        print(f"   {name}: {nq} questions, {nx} must_not")
    print(f"   projects {len(counts)}, questions {sum(q for q, _ in counts.values())}, "
          f"must_not {sum(x for _, x in counts.values())}, sessions {n_sessions}/{len(half.sessions)}")
    for w in report.warnings:
        print(f"   warning: {w}")
    for e in report.errors:
        print(f"   ERROR: {e}")
    print(f"   {len(report.errors)} errors, {len(report.warnings)} warnings")
    return not report.errors


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    ok = [check(arg) for arg in argv]
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
