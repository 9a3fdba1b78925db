"""Row dataclasses that cross module boundaries."""

from __future__ import annotations

from dataclasses import dataclass, field

TIERS = ("raw", "organized", "summary", "insight")
# the kinds of item an id can name; a message is a raw item of a session
ID_PREFIX = {"raw": "src", "message": "msg", "organized": "pas", "summary": "sum", "insight": "ins"}
KIND_BY_PREFIX = {prefix: kind for kind, prefix in ID_PREFIX.items()}
TIER_OF_KIND = {"raw": "raw", "message": "raw", "organized": "organized", "summary": "summary", "insight": "insight"}
# what a search with no tier leaves out, and so what gets no vectors: a session's messages are read in
# the passages that hold them, the exchange with the turns around it; themselves only when tier raw is asked
UNLESS_ASKED = frozenset({"message"})


def item_id(kind: str, rowid: int) -> str:
    """Return the public id of a row, such as ``pas-12``."""
    return f"{ID_PREFIX[kind]}-{rowid}"


MODES = ("keyword", "vector", "hybrid")  # how a search ranks: by words, by meaning, or both

MAX_ROWID = 2**63 - 1  # SQLite's largest integer: no row number is larger


def parse_row_number(text: str) -> int | None:
    """Return the row number ASCII digits spell, or None for anything else or past MAX_ROWID.

    ``int()`` alone would take other scripts' digits (``١`` as 1) and, from
    SQLite, an OverflowError for a number no row can have.
    """
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(MAX_ROWID)):
        return None
    number = int(text)
    return number if number <= MAX_ROWID else None


def row_number(public_id: str) -> int:
    """Return the row number of a public id such as ``src-7``; ValueError for any other text."""
    number = parse_row_number(public_id.rpartition("-")[2])
    if number is None:
        raise ValueError(f"{public_id[:40]!r} is not a public id such as src-7")
    return number


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where a hit came from."""

    id: str
    title: str
    path: str | None  # the kept original, absolute
    project: str
    kind: str
    agent: str | None = None  # sessions: which agent and which of its sessions
    session_id: str | None = None
    date: str | None = None  # a session's start, else the day a file names, else when it was taken in (ISO 8601)


@dataclass(frozen=True, slots=True)
class NewSource:
    """A source to store, with its extracted text."""

    kind: str
    project: str
    title: str
    raw_text: str
    sha256: str | None = None
    raw_path: str | None = None
    original_name: str | None = None
    media_type: str | None = None
    size_bytes: int = 0
    pages: tuple[tuple[int, int], ...] = ()
    dated: str | None = None  # the day the material is from, when its name or first line says (ISO 8601)


@dataclass(frozen=True, slots=True)
class InboxClaim:
    """One inbox file as it was read: the identity a crash retry is told apart by."""

    path: str
    sha256: str
    mtime_ns: int
    size_bytes: int


@dataclass(frozen=True, slots=True)
class NewPassage:
    text: str
    start: int
    end: int
    page: int | None = None


@dataclass(frozen=True, slots=True)
class NewSummary:
    index_line: str
    summary: str
    spans: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result; ``start``/``end`` index into the source's raw text."""

    id: str
    tier: str
    score: float
    text: str
    source: SourceRef
    start: int | None
    end: int | None
    snippet: str
    page: int | None = None
    mode: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SourceRecord:
    id: str
    kind: str
    project: str
    title: str
    raw_path: str | None
    original_name: str | None
    media_type: str | None
    size_bytes: int
    created_at: str
    last_seen_at: str
    seen_count: int
    raw_text: str
    pages: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class PassageRecord:
    id: str
    source: SourceRef
    seq: int
    text: str
    start: int
    end: int
    page: int | None


@dataclass(frozen=True, slots=True)
class SummaryRecord:
    id: str
    source: SourceRef
    index_line: str
    summary: str
    spans: tuple[tuple[int, int], ...]
    updated_at: str


CATEGORIES = ("identity", "preference", "correction", "decision", "entity", "event", "method")
LASTING = frozenset({"identity", "preference", "correction", "decision"})  # never cool down
RELATIONS = ("repeat", "supplement", "supersedes", "different", "new")
# global: who the person is, how to talk to them, habits in every project; project: that project only
SCOPES = ("global", "project")
INSIGHT_STATUSES = ("pending", "confirmed", "rejected", "forgotten", "superseded")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A statement proposed from one source, with the words it rests on.

    ``quote`` is verbatim evidence: ``raw_text[start:end] == quote`` in the
    source's raw text. ``condition`` says when to recall it ('' if none).
    """

    statement: str
    category: str  # one of CATEGORIES
    condition: str
    quote: str
    start: int
    end: int
    scope: str = "project"  # one of SCOPES
    reported: bool = False  # someone else's view (a colleague, an article): kept only where it differs
    about: str = ""  # the sentence before, where this one points back at it ("Scrap that — …", "算了，…")
    decided: bool = False  # an item under a note's "Decisions" or a line labelled "Decision:": settled when written


@dataclass(frozen=True, slots=True)
class Insight:
    """One insight row as it is now (its current revision)."""

    id: int
    project: str
    category: str
    statement: str
    condition: str
    relation: str  # new, supplement, supersedes, different
    status: str  # one of INSIGHT_STATUSES
    confidence: float
    hotness: float
    revision: int
    created_at: str
    updated_at: str
    last_used_at: str | None
    origin: str  # local, model, save
    use_count: int
    scope: str = "project"  # one of SCOPES


@dataclass(frozen=True, slots=True)
class SaveRequest:
    """Something a person or an agent asked to remember, as given."""

    text: str
    project: str | None = None  # None: the default project
    category: str | None = None  # None: decided by the insight step
    condition: str | None = None
    actor: str = "cli"  # cli, mcp:<client>, ...
    trusted: bool = False  # counts as confirmed at once (config mcp.trust_saves, or the person's own save)


# A note, a decision, a page of minutes: a save is stored, organized and examined inside the
# writer's transaction, so it must stay short (a 10 MB save once held the writer for 15 minutes);
# whole documents go through the inbox, which takes files in step by step.
MAX_SAVE_BYTES = 200_000
# when an insight applies ("when writing SQL"): a phrase, printed beside the insight in every context block
MAX_CONDITION_CHARS = 300


def save_refusal(text: str, condition: str | None = None) -> str | None:
    """Return the sentence refusing a save over MAX_SAVE_BYTES (UTF-8) or MAX_CONDITION_CHARS, or None."""
    if condition is not None and len(condition) > MAX_CONDITION_CHARS:
        return (
            f"the condition is {len(condition):,} characters, and a condition holds at most {MAX_CONDITION_CHARS}; "
            "say when it applies in a short phrase (e.g. 'when writing SQL') and put the rest in the text"
        )
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size <= MAX_SAVE_BYTES:
        return None
    return (
        f"the text to save is {size / 1000:,.0f} KB, and a save holds at most {MAX_SAVE_BYTES // 1000} KB; "
        "save the facts worth remembering in a few sentences, or drop the whole text into the inbox as a file"
    )


@dataclass(frozen=True, slots=True)
class SaveResult:
    """What became of a save: the stored note and its relation to what is known."""

    source_id: int  # the raw note (src-N)
    insight_id: int | None  # the insight it created or strengthened, if any
    relation: str  # new, repeat, supplement, supersedes, different, or 'stored' when no statement came out of it
    known_id: int | None  # the known insight it repeats, supplements, supersedes or differs from
    status: str | None  # the insight's status now (pending, confirmed), if any
