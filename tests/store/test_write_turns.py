"""A writer working through a backlog leaves other writers their turn at the lock."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import apsw

from incremind_daemon.store.db import SHARE_AFTER_SECONDS, connect, write_transaction

PATIENCE = 2 * SHARE_AFTER_SECONDS + 1.5  # seconds the second writer waits for the lock (its busy timeout)


def test_a_second_writer_gets_in_while_one_writes_back_to_back(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    connect(path).close()  # create and migrate the schema
    stop = threading.Event()
    commits: list[float] = []

    def backlog() -> None:  # the worker taking in a backlog: short transactions, no gap between them
        conn = connect(path)
        try:
            deadline = time.monotonic() + 6 * SHARE_AFTER_SECONDS
            while not stop.is_set() and time.monotonic() < deadline:
                with write_transaction(conn):
                    conn.execute("INSERT INTO meta (key, value) VALUES ('busy', '1') "
                                 "ON CONFLICT (key) DO UPDATE SET value = value + 1")  # fmt: skip
                    time.sleep(0.02)
                commits.append(time.monotonic())
        finally:
            conn.close()

    worker = threading.Thread(target=backlog)
    worker.start()
    other = connect(path)
    try:
        time.sleep(0.3)
        other.set_busy_timeout(int(PATIENCE * 1000))  # shorter than the backlog lasts
        started = time.monotonic()
        with write_transaction(other):
            other.execute("INSERT INTO meta (key, value) VALUES ('confirm', '1')")
        waited = time.monotonic() - started
    except apsw.BusyError:
        waited = float("inf")
    finally:
        stop.set()
        worker.join()
        other.close()
    assert len(commits) > 20  # the backlog really wrote back to back meanwhile
    assert waited < PATIENCE
