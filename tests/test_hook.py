"""`incremind hook <agent>-session-start` as each agent runs it: a process, the agent's JSON in, its JSON out.

The events are the fields each CLI sent to a probe hook (Claude Code 2.1.197,
Codex CLI 0.171.0, Gemini CLI 0.61.0); the Codex output is checked against
its published session-start.command.output.schema.json.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from incremind_daemon.config import AGENT_RUNS, Settings, load_settings, update_config_file
from incremind_daemon.pipeline.redact import redact
from incremind_daemon.serve.context import hook
from incremind_daemon.serve.context.blockfile import BEGIN, END
from incremind_daemon.serve.context.tokens import estimate_tokens
from incremind_daemon.serve.context.writer import ContextWriter
from incremind_daemon.store import recall
from incremind_daemon.store.db import connect, write_transaction
from incremind_daemon.store.snapshots import SnapshotParts
from tests.serve.test_context_writer import NOW, add_insight, add_session

ROOT = Path(__file__).resolve().parents[1]


def run_hook(stdin: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = os.environ | {"PYTHONPATH": str(ROOT)} | (env or {})
    command = [sys.executable, "-m", "incremind_daemon", "hook", *(args or ("claude-session-start",))]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=30, env=environment, cwd=ROOT)


def event(cwd: Path | str, agent: str = "claude") -> str:
    """Return the SessionStart event the agent sends, with its own fields."""
    common = {"session_id": "0f7c", "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd)}
    if agent == "claude":
        extra = {"permission_mode": "default", "source": "startup", "model": "claude-sonnet-4-5", "session_title": "x"}
    elif agent == "codex":
        extra = {"model": "gpt-5-codex", "permission_mode": "default", "source": "startup"}
    else:
        extra = {"timestamp": "2026-12-01T23:59:41.720Z", "source": "startup"}
    return json.dumps({**common, "hook_event_name": "SessionStart", **extra})


# codex-rs/hooks/schema/generated/session-start.command.output.schema.json: no other keys at either level
CODEX_TOP_KEYS = {"continue", "hookSpecificOutput", "stopReason", "suppressOutput", "systemMessage"}
CODEX_SPECIFIC_KEYS = {"additionalContext", "env", "hookEventName"}


def check_shape(stdout: str, agent: str = "claude") -> str:
    """Validate the agent's SessionStart output shape and return the context text."""
    assert stdout.startswith("{") and stdout.endswith("\n") and stdout.count("\n") == 1
    output = json.loads(stdout)
    assert set(output) == {"hookSpecificOutput"} and set(output) <= CODEX_TOP_KEYS
    specific = output["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "additionalContext"} and set(specific) <= CODEX_SPECIFIC_KEYS
    assert specific["hookEventName"] == "SessionStart"
    text = specific["additionalContext"]
    assert isinstance(text, str) and 0 < len(text) <= 10_000  # longer values are moved to a file by Claude Code
    return text


@pytest.fixture
def compiled(private_home: Path) -> Settings:
    (private_home / ".claude").mkdir()
    settings = load_settings(home=private_home / ".incremind", private_projects=["diary"])
    conn = connect(settings.database_path)
    try:
        with write_transaction(conn):
            add_session(
                conn,
                agent="claude",
                sid="s1",
                project="api",
                days_ago=1,
                index="Move billing to FastAPI",
                state=SnapshotParts("Move billing to FastAPI", next_steps=("port the Stripe webhook",)),
            )
            add_session(
                conn,
                agent="codex",
                sid="s2",
                project="diary",
                days_ago=0.5,
                index="日记",
                state=SnapshotParts("写日记"),
            )
            add_insight(conn, project="api", category="method", statement="Run make check before pushing")
            add_insight(conn, project="diary", category="event", statement="去医院复查的日子")
            add_insight(conn, project="web", category="preference", statement="喜欢先给结论")
        ContextWriter(settings, scrub=redact).regenerate(conn, NOW)
    finally:
        conn.close()
    return settings


def test_hook_prints_the_project_block_for_a_folder_in_the_repository(compiled: Settings, tmp_path: Path) -> None:
    repo = tmp_path / "api"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "billing").mkdir(parents=True)
    result = run_hook(event(repo / "src" / "billing"))
    assert result.returncode == 0, result.stderr
    text = check_shape(result.stdout)
    assert "Run make check before pushing" in text
    assert "喜欢先给结论" not in text  # a global rule: Claude Code already read it in ~/.claude/CLAUDE.md
    assert "Next: port the Stripe webhook" in text
    assert "The last claude session in api was active" in text
    assert "去医院" not in text


