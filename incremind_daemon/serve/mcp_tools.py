"""What the MCP tools do, as plain methods over the store and the injected backend.

The MCP SDK runs synchronous tools on worker threads, so reads take a
connection from a small pool (one thread per connection at a time). The few
writes made here (use counts, review verbs) are short BEGIN IMMEDIATE
transactions that wait out the daemon's writer within the busy timeout;
saves go through the injected ``save`` callable.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

import apsw

from incremind_daemon.config import Settings, private_projects
from incremind_daemon.errors import IncremindError, NotFound, QueryError
from incremind_daemon.names import ProjectNameError, check_project, project_for_cwd
from incremind_daemon.serve.mcp_models import (
    EvidenceOut,
    InsightOut,
    KnownOut,
    LinkOut,
    MemoryHit,
    MemoryItem,
    PendingList,
    RawOut,
    SaveOutcome,
    SearchResult,
    SourceOut,
)
from incremind_daemon.store import clock, drill, insights, items, vectors
from incremind_daemon.store.db import ConnectionPool, write_transaction
from incremind_daemon.store.embedder import Embedder, for_model
from incremind_daemon.store.records import Hit, Insight, SaveRequest, SaveResult, item_id, row_number, save_refusal
from incremind_daemon.store.search import cut_query, search
from incremind_daemon.store.tool_calls import ToolCall, log_tool_call

log = logging.getLogger(__name__)

MAX_LIMIT = 50
DEFAULT_BUDGET = 4_000  # characters of result text an agent reads into its context from one search
MIN_BUDGET, MAX_BUDGET = 200, 50_000
PENDING_LIMIT = 50
ALL_PROJECTS = "*"  # a project argument that asks for every project, where leaving it out means the folder's


@dataclass(frozen=True, slots=True)
class MemoryBackend:
    """What the MCP tools need from the process serving them.

    ``open_conn`` opens a new connection to the memory database (called a
    few times; connections are pooled). ``embedder`` returns the query
    embedder or None; it is called on every search that has vectors to
    compare with (load it once). ``previous_embedder`` returns the model
    switched from while its vectors still answer (the daemon's, during a
    model switch). ``save`` stores a SaveRequest (the daemon runs
    it on its writer thread). ``recent_context`` renders a project's
    preloaded block (None: the default project). ``review`` applies
    confirm/reject as ``review(insight_id, verb, actor)``; None applies it
    here in a short write transaction. ``write`` hands a change nobody waits
    for (hotness, the tool-call log; it opens its own transaction) to the
    process's one writer; None writes it here.
    """

    open_conn: Callable[[], apsw.Connection]
    save: Callable[[SaveRequest], SaveResult]
    recent_context: Callable[[str | None], str]
    embedder: Callable[[], Embedder | None] = lambda: None
    previous_embedder: Callable[[], Embedder | None] = lambda: None  # a switched-from model still answering
    review: Callable[[int, str, str], Insight] | None = None
    write: Callable[[Callable[[apsw.Connection], object]], object] | None = None


class MemoryTools:
    """The tools' behaviour, independent of the protocol."""

    def __init__(self, settings: Settings, backend: MemoryBackend) -> None:
        self.settings = settings
        self.backend = backend
        self.pool = ConnectionPool(backend.open_conn)
        self._embedder_lock = threading.Lock()

    def close(self) -> None:
        self.pool.close()

    # --- reads ---------------------------------------------------------------------

    def search_memory(
        self,
        query: str,
        *,
        project: str | None,
        tier: str | None,
        limit: int,
        budget: int = DEFAULT_BUDGET,
        here: str | None = None,
    ) -> SearchResult:
        """Search memory; without a project, the project of the agent's folder ``here`` when memory knows it."""
        if not query.strip():
            raise QueryError("the query is empty; give a few words or a question to look for")
        if not 1 <= limit <= MAX_LIMIT:
            raise QueryError(f"limit must be between 1 and {MAX_LIMIT}")
        if not MIN_BUDGET <= budget <= MAX_BUDGET:
            raise QueryError(f"budget must be between {MIN_BUDGET:,} and {MAX_BUDGET:,} characters")
        cut = cut_query(query)  # search cuts it alike; this says how, to the model
        with self.pool.connection() as conn:
            project = self._project_for(conn, project, here)
            embedder = self._query_embedder(conn)
            hits = search(
                conn,
                query,
                home=self.settings.home_dir,
                project=project,
                tier=tier,
                limit=limit,
                embedder=embedder,
            )
            found = {h.id: _insight_or_none(conn, h.id) for h in hits if h.id.startswith("ins-")}
            hidden = self._withheld(here)
            hits = [h for h in hits if h.source.project not in hidden or _global(found.get(h.id))]
            found = {h.id: found[h.id] for h in hits if h.id in found}
            self._record_use(conn, [row_number(i) for i in found])
        packed = within_budget(hits, budget)
        results = [MemoryHit.of(h, found.get(h.id)) for h in packed]
        mode: Literal["keyword", "hybrid"] = "hybrid" if embedder is not None else "keyword"
        left_out = len(hits) - len(packed)
        return SearchResult(
            query=cut.text, mode=mode, project=project, results=results, cut=cut.note(), left_out=left_out
        )

    def _withheld(self, here: str | None) -> frozenset[str]:
        """Return the private projects an agent may not read: all but the one of the folder it works in.

        An agent sends what it reads to its vendor; a private project's material (``private_projects``, an
        ``inbox/<project>/.private`` file) reaches only agents working in it, however another asks for it, but
        its confirmed global insights, which the person chose to hold everywhere, reach every agent.
        """
        private = private_projects(self.settings)
        if not private:
            return private
        return private - {self._folder_project(here) if here is not None else None}

    def read_memory(
        self, memory_id: str, *, offset: int | None, length: int | None, here: str | None = None
    ) -> MemoryItem:
        kind, rowid = items.split_item_id(memory_id)
        home = self.settings.home_dir
        with self.pool.connection() as conn:
            found: drill.Drill
            if kind == "raw":
                window = length or drill.DEFAULT_WINDOW
                found = drill.read_source_window(conn, rowid, home=home, offset=offset or 0, length=window)
            else:
                found = drill.drill(conn, memory_id, home=home)
                if offset is not None or length is not None:
                    raise QueryError(
                        "offset and length apply to sources (src- ids); to read the original further, "
                        f"call read_memory on {_source_of(found)} with the offset given in read_more"
                    )
            withheld = self._withheld(here)
            shared = isinstance(found, drill.InsightDrill) and _global(found.insight)
            if withheld and _projects_of(found) & withheld and not shared:
                raise NotFound(f"{memory_id} belongs to a private project, read only by agents working in it")
            if isinstance(found, drill.InsightDrill):
                self._record_use(conn, [rowid])
        return _item_out(found)

    def list_pending(self, *, project: str | None, here: str | None = None) -> PendingList:
        withheld = self._withheld(here)
        self._refuse_private(project, withheld)
        with self.pool.connection() as conn:
            project = self._project_for(conn, project, None)
            found = insights.list_insights(conn, status="pending", project=project, limit=PENDING_LIMIT)
            total = insights.count_insights(conn, status="pending", project=project)
            if project is None and withheld:  # every project: but the private ones of other folders
                found = [i for i in found if i.project not in withheld]
                total -= sum(insights.count_insights(conn, status="pending", project=p) for p in withheld)
        return PendingList(project=project, total=total, insights=[InsightOut.of(i) for i in found])

    def get_recent_context(self, *, project: str | None, here: str | None = None) -> str:
        """Render the block a session starts with; without a project, the one of the agent's folder ``here``."""
        self._refuse_private(project, self._withheld(here))
        if project is not None or here is not None:
            with self.pool.connection() as conn:
                project = self._project_for(conn, project, here)
        return self.backend.recent_context(project)

    @staticmethod
    def _refuse_private(project: str | None, withheld: frozenset[str]) -> None:
        if project is not None and project in withheld:
            raise NotFound(f"'{project}' is a private project, read only by agents working in it")

    # --- writes --------------------------------------------------------------------

    def save_memory(
        self,
        text: str,
        *,
        project: str | None,
        category: str | None,
        condition: str | None,
        actor: str,
        here: str | None = None,
    ) -> SaveOutcome:
        """Save a note; without a project, into the project of the agent's folder ``here``, if it is in one."""
        refusal = save_refusal(text, condition)  # before the request reaches the writer, which it would hold
        if refusal is not None:
            raise QueryError(refusal)
        if not text.strip():
            raise QueryError("nothing to save: the text is empty; pass the fact or note to remember")
        if not project and here is not None:
            project = self._folder_project(here)
        request = SaveRequest(
            text=text,
            project=_valid_project(project) if project else None,
            category=category,
            condition=condition or None,
            actor=actor,
            trusted=self.settings.mcp.trust_saves,
        )
        result = self.backend.save(request)
        known = None
        if result.known_id is not None:
            with self.pool.connection() as conn:
                other = insights.get_insight(conn, result.known_id)
            known = KnownOut(id=item_id("insight", other.id), statement=other.statement, status=other.status)
        return _save_out(result, known)

    def review(self, memory_id: str, verb: str, *, actor: str) -> InsightOut:
        kind, rowid = items.split_item_id(memory_id)
        if kind != "insight":
            raise NotFound(f"'{memory_id}' is not an insight; only ins- ids can be {verb}ed (see list_pending)")
        if self.backend.review is not None:
            return InsightOut.of(self.backend.review(rowid, verb, actor))
        with self.pool.connection() as conn:
            changed = apply_review(conn, rowid, verb, actor)
        return InsightOut.of(changed)

    def log_call(self, call: ToolCall) -> None:
        """Record a tool call; a busy database costs the record, never the answer."""
        if self.backend.write is not None:
            self.backend.write(lambda conn: log_tool_call(conn, call))
            return
        try:
            with self.pool.connection() as conn:
                log_tool_call(conn, call)
        except (apsw.Error, IncremindError) as exc:
            log.warning("could not log the %s call: %s", call.tool, exc)

    # --- helpers -------------------------------------------------------------------

    def _project_for(self, conn: apsw.Connection, project: str | None, here: str | None) -> str | None:
        """Return the project a read is about: the one named ("*": all, None), else the folder's, if known."""
        if project == ALL_PROJECTS:
            return None
        if project is not None:
            self._check_project(conn, project)
            return project
        mine = self._folder_project(here) if here is not None else None
        return mine if mine is not None and mine in drill.list_projects(conn) else None

    def _folder_project(self, here: str) -> str | None:
        """Name the project of an agent's working folder: a configured prefix or its repository; None outside."""
        try:
            return project_for_cwd(here, self.settings.sessions.projects, any_folder=False)
        except (OSError, ValueError):
            return None

    def _check_project(self, conn: apsw.Connection, project: str | None) -> None:
        if project is None:
            return
        project = _valid_project(project)
        known = drill.list_projects(conn)
        if project not in known:
            names = ", ".join(known[:30]) or "none yet"
            raise NotFound(f"no project '{project}' in memory; known projects: {names} (or '*' for all of them)")

    def _query_embedder(self, conn: apsw.Connection) -> Embedder | None:
        """Return the embedder of the model whose vectors answer now; None when there is none.

        During a model switch the old model's vectors answer until the new
        ones are complete, and the old model embeds the query.
        """
        model = vectors.active_model(conn)
        if model is None:
            return None
        with self._embedder_lock:  # the first call may load the model: once, whoever asks at the same time
            current = self.backend.embedder()
        return for_model(model.key, (current, self.backend.previous_embedder()))

    def warm_up(self) -> None:
        """Load the query embedder now if vectors exist (a stdio server does this at start)."""
        with self.pool.connection() as conn:
            embedder = self._query_embedder(conn)
        if embedder is not None:
            embedder.embed_query("warm up")

    def _record_use(self, conn: apsw.Connection, insight_ids: list[int]) -> None:
        if not insight_ids:
            return
        half_life, now = self.settings.insights.half_life_days, clock.stamp()
        if self.backend.write is not None:
            self.backend.write(lambda c: insights.try_record_use(c, insight_ids, half_life_days=half_life, now=now))
            return
        if not insights.try_record_use(conn, insight_ids, half_life_days=half_life, now=now):
            log.warning("could not record use of %d insights: the database stayed busy", len(insight_ids))


