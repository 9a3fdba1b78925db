"""The writer's steps over its connection: take an item in, summarize, examine, embed.

The daemon's writer thread (``pipeline/worker.py``) calls them between the
items of its queue. With no daemon, ``incremind ingest`` and ``incremind
backfill`` call them on a connection of their own: while they run, they are
the store's one writer.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import timedelta

import apsw

from incremind_daemon.config import ModelSettings, Settings
from incremind_daemon.pipeline.agent_cli import make_agent_client
from incremind_daemon.pipeline.chat import ChatModel
from incremind_daemon.pipeline.ingest import ingest_file
from incremind_daemon.pipeline.insight_model import examine_job, make_chat_client
from incremind_daemon.pipeline.sessions import summarize_session, take_session
from incremind_daemon.pipeline.stats import WorkerStats, disk_full_error
from incremind_daemon.pipeline.work import Extractor, Outcome, SessionReader, TailSession, WorkItem
from incremind_daemon.store import clock, insight_jobs, items, sessions, vectors
from incremind_daemon.store.db import connect, write_transaction
from incremind_daemon.store.embedder import Embedder, for_model
from incremind_daemon.store.records import item_id, row_number

log = logging.getLogger(__name__)

SUMMARY_DEBOUNCE_SECONDS = 3.0  # a session's summary is renewed once it has been quiet this long


@dataclass(slots=True)
class StepState:
    """What the steps keep between calls: settings, readers, models, progress and counters.

    It belongs to the one writer. Only ``switch_model`` may be called from
    another thread; the writer takes the change up before its next job.
    """

    settings: Settings
    extract: Extractor
    read_session: SessionReader | None = None
    embedder: Embedder | None = None  # None: keywords only (or the model failed and was dropped)
    # the model switched from, whose vectors answer searches until the new model's are complete
    previous_embedder: Embedder | None = None
    may_embed: Callable[[str], bool] = lambda _project: True  # False keeps a project's text on this machine
    actor: str = "daemon"  # who the stored rows name as their maker
    use_model: bool = True  # False: candidate insights come from the local rules, even with a model configured
    on_summary: Callable[[str], None] = lambda _project: None  # told a session's project after its summary is renewed
    stats: WorkerStats = field(default_factory=WorkerStats)
    stale: dict[int, float] = field(default_factory=dict)  # session source id -> monotonic time of its last change
    jobs_after: int = 0  # sources up to this id have an insight job
    model_key: str | None = None  # the embedder's vector table, once registered
    chat_client: ChatModel | None = None  # built on the writer's connection (receipts)
    no_chat: bool = False  # no chat client could be built with these settings: the local rules answer
    _next_model: ModelSettings | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def switch_model(self, model: ModelSettings) -> None:
        """Find candidates with these model settings from the next job on; safe from any thread."""
        with self._lock:
            self._next_model = model

    def chat(self, conn: apsw.Connection) -> ChatModel | None:
        """Return the chat client for the next job, built after a model switch; None for the local rules."""
        with self._lock:
            changed, self._next_model = self._next_model, None
        if changed is not None:
            self.close()
            self.settings = self.settings.model_copy(update={"model": changed})
            self.no_chat = False
        if self.chat_client is None and self.use_model and not self.no_chat:
            # a chosen agent comes first; else the chat endpoint, if one is configured
            self.chat_client = make_agent_client(self.settings, conn) or make_chat_client(self.settings, conn)
            self.no_chat = self.chat_client is None
        return self.chat_client

    def close(self) -> None:
        """Close the chat client, if one was built."""
        if self.chat_client is not None:
            self.chat_client.close()
            self.chat_client = None


@contextmanager
def open_writer(state: StepState) -> Iterator[apsw.Connection]:
    """Open the store as its one writer for a block; close the chat client and the connection after.

    For a command that runs with no daemon (``ingest``, ``backfill``): the
    daemon's writer thread holds a connection of its own.
    """
    conn = connect(state.settings.database_path)
    try:
        yield conn
    finally:
        state.close()
        conn.close()


def ingest_item(
    conn: apsw.Connection, state: StepState, item: WorkItem, *, stopping: threading.Event | None = None
) -> Outcome:
    """Take one inbox file or the new part of one session in, and count the outcome."""
    if isinstance(item, TailSession):
        return tail_session(conn, state, item, stopping=stopping)
    if item.from_inbox and not os.path.lexists(item.path):  # a dangling link is failed, not gone
        return Outcome("gone", str(item.path), item.project, "the file left the inbox")
    outcome = ingest_file(conn, item, settings=state.settings, extract=state.extract, actor=state.actor)
    _count(state.stats, outcome)
    return outcome


def tail_session(
    conn: apsw.Connection, state: StepState, item: TailSession, *, stopping: threading.Event | None = None
) -> Outcome:
    """Read a session's transcript to its end, a slice per transaction; the outcome counts every message."""
    if state.read_session is None:
        raise RuntimeError("the steps were given no session reader")
    messages = 0
    while True:
        outcome, more = take_session(
            conn, item, read=state.read_session, default_project=state.settings.default_project
        )
        messages += outcome.passages
        if outcome.source_id is not None and outcome.status == "added":
            state.stale[row_number(outcome.source_id)] = time.monotonic()
            state.stats.messages += outcome.passages
            state.stats.last_message_at = clock.stamp()
        if not more or (stopping is not None and stopping.is_set()):
            return replace(outcome, passages=messages)


