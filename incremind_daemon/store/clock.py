"""The one clock: the current time as an aware UTC datetime, and as the ISO 8601 stamp stored everywhere.

Every row, receipt, heartbeat and audit entry is stamped to the second in UTC
("2026-12-02T03:12:00+00:00"), which sorts as text; hotness decays and
budgets count days on the same clock.
"""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    """Return the current time, aware, in UTC."""
    return datetime.now(UTC)


def stamp(moment: datetime | None = None) -> str:
    """Return a moment (default: now) as the stored ISO 8601 text, to the second."""
    return (moment or now()).isoformat(timespec="seconds")
