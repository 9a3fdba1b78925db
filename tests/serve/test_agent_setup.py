"""`incremind setup`: our entry goes into each agent's real-shaped config, and only ours comes out again."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from incremind_daemon.cli import main
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.errors import IncremindError
from incremind_daemon.serve import agent_setup
from incremind_daemon.serve.agent_setup import Registration

CLAUDE_JSON = {
    "numStartups": 42,
    "installMethod": "native",
    "autoUpdates": False,
    "tipsHistory": {"new-user-warmup": 7, "memory-command": 12},
    "mcpServers": {
        "github": {
            "type": "http",
            "url": "https://api.githubcopilot.com/mcp/",
            "headers": {"Authorization": "Bearer ${GITHUB_PAT}"},
        },
        "sqlite": {
            "type": "stdio",
            "command": "uvx",
            "args": ["mcp-server-sqlite", "--db-path", "/tmp/t.db"],
            "env": {},
        },
    },
    "projects": {
        "/home/u/code/api": {
            "allowedTools": [],
            "mcpServers": {"local-only": {"type": "stdio", "command": "node", "args": ["srv.js"]}},
            "hasTrustDialogAccepted": True,
            "lastCost": 0.4213,
        }
    },
    "userID": "0f3c6a1e",
    "firstStartTime": "2026-03-01T09:12:44.120Z",
}

CODEX_TOML = """\
# Codex configuration
model = "gpt-5-codex"
approval_policy = "on-request"  # ask before running commands

[profiles.fast]
model = "gpt-5-mini"

[mcp_servers.github]
url = "https://api.githubcopilot.com/mcp/"
bearer_token_env_var = "GITHUB_PAT"

# the docs server, started on demand
[mcp_servers.docs]
command = "npx"
args = ["-y", "@acme/docs-mcp"]
env = { "DOCS_ROOT" = "/srv/docs" }

[mcp_servers.docs.tools.search]
approval_mode = "auto"