def note_stale_sessions(conn: apsw.Connection, state: StepState) -> None:
    """Make the summaries an earlier run left stale due at once."""
    state.stale.update(dict.fromkeys(sessions.stale_sessions(conn, limit=10_000), 0.0))


def summary_wait(state: StepState) -> float | None:
    """Return the seconds until the next summary is due, or None if none waits."""
    if not state.stale:
        return None
    oldest = min(state.stale.values())
    return max(0.0, oldest + SUMMARY_DEBOUNCE_SECONDS - time.monotonic())


def summarize_due(conn: apsw.Connection, state: StepState, *, force: bool = False) -> int:
    """Renew the summaries of sessions quiet long enough (all that changed, with force); return how many."""
    now = time.monotonic()
    due = [sid for sid, at in state.stale.items() if force or now - at >= SUMMARY_DEBOUNCE_SECONDS]
    for source_id in due:
        state.stale.pop(source_id, None)
        try:
            summarize_session(conn, source_id, now=clock.stamp())
            with write_transaction(conn):
                insight_jobs.reopen_job(conn, source_id, now=clock.stamp())
            state.on_summary(items.get_source(conn, source_id).project)
        except Exception as exc:  # one session's summary must not stop the others: log and carry on
            log.exception("could not summarize session %s", source_id)
            state.stats.last_error = f"{clock.stamp()} summary of {item_id('raw', source_id)}: {exc}"
    return len(due)


def examine_pending(
    conn: apsw.Connection,
    state: StepState,
    *,
    limit: int = 1_000_000,
    stopping: threading.Event | None = None,
) -> int:
    """Examine sources waiting for the insight step; return how many were due."""
    now = clock.stamp()
    with write_transaction(conn):
        state.jobs_after = insight_jobs.open_new_jobs(conn, after=state.jobs_after, now=now)
        due = insight_jobs.due_jobs(conn, now=now, limit=limit)
    for job in due:
        if stopping is not None and stopping.is_set():
            break
        try:
            found = examine_job(
                conn, state.settings, job, client=state.chat(conn), embedder=state.embedder, actor=state.actor
            )
        except Exception as exc:  # one bad source must not stop the others; it is retried later
            log.exception("could not examine %s", item_id("raw", job.source_id))
            state.stats.last_error = f"{clock.stamp()} insights of {item_id('raw', job.source_id)}: {exc}"
            with write_transaction(conn):
                insight_jobs.fail_job(conn, job.source_id, error=str(exc), retry_at=_later(3600), now=clock.stamp())
            continue
        if found is None:
            continue  # the model failed: the job waits for its retry, the reason is in status
        state.stats.examined += 1
        made = ("new", "supplement", "supersedes", "different")
        state.stats.candidates += sum(1 for i in found if i.relation in made)
        if any(i.relation in made for i in found):
            # the next source's candidates are related to these by meaning too: their vectors first, before
            # the passages a backfill queued ahead of them ("as I said, keep it short" on Thursday beside
            # Monday's "replies short, bullets" is a repeat only by its cosine)
            while embed_batch(conn, state, kinds=("insight",)):
                pass
    return len(due)