def apply_review(conn: apsw.Connection, insight_id: int, verb: str, actor: str) -> Insight:
    """Confirm or reject an insight in one write transaction."""
    with write_transaction(conn):
        return insights.review(conn, insight_id, verb, actor=actor, now=clock.stamp())


def _insight_or_none(conn: apsw.Connection, public_id: str) -> Insight | None:
    try:
        return insights.get_insight(conn, row_number(public_id))
    except NotFound:
        return None


def _global(insight: Insight | None) -> bool:
    """Tell whether an insight is one the person confirmed to hold everywhere."""
    return insight is not None and insight.status == "confirmed" and insight.scope == "global"


def _projects_of(found: drill.Drill) -> set[str]:
    if isinstance(found, drill.InsightDrill):
        return {found.insight.project, *(evidence.source.project for evidence in found.evidence)}
    return {found.source.project}


def _source_of(found: drill.Drill) -> str:
    if isinstance(found, drill.InsightDrill):
        return found.evidence[0].source.id if found.evidence else "the evidence's source id"
    return found.source.id


_KIND_NAMES: dict[str, Literal["passage", "summary", "message"]] = {
    "organized": "passage",
    "summary": "summary",
    "message": "message",
}


def _item_out(found: drill.Drill) -> MemoryItem:
    if isinstance(found, drill.SourceDrill):
        return MemoryItem(
            id=found.id,
            kind="source",
            tier="raw",
            text=found.raw.text,
            source=SourceOut.of(found.source),
            start=found.raw.start,
            end=found.raw.end,
            raw=RawOut.of(found.raw),
            summary_id=found.summary_id,
            passages=found.passages,
        )
    if isinstance(found, drill.InsightDrill):
        return MemoryItem(
            id=found.id,
            kind="insight",
            tier="insight",
            text=found.insight.statement,
            insight=InsightOut.of(found.insight),
            links=[LinkOut.of(link) for link in found.links],
            evidence=[EvidenceOut.of(e) for e in found.evidence],
        )
    return MemoryItem(
        id=found.id,
        kind=_KIND_NAMES[found.kind],
        tier=found.tier,
        text=found.text,
        source=SourceOut.of(found.source),
        start=found.start,
        end=found.end,
        page=found.page,
        role=found.role,
        at=found.at,
        raw=RawOut.of(found.raw),
    )


