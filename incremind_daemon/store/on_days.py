"""What memory holds from the days a question names, when the question's words found nothing of them.

"上周二在 orders-svc 里做了什么决定" or "what did we do last Tuesday" names a day and little else: its
words match the meeting notes of other weeks, and that Tuesday's session, which shares no word with
it, is not among them. Search then lists the sources of those days as well, each by its opening
passage (a session's first exchange: the ask), before what the words found. Only a stretch of at
most a week is listed so: "去年" or "in May" name too many days to list, and their words decide.
"""

from __future__ import annotations

from datetime import timedelta

import apsw

from incremind_daemon.store.db import fetch_rows
from incremind_daemon.store.items import SOURCE_DATE, SOURCE_JOIN
from incremind_daemon.store.semantic import Ranked
from incremind_daemon.store.when import TimeRange

DAY_SPAN = 7  # the longest stretch whose sources are listed: a week
MAX_SOURCES = 5  # sources of those days listed at most, earliest first
_SCANNED = 50  # rows of the widened stretch read, to keep those of the named local days

_OPENINGS = f"""
    SELECT opening, day FROM (
        SELECT (SELECT c.id FROM chunks c WHERE c.source_id = s.id ORDER BY c.start LIMIT 1) AS opening,
               {SOURCE_DATE} AS day
        FROM sources s {SOURCE_JOIN}
        WHERE :project IS NULL OR s.project = :project
    )
    WHERE day >= :low AND day < :high
    ORDER BY day
    LIMIT {_SCANNED}
"""


def openings_of_the_days(
    conn: apsw.Connection, window: TimeRange, *, project: str | None, tier: str | None, score: float
) -> list[Ranked]:
    """Return the opening passage of each source from the named days (at most a week), ranked at ``score``.

    Stamps are stored in UTC or with their offset; the stretch is widened by a day on each side in SQL
    and each stamp is then held to the named local days (``TimeRange.holds``).
    """
    if tier not in (None, "organized") or (window.end - window.start).days > DAY_SPAN:
        return []
    low = (window.start - timedelta(days=1)).isoformat()
    high = (window.end + timedelta(days=1)).isoformat()
    rows = fetch_rows(conn, _OPENINGS, {"project": project, "low": low, "high": high})
    chunks = [int(chunk) for chunk, stamp in rows if chunk is not None and window.holds(str(stamp))]
    return [Ranked("organized", chunk, score) for chunk in chunks[:MAX_SOURCES]]
