"""A changed decision end to end: saved over MCP, confirmed, and from then on the only one used."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from incremind_daemon import cli
from incremind_daemon.config import Settings
from incremind_daemon.pipeline.insights import save_memory
from incremind_daemon.pipeline.redact import redact
from incremind_daemon.serve.context.targets import Target
from incremind_daemon.serve.context.writer import ContextWriter
from incremind_daemon.serve.mcp_server import build_mcp_server
from incremind_daemon.serve.mcp_tools import MemoryBackend, MemoryTools
from incremind_daemon.store import recall
from incremind_daemon.store.db import connect, write_transaction
from incremind_daemon.store.insights import get_insight, insert_insight, review
from incremind_daemon.store.records import Candidate, SaveRequest
from incremind_daemon.store.snapshots import SnapshotParts
from tests.serve.test_context_writer import add_session

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
OLD = "数据库就用 Postgres"
NEW = "Change of plans on the database: let's switch to SQLite"


def _tools(settings: Settings) -> MemoryTools:
    def save(request: SaveRequest) -> Any:
        conn = connect(settings.database_path)
        try:
            return save_memory(conn, settings, request)
        finally:
            conn.close()

    backend = MemoryBackend(
        open_conn=lambda: connect(settings.database_path), save=save, recent_context=lambda project: ""
    )
    return MemoryTools(settings, backend)


def _call(settings: Settings, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    tools = _tools(settings)
    server = build_mcp_server(settings, tools, transport="stdio")
    found: dict[str, Any] = {}

    async def main() -> None:
        async with Client(server) as client:
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, result.content
            found.update(result.structured_content or {})

    try:
        anyio.run(main)
    finally:
        tools.close()
    return found


def _block(settings: Settings) -> str:
    """Return the confirmed-memory part of ledger's block (recent activity lists the saved note itself)."""
    conn = connect(settings.database_path)
    try:
        target = Target(Path("ledger"), "project", None, "ledger", "inline")
        text = ContextWriter(settings, scrub=redact).render_for(conn, target, NOW).text
    finally:
        conn.close()
    return text.partition("## Confirmed memory")[2]


def _confirmed(conn: Any, statement: str) -> int:
    """Store a decision of ledger as the person confirmed it; return its id."""
    insight_id = insert_insight(
        conn,
        project="ledger",
        candidate=Candidate(statement, "decision", "", statement, 0, len(statement)),
        relation="new",
        source_id=None,
        now=NOW.isoformat(),
    )
    review(conn, insight_id, "confirm", actor="test", now=NOW.isoformat())
    return insight_id


def test_a_confirmed_supersede_leaves_only_the_new_decision_in_search_mcp_and_context(settings: Settings) -> None:
    conn = connect(settings.database_path)
    with write_transaction(conn):
        old = _confirmed(conn, OLD)
    conn.close()
    assert OLD in _block(settings)

    saved = _call(settings, "save_memory", {"text": NEW, "project": "ledger"})
    assert saved["relation"] == "supersedes" and saved["status"] == "pending"
    assert OLD in _block(settings) and "SQLite" not in _block(settings)  # nothing changes before the person says so

    assert cli.main(["confirm", saved["id"]]) == 0
    conn = connect(settings.database_path)
    assert get_insight(conn, old).status == "superseded"
    conn.close()
    block = _block(settings)
    assert "SQLite" in block and OLD not in block
    hits = _call(settings, "search_memory", {"query": "database Postgres SQLite", "project": "ledger"})["results"]
    insight_ids = [hit["id"] for hit in hits if hit["tier"] == "insight"]
    assert insight_ids == [saved["id"]]
    # every file an agent starts from: the global files, an enabled repository file, the hook files
    home = settings.home_dir.parent
    for folder in (".claude", ".codex", ".gemini"):
        (home / folder).mkdir(exist_ok=True)
    repo = home / "code" / "ledger"
    repo.mkdir(parents=True)
    conn = connect(settings.database_path)
    try:
        with write_transaction(conn):
            recall.save_context_target(
                conn,
                recall.ContextTargetRow(str(repo / "AGENTS.md"), "project", "codex", "ledger", "inline", True, False),
            )
        results = ContextWriter(settings, scrub=redact).regenerate(conn, NOW)
    finally:
        conn.close()
    assert len(results) == 4 and not any(r.problem for r in results)
    texts = [Path(r.path).read_text(encoding="utf-8") for r in results]
    texts += [p.read_text(encoding="utf-8") for p in (settings.context_dir / "hook").glob("*.json")]
    assert sum("SQLite" in text for text in texts) == 2  # the repository file and ledger's hook file
    assert not any("Postgres" in text for text in texts)


