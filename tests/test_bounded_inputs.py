"""Oversize inputs are bounded before any work: saves refused, queries cut, embedder inputs capped.

The MCP side of each is in tests/serve/test_mcp_tools.py; here are the
writer's own refusal, the CLI's word on a cut query, and what the HTTP
embedder sends to an OpenAI-compatible endpoint.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from incremind_daemon import cli
from incremind_daemon.config import Settings
from incremind_daemon.embedding.http import MAX_INPUT_CHARS, HttpEmbedder
from incremind_daemon.errors import IncremindError
from incremind_daemon.pipeline.insights import save_memory
from incremind_daemon.store.db import connect, fetch_int
from incremind_daemon.store.records import MAX_CONDITION_CHARS, MAX_SAVE_BYTES, SaveRequest
from incremind_daemon.store.search import MAX_QUERY_WORDS


@pytest.mark.parametrize("unit", ["a", "记"])  # one byte, three bytes a character
def test_the_writer_refuses_a_save_over_the_limit_and_stores_nothing(settings: Settings, unit: str) -> None:
    text = unit * (MAX_SAVE_BYTES // len(unit.encode()) + 1)
    conn = connect(settings.database_path)
    try:
        with pytest.raises(IncremindError, match=f"a save holds at most {MAX_SAVE_BYTES // 1000} KB"):
            save_memory(conn, settings, SaveRequest(text, project="notes"))
        assert fetch_int(conn, "SELECT count(*) FROM sources") == 0
    finally:
        conn.close()


def test_the_writer_takes_a_save_of_exactly_the_limit(settings: Settings) -> None:
    sentence = "We keep the nightly backups for thirty days. "
    text = (sentence * (MAX_SAVE_BYTES // len(sentence) + 1))[:MAX_SAVE_BYTES]
    conn = connect(settings.database_path)
    try:
        result = save_memory(conn, settings, SaveRequest(text, project="notes"))
        assert fetch_int(conn, "SELECT count(*) FROM sources WHERE id = ?", (result.source_id,)) == 1
    finally:
        conn.close()


def test_a_save_with_a_condition_past_its_limit_is_refused_and_stores_nothing(settings: Settings) -> None:
    conn = connect(settings.database_path)
    try:
        request = SaveRequest("Use ruff for linting.", project="notes", condition="when " * MAX_CONDITION_CHARS)
        with pytest.raises(IncremindError, match=f"a condition holds at most {MAX_CONDITION_CHARS}"):
            save_memory(conn, settings, request)
        assert fetch_int(conn, "SELECT count(*) FROM sources") == 0
    finally:
        conn.close()


def test_a_saved_condition_is_stored_without_its_credentials(settings: Settings) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    conn = connect(settings.database_path)
    try:
        result = save_memory(
            conn,
            settings,
            SaveRequest("Deploy with the release script.", project="ops", condition=f"when the token is {token}"),
        )
        assert result.insight_id is not None
        stored = fetch_int(conn, "SELECT count(*) FROM insights WHERE condition LIKE ?", (f"%{token[4:20]}%",))
        assert stored == 0
        assert fetch_int(conn, "SELECT count(*) FROM insights WHERE condition LIKE 'when the token is %'") == 1
    finally:
        conn.close()


def test_cli_search_says_on_stderr_that_a_long_query_was_cut(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    note = tmp_path / "ports.md"
    note.write_text("The API listens on port 8080 behind the proxy.\n", encoding="utf-8")
    assert cli.main(["ingest", str(note), "--project", "api"]) == 0
    capsys.readouterr()
    query = "port 8080 " + "unrelated filler words " * 4_000  # about 90 KB, under one argument's limit
    assert cli.main(["search", query, "--json"]) == 0
    out, err = capsys.readouterr()
    hits = json.loads(out)
    assert hits and hits[0]["source"]["project"] == "api"
    assert f"incremind: The query was cut: only its first {MAX_QUERY_WORDS} words" in err


class _Embeddings(BaseHTTPRequestHandler):
    """An OpenAI-compatible /v1/embeddings that records the inputs it was sent."""

    server: _EmbeddingServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.inputs.extend(body["input"])
        data = [{"index": i, "embedding": [1.0, float(len(text)), 0.5]} for i, text in enumerate(body["input"])]
        answer = json.dumps({"data": data}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _EmbeddingServer(ThreadingHTTPServer):
    inputs: list[str]


@pytest.fixture
def endpoint() -> Iterator[_EmbeddingServer]:
    server = _EmbeddingServer(("127.0.0.1", 0), _Embeddings)
    server.inputs = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-embeddings")
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_http_embedder_sends_at_most_its_input_limit_of_each_text(endpoint: _EmbeddingServer) -> None:
    url = f"http://127.0.0.1:{endpoint.server_address[1]}"
    embedder = HttpEmbedder(url, "fake", api_key=None, dimension=3)
    try:
        embedder.embed_passages(["short", "长" * 1_000_000])
        embedder.embed_query("q " * 300_000)
    finally:
        embedder.close()
    assert [len(text) for text in endpoint.inputs] == [5, MAX_INPUT_CHARS, MAX_INPUT_CHARS]
    assert endpoint.inputs[1] == "长" * MAX_INPUT_CHARS


@pytest.mark.parametrize("bad", ["١", "99999999999999999999", "４"])
def test_review_commands_refuse_an_id_no_row_can_have(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    from incremind_daemon.cli import main

    assert main(["confirm", bad]) != 0
    assert "is not an insight id" in capsys.readouterr().err
