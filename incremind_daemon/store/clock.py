"""The one clock: the current time as an aware UTC datetime, and as the ISO 8601 stamp stored everywhere.

Every row, receipt, heartbeat and audit entry is stamped to the second in UTC
("2026-12-02T03:12:00+00:00"), which sorts as text; hotness decays and
budgets count days on the same clock. The agents stamp their transcripts
in ISO 8601 too, with ``Z`` or an offset: ``parse_moment`` reads both.
"""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    """Return the current time, aware, in UTC."""
    return datetime.now(UTC)


def stamp(moment: datetime | None = None) -> str:
    """Return a moment (default: now) as the stored ISO 8601 text, to the second."""
    return (moment or now()).isoformat(timespec="seconds")


def parse_moment(stamp: str) -> datetime | None:
    """Parse an ISO 8601 time as stored or as an agent wrote it (``Z`` or offset); None if it is not one."""
    try:
        moment = datetime.fromisoformat(stamp.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # stored times without a zone are UTC