def test_confirm_says_what_it_retires_and_restore_brings_it_back(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    conn = connect(settings.database_path)
    with write_transaction(conn):
        old = _confirmed(conn, OLD)
    conn.close()
    saved = _call(settings, "save_memory", {"text": NEW, "project": "ledger"})
    capsys.readouterr()

    assert cli.main(["confirm", saved["id"]]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{saved['id']}  confirmed", f"  ins-{old}  superseded: {OLD}  (restore ins-{old} to undo)"]

    assert cli.main(["restore", f"ins-{old}"]) == 0  # the person reads it as no change after all
    assert capsys.readouterr().out.strip() == f"ins-{old}  confirmed"
    conn = connect(settings.database_path)
    assert get_insight(conn, old).status == "confirmed"
    conn.close()
    assert OLD in _block(settings)


def test_an_older_sessions_state_never_says_a_superseded_decision_again(settings: Settings) -> None:
    conn = connect(settings.database_path)
    with write_transaction(conn):
        state = SnapshotParts("把 ledger 的测试跑通", decisions=(f"{OLD}，不用 MySQL", "commit message 用英文"))
        add_session(conn, agent="claude", sid="s1", project="ledger", days_ago=2, index="测试", state=state)
        _confirmed(conn, OLD)
    conn.close()
    target = Target(Path("ledger"), "project", None, "ledger", "inline")

    def where_things_stand() -> str:
        conn = connect(settings.database_path)
        try:
            text = ContextWriter(settings, scrub=redact).render_for(conn, target, NOW).text
        finally:
            conn.close()
        return text.partition("## Where things stand")[2].partition("## Confirmed memory")[0]

    assert "commit message 用英文" in where_things_stand()  # the Postgres decision is said once, as ins-1
    saved = _call(settings, "save_memory", {"text": NEW, "project": "ledger"})
    assert cli.main(["confirm", saved["id"]]) == 0
    state_now = where_things_stand()
    assert "Postgres" not in state_now and "commit message 用英文" in state_now


def test_confirm_all_confirms_the_old_and_then_its_replacement_when_both_are_pending(
    settings: Settings, capsys: Any
) -> None:
    """Both said in the same week and never reviewed: confirming all of them lands on the newer one."""
    first = _call(settings, "save_memory", {"text": OLD, "project": "ledger"})
    second = _call(settings, "save_memory", {"text": NEW, "project": "ledger"})
    assert first["status"] == second["status"] == "pending"
    assert second["relation"] == "supersedes"

    assert cli.main(["confirm", "--all"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        f"{first['id']}  superseded",
        f"{second['id']}  confirmed",
        f"  {first['id']}  superseded: {OLD}  (restore {first['id']} to undo)",
    ]
    conn = connect(settings.database_path)
    try:
        assert get_insight(conn, int(first["id"].split("-")[1])).status == "superseded"
        assert get_insight(conn, int(second["id"].split("-")[1])).status == "confirmed"
    finally:
        conn.close()
    block = _block(settings)
    assert "SQLite" in block and "Postgres" not in block


@pytest.mark.parametrize(
    ("old", "new", "query"),
    [
        (
            "staging 的 API 端口是 8443",
            "端口的事改一下：staging 改成 9443 了，ops 昨天把网关整个迁到新机房，"
            "老的 8443 下周回收，脚本和文档都要跟着改",
            "staging 的 API 端口是多少",
        ),
        (
            "The staging API port is 8443",
            "Change of plans on ports: staging is now on 9443, ops moved the whole gateway to the new hall "
            "yesterday, and the old 8443 goes away next week, so scripts and docs follow",
            "staging API port",
        ),
    ],
)
def test_the_words_a_confirmed_change_replaced_come_after_what_holds_now(
    settings: Settings, old: str, new: str, query: str
) -> None:
    """Found by a new user: the superseded value's passage still came first for the question it answered."""
    first = _call(settings, "save_memory", {"text": old, "project": "ledger"})
    assert cli.main(["confirm", first["id"]]) == 0
    second = _call(settings, "save_memory", {"text": new, "project": "ledger"})
    assert second["relation"] == "supersedes"
    assert cli.main(["confirm", second["id"]]) == 0
    hits = _call(settings, "search_memory", {"query": query, "project": "ledger", "tier": "organized"})["results"]
    notes = [hit["source"]["id"] for hit in hits]
    assert notes.index(second["note_id"]) < notes.index(first["note_id"]), hits
