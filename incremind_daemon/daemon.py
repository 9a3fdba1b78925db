"""Composition root: build the store, pipeline, sources and serve parts; own threads and shutdown."""

from __future__ import annotations

import ctypes
import ctypes.util
import fcntl
import functools
import gc
import logging
import os
import signal
import threading
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import IO

from watchdog.observers.api import BaseObserver

from incremind_daemon import __version__
from incremind_daemon.cli.runtime import Runtime
from incremind_daemon.cli.served import serve_command
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.embedding.configured import make_embedder, may_embed_project
from incremind_daemon.errors import ConfigError, IncremindError
from incremind_daemon.locate import config_path, socket_path
from incremind_daemon.ops.doctor import daemon_checks
from incremind_daemon.pipeline.redact import redact
from incremind_daemon.pipeline.worker import Worker
from incremind_daemon.private import make_home_private, make_private_folders, open_private
from incremind_daemon.serve.context.writer import ContextWriter, render_recent_context
from incremind_daemon.serve.mcp_http import McpHttpServer
from incremind_daemon.serve.mcp_tools import MemoryBackend, apply_review
from incremind_daemon.serve.status import Heartbeat, lock_path, write_heartbeat
from incremind_daemon.sources.extract.isolated import IsolatedExtractor
from incremind_daemon.sources.inbox import InboxFeeder
from incremind_daemon.sources.sessions.discover import watch_roots
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader
from incremind_daemon.sources.sessions.watch import SessionWatcher
from incremind_daemon.sources.watcher import watch_inbox
from incremind_daemon.store import clock, report, sessions
from incremind_daemon.store.bitindex import keep_bit_indexes
from incremind_daemon.store.db import connect
from incremind_daemon.store.records import Insight
from incremind_daemon.store.tokenizer import ensure_segmenter

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 5.0
SAVE_TIMEOUT_SECONDS = 60.0  # an MCP save waits this long for the writer thread
CHANGE_POLL_SECONDS = 2.0  # how often the store is checked for changes the context blocks show
# sessions active in the hour before the first start are taken in; older history waits for `incremind backfill`
FIRST_RUN_GRACE_SECONDS = 3600.0


def prepare_home(settings: Settings) -> None:
    """Create the home's folders and make everything in the home private.

    A home made by an earlier version, or under a loose umask, holds 0644
    files and 0755 folders; they lose the group's and others' access here, on
    every start, before anything in them is opened.
    """
    make_private_folders(settings.home_dir)
    narrowed = make_home_private(settings.home_dir)
    if narrowed:
        log.info("took the group's and others' access off %d paths in %s", narrowed, settings.home_dir)
    for folder in (settings.inbox_dir, settings.raw_dir):
        make_private_folders(folder)
    # made here because acquire_lock's open() would make it 0644 less the umask
    os.close(open_private(lock_path(settings), os.O_RDWR))


