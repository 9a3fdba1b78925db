"""The one writer: a thread that drains the work queue through the pipeline."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import apsw

from incremind_daemon.config import ModelSettings, Settings
from incremind_daemon.pipeline.agent_cli import make_agent_client
from incremind_daemon.pipeline.chat import ChatModel
from incremind_daemon.pipeline.ingest import ingest_file
from incremind_daemon.pipeline.insight_model import examine_job, make_chat_client
from incremind_daemon.pipeline.insights import save_memory
from incremind_daemon.pipeline.redact_stored import redact_stored
from incremind_daemon.pipeline.sessions import summarize_session, take_session
from incremind_daemon.pipeline.work import Extractor, Outcome, SessionReader, TailSession, WorkItem
from incremind_daemon.store import clock, insight_jobs, items, sessions, vectors
from incremind_daemon.store.db import connect, write_transaction
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.records import SaveRequest, SaveResult, item_id, row_number

log = logging.getLogger(__name__)

QUEUE_LIMIT = 1_000  # back-pressure: producers wait rather than hold a backlog in memory
SUMMARY_DEBOUNCE_SECONDS = 3.0  # a session's summary is renewed once it has been quiet this long
IDLE_WAKE = 60.0  # seconds an idle worker sleeps before looking for due retries
INSIGHT_BATCH = 8  # sources examined for increments per idle turn, so new work never waits long
_STOP = object()
_WAKE = object()  # something waits in the urgent lane
T = TypeVar("T")


@dataclass(slots=True)
class WorkerStats:
    """Counters the daemon publishes in status.json (read under the worker's lock)."""

    added: int = 0
    duplicates: int = 0
    failed: int = 0
    last_ingest_at: str | None = None
    messages: int = 0
    last_message_at: str | None = None
    embedded: int = 0
    examined: int = 0
    candidates: int = 0
    last_error: str | None = None
    busy_with: str | None = None
    by_status: dict[str, int] = field(default_factory=dict)
    disk_full_since: str | None = None  # a write found no space then, and none has succeeded since
    disk_full: str | None = None  # what hit it: "<item or step>: <error>"

    def note_failure(self, part: str, exc: BaseException) -> None:
        """Remember a failure that was a full disk (until a write succeeds); other errors are ignored here."""
        full = disk_full_error(exc)
        if full is not None:
            self.disk_full_since = self.disk_full_since or clock.stamp()
            self.disk_full = f"{part}: {full}"

    def note_written(self) -> None:
        """A write succeeded: there is room again."""
        self.disk_full_since = self.disk_full = None


def disk_full_error(exc: BaseException) -> BaseException | None:
    """Return the error in exc's chain that means no space (or quota) was left, if any.

    A rollback that fails after SQLite already rolled back hides SQLITE_FULL
    behind "no transaction is active", so the causes are looked through too.
    """
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return None
        if isinstance(seen, apsw.FullError) or (
            isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT)
        ):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


