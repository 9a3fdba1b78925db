"""An in-memory copy of a model's sign bits, for processes that search many times.

sqlite-vec's scan of 100,000 sign-bit rows costs tens of milliseconds per
query at the candidate counts the re-rank needs; numpy does the same Hamming
scan over an in-memory copy in about ten. A long-lived process (the daemon
serving MCP, the stdio MCP server) turns this on with ``keep_bit_indexes``;
one-shot commands keep using vec0 directly, since loading the copy costs
more than one scan.

The copy only picks candidates: their float32 vectors and text digests are
read from the vec0 table and checked as before, so a stale copy can miss a
new vector for a while (keywords still find its item) but never lets a
changed or forgotten item answer. Writers bump a version in ``meta``; a
changed version reloads the copy in the background, at most every
``RELOAD_AFTER_SECONDS``, while queries go on with the old one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import apsw
import numpy as np
import numpy.typing as npt

from incremind_daemon.store.db import connect, fetch_row, fetch_rows

log = logging.getLogger(__name__)

RELOAD_AFTER_SECONDS = 10.0
_KEEP = threading.Event()
_INDEXES: dict[tuple[str, str], BitIndex] = {}
_REGISTRY_LOCK = threading.Lock()


def keep_bit_indexes() -> None:
    """Let this process keep in-memory sign-bit copies (call once in a long-lived process)."""
    _KEEP.set()


def stop_keeping_bit_indexes() -> None:
    """Drop the copies and scan with vec0 again (tests and benchmarks compare the two)."""
    _KEEP.clear()
    with _REGISTRY_LOCK:
        _INDEXES.clear()


def version_key(model_key: str) -> str:
    return f"vectors:{model_key}"


def bump_version(conn: apsw.Connection, model_key: str) -> None:
    """Record that a model's vectors changed (inside the writer's transaction)."""
    conn.execute(
        """INSERT INTO meta (key, value) VALUES (?, '1')
           ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1""",
        (version_key(model_key),),
    )


def index_for(conn: apsw.Connection, model_key: str, *, table: str, kind_codes: Mapping[str, int]) -> BitIndex | None:
    """Return this process's copy of a model's vec0 table, or None when copies are not kept here."""
    if not _KEEP.is_set():
        return None
    path = conn.db_filename("main")
    if not path:
        return None
    with _REGISTRY_LOCK:
        index = _INDEXES.get((path, model_key))
        if index is None:
            index = _INDEXES[(path, model_key)] = BitIndex(Path(path), model_key, table, kind_codes)
    return index


@dataclass(frozen=True, slots=True)
class _Snapshot:
    version: str | None
    rowids: npt.NDArray[np.int64]
    # one row per 64-bit word of the sign bits, one column per vector: the Hamming scan walks
    # each row in one pass, about five times faster than row-per-vector with a sum over each row
    words: npt.NDArray[np.uint64]
    kinds: npt.NDArray[np.int8]
    kinds_present: frozenset[int]
    projects: npt.NDArray[np.int32]
    project_ids: dict[str, int]


class BitIndex:
    """One model's sign bits in memory; thread-safe."""

    def __init__(self, db_path: Path, model_key: str, table: str, kind_codes: Mapping[str, int]) -> None:
        self._db_path = db_path
        self._key = model_key
        self._table = table
        self._kind_codes = dict(kind_codes)
        self._snapshot: _Snapshot | None = None
        self._loaded_at = 0.0
        self._reloading = threading.Lock()

    def ready(self) -> bool:
        """Tell whether the copy is loaded; if not, start loading it on a thread and say False.

        Reading every row's sign bits takes about a second at 100,000 vectors:
        the first searches of a process (an agent's stdio server started cold,
        the daemon just up) scan with vec0 meanwhile, as a one-shot search does.
        """
        if self._snapshot is not None:
            return True
        self._reload_in_background()
        return False

    def candidates(
        self, conn: apsw.Connection, query_bits: bytes, *, wanted: int, kind_codes: Sequence[int], project: str | None
    ) -> list[int]:
        """Return the rowids of up to ``wanted`` rows nearest in Hamming distance, filters applied."""
        version = self._version(conn)
        snapshot = self._snapshot
        if snapshot is None:
            snapshot = self._load(conn, version)
        elif version != snapshot.version and time.monotonic() - self._loaded_at >= RELOAD_AFTER_SECONDS:
            self._reload_in_background()
        if not len(snapshot.rowids):
            return []
        query = np.frombuffer(query_bits, dtype=np.uint64)
        distance = np.zeros(len(snapshot.rowids), dtype=np.uint16)
        scratch = np.empty(len(snapshot.rowids), dtype=np.uint64)
        for row, word in zip(snapshot.words, query, strict=True):
            distance += np.bitwise_count(np.bitwise_xor(row, word, out=scratch))
        mask: npt.NDArray[np.bool_] | None = None
        if not snapshot.kinds_present <= set(kind_codes):
            mask = np.isin(snapshot.kinds, np.asarray(kind_codes, dtype=np.int8))
        if project is not None:
            in_project = snapshot.projects == snapshot.project_ids.get(project, -1)
            mask = in_project if mask is None else mask & in_project
        filtered = 64 * len(query) + 1  # farther than any real distance: where a filter puts the rows it leaves out
        if mask is not None:
            distance[~mask] = filtered
        # distances are small integers: count them, and keep what lies within the wanted-th smallest
        # (cheaper than argpartition over every row)
        counts = np.cumsum(np.bincount(distance, minlength=filtered + 1)[:filtered])
        if counts[-1] == 0:
            return []
        within = int(np.searchsorted(counts, min(wanted, int(counts[-1]))))
        near = np.flatnonzero(distance <= within)
        best = near[np.argsort(distance[near], kind="stable")][:wanted]
        return [int(rowid) for rowid in snapshot.rowids[best]]

    def _version(self, conn: apsw.Connection) -> str | None:
        row = fetch_row(conn, "SELECT value FROM meta WHERE key = ?", (version_key(self._key),))
        return None if row is None else str(row[0])

    def _load(self, conn: apsw.Connection, version: str | None) -> _Snapshot:
        started = time.monotonic()
        rows = fetch_rows(conn, f"SELECT rowid, kind, project, embedding FROM {self._table}")
        project_ids: dict[str, int] = {}
        kinds = self._kind_codes
        kind_column = np.fromiter((kinds.get(str(r[1]), 0) for r in rows), dtype=np.int8, count=len(rows))
        snapshot = _Snapshot(
            version,
            np.fromiter((int(r[0]) for r in rows), dtype=np.int64, count=len(rows)),
            np.ascontiguousarray(
                np.frombuffer(b"".join(bytes(r[3]) for r in rows), dtype=np.uint64).reshape(len(rows), -1).T
            )
            if rows
            else np.zeros((0, 0), dtype=np.uint64),
            kind_column,
            frozenset(int(code) for code in np.unique(kind_column)),
            np.fromiter(
                (project_ids.setdefault(str(r[2]), len(project_ids)) for r in rows), dtype=np.int32, count=len(rows)
            ),
            project_ids,
        )
        self._snapshot, self._loaded_at = snapshot, time.monotonic()
        log.debug("sign bits of %s loaded: %d rows in %.2f s", self._key, len(rows), time.monotonic() - started)
        return snapshot

    def _reload_in_background(self) -> None:
        if not self._reloading.acquire(blocking=False):
            return  # a reload is under way

        def reload() -> None:
            try:
                conn = connect(self._db_path, readonly=True)
                try:
                    self._load(conn, self._version(conn))
                finally:
                    conn.close()
            except Exception as exc:  # a failed reload keeps the old copy; the next change tries again
                log.warning("could not reload the sign bits of %s: %s", self._key, exc)
                self._loaded_at = time.monotonic()
            finally:
                self._reloading.release()

        self._loaded_at = time.monotonic()  # one reload per interval, even while this one runs
        threading.Thread(target=reload, name="incremind-bit-index", daemon=True).start()
