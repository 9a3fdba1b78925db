"""`incremind model use` takes effect in a running daemon without a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incremind_daemon import cli
from incremind_daemon.embedding.models import install_from
from tests.daemon_process import DaemonProcess, daemon_env
from tests.tiny_onnx import build_tiny_model
from tests.waiting import wait_until


def _coverage(capsys: pytest.CaptureFixture[str]) -> dict[str, tuple[str, int]]:
    capsys.readouterr()
    cli.main(["status", "--json"])
    report = json.loads(capsys.readouterr().out)
    return {e["model"]: (e["state"], sum(e["embedded"].values())) for e in report["embeddings"]}


def test_model_use_switches_the_running_daemon(
    private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = private_home / ".incremind"
    home.mkdir(parents=True)
    (home / "config.json").write_text('{"embedding": {"backend": "none"}}\n', encoding="utf-8")
    monkeypatch.delenv("INCREMIND_EMBEDDING__BACKEND")  # the config file decides, as for a user
    env = daemon_env()
    process = DaemonProcess(home, env)
    process.start()
    try:
        (home / "inbox" / "note.md").write_text("Spaced repetition: review on days 1, 2, 4, 7, 15.\n", "utf-8")
        wait_until(lambda: not list((home / "inbox").glob("*.md")), timeout=30)
        assert _coverage(capsys) == {}
        install_from(build_tiny_model(tmp_path / "tiny").folder, home / "models", name="tiny")
        assert cli.main(["model", "use", "tiny"]) == 0

        def embedded() -> bool:
            """the running daemon embedded the note with the new model"""
            found = _coverage(capsys)
            return any(state == "active" and count > 0 for state, count in found.values())

        wait_until(embedded, timeout=40)
        assert process.proc is not None and process.proc.poll() is None  # no restart
    finally:
        assert process.stop() == 0