def test_a_folder_of_no_project_gets_the_global_block_only_where_no_file_holds_it(
    compiled: Settings, tmp_path: Path
) -> None:
    assert run_hook(event(tmp_path / "somewhere-else")).stdout == ""  # ~/.claude/CLAUDE.md holds it
    result = run_hook(event(tmp_path / "somewhere-else", "codex"), "codex-session-start")  # no ~/.codex
    text = check_shape(result.stdout, "codex")
    assert "喜欢先给结论" in text and "Run make check before pushing" not in text  # project-scoped: api only
    assert "去医院" not in text and "日记" not in text


def test_a_project_part_adds_the_global_rules_only_where_no_global_file_holds_them(
    compiled: Settings, tmp_path: Path
) -> None:
    repo = tmp_path / "api"
    (repo / ".git").mkdir(parents=True)
    claude = check_shape(run_hook(event(repo)).stdout)
    codex = check_shape(run_hook(event(repo, "codex"), "codex-session-start").stdout, "codex")
    assert "Run make check before pushing" in claude and "Run make check before pushing" in codex
    assert "喜欢先给结论" not in claude and "喜欢先给结论" in codex
    assert claude.startswith("Memory from incremind for api, generated ")


def test_private_project_sees_its_own_block_in_its_own_folder(compiled: Settings, tmp_path: Path) -> None:
    repo = tmp_path / "diary"
    (repo / ".git").mkdir(parents=True)
    text = check_shape(run_hook(event(repo)).stdout)
    assert "去医院复查的日子" in text and "Run make check" not in text


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_each_agent_gets_its_project_block_from_its_own_event(compiled: Settings, tmp_path: Path, agent: str) -> None:
    repo = tmp_path / "api"
    (repo / ".git").mkdir(parents=True)
    result = run_hook(event(repo / "src", agent), f"{agent}-session-start")
    assert result.returncode == 0 and result.stderr == ""
    text = check_shape(result.stdout, agent)
    assert "Run make check before pushing" in text and "去医院" not in text


@pytest.mark.parametrize(("agent", "nothing"), [("claude", ""), ("codex", ""), ("gemini", "{}\n")])
def test_hook_without_precompiled_files_prints_the_agents_nothing(private_home: Path, agent: str, nothing: str) -> None:
    result = run_hook(event(private_home, agent), f"{agent}-session-start")
    assert (
        result.returncode == 0 and result.stdout == nothing
    )  # Gemini would read stderr as output if stdout were empty


def test_hook_reads_the_home_it_is_given(compiled: Settings, tmp_path: Path) -> None:
    repo = tmp_path / "api"
    (repo / ".git").mkdir(parents=True)
    elsewhere = {"INCREMIND_HOME": str(tmp_path / "empty")}
    assert run_hook(event(repo, "codex"), "codex-session-start", env=elsewhere).stdout == ""
    given = run_hook(event(repo, "codex"), "codex-session-start", "--home", str(compiled.home_dir), env=elsewhere)
    assert "Run make check before pushing" in check_shape(given.stdout, "codex")


@pytest.mark.parametrize("agent", ["claude", "gemini"])
def test_incremind_own_agent_runs_get_no_memory(compiled: Settings, agent: str) -> None:
    folder = compiled.home_dir / AGENT_RUNS / agent
    folder.mkdir(parents=True)
    result = run_hook(event(folder, agent), f"{agent}-session-start")
    assert result.returncode == 0 and result.stdout == hook.NOTHING[agent].decode()
    assert hook.AGENT_RUNS == AGENT_RUNS


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", '{"cwd": 7}'])
def test_hook_survives_a_malformed_event(compiled: Settings, stdin: str) -> None:
    result = run_hook(stdin, "codex-session-start")  # the working folder is taken instead: the global block
    assert result.returncode == 0
    check_shape(result.stdout, "codex")


@pytest.mark.parametrize(
    "args", [("claude-session-end",), ("gemini-session-start", "--home"), ("codex-session-start", "--config", "x")]
)
def test_unknown_hook_is_a_usage_error(args: tuple[str, ...]) -> None:
    result = run_hook("{}", *args)
    assert result.returncode == 2 and "unknown hook" in result.stderr


def test_hook_imports_nothing_heavy() -> None:
    probe = (
        "import sys; import incremind_daemon.serve.context.hook; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'apsw', 'pydantic', 'pydantic_settings', 'jieba', 'sqlite_vec', 'onnxruntime', 'numpy', 'argparse'} "
        "or m.startswith('incremind_daemon.')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=30, cwd=ROOT, check=True
    )
    assert json.loads(result.stdout.replace("'", '"')) == [
        "incremind_daemon.names",
        "incremind_daemon.serve",
        "incremind_daemon.serve.context",
        "incremind_daemon.serve.context.anchor",
        "incremind_daemon.serve.context.hook",
        "incremind_daemon.store",  # an empty package
        "incremind_daemon.store.clock",  # datetime only
    ]