_RELATIONS: dict[str, Literal["new", "repeat", "supplement", "supersedes", "different", "stored"]] = {
    "new": "new",
    "repeat": "repeat",
    "supplement": "supplement",
    "supersedes": "supersedes",
    "different": "different",
}


def _save_out(result: SaveResult, known: KnownOut | None) -> SaveOutcome:
    note = item_id("raw", result.source_id)
    insight = None if result.insight_id is None else item_id("insight", result.insight_id)
    relation = _RELATIONS.get(result.relation, "stored")
    pending = " It is pending until the person confirms it." if result.status == "pending" else ""
    if relation == "repeat" and known is not None:
        message = (
            f"This repeats the known insight {known.id} ('{known.statement}'); the note {note} adds to its evidence."
        )
    elif relation == "supplement" and known is not None:
        message = f"Saved as {insight}, which supplements {known.id} ('{known.statement}').{pending}"
    elif relation == "supersedes" and known is not None:
        message = (
            f"Saved as {insight}, which replaces {known.id} ('{known.statement}'); once it is confirmed, "
            f"{known.id} is marked superseded.{pending}"
        )
    elif relation == "different" and known is not None:
        message = f"Saved as {insight}, which differs from {known.id} ('{known.statement}'); both are kept.{pending}"
    elif insight is not None:
        message = f"Saved as {insight}, a new insight.{pending}"
    else:
        message = f"Stored as the note {note}; it is searchable, but no statement was drawn from it."
    return SaveOutcome(
        id=insight or note,
        note_id=note,
        relation=relation,
        status=result.status,
        known=known,
        message=message,
    )


def _valid_project(project: str) -> str:
    """Return a project name an agent sent, or refuse it with the rule (it ends up in context files)."""
    try:
        return check_project(project)
    except ProjectNameError as exc:
        raise QueryError(f"{exc}; or leave project out") from None


def within_budget(hits: list[Hit], budget: int) -> list[Hit]:
    """Keep the best hits whose texts fit in ``budget`` characters, in rank order.

    A hit that does not fit is passed over for the next ones, which may; the
    first hit is cut to the budget (at the end of its text's part that fits)
    rather than left out, so a search never answers nothing because one item
    is long. A cut hit's ``end`` moves with its text.
    """
    kept: list[Hit] = []
    used = 0
    for hit in hits:
        if used + len(hit.text) <= budget:
            kept.append(hit)
            used += len(hit.text)
        elif not kept:
            end = None if hit.end is None or hit.start is None else hit.start + budget
            kept.append(replace(hit, text=hit.text[:budget], end=end))
            used = budget
    return kept
