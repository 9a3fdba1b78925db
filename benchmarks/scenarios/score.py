"""Judge candidates against the labelled statements, and count the figures.

Pure functions over the scenario's statements and the insights as
``incremind pending --json`` / ``incremind insights --json`` print them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from benchmarks.scenarios.scenario import KINDS, LANGS, Statement

MATCH_SHARE = 0.5  # a quote and a candidate's evidence overlap by at least this share of the shorter one
DID = (*KINDS, "missed")
ALL = "all"
_TOKEN = re.compile(r"[0-9a-z]+(?:[.\-_'][0-9a-z]+)*|[\u3400-\u9fff]")
_SPACE = re.compile(r"\s+")
Spans = list[tuple[int, int]]  # where a labelled quote sits in its source's stored text


@dataclass(frozen=True, slots=True)
class Evidence:
    source: str  # src-N
    quote: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Proposal:
    """One insight as the CLI's JSON shows it."""

    id: str
    status: str
    kind: str
    category: str
    scope: str | None  # None while the product does not say
    statement: str
    relates_to: str | None
    evidence: tuple[Evidence, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Proposal:
        related = data.get("relates_to")
        return cls(
            id=str(data["id"]),
            status=str(data["status"]),
            kind=str(data["kind"]),
            category=str(data["category"]),
            scope=None if data.get("scope") is None else str(data["scope"]),
            statement=str(data["statement"]),
            relates_to=str(related["id"]) if isinstance(related, dict) else None,
            evidence=tuple(
                Evidence(str(e["source"]["id"]), str(e["quote"]), int(e["start"]), int(e["end"]))
                for e in data.get("evidence", [])
            ),
        )


@dataclass(frozen=True, slots=True)
class Judged:
    """A pending candidate as the simulated person judged it."""

    proposal: Proposal
    source: str  # the scenario source it came from
    lang: str
    statement: Statement | None
    role: str  # match | duplicate (a second one for the same statement) | redundant (repeats a known one) | junk

    @property
    def confirmed(self) -> bool:
        return self.role == "match"


@dataclass(frozen=True, slots=True)
class TakenRepeat:
    """A piece of a source that a known insight took as evidence of a repeat."""

    insight: str
    quote: str
    lang: str  # the source's
    said: bool  # a labelled statement of the source says it


@dataclass(frozen=True, slots=True)
class Seen:
    """What the product did with one labelled statement."""

    statement: Statement
    did: str  # one of DID
    insight: str | None  # its candidate, or the known insight that took it as evidence
    relates_to: str | None
    target_insight: str | None  # the insight holding the statement's target, when it was examined

    @property
    def found(self) -> bool:
        """A candidate came of it, or, for a planted repeat, its target's insight took it as evidence."""
        if self.did == "repeat":
            return self.statement.kind == "repeat" and self.insight is not None and self.insight == self.target_insight
        return self.did != "missed"

    @property
    def right(self) -> bool:
        kind = self.statement.kind
        if kind == "new":
            return self.did == "new"
        if kind == "repeat":
            return self.did == "repeat" and self.insight is not None and self.insight == self.target_insight
        return self.did == kind and self.relates_to is not None and self.relates_to == self.target_insight


def quote_spans(quote: str, text: str) -> Spans:
    """Return every place the quote occurs in the stored text of its source."""
    spans, at = [], text.find(quote)
    while at >= 0 and quote:
        spans.append((at, at + len(quote)))
        at = text.find(quote, at + 1)
    return spans


def overlap(quote: str, spans: Spans, evidence: Evidence) -> float:
    """Share of the shorter of a labelled quote and a piece of evidence that the other covers.

    Character offsets decide when the quote was found in the stored text;
    otherwise (the text was redacted or cleaned) the longest common run of the
    two quotes, spaces folded, does.
    """
    if spans and evidence.end > evidence.start:
        shorter = [min(end - start, evidence.end - evidence.start) for start, end in spans]
        common = [max(0, min(end, evidence.end) - max(start, evidence.start)) for start, end in spans]
        return max(c / s for c, s in zip(common, shorter, strict=True))
    a, b = _SPACE.sub(" ", quote).strip(), _SPACE.sub(" ", evidence.quote).strip()
    if not a or not b:
        return 0.0
    run = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size
    return run / min(len(a), len(b))


def best_statement(
    proposal: Proposal, source_id: str, statements: Sequence[Statement], spans: Mapping[str, Spans]
) -> tuple[Statement | None, float]:
    """Return the labelled statement a candidate's evidence from this source overlaps most, and by how much."""
    best: tuple[Statement | None, float] = (None, 0.0)
    for evidence in proposal.evidence:
        if evidence.source != source_id:
            continue
        for statement in statements:
            share = overlap(statement.quote, spans[statement.id], evidence)
            if share >= MATCH_SHARE and share > best[1]:
                best = (statement, share)
    return best


def tokens(text: str) -> list[str]:
    """Words of Latin text and single CJK characters, lowercased."""
    return _TOKEN.findall(text.lower())


# Openings a person deletes before accepting a statement: interjections, fillers, lead-ins and asks.
# The benchmark's own list, written for it, not the product's. "No", "stop" and "wait" are interjections
# only with a stop after them: "No, the port is 8443" opens on one, "No deploys on Fridays" is the rule
# itself (labelled statements open so); "对" is one alone, not as the start of "对比".
_FILLER_OPENING = re.compile(
    r"(?i)^(?:(?:no|nope|stop|wait)\s*[,.:;!—–-]"
    r"|(?:ok|okay|yeah|yes|yep|so|and|but|also|btw|oh|hmm+|well|actually|please|pls|hey"
    r"|i think|i guess|fyi|reminder|note|again|anyway|one more thing|as i said|i told you|remember|decision"
    r"|about|regarding|re)\b)[\s,.:;!—–-]*"
    r"|^(?:嗯|好的?|对了|对(?=[\s，,。.!！:：])|不对|不是的|还有|另外|顺便|然后|那就?|欸|喔|哦|啊|其实|我觉得|我想|说过了"
    r"|我说过|补充一下|提醒一下|记住|注意|先说|先講|先讲|帮我|麻烦)"
)


def lacking(proposal: Proposal, statement: Statement) -> list[str]:
    """Return the statement's must tokens a candidate's wording leaves out."""
    return [token for token in statement.must if token.lower() not in proposal.statement.lower()]


def wording_faults(proposal: Proposal, statement: Statement, *, same_opening: bool = False) -> list[str]:
    """Say why a person would edit a candidate before accepting it; [] when they would not.

    A candidate must keep every ``must`` token, open with no filler or lead-in, and not run
    far longer than the labelled wording. With ``same_opening``, it must also open with one of
    the first words the labeller chose: a stricter figure that counts rewordings (a project's
    name put in front, "I" made "he") as edits.
    """
    faults = [f"lacks {token!r}" for token in lacking(proposal, statement)]
    said, wanted = tokens(proposal.statement), tokens(statement.statement)
    if _FILLER_OPENING.match(proposal.statement.strip()):
        faults.append(f"starts with a lead-in ({' '.join(said[:3])} …)")
    elif same_opening and said and wanted and said[0] not in wanted[:4]:
        faults.append(f"opens otherwise than labelled ({' '.join(said[:3])} …)")
    if len(proposal.statement) > 1.6 * len(statement.statement) + 20:
        faults.append(f"too long ({len(proposal.statement)} chars for {len(statement.statement)})")
    return faults


Ratio = tuple[int, int]
FIGURES = (
    "statements",
    "recall",
    "candidates",
    "precision as-is",
    "  opening as labelled",
    "junk",
    "duplicate or redundant",
    "category right",
    "scope right",
    "label right",
    *(f"  {kind} right" for kind in KINDS),
    'false "different"',
    "superseded",
    "repeats of nothing said",
)


@dataclass(frozen=True, slots=True)
class Figures:
    """Each figure as (count, out of), per language and for all languages."""

    cells: dict[str, dict[str, Ratio]]
    confusion: Counter[tuple[str, str]]  # (labelled kind, what the product did)


def count_figures(
    seen: Iterable[Seen],
    judged: Iterable[Judged],
    statuses: Mapping[str, str],
    taken: Iterable[TakenRepeat] = (),
) -> Figures:
    """Count every figure from what the product did and how its candidates were judged.

    ``taken``: each piece of evidence a known insight took as a repeat, and whether a labelled
    statement says it. A repeat makes no candidate, so a sentence wrongly taken as one is no junk
    candidate; it is counted apart, as a repeat of nothing said.
    """
    seen, judged, taken = list(seen), list(judged), list(taken)
    cells: dict[str, dict[str, Ratio]] = {}
    for lang in (*LANGS, ALL):
        s = [x for x in seen if lang in (ALL, x.statement.lang)]
        j = [x for x in judged if lang in (ALL, x.lang)]
        matched = [x for x in j if x.statement is not None and x.role in ("match", "redundant")]
        asis = [x for x in j if x.confirmed and x.statement is not None and not wording_faults(x.proposal, x.statement)]
        same = [x for x in asis if not wording_faults(x.proposal, x.statement, same_opening=True)]  # type: ignore[arg-type]
        supersedes = [x for x in s if x.statement.kind == "supersedes"]
        row: dict[str, Ratio] = {
            "statements": (len(s), 0),
            "recall": (sum(x.found for x in s), len(s)),
            "candidates": (len(j), 0),
            "precision as-is": (len(asis), len(j)),
            "  opening as labelled": (len(same), len(j)),
            "junk": (sum(x.role == "junk" for x in j), len(j)),
            "duplicate or redundant": (sum(x.role in ("duplicate", "redundant") for x in j), len(j)),
            "category right": (sum(_same_category(x) for x in matched), len(matched)),
            "scope right": (sum(x.proposal.scope == _scope(x) for x in matched), len(matched)),
            "label right": (sum(x.right for x in s), len(s)),
            'false "different"': (sum(x.proposal.kind == "different" and _label(x) != "different" for x in j), len(j)),
            "superseded": (
                sum(statuses.get(x.target_insight or "") == "superseded" for x in supersedes),
                len(supersedes),
            ),
            "repeats of nothing said": (
                sum(not x.said for x in taken if lang in (ALL, x.lang)),
                sum(1 for x in taken if lang in (ALL, x.lang)),
            ),
        }
        for kind in KINDS:
            of_kind = [x for x in s if x.statement.kind == kind]
            row[f"  {kind} right"] = (sum(x.right for x in of_kind), len(of_kind))
        cells[lang] = row
    return Figures(cells, Counter((x.statement.kind, x.did) for x in seen))


def _same_category(judged: Judged) -> bool:
    return judged.statement is not None and judged.proposal.category == judged.statement.category


def _label(judged: Judged) -> str | None:
    return None if judged.statement is None else judged.statement.kind


def _scope(judged: Judged) -> str | None:
    return None if judged.statement is None else judged.statement.scope


def merge(parts: Iterable[Figures]) -> Figures:
    """Add up the figures of several halves."""
    cells: dict[str, dict[str, Ratio]] = {}
    confusion: Counter[tuple[str, str]] = Counter()
    for part in parts:
        confusion.update(part.confusion)
        for lang, row in part.cells.items():
            into = cells.setdefault(lang, {})
            for name, (n, d) in row.items():
                have = into.get(name, (0, 0))
                into[name] = (have[0] + n, have[1] + d)
    return Figures(cells, confusion)


def render_figures(title: str, figures: Figures) -> str:
    """Render the figures as a table: one row per figure, one column per language."""
    langs = [lang for lang in (*LANGS, ALL) if figures.cells.get(lang, {}).get("statements", (0, 0))[0] or lang == ALL]
    lines = [title, f"  {'':<24}" + "".join(f"{lang:>18}" for lang in langs)]
    for name in FIGURES:
        lines.append(f"  {name:<24}" + "".join(f"{_cell(figures.cells[lang][name]):>18}" for lang in langs))
    return "\n".join(lines)


def _cell(ratio: Ratio) -> str:
    n, d = ratio
    if d == 0:
        return str(n) if n else "-"
    return f"{n / d:6.1%} {n:>4}/{d:<4}"


def render_confusion(figures: Figures) -> str:
    """Render labelled kind × what the product did (a relation the product newly names gets its own column)."""
    columns = [*DID, *sorted({did for _, did in figures.confusion} - set(DID))]
    lines = [f"  {'label / product':<18}" + "".join(f"{did:>12}" for did in columns)]
    for kind in KINDS:
        lines.append(f"  {kind:<18}" + "".join(f"{figures.confusion[(kind, did)]:>12}" for did in columns))
    return "\n".join(lines)


def figures_json(figures: Figures) -> dict[str, object]:
    """Return the figures as JSON-ready data."""
    return {
        "by_language": {
            lang: {name.strip(): {"count": n, "of": d, "share": (n / d if d else None)} for name, (n, d) in row.items()}
            for lang, row in figures.cells.items()
        },
        "confusion": {
            kind: {did: n for (label, did), n in figures.confusion.items() if label == kind} for kind in KINDS
        },
    }
