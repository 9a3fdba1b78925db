"""What the MCP tools return: pydantic models at the protocol edge, built from store records."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from incremind_daemon.store.drill import EvidenceDrill, LinkedInsight, RawWindow
from incremind_daemon.store.records import Hit, Insight, SourceRef, item_id


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class SourceOut(_Out):
    """Where an item came from."""

    id: str = Field(description="the raw source's id (src-N); read_memory on it returns its original text")
    title: str
    project: str
    kind: str = Field(description="file, session or note")
    path: str | None = Field(default=None, description="the kept original file of a file or note, if any")
    agent: str | None = Field(default=None, description="sessions: the coding agent")
    session_id: str | None = None
    date: str | None = Field(default=None, description="a session's start, else when the file or note came in")

    @classmethod
    def of(cls, ref: SourceRef) -> SourceOut:
        return cls(
            id=ref.id,
            title=ref.title,
            project=ref.project,
            kind=ref.kind,
            # a session's transcript is the agent's own log file: read_memory on the source id reads it, and
            # its long path cost a search a tenth of its reading budget again
            path=None if ref.kind == "session" else ref.path,
            agent=ref.agent,
            session_id=ref.session_id,
            date=ref.date,
        )


class InsightOut(_Out):
    """One insight as it is now."""

    id: str
    project: str
    category: str = Field(description="identity, preference, correction, decision, entity, event or method")
    statement: str
    condition: str = Field(description="when to recall it ('' if always)")
    relation: str = Field(description="to what was known before: new, supplement or different")
    status: str = Field(description="pending (awaits the person), confirmed, rejected, forgotten or superseded")
    confidence: float
    use_count: int
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, insight: Insight) -> InsightOut:
        return cls(
            id=item_id("insight", insight.id),
            project=insight.project,
            category=insight.category,
            statement=insight.statement,
            condition=insight.condition,
            relation=insight.relation,
            status=insight.status,
            confidence=round(insight.confidence, 3),
            use_count=insight.use_count,
            created_at=insight.created_at,
            updated_at=insight.updated_at,
        )


class MemoryHit(_Out):
    """One search result."""

    id: str = Field(description="pass it to read_memory for the full item and its original words")
    tier: str = Field(description="insight, summary, organized (a passage) or raw (a session message)")
    score: float
    text: str
    source: SourceOut
    start: int | None = Field(description="offset of the text in the source's raw text")
    end: int | None
    page: int | None = None
    status: str | None = Field(default=None, description="insights: pending, confirmed, ...")
    category: str | None = None
    condition: str | None = Field(default=None, description="insights: when to recall it")
    relation: str | None = Field(default=None, description="insights: new, supplement or different")

    @classmethod
    def of(cls, hit: Hit, insight: Insight | None) -> MemoryHit:
        return cls(
            id=hit.id,
            tier=hit.tier,
            score=round(hit.score, 6),
            text=hit.text,
            source=SourceOut.of(hit.source),
            start=hit.start,
            end=hit.end,
            page=hit.page,
            status=None if insight is None else insight.status,
            category=None if insight is None else insight.category,
            condition=None if insight is None else insight.condition,
            relation=None if insight is None else insight.relation,
        )


class SearchResult(_Out):
    query: str = Field(description="the query as searched (a long one is cut: see cut)")
    mode: Literal["keyword", "hybrid"] = Field(description="hybrid: by words and meaning; keyword: by words only")
    project: str | None = Field(
        default=None, description="the project searched, with the person's global insights; null: all projects"
    )
    results: list[MemoryHit]
    cut: str | None = Field(default=None, description="set when the query was too long: how it was cut")
    left_out: int = Field(
        default=0, description="results found but not returned: their text did not fit the budget (raise it)"
    )


class RawOut(_Out):
    """A window of a source's original text: text == raw_text[start:end]."""

    source_id: str
    start: int
    end: int
    total: int = Field(description="characters in the whole raw text")
    text: str
    span_start: int | None = Field(default=None, description="the cited words, as offsets in the raw text")
    span_end: int | None = None
    read_more: str | None = Field(default=None, description="how to read the text that follows, if any")

    @classmethod
    def of(cls, window: RawWindow) -> RawOut:
        more = None
        if window.end < window.total:
            more = f"read_memory(id='{window.source_id}', offset={window.end})"
        return cls(
            source_id=window.source_id,
            start=window.start,
            end=window.end,
            total=window.total,
            text=window.text,
            span_start=window.span_start,
            span_end=window.span_end,
            read_more=more,
        )


class LinkOut(_Out):
    id: str
    relation: str = Field(description="refutes, supplements or supersedes")
    direction: Literal["to", "from"] = Field(description="to: this insight -> the linked one; from: the reverse")
    statement: str
    status: str

    @classmethod
    def of(cls, link: LinkedInsight) -> LinkOut:
        return cls(
            id=link.id,
            relation=link.relation,
            direction="to" if link.outgoing else "from",
            statement=link.statement,
            status=link.status,
        )


class EvidenceOut(_Out):
    quote: str = Field(description="the verbatim words the insight rests on")
    source: SourceOut
    passage_id: str | None
    start: int
    end: int
    added_at: str
    raw: RawOut

    @classmethod
    def of(cls, found: EvidenceDrill) -> EvidenceOut:
        return cls(
            quote=found.quote,
            source=SourceOut.of(found.source),
            passage_id=found.passage_id,
            start=found.start,
            end=found.end,
            added_at=found.added_at,
            raw=RawOut.of(found.raw),
        )


class MemoryItem(_Out):
    """One item and its drill-down to the original words."""

    id: str
    kind: Literal["source", "passage", "summary", "message", "insight"]
    tier: str
    text: str = Field(description="the item itself (an insight's statement, a passage's text, ...)")
    source: SourceOut | None = None
    start: int | None = None
    end: int | None = None
    page: int | None = None
    role: str | None = Field(default=None, description="messages: user or assistant")
    at: str | None = None
    insight: InsightOut | None = None
    links: list[LinkOut] = Field(default_factory=list, description="insights: linked insights (e.g. one it refutes)")
    evidence: list[EvidenceOut] = Field(default_factory=list, description="insights: the words they rest on")
    raw: RawOut | None = Field(default=None, description="the original text around the item")
    summary_id: str | None = None
    passages: int | None = None


class KnownOut(_Out):
    id: str
    statement: str
    status: str


class SaveOutcome(_Out):
    """What became of a save."""

    id: str = Field(description="the insight it created or strengthened, else the stored note")
    note_id: str = Field(description="the stored note (src-N)")
    relation: Literal["new", "repeat", "supplement", "supersedes", "different", "stored"]
    status: str | None = Field(description="the insight's status now: pending until the person confirms")
    known: KnownOut | None = Field(default=None, description="the known insight it repeats or relates to")
    message: str


class PendingList(_Out):
    project: str | None
    total: int = Field(description="pending insights in all (the list may be shorter)")
    insights: list[InsightOut]
