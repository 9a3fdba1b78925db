"""What the writer has done and what went wrong: the counters status.json shows."""

from __future__ import annotations

import errno
from dataclasses import dataclass, field

import apsw

from incremind_daemon.store import clock


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
