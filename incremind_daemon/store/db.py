"""Open the memory database with the settings every connection needs."""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import apsw
import apsw.bestpractice

from incremind_daemon.errors import IncremindError
from incremind_daemon.private import make_private, make_private_folders, open_private
from incremind_daemon.store.schema import migrate
from incremind_daemon.store.tokenizer import register_tokenizer

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5_000
# A thread that writes back to back (a backlog) leaves the write lock free for SHARE_PAUSE_SECONDS
# after every SHARE_AFTER_SECONDS of it: SQLite's busy handler polls (every 100 ms at most), it does
# not queue, so a writer that commits and begins again within microseconds would keep the others
# (the context writer, `incremind confirm` in a shell, a stdio MCP save) out past their busy timeout.
SHARE_AFTER_SECONDS = 1.5
SHARE_PAUSE_SECONDS = 0.15
_streak = threading.local()  # per thread: when its run of back-to-back writes began, when its last ended


def connect(path: Path, *, readonly: bool = False) -> apsw.Connection:
    """Open the memory database; a writable connection also migrates the schema.

    Every connection registers the FTS5 tokenizer and loads sqlite-vec, since
    the full-text tables cannot be read or written without them.
    """
    flags = apsw.SQLITE_OPEN_READONLY if readonly else apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
    try:
        if not readonly:
            _keep_database_private(path)
        conn = apsw.Connection(str(path), flags=flags)
    except (apsw.CantOpenError, OSError) as exc:
        raise IncremindError(f"cannot open the memory database {path}: {exc}") from exc
    # readers (search, status, context writer) wait for the writer's short transactions
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    conn.pragma("foreign_keys", "ON")
    if not readonly:
        conn.pragma("journal_mode", "wal")
        conn.pragma("synchronous", "NORMAL")
    load_vectors(conn)
    register_tokenizer(conn)
    if not readonly:
        migrate(conn)
    return conn


def _keep_database_private(path: Path) -> None:
    """Make the database, its WAL and SHM 0600, creating an empty one if missing.

    SQLite makes a new database file 0644 less the umask, but gives a new -wal
    and -shm the database file's own mode (past the umask), so a 0600 database
    keeps its WAL and SHM 0600. The ones a crash left behind keep their mode,
    so they are narrowed here as well.
    """
    make_private_folders(path.parent)
    if not path.exists():
        os.close(open_private(path, os.O_RDWR))  # an empty file is a new database to SQLite
    for part in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        make_private(part)


def copy_database(source: Path, copy: Path) -> None:
    """Copy a live database with SQLite's backup API, as one consistent moment.

    The whole copy is one step, so it runs in one read transaction: in WAL
    mode the daemon keeps writing meanwhile, and nothing it commits later is
    half in the copy. The copy is switched to a rollback journal so it is one
    self-contained file.
    """
    src = connect(source, readonly=True)
    try:
        # SQLite would make the copy 0644 less the umask; its journal takes the copy's mode
        os.close(open_private(copy, os.O_RDWR))
        dest = apsw.Connection(str(copy))
        try:
            with dest.backup("main", src, "main") as job:
                job.step(-1)
            dest.pragma("journal_mode", "delete")
        finally:
            dest.close()
    finally:
        src.close()


def open_plain(path: Path) -> apsw.Connection:
    """Open a database read-only with no tokenizer or sqlite-vec: enough to count or read its plain tables."""
    return apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)


@functools.cache
def _vec_extension() -> str:
    """Return where sqlite-vec's loadable extension lies, without importing its package.

    ``sqlite_vec`` imports numpy and the stdlib sqlite3 for helpers the store does not use:
    a tenth of a second on every command that opens the database. Looked up once per process.
    """
    spec = importlib.util.find_spec("sqlite_vec")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    if not folders:
        raise IncremindError("sqlite-vec is not installed; install it with 'pip install sqlite-vec'")
    return os.path.join(folders[0], "vec0")  # as sqlite_vec.loadable_path() names it; SQLite adds the suffix


def load_vectors(conn: apsw.Connection) -> None:
    """Load sqlite-vec into a connection, or explain why it cannot be."""
    try:
        conn.enable_load_extension(True)
        conn.load_extension(_vec_extension())
        conn.enable_load_extension(False)
    except apsw.Error as exc:
        raise IncremindError(
            f"sqlite-vec could not be loaded ({exc}); reinstall it with 'pip install --force-reinstall sqlite-vec'"
        ) from exc


@contextmanager
def write_transaction(conn: apsw.Connection) -> Iterator[None]:
    """Run a block as one transaction that holds the write lock from its first statement.

    A deferred transaction that reads before it writes can fail to upgrade its
    lock when another process (the CLI beside the daemon) wrote in between;
    BEGIN IMMEDIATE waits for the lock up front instead, within the busy timeout.
    """
    began = time.monotonic()
    if began - getattr(_streak, "ended", 0.0) >= SHARE_PAUSE_SECONDS:
        _streak.start = began  # others had their chance since this thread last wrote
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        # SQLite may have rolled back already (SQLITE_FULL, an interrupted statement); a second
        # ROLLBACK would then replace the real error with "no transaction is active"
        if not conn.getautocommit():
            conn.execute("ROLLBACK")
        raise
    finally:
        _share_the_lock()


def _share_the_lock() -> None:
    """After a long run of back-to-back writes on this thread, leave the lock to other writers a moment."""
    ended = time.monotonic()
    if ended - getattr(_streak, "start", ended) >= SHARE_AFTER_SECONDS:
        time.sleep(SHARE_PAUSE_SECONDS)
        ended = _streak.start = time.monotonic()
    _streak.ended = ended


Row = tuple[Any, ...]  # column values as SQLite returns them; typed by the caller's dataclass


def fetch_rows(conn: apsw.Connection, sql: str, params: apsw.Bindings | None = None) -> list[Row]:
    """Run a query and return all its rows."""
    return list(conn.execute(sql, params).fetchall())


def fetch_row(conn: apsw.Connection, sql: str, params: apsw.Bindings | None = None) -> Row | None:
    """Run a query and return its first row, if any."""
    row: Row | None = conn.execute(sql, params).fetchone()
    return row


def fetch_int(conn: apsw.Connection, sql: str, params: apsw.Bindings | None = None) -> int:
    """Run a query whose first column of the first row is a number, and return it."""
    row = fetch_row(conn, sql, params)
    return 0 if row is None or row[0] is None else int(row[0])


def vector_version(conn: apsw.Connection) -> str:
    """Return the loaded sqlite-vec version."""
    return str(conn.execute("SELECT vec_version()").fetchall()[0][0])


class ConnectionPool:
    """Hand out database connections, one thread at a time each, and close them all at the end."""

    def __init__(self, open_conn: Callable[[], apsw.Connection]) -> None:
        self._open = open_conn
        self._idle: queue.SimpleQueue[apsw.Connection] = queue.SimpleQueue()
        self._all: list[apsw.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    @contextmanager
    def connection(self) -> Iterator[apsw.Connection]:
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = self._open()
            with self._lock:
                if self._closed:
                    conn.close()
                    raise IncremindError("the memory server is shutting down; try again in a moment") from None
                self._all.append(conn)
        try:
            yield conn
        finally:
            if conn.in_transaction:  # a failed statement must not leave the next user inside a transaction
                conn.execute("ROLLBACK")
            self._idle.put(conn)

    def close(self) -> None:
        """Close every connection; calls in flight finish first on theirs (apsw closes them safely)."""
        with self._lock:
            self._closed = True
            conns, self._all = self._all, []
        for conn in conns:
            conn.close()
