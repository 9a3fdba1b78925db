"""Receipts of external model calls, and the daily token budget they are counted against.

The ``receipts`` table is append-only (triggers refuse UPDATE and DELETE).
Times are ISO 8601 in UTC, so a day is a range of strings.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import apsw

from incremind_daemon.config import ModelSettings
from incremind_daemon.errors import QueryError
from incremind_daemon.store.db import Row, fetch_int, fetch_rows

log = logging.getLogger(__name__)

_COLUMNS = (
    "id, at, purpose, endpoint, model, project, source_id, input_tokens, output_tokens, duration_ms, outcome, detail"
)


@dataclass(frozen=True, slots=True)
class Receipt:
    """One call made to an external model, whatever came of it.

    ``outcome`` is ``ok``, ``rejected: <why>`` (the endpoint refused the
    request) or ``error: <why>``. ``id`` is None until the receipt is recorded.
    """

    at: str  # ISO 8601 with a UTC offset: when the call began
    purpose: str  # insights, summary, ...
    endpoint: str  # the URL called, without credentials
    model: str
    project: str
    outcome: str
    source_id: int | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    duration_ms: int = 0
    detail: str = ""
    id: int | None = None

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class BudgetState:
    """Tokens spent by model calls on one UTC day against the daily budget."""

    day: date
    spent: int
    limit: int

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.limit

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.spent)

    def allows(self, tokens: int) -> bool:
        """Tell whether a call expected to use ``tokens`` more still fits today."""
        return self.spent + tokens <= self.limit


def record_receipt(conn: apsw.Connection, receipt: Receipt) -> int:
    """Append a receipt and return its id.

    Call it outside any transaction that may roll back: on its own, the
    insert commits at once, so the receipt outlives a step that later fails.
    ``at`` is stored converted to UTC.
    """
    conn.execute(
        """INSERT INTO receipts (at, purpose, endpoint, model, project, source_id, input_tokens, output_tokens,
                                 duration_ms, outcome, detail)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            _utc_text(receipt.at),
            receipt.purpose,
            receipt.endpoint,
            receipt.model,
            receipt.project,
            receipt.source_id,
            max(0, receipt.input_tokens),
            max(0, receipt.output_tokens),
            max(0, receipt.duration_ms),
            receipt.outcome,
            receipt.detail,
        ),
    )
    return int(conn.last_insert_rowid())


def list_receipts(conn: apsw.Connection, *, since: str | None = None, limit: int | None = None) -> list[Receipt]:
    """Return receipts, newest first, made at or after ``since``.

    ``since`` is a date (``2025-01-31``, midnight UTC) or a time
    (``2025-01-31T08:00``, UTC unless it names an offset).
    """
    clauses: list[str] = []
    params: list[str | int] = []
    if since is not None:
        clauses.append("at >= ?")
        params.append(_since_text(since))
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    sql = f"SELECT {_COLUMNS} FROM receipts {where} ORDER BY id DESC"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(max(0, limit))
    return [_receipt(row) for row in fetch_rows(conn, sql, params)]


def tokens_spent(conn: apsw.Connection, day: date) -> int:
    """Return the input and output tokens of every call made on a UTC day."""
    return fetch_int(
        conn,
        "SELECT SUM(input_tokens + output_tokens) FROM receipts WHERE at >= ? AND at < ?",
        (day.isoformat(), (day + timedelta(days=1)).isoformat()),
    )


def budget_state(conn: apsw.Connection, model: ModelSettings, day: date) -> BudgetState:
    """Return what the model calls of a UTC day spent against ``model.daily_token_budget``."""
    return BudgetState(day, tokens_spent(conn, day), model.daily_token_budget)


def _receipt(row: Row) -> Receipt:
    rid, at, purpose, endpoint, model, project, source_id, tokens_in, tokens_out, duration_ms, outcome, detail = row
    return Receipt(
        at=str(at),
        purpose=str(purpose),
        endpoint=str(endpoint),
        model=str(model),
        project=str(project),
        outcome=str(outcome),
        source_id=None if source_id is None else int(source_id),
        input_tokens=int(tokens_in),
        output_tokens=int(tokens_out),
        duration_ms=int(duration_ms),
        detail=str(detail),
        id=int(rid),
    )


def _utc_text(at: str) -> str:
    try:
        moment = datetime.fromisoformat(at)
    except ValueError as exc:
        raise ValueError(f"a receipt's time must be ISO 8601, not {at!r}") from exc
    if moment.tzinfo is None:
        raise ValueError(f"a receipt's time must carry its UTC offset, not {at!r}")
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def _since_text(since: str) -> str:
    text = since.strip()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise QueryError(
            f"{since!r} is not a date like 2025-01-31 or a time like 2025-01-31T08:00; give one of those"
        ) from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")
