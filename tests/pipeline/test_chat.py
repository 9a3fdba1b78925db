from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import apsw
import pytest

from incremind_daemon.config import Settings, load_settings
from incremind_daemon.errors import ConfigError
from incremind_daemon.pipeline.chat import (
    BudgetExhausted,
    ChatClient,
    ChatMessage,
    EndpointError,
    EndpointRefused,
    ModelReplyError,
    PrivateProjectError,
    chat_url,
    estimate_tokens,
)
from incremind_daemon.store.db import connect
from incremind_daemon.store.receipts import Receipt, list_receipts, record_receipt, tokens_spent
from tests.chat_stub import ChatStub, Reply, RouteTo, completion

MESSAGES = [ChatMessage("system", "Answer in JSON."), ChatMessage("user", "间隔重复：按第 1、2、4、7、15 天复习")]
NOON = datetime(2025, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[apsw.Connection]:
    connection = connect(tmp_path / "memory.db")
    yield connection
    connection.close()


def model_settings(home: Path, base_url: str, **model: Any) -> Settings:
    private = model.pop("private_projects", [])
    return load_settings(
        home=home / ".incremind",
        model={"base_url": base_url, "name": "stub-model", "max_retries": 2, **model},
        private_projects=private,
    )


def make_client(settings: Settings, conn: apsw.Connection, **options: Any) -> ChatClient:
    return ChatClient(
        settings,
        record=partial(record_receipt, conn),
        spent=partial(tokens_spent, conn),
        retry_delay=0,
        clock=lambda: NOON,
        **options,
    )


def ask(client: ChatClient, **options: Any) -> str:
    defaults: dict[str, Any] = {"parse": str.upper, "purpose": "insights", "project": "daily", "source_id": 3}
    return str(client.complete(MESSAGES, **{**defaults, **options}).value)


def test_completion_is_parsed_and_receipted_with_its_usage(
    private_home: Path, stub: ChatStub, conn: apsw.Connection
) -> None:
    stub.script(completion("fine", prompt_tokens=321, completion_tokens=12))
    with make_client(model_settings(private_home, stub.url), conn) as client:
        reply = client.complete(MESSAGES, parse=str.upper, purpose="insights", project="study", source_id=3)
    assert (reply.value, reply.content, reply.attempts) == ("FINE", "fine", 1)
    assert (reply.usage.input_tokens, reply.usage.output_tokens, reply.usage.estimated) == (321, 12, False)
    assert stub.paths == ["/v1/chat/completions"]
    assert stub.requests == [
        {"model": "stub-model", "messages": [{"role": m.role, "content": m.content} for m in MESSAGES]}
    ]
    [receipt] = list_receipts(conn)
    assert receipt == Receipt(
        at="2025-03-02T12:00:00.000+00:00",
        purpose="insights",
        endpoint=f"{stub.url}/v1/chat/completions",
        model="stub-model",
        project="study",
        outcome="ok",
        source_id=3,
        input_tokens=321,
        output_tokens=12,
        duration_ms=reply.duration_ms,
        detail="attempts: 200",
        id=receipt.id,
    )


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/"])
def test_base_url_with_or_without_v1_reaches_chat_completions(
    private_home: Path, stub: ChatStub, conn: apsw.Connection, suffix: str
) -> None:
    stub.script(completion("ok"))
    with make_client(model_settings(private_home, stub.url + suffix), conn) as client:
        assert client.url == f"{stub.url}/v1/chat/completions"
        ask(client)
    assert stub.paths == ["/v1/chat/completions"]


@pytest.mark.parametrize("base_url", ["ftp://127.0.0.1/", "127.0.0.1:8080"])
def test_base_url_without_http_scheme_raises_config_error(base_url: str) -> None:
    with pytest.raises(ConfigError, match="http:// or https://"):
        chat_url(base_url)


def test_client_without_model_name_raises_config_error(private_home: Path, conn: apsw.Connection) -> None:
    settings = load_settings(home=private_home / ".incremind", model={"base_url": "http://127.0.0.1:9"})
    with pytest.raises(ConfigError, match=r"model\.base_url and model\.name"):
        make_client(settings, conn)


def test_api_key_is_read_from_the_named_variable_and_never_receipted_or_logged(
    private_home: Path,
    stub: ChatStub,
    conn: apsw.Connection,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = "sk-test-9f8e7d6c5b4a39281706"
    monkeypatch.setenv("STUB_CHAT_KEY", key)
    stub.script(Reply(503, {"error": {"message": "busy"}}, retry_after="0"), completion("ok"))
    caplog.set_level(logging.DEBUG)
    with make_client(model_settings(private_home, stub.url, api_key_env="STUB_CHAT_KEY"), conn) as client:
        ask(client)
    assert stub.authorizations == [f"Bearer {key}", f"Bearer {key}"]
    assert key not in repr(list_receipts(conn))
    assert key not in caplog.text
    assert "retrying" in caplog.text


def test_missing_api_key_variable_raises_config_error(
    private_home: Path, stub: ChatStub, conn: apsw.Connection
) -> None:
    with pytest.raises(ConfigError, match="NO_SUCH_KEY_VAR"):
        make_client(model_settings(private_home, stub.url, api_key_env="NO_SUCH_KEY_VAR"), conn)


def test_credentials_in_the_base_url_stay_out_of_receipts(
    private_home: Path, stub: ChatStub, conn: apsw.Connection
) -> None:
    stub.script(completion("ok"))
    with_user = stub.url.replace("http://", "http://me:hunter2pass@")
    with make_client(model_settings(private_home, with_user), conn) as client:
        ask(client)
    [receipt] = list_receipts(conn)
    assert receipt.endpoint == f"{stub.url}/v1/chat/completions"
    assert "hunter2pass" not in repr(receipt)


def test_rate_limit_is_retried_after_retry_after_then_succeeds(
    private_home: Path, stub: ChatStub, conn: apsw.Connection
) -> None:
    stub.script(Reply(429, {"error": {"message": "slow down"}}, retry_after="0"), completion("done"))
    with make_client(model_settings(private_home, stub.url), conn) as client:
        assert ask(client) == "DONE"
    assert len(stub.requests) == 2
    [receipt] = list_receipts(conn)
    assert (receipt.outcome, receipt.detail) == ("ok", "attempts: 429, 200")
    assert (receipt.input_tokens, receipt.output_tokens) == (120, 40)


def test_server_errors_exhaust_the_retries_and_leave_an_error_receipt(
    private_home: Path, stub: ChatStub, conn: apsw.Connection
) -> None:
    stub.script(*[Reply(500, b"internal error") for _ in range(3)])
    with (
        make_client(model_settings(private_home, stub.url, max_retries=2), conn) as client,
        pytest.raises(EndpointError, match="answered 500 Internal Server Error 3 times"),
    ):
        ask(client)
    assert len(stub.requests) == 3
    [receipt] = list_receipts(conn)
    assert receipt.outcome.startswith("error: the model endpoint")
    assert (receipt.input_tokens, receipt.output_tokens) == (0, 0)
    assert receipt.detail == "attempts: 500, 500, 500"
    assert receipt.duration_ms >= 0


def test_timeout_is_retried(private_home: Path, stub: ChatStub, conn: apsw.Connection) -> None:
    stub.script(Reply(200, {}, stall_seconds=30), completion("late but fine"))
    with make_client(model_settings(private_home, stub.url, timeout_seconds=0.3), conn) as client:
        assert ask(client) == "LATE BUT FINE"
    [receipt] = list_receipts(conn)
    assert receipt.detail == "attempts: ReadTimeout, 200"


def test_unreachable_endpoint_raises_after_retries_with_a_receipt(private_home: Path, conn: apsw.Connection) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with (
        make_client(model_settings(private_home, f"http://127.0.0.1:{port}", max_retries=1), conn) as client,
        pytest.raises(EndpointError, match=r"could not reach the model endpoint .* in 2 attempts"),
    ):
        ask(client)
    [receipt] = list_receipts(conn)
    assert receipt.outcome.startswith("error: could not reach")
    assert receipt.detail == "attempts: ConnectError, ConnectError"


def test_refused_request_is_not_retried_and_is_receipted_as_rejected(
    private_home: Path, stub: ChatStub, conn: apsw.Connection
) -> None:
    stub.script(Reply(401, {"error": {"message": "invalid api key"}}))
    with (
        make_client(model_settings(private_home, stub.url), conn) as client,
        pytest.raises(EndpointRefused, match=r"401 Unauthorized: invalid api key.*check the API key"),
    ):
        ask(client)
    assert len(stub.requests) == 1
    assert list_receipts(conn)[0].outcome.startswith("rejected: the model endpoint")


def test_usage_is_estimated_when_the_server_reports_none(
    private_home: Path, stub: ChatStub, conn: apsw.Connection
) -> None:
    stub.script(completion("按难度调整间隔", prompt_tokens=None, completion_tokens=None))
    with make_client(model_settings(private_home, stub.url), conn) as client:
        reply = client.complete(MESSAGES, parse=str, purpose="insights", project="daily")
    assert reply.usage.estimated
    assert reply.usage.output_tokens == estimate_tokens("按难度调整间隔") == 7
    assert reply.usage.input_tokens > estimate_tokens(MESSAGES[1].content)
    [receipt] = list_receipts(conn)
    assert receipt.output_tokens == 7
    assert "tokens estimated" in receipt.detail


def rejecting(content: str) -> str:
    raise ModelReplyError(f"not what was asked for: {content}")


def test_reply_the_parser_rejects_is_receipted_as_an_error_with_its_tokens(
    private_home: Path, stub: ChatStub, conn: apsw.Connection
) -> None:
    stub.script(completion("Sure! Here are your insights:", prompt_tokens=200, completion_tokens=9))
    with (
        make_client(model_settings(private_home, stub.url), conn) as client,
        pytest.raises(ModelReplyError, match="not what was asked for"),
    ):
        ask(client, parse=rejecting)
    [receipt] = list_receipts(conn)
    assert receipt.outcome == "error: not what was asked for: Sure! Here are your insights:"
    assert (receipt.input_tokens, receipt.output_tokens) == (200, 9)


def test_cut_off_reply_says_so(private_home: Path, stub: ChatStub, conn: apsw.Connection) -> None:
    stub.script(completion('{"candidates": [', finish="length"))
    with (
        make_client(model_settings(private_home, stub.url), conn) as client,
        pytest.raises(ModelReplyError, match="cut off at the model's length limit"),
    ):
        ask(client, parse=rejecting)


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        (Reply(200, b"<html>gateway</html>"), "malformed JSON"),
        (completion(None), "without a message text"),
        (Reply(200, {"choices": []}), "without a message text"),
    ],
)
def test_unusable_completion_raises_reply_error_with_a_receipt(
    private_home: Path, stub: ChatStub, conn: apsw.Connection, reply: Reply, fragment: str
) -> None:
    stub.script(reply)
    with (
        make_client(model_settings(private_home, stub.url), conn) as client,
        pytest.raises(ModelReplyError, match=fragment),
    ):
        ask(client)
    [receipt] = list_receipts(conn)
    assert receipt.outcome.startswith("error:")
    assert receipt.input_tokens > 0  # an answered call is billed, so it counts


