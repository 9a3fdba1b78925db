"""`incremind setup --http` writes the home's token into each agent's file, 0600, and only for this home's daemon."""

from __future__ import annotations

import json
import os
import socket
import stat
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from incremind_daemon.cli import main
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.ops.doctor import check_agents, check_daemon
from incremind_daemon.serve import agent_setup
from incremind_daemon.serve.mcp_auth import rotate_home_token, token_path
from incremind_daemon.serve.mcp_http import McpHttpServer
from incremind_daemon.serve.mcp_tools import MemoryBackend
from incremind_daemon.store.db import connect
from incremind_daemon.store.records import SaveRequest, SaveResult
from tests.mcp_http_client import home_token

FILES = {"claude": ".claude.json", "codex": ".codex/config.toml", "gemini": ".gemini/settings.json"}
BEFORE = {"claude": '{"numStartups": 3}\n', "codex": 'model = "o3"\n', "gemini": '{"theme": "GitHub"}\n'}


@pytest.fixture(autouse=True)
def loose_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


@pytest.fixture
def port(monkeypatch: pytest.MonkeyPatch, private_home: Path) -> int:
    """A free port for this home's endpoint: never one a daemon on this machine holds."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = int(probe.getsockname()[1])
    monkeypatch.setenv("INCREMIND_MCP__PORT", str(free))
    return free


@pytest.fixture
def agent_files(private_home: Path, port: int) -> dict[str, Path]:
    """Each agent's config as the agent leaves it: readable by everyone (0644)."""
    paths = {}
    for agent, name in FILES.items():
        path = private_home / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(BEFORE[agent], encoding="utf-8")
        path.chmod(0o644)
        (private_home / f".{agent}").mkdir(exist_ok=True)
        paths[agent] = path
    return paths


def entry_of(agent: str, path: Path) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text) if agent == "codex" else json.loads(text)
    return dict(data["mcp_servers" if agent == "codex" else "mcpServers"]["incremind"])


def header_of(agent: str, entry: dict[str, object]) -> object:
    headers = entry["http_headers" if agent == "codex" else "headers"]
    assert isinstance(headers, dict)
    return headers["Authorization"]


@pytest.mark.parametrize("agent", agent_setup.AGENTS)
def test_setup_http_writes_the_token_as_the_agent_sends_it_and_makes_the_file_0600(
    agent_files: dict[str, Path], settings: Settings, port: int, agent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["setup", agent, "--http", "--no-hook"]) == 0
    out = capsys.readouterr().out
    token = home_token(settings.home_dir)
    path = agent_files[agent]
    entry = entry_of(agent, path)
    assert entry.get("url", entry.get("httpUrl")) == f"http://127.0.0.1:{port}/mcp"
    assert header_of(agent, entry) == f"Bearer {token}"
    if agent == "claude":
        assert entry["type"] == "http"
    if agent == "codex":  # Codex ignores `headers` and refuses an inline `bearer_token`
        assert "headers" not in entry and "bearer_token" not in entry
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.with_name(path.name + ".incremind-bak").stat().st_mode) == 0o600
    assert "made it 0600 (it was 0644)" in out and token not in out
    assert stat.S_IMODE(token_path(settings.home_dir).stat().st_mode) == 0o600


def test_setup_stdio_needs_no_token_and_leaves_the_mode(agent_files: dict[str, Path], settings: Settings) -> None:
    assert main(["setup", "gemini", "--stdio", "--no-hook"]) == 0
    entry = entry_of("gemini", agent_files["gemini"])
    assert "headers" not in entry and isinstance(entry["args"], list) and entry["args"][-1] == "mcp"
    assert stat.S_IMODE(agent_files["gemini"].stat().st_mode) == 0o644


