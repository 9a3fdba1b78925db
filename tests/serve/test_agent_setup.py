"""`incremind setup`: our entry goes into each agent's real-shaped config, and only ours comes out again."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from incremind_daemon.cli import main
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.errors import IncremindError
from incremind_daemon.serve import agent_hooks, agent_setup
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

TOKEN = "tok-0123456789abcdefghijklmnopqrstuvwxyz_AB"
HTTP = Registration("http", url="http://127.0.0.1:18765/mcp", token=TOKEN)
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


def test_http_entries_carry_the_token_in_the_header_each_agent_sends() -> None:
    reg = Registration("http", url="http://127.0.0.1:1/mcp", token=TOKEN)
    header = {"Authorization": f"Bearer {TOKEN}"}
    assert agent_setup.entry_for("claude", reg) == {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": header}
    # Codex ignores a field named headers and refuses an inline bearer_token
    assert agent_setup.entry_for("codex", reg) == {"url": "http://127.0.0.1:1/mcp", "http_headers": header}
    assert agent_setup.entry_for("gemini", reg) == {"httpUrl": "http://127.0.0.1:1/mcp", "headers": header}
    assert TOKEN not in repr(reg)


def test_http_entries_name_the_variable_of_mcp_token_env() -> None:
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
    assert agent_setup.entry_for("gemini", Registration("http", url="u", token_env="MEM_TOKEN")) == {
        "httpUrl": "u",
        "headers": {"Authorization": "Bearer ${MEM_TOKEN}"},
    }


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
    assert tomllib.loads(text)["mcp_servers"]["incremind"] == {
        "url": "http://127.0.0.1:18765/mcp",
        "http_headers": {"Authorization": f"Bearer {TOKEN}"},
    }
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
    path = private_home / ".gemini" / "settings.json"
    assert json.loads(path.read_text()) == {
        "mcpServers": {
            "incremind": {"httpUrl": "http://127.0.0.1:18765/mcp", "headers": {"Authorization": f"Bearer {TOKEN}"}}
        }
    }
    assert path.stat().st_mode & 0o777 == 0o600


def test_claude_config_dir_moves_the_files(private_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(private_home / "alt-claude"))
    settings = load_settings(home=private_home / ".incremind")
    assert agent_setup.config_path("claude", settings) == private_home / "alt-claude" / ".claude.json"
    assert agent_hooks.hook_path("claude", settings) == private_home / "alt-claude" / "settings.json"
    monkeypatch.setenv("CODEX_HOME", str(private_home / "cx"))
    assert agent_setup.config_path("codex", load_settings(home=private_home / ".incremind")) == (
        private_home / "cx" / "config.toml"
    )
    assert agent_hooks.hook_path("codex", load_settings(home=private_home / ".incremind")) == (
        private_home / "cx" / "hooks.json"
    )


# another tool's SessionStart hook, in each agent's own hooks file and shape
THEIR_HOOK = {
    "claude": {"matcher": "startup", "hooks": [{"type": "command", "command": "/usr/bin/other-tool context"}]},
    "codex": {"matcher": "startup|resume", "hooks": [{"type": "command", "command": "other-tool ctx", "timeout": 5}]},
    "gemini": {
        "matcher": "*",
        "hooks": [{"name": "other", "type": "command", "command": "other-tool", "timeout": 500}],
    },
}
HOOK_FILES = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json", "gemini": ".gemini/settings.json"}


def hook_file(private_home: Path, agent: str, data: dict[str, Any]) -> Path:
    path = private_home / HOOK_FILES[agent]
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def their_file(agent: str) -> dict[str, Any]:
    """Return a hooks file as the person keeps it: other settings and another tool's hook."""
    other = {
        "claude": {"model": "opus"},
        "codex": {},
        "gemini": {"theme": "GitHub", "mcpServers": {"x": {"command": "x"}}},
    }
    return {**other[agent], "hooks": {"SessionStart": [THEIR_HOOK[agent]], "Stop": [THEIR_HOOK[agent]]}}


