"""The incremental-insight step: from new material, only what is new, different or a new method.

For one source: candidate statements come from the local cue rules (or the
model, see ``insight_model``), each is compared with the nearest known
insights, and then

- a repeat adds the source to the known insight and raises its confidence
  (a repeat of a *pending* candidate merges into it; of a rejected one, is
  dropped, so a rejected idea is not proposed again);
- a supplement or a difference becomes a pending candidate linked to the
  insight it relates to; anything else becomes a pending 'new' candidate.

All rows of one source commit in one transaction with the job's progress.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import apsw

from incremind_daemon.config import Settings, private_projects
from incremind_daemon.errors import IncremindError
from incremind_daemon.names import ProjectNameError, check_project
from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.features import bridge_words, closeness
from incremind_daemon.pipeline.ingest import organize_text
from incremind_daemon.pipeline.lasting_model import LastingReader, RelationReader, reader_for, relation_reader_for
from incremind_daemon.pipeline.pairs import Known, Relation
from incremind_daemon.pipeline.redact import redact
from incremind_daemon.pipeline.relate import relate
from incremind_daemon.pipeline.scope import scope_beside, scope_in
from incremind_daemon.pipeline.statement import clean_statement
from incremind_daemon.store import clock, insight_jobs, insights, items, sessions, vectors
from incremind_daemon.store.db import write_transaction
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.records import (
    CATEGORIES,
    Candidate,
    Insight,
    NewSource,
    SaveRequest,
    SaveResult,
    item_id,
    save_refusal,
)

log = logging.getLogger(__name__)

_LINKED = ("supplement", "supersedes", "different")  # relations that store a candidate linked to a known insight
_CATCH = 4  # keyword neighbours fetched per neighbour wanted, of which the closest are kept beside bm25's best
SAVE_AS_ONE_CHARS = 600  # a save up to this long is one statement; a longer one is examined like a file
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Increment:
    """What one candidate became."""

    candidate: Candidate
    # repeat, supplement, supersedes, different, new, 'outdated' (kept as superseded: a newer known insight
    # already changed it), or 'ignored' (nothing kept)
    relation: str
    insight_id: int | None
    known_id: int | None


@dataclass(frozen=True, slots=True)
class Material:
    """Text of a source to examine, and where it stops (the job's new ``upto``)."""

    source_id: int
    project: str
    text: str  # the source's raw text; candidates' offsets index into it
    spans: tuple[tuple[int, int], ...]  # the parts to examine
    upto: int
    conversational: bool = False  # the spans are a person's turns in a session
    asked: tuple[str, ...] = ()  # for each span of a session, the agent's message it answers


def material_of(conn: apsw.Connection, job: insight_jobs.InsightJob) -> Material:
    """Return what of a source is still to be examined.

    Files and notes are examined whole. Of a session only the person's own
    messages count (that is where preferences, corrections and decisions
    are stated), and only those past the job's ``upto``.
    """
    source = items.get_source(conn, job.source_id)
    if job.kind != "session":
        return Material(job.source_id, job.project, source.raw_text, ((0, len(source.raw_text)),), len(source.raw_text))
    rows = sessions.user_spans(conn, job.source_id, after=job.upto)
    spans = tuple((max(start, job.upto), end) for start, end, _ in rows)
    upto = max([job.upto, *(end for _, end in spans)])
    asked = tuple(source.raw_text[a[0] : a[1]] if a else "" for _, _, a in rows)
    return Material(job.source_id, job.project, source.raw_text, spans, upto, conversational=True, asked=asked)


def local_candidates(
    material: Material, *, limit: int, reader: LastingReader | None = None
) -> tuple[list[Candidate], int]:
    """Pick candidates from the parts of a source to examine, offsets into its whole text, in the order said.

    One part yields at most ``limit``; the parts are read in order until the next would pass ``limit``
    in all, so a long session read at once (a backfill) is examined in batches and loses nothing. Return
    the candidates and how far the source is examined with them.
    """
    found: list[Candidate] = []
    for index, (start, end) in enumerate(material.spans):
        part, asked = material.text[start:end], material.asked[index] if material.asked else ""
        said = extract_candidates(part, limit=limit, conversational=material.conversational, reader=reader, asked=asked)
        if found and len(found) + len(said) > limit:
            return found, start  # the rest is the next batch's
        found.extend(replace(candidate, start=candidate.start + start, end=candidate.end + start) for candidate in said)
    return found, material.upto


def record_increments(
    conn: apsw.Connection,
    settings: Settings,
    *,
    project: str,
    source_id: int | None,
    candidates: Sequence[Candidate],
    origin: str,
    embedder: Embedder | None = None,
    trusted: bool = False,
    actor: str = "daemon",
    ordered: bool = False,
    now: str,
) -> list[Increment]:
    """Compare each candidate with what is known and store what it adds (call inside a write transaction).

    ``ordered``: the candidates are the person's own newer words (a session turn, a save), so
    one that changes a known insight of its scope supersedes it rather than differs from it; a note's
    decision (``Candidate.decided``: an item under its "Decisions") is read so too.
    """
    private = private_projects(settings)
    # what one sentence is about is often named only by its neighbours ("But fixed intervals are
    # too coarse" follows a restatement of the known method), so each candidate is compared with
    # the known insights near any candidate of the same source; but a cosine is its own candidate's:
    # a repeat's high cosine lent to a new sentence beside it would link that sentence as a supplement
    cosines: list[dict[int, float | None]] = []
    pool: dict[int, Insight] = {}
    reading = relation_reader_for(embedder)
    for candidate in candidates:
        near = nearest_known(conn, settings, candidate, project=project, private=private, embedder=embedder)
        cosines.append({insight.id: similarity for insight, similarity in near})
        pool.update((insight.id, insight) for insight, _ in near)
    out: list[Increment] = []
    proposed: set[int] = set()  # what this source proposed so far
    for candidate, own in zip(candidates, cosines, strict=True):
        # …and a note's decision is its meeting's word, newer than what the meetings before it decided
        in_order = ordered or (candidate.decided and not candidate.reported)
        known = [(insight, own.get(insight.id)) for insight in pool.values()]
        relation = _related(candidate, known, settings, ordered=in_order, reading=reading)
        rejected = {insight.id for insight, _ in known if insight.status == "rejected"}
        if relation.known_id in rejected and relation.kind in ("supplement", "supersedes", "different"):
            # a rejected idea is no anchor for a change; the change may still be of a live insight: "切读推迟到
            # 1 月 8 日，gh-ost 太慢" beside a rejected "韩雪说用 gh-ost 在线改" that shares more words, and a
            # confirmed "切读日期定在 12 月 20 日"
            live = [(insight, similarity) for insight, similarity in known if insight.id not in rejected]
            again = _related(candidate, live, settings, ordered=in_order, reading=reading)
            relation = again if again.kind in ("supplement", "supersedes", "different") else relation
        # what one source says is one account: a candidate it proposed minutes ago is no decision the next
        # sentence changes ("预测 horizon 从 28 天改成 42 天" beside the meeting's own "28 天的预测不够用"), so the
        # change is of an older insight, if of any (a colleague's view differs from the rest of its note)
        changes_here = relation.kind == "supersedes" or (relation.kind == "different" and not candidate.reported)
        if changes_here and _proposed_here(conn, pool, relation.known_id, source_id):
            here = {i for i in pool if _proposed_here(conn, pool, i, source_id)}
            older = [(insight, similarity) for insight, similarity in known if insight.id not in here]
            relation = _related(candidate, older, settings, ordered=in_order, reading=reading)
        if relation.kind == "supplement" and relation.known_id in proposed:
            # one message's rules stand side by side ("Anyhow everywhere, no thiserror" after "Rexif is a different
            # crate"): a sentence adds to what was said before, if to anything, not to the one next to it
            older = [(insight, similarity) for insight, similarity in known if insight.id not in proposed]
            relation = _related(candidate, older, settings, ordered=in_order, reading=reading)
        if relation.kind in _LINKED and relation.known_id in pool:
            said, known_scope = candidate.quote or candidate.statement, pool[relation.known_id].scope
            changes = relation.kind == "supersedes"
            candidate = replace(candidate, scope=scope_beside(candidate.scope, said, known_scope, changes=changes))
        if candidate.reported and relation.kind != "different":
            out.append(Increment(candidate, "ignored", None, relation.known_id))
            continue  # someone else's view that agrees or adds is not the person's to remember
        if (
            in_order
            and relation.kind == "supersedes"
            and relation.known_id is not None
            and _newer_said(conn, candidate, relation.known_id, source_id=source_id, now=now)
        ):
            # a backfill reads old sessions after newer ones: the old way is history, not a change of the new
            outdated = insights.insert_outdated(
                conn,
                project=project,
                candidate=candidate,
                source_id=source_id,
                newer_id=relation.known_id,
                origin=origin,
                actor=actor,
                now=now,
            )
            out.append(Increment(candidate, "outdated", outdated, relation.known_id))
            continue
        increment = _apply(conn, settings, candidate, relation, known, project, source_id, origin, trusted, actor, now)
        out.append(increment)
        if increment.insight_id is not None and increment.relation != "repeat":
            # later candidates of this source are compared with what it just proposed, too
            fresh = insights.get_insight(conn, increment.insight_id)
            pool[fresh.id] = fresh
            proposed.add(fresh.id)
    return out


def _proposed_here(
    conn: apsw.Connection, pool: dict[int, Insight], insight_id: int | None, source_id: int | None
) -> bool:
    """Whether an insight is a candidate still pending that only this source has said."""
    insight = pool.get(insight_id) if insight_id is not None else None
    if insight is None or source_id is None or insight.status != "pending":
        return False
    return {evidence.source_id for evidence in insights.evidence_of(conn, insight.id)} == {source_id}


def _newer_said(conn: apsw.Connection, candidate: Candidate, known_id: int, *, source_id: int | None, now: str) -> bool:
    """Whether the known insight was said after the candidate, a session's turn or a note saved now: a
    session's message keeps its own time."""
    said = sessions.said_at(conn, source_id, candidate.start) if source_id is not None else None
    mine = clock.parse_moment(said or now)
    theirs = insights.last_said(conn, known_id)
    return mine is not None and theirs is not None and theirs > mine


def _related(
    candidate: Candidate,
    known: list[tuple[Insight, float | None]],
    settings: Settings,
    *,
    ordered: bool,
    reading: RelationReader | None,
) -> Relation:
    return relate(
        candidate,
        [_as_known(insight, similarity) for insight, similarity in known],
        repeat_similarity=settings.insights.repeat_similarity,
        related_similarity=settings.insights.related_similarity,
        ordered=ordered,
        reading=reading,
    )


def _apply(
    conn: apsw.Connection,
    settings: Settings,
    candidate: Candidate,
    relation: Relation,
    known: list[tuple[Insight, float | None]],
    project: str,
    source_id: int | None,
    origin: str,
    trusted: bool,
    actor: str,
    now: str,
) -> Increment:
    status_of = {insight.id: insight.status for insight, _ in known}
    target = relation.known_id
    kind = relation.kind
    if target is not None and status_of.get(target) == "rejected":
        if kind == "repeat" or relation.similarity >= settings.insights.repeat_similarity:
            return Increment(candidate, "ignored", None, target)
        kind, target = "new", None  # a rejected idea is no anchor for a supplement or a difference
    if kind == "repeat" and target is not None:
        if source_id is not None:
            insights.add_evidence(conn, target, source_id=source_id, candidate=candidate, now=now)
        insights.strengthen(
            conn, target, step=settings.insights.confidence_step, source_id=source_id, actor=actor, now=now
        )
        if trusted and status_of.get(target) == "pending":
            insights.review(conn, target, "confirm", actor=actor, now=now)
        return Increment(candidate, "repeat", target, target)
    insight_id = insights.insert_insight(
        conn,
        project=project,
        candidate=candidate,
        relation=kind if kind in _LINKED else "new",
        source_id=source_id,
        known_id=target,
        origin=origin,
        status="confirmed" if trusted else "pending",
        actor=actor,
        now=now,
    )
    return Increment(candidate, kind if kind in _LINKED else "new", insight_id, target)


def nearest_known(
    conn: apsw.Connection,
    settings: Settings,
    candidate: Candidate,
    *,
    project: str,
    private: Collection[str],
    embedder: Embedder | None,
) -> list[tuple[Insight, float | None]]:
    """Return the known insights nearest a candidate, with their cosine similarity when vectors exist.

    By words: bm25's best ``neighbours``, and as many again that share most named things and
    values with the candidate of a catch four times as wide; by vectors: the nearest ``neighbours`` that are
    in scope (this project's, and other projects' global ones), however many other projects hold near ones.
    """
    limit = settings.insights.neighbours
    text = f"{candidate.statement} {candidate.condition}".strip()
    words = " ".join([text, *bridge_words(text)])
    # bm25 ranks by any shared word, common ones too: of a wider catch, the ones that share the candidate's
    # named things and values ("feat", "commit", "3/20") are its neighbours as well
    caught = insight_jobs.keyword_neighbours(conn, words, project=project, private=private, limit=limit * _CATCH)
    nearest = sorted(caught, key=lambda insight: -closeness(text, f"{insight.statement} {insight.condition}"))
    found: dict[int, tuple[Insight, float | None]] = {
        insight.id: (insight, None) for insight in (*caught[:limit], *nearest[:limit])
    }
    # the embedder's own vectors, also while it is still building them: the insight step embeds what it
    # proposes before the next source (steps.examine_pending), long before a backfill's passages are done
    model = vectors.live_model(conn, embedder.identity.key) if embedder is not None else None
    if embedder is not None and model is not None:
        try:
            query = embedder.embed_query(text)
            # the nearest in scope: this project's own, and of every project's a catch wide enough that other
            # projects' rules of the same kind ("use pnpm" in ten repos) do not crowd out the global ones
            own = vectors.nearest(conn, model.key, query, limit=limit, kinds=("insight",), project=project)
            wide = vectors.nearest(conn, model.key, query, limit=limit * _CATCH, kinds=("insight",), project=None)
            near: dict[int, tuple[Insight, float]] = {}
            for hit in (*own, *wide):
                if hit.item in near:
                    continue
                try:
                    insight = insights.get_insight(conn, hit.item)
                except IncremindError:
                    continue
                if insight_jobs.in_scope(insight, project=project, private=private):
                    near[insight.id] = (insight, hit.similarity)
            for insight, similarity in sorted(near.values(), key=lambda pair: -pair[1])[:limit]:
                found[insight.id] = (insight, similarity)
            # the neighbours found by their words get their cosine too, when they have a vector
            unread = [insight_id for insight_id, (_, similarity) in found.items() if similarity is None]
            cosines = vectors.similarities(conn, model.key, query, kind="insight", items=unread)
        except Exception as exc:  # keywords still decide when the model fails
            log.warning("vector neighbours unavailable: %s", exc)
            cosines = {}
        for insight_id, similarity in cosines.items():
            found[insight_id] = (found[insight_id][0], similarity)
    return list(found.values())


def _as_known(insight: Insight, similarity: float | None) -> Known:
    return Known(insight.id, insight.statement, insight.condition, insight.category, similarity, insight.scope)


def examine_source(
    conn: apsw.Connection,
    settings: Settings,
    job: insight_jobs.InsightJob,
    *,
    candidates: Sequence[Candidate] | None = None,
    origin: str = "local",
    embedder: Embedder | None = None,
    actor: str = "daemon",
) -> list[Increment]:
    """Examine one source's new material and record its increments with the job's progress.

    ``candidates`` come from the model when given; otherwise the local rules
    pick them. Either way the relation to what is known is decided here.
    """
    found: list[Increment] = []
    while True:
        increments, upto, more = _examine_batch(
            conn, settings, job, candidates=candidates, origin=origin, embedder=embedder, actor=actor
        )
        found.extend(increments)
        if not more or upto <= job.upto:
            break
        job = replace(job, upto=upto)  # a long session read at once: its next batch, in the order said
    made = sum(1 for increment in found if increment.relation in ("new", *_LINKED))
    if found:
        log.info("examined %s: %d candidate(s), %d new pending", item_id("raw", job.source_id), len(found), made)
    return found


def _examine_batch(
    conn: apsw.Connection,
    settings: Settings,
    job: insight_jobs.InsightJob,
    *,
    candidates: Sequence[Candidate] | None,
    origin: str,
    embedder: Embedder | None,
    actor: str,
) -> tuple[list[Increment], int, bool]:
    """Examine what of a source its job has not, up to a batch of candidates; return the increments, how far the
    source is examined, and whether more of it waits."""
    now = clock.stamp()
    with write_transaction(conn):
        material = material_of(conn, job)
        upto = material.upto
        if candidates is not None:
            picked = list(candidates)
        else:
            reader = reader_for(embedder)
            picked, upto = local_candidates(material, limit=settings.insights.max_per_source, reader=reader)
        if not material.conversational:
            # what a dropped file says stays in its project: personal notes reach a coding
            # agent's context only once the person makes one global (incremind edit --scope)
            picked = [replace(candidate, scope="project") for candidate in picked]
        # …and a rule that names the project it was said in is that project's
        picked = [replace(c, scope=scope_in(c.scope, c.quote or c.statement, c.category, job.project)) for c in picked]
        found = record_increments(
            conn,
            settings,
            project=job.project,
            source_id=job.source_id,
            candidates=picked,
            origin=origin,
            embedder=embedder,
            actor=actor,
            ordered=material.conversational,
            now=now,
        )
        insight_jobs.finish_job(conn, job.source_id, upto=upto, path=origin, now=now)
    return found, upto, upto < material.upto


def save_memory(
    conn: apsw.Connection,
    settings: Settings,
    request: SaveRequest,
    *,
    embedder: Embedder | None = None,
) -> SaveResult:
    """Store a note as a raw source and run it through the insight step, in one transaction.

    A short note is one statement (its category given or guessed); a long
    one is examined like a dropped file and reports its first increment.
    A text over MAX_SAVE_BYTES is refused before any work.
    """
    refusal = save_refusal(request.text, request.condition)
    if refusal is not None:
        raise IncremindError(refusal)
    text = redact(request.text.strip())  # stored, indexed and examined without its credentials
    if request.condition:  # printed beside the insight in context blocks: no credentials either
        request = replace(request, condition=redact(request.condition.strip()))
    if not text:
        raise IncremindError("nothing to save: the text is empty")
    if request.category is not None and request.category not in CATEGORIES:
        raise IncremindError(f"unknown category '{request.category}'; categories are {', '.join(CATEGORIES)}")
    try:
        project = check_project(request.project) if request.project else settings.default_project
    except ProjectNameError as exc:
        raise IncremindError(str(exc)) from None
    now = clock.stamp()
    sha = hashlib.sha256(f"note\0{project}\0{text}".encode()).hexdigest()
    with write_transaction(conn):
        source_id = _store_note(conn, text, project=project, sha=sha, actor=request.actor, now=now)
        candidates = _save_candidates(text, request, project)
        found = record_increments(
            conn,
            settings,
            project=project,
            source_id=source_id,
            candidates=candidates,
            origin="save",
            embedder=embedder,
            trusted=request.trusted,
            actor=request.actor,
            ordered=True,
            now=now,
        )
        insight_jobs.open_new_jobs(conn, after=source_id - 1, now=now)
        insight_jobs.finish_job(conn, source_id, upto=len(text), path="save", now=now)
        first = next((i for i in found if i.relation != "ignored"), None)
        if first is None or first.insight_id is None:
            return SaveResult(source_id, None, "stored", None if first is None else first.known_id, None)
        status = insights.get_insight(conn, first.insight_id).status
    return SaveResult(source_id, first.insight_id, first.relation, first.known_id, status)


def _store_note(conn: apsw.Connection, text: str, *, project: str, sha: str, actor: str, now: str) -> int:
    existing = items.find_source_by_sha(conn, sha)
    if existing is not None:
        items.mark_seen(conn, existing, now=now)
        return existing
    title = _SPACE.sub(" ", text)[:60]
    source_id = items.insert_source(
        conn,
        NewSource(kind="note", project=project, title=title, raw_text=text, sha256=sha, size_bytes=len(text.encode())),
        now=now,
    )
    passages, summary = organize_text(text, (), title=title)
    items.insert_passages(conn, source_id, passages)
    items.upsert_summary(conn, source_id, summary, now=now)
    items.append_audit(
        conn, actor=actor, action="save", target=item_id("raw", source_id), now=now, detail={"project": project}
    )
    return source_id


def _save_candidates(text: str, request: SaveRequest, project: str) -> list[Candidate]:
    picked = extract_candidates(text, limit=12)
    if len(text) > SAVE_AS_ONE_CHARS:
        return picked
    category = request.category or (picked[0].category if picked else "entity")
    # a rule that names the project it is saved in is that project's, as a session's is
    scope = scope_in(picked[0].scope, text, category, project) if picked else "project"
    # the person's words whole, less what only asks to keep them ("Remember:", "记住：") and the closing stop
    statement = clean_statement(text)
    return [Candidate(statement, category, (request.condition or "").strip(), text, 0, len(text), scope)]


def known_for_material(
    conn: apsw.Connection, settings: Settings, material: Material, *, limit: int = 24
) -> list[Insight]:
    """Return the known insights a model should see beside a source's new material."""
    text = " ".join(material.text[start:end] for start, end in material.spans)[:4_000]
    found = insight_jobs.keyword_neighbours(
        conn, text, project=material.project, private=private_projects(settings), limit=limit
    )
    return [insight for insight in found if insight.status != "rejected"]


def model_window(material: Material) -> tuple[int, int]:
    """Return the span of a source the model reads: from its first part to be examined to the last."""
    if not material.spans:
        return material.upto, material.upto
    return material.spans[0][0], material.spans[-1][1]