def test_doctor_fails_an_http_entry_whose_token_is_stale_or_missing(
    agent_files: dict[str, Path], settings: Settings, private_home: Path
) -> None:
    for agent in agent_setup.AGENTS:
        assert main(["setup", agent, "--http", "--no-hook"]) == 0
    fresh = load_settings(home=settings.home_dir)
    assert {c.name: c.status for c in check_agents(fresh) if c.name.startswith("agent")} == {
        "agent claude": "ok",
        "agent codex": "ok",
        "agent gemini": "ok",
    }
    old = home_token(settings.home_dir)
    new = rotate_home_token(settings.home_dir)
    gemini = json.loads(agent_files["gemini"].read_text(encoding="utf-8"))
    del gemini["mcpServers"]["incremind"]["headers"]
    agent_files["gemini"].write_text(json.dumps(gemini), encoding="utf-8")
    checks = {c.name: c for c in check_agents(fresh) if c.name.startswith("agent")}
    for agent in ("claude", "codex"):
        assert checks[f"agent {agent}"].status == "fail" and "old or wrong token" in checks[f"agent {agent}"].detail
    assert checks["agent gemini"].status == "fail" and "sends no token" in checks["agent gemini"].detail
    for agent, check in checks.items():
        assert check.fix == f"incremind setup {agent.split()[1]}"
        assert old not in check.detail and new not in check.detail
    assert main(["setup", "codex", "--http", "--no-hook"]) == 0
    agent_files["codex"].chmod(0o644)  # as an agent rewriting its own file might leave it
    codex = next(c for c in check_agents(fresh) if c.name == "agent codex")
    assert codex.status == "fail" and "others may read the token in it (mode 0644)" in codex.detail
    assert main(["setup", "codex", "--http", "--no-hook"]) == 0  # the fix: setup narrows it again
    assert stat.S_IMODE(agent_files["codex"].stat().st_mode) == 0o600


def _refuse(request: SaveRequest) -> SaveResult:
    raise AssertionError("no save expected")


def another_homes_server(home: Path, port: int, **mcp: object) -> McpHttpServer:
    other = load_settings(home=home, mcp={"port": port, **mcp})
    server = McpHttpServer(
        other,
        MemoryBackend(open_conn=lambda: connect(other.database_path), save=_refuse, recent_context=lambda p: ""),
    )
    server.start()
    return server


def test_setup_and_doctor_fail_when_another_daemon_holds_the_port(
    agent_files: dict[str, Path], settings: Settings, private_home: Path, port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    server = another_homes_server(private_home / "other-home", port)
    try:
        assert main(["setup", "claude", "--http", "--no-hook"]) == 1
        err = capsys.readouterr().err
        assert "refused this home's token (HTTP 401): another daemon holds port" in err
        assert "mcp.port" in err and "incremind setup claude" in err
        assert agent_files["claude"].read_text(encoding="utf-8") == BEFORE["claude"]  # nothing written
        check = check_daemon(load_settings(home=settings.home_dir))
        assert check.status == "fail" and "not running, and" in check.detail and "another daemon holds" in check.detail
        assert "mcp.port" in check.fix
    finally:
        server.stop()


def test_setup_and_doctor_name_the_other_home_whose_daemon_answers_with_the_same_token(
    agent_files: dict[str, Path],
    settings: Settings,
    private_home: Path,
    port: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two homes sharing a token through mcp.token_env: only /health's home tells them apart."""
    monkeypatch.setenv("SHARED_TOKEN", "one-token-for-two-homes-0123456789")
    monkeypatch.setenv("INCREMIND_MCP__TOKEN_ENV", "SHARED_TOKEN")
    other = private_home / "other-home"
    server = another_homes_server(other, port, token_env="SHARED_TOKEN")
    try:
        assert main(["setup", "gemini", "--http", "--no-hook"]) == 1
        assert f"the incremind daemon of {other.resolve()}" in capsys.readouterr().err
        check = check_daemon(load_settings(home=settings.home_dir))
        assert check.status == "fail" and str(other.resolve()) in check.detail
    finally:
        server.stop()


def test_init_makes_the_token_once_and_token_show_prints_it_or_where_it_is(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    path = token_path(settings.home_dir)
    assert main(["token", "show"]) == 1 and "does not exist yet" in capsys.readouterr().err
    assert main(["init"]) == 0
    assert f"wrote {path}" in capsys.readouterr().out
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert main(["token", "show", "--path"]) == 0 and capsys.readouterr().out == f"{path}\n"
    assert main(["token", "show"]) == 0 and capsys.readouterr().out == f"{home_token(settings.home_dir)}\n"
    assert main(["init"]) == 0 and "token" not in capsys.readouterr().out


def test_token_commands_leave_a_token_from_mcp_token_env_to_the_person(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INCREMIND_MCP__TOKEN_ENV", "MY_TOKEN")
    for action in ("rotate", "show"):
        assert main(["token", action]) == 1
        assert "the value of $MY_TOKEN (mcp.token_env)" in capsys.readouterr().err
    assert not token_path(settings.home_dir).exists()
