"""`incremind mcp` as a real subprocess: the SDK's stdio client, and nothing but protocol on stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from incremind_daemon.config import Settings
from incremind_daemon.pipeline.steps import StepState, ingest_item, open_writer
from incremind_daemon.pipeline.work import IngestFile
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store.db import connect

REPO = Path(__file__).resolve().parents[2]
DOC = "# Editor\n\nThe person edits Go with tabs and Python with four spaces.\n\n编辑器用 Neovim。\n"


def server_params(**env: str) -> StdioServerParameters:
    # the test's own environment: a private HOME and INCREMIND_HOME, keyword search only
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "incremind_daemon", "mcp"],
        env=dict(os.environ, PYTHONPATH=str(REPO), **env),
    )


@pytest.fixture
def ingested(settings: Settings, tmp_path: Path) -> Settings:
    path = tmp_path / "editor.md"
    path.write_text(DOC, encoding="utf-8")
    state = StepState(settings, extract_bytes)
    with open_writer(state) as writer:
        assert ingest_item(writer, state, IngestFile(path, "tools")).status == "added"
    return settings


@pytest.mark.slow
def test_every_tool_over_stdio(ingested: Settings) -> None:
    async def session() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        info = Implementation(name="codex", version="0.159")
        async with Client(server_params(), client_info=info, mode="legacy") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == {"search_memory", "read_memory", "save_memory", "get_recent_context", "list_pending"}
            for tool, arguments in [
                ("search_memory", {"query": "four spaces", "project": "tools"}),
                ("read_memory", {"id": "pas-1"}),
                ("save_memory", {"text": "I prefer Neovim for every language.", "project": "tools"}),
                ("search_memory", {"query": "Neovim every language"}),
                ("list_pending", {}),
                ("get_recent_context", {"project": "tools"}),
            ]:
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, (tool, result.content)
                seen.setdefault(tool, []).append(result.structured_content)
            for tool, arguments in [
                ("search_memory", {"query": ""}),
                ("read_memory", {"id": "sum-77"}),
                ("list_pending", {"project": "nope"}),
            ]:
                assert (await client.call_tool(tool, arguments)).is_error
        return seen

    seen = anyio.run(session)
    first = next(r for r in seen["search_memory"][0]["results"] if r["tier"] == "organized")
    assert first["source"]["project"] == "tools" and DOC[first["start"] : first["end"]] == first["text"]
    assert seen["read_memory"][0]["raw"]["text"] == DOC
    saved = seen["save_memory"][0]
    assert saved["relation"] == "new" and saved["status"] == "pending"
    # a save is searchable at once, by the same process
    assert saved["note_id"] in {r["source"]["id"] for r in seen["search_memory"][1]["results"]}
    assert "Memory from incremind" in seen["get_recent_context"][0]["result"]  # the preloaded block itself
    conn = connect(ingested.database_path)
    try:
        calls = conn.execute("SELECT tool, client, transport, outcome FROM tool_calls ORDER BY id").fetchall()
    finally:
        conn.close()
    assert len(calls) == 9 and {c[1:3] for c in calls} == {("codex", "stdio")}
    assert [c[3] == "ok" for c in calls] == [True] * 6 + [False] * 3


@pytest.mark.slow
def test_stdout_carries_only_protocol_messages(ingested: Settings) -> None:
    params = server_params()
    messages: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "search_memory", "arguments": {"query": "tabs"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "read_memory", "arguments": {"id": "x"}},
        },
    ]
    proc = subprocess.Popen(
        [params.command, *params.args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=params.env,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: list[str] = []
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if "id" in message:
                lines.append(proc.stdout.readline())  # the answer comes before the next question
        proc.stdin.close()
        lines += proc.stdout.read().splitlines()  # whatever else was written before it exited
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    replies = [json.loads(line) for line in lines if line.strip()]  # every line is one JSON-RPC message
    assert len(replies) == 3 and all(reply["jsonrpc"] == "2.0" for reply in replies)
    by_id = {reply.get("id"): reply for reply in replies}
    assert by_id[1]["result"]["serverInfo"]["name"] == "incremind"
    assert by_id[2].get("result", {}).get("isError") is False, by_id[2]
    assert by_id[3]["result"]["isError"] is True


@pytest.mark.slow
def test_a_note_saved_over_stdio_with_no_daemon_is_found_by_meaning(settings: Settings) -> None:
    note = "间隔重复：按第 1、2、4、7、15 天复习单词，可以记得更牢。"

    def embedded() -> bool:
        conn = connect(settings.database_path)
        try:
            waiting = conn.execute("SELECT count(*) FROM embed_queue").fetchall()[0][0]
            active = conn.execute("SELECT count(*) FROM vector_models WHERE state = 'active'").fetchall()[0][0]
        finally:
            conn.close()
        return waiting == 0 and active == 1

    async def session() -> dict[str, Any]:
        async with Client(server_params(INCREMIND_EMBEDDING__BACKEND="use-m3"), mode="legacy") as client:
            saved = await client.call_tool("save_memory", {"text": note, "project": "study"})
            assert not saved.is_error, saved.content
            with anyio.fail_after(60):  # the model loads, then the note, its summary and its candidate are embedded
                while not embedded():
                    await anyio.sleep(0.2)
            found = await client.call_tool("search_memory", {"query": "怎么才能把单词记牢", "limit": 3})
            assert found.structured_content is not None
            return found.structured_content

    found = anyio.run(session)
    assert found["mode"] == "hybrid"
    assert note in found["results"][0]["text"]


@pytest.mark.slow
def test_a_session_in_a_repository_reads_and_saves_its_project_unless_asked_for_all(
    settings: Settings, tmp_path: Path
) -> None:
    """Found by a new user: an agent working in one repository got the other's memory, and saved into neither."""
    state = StepState(settings, extract_bytes)
    notes = {"api": "The api gateway listens on port 8443.\n", "web": "The web frontend listens on port 5173.\n"}
    with open_writer(state) as writer:
        for project, text in notes.items():
            path = tmp_path / f"{project}.md"
            path.write_text(text, encoding="utf-8")
            assert ingest_item(writer, state, IngestFile(path, project)).status == "added"
    repo = tmp_path / "code" / "api"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    params = server_params()
    params.cwd = repo / "src"  # the agent works in a folder of the repository

    async def session() -> dict[str, Any]:
        async with Client(params, mode="legacy") as client:
            calls = {
                "here": ("search_memory", {"query": "listens on port"}),
                "all": ("search_memory", {"query": "listens on port", "project": "*"}),
                "saved": ("save_memory", {"text": "Always run the api's migrations with alembic."}),
                "context": ("get_recent_context", {}),
                "global": ("get_recent_context", {"project": "*"}),
            }
            seen = {}
            for name, (tool, arguments) in calls.items():
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, (tool, result.content)
                seen[name] = result.structured_content
            return seen

    seen = anyio.run(session)
    assert seen["here"]["project"] == "api"
    assert {r["source"]["project"] for r in seen["here"]["results"]} == {"api"}
    assert seen["all"]["project"] is None
    assert {r["source"]["project"] for r in seen["all"]["results"]} == {"api", "web"}
    conn = connect(settings.database_path)
    try:
        saved = conn.execute("SELECT project FROM sources WHERE id = ?", (row_of(seen["saved"]["note_id"]),))
        assert saved.fetchall() == [("api",)]
    finally:
        conn.close()
    # the block a new session in the repository starts with, not the global one
    assert "agent session in api" in seen["context"]["result"]
    assert " in api " not in seen["global"]["result"]


def row_of(public_id: str) -> int:
    return int(public_id.rsplit("-", 1)[1])
