from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path

import apsw
import pytest

from incremind_daemon.config import ModelSettings
from incremind_daemon.errors import QueryError
from incremind_daemon.store.db import connect
from incremind_daemon.store.receipts import (
    Receipt,
    budget_state,
    list_receipts,
    record_receipt,
    tokens_spent,
)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[apsw.Connection]:
    connection = connect(tmp_path / "memory.db")
    yield connection
    connection.close()


def receipt(at: str, *, tokens: tuple[int, int] = (100, 20), outcome: str = "ok", project: str = "daily") -> Receipt:
    return Receipt(
        at=at,
        purpose="insights",
        endpoint="https://api.example.com/v1/chat/completions",
        model="gpt-test",
        project=project,
        outcome=outcome,
        source_id=7,
        input_tokens=tokens[0],
        output_tokens=tokens[1],
        duration_ms=350,
        detail="attempts: 200",
    )


def test_recorded_receipt_reads_back_with_its_id(conn: apsw.Connection) -> None:
    written = receipt("2025-03-01T09:30:00.000+00:00")
    rid = record_receipt(conn, written)
    [read] = list_receipts(conn)
    assert read.id == rid
    assert read == replace(written, id=rid)
    assert read.tokens == 120


def test_receipts_are_listed_newest_first_and_limited(conn: apsw.Connection) -> None:
    for hour in (8, 9, 10):
        record_receipt(conn, receipt(f"2025-03-01T{hour:02}:00:00+00:00", project=f"p{hour}"))
    assert [r.project for r in list_receipts(conn)] == ["p10", "p9", "p8"]
    assert [r.project for r in list_receipts(conn, limit=2)] == ["p10", "p9"]


@pytest.mark.parametrize(
    ("since", "expected"),
    [
        ("2025-03-02", ["late", "next day"]),
        ("2025-03-02T12:00", ["next day"]),
        ("2025-03-02T13:00+02:00", ["next day"]),  # 11:00 UTC
        ("2025-03-02T12:00:01+00:00", []),
    ],
)
def test_since_selects_receipts_at_or_after_a_utc_moment(
    conn: apsw.Connection, since: str, expected: list[str]
) -> None:
    record_receipt(conn, receipt("2025-03-01T23:59:59+00:00", project="early"))
    record_receipt(conn, receipt("2025-03-02T01:00:00+00:00", project="late"))
    record_receipt(conn, receipt("2025-03-02T12:00:00+00:00", project="next day"))
    assert sorted(r.project for r in list_receipts(conn, since=since)) == sorted(expected)


def test_bad_since_raises_query_error(conn: apsw.Connection) -> None:
    with pytest.raises(QueryError, match="not a date like"):
        list_receipts(conn, since="last tuesday")


def test_tokens_spent_sums_input_and_output_of_one_utc_day(conn: apsw.Connection) -> None:
    record_receipt(conn, receipt("2025-03-01T23:59:59+00:00", tokens=(1_000, 1)))
    record_receipt(conn, receipt("2025-03-02T00:00:00+00:00", tokens=(100, 20)))
    record_receipt(conn, receipt("2025-03-02T23:59:59.999+00:00", tokens=(5, 0), outcome="error: 500 three times"))
    # local time past midnight in Shanghai, still the previous UTC day
    record_receipt(conn, receipt("2025-03-02T07:30:00+08:00", tokens=(7, 3)))
    assert tokens_spent(conn, date(2025, 3, 2)) == 125
    assert tokens_spent(conn, date(2025, 3, 1)) == 1_011
    assert tokens_spent(conn, date(2025, 3, 3)) == 0


def test_receipt_time_is_stored_in_utc(conn: apsw.Connection) -> None:
    record_receipt(conn, receipt("2025-03-02T07:30:00+08:00"))
    assert list_receipts(conn)[0].at == "2025-03-01T23:30:00.000+00:00"


def test_receipt_without_utc_offset_is_refused(conn: apsw.Connection) -> None:
    with pytest.raises(ValueError, match="UTC offset"):
        record_receipt(conn, receipt("2025-03-02T07:30:00"))
    assert list_receipts(conn) == []


@pytest.mark.parametrize("statement", ["UPDATE receipts SET input_tokens = 0", "DELETE FROM receipts"])
def test_receipts_cannot_be_changed_or_removed(conn: apsw.Connection, statement: str) -> None:
    record_receipt(conn, receipt("2025-03-02T07:30:00+00:00"))
    with pytest.raises(apsw.ConstraintError, match="append-only"):
        conn.execute(statement)
    assert len(list_receipts(conn)) == 1


def test_receipt_is_committed_at_once_outside_a_transaction(tmp_path: Path, conn: apsw.Connection) -> None:
    record_receipt(conn, receipt("2025-03-02T07:30:00+00:00"))
    assert not conn.in_transaction
    other = connect(tmp_path / "memory.db", readonly=True)
    try:
        assert len(list_receipts(other)) == 1
    finally:
        other.close()


@pytest.mark.parametrize(
    ("spent", "limit", "exhausted", "allows_100"),
    [(0, 1_000, False, True), (900, 1_000, False, True), (901, 1_000, False, False), (1_000, 1_000, True, False)],
)
def test_budget_state_compares_the_day_with_the_limit(
    conn: apsw.Connection, spent: int, limit: int, exhausted: bool, allows_100: bool
) -> None:
    if spent:
        record_receipt(conn, receipt("2025-03-02T10:00:00+00:00", tokens=(spent, 0)))
    record_receipt(conn, receipt("2025-03-01T10:00:00+00:00", tokens=(50_000, 0)))  # yesterday does not count
    state = budget_state(conn, ModelSettings(daily_token_budget=limit), date(2025, 3, 2))
    assert (state.spent, state.limit, state.remaining) == (spent, limit, limit - spent)
    assert state.exhausted is exhausted
    assert state.allows(100) is allows_100


def test_zero_budget_is_always_exhausted(conn: apsw.Connection) -> None:
    state = budget_state(conn, ModelSettings(daily_token_budget=0), date(2025, 3, 2))
    assert state.exhausted
    assert not state.allows(1)
