"""The one writer: a thread that drains the work queue through the pipeline's steps."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import apsw

from incremind_daemon.config import ModelSettings, Settings
from incremind_daemon.pipeline.insights import save_memory
from incremind_daemon.pipeline.redact_stored import redact_stored
from incremind_daemon.pipeline.stats import WorkerStats
from incremind_daemon.pipeline.steps import (
    StepState,
    embed_batch,
    examine_pending,
    ingest_item,
    note_stale_sessions,
    summarize_due,
    summary_wait,
    switch_embedder,
)
from incremind_daemon.pipeline.work import Extractor, Outcome, SessionReader, WorkItem
from incremind_daemon.store import clock
from incremind_daemon.store.db import connect
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.records import SaveRequest, SaveResult

log = logging.getLogger(__name__)

QUEUE_LIMIT = 1_000  # back-pressure: producers wait rather than hold a backlog in memory
IDLE_WAKE = 60.0  # seconds an idle worker sleeps before looking for due retries
INSIGHT_BATCH = 8  # sources examined for increments per idle turn, so new work never waits long
_STOP = object()
_WAKE = object()  # something waits in the urgent lane
T = TypeVar("T")


class Worker:
    """Own the write connection and run the pipeline's steps, one item at a time, on one thread."""

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
        self._state = StepState(
            settings,
            extract,
            read_session=read_session,
            embedder=embedder,
            may_embed=may_embed,
            actor=actor,
            use_model=use_model,
            on_summary=on_summary,
        )
        self._on_idle = on_idle  # called on the writer thread when a run of work is done and none is due
        self._queue: queue.Queue[tuple[WorkItem, Future[Outcome]] | object] = queue.Queue(QUEUE_LIMIT)
        # saves and calls of people and agents, who wait for them: served before the next queued file
        self._urgent: queue.SimpleQueue[tuple[_Save | _Call | _Switch, Future[Any]]] = queue.SimpleQueue()
        self._pending: dict[Path, Future[Outcome]] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.stats: WorkerStats = self._state.stats

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

    def examine(self) -> Future[int]:
        """Examine every source waiting for the insight step, on the writer thread; the future holds how many."""
        return self.call(lambda conn: examine_pending(conn, self._state, stopping=self._stopping))

    def _put_urgent(self, entry: _Save | _Call | _Switch, future: Future[Any]) -> None:
        self._urgent.put((entry, future))
        with contextlib.suppress(queue.Full):  # a full queue means a busy writer, which looks here next anyway
            self._queue.put_nowait(_WAKE)

    @property
    def embedder(self) -> Embedder | None:
        """The model embedding now (also answers query embeddings of searches)."""
        return self._state.embedder

    @property
    def previous_embedder(self) -> Embedder | None:
        """The model switched from, while its vectors still answer searches; else None."""
        return self._state.previous_embedder

    def switch_embedder(self, embedder: Embedder | None) -> None:
        """Embed with another model from now on (the writer thread swaps it between items).

        The new model's vectors are built beside the old ones, which keep
        answering searches (``previous_embedder`` embeds their queries) until
        the new table is complete.
        """
        self._put_urgent(_Switch(embedder), Future())

    def switch_model(self, model: ModelSettings) -> None:
        """Find candidates with these model settings from the next source on (e.g. after `model use-agent`)."""
        self._state.switch_model(model)

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

    def _loop(self) -> None:
        state = self._state
        conn = connect(state.settings.database_path)
        try:
            try:
                redact_stored(conn, now=clock.stamp())  # once per rules version: what earlier rules let through
            except Exception as exc:  # tried again at the next start; new work must not wait on it
                log.exception("could not redact the text stored under earlier rules")
                self.stats.last_error = f"{clock.stamp()} redact: {exc}"
                self.stats.note_failure("redact", exc)
            # after the pass, which marks the sessions it redacted for a new summary
            note_stale_sessions(conn, state)
            background = True  # insight steps and vectors may be due
            worked = False  # since the last time the worker went idle
            while not self._stopping.is_set():
                if self._serve_urgent(conn):
                    background = True
                    continue
                try:
                    # background work runs only when no item waits, a batch at a time; when none is
                    # due either, wake now and then for retries whose time has come
                    wait = summary_wait(state)
                    entry = self._queue.get(timeout=0 if background else min(wait or IDLE_WAKE, IDLE_WAKE))
                except queue.Empty:
                    try:
                        summarize_due(conn, state)
                        examined = examine_pending(conn, state, limit=INSIGHT_BATCH, stopping=self._stopping)
                        background = examined > 0 or embed_batch(conn, state)
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
            state.close()
            conn.close()

    def _serve_urgent(self, conn: apsw.Connection) -> bool:
        """Run one save, call or model switch that waits; return whether there was one."""
        try:
            entry, future = self._urgent.get_nowait()
        except queue.Empty:
            return False
        state = self._state
        if isinstance(entry, _Switch):
            switch_embedder(conn, state, entry.embedder)
            log.info("embedding with %s", entry.embedder.identity.name if entry.embedder else "nothing")
            return True
        if not future.set_running_or_notify_cancel():
            return True
        try:
            if isinstance(entry, _Save):
                future.set_result(save_memory(conn, state.settings, entry.request, embedder=state.embedder))
            else:
                future.set_result(entry.write(conn))
        except Exception as exc:  # handed to the caller (an MCP tool error), never kills the thread
            future.set_exception(exc)
        return True

    def _run_one(self, conn: apsw.Connection, item: WorkItem, future: Future[Outcome]) -> None:
        if not future.set_running_or_notify_cancel():
            return
        self.stats.busy_with = str(item.path)
        try:
            outcome = ingest_item(conn, self._state, item, stopping=self._stopping)
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