@pytest.mark.parametrize("agent", agent_setup.AGENTS)
def test_session_hook_is_added_once_and_removed_with_only_ours(
    settings: Settings, private_home: Path, agent: str
) -> None:
    path = hook_file(private_home, agent, their_file(agent))
    assert agent_hooks.find_session_hook(agent, settings) is None
    assert agent_hooks.add_session_hook(agent, settings).action == "added"
    assert agent_hooks.add_session_hook(agent, settings).action == "unchanged"
    assert path.with_name(path.name + ".incremind-bak").read_text(encoding="utf-8") == json.dumps(
        their_file(agent), indent=2
    )
    data = json.loads(path.read_text(encoding="utf-8"))
    groups = data["hooks"]["SessionStart"]
    assert groups[0] == THEIR_HOOK[agent] and len(groups) == 2 and data["hooks"]["Stop"] == [THEIR_HOOK[agent]]
    assert groups[1]["hooks"] == [agent_hooks.hook_handler(agent, settings)]
    assert agent_hooks.find_session_hook(agent, settings) == (1, 0)
    assert agent_hooks.remove_session_hook(agent, settings).action == "removed"
    assert json.loads(path.read_text(encoding="utf-8")) == their_file(agent)
    assert agent_hooks.remove_session_hook(agent, settings).action == "absent"


@pytest.mark.parametrize(
    ("agent", "matcher", "timeout"),
    [
        ("claude", "startup|resume|clear|compact", 10),
        ("codex", "startup|resume|clear|compact", 10),
        ("gemini", "*", 10_000),
    ],
)
def test_hook_entry_has_the_agents_matcher_and_timeout_unit(
    settings: Settings, agent: str, matcher: str, timeout: int
) -> None:
    group = json.loads(agent_hooks.hook_snippet(agent, settings))["hooks"]["SessionStart"][0]
    handler = group["hooks"][0]
    assert group["matcher"] == matcher and handler["type"] == "command" and handler["timeout"] == timeout
    words = shlex.split(handler["command"])
    assert Path(words[0]).is_absolute() and words[-2:] == ["hook", f"{agent}-session-start"]
    assert handler.get("name") == ("incremind" if agent == "gemini" else None)  # Gemini's /hooks and disabled list


def test_hook_command_names_a_home_other_than_the_default(private_home: Path) -> None:
    elsewhere = load_settings(home=private_home / "memory home")
    words = shlex.split(agent_hooks.hook_command("gemini", elsewhere))  # the agent's environment does not say
    assert words[-4:] == ["hook", "gemini-session-start", "--home", str(private_home / "memory home")]
    assert agent_hooks.is_our_hook({"command": agent_hooks.hook_command("gemini", elsewhere)}, "gemini")
    assert not agent_hooks.is_our_hook({"command": agent_hooks.hook_command("gemini", elsewhere)}, "codex")


