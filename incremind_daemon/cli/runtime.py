"""How a command reaches the store: on connections of its own, or, inside the daemon, through the daemon's.

A command the daemon runs for a thin client (``served``) runs on one of the
daemon's threads. It must not open a second write connection beside the
daemon's one writer, nor load a second embedding model: while it runs,
``write`` hands its change to the writer thread and ``query_embedder``
returns the model the daemon already holds. Run on its own, a command is
its own writer and loads the model it needs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from incremind_daemon.config import Settings
from incremind_daemon.errors import NotFound

if TYPE_CHECKING:
    import apsw

    from incremind_daemon.pipeline.work import Outcome, WorkItem
    from incremind_daemon.store.embedder import Embedder

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Runtime:
    """What the daemon lends a command it runs: its writer, its work queue and its embedding model."""

    call: Callable[[Callable[[apsw.Connection], Any]], Future[Any]]  # Worker.call
    submit: Callable[[WorkItem], Future[Outcome]]  # Worker.submit: a file to take in, in queue order
    examine: Callable[[], Future[int]]  # run the insight step on what waits for it, on the writer
    embedder: Callable[[], Embedder | None]
    timeout: float  # seconds a command waits for the writer
    cwd: Path | None = None  # the client's working folder, which its relative paths start from
    previous_embedder: Callable[[], Embedder | None] = lambda: None  # a switched-from model still answering


_CURRENT: ContextVar[Runtime | None] = ContextVar("incremind_runtime", default=None)


@contextmanager
def lent(runtime: Runtime) -> Iterator[None]:
    """Run the commands of this block on the daemon's writer and model."""
    token = _CURRENT.set(runtime)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def in_daemon() -> bool:
    """Tell whether the command runs inside the daemon."""
    return _CURRENT.get() is not None


def write(settings: Settings, change: Callable[[apsw.Connection], T], *, conn: apsw.Connection | None = None) -> T:
    """Run change(conn) in one write transaction and return its result.

    Inside the daemon the change runs on its writer thread; on its own, the
    command writes on ``conn``, or opens the store, writes, and closes it.
    """
    runtime = _CURRENT.get()
    if runtime is not None:
        return cast(T, runtime.call(functools.partial(_in_transaction, change)).result(timeout=runtime.timeout))
    if conn is not None:
        return _in_transaction(change, conn)
    conn = open_store(settings)
    try:
        return _in_transaction(change, conn)
    finally:
        conn.close()


def open_store(settings: Settings) -> apsw.Connection:
    """Open the store to write; NotFound when nothing has been taken in yet."""
    from incremind_daemon.store.db import connect

    if not settings.database_path.exists():
        raise NotFound(f"no memory at {settings.home_dir} yet; start the daemon or `incremind ingest` a file")
    return connect(settings.database_path)


def _in_transaction(change: Callable[[apsw.Connection], T], conn: apsw.Connection) -> T:
    from incremind_daemon.store.db import write_transaction

    with write_transaction(conn):
        return change(conn)


def row_writer() -> Callable[[Callable[[apsw.Connection], None]], None] | None:
    """Inside the daemon, what runs a change (with its own transaction) on the writer and waits; else None."""
    runtime = _CURRENT.get()
    if runtime is None:
        return None
    call, timeout = runtime.call, runtime.timeout
    return lambda change: call(change).result(timeout=timeout)


def write_later(settings: Settings, change: Callable[[apsw.Connection], object]) -> bool:
    """Hand a change that nobody waits for (hotness) to the daemon's writer; False when there is none.

    The change opens its own transaction.
    """
    runtime = _CURRENT.get()
    if runtime is None:
        return False
    runtime.call(change)
    return True


def resolve(path: Path) -> Path:
    """Return path as the person meant it: relative to their working folder, even inside the daemon."""
    runtime = _CURRENT.get()
    if path.is_absolute() or runtime is None or runtime.cwd is None:
        return path.absolute()
    return runtime.cwd / path


def daemon_queue() -> Callable[[WorkItem], Outcome] | None:
    """Return what has the daemon's writer take one item in and waits for it; None outside the daemon."""
    runtime = _CURRENT.get()
    if runtime is None:
        return None
    submit = runtime.submit
    return lambda item: submit(item).result()


def take_in(items: list[WorkItem]) -> list[Outcome] | None:
    """Have the daemon's writer take the items in and examine them; None outside the daemon.

    Increments show in `incremind pending` as soon as this returns, as when the
    command does the work itself.
    """
    runtime = _CURRENT.get()
    if runtime is None:
        return None
    waiting = [runtime.submit(item) for item in items]
    outcomes = [future.result() for future in waiting]
    if any(outcome.status == "added" for outcome in outcomes):
        settle()
    return outcomes


def settle() -> None:
    """Inside the daemon, run the insight step on what waits for it now, and wait for that."""
    runtime = _CURRENT.get()
    if runtime is not None:
        runtime.examine().result()


def query_embedder(settings: Settings) -> Embedder | None:
    """Return the model that embeds a query: the daemon's, or one loaded now."""
    from incremind_daemon.embedding.configured import make_embedder

    runtime = _CURRENT.get()
    if runtime is not None:
        return runtime.embedder()
    return make_embedder(settings)


def previous_embedder() -> Embedder | None:
    """Inside the daemon during a model switch, the model switched from, whose vectors still answer; else None."""
    runtime = _CURRENT.get()
    return None if runtime is None else runtime.previous_embedder()