def embed_batch(conn: apsw.Connection, state: StepState, *, kinds: tuple[str, ...] | None = None) -> bool:
    """Embed one batch of queued items (of ``kinds`` only, when given); return whether more may wait.

    A model that fails is dropped (keywords still answer), unless the failure
    was a full disk: then the batch is tried again when there is room.
    """
    if state.embedder is None:
        return False
    try:
        return _embed_one_batch(conn, state, state.embedder, kinds=kinds)
    except Exception as exc:  # a failing model must not stop ingest: keywords still answer
        log.exception("embedding failed")
        state.stats.last_error = f"{clock.stamp()} embedding: {exc}"
        state.stats.note_failure("embedding", exc)
        if disk_full_error(exc) is None:  # no room is no fault of the model: retried when space returns
            state.embedder = None
        return False


def switch_embedder(conn: apsw.Connection, state: StepState, embedder: Embedder | None) -> None:
    """Embed with another model from now on; keep the one whose vectors answer, for queries, until the new
    model's vectors are complete (``previous_embedder``; embed_batch lets it go then)."""
    active = vectors.active_model(conn)
    answering = for_model(active.key, (state.embedder, state.previous_embedder)) if active is not None else None
    # back to the model whose vectors answer: the new instance embeds its queries itself
    same = answering is None or (embedder is not None and embedder.identity.key == answering.identity.key)
    state.previous_embedder = None if same else answering
    state.embedder, state.model_key = embedder, None


def embed_pending(conn: apsw.Connection, state: StepState) -> int:
    """Embed everything queued; return the batches done."""
    batches = 0
    while embed_batch(conn, state):
        batches += 1
    return batches


def _embed_one_batch(
    conn: apsw.Connection, state: StepState, embedder: Embedder, *, kinds: tuple[str, ...] | None = None
) -> bool:
    identity = embedder.identity
    if state.model_key is None:
        with write_transaction(conn):
            vectors.register_model(conn, identity.key, identity.name, identity.dimension, now=clock.stamp())
        state.model_key = identity.key
    key = state.model_key
    with write_transaction(conn):
        entries = vectors.pending(conn, key, limit=state.settings.embedding.batch_size, kinds=kinds)
        if not entries:
            if kinds is None and vectors.promote_if_built(conn, key):
                state.previous_embedder = None  # the new vectors answer now: the old model can go
            return False
        private = [e for e in entries if not state.may_embed(e[3])]
        vectors.drop_from_queue(conn, key, private)  # private text stays on this machine: keywords only
    allowed = [e for e in entries if state.may_embed(e[3])]
    if allowed:
        embedded = embedder.embed_passages([text for _, _, text, _ in allowed])
        with write_transaction(conn):
            vectors.store_vectors(conn, key, allowed, embedded)
        state.stats.embedded += len(allowed)
    return True


def _count(stats: WorkerStats, outcome: Outcome) -> None:
    stats.by_status[outcome.status] = stats.by_status.get(outcome.status, 0) + 1
    if outcome.status == "added":
        stats.added += 1
        stats.last_ingest_at = clock.stamp()
    elif outcome.status == "duplicate":
        stats.duplicates += 1
        stats.last_ingest_at = clock.stamp()
    elif outcome.status == "failed":
        stats.failed += 1


def _later(seconds: float) -> str:
    return (clock.now() + timedelta(seconds=seconds)).isoformat(timespec="seconds")
