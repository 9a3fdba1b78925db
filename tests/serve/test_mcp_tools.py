"""The MCP tools through the SDK's own client, in process: every tool, its errors and its side effects."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import apsw
import pytest
from mcp import Client
from mcp.types import CallToolResult, Implementation, TextContent

from incremind_daemon.config import Settings, load_settings
from incremind_daemon.pipeline.insights import save_memory
from incremind_daemon.pipeline.steps import StepState, ingest_item, open_writer
from incremind_daemon.pipeline.work import IngestFile
from incremind_daemon.serve.mcp_models import SourceOut
from incremind_daemon.serve.mcp_server import build_mcp_server
from incremind_daemon.serve.mcp_tools import MemoryBackend, MemoryTools, within_budget
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store.db import connect, write_transaction
from incremind_daemon.store.insights import get_insight, insert_insight, review
from incremind_daemon.store.records import MAX_SAVE_BYTES, Candidate, Hit, SaveRequest, SaveResult, SourceRef
from incremind_daemon.store.search import MAX_QUERY_CHARS, MAX_QUERY_WORDS

DOC = (
    "# Storage decisions\n\nWe keep memory in SQLite with WAL so readers never block the single writer.\n\n"
    "Vector search runs in sqlite-vec inside the same process.\n\n向量检索在同一个进程里运行。\n"
)


class Memory:
    """A store with one document and one pending insight, and the backend the tools use."""

    def __init__(self, settings: Settings, tmp_path: Path) -> None:
        self.settings = settings
        path = tmp_path / "storage.md"
        path.write_text(DOC, encoding="utf-8")
        state = StepState(settings, extract_bytes)
        with open_writer(state) as writer:
            assert ingest_item(writer, state, IngestFile(path, "infra")).status == "added"
        self.conn = connect(settings.database_path)
        quote = "We keep memory in SQLite with WAL so readers never block the single writer."
        start = DOC.index(quote)
        with write_transaction(self.conn):
            self.insight_id = insert_insight(
                self.conn,
                project="infra",
                candidate=Candidate(
                    "Memory lives in SQLite with WAL",
                    "method",
                    "when touching storage",
                    quote,
                    start,
                    start + len(quote),
                ),
                relation="new",
                source_id=1,
                now="2026-01-01T00:00:00+00:00",
            )
        self.saves: list[SaveRequest] = []
        self.contexts: list[str | None] = []

    def save(self, request: SaveRequest) -> SaveResult:
        self.saves.append(request)
        return save_memory(self.conn, self.settings, request)

    def recent_context(self, project: str | None) -> str:
        self.contexts.append(project)
        return f"# Memory for {project}\n- Memory lives in SQLite with WAL\n"

    def backend(self) -> MemoryBackend:
        return MemoryBackend(
            open_conn=lambda: connect(self.settings.database_path),
            save=self.save,
            recent_context=self.recent_context,
        )

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        return list(self.conn.execute(sql).fetchall())


@pytest.fixture
def memory(settings: Settings, tmp_path: Path) -> Iterator[Memory]:
    found = Memory(settings, tmp_path)
    yield found
    found.conn.close()


Session = Callable[[Client], Awaitable[None]]


def run_session(settings: Settings, memory: Memory, body: Session, *, mode: str = "auto") -> None:
    tools = MemoryTools(settings, memory.backend())
    server = build_mcp_server(settings, tools, transport="stdio")

    async def main() -> None:
        async with Client(server, mode=mode, client_info=Implementation(name="test-agent", version="1")) as client:
            await body(client)

    try:
        anyio.run(main)
    finally:
        tools.close()


def error_text(result: CallToolResult) -> str:
    assert result.is_error, result
    return " ".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.parametrize(("allow_review", "names"), [(False, 5), (True, 7)])
def test_review_tools_are_listed_only_when_allowed(memory: Memory, allow_review: bool, names: int) -> None:
    settings = load_settings(home=memory.settings.home_dir, mcp={"allow_review": allow_review})
    found: list[str] = []

    async def body(client: Client) -> None:
        found.extend(tool.name for tool in (await client.list_tools()).tools)

    run_session(settings, memory, body)
    assert len(found) == names
    assert {"search_memory", "read_memory", "save_memory", "get_recent_context", "list_pending"} <= set(found)
    assert ("confirm_insight" in found) is allow_review


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_search_returns_hits_with_offsets_into_the_original(memory: Memory, mode: str) -> None:
    results: list[dict[str, Any]] = []

    async def body(client: Client) -> None:
        result = await client.call_tool("search_memory", {"query": "readers never block", "project": "infra"})
        assert not result.is_error and result.structured_content is not None
        assert result.structured_content["mode"] == "keyword"
        results.extend(result.structured_content["results"])

    run_session(memory.settings, memory, body, mode=mode)
    passage = next(r for r in results if r["tier"] == "organized")
    assert passage["source"]["id"] == "src-1" and passage["source"]["project"] == "infra"
    assert DOC[passage["start"] : passage["end"]] == passage["text"]
    calls = memory.rows("SELECT tool, project, client, transport, outcome FROM tool_calls")
    assert calls == [("search_memory", "infra", "test-agent", "stdio", "ok")]


def test_what_the_model_reads_is_the_structured_answer_without_indentation_or_empty_fields(memory: Memory) -> None:
    seen: list[tuple[str, dict[str, Any], dict[str, Any]]] = []

    async def body(client: Client) -> None:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name, arguments in (
            ("search_memory", {"query": "readers never block", "project": "infra"}),
            ("read_memory", {"id": "src-1", "length": 200}),
            ("list_pending", {}),
            ("save_memory", {"text": "The staging database listens on port 6543.", "project": "infra"}),
        ):
            result = await client.call_tool(name, arguments)
            assert not result.is_error and result.structured_content is not None
            assert listed[name].output_schema is not None  # the schema agents validate against is still published
            (block,) = result.content
            assert isinstance(block, TextContent)
            seen.append((block.text, json.loads(block.text), result.structured_content))

    run_session(memory.settings, memory, body)

    def without_empty(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: without_empty(v) for k, v in value.items() if v is not None}
        return [without_empty(v) for v in value] if isinstance(value, list) else value

    for text, read, structured in seen:
        assert "\n  " not in text and ": null" not in text and '":null' not in text
        assert read == without_empty(structured)
    assert seen[0][1]["results"][0]["text"]  # the search found the passage


def test_a_private_projects_material_reaches_no_agent_working_elsewhere(memory: Memory, tmp_path: Path) -> None:
    # found by a new user: search_memory with project "*" returned a note headed "personal — do not share"
    note = tmp_path / "private-2026-11.md"
    note.write_text("# personal — do not share\n\nDr. Ferri on Thursday 8:30, bring the blood test.\n")
    state = StepState(memory.settings, extract_bytes)
    with open_writer(state) as writer:
        assert ingest_item(writer, state, IngestFile(note, "personal")).status == "added"
    quote = "Dr. Ferri on Thursday 8:30, bring the blood test."
    with write_transaction(memory.conn):
        candidate = Candidate("Blood test with Dr. Ferri on Thursdays", "event", "", quote, 27, 27 + len(quote))
        insert_insight(
            memory.conn,
            project="personal",
            candidate=candidate,
            relation="new",
            source_id=2,
            now="2026-12-01T00:00:00+00:00",
        )
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        for name, project in (("all", "*"), ("named", "personal")):
            found = await client.call_tool("search_memory", {"query": "Dr. Ferri blood test", "project": project})
            assert found.structured_content is not None
            seen[name] = found.structured_content["results"]
        seen["read"] = await client.call_tool("read_memory", {"id": "src-2"})
        pending = await client.call_tool("list_pending", {"project": "*"})
        assert pending.structured_content is not None
        seen["pending"] = [i["project"] for i in pending.structured_content["insights"]]
        seen["block"] = await client.call_tool("get_recent_context", {"project": "personal"})
        infra = await client.call_tool("search_memory", {"query": "readers never block", "project": "*"})
        assert infra.structured_content is not None
        seen["infra"] = infra.structured_content["results"]

    run_session(memory.settings, memory, body)
    assert [r["id"] for r in seen["all"] + seen["named"]] != []  # not private yet: found
    assert "personal" in seen["pending"] and not seen["block"].is_error
    marker = memory.settings.inbox_dir / "personal" / ".private"
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("")
    run_session(memory.settings, memory, body)
    assert seen["all"] == [] and seen["named"] == []
    assert "private project" in error_text(seen["read"])
    assert "personal" not in seen["pending"] and "infra" in seen["pending"]
    assert "private project" in error_text(seen["block"])
    assert seen["infra"]  # the other projects are read as before


def test_a_session_result_names_its_source_by_id_not_by_the_agents_log_path() -> None:
    # found by a new user: each session hit carried its transcript's path, ~110 characters an agent never uses
    log = "/home/me/.claude/projects/-home-me-code-orders-svc/3f7a9c21-1b2f-4c5d-8e9f-0a1b2c3d4e01.jsonl"
    session = SourceRef("src-1", "set up local dev", log, "orders-svc", "session", "claude", "3f7a9c21", "2026-11-18")
    note = SourceRef("src-2", "周会纪要", "/home/me/.incremind/inbox/orders-svc/周会.md", "orders-svc", "file")
    assert SourceOut.of(session).path is None
    assert SourceOut.of(session).session_id == "3f7a9c21" and SourceOut.of(session).id == "src-1"
    assert SourceOut.of(note).path == note.path


def test_search_of_insights_carries_status_condition_and_counts_as_use(memory: Memory) -> None:
    results: list[dict[str, Any]] = []

    async def pending(client: Client) -> None:
        result = await client.call_tool("search_memory", {"query": "SQLite WAL", "tier": "insight"})
        assert not result.is_error and result.structured_content is not None
        assert result.structured_content["results"] == []  # a pending candidate is not yet known

    run_session(memory.settings, memory, pending)
    with write_transaction(memory.conn):
        review(memory.conn, memory.insight_id, "confirm", actor="test", now="2026-12-01T00:00:00+00:00")

    async def body(client: Client) -> None:
        result = await client.call_tool("search_memory", {"query": "SQLite WAL", "tier": "insight"})
        assert not result.is_error and result.structured_content is not None
        results.extend(result.structured_content["results"])

    run_session(memory.settings, memory, body)
    hit = results[0]
    assert (hit["id"], hit["status"], hit["condition"]) == (
        f"ins-{memory.insight_id}",
        "confirmed",
        "when touching storage",
    )
    assert get_insight(memory.conn, memory.insight_id).use_count == 1


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"query": "   "}, "the query is empty"),
        ({"query": "wal", "project": "nowhere"}, "no project 'nowhere' in memory; known projects: infra"),
        ({"query": "wal", "tier": "gossip"}, "Input should be 'insight', 'summary', 'organized' or 'raw'"),
        ({"query": "wal", "limit": 0}, "greater than or equal to 1"),
    ],
)
def test_search_errors_are_tool_errors_with_a_sentence(memory: Memory, arguments: dict[str, Any], says: str) -> None:
    async def body(client: Client) -> None:
        assert says in error_text(await client.call_tool("search_memory", arguments))

    run_session(memory.settings, memory, body)
    (outcome,) = memory.rows("SELECT outcome FROM tool_calls")
    assert outcome[0].startswith("error: search_memory")


def test_read_memory_of_an_insight_drills_to_the_raw_words_and_counts_as_use(memory: Memory) -> None:
    items: list[dict[str, Any]] = []

    async def body(client: Client) -> None:
        result = await client.call_tool("read_memory", {"id": f"ins-{memory.insight_id}"})
        assert not result.is_error and result.structured_content is not None
        items.append(result.structured_content)

    run_session(memory.settings, memory, body)
    item = items[0]
    assert item["kind"] == "insight" and item["insight"]["condition"] == "when touching storage"
    evidence = item["evidence"][0]
    raw = evidence["raw"]
    assert raw["text"][raw["span_start"] - raw["start"] : raw["span_end"] - raw["start"]] == evidence["quote"]
    assert get_insight(memory.conn, memory.insight_id).use_count == 1


def test_read_memory_of_a_source_pages_through_the_original(memory: Memory) -> None:
    pages: list[dict[str, Any]] = []

    async def body(client: Client) -> None:
        first = await client.call_tool("read_memory", {"id": "src-1", "length": 40})
        assert first.structured_content is not None
        pages.append(first.structured_content)
        following = await client.call_tool("read_memory", {"id": "src-1", "offset": 40})
        assert following.structured_content is not None
        pages.append(following.structured_content)

    run_session(memory.settings, memory, body)
    assert pages[0]["raw"]["read_more"] == "read_memory(id='src-1', offset=40)"
    assert pages[0]["text"] + pages[1]["text"] == DOC
    assert pages[1]["raw"]["read_more"] is None


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"id": "pas-404"}, "no passage pas-404 in memory"),
        ({"id": "banana"}, "is not a memory id; ids look like src-1"),
        ({"id": "pas-1", "offset": 5}, "offset and length apply to sources"),
        ({"id": "src-1", "offset": 10_000}, "past the end of src-1"),
        ({"id": "src-99999999999999999999"}, "no source src-99999999999999999999 in memory; its number is larger"),
        ({"id": "ins-" + "9" * 5_000}, "no insight ins-999999999999999999999999999999999999… in memory"),
        ({"id": "src-\u0661"}, "'src-\u0661' is not a memory id"),  # an Arabic-Indic 1 is no ASCII digit
    ],
)
def test_read_memory_errors_name_the_fix(memory: Memory, arguments: dict[str, Any], says: str) -> None:
    async def body(client: Client) -> None:
        assert says in error_text(await client.call_tool("read_memory", arguments))

    run_session(memory.settings, memory, body)


def test_an_oversize_query_is_cut_and_the_answer_says_so(memory: Memory) -> None:
    answers: list[dict[str, Any]] = []
    query = "readers never block " + "zebra quagga okapi " * 25_000  # about 450 KB

    async def body(client: Client) -> None:
        result = await client.call_tool("search_memory", {"query": query, "project": "infra"})
        assert not result.is_error and result.structured_content is not None
        answers.append(result.structured_content)

    run_session(memory.settings, memory, body)
    answer = answers[0]
    assert len(answer["query"]) <= MAX_QUERY_CHARS and query.startswith(answer["query"])
    assert f"only its first {MAX_QUERY_WORDS} words" in answer["cut"]
    assert f"of {len(query):,} characters" in answer["cut"]
    assert any("readers never block" in hit["text"] for hit in answer["results"])


def test_a_short_query_is_not_cut(memory: Memory) -> None:
    answers: list[dict[str, Any]] = []

    async def body(client: Client) -> None:
        result = await client.call_tool("search_memory", {"query": "readers never block"})
        assert result.structured_content is not None
        answers.append(result.structured_content)

    run_session(memory.settings, memory, body)
    assert answers[0]["query"] == "readers never block" and answers[0]["cut"] is None


def test_an_oversize_save_is_refused_before_it_reaches_the_writer(memory: Memory) -> None:
    text = "We decided to keep every note. " * 10_000  # 310 KB

    async def body(client: Client) -> None:
        says = error_text(await client.call_tool("save_memory", {"text": text, "project": "infra"}))
        assert f"the text to save is 310 KB, and a save holds at most {MAX_SAVE_BYTES // 1000} KB" in says
        assert "drop the whole text into the inbox" in says

    run_session(memory.settings, memory, body)
    assert memory.saves == []
    assert memory.rows("SELECT count(*) FROM sources") == [(1,)]


def test_save_memory_reports_new_then_repeat_naming_the_known_insight(memory: Memory) -> None:
    answers: list[dict[str, Any]] = []
    text = "Always run the migration tests before a release of the storage layer."

    async def body(client: Client) -> None:
        for _ in range(2):
            result = await client.call_tool("save_memory", {"text": text, "project": "infra", "category": "method"})
            assert not result.is_error and result.structured_content is not None
            answers.append(result.structured_content)

    run_session(memory.settings, memory, body)
    first, second = answers
    assert first["relation"] == "new" and first["status"] == "pending" and first["id"].startswith("ins-")
    assert second["relation"] == "repeat" and second["known"]["id"] == first["id"]
    assert first["id"] in second["message"]
    assert memory.saves[0] == SaveRequest(text, "infra", "method", None, actor="mcp:test-agent", trusted=False)


def test_save_memory_trusted_when_configured(memory: Memory) -> None:
    settings = load_settings(home=memory.settings.home_dir, mcp={"trust_saves": True})

    async def body(client: Client) -> None:
        await client.call_tool("save_memory", {"text": "I prefer short commit messages.", "project": "infra"})

    run_session(settings, memory, body)
    assert memory.saves[0].trusted is True


@pytest.mark.parametrize(
    ("arguments", "says"),
    [({"text": "  "}, "nothing to save"), ({"text": "x", "category": "gossip"}, "Input should be 'identity'")],
)
def test_save_memory_errors(memory: Memory, arguments: dict[str, Any], says: str) -> None:
    async def body(client: Client) -> None:
        assert says in error_text(await client.call_tool("save_memory", arguments))

    run_session(memory.settings, memory, body)
    assert memory.saves == []


def test_recent_context_and_pending_list(memory: Memory) -> None:
    seen: list[Any] = []

    async def body(client: Client) -> None:
        context = await client.call_tool("get_recent_context", {"project": "infra"})
        seen.append(context.structured_content)
        pending = await client.call_tool("list_pending", {"project": "infra"})
        seen.append(pending.structured_content)
        seen.append(error_text(await client.call_tool("list_pending", {"project": "elsewhere"})))

    run_session(memory.settings, memory, body)
    assert seen[0] == {"result": "# Memory for infra\n- Memory lives in SQLite with WAL\n"}
    assert memory.contexts == ["infra"]
    assert seen[1]["total"] == 1 and seen[1]["insights"][0]["id"] == f"ins-{memory.insight_id}"
    assert "no project 'elsewhere'" in seen[2]


def test_confirm_and_reject_through_mcp_when_allowed(memory: Memory) -> None:
    settings = load_settings(home=memory.settings.home_dir, mcp={"allow_review": True})
    seen: list[Any] = []

    async def body(client: Client) -> None:
        confirmed = await client.call_tool("confirm_insight", {"id": f"ins-{memory.insight_id}"})
        seen.append(confirmed.structured_content)
        seen.append(error_text(await client.call_tool("reject_insight", {"id": f"ins-{memory.insight_id}"})))
        seen.append(error_text(await client.call_tool("confirm_insight", {"id": "pas-1"})))

    run_session(settings, memory, body)
    assert seen[0]["status"] == "confirmed"
    assert "is confirmed; only pending insights can be rejected" in seen[1]
    assert "'pas-1' is not an insight" in seen[2]
    actor = memory.rows(f"SELECT actor FROM audit WHERE target = 'ins-{memory.insight_id}' AND action = 'confirm'")
    assert actor == [("mcp:test-agent",)]


def test_a_busy_database_costs_the_log_row_not_the_answer(memory: Memory) -> None:
    def impatient() -> apsw.Connection:
        conn = connect(memory.settings.database_path)
        conn.set_busy_timeout(50)
        return conn

    tools = MemoryTools(memory.settings, replace(memory.backend(), open_conn=impatient))
    server = build_mcp_server(memory.settings, tools, transport="stdio")
    blocker = connect(memory.settings.database_path)

    async def main() -> None:
        async with Client(server) as client:
            blocker.execute("BEGIN IMMEDIATE")  # another writer holds the lock longer than the pool waits
            try:
                result = await client.call_tool("read_memory", {"id": f"ins-{memory.insight_id}"})
            finally:
                blocker.execute("ROLLBACK")
            assert not result.is_error

    try:
        anyio.run(main)
    finally:
        tools.close()
        blocker.close()
    assert memory.rows("SELECT count(*) FROM tool_calls") == [(0,)]


def test_with_a_writer_every_write_of_the_tools_goes_through_it(memory: Memory) -> None:
    """In the daemon the tools' writes (hotness, the call log, reviews) run on its one writer thread."""
    with write_transaction(memory.conn):
        review(memory.conn, memory.insight_id, "confirm", actor="test", now="2026-12-01T00:00:00+00:00")
    handed: list[str] = []

    def writer(change: Callable[[apsw.Connection], object]) -> object:
        handed.append(getattr(change, "__name__", "change"))
        return change(memory.conn)  # as the worker would, on its own connection

    def read_only() -> apsw.Connection:
        return connect(memory.settings.database_path, readonly=True)  # a write here would fail

    backend = replace(memory.backend(), open_conn=read_only, write=writer)
    tools = MemoryTools(memory.settings, backend)
    server = build_mcp_server(memory.settings, tools, transport="stdio")

    async def main() -> None:
        async with Client(server) as client:
            found = await client.call_tool("search_memory", {"query": "SQLite WAL", "tier": "insight"})
            assert not found.is_error and found.structured_content is not None
            assert found.structured_content["results"][0]["id"] == f"ins-{memory.insight_id}"

    try:
        anyio.run(main)
    finally:
        tools.close()
    assert len(handed) == 2  # the use of the insight, and the call's log row
    assert get_insight(memory.conn, memory.insight_id).use_count == 1
    assert memory.rows("SELECT tool FROM tool_calls") == [("search_memory",)]


