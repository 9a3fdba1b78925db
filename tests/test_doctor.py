"""`incremind doctor` on a healthy home and on homes with problems, with real parts."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from incremind_daemon import cli
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.daemon import prepare_home
from incremind_daemon.embedding.models import install_from
from incremind_daemon.ops.doctor import check_daemon, checks_of_the_daemon, mcp_registered
from incremind_daemon.serve import agent_hooks, agent_setup
from incremind_daemon.serve.mcp_auth import ensure_home_token
from tests.daemon_process import DaemonProcess, daemon_env
from tests.serve.test_agent_setup import approve_in_codex
from tests.tiny_onnx import build_tiny_model


def doctor(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, dict[str, str]]]:
    code = cli.main(["doctor", "--json"])
    checks = json.loads(capsys.readouterr().out)
    return code, {c["name"]: c for c in checks}


@pytest.fixture
def healthy(private_home: Path, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """A home with a model, an inbox, and all three agents installed with the memory tools and hook set up."""
    prepare_home(settings)
    install_from(build_tiny_model(tmp_path / "tiny").folder, settings.models_dir, name="tiny")
    monkeypatch.setenv("INCREMIND_EMBEDDING__BACKEND", "onnx")
    monkeypatch.setenv("INCREMIND_EMBEDDING__MODEL", "tiny")
    port = _free_port()  # nothing answers there: no daemon on this machine is taken for a stranger
    monkeypatch.setenv("INCREMIND_MCP__PORT", str(port))
    url = f"http://127.0.0.1:{port}/mcp"
    token = ensure_home_token(settings.home_dir)
    server = {"incremind": {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {token}"}}}
    (private_home / ".claude").mkdir()
    (private_home / ".claude.json").write_text(json.dumps({"mcpServers": server}), encoding="utf-8")
    (private_home / ".codex").mkdir()
    (private_home / ".codex" / "config.toml").write_text(
        f'model = "o3"\n\n[mcp_servers.incremind]\nurl = "{url}"\n'
        f'http_headers = {{ "Authorization" = "Bearer {token}" }}\n',
        encoding="utf-8",
    )
    (private_home / ".gemini").mkdir()
    gemini = {"mcpServers": {"incremind": {"httpUrl": url, "headers": {"Authorization": f"Bearer {token}"}}}}
    (private_home / ".gemini" / "settings.json").write_text(json.dumps(gemini), encoding="utf-8")
    for name in (".claude.json", ".codex/config.toml", ".gemini/settings.json"):
        (private_home / name).chmod(0o600)  # they hold the token, as setup leaves them
    for agent in agent_setup.AGENTS:
        agent_hooks.add_session_hook(agent, settings)
    approve_in_codex(private_home)
    return settings


def test_doctor_passes_a_healthy_home(healthy: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    code, checks = doctor(capsys)
    assert code == 0, checks
    assert not [c for c in checks.values() if c["status"] == "fail"]
    assert checks["sqlite"]["status"] == "ok" and "sqlite-vec" in checks["sqlite"]["detail"]
    assert checks["tokenizer"]["status"] == "ok"
    assert checks["embedding"]["status"] == "ok" and "onnx" in checks["embedding"]["detail"]
    for agent in ("claude", "codex", "gemini"):
        assert checks[f"agent {agent}"]["status"] == "ok", checks[f"agent {agent}"]
        assert "registered over HTTP" in checks[f"agent {agent}"]["detail"]
        assert "with the current token" in checks[f"agent {agent}"]["detail"]
        assert checks[f"context {agent}"]["status"] == "ok"
        assert checks[f"hook {agent}"]["status"] == "ok", checks[f"hook {agent}"]
    assert checks["inbox"]["status"] == "ok"
    assert checks["token"]["status"] == "ok" and checks["token"]["detail"].endswith("token (0600)")
    assert checks["daemon"] == {
        "name": "daemon",
        "status": "warn",
        "detail": "not running",
        "fix": "incremind start (or incremind service install)",
    }


def test_doctor_reports_each_problem_with_a_fix(
    healthy: Settings, private_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INCREMIND_EMBEDDING__MODEL", "not-installed")
    (private_home / ".claude.json").write_text("{ not json", encoding="utf-8")
    (private_home / ".codex" / "config.toml").write_text('model = "o3"\n', encoding="utf-8")
    (private_home / ".claude" / "CLAUDE.md").mkdir()  # a folder where the context file should be
    os.chmod(healthy.inbox_dir, 0o777)
    code, checks = doctor(capsys)
    assert code == 1
    assert checks["embedding"]["status"] == "fail" and "incremind model" in checks["embedding"]["fix"]
    assert checks["agent claude"]["status"] == "warn" and "cannot be parsed" in checks["agent claude"]["detail"]
    assert checks["agent codex"]["status"] == "warn" and checks["agent codex"]["fix"] == "incremind setup codex"
    assert checks["context claude"]["status"] == "fail" and "enabled to false" in checks["context claude"]["fix"]
    assert checks["inbox"]["status"] == "warn" and checks["inbox"]["fix"].startswith("chmod o-w")
    assert all(c["fix"] for c in checks.values() if c["status"] != "ok")


@pytest.mark.parametrize("agent", agent_setup.AGENTS)
def test_doctor_says_how_to_turn_on_a_missing_hook(
    healthy: Settings, agent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    agent_hooks.remove_session_hook(agent, healthy)
    code, checks = doctor(capsys)
    assert code == 0 and checks[f"hook {agent}"]["status"] == "warn"
    assert checks[f"hook {agent}"]["fix"] == f"incremind setup {agent}"
    assert f"{agent} gets only the compact global block" in checks[f"hook {agent}"]["detail"]
    assert [c for c in checks if c.startswith("hook") and checks[c]["status"] != "ok"] == [f"hook {agent}"]


def test_doctor_warns_of_a_codex_hook_not_yet_approved_and_of_hooks_turned_off(
    healthy: Settings, private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (private_home / ".codex" / "config.toml").write_text('[mcp_servers.incremind]\nurl = "u"\n', encoding="utf-8")
    (private_home / ".gemini" / "settings.json").write_text(
        json.dumps(
            {
                "hooksConfig": {"enabled": False},
                "hooks": json.loads(agent_hooks.hook_snippet("gemini", healthy))["hooks"],
            }
        ),
        encoding="utf-8",
    )
    _, checks = doctor(capsys)
    assert checks["hook codex"]["status"] == "warn" and "approve" in checks["hook codex"]["fix"]
    assert (
        checks["hook gemini"]["status"] == "warn" and "hooksConfig.enabled is false" in checks["hook gemini"]["detail"]
    )


def test_doctor_does_not_ask_for_hooks_of_agents_not_installed(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    _, checks = doctor(capsys)
    assert not [name for name in checks if name.startswith("hook")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_doctor_fails_an_unwritable_context_folder(
    healthy: Settings, private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = private_home / ".gemini"
    os.chmod(folder, 0o555)
    try:
        code, checks = doctor(capsys)
    finally:
        os.chmod(folder, 0o755)
    assert code == 1 and checks["context gemini"]["status"] == "fail"
    assert "not writable" in checks["context gemini"]["detail"]


BROKEN_CONFIGS = {
    "malformed JSON": ('{\n  "inbox": {"max_file_mb": 5,}\n}\n', ("config.json:2", "fix that line")),
    "unknown key": ('{"inbox": {"max_fil_mb": 5}}\n', ("config.json", "unknown setting 'inbox.max_fil_mb'")),
    "bad value": ('{"inbox": {"max_file_mb": -1}}\n', ("config.json", "'inbox.max_file_mb'", "greater than 0")),
}


@pytest.mark.parametrize("broken", sorted(BROKEN_CONFIGS))
def test_doctor_with_a_broken_config_runs_every_other_check_and_fails(
    settings: Settings, capsys: pytest.CaptureFixture[str], broken: str
) -> None:
    prepare_home(settings)
    text, expected = BROKEN_CONFIGS[broken]
    (settings.home_dir / "config.json").write_text(text, encoding="utf-8")
    code, checks = doctor(capsys)
    assert code == 1
    config = checks["config"]
    assert config["status"] == "fail" and all(part in config["detail"] for part in expected), config
    assert str(settings.home_dir / "config.json") in config["fix"] and "defaults" in config["fix"]
    # the rest ran on the defaults, in the home that was asked for
    for name in ("sqlite", "database", "tokenizer", "embedding", "disk", "inbox", "daemon"):
        assert name in checks, f"{name} was not checked"
    assert checks["sqlite"]["status"] == "ok" and checks["tokenizer"]["status"] == "ok"
    assert checks["inbox"]["status"] == "ok" and str(settings.inbox_dir) in checks["inbox"]["detail"]
    assert [c["name"] for c in checks.values() if c["status"] == "fail"] == ["config"]


def test_doctor_with_a_broken_config_prints_its_checklist(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    prepare_home(settings)
    (settings.home_dir / "config.json").write_text('{\n  "inbox": {"max_file_mb": 5,}\n}\n', encoding="utf-8")
    assert cli.main(["doctor"]) == 1
    out, err = capsys.readouterr()
    assert not err
    lines = out.splitlines()
    assert lines[0].startswith("fail  config") and "config.json:2" in lines[0] and "fix that line" in lines[0]
    assert lines[1].split()[0] == "fix:" and "config.json" in lines[1]
    assert any(line.startswith("ok    sqlite") for line in lines)
    assert lines[-1].startswith("1 failed,")


def test_doctor_with_a_broken_environment_uses_the_home_it_was_given(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other-home"
    prepare_home(load_settings(home=other))
    monkeypatch.setenv("INCREMIND_INBOX__MAX_FILE_MB", "lots")
    code = cli.main(["doctor", "--json", "--home", str(other)])
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)}
    assert code == 1
    assert checks["config"]["status"] == "fail" and "INCREMIND_INBOX__MAX_FILE_MB" in checks["config"]["detail"]
    assert str(other / "inbox") in checks["inbox"]["detail"]
    assert str(other / "memory.db") in checks["database"]["detail"]


@pytest.mark.parametrize("as_json", [False, True])
def test_status_with_a_broken_config_is_one_line_and_exit_1(
    settings: Settings, capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    prepare_home(settings)
    (settings.home_dir / "config.json").write_text('{"inbox": {"max_fil_mb": 5}}\n', encoding="utf-8")
    assert cli.main(["status", "--json"] if as_json else ["status"]) == 1
    out, err = capsys.readouterr()
    if as_json:
        assert not err and "unknown setting 'inbox.max_fil_mb'" in json.loads(out)["error"]
    else:
        assert not out and err.count("\n") == 1
        assert err.startswith("incremind: unknown setting 'inbox.max_fil_mb'") and "config.json" in err


def test_doctor_without_a_home_warns_but_does_not_fail(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    code, checks = doctor(capsys)
    assert code == 0
    assert checks["inbox"]["status"] == "warn" and checks["database"]["status"] == "ok"
    assert checks["embedding"]["status"] == "warn"  # the tests run keyword-only


@pytest.mark.parametrize(
    ("agent", "file", "text", "expected"),
    [
        ("claude", ".claude.json", "", (False, "")),
        ("claude", ".claude.json", '{"mcpServers": []}', (False, "")),
        ("gemini", ".gemini/settings.json", '{"mcpServers": {"incremind": {}}}', (True, "")),
        ("codex", ".codex/config.toml", "[mcp_servers.incremind\n", (False, "cannot be parsed")),
        ("codex", ".codex/config.toml", None, (False, "")),
    ],
)
def test_mcp_registration_is_read_tolerantly(
    private_home: Path, settings: Settings, agent: str, file: str, text: str | None, expected: tuple[bool, str]
) -> None:
    path = private_home / file
    if text is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    registered, problem = mcp_registered(agent, settings)
    assert registered == expected[0] and expected[1] in problem


def test_daemon_check_asks_the_daemon_on_its_socket_and_over_http(settings: Settings, private_home: Path) -> None:
    home = private_home / ".incremind"
    held = socket.socket()  # another program holds the configured port
    held.bind(("127.0.0.1", 0))
    held.listen(1)
    taken = int(held.getsockname()[1])
    process = DaemonProcess(home, daemon_env(INCREMIND_MCP__PORT=str(taken), INCREMIND_EMBEDDING__BACKEND="none"))
    process.start()
    try:
        check = check_daemon(load_settings(home=home, mcp={"port": taken}))
        assert check.status == "fail" and "not serving MCP over HTTP" in check.detail and str(taken) in check.detail
        assert "mcp.port" in check.fix
        status = subprocess.run(
            [sys.executable, "-m", "incremind_daemon", "status"], env=process.env, capture_output=True, text=True
        )
        assert "ERROR not served over HTTP" in status.stdout and str(taken) in status.stdout
    finally:
        process.stop()
        held.close()
    process = DaemonProcess(home, daemon_env(INCREMIND_EMBEDDING__BACKEND="none"))
    process.start()
    try:
        check = check_daemon(load_settings(home=home))
        assert check.status == "ok" and f"pid {process.proc.pid}" in check.detail  # type: ignore[union-attr]
        assert "/health answers" in check.detail
        doctor = checks_of_the_daemon(load_settings(home=home))  # its loaded segmenter and model
        assert [c.name for c in doctor] == ["tokenizer", "embedding"] and doctor[0].status == "ok"
    finally:
        process.stop()
    check = check_daemon(load_settings(home=home))
    assert check.status == "warn" and "not running" in check.detail


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_block_broken_by_hand_is_reported_with_the_fix_and_the_other_files_keep_updating(
    healthy: Settings, private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from incremind_daemon.pipeline.redact import redact
    from incremind_daemon.serve.context.blockfile import BEGIN, END
    from incremind_daemon.serve.context.writer import ContextWriter
    from incremind_daemon.store.db import connect

    claude_md = private_home / ".claude" / "CLAUDE.md"
    claude_md.write_text(f"# Mine\n{BEGIN}\nold\n{END}\n\n{END}\n", encoding="utf-8")
    conn = connect(healthy.database_path)
    try:
        results = {r.agent: r for r in ContextWriter(healthy, scrub=redact).regenerate(conn)}
    finally:
        conn.close()
    assert results["claude"].problem and "2 end markers" in results["claude"].problem
    assert results["codex"].problem is None and END in (private_home / ".codex" / "AGENTS.md").read_text()
    assert claude_md.read_text(encoding="utf-8").endswith(f"\n\n{END}\n")  # left as the person left it
    code, checks = doctor(capsys)
    assert code == 1 and checks["context claude"]["status"] == "fail"
    assert "1 incremind begin and 2 end markers" in checks["context claude"]["detail"]
    assert "delete the incremind marker lines" in checks["context claude"]["fix"]
    cli.main(["status"])  # exits 1: it has an error to show
    assert "CLAUDE.md has 1 incremind begin and 2 end markers" in capsys.readouterr().out


def test_doctor_says_when_gemini_loads_the_tools_in_no_folder(
    healthy: Settings, private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, checks = doctor(capsys)
    assert checks["gemini trusted folders"]["status"] == "warn"
    assert "you trust none yet" in checks["gemini trusted folders"]["detail"]
    rules = {str(private_home / "code"): "TRUST_FOLDER"}
    (private_home / ".gemini" / "trustedFolders.json").write_text(json.dumps(rules), encoding="utf-8")
    _, checks = doctor(capsys)
    assert str(private_home / "code") in checks["gemini trusted folders"]["detail"]