def test_a_hook_from_an_older_setup_is_updated_in_place(settings: Settings, private_home: Path) -> None:
    old = {"type": "command", "command": "/old/venv/bin/incremind hook claude-session-start", "timeout": 10}
    path = hook_file(private_home, "claude", {"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [old]}]}})
    assert agent_hooks.add_session_hook("claude", settings).action == "updated"
    groups = json.loads(path.read_text(encoding="utf-8"))["hooks"]["SessionStart"]
    assert groups == [{"matcher": "startup", "hooks": [agent_hooks.hook_handler("claude", settings)]}]


def test_codex_keeps_an_emptied_group_before_another(settings: Settings, private_home: Path) -> None:
    """Codex keys a hook's approval by its group's position: removing ours must not shift theirs."""
    path = hook_file(private_home, "codex", {})
    agent_hooks.add_session_hook("codex", settings)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["hooks"]["SessionStart"].append(THEIR_HOOK["codex"])
    path.write_text(json.dumps(data), encoding="utf-8")
    assert agent_hooks.remove_session_hook("codex", settings).action == "removed"
    groups = json.loads(path.read_text(encoding="utf-8"))["hooks"]["SessionStart"]
    assert groups == [{"matcher": "startup|resume|clear|compact", "hooks": []}, THEIR_HOOK["codex"]]
    assert agent_hooks.find_session_hook("codex", settings) is None


def test_hooks_file_that_is_not_plain_json_is_left_alone(settings: Settings, private_home: Path) -> None:
    path = private_home / ".codex" / "hooks.json"
    path.parent.mkdir()
    path.write_text('{"hooks": {"SessionStart": [}', encoding="utf-8")
    with pytest.raises(IncremindError, match="not plain JSON"):
        agent_hooks.add_session_hook("codex", settings)
    assert path.read_text(encoding="utf-8") == '{"hooks": {"SessionStart": [}'


@pytest.mark.parametrize(
    ("agent", "relative", "content", "says"),
    [
        ("claude", ".claude/settings.json", '{"disableAllHooks": true}', "disableAllHooks is true"),
        ("gemini", ".gemini/settings.json", '{"hooksConfig": {"enabled": false}}', "hooksConfig.enabled is false"),
        ("gemini", ".gemini/settings.json", '{"hooksConfig": {"disabled": ["incremind"]}}', "names the incremind hook"),
        ("codex", ".codex/config.toml", "[features]\nhooks = false\n", "[features] hooks = false"),
        ("codex", ".codex/config.toml", "[features]\ncodex_hooks = false\n", "[features] codex_hooks = false"),
    ],
)
def test_settings_that_turn_hooks_off_are_named(
    settings: Settings, private_home: Path, agent: str, relative: str, content: str, says: str
) -> None:
    assert agent_hooks.hooks_turned_off(agent, settings) == ""
    (private_home / relative).parent.mkdir(exist_ok=True)
    (private_home / relative).write_text(content, encoding="utf-8")
    assert says in agent_hooks.hooks_turned_off(agent, settings)


def test_codex_trust_hash_is_the_one_codex_records() -> None:
    """Codex 0.171.0 ran this very hook without --dangerously-bypass-hook-trust once given this hash."""
    handler = {"type": "command", "command": "/tmp/venv/bin/incremind hook codex-session-start", "timeout": 10}
    group = {"matcher": "startup|resume|clear|compact", "hooks": [handler]}
    assert agent_hooks.codex_trust_hash(group, handler) == (
        "sha256:2731567077fab611209ac29fc6265edb117a2c67390c51c50195f6e5231dd642"
    )


def approve_in_codex(private_home: Path, *, extra: str = "") -> None:
    """Record the approval the way Codex's /hooks does: a trusted_hash under the hook's key."""
    hooks = json.loads((private_home / ".codex" / "hooks.json").read_text(encoding="utf-8"))["hooks"]["SessionStart"]
    g, group = next((i, grp) for i, grp in enumerate(hooks) if "incremind" in json.dumps(grp))
    key = f"{private_home / '.codex' / 'hooks.json'}:session_start:{g}:0"  # Codex's hook_key(): path, event, positions
    trusted = agent_hooks.codex_trust_hash(group, group["hooks"][0])
    with (private_home / ".codex" / "config.toml").open("a", encoding="utf-8") as config:
        config.write(f'\n[hooks.state."{key}"]\ntrusted_hash = "{trusted}"\n{extra}')


def test_codex_hook_counts_as_approved_once_codex_recorded_its_trust(settings: Settings, private_home: Path) -> None:
    hook_file(private_home, "codex", {"hooks": {"SessionStart": [THEIR_HOOK["codex"]]}})
    agent_hooks.add_session_hook("codex", settings)
    assert agent_hooks.is_hook_trusted("claude", settings) and not agent_hooks.is_hook_trusted("codex", settings)
    approve_in_codex(private_home)
    assert agent_hooks.is_hook_trusted("codex", settings)
    moved = load_settings(home=private_home / "moved")  # the command changes: Codex asks again
    agent_hooks.add_session_hook("codex", moved)
    assert not agent_hooks.is_hook_trusted("codex", moved)


def test_codex_hook_turned_off_in_codex_is_not_approved(settings: Settings, private_home: Path) -> None:
    agent_hooks.add_session_hook("codex", settings)
    approve_in_codex(private_home, extra="enabled = false\n")
    assert not agent_hooks.is_hook_trusted("codex", settings)


def test_setup_command_print_shows_the_snippet_and_writes_nothing(
    homes: dict[str, Path], private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = homes["codex"].read_text(encoding="utf-8")
    assert main(["setup", "codex", "--http", "--print"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('[mcp_servers.incremind]\nurl = "http://127.0.0.1:18765/mcp"\n')
    hook = json.loads(out[out.index("hooks.json:\n") + len("hooks.json:\n") :])
    assert hook["hooks"]["SessionStart"][0]["hooks"][0]["command"].endswith(" hook codex-session-start")
    assert homes["codex"].read_text(encoding="utf-8") == before
    assert not (homes["codex"].parent / "hooks.json").exists()
    # the token is never printed, nor made: the snippet says how to fill it in
    assert 'http_headers = { "Authorization" = "Bearer <TOKEN>" }' in out and "incremind token show" in out
    assert not (private_home / ".incremind" / "token").exists()


def test_setup_command_registers_stdio_and_hook_then_undo(
    homes: dict[str, Path], private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["setup", "claude", "--stdio"]) == 0
    entry = json.loads(homes["claude"].read_text())["mcpServers"]["incremind"]
    assert entry["type"] == "stdio" and entry["args"][-1] == "mcp" and Path(entry["command"]).is_absolute()
    hooks = json.loads((private_home / ".claude" / "settings.json").read_text())["hooks"]["SessionStart"]
    assert "hook claude-session-start" in hooks[0]["hooks"][0]["command"]
    assert main(["setup", "claude", "--undo"]) == 0
    assert "incremind" not in json.loads(homes["claude"].read_text())["mcpServers"]
    assert "hooks" not in json.loads((private_home / ".claude" / "settings.json").read_text())
    out = capsys.readouterr().out
    assert "removed the incremind MCP server" in out and "removed the incremind SessionStart hook" in out


@pytest.mark.parametrize("agent", agent_setup.AGENTS)
def test_setup_installs_the_hook_by_default_and_no_hook_leaves_it_out(
    homes: dict[str, Path], settings: Settings, agent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["setup", agent, "--stdio", "--no-hook"]) == 0
    assert agent_hooks.find_session_hook(agent, settings) is None
    assert main(["setup", agent, "--stdio"]) == 0
    assert agent_hooks.find_session_hook(agent, settings) is not None
    assert agent_setup.SERVER_NAME in _servers(agent, _load(agent, homes[agent]))
    out, err = capsys.readouterr()
    assert "added the incremind SessionStart hook to" in out
    assert ("approve the incremind hook" in err) == (agent == "codex")
    assert main(["setup", agent, "--stdio"]) == 0
    assert "the incremind SessionStart hook is already in" in capsys.readouterr().out
    assert main(["setup", agent, "--undo", "--no-hook"]) == 0
    assert agent_hooks.find_session_hook(agent, settings) is not None
    assert main(["setup", agent, "--undo"]) == 0
    assert agent_hooks.find_session_hook(agent, settings) is None


def test_gemini_backup_is_the_file_before_setup(homes: dict[str, Path]) -> None:
    """Servers and hooks share Gemini's settings.json: the second edit keeps the first one's backup."""
    assert main(["setup", "gemini", "--stdio"]) == 0
    backup = homes["gemini"].with_name("settings.json.incremind-bak")
    assert backup.read_text(encoding="utf-8") == GEMINI_JSON
    after = json.loads(homes["gemini"].read_text(encoding="utf-8"))
    assert list(after) == ["theme", "selectedAuthType", "mcpServers", "excludeTools", "hooks"]
    assert main(["setup", "gemini", "--undo"]) == 0
    assert json.loads(homes["gemini"].read_text(encoding="utf-8")) == json.loads(GEMINI_JSON)


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
