"""`incremind context show|write|enable|disable|status` end to end on a real home."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incremind_daemon.cli import main
from incremind_daemon.config import load_settings
from incremind_daemon.serve.context.blockfile import BEGIN
from incremind_daemon.store.db import connect, write_transaction
from tests.serve.test_context_writer import add_insight


@pytest.fixture
def repo(private_home: Path) -> Path:
    folder = private_home / "code" / "api"
    (folder / ".git" / "info").mkdir(parents=True)
    (folder / ".git" / "info" / "exclude").write_text("# git ls-files --others --exclude-from=.git/info/exclude\n")
    settings = load_settings(home=private_home / ".incremind")
    conn = connect(settings.database_path)
    try:
        with write_transaction(conn):
            add_insight(conn, project="api", category="method", statement="Run make check before pushing")
            add_insight(conn, project="web", category="method", statement="Storybook runs on port 6006")
    finally:
        conn.close()
    return folder


def test_enable_writes_the_project_block_and_excludes_the_file_it_created(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["context", "enable", str(repo)]) == 0
    text = (repo / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith(BEGIN) and "Run make check before pushing" in text
    assert "Storybook" not in text  # another project's method stays there
    assert (repo / ".git" / "info" / "exclude").read_text().endswith("/AGENTS.md\n")
    assert "AGENTS.md" in capsys.readouterr().out


def test_enable_keeps_a_tracked_file_out_of_the_exclude_list(repo: Path) -> None:
    (repo / "AGENTS.md").write_text("# Team rules\n\n- Be kind.\n", encoding="utf-8")
    assert main(["context", "enable", str(repo / "AGENTS.md")]) == 0
    assert (repo / "AGENTS.md").read_text(encoding="utf-8").startswith("# Team rules\n\n- Be kind.\n\n" + BEGIN)
    assert "AGENTS.md" not in (repo / ".git" / "info" / "exclude").read_text()


def test_disable_takes_the_block_out_and_stops_writing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "CLAUDE.local.md").write_text("my notes\n", encoding="utf-8")
    assert main(["context", "enable", str(repo), "--files", "AGENTS.md,CLAUDE.local.md"]) == 0
    assert main(["context", "disable", str(repo)]) == 0
    assert (repo / "CLAUDE.local.md").read_text(encoding="utf-8") == "my notes\n"
    assert not (repo / "AGENTS.md").exists()  # incremind created it, and it is empty again
    assert "AGENTS.md" not in (repo / ".git" / "info" / "exclude").read_text()
    assert main(["context", "write"]) == 0
    assert not (repo / "AGENTS.md").exists()
    capsys.readouterr()
    assert main(["context", "status", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["path"]: r["enabled"] for r in rows} == {
        str(repo / "AGENTS.md"): False,
        str(repo / "CLAUDE.local.md"): False,
    }


def test_show_prints_what_an_agent_reads_at_start_up_in_a_project(
    repo: Path, private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (private_home / ".claude").mkdir()
    settings = load_settings(home=private_home / ".incremind")
    conn = connect(settings.database_path)
    with write_transaction(conn):
        add_insight(conn, project="web", category="preference", statement="Answer in Chinese", scope="global")
    conn.close()
    assert main(["context", "show", "--project", "web"]) == 0
    out = capsys.readouterr().out
    assert "CLAUDE.md (global block)" in out and "Answer in Chinese" in out
    assert "Storybook runs on port 6006" not in out  # no hook yet: only the global block
    assert "has no SessionStart hook" in out and "incremind setup claude" in out
    assert main(["setup", "claude", "--stdio"]) == 0
    capsys.readouterr()
    assert main(["context", "show", "--project", "web", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [part["from"] for part in data["parts"]][1] == "claude's SessionStart hook"
    hooked = data["parts"][1]["text"]
    assert "Storybook runs on port 6006" in hooked and "Answer in Chinese" not in hooked  # not twice
    assert "Run make check" not in hooked  # another project's
    assert 0 < data["tokens"] == sum(p["tokens"] for p in data["parts"]) <= data["budget"] == 1500
    assert main(["context", "show", "--project", "web", "--agent", "codex", "--json"]) == 0
    codex = json.loads(capsys.readouterr().out)
    assert codex["parts"] == [] and "codex has no SessionStart hook" in codex["notes"][0]
    assert "no project" not in capsys.readouterr().err
    # a project memory holds nothing of: a typo, or a repository not worked in yet
    assert main(["context", "show", "--project", "wbe"]) == 0
    err = capsys.readouterr().err
    assert "no project 'wbe' in memory yet" in err and "web" in err


def test_show_in_a_repository_prints_what_an_agent_started_there_reads(
    repo: Path, private_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (private_home / ".claude").mkdir()
    assert main(["setup", "claude", "--stdio"]) == 0
    capsys.readouterr()
    monkeypatch.chdir(repo / ".git" / "info")  # anywhere inside the repository
    assert main(["context", "show", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["project"] == "api"
    hooked = data["parts"][1]["text"]
    assert "Run make check before pushing" in hooked and "Storybook runs on port 6006" not in hooked
    monkeypatch.chdir(private_home)  # outside any repository: the global block alone
    assert main(["context", "show", "--json"]) == 0
    assert "parts" not in json.loads(capsys.readouterr().out)


def test_enable_refuses_an_unknown_file_name(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["context", "enable", str(repo), "--files", "README.md"]) == 1
    assert "unknown file 'README.md'" in capsys.readouterr().err