class Worker:
    """Own the write connection and process work items one at a time."""

    def __init__(
        self,
        settings: Settings,
        extract: Extractor,
        *,
        read_session: SessionReader | None = None,
        embedder: Embedder | None = None,
        may_embed: Callable[[str], bool] = lambda _project: True,
        actor: str = "daemon",
        use_model: bool = True,
        on_summary: Callable[[str], None] = lambda _project: None,
        on_idle: Callable[[], None] = lambda: None,
    ) -> None:
        self._settings = settings
        self._on_summary = on_summary  # told a session's project after its summary is renewed
        self._on_idle = on_idle  # called on the writer thread when a run of work is done and none is due
        self._extract = extract
        self._read_session = read_session
        self._embedder = embedder
        self._may_embed = may_embed
        self._model_key: str | None = None  # the embedder's vector table, once registered
        self._actor = actor
        self._stale: dict[int, float] = {}  # session source id -> monotonic time of its last change
        self._jobs_after = 0  # sources up to this id have an insight job
        self._use_model = use_model
        self._may_use_model = use_model
        self._chat_client: ChatModel | None = None  # built on the writer's connection (receipts)
        self._next_model: ModelSettings | None = None  # a changed model choice, taken up by the writer thread
        self._queue: queue.Queue[tuple[WorkItem, Future[Outcome]] | object] = queue.Queue(QUEUE_LIMIT)
        # saves and calls of people and agents, who wait for them: served before the next queued file
        self._urgent: queue.SimpleQueue[tuple[_Save | _Call | _Switch, Future[Any]]] = queue.SimpleQueue()
        self._pending: dict[Path, Future[Outcome]] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: apsw.Connection | None = None
        self.stats = WorkerStats()

    def submit(self, item: WorkItem) -> Future[Outcome]:
        """Queue an item; a path already waiting shares the waiting item's future."""
        with self._lock:
            waiting = self._pending.get(item.path)
            if waiting is not None:
                return waiting
            future: Future[Outcome] = Future()
            self._pending[item.path] = future
        self._queue.put((item, future))
        return future

    def save(self, request: SaveRequest) -> Future[SaveResult]:
        """Run a save on the writer thread (the daemon's one writer); the future holds the result."""
        future: Future[SaveResult] = Future()
        self._put_urgent(_Save(request), future)
        return future

    def call(self, write: Callable[[apsw.Connection], T]) -> Future[T]:
        """Run ``write(conn)`` on the writer thread; the future holds what it returns, or its error.

        This is how the daemon's other threads (a review from the command line, a
        search counting what it used, the tool-call log) write without a second
        write connection. ``write`` opens its own transaction, as the store's
        functions do.
        """
        future: Future[T] = Future()
        self._put_urgent(_Call(write), future)
        return future

    def _put_urgent(self, entry: _Save | _Call | _Switch, future: Future[Any]) -> None:
        self._urgent.put((entry, future))
        with contextlib.suppress(queue.Full):  # a full queue means a busy writer, which looks here next anyway
            self._queue.put_nowait(_WAKE)

    @property
    def embedder(self) -> Embedder | None:
        """The model embedding now (also answers query embeddings of searches)."""
        return self._embedder

    def switch_embedder(self, embedder: Embedder | None) -> None:
        """Embed with another model from now on (the writer thread swaps it between items).

        The new model's vectors are built beside the old ones, which keep
        answering searches until the new table is complete.
        """
        self._put_urgent(_Switch(embedder), Future())

    def depth(self) -> int:
        """Return how many items wait in the queue."""
        return self._queue.qsize()

    def start(self) -> None:
        """Start the worker thread."""
        self._thread = threading.Thread(target=self._loop, name="incremind-worker", daemon=False)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the item in hand, leave the rest for the next start, and join."""
        self._stopping.set()
        with contextlib.suppress(queue.Full):  # the loop checks the stop event between items
            self._queue.put_nowait(_STOP)
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.error("worker did not stop within %.0f s", timeout)

    def process(self, item: WorkItem) -> Outcome:
        """Process one item now, on the calling thread (for `incremind ingest`)."""
        if self._conn is None:
            self._conn = connect(self._settings.database_path)
        return self._handle(self._conn, item)

    def close(self) -> None:
        """Close a connection opened by process()."""
        self._close_chat()
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def summarize_pending(self, *, force: bool = False) -> int:
        """Renew the summaries of sessions that changed (all of them with force); return how many."""
        if self._conn is None:
            self._conn = connect(self._settings.database_path)
        return self._summarize_due(self._conn, force=force)

    def _loop(self) -> None:
        conn = connect(self._settings.database_path)
        self._stale.update(dict.fromkeys(sessions.stale_sessions(conn, limit=10_000), 0.0))
        try:
            try:
                redact_stored(conn, now=clock.stamp())  # once per store: what earlier versions kept unredacted
            except Exception as exc:  # tried again at the next start; new work must not wait on it
                log.exception("could not redact the text stored by an earlier version")
                self.stats.last_error = f"{clock.stamp()} redact: {exc}"
                self.stats.note_failure("redact", exc)
            background = True  # insight steps and vectors may be due
            worked = False  # since the last time the worker went idle
            while not self._stopping.is_set():
                if self._serve_urgent(conn):
                    background = True
                    continue
                try:
                    # background work runs only when no item waits, a batch at a time; when none is
                    # due either, wake now and then for retries whose time has come
                    wait = self._summary_wait()
                    entry = self._queue.get(timeout=0 if background else min(wait or IDLE_WAKE, IDLE_WAKE))
                except queue.Empty:
                    try:
                        self._summarize_due(conn, force=False)
                        background = self.examine_pending(conn, limit=INSIGHT_BATCH) > 0 or self._embed_batch(conn)
                    except Exception as exc:  # a full disk, say: the one writer must outlive it and retry later
                        log.exception("the insight step failed")
                        self.stats.last_error = f"{clock.stamp()} insights: {exc}"
                        self.stats.note_failure("insights", exc)
                        background = False
                    if background:
                        self.stats.note_written()  # insight or vector rows were committed: there is room
                        worked = True
                    elif worked:
                        worked = False
                        self._on_idle()
                    continue
                if entry is _STOP:
                    break
                if entry is _WAKE:
                    continue
                assert isinstance(entry, tuple)
                item, future = entry
                with self._lock:
                    self._pending.pop(item.path, None)
                if self._stopping.is_set():
                    future.cancel()
                    break
                self._run_one(conn, item, future)
                background = worked = True
        finally:
            self._cancel_waiting()
            self._close_chat()
            conn.close()

    def _serve_urgent(self, conn: apsw.Connection) -> bool:
        """Run one save, call or model switch that waits; return whether there was one."""
        try:
            entry, future = self._urgent.get_nowait()
        except queue.Empty:
            return False
        if isinstance(entry, _Switch):
            self._embedder, self._model_key = entry.embedder, None
            log.info("embedding with %s", entry.embedder.identity.name if entry.embedder else "nothing")
            return True
        if not future.set_running_or_notify_cancel():
            return True
        try:
            if isinstance(entry, _Save):
                future.set_result(save_memory(conn, self._settings, entry.request, embedder=self._embedder))
            else:
                future.set_result(entry.write(conn))
        except Exception as exc:  # handed to the caller (an MCP tool error), never kills the thread
            future.set_exception(exc)
        return True

    def examine_pending(self, conn: apsw.Connection | None = None, *, limit: int = 1_000_000) -> int:
        """Examine sources waiting for the insight step; return how many were examined."""
        if conn is None:
            if self._conn is None:
                self._conn = connect(self._settings.database_path)
            conn = self._conn
        now = clock.stamp()
        with write_transaction(conn):
            self._jobs_after = insight_jobs.open_new_jobs(conn, after=self._jobs_after, now=now)
            due = insight_jobs.due_jobs(conn, now=now, limit=limit)
        for job in due:
            if self._stopping.is_set():
                break
            try:
                found = examine_job(
                    conn, self._settings, job, client=self._chat(conn), embedder=self._embedder, actor=self._actor
                )
            except Exception as exc:  # one bad source must not stop the others; it is retried later
                log.exception("could not examine %s", item_id("raw", job.source_id))
                self.stats.last_error = f"{clock.stamp()} insights of {item_id('raw', job.source_id)}: {exc}"
                with write_transaction(conn):
                    insight_jobs.fail_job(conn, job.source_id, error=str(exc), retry_at=_later(3600), now=clock.stamp())
                continue
            if found is None:
                continue  # the model failed: the job waits for its retry, the reason is in status
            self.stats.examined += 1
            made = ("new", "supplement", "supersedes", "different")
            self.stats.candidates += sum(1 for i in found if i.relation in made)
        return len(due)

    def switch_model(self, model: ModelSettings) -> None:
        """Find candidates with these model settings from the next source on (e.g. after `model use-agent`)."""
        with self._lock:
            self._next_model = model

    def _chat(self, conn: apsw.Connection) -> ChatModel | None:
        with self._lock:
            changed, self._next_model = self._next_model, None
        if changed is not None:
            self._close_chat()
            self._settings = self._settings.model_copy(update={"model": changed})
            self._use_model = self._may_use_model
        if self._chat_client is None and self._use_model:
            # a chosen agent comes first; else the chat endpoint, if one is configured
            self._chat_client = make_agent_client(self._settings, conn) or make_chat_client(self._settings, conn)
            self._use_model = self._chat_client is not None
        return self._chat_client

    def _close_chat(self) -> None:
        if self._chat_client is not None:
            self._chat_client.close()
            self._chat_client = None

    def _run_one(self, conn: apsw.Connection, item: WorkItem, future: Future[Outcome]) -> None:
        if not future.set_running_or_notify_cancel():
            return
        self.stats.busy_with = str(item.path)
        try:
            outcome = self._handle(conn, item)
        except Exception as exc:  # the thread's top loop: log, report, carry on
            log.exception("could not process %s", item.path)
            self.stats.last_error = f"{clock.stamp()} {item.path}: {exc}"
            self.stats.note_failure(str(item.path), exc)
            future.set_exception(exc)
        else:
            if outcome.status in ("added", "duplicate", "failed"):  # each committed rows
                self.stats.note_written()
            future.set_result(outcome)
        finally:
            self.stats.busy_with = None

    def _handle(self, conn: apsw.Connection, item: WorkItem) -> Outcome:
        if isinstance(item, TailSession):
            return self._tail(conn, item)
        if item.from_inbox and not os.path.lexists(item.path):  # a dangling link is failed, not gone
            return Outcome("gone", str(item.path), item.project, "the file left the inbox")
        outcome = ingest_file(conn, item, settings=self._settings, extract=self._extract, actor=self._actor)
        self._count(outcome)
        return outcome

    def _tail(self, conn: apsw.Connection, item: TailSession) -> Outcome:
        if self._read_session is None:
            raise RuntimeError("this worker was built without a session reader")
        messages = 0
        while True:
            outcome, more = take_session(
                conn, item, read=self._read_session, default_project=self._settings.default_project
            )
            messages += outcome.passages
            if outcome.source_id is not None and outcome.status == "added":
                self._stale[row_number(outcome.source_id)] = time.monotonic()
                self.stats.messages += outcome.passages
                self.stats.last_message_at = clock.stamp()
            if not more or self._stopping.is_set():
                return replace(outcome, passages=messages)

    def embed_pending(self) -> int:
        """Embed everything queued, on the calling thread (for the CLI); return batches done."""
        if self._conn is None:
            self._conn = connect(self._settings.database_path)
        batches = 0
        while self._embed_batch(self._conn):
            batches += 1
        return batches

    def _embed_batch(self, conn: apsw.Connection) -> bool:
        """Embed one batch of queued items; return whether more may wait."""
        if self._embedder is None:
            return False
        try:
            return self._embed_one_batch(conn, self._embedder)
        except Exception as exc:  # a failing model must not stop ingest: keywords still answer
            log.exception("embedding failed")
            self.stats.last_error = f"{clock.stamp()} embedding: {exc}"
            self.stats.note_failure("embedding", exc)
            if disk_full_error(exc) is None:  # no room is no fault of the model: retried when space returns
                self._embedder = None
            return False

    def _embed_one_batch(self, conn: apsw.Connection, embedder: Embedder) -> bool:
        identity = embedder.identity
        if self._model_key is None:
            with write_transaction(conn):
                vectors.register_model(conn, identity.key, identity.name, identity.dimension, now=clock.stamp())
            self._model_key = identity.key
        key = self._model_key
        with write_transaction(conn):
            entries = vectors.pending(conn, key, limit=self._settings.embedding.batch_size)
            if not entries:
                vectors.promote_if_built(conn, key)
                return False
            private = [e for e in entries if not self._may_embed(e[3])]
            vectors.drop_from_queue(conn, key, private)  # private text stays on this machine: keywords only
        allowed = [e for e in entries if self._may_embed(e[3])]
        if allowed:
            embedded = embedder.embed_passages([text for _, _, text, _ in allowed])
            with write_transaction(conn):
                vectors.store_vectors(conn, key, allowed, embedded)
            self.stats.embedded += len(allowed)
        return True

    def _summary_wait(self) -> float | None:
        if not self._stale:
            return None
        oldest = min(self._stale.values())
        return max(0.0, oldest + SUMMARY_DEBOUNCE_SECONDS - time.monotonic())

    def _summarize_due(self, conn: apsw.Connection, *, force: bool) -> int:
        now = time.monotonic()
        due = [sid for sid, at in self._stale.items() if force or now - at >= SUMMARY_DEBOUNCE_SECONDS]
        for source_id in due:
            self._stale.pop(source_id, None)
            try:
                summarize_session(conn, source_id, now=clock.stamp())
                with write_transaction(conn):
                    insight_jobs.reopen_job(conn, source_id, now=clock.stamp())
                self._on_summary(items.get_source(conn, source_id).project)
            except Exception as exc:  # the thread's top loop for summaries: log and carry on
                log.exception("could not summarize session %s", source_id)
                self.stats.last_error = f"{clock.stamp()} summary of {item_id('raw', source_id)}: {exc}"
        return len(due)

    def _count(self, outcome: Outcome) -> None:
        stats = self.stats
        stats.by_status[outcome.status] = stats.by_status.get(outcome.status, 0) + 1
        if outcome.status == "added":
            stats.added += 1
            stats.last_ingest_at = clock.stamp()
        elif outcome.status == "duplicate":
            stats.duplicates += 1
            stats.last_ingest_at = clock.stamp()
        elif outcome.status == "failed":
            stats.failed += 1

    def _cancel_waiting(self) -> None:
        while True:
            try:
                self._urgent.get_nowait()[1].cancel()
            except queue.Empty:
                break
        while True:
            try:
                entry = self._queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(entry, tuple):
                entry[1].cancel()
        with self._lock:
            self._pending.clear()


@dataclass(frozen=True, slots=True)
class _Switch:
    """A change of embedding model, applied on the writer thread."""

    embedder: Embedder | None


@dataclass(frozen=True, slots=True)
class _Save:
    """A save queued for the writer thread."""

    request: SaveRequest


@dataclass(frozen=True, slots=True)
class _Call:
    """A write of another thread, run on the writer thread."""

    write: Callable[[apsw.Connection], Any]


def _later(seconds: float) -> str:
    return (clock.now() + timedelta(seconds=seconds)).isoformat(timespec="seconds")