def test_content_parts_are_joined(private_home: Path, stub: ChatStub, conn: apsw.Connection) -> None:
    parts = [{"type": "text", "text": '{"candidates"'}, {"type": "text", "text": ": []}"}]
    stub.script(Reply(200, {"choices": [{"message": {"role": "assistant", "content": parts}}]}))
    with make_client(model_settings(private_home, stub.url), conn) as client:
        assert ask(client, parse=str) == '{"candidates": []}'


@pytest.mark.parametrize("how", ["configured", "marked", "flagged"])
def test_private_project_is_never_sent_to_a_remote_endpoint(
    private_home: Path, stub: ChatStub, conn: apsw.Connection, how: str
) -> None:
    settings = model_settings(
        private_home, "https://models.example.com/v1", private_projects=["diary"] if how == "configured" else []
    )
    if how == "marked":
        (settings.inbox_dir / "diary").mkdir(parents=True)
        (settings.inbox_dir / "diary" / ".private").touch()
    stub.script(completion("should never be asked"))
    with (
        make_client(settings, conn, transport=RouteTo(stub)) as client,
        pytest.raises(PrivateProjectError, match="'diary' is private"),
    ):
        ask(client, project="diary", private=how == "flagged")
    assert stub.requests == []
    assert list_receipts(conn) == []


