"""Drill-down reads: every id leads to the exact words of the raw original, in bounded windows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest

from incremind_daemon.config import Settings
from incremind_daemon.errors import NotFound, QueryError
from incremind_daemon.pipeline.steps import StepState, ingest_item, open_writer
from incremind_daemon.pipeline.work import IngestFile
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store import drill
from incremind_daemon.store.db import connect, write_transaction
from incremind_daemon.store.insights import insert_insight
from incremind_daemon.store.records import MAX_ROWID, Candidate, row_number
from incremind_daemon.store.tool_calls import ToolCall, log_tool_call, recent_tool_calls, summarize_tool_calls

FILLER = "Background paragraph about unrelated matters, kept to pad the original. " * 150
KEY = "Deploys go out on Tuesdays because the on-call rotation changes on Monday nights."
NOTE = f"# Release rules\n\n{FILLER}\n\n{KEY}\n\n{FILLER}\n\n发布规则：周二发布。\n"


@pytest.fixture
def conn(settings: Settings, tmp_path: Path) -> Iterator[apsw.Connection]:
    path = tmp_path / "release.md"
    path.write_text(NOTE, encoding="utf-8")
    state = StepState(settings, extract_bytes)
    with open_writer(state) as writer:
        assert ingest_item(writer, state, IngestFile(path, "ops")).status == "added"
    connection = connect(settings.database_path)
    yield connection
    connection.close()


def _raw(conn: apsw.Connection) -> str:
    return str(conn.execute("SELECT raw_text FROM sources WHERE id = 1").fetchall()[0][0])


def _insight(
    conn: apsw.Connection, statement: str, quote: str, *, relation: str = "new", known: int | None = None
) -> int:
    start = _raw(conn).index(quote)
    candidate = Candidate(statement, "method", "when planning a release", quote, start, start + len(quote))
    with write_transaction(conn):
        return insert_insight(
            conn,
            project="ops",
            candidate=candidate,
            relation=relation,
            source_id=1,
            known_id=known,
            now="2026-01-01T00:00:00+00:00",
        )


def test_passage_drill_window_holds_the_passage_at_its_offsets(conn: apsw.Connection, settings: Settings) -> None:
    passage_id = conn.execute("SELECT id FROM chunks WHERE text LIKE '%Tuesdays%'").fetchall()[0][0]
    found = drill.drill(conn, f"pas-{passage_id}", home=settings.home_dir)
    assert isinstance(found, drill.ItemDrill)
    raw = found.raw
    assert found.start is not None and found.end is not None
    assert raw.text == _raw(conn)[raw.start : raw.end]
    assert raw.end - raw.start <= drill.DEFAULT_WINDOW
    assert (raw.span_start, raw.span_end) == (found.start, found.end)
    assert KEY in raw.text or raw.end < found.end  # the span is inside, or cut where reading on continues
    assert found.source.id == "src-1" and found.source.project == "ops"


def test_source_window_reads_on_from_the_offset_it_gave(conn: apsw.Connection, settings: Settings) -> None:
    first = drill.read_source_window(conn, 1, home=settings.home_dir, length=1_000)
    assert first.raw.start == 0 and first.raw.end == 1_000 and first.raw.has_more
    second = drill.read_source_window(conn, 1, home=settings.home_dir, offset=first.raw.end, length=50_000)
    assert second.raw.end - second.raw.start == drill.MAX_WINDOW
    assert first.raw.text + second.raw.text == _raw(conn)[: second.raw.end]
    assert first.raw.total == len(_raw(conn)) and first.passages >= 2 and first.summary_id == "sum-1"


def test_source_window_refuses_an_offset_past_the_end(conn: apsw.Connection, settings: Settings) -> None:
    with pytest.raises(QueryError, match="past the end of src-1"):
        drill.read_source_window(conn, 1, home=settings.home_dir, offset=len(_raw(conn)) + 1)


def test_insight_drill_gives_evidence_span_and_the_refuted_insight(conn: apsw.Connection, settings: Settings) -> None:
    known = _insight(conn, "Deploys go out on Tuesdays", KEY)
    differing = _insight(conn, "发布在周二", "发布规则：周二发布。", relation="different", known=known)
    found = drill.drill(conn, f"ins-{differing}", home=settings.home_dir)
    assert isinstance(found, drill.InsightDrill)
    assert found.insight.statement == "发布在周二"
    assert [(link.id, link.relation, link.outgoing) for link in found.links] == [(f"ins-{known}", "refutes", True)]
    assert found.links[0].statement == "Deploys go out on Tuesdays"
    (evidence,) = found.evidence
    raw = evidence.raw
    assert raw.span_start is not None and raw.span_end is not None
    assert raw.text[raw.span_start - raw.start : raw.span_end - raw.start] == evidence.quote == "发布规则：周二发布。"
    back = drill.drill(conn, f"ins-{known}", home=settings.home_dir)
    assert isinstance(back, drill.InsightDrill)
    assert [(link.id, link.outgoing) for link in back.links] == [(f"ins-{differing}", False)]


def test_around_span_cuts_a_long_span_at_the_window_width(conn: apsw.Connection) -> None:
    window = drill.around_span(conn, "src-1", 10, 5_000, width=1_000)
    assert (window.start, window.end, window.span_start, window.span_end) == (10, 1_010, 10, 5_000)


@pytest.mark.parametrize("bad", ["pas-999", "ins-5", "src-77", "sum-9", "msg-3", "nonsense", "pas-x"])
def test_drill_of_a_missing_or_malformed_id_raises_not_found(
    conn: apsw.Connection, settings: Settings, bad: str
) -> None:
    with pytest.raises(NotFound):
        drill.drill(conn, bad, home=settings.home_dir)


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ("src-99999999999999999999", "no source src-99999999999999999999 in memory; its number is larger"),
        ("pas-9223372036854775808", "no passage pas-9223372036854775808 in memory"),  # SQLite's largest + 1
        ("sum-" + "9" * 5_000, "no summary sum-999999999999999999999999999999999999… in memory"),
        ("src-\u0661", "'src-\u0661' is not a memory id"),  # an Arabic-Indic 1, which int() would take
        ("ins-\uff11", "'ins-\uff11' is not a memory id"),  # a full-width 1
        ("msg-+1", "'msg-+1' is not a memory id"),
        ("src-" + "x" * 5_000, "'src-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' is not a memory id"),
    ],
)
def test_an_id_of_other_digits_or_past_sqlite_integers_is_not_found_with_the_rule(
    conn: apsw.Connection, settings: Settings, bad: str, says: str
) -> None:
    with pytest.raises(NotFound) as raised:
        drill.drill(conn, bad, home=settings.home_dir)
    assert says in str(raised.value) and len(str(raised.value)) < 200


def test_the_largest_sqlite_integer_is_an_id_that_is_simply_absent(conn: apsw.Connection, settings: Settings) -> None:
    with pytest.raises(NotFound, match=r"^no source src-9223372036854775807 in memory$"):
        drill.drill(conn, f"src-{MAX_ROWID}", home=settings.home_dir)
    assert row_number(f"ins-{MAX_ROWID}") == MAX_ROWID


def test_summary_drill_points_into_its_source(conn: apsw.Connection, settings: Settings) -> None:
    found = drill.drill(conn, "sum-1", home=settings.home_dir)
    assert isinstance(found, drill.ItemDrill) and found.tier == "summary"
    assert found.raw.source_id == "src-1" and found.raw.text == _raw(conn)[found.raw.start : found.raw.end]


def test_list_projects_names_sources_and_insights(conn: apsw.Connection) -> None:
    assert drill.list_projects(conn) == ["ops"]
    assert row_number("src-1") == 1


def test_tool_calls_are_summarized_per_tool_and_client(conn: apsw.Connection) -> None:
    for at, tool, client, outcome in [
        ("2026-01-01T00:00:01", "search_memory", "claude-code", "ok"),
        ("2026-01-01T00:00:02", "search_memory", "claude-code", "error: the query is empty"),
        ("2026-01-01T00:00:03", "read_memory", "codex", "ok"),
    ]:
        log_tool_call(conn, ToolCall(at, tool, "http", 3, outcome, project="ops", client=client))
    uses = summarize_tool_calls(conn)
    assert [(u.tool, u.client, u.calls, u.errors, u.last_at) for u in uses] == [
        ("read_memory", "codex", 1, 0, "2026-01-01T00:00:03"),
        ("search_memory", "claude-code", 2, 1, "2026-01-01T00:00:02"),
    ]
    assert summarize_tool_calls(conn, since="2026-01-01T00:00:03")[0].tool == "read_memory"
    assert recent_tool_calls(conn, limit=1)[0].outcome == "ok"
