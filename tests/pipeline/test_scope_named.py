"""A rule that names the project it was said in stays with that project."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from incremind_daemon.config import Settings
from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.insights import save_memory
from incremind_daemon.pipeline.lasting_model import reader_for
from incremind_daemon.pipeline.scope import scope_in
from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer
from incremind_daemon.pipeline.work import TailSession
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader
from incremind_daemon.store import insights
from incremind_daemon.store.db import connect, fetch_rows
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.records import SaveRequest
from tests.transcripts import ClaudeLog


@pytest.fixture
def repository(repository_named: Callable[[str], Path]) -> Path:
    return repository_named("helmwright")


def test_a_rule_naming_the_project_at_hand_is_that_projects(
    settings: Settings, repository: Path, use_m3: Embedder
) -> None:
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "s1", str(repository), day="2026-11-20")
    log.append(
        log.user(
            "u1",
            "Mehmet (Aydın) reviews every helmwright MR, and I look at the diff myself before it goes to him.\n\n"
            "And keep replies short, in every repo.",
        ),
        log.assistant("a1", "msg_1", "Noted."),
    )
    steps = StepState(
        settings, extract_bytes, embedder=use_m3, read_session=TranscriptReader(ReadRules.from_settings(settings))
    )
    with open_writer(steps) as conn:
        assert ingest_item(conn, steps, TailSession(log.path, "claude")).status == "added"
        examine_pending(conn, steps)
        scopes = {
            str(statement): str(scope) for statement, scope in fetch_rows(conn, "SELECT statement, scope FROM insights")
        }
    commit = next(scope for statement, scope in scopes.items() if "Mehmet" in statement)
    short = next(scope for statement, scope in scopes.items() if "short" in statement)
    assert (commit, short) == ("project", "global"), scopes


@pytest.mark.parametrize(
    ("said", "category", "scope"),
    [
        ("Mehmet 下週起調去 data team，helmwright 的 MR 以後改找 Oskar review", "decision", "project"),
        ("Use pnpm in all my repos, helmwright too", "preference", "global"),  # said to hold everywhere
        ("I maintain helmwright and two other charts tools", "identity", "global"),  # who the person is
        ("helmwright-old is archived, never touch it", "preference", "global"),  # another project's name
    ],
)
def test_naming_the_project_keeps_a_global_rule_with_it(said: str, category: str, scope: str) -> None:
    assert scope_in("global", said, category, "helmwright") == scope


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        ("In helmwright reviews, reply in English, Mehmet reads them", "project"),
        ("Reply in English", "global"),  # how to answer the person, in every project
    ],
)
def test_a_saved_rule_naming_its_project_is_that_projects(settings: Settings, text: str, scope: str) -> None:
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    conn = connect(settings.database_path)
    saved = save_memory(conn, settings, SaveRequest(text, project="helmwright"))
    assert saved.insight_id is not None
    assert insights.get_insight(conn, saved.insight_id).scope == scope
    conn.close()


@pytest.mark.parametrize(
    ("text", "scope", "by_rules"),
    [
        # found in a fresh half: a rule on a file of the repo was read as holding everywhere, and reached the
        # person's other project
        ("分类的关键词规则放到一个单独的 categories.toml 里，我自己可以改，不用动代码。", "project", False),
        ("Keep the grading limits in spec.yaml, never hard-code them.", "project", True),
        # found in tune53: the person's own repo is the one at hand, and another project keeps its ticket numbers
        ("My own repo, so just conventional commits (feat: / fix: / chore:), no ticket numbers.", "project", False),
        # a file of the person's own machine is no repository's
        ("Never touch ~/.zshrc for me.", "global", False),
        # found in fresh halves: names and texts the work shows in Chinese are the project's, not how to answer;
        # the rules alone read them too, as the session state does
        ("回复用中文就行，代码注释用英文。", "global", True),
        ("分类名用中文：餐饮、交通、孩子、房贷、日用、医疗、其他，这几个就够了。", "project", True),
        ("超过限额返回 HTTP 429，提示语用中文，告诉学生下一次可以提交的时间。", "project", True),
    ],
)
def test_a_rule_on_a_file_or_a_text_of_the_repo_is_that_projects(
    text: str, scope: str, by_rules: bool, use_m3: Embedder
) -> None:
    found = extract_candidates(text, conversational=True, reader=reader_for(use_m3))
    assert [candidate.scope for candidate in found] == [scope]
    if by_rules:
        assert [candidate.scope for candidate in extract_candidates(text, conversational=True)] == [scope]
