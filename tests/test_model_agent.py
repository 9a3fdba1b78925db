"""`incremind model use-agent`: the choice is checked, written to the config, shown, and picked up live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incremind_daemon import cli
from incremind_daemon.config import load_settings, read_jsonc
from incremind_daemon.daemon import Daemon
from incremind_daemon.pipeline.work import IngestFile
from incremind_daemon.store import insights, receipts
from incremind_daemon.store.db import connect
from tests.agent_stubs import candidates, install_agent_stub


def _config(private_home: Path) -> Path:
    return private_home / ".incremind" / "config.json"


def test_use_agent_writes_the_choice_with_the_executable_found(
    private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stub = install_agent_stub("claude", tmp_path, monkeypatch)
    assert cli.main(["model", "use-agent", "claude"]) == 0
    said = capsys.readouterr().out
    assert "Claude Code" in said and str(stub.executable) in said and "agent-runs" in said
    model = read_jsonc(_config(private_home))["model"]
    assert model == {"agent": "claude", "agent_command": str(stub.executable)}

    assert cli.main(["model", "status", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["insights"], report["agent_executable"]) == ("agent:claude", str(stub.executable))
    assert cli.main(["model", "list"]) == 0
    assert "candidate insights: agent:claude, Claude Code run headless" in capsys.readouterr().out
    cli.main(["status", "--json"])
    assert json.loads(capsys.readouterr().out)["insights"]["extraction"] == "agent:claude"

    assert cli.main(["model", "use-agent", "off"]) == 0
    assert "local rules" in capsys.readouterr().out
    assert "agent" not in read_jsonc(_config(private_home)).get("model", {})
    assert load_settings().model.insight_path == "local"


def test_use_agent_refuses_an_agent_that_is_not_installed(
    private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert cli.main(["model", "use-agent", "gemini"]) == 1
    said = capsys.readouterr().err
    assert "gemini is not on PATH" in said and "npm install -g @google/gemini-cli" in said
    assert not _config(private_home).exists()
    assert cli.main(["model", "use-agent", "cursor"]) == 1
    assert "claude, codex, gemini or off" in capsys.readouterr().err


def test_a_running_daemon_takes_up_the_agent_without_a_restart(
    private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = install_agent_stub("codex", tmp_path, monkeypatch)
    stub.script(candidates({"statement": "复习时先自答再翻面", "category": "method", "quote": "复习时先自答再翻面。"}))
    settings = load_settings(context={"enabled": False})
    daemon = Daemon(settings)
    note = tmp_path / "note.md"
    note.write_text("复习时先自答再翻面。\n", encoding="utf-8")
    daemon.worker.start()
    try:
        assert cli.main(["model", "use-agent", "codex"]) == 0
        daemon.reload_if_changed()  # what the heartbeat does every few seconds
        assert daemon.worker.submit(IngestFile(note, "study")).result(timeout=30).status == "added"
        daemon.worker.examine().result(timeout=30)  # by now the note is examined, by this call or in the background
        assert daemon.worker.stats.examined == 1
    finally:
        daemon.worker.stop()
        daemon.extractor.close()
    conn = connect(settings.database_path)
    assert [i.origin for i in insights.list_insights(conn)] == ["model"]
    assert [r.endpoint for r in receipts.list_receipts(conn)] == ["agent:codex"]
    assert len(stub.calls()) == 1