@pytest.fixture
def two_projects(private_home: Path) -> tuple[Settings, dict[str, Path]]:
    """Two repositories, each with its rules, a decision and a session; all three agents installed."""
    for folder in (".claude", ".codex", ".gemini"):
        (private_home / folder).mkdir()
    settings = load_settings(home=private_home / ".incremind")
    repos = {name: private_home / "code" / name for name in ("ledger", "shopfront")}
    for repo in repos.values():
        (repo / ".git").mkdir(parents=True)
    conn = connect(settings.database_path)
    try:
        with write_transaction(conn):
            add_session(
                conn,
                agent="claude",
                sid="l1",
                project="ledger",
                days_ago=1,
                index="迁移",
                state=SnapshotParts(next_steps=("跑 make migrate-check",)),
            )
            add_session(
                conn,
                agent="gemini",
                sid="s1",
                project="shopfront",
                days_ago=2,
                index="UI",
                state=SnapshotParts(next_steps=("port the cart",)),
            )
            add_insight(conn, project="ledger", category="decision", statement="数据库用 SQLite", scope="project")
            add_insight(conn, project="ledger", category="method", statement="Never commit certs", scope="project")
            add_insight(
                conn, project="shopfront", category="preference", statement="Use pnpm and Tailwind", scope="project"
            )
            add_insight(conn, project="daily", category="preference", statement="回答用中文", scope="global")
            for name, repo in repos.items():
                recall.save_context_target(
                    conn,
                    recall.ContextTargetRow(str(repo / "AGENTS.md"), "project", "codex", name, "inline", True, False),
                )
        ContextWriter(settings, scrub=redact).regenerate(conn, NOW)
    finally:
        conn.close()
    return settings, repos


OWN = {
    "ledger": ("数据库用 SQLite", "Never commit certs", "跑 make migrate-check"),
    "shopfront": ("Use pnpm", "port the cart"),
}


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_each_project_gets_its_own_part_and_nothing_of_the_other(
    two_projects: tuple[Settings, dict[str, Path]], agent: str
) -> None:
    _, repos = two_projects
    for name, repo in repos.items():
        other = next(o for o in OWN if o != name)
        text = check_shape(run_hook(event(repo / "src", agent), f"{agent}-session-start").stdout, agent)
        assert all(own in text for own in OWN[name]), (name, text)
        assert not any(theirs in text for theirs in OWN[other]), (name, text)
        assert "回答用中文" not in text  # the global rule is in the agent's own global file
        enabled = (repo / "AGENTS.md").read_text(encoding="utf-8")
        assert all(own in enabled for own in OWN[name][:2]) and not any(t in enabled for t in OWN[other])


GLOBAL_FILES = {"claude": ".claude/CLAUDE.md", "codex": ".codex/AGENTS.md", "gemini": ".gemini/GEMINI.md"}


def test_what_each_agent_reads_at_start_up_fits_the_budget(private_home: Path, tmp_path: Path) -> None:
    for folder in (".claude", ".codex", ".gemini"):
        (private_home / folder).mkdir()
    settings = load_settings(home=private_home / ".incremind")
    update_config_file(settings.home_dir / "config.json", "context", {"budget_tokens": 700})
    settings = load_settings(home=private_home / ".incremind")
    conn = connect(settings.database_path)
    try:
        with write_transaction(conn):
            state = SnapshotParts("把测试库迁到 SQLite", next_steps=("跑 make migrate-check",))
            add_session(conn, agent="codex", sid="s1", project="ledger-api", days_ago=2, index="迁移", state=state)
            # the latest session of any agent is in a project of a long name: the time anchor of a block for no
            # agent in particular is long, Codex's and Gemini CLI's shorter, so their global blocks hold more
            long_name = "the-shopfront-storefront-and-its-admin-console"
            add_session(conn, agent="claude", sid="s2", project=long_name, days_ago=1, index="cart", state=state)
            for n in range(30):  # more of both than the budget holds
                rule = f"回答里第 {n} 条规矩要照做：先给结论，再列出改动的文件和原因，最后写清楚怎么验证，不要长篇总结"
                add_insight(conn, project="ledger-api", category="preference", statement=rule)  # long global lines
                add_insight(conn, project="ledger-api", category="method", statement=f"Run check {n}")  # short ones
        ContextWriter(settings, scrub=redact).regenerate(conn, NOW)
    finally:
        conn.close()
    repo = tmp_path / "ledger-api"
    (repo / ".git").mkdir(parents=True)
    for agent, name in GLOBAL_FILES.items():
        text = (private_home / name).read_text(encoding="utf-8")
        block = text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()
        hooked = hook.context_for(str(repo), agent=agent, home=str(settings.home_dir), now=NOW)
        assert hooked and "Run check" in hooked and "回答里第" not in hooked  # the global rules are in the global file
        assert estimate_tokens(f"{block}\n\n{hooked}") <= 700, agent
