"""The context writer on a real store: scope and privacy, targets, debounce, agents' limits, hook files."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import apsw
import pytest

from incremind_daemon.config import Settings, load_settings
from incremind_daemon.pipeline.redact import redact
from incremind_daemon.serve.context.blockfile import BEGIN, END, block_lines
from incremind_daemon.serve.context.writer import ContextWriter, target_statuses
from incremind_daemon.store import items, recall
from incremind_daemon.store.db import connect, write_transaction
from incremind_daemon.store.insights import insert_insight, review
from incremind_daemon.store.records import Candidate, NewSource, NewSummary
from incremind_daemon.store.sessions import SessionInfo, save_session_summary, upsert_session
from incremind_daemon.store.snapshots import SnapshotParts

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)


def stamp(days_ago: float = 0.0) -> str:
    return (NOW - timedelta(days=days_ago)).isoformat(timespec="seconds")


def add_session(
    conn: apsw.Connection, *, agent: str, sid: str, project: str, days_ago: float, index: str, state: SnapshotParts
) -> int:
    at = stamp(days_ago)
    info = SessionInfo(agent, sid, project, index, f"/transcripts/{sid}.jsonl", cwd=f"/code/{project}")
    source_id = upsert_session(conn, info, now=at)
    conn.execute("UPDATE sessions SET last_message_at = ? WHERE source_id = ?", (at, source_id))
    text = "\n".join((state.goal, *state.done, *state.decisions, *state.next_steps))
    save_session_summary(conn, source_id, NewSummary(index, text), state, now=at)
    return source_id


def add_file(conn: apsw.Connection, *, project: str, title: str, index: str, days_ago: float) -> int:
    source = NewSource(kind="file", project=project, title=title, raw_text=index)
    source_id = items.insert_source(conn, source, now=stamp(days_ago))
    items.upsert_summary(conn, source_id, NewSummary(index, index), now=stamp(days_ago))
    return source_id


def add_insight(
    conn: apsw.Connection,
    *,
    project: str,
    category: str,
    statement: str,
    condition: str = "",
    verb: str | None = "confirm",
    days_ago: float = 0.0,
    differs_from: int | None = None,
    scope: str | None = None,
) -> int:
    if scope is None:  # who the person is and how they work hold everywhere, as older stores shared them
        scope = "global" if category in ("identity", "preference", "correction") else "project"
    candidate = Candidate(statement, category, condition, "", 0, 0, scope)
    insight_id = insert_insight(
        conn,
        project=project,
        candidate=candidate,
        relation="different" if differs_from else "new",
        source_id=None,
        known_id=differs_from,
        now=stamp(days_ago),
    )
    if verb is not None:
        review(conn, insight_id, verb, actor="test", now=stamp(days_ago))
    return insight_id


@pytest.fixture
def home_settings(private_home: Path) -> Settings:
    (private_home / ".claude").mkdir()  # Claude Code is installed; Codex and Gemini are not
    return load_settings(home=private_home / ".incremind", private_projects=["diary"])


@pytest.fixture
def conn(home_settings: Settings) -> Iterator[apsw.Connection]:
    connection = connect(home_settings.database_path)
    yield connection
    connection.close()


@pytest.fixture
def memory(conn: apsw.Connection) -> dict[str, int]:
    with write_transaction(conn):
        ids = {
            "session": add_session(
                conn,
                agent="claude",
                sid="s-api",
                project="api",
                days_ago=0.5,
                index="Move billing to FastAPI",
                state=SnapshotParts(
                    "Move billing to FastAPI", done=("ported /invoices",), next_steps=("port the Stripe webhook",)
                ),
            ),
            "diary_session": add_session(
                conn,
                agent="claude",
                sid="s-diary",
                project="diary",
                days_ago=0.1,
                index="Write about the hospital visit",
                state=SnapshotParts("Write about the hospital visit"),
            ),
            "file": add_file(conn, project="thesis", title="RAG", index="RAG paper: retrieval beats size", days_ago=2),
            "pref": add_insight(
                conn, project="api", category="preference", statement="Prefers small commits", scope="global"
            ),
            "api_method": add_insight(
                conn, project="api", category="method", statement="Run make check before pushing", days_ago=1
            ),
            "web_method": add_insight(conn, project="web", category="method", statement="Storybook runs on port 6006"),
            "secret_pref": add_insight(
                conn,
                project="diary",
                category="preference",
                statement="Keeps the therapist's name private",
                scope="global",
            ),
            "pending": add_insight(conn, project="api", category="method", statement="Maybe use uv", verb=None),
            "rejected": add_insight(conn, project="api", category="method", statement="Use Poetry", verb="reject"),
            "cold": add_insight(conn, project="api", category="event", statement="Demo on Oct 1", days_ago=80),
        }
        ids["forgotten"] = add_insight(conn, project="api", category="method", statement="Deploy on Fridays")
        review(conn, ids["forgotten"], "forget", actor="test", now=stamp())
    return ids


def writer(settings: Settings) -> ContextWriter:
    return ContextWriter(settings, scrub=redact)


def test_global_block_leaves_out_private_projects_and_unconfirmed_insights(
    home_settings: Settings, conn: apsw.Connection, memory: dict[str, int]
) -> None:
    results = writer(home_settings).regenerate(conn, NOW)
    claude_md = home_settings.sessions.claude.dir / "CLAUDE.md"  # type: ignore[operator]
    assert [r.path for r in results] == [str(claude_md)]
    text = claude_md.read_text(encoding="utf-8")
    assert "Prefers small commits" in text
    assert "Storybook runs on port 6006" not in text  # project-scoped: only in web's own block
    assert f"[ins-{memory['pref']}]" in text
    for absent in ("therapist", "hospital", "Maybe use uv", "Use Poetry", "Deploy on Fridays", "Demo on Oct 1"):
        assert absent not in text, absent
    # no session state, no pending count: those are for a project's block and for the person
    assert "candidate insight" not in text and "incremind pending" not in text
    assert "Next: port the Stripe webhook" not in text and "## Where things stand" not in text


def test_project_block_has_its_own_insights_and_lasting_ones_from_elsewhere(
    home_settings: Settings, conn: apsw.Connection, memory: dict[str, int]
) -> None:
    data = recall.recall_insights(
        conn, project="web", private=frozenset({"diary"}), now=NOW, half_life_days=14, cold_below=0.25
    )
    shown = [r.insight.id for r in data]
    assert shown == [memory["pref"], memory["web_method"]]  # lasting first; api's method stays in api
    diary = recall.recall_insights(
        conn, project="diary", private=frozenset({"diary"}), now=NOW, half_life_days=14, cold_below=0.25
    )
    assert {r.insight.id for r in diary} == {memory["pref"], memory["secret_pref"]}


def test_unchanged_memory_is_not_rewritten(
    home_settings: Settings, conn: apsw.Connection, memory: dict[str, int]
) -> None:
    w = writer(home_settings)
    w.regenerate(conn, NOW)
    claude_md = home_settings.sessions.claude.dir / "CLAUDE.md"  # type: ignore[operator]
    os.utime(claude_md, ns=(1_000_000_000, 1_000_000_000))
    results = w.regenerate(conn, NOW + timedelta(hours=3))  # a new time, the same memory
    assert not results[0].written
    assert claude_md.stat().st_mtime_ns == 1_000_000_000


def test_confirmed_insight_reaches_the_block_on_the_next_due_pass(
    home_settings: Settings, conn: apsw.Connection, memory: dict[str, int]
) -> None:
    clock = [100.0]
    w = ContextWriter(home_settings, scrub=redact, clock=lambda: clock[0])
    w.regenerate_due(conn, NOW)
    with write_transaction(conn):
        new = add_insight(conn, project="api", category="correction", statement="Staging runs Postgres 16, not 15")
    w.mark_dirty("api")
    assert 0 < w.due_in() <= home_settings.context.min_interval_seconds
    clock[0] += home_settings.context.min_interval_seconds
    assert w.wait_due(timeout=0)
    results = w.regenerate_due(conn, NOW)
    assert results[0].written
    text = Path(results[0].path).read_text(encoding="utf-8")
    assert f"[ins-{new}] Staging runs Postgres 16, not 15" in text
    assert not w.wait_due(timeout=0)  # nothing more to do until the next change or refresh


def test_a_burst_of_changes_is_written_once_after_settling(home_settings: Settings, conn: apsw.Connection) -> None:
    clock = [0.0]
    w = ContextWriter(home_settings, scrub=redact, clock=lambda: clock[0])
    w.regenerate(conn, NOW)
    assert w.due_in() == pytest.approx(900.0)  # only the periodic refresh is pending
    clock[0] = 30.0
    for _ in range(5):
        w.mark_dirty("api")
    assert w.due_in() == pytest.approx(1.0)  # settles briefly, interval long passed
    clock[0] = 31.0
    assert w.due_in() == 0


def test_secrets_in_stored_text_are_redacted_in_blocks(
    home_settings: Settings, conn: apsw.Connection, memory: dict[str, int]
) -> None:
    key = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 3
    with write_transaction(conn):
        add_insight(conn, project="api", category="method", statement=f"The staging key is {key}", scope="global")
    block = writer(home_settings).regenerate(conn, NOW)[0]
    text = Path(block.path).read_text(encoding="utf-8")
    assert key not in text and "[REDACTED:anthropic_key]" in text


def test_conflicting_insights_show_as_a_pair(home_settings: Settings, conn: apsw.Connection) -> None:
    with write_transaction(conn):
        a = add_insight(conn, project="api", category="preference", statement="Prefers tabs", scope="project")
        b = add_insight(
            conn, project="api", category="preference", statement="Prefers spaces", differs_from=a, scope="project"
        )
    text = writer(home_settings).render_for(conn, _project_target("api"), NOW).text
    assert f"- [ins-{a}] Prefers tabs ⟷ [ins-{b}] Prefers spaces" in text or (
        f"- [ins-{b}] Prefers spaces ⟷ [ins-{a}] Prefers tabs" in text
    )
    assert text.count("Prefers tabs") == 1


def _project_target(project: str):  # type: ignore[no-untyped-def]
    from incremind_daemon.serve.context.targets import Target

    return Target(Path(project), "project", None, project, "inline")


def test_codex_file_stays_under_the_combined_byte_limit(private_home: Path) -> None:
    (private_home / ".codex").mkdir()
    settings = load_settings(home=private_home / ".incremind", context={"codex_limit_bytes": 4096})
    agents = private_home / ".codex" / "AGENTS.md"
    agents.write_text("# My rules\n" + "Use British spelling in prose.\n" * 100, encoding="utf-8")  # ~3 KiB
    conn = connect(settings.database_path)
    try:
        with write_transaction(conn):
            for n in range(60):
                add_insight(conn, project="api", category="preference", statement=f"Preference number {n} is kept")
        result = writer(settings).regenerate(conn, NOW)[0]
    finally:
        conn.close()
    assert result.problem is None and result.written
    assert agents.stat().st_size <= 4096
    assert result.tokens < settings.context.budget_tokens


def test_codex_file_with_no_room_is_left_alone_and_reported(private_home: Path) -> None:
    (private_home / ".codex").mkdir()
    settings = load_settings(home=private_home / ".incremind", context={"codex_limit_bytes": 1024})
    agents = private_home / ".codex" / "AGENTS.md"
    agents.write_bytes(b"x" * 1000)
    conn = connect(settings.database_path)
    try:
        result = writer(settings).regenerate(conn, NOW)[0]
        status = target_statuses(settings, conn)
    finally:
        conn.close()
    assert result.problem and "no room" in result.problem
    assert agents.read_bytes() == b"x" * 1000
    assert status[0].problem == result.problem


def test_import_mode_writes_one_import_line_and_the_block_beside(private_home: Path) -> None:
    (private_home / ".claude").mkdir()
    settings = load_settings(home=private_home / ".incremind", context={"claude": {"mode": "import"}})
    conn = connect(settings.database_path)
    try:
        with write_transaction(conn):
            add_insight(conn, project="api", category="identity", statement="Backend engineer in Shanghai")
        result = writer(settings).regenerate(conn, NOW)[0]
    finally:
        conn.close()
    claude_md = private_home / ".claude" / "CLAUDE.md"
    assert block_lines(claude_md.read_text(encoding="utf-8")) == ["@~/.incremind/context/claude.md"]
    imported = settings.context_dir / "claude.md"
    assert "Backend engineer in Shanghai" in imported.read_text(encoding="utf-8")
    assert BEGIN not in imported.read_text(encoding="utf-8") and result.mode == "import"


def test_disabled_global_target_is_not_written(home_settings: Settings, conn: apsw.Connection) -> None:
    path = str(home_settings.sessions.claude.dir / "CLAUDE.md")  # type: ignore[operator]
    with write_transaction(conn):
        recall.save_context_target(
            conn, recall.ContextTargetRow(path, "global", "claude", None, "inline", False, False)
        )
    assert writer(home_settings).regenerate(conn, NOW) == []
    assert not Path(path).exists()


def test_hook_files_map_projects_and_keep_private_blocks_to_themselves(
    home_settings: Settings, conn: apsw.Connection, memory: dict[str, int]
) -> None:
    writer(home_settings).regenerate(conn, NOW)
    folder = home_settings.context_dir / "hook"
    index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    assert set(index["projects"]) == {"api", "diary"}
    glob = json.loads((folder / index["global"]).read_text(encoding="utf-8"))
    assert "therapist" not in glob["body"] and "Prefers small commits" in glob["body"]
    diary = json.loads((folder / index["projects"]["diary"]).read_text(encoding="utf-8"))
    assert "therapist" in diary["body"]
    assert glob["last_sessions"]["claude"]["project"] == "api"  # the diary session is newer, but private


def test_status_lists_each_target_with_mode_tokens_and_time(
    home_settings: Settings, conn: apsw.Connection, memory: dict[str, int]
) -> None:
    writer(home_settings).regenerate(conn, NOW)
    (row,) = target_statuses(home_settings, conn)
    assert row.mode == "inline" and row.enabled and row.problem is None
    assert row.tokens and 100 < row.tokens <= home_settings.context.budget_tokens
    assert row.last_written_at == NOW.astimezone().isoformat(timespec="seconds")
    assert END in Path(row.path).read_text(encoding="utf-8")


def test_a_projects_part_does_not_repeat_the_global_rules_and_both_fit_the_budget(
    home_settings: Settings, conn: apsw.Connection, memory: dict[str, int]
) -> None:
    w = writer(home_settings)
    w.regenerate(conn, NOW)
    folder = home_settings.context_dir / "hook"
    index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    assert index["global_in_file"] == {"claude": True, "codex": False, "gemini": False}
    glob = json.loads((folder / index["global"]).read_text(encoding="utf-8"))
    api = json.loads((folder / index["projects"]["api"]).read_text(encoding="utf-8"))
    assert "Prefers small commits" in glob["body"] and "Prefers small commits" not in api["body"]
    assert "Run make check before pushing" in api["body"] and "Next: port the Stripe webhook" in api["body"]
    assert "Storybook" not in api["body"]  # another project's rule
    assert glob["tokens"] + api["tokens"] <= home_settings.context.budget_tokens
    full = w.render_for(conn, _full_target("api"), NOW).text  # get_recent_context: both parts in one
    assert "Prefers small commits" in full and "Run make check before pushing" in full


def _full_target(project: str):  # type: ignore[no-untyped-def]
    from incremind_daemon.serve.context.targets import Target

    return Target(Path(project), "full", None, project, "inline")


def test_an_older_sessions_next_step_that_a_newer_session_did_is_not_next_again(
    home_settings: Settings, conn: apsw.Connection
) -> None:
    with write_transaction(conn):
        steps = ("把 notebooks/forecast.ipynb 整理成 scripts/forecast.py", "给告警加上静默时段")
        older = SnapshotParts("看下数据加载", done=("已修改 loader.py",), next_steps=steps)
        add_session(conn, agent="claude", sid="s1", project="tide", days_ago=2, index="数据加载", state=older)
        newer = SnapshotParts("继续 tide", done=("forecast.py 已经完成",), next_steps=("画潮位图",))
        add_session(conn, agent="claude", sid="s2", project="tide", days_ago=1, index="继续", state=newer)
    text = writer(home_settings).render_for(conn, _project_target("tide"), NOW).text
    assert "- Next: 画潮位图" in text
    assert "- Next: 给告警加上静默时段" in text  # nothing newer did it: still open
    assert "scripts/forecast.py" not in text  # done since, in the newer session