def test_remote_route_reaches_the_stub_for_a_public_project(
    private_home: Path, stub: ChatStub, conn: apsw.Connection
) -> None:
    """The routing above is real: the same client does reach the stub when the project may be sent."""
    settings = model_settings(private_home, "https://models.example.com/v1", private_projects=["diary"])
    stub.script(completion("ok"))
    with make_client(settings, conn, transport=RouteTo(stub)) as client:
        assert not client.is_loopback
        assert ask(client, project="work") == "OK"
    assert len(stub.requests) == 1
    assert list_receipts(conn)[0].endpoint == "https://models.example.com/v1/chat/completions"


def test_private_project_may_use_a_loopback_endpoint(private_home: Path, stub: ChatStub, conn: apsw.Connection) -> None:
    stub.script(completion("local"))
    with make_client(model_settings(private_home, stub.url, private_projects=["diary"]), conn) as client:
        assert ask(client, project="diary", private=True) == "LOCAL"
    assert len(stub.requests) == 1


def test_spent_budget_stops_the_call_before_anything_is_sent(
    private_home: Path, stub: ChatStub, conn: apsw.Connection
) -> None:
    record_receipt(
        conn,
        Receipt("2025-03-02T08:00:00+00:00", "insights", "x", "stub-model", "daily", "ok", input_tokens=4_990),
    )
    stub.script(completion("should never be asked"))
    with make_client(model_settings(private_home, stub.url, daily_token_budget=5_000), conn) as client:
        assert client.budget().remaining == 10
        with pytest.raises(BudgetExhausted, match="daily model budget is spent") as caught:
            ask(client)
    assert caught.value.state.spent == 4_990
    assert stub.requests == []
    assert len(list_receipts(conn)) == 1


def test_budget_counts_only_today_utc(private_home: Path, stub: ChatStub, conn: apsw.Connection) -> None:
    record_receipt(
        conn,
        Receipt("2025-03-01T23:59:00+00:00", "insights", "x", "stub-model", "daily", "ok", input_tokens=100_000),
    )
    stub.script(completion("fresh day"))
    with make_client(model_settings(private_home, stub.url, daily_token_budget=5_000), conn) as client:
        assert ask(client) == "FRESH DAY"


def test_estimate_counts_cjk_characters_singly_and_latin_by_fours() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("复习时先自答再翻面") == 9
    assert estimate_tokens("review on days") == 4