def test_search_takes_a_budget_of_characters(memory: Memory) -> None:
    answers: list[dict[str, Any]] = []

    async def body(client: Client) -> None:
        arguments = {"query": "SQLite WAL", "project": "infra", "budget": 4_000}
        result = await client.call_tool("search_memory", arguments)
        assert not result.is_error and result.structured_content is not None
        answers.append(result.structured_content)
        refused = error_text(await client.call_tool("search_memory", {"query": "wal", "budget": 10}))
        assert "budget" in refused and "greater than or equal to 200" in refused

    run_session(memory.settings, memory, body)
    assert answers[0]["results"] and answers[0]["left_out"] == 0


def _hit(number: int, text: str, start: int | None = 0) -> Hit:
    source = SourceRef(id="src-1", title="t", path=None, project="p", kind="note")
    end = None if start is None else start + len(text)
    return Hit(
        id=f"pas-{number}", tier="organized", score=1.0, text=text, source=source, start=start, end=end, snippet=""
    )


def test_the_best_hits_that_fit_are_kept_in_rank_order() -> None:
    hits = [_hit(1, "a" * 150), _hit(2, "b" * 100), _hit(3, "c" * 40)]
    assert [hit.id for hit in within_budget(hits, 200)] == ["pas-1", "pas-3"]
    assert within_budget(hits, 4_000) == hits


def test_a_first_hit_longer_than_the_budget_is_cut_not_left_out() -> None:
    (cut,) = within_budget([_hit(1, "x" * 500, start=40), _hit(2, "y" * 300)], 200)
    assert (cut.id, len(cut.text), cut.start, cut.end) == ("pas-1", 200, 40, 240)
