"""Gemini CLI loads MCP servers only in trusted folders: what setup and doctor tell the person."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incremind_daemon.serve.gemini_trust import gemini_trust


@pytest.fixture
def gemini(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("GEMINI_CLI_TRUSTED_FOLDERS_PATH", "GEMINI_CLI_TRUST_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / ".gemini"
    folder.mkdir()
    return folder


def test_no_trusted_folder_means_the_tools_load_nowhere(gemini: Path) -> None:
    notice = gemini_trust(gemini).notice()
    assert notice is not None and "you trust none yet" in notice and str(gemini / "trustedFolders.json") in notice


def test_trusted_folders_are_named_and_a_parent_rule_trusts_the_parent(gemini: Path, tmp_path: Path) -> None:
    rules = {str(tmp_path / "api"): "TRUST_FOLDER", str(tmp_path / "web" / "app"): "TRUST_PARENT", "/x": "DO_NOT_TRUST"}
    (gemini / "trustedFolders.json").write_text("// Gemini writes comments too\n" + json.dumps(rules))
    trust = gemini_trust(gemini)
    assert trust.trusted == (tmp_path / "api", tmp_path / "web")
    notice = trust.notice()
    assert notice is not None and "only under the folders you trust" in notice


@pytest.mark.parametrize("how", ["setting", "variable"])
def test_with_folder_trust_off_the_tools_load_everywhere(
    gemini: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "setting":
        (gemini / "settings.json").write_text(json.dumps({"security": {"folderTrust": {"enabled": False}}}))
    else:
        monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    assert gemini_trust(gemini).notice() is None


def test_the_rules_file_can_live_elsewhere(gemini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path / "rules.json"
    elsewhere.write_text(json.dumps({str(tmp_path): "TRUST_FOLDER"}))
    monkeypatch.setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", str(elsewhere))
    assert gemini_trust(gemini).trusted == (tmp_path,)