def acquire_lock(settings: Settings) -> IO[str]:
    """Take this home's daemon lock, or say which pid holds it.

    The lock is an flock, released by the kernel when the holder dies, so a
    crashed daemon's lock is taken over without any clean-up.
    """
    path = lock_path(settings)
    handle = open(path, "a+")  # noqa: SIM115 - held for the daemon's lifetime
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        raise IncremindError(
            f"a daemon is already running for {settings.home_dir} (pid {holder}); stop it first or use another --home"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


class Daemon:
    """The running daemon: worker, inbox feeder, watcher and heartbeat."""

    def __init__(self, settings: Settings, *, config_file: Path | None = None) -> None:
        self.settings = settings
        self._config_file = config_file or config_path(None, settings.home_dir)
        self._config_stamp = _stamp(self._config_file)
        # PDF and DOCX are parsed in a child process with a time and memory limit
        self.extractor = IsolatedExtractor(settings.inbox.extract_timeout_seconds)
        self.worker = Worker(
            settings,
            self.extractor,
            read_session=TranscriptReader(ReadRules.from_settings(settings)),
            embedder=make_embedder(settings),
            may_embed=lambda project: may_embed_project(self.settings, project),
            on_summary=self._summary_renewed,
            on_idle=release_free_memory,
        )
        self.feeder = InboxFeeder(
            settings.inbox_dir,
            self.worker.submit,
            default_project=settings.default_project,
            settle_seconds=settings.inbox.settle_seconds,
            rescan_seconds=settings.inbox.rescan_seconds,
        )
        self.stopping = threading.Event()
        self._stopped = False  # stop() has run: a failed start stops, and run() stops again in its finally
        self.started_at = clock.stamp()
        self._observer: BaseObserver | None = None
        self._sessions: SessionWatcher | None = None
        self._lock: IO[str] | None = None
        self._heart: threading.Thread | None = None
        self.context = (
            ContextWriter(
                settings,
                scrub=redact,
                write=lambda change: self.worker.call(change).result(timeout=SAVE_TIMEOUT_SECONDS),
            )
            if settings.context.enabled
            else None
        )
        self._context_thread: threading.Thread | None = None
        self.mcp_http: McpHttpServer | None = None

    def start(self) -> None:
        """Take the lock, open the store, and start every thread."""
        prepare_home(self.settings)
        self._lock = acquire_lock(self.settings)
        try:
            since = self._first_run() - FIRST_RUN_GRACE_SECONDS
            keep_bit_indexes()  # agents and thin clients search many times: scan sign bits in memory
            # the sockets first, while nothing else runs: a worker busy from the start (a back-log, a
            # first pass over an upgraded store) must not keep the server from starting in time
            self._start_mcp()
            self.worker.start()
            self.feeder.start()
            self._observer = watch_inbox(self.settings.inbox_dir, self.feeder)
            self._sessions = SessionWatcher(
                watch_roots(self.settings),
                self.worker.submit,
                rescan_seconds=self.settings.sessions.rescan_seconds,
                since=since,
            )
            self._sessions.start()
        except BaseException:
            self.stop()
            raise
        self._heart = threading.Thread(target=self._beat, name="incremind-heartbeat")
        self._heart.start()
        if self.context is not None:
            self.context.mark_dirty(None)  # the blocks are brought up to date at start
            self._context_thread = threading.Thread(target=self._keep_context, name="incremind-context")
            self._context_thread.start()
        warm = threading.Thread(target=self._warm_up, name="incremind-warm-up", daemon=True)
        warm.start()
        log.info("incremind %s running for %s (pid %d)", __version__, self.settings.home_dir, os.getpid())

    def _warm_up(self) -> None:
        """Load jieba's dictionary and the embedding model now, after start: the first search should not wait."""
        embedder = self.worker.embedder
        try:
            ensure_segmenter(keep_counts=True)  # and the word counts a command without the daemon reads
            if embedder is not None:
                embedder.embed_query("warm up")
        except Exception:  # an optimisation; the first query loads it, or reports why it cannot
            log.warning("could not load the segmenter or the model ahead of the first search", exc_info=True)

    def _first_run(self) -> float:
        """Migrate the store and return when the daemon first ran for this home (epoch seconds)."""
        conn = connect(self.settings.database_path)
        try:
            with conn:
                stored = sessions.get_meta(conn, "first_run_at")
                first = stored or clock.stamp()
                if stored is None:
                    sessions.set_meta(conn, "first_run_at", first)
        finally:
            conn.close()
        return datetime.fromisoformat(first).timestamp()

    def stop(self) -> None:
        """Stop watching, finish the item in hand, and release the lock (once, however often it is called)."""
        self.stopping.set()
        if self._stopped:
            return
        self._stopped = True
        if self._sessions is not None:
            self._sessions.stop()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(5)
        if self.mcp_http is not None:
            self.mcp_http.stop()
            self.mcp_http = None
        self.feeder.stop()
        self.worker.stop()
        self.extractor.close()
        if self.context is not None:
            self.context.close()
        if self._context_thread is not None:
            self._context_thread.join(30)
        if self._heart is not None:
            self._heart.join(5)
        # logged before the lock goes: whoever waits for the lock to come free (stop) then finds this line
        log.info("incremind stopped")
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def heartbeat(self) -> Heartbeat:
        """Return the figures to publish now."""
        stats = self.worker.stats
        return Heartbeat(
            pid=os.getpid(),
            started_at=self.started_at,
            version=__version__,
            heartbeat_at=clock.stamp(),
            queue_depth=self.worker.depth(),
            busy_with=stats.busy_with,
            inbox_waiting=self.feeder.waiting(),
            added=stats.added,
            duplicates=stats.duplicates,
            failed=stats.failed,
            last_error=stats.last_error,
            messages=stats.messages,
            last_message_at=stats.last_message_at,
            embedded=stats.embedded,
            mcp_url=self.mcp_http.url if self.mcp_http is not None and self.mcp_http.serves_tcp else None,
            disk_full_since=stats.disk_full_since,
            disk_full=stats.disk_full,
        )

    def reload_if_changed(self) -> None:
        """Apply a changed embedding model (`incremind model use`) or insight model (`model use-agent`, `model.*`).

        Both take effect without a restart; other settings take effect at the
        next start. A broken file is reported and the running settings are kept.
        """
        stamp = _stamp(self._config_file)
        if stamp == self._config_stamp:
            return
        self._config_stamp = stamp
        try:
            fresh = load_settings(self._config_file, home=self.settings.home_dir)
        except ConfigError as exc:
            log.error("config changed but cannot be read, keeping the running settings: %s", exc)
            self.worker.stats.last_error = f"{clock.stamp()} config: {exc}"
            return
        if fresh.model != self.settings.model:
            self.settings = self.settings.model_copy(update={"model": fresh.model})
            self.worker.switch_model(fresh.model)
            log.info("candidate insights now come from %s", fresh.model.insight_path)
        if fresh.embedding == self.settings.embedding:
            return
        try:
            embedder = make_embedder(fresh)
        except IncremindError as exc:
            log.error("cannot switch the embedding model: %s", exc)
            self.worker.stats.last_error = f"{clock.stamp()} embedding: {exc}"
            return
        self.settings = self.settings.model_copy(update={"embedding": fresh.embedding})
        self.worker.switch_embedder(embedder)
        log.info("embedding model switched to %s", fresh.embedding.model or fresh.embedding.backend)

    def _start_mcp(self) -> None:
        """Serve the MCP tools and the thin client's commands; a busy port is reported, and the rest runs on.

        The home's Unix socket always answers (stdio relays and commands); TCP
        only with ``mcp.enabled``.
        """
        runtime = Runtime(
            call=self.worker.call,
            submit=self.worker.submit,
            examine=self.worker.examine,
            embedder=lambda: self.worker.embedder,
            previous_embedder=lambda: self.worker.previous_embedder,
            timeout=SAVE_TIMEOUT_SECONDS,
        )
        server = McpHttpServer(
            self.settings,
            self._memory_backend(),
            local_socket=socket_path(self.settings.home_dir),
            commands=lambda request: serve_command(request, self.settings, runtime),
            checks=lambda: [asdict(check) for check in daemon_checks(self.settings, self.worker.embedder)],
        )
        try:
            server.start()
        except ConfigError:
            raise  # a non-loopback bind without a token: refuse to start at all
        except IncremindError as exc:
            log.error("MCP and the command socket are off: %s", exc)
            self.worker.stats.last_error = f"{clock.stamp()} mcp: {exc}"
            return
        if server.tcp_error is not None:
            self.worker.stats.last_error = f"{clock.stamp()} mcp: {server.tcp_error}"
        self.mcp_http = server
        if server.serves_tcp:
            log.info("MCP tools at %s", server.url)

    def _memory_backend(self) -> MemoryBackend:
        """What the MCP tools use: reads on their own connections, every write on the worker's thread."""

        worker = self.worker

        def review(insight_id: int, verb: str, actor: str) -> Insight:
            change = functools.partial(apply_review, insight_id=insight_id, verb=verb, actor=actor)
            return worker.call(change).result(timeout=SAVE_TIMEOUT_SECONDS)

        return MemoryBackend(
            open_conn=lambda: connect(self.settings.database_path),
            save=lambda request: worker.save(request).result(timeout=SAVE_TIMEOUT_SECONDS),
            recent_context=functools.partial(render_recent_context, self.settings, scrub=redact),
            embedder=lambda: worker.embedder,
            previous_embedder=lambda: worker.previous_embedder,
            review=review,
            write=worker.call,
        )

    def _summary_renewed(self, project: str) -> None:
        if self.context is not None:
            self.context.mark_dirty(project)

    def _keep_context(self) -> None:
        """Rewrite the context blocks a change affects, coalesced (own connection and thread).

        Changes come from this process and from others (`incremind confirm`
        in a shell, a stdio MCP save). Every ingest, save, candidate and
        review appends to the audit log, whose newest id is polled (an O(1)
        look-up); a renewed session summary is told by the worker directly.
        """
        assert self.context is not None
        conn = connect(self.settings.database_path)
        unread = object()
        seen: object = unread
        try:
            while not self.stopping.is_set():
                mark = report.audit_mark(conn)
                if mark != seen:
                    if seen is not unread:
                        self.context.mark_dirty(None)
                    seen = mark
                if self.context.wait_due(CHANGE_POLL_SECONDS) and not self.stopping.is_set():
                    try:
                        self.context.regenerate_due(conn)
                    except Exception as exc:  # the thread's top loop: a bad pass must not end the writer
                        log.exception("could not write the context blocks")
                        self.worker.stats.last_error = f"{clock.stamp()} context: {exc}"
                        self.worker.stats.note_failure("context", exc)
        finally:
            conn.close()

    def _beat(self) -> None:
        while True:
            try:
                write_heartbeat(self.settings.status_path, self.heartbeat())
            except Exception as exc:  # the heartbeat must outlive a full disk or an odd file name
                log.warning("could not write %s: %s", self.settings.status_path, exc)
            self.reload_if_changed()
            if self.stopping.wait(HEARTBEAT_SECONDS):
                return


def release_free_memory() -> None:
    """Hand memory freed by a run of work back to the system.

    glibc keeps freed heap in per-thread arenas; after a backlog the daemon
    would otherwise stay tens of megabytes above its idle size for good.
    Elsewhere (macOS, musl) there is no malloc_trim, and nothing is done.
    """
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> ctypes._NamedFuncPointer | None:
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        return None


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def run(settings: Settings, *, config_file: Path | None = None) -> int:
    """Run the daemon in the foreground until SIGTERM or Ctrl-C; return the exit code."""
    daemon = Daemon(settings, config_file=config_file)

    def request_stop(signum: int, _frame: FrameType | None) -> None:
        log.info("received %s, stopping", signal.Signals(signum).name)
        daemon.stopping.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        daemon.start()
        daemon.stopping.wait()
    finally:
        daemon.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