[tui]
notifications = true
"""

GEMINI_JSON = """{
    "theme": "GitHub",
    "selectedAuthType": "oauth-personal",
    "mcpServers": {
        "pythonTools": {
            "command": "python",
            "args": ["-m", "my_mcp_server"],
            "env": {"DATABASE_URL": "$DB_CONNECTION_STRING"},
            "timeout": 15000
        }
    },
    "excludeTools": ["run_shell_command"]
}
"""

HTTP = Registration("http", url="http://127.0.0.1:18765/mcp")
STDIO = Registration("stdio", command="/opt/incremind/bin/incremind", args=("mcp",))


@pytest.fixture
def homes(private_home: Path, settings: Settings) -> dict[str, Path]:
    claude = private_home / ".claude.json"
    claude.write_text(json.dumps(CLAUDE_JSON, indent=2), encoding="utf-8")
    claude.chmod(0o600)
    codex = private_home / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text(CODEX_TOML, encoding="utf-8")
    gemini = private_home / ".gemini" / "settings.json"
    gemini.parent.mkdir()
    gemini.write_text(GEMINI_JSON, encoding="utf-8")
    return {"claude": claude, "codex": codex, "gemini": gemini}


def _load(agent: str, path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text) if agent == "codex" else dict(json.loads(text))


def _servers(agent: str, data: dict[str, Any]) -> dict[str, Any]:
    return dict(data["mcp_servers" if agent == "codex" else "mcpServers"])


@pytest.mark.parametrize("agent", agent_setup.AGENTS)
@pytest.mark.parametrize("registration", [HTTP, STDIO], ids=["http", "stdio"])
def test_setup_adds_our_entry_and_keeps_every_other(
    settings: Settings, homes: dict[str, Path], agent: str, registration: Registration
) -> None:
    path = homes[agent]
    before_text = path.read_text(encoding="utf-8")
    before = _load(agent, path)
    result = agent_setup.register_server(agent, registration, settings)
    assert result.action == "added" and result.path == path
    assert result.backup is not None and result.backup.read_text(encoding="utf-8") == before_text
    after = _load(agent, path)
    servers = _servers(agent, after)
    assert servers.pop("incremind") == agent_setup.entry_for(agent, registration)
    after["mcp_servers" if agent == "codex" else "mcpServers"] = servers
    assert after == before  # every other entry, and the key order
    assert list(_load(agent, path)) == list(before)
    assert agent_setup.register_server(agent, registration, settings).action == "unchanged"

    assert agent_setup.unregister_server(agent, settings).action == "removed"
    if agent == "codex":
        assert path.read_text(encoding="utf-8") == before_text  # byte for byte
    else:
        assert _load(agent, path) == before
    assert agent_setup.unregister_server(agent, settings).action == "absent"


def test_claude_http_entry_has_type_and_token_header(settings: Settings) -> None:
    entry = agent_setup.entry_for("claude", Registration("http", url="http://127.0.0.1:1/mcp", token_env="MEM_TOKEN"))
    assert entry == {
        "type": "http",
        "url": "http://127.0.0.1:1/mcp",
        "headers": {"Authorization": "Bearer ${MEM_TOKEN}"},
    }
    assert agent_setup.entry_for("codex", Registration("http", url="u", token_env="MEM_TOKEN")) == {
        "url": "u",
        "bearer_token_env_var": "MEM_TOKEN",
    }
    assert agent_setup.entry_for("gemini", Registration("http", url="u")) == {"httpUrl": "u"}


def test_json_indent_and_file_mode_are_kept(settings: Settings, homes: dict[str, Path]) -> None:
    agent_setup.register_server("gemini", STDIO, settings)
    assert homes["gemini"].read_text(encoding="utf-8").startswith('{\n    "theme": "GitHub",')
    agent_setup.register_server("claude", HTTP, settings)
    assert homes["claude"].stat().st_mode & 0o777 == 0o600
    assert (homes["claude"].parent / ".claude.json.incremind-bak").stat().st_mode & 0o777 == 0o600


def test_codex_update_replaces_our_table_in_place(settings: Settings, homes: dict[str, Path]) -> None:
    agent_setup.register_server("codex", STDIO, settings)
    homes["codex"].write_text(homes["codex"].read_text(encoding="utf-8") + '\n[history]\npersistence = "none"\n')
    result = agent_setup.register_server("codex", HTTP, settings)
    assert result.action == "updated"
    text = homes["codex"].read_text(encoding="utf-8")
    assert text.index("[mcp_servers.incremind]") < text.index("[history]")
    assert tomllib.loads(text)["mcp_servers"]["incremind"] == {"url": "http://127.0.0.1:18765/mcp"}
    assert text.startswith(CODEX_TOML)


def test_codex_inline_entry_is_not_rewritten(settings: Settings, homes: dict[str, Path]) -> None:
    homes["codex"].write_text('mcp_servers = { incremind = { command = "x" } }\n', encoding="utf-8")
    with pytest.raises(IncremindError, match="remove that entry by hand"):
        agent_setup.register_server("codex", STDIO, settings)
    assert homes["codex"].read_text(encoding="utf-8") == 'mcp_servers = { incremind = { command = "x" } }\n'


def test_malformed_json_is_left_alone(settings: Settings, homes: dict[str, Path]) -> None:
    homes["gemini"].write_text('{\n  // my settings\n  "theme": "x"\n}\n', encoding="utf-8")
    with pytest.raises(IncremindError, match="not plain JSON"):
        agent_setup.register_server("gemini", HTTP, settings)


def test_setup_creates_a_missing_file(settings: Settings, private_home: Path) -> None:
    result = agent_setup.register_server("gemini", HTTP, settings)
    assert result.action == "added" and result.backup is None
    assert json.loads((private_home / ".gemini" / "settings.json").read_text()) == {
        "mcpServers": {"incremind": {"httpUrl": "http://127.0.0.1:18765/mcp"}}
    }


def test_claude_config_dir_moves_the_files(private_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(private_home / "alt-claude"))
    settings = load_settings(home=private_home / ".incremind")
    assert agent_setup.config_path("claude", settings) == private_home / "alt-claude" / ".claude.json"
    assert agent_setup.claude_settings_path(settings) == private_home / "alt-claude" / "settings.json"
    monkeypatch.setenv("CODEX_HOME", str(private_home / "cx"))
    assert agent_setup.config_path("codex", load_settings(home=private_home / ".incremind")) == (
        private_home / "cx" / "config.toml"
    )


def test_session_hook_is_added_once_and_removed_with_only_ours(settings: Settings, private_home: Path) -> None:
    path = private_home / ".claude" / "settings.json"
    path.parent.mkdir()
    theirs = {"matcher": "startup", "hooks": [{"type": "command", "command": "/usr/bin/other-tool context"}]}
    path.write_text(json.dumps({"model": "opus", "hooks": {"SessionStart": [theirs]}}, indent=2), encoding="utf-8")
    assert agent_setup.add_session_hook(settings).action == "added"
    assert agent_setup.add_session_hook(settings).action == "unchanged"
    groups = json.loads(path.read_text())["hooks"]["SessionStart"]
    assert groups[0] == theirs and len(groups) == 2
    ours = groups[1]["hooks"][0]
    assert ours["command"].endswith("hook claude-session-start") and ours["type"] == "command"
    assert agent_setup.remove_session_hook(settings).action == "removed"
    assert json.loads(path.read_text()) == {"model": "opus", "hooks": {"SessionStart": [theirs]}}


def test_setup_command_print_shows_the_snippet_and_writes_nothing(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    before = homes["codex"].read_text(encoding="utf-8")
    assert main(["setup", "codex", "--http", "--print"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('[mcp_servers.incremind]\nurl = "http://127.0.0.1:18765/mcp"\n')
    assert homes["codex"].read_text(encoding="utf-8") == before


def test_setup_command_registers_stdio_and_hook_then_undo(
    homes: dict[str, Path], private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["setup", "claude", "--stdio", "--hook"]) == 0
    entry = json.loads(homes["claude"].read_text())["mcpServers"]["incremind"]
    assert entry["type"] == "stdio" and entry["args"][-1] == "mcp" and Path(entry["command"]).is_absolute()
    hooks = json.loads((private_home / ".claude" / "settings.json").read_text())["hooks"]["SessionStart"]
    assert hooks[0]["hooks"][0]["command"].endswith("hook claude-session-start")
    assert main(["setup", "claude", "--undo"]) == 0
    assert "incremind" not in json.loads(homes["claude"].read_text())["mcpServers"]
    assert "hooks" not in json.loads((private_home / ".claude" / "settings.json").read_text())
    out = capsys.readouterr().out
    assert "removed the incremind MCP server" in out and "removed the SessionStart hook" in out


@pytest.mark.slow
def test_registered_stdio_command_starts_the_server(settings: Settings) -> None:
    registration = agent_setup.stdio_registration(settings)
    assert registration.command is not None
    done = subprocess.run(
        [registration.command, *registration.args[:-1], "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=None,
    )
    assert done.returncode == 0 and "incremind" in done.stdout
    assert registration.args[-1] == "mcp"
    assert sys.executable  # the fallback command is this very interpreter
