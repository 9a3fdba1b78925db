"""A backfill reads old sessions after newer ones: what the person changed later stays the change."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from incremind_daemon.config import Settings
from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer
from incremind_daemon.pipeline.work import TailSession
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader
from incremind_daemon.store import insights
from incremind_daemon.store.db import fetch_rows
from tests.transcripts import ClaudeLog

# (what was the way on 20 November, what replaced it on 28 November)
CHANGES = [
    (
        "We always deploy with the Jenkins job deploy-prod.",
        "From now on we deploy with Argo CD instead of the Jenkins job.",
    ),
    ("部署一律用 Jenkins 的 deploy-prod 任务。", "以后部署都用 Argo CD，不再用 Jenkins 任务了。"),
]


@pytest.fixture
def repository(repository_named: Callable[[str], Path]) -> Path:
    return repository_named("shop")


def _said(settings: Settings, repository: Path, session: str, day: str, text: str) -> TailSession:
    log = ClaudeLog(settings.sessions.claude.dir or Path(), session, str(repository), day=day)
    log.append(log.user("u1", text), log.assistant("a1", "msg_1", "Noted."))
    return TailSession(log.path, "claude")


def _taken_in(settings: Settings, *sessions: TailSession) -> dict[str, tuple[str, list[str]]]:
    """Take the sessions in one after another, each examined before the next; return each insight's
    status and the statements of what it supersedes, by statement."""
    steps = StepState(settings, extract_bytes, read_session=TranscriptReader(ReadRules.from_settings(settings)))
    with open_writer(steps) as conn:
        for session in sessions:
            assert ingest_item(conn, steps, session).status == "added"
            examine_pending(conn, steps)
        rows = fetch_rows(conn, "SELECT id, statement, status FROM insights ORDER BY id")
        replaced = {
            int(i): [
                insights.get_insight(conn, link.to_id).statement
                for link in insights.links_of(conn, int(i))
                if link.from_id == int(i) and link.relation == "supersedes"
            ]
            for i, _, _ in rows
        }
    return {str(statement): (str(status), replaced[int(i)]) for i, statement, status in rows}


def _stored(found: dict[str, tuple[str, list[str]]], said: str) -> str:
    return next(statement for statement in found if statement.startswith(said.rstrip("。.")))


@pytest.mark.parametrize(("old", "new"), CHANGES)
@pytest.mark.parametrize("newer_first", [True, False], ids=["newer-read-first", "read-in-order"])
def test_a_change_replaces_what_was_said_before_it_whatever_order_the_sessions_are_read_in(
    settings: Settings, repository: Path, old: str, new: str, newer_first: bool
) -> None:
    older = _said(settings, repository, "11111111-0000-0000-0000-000000000020", "2026-11-20", old)
    newer = _said(settings, repository, "11111111-0000-0000-0000-000000000028", "2026-11-28", new)

    found = _taken_in(settings, *((newer, older) if newer_first else (older, newer)))

    was, now = _stored(found, old), _stored(found, new)
    # read after the newer one, the old way is history: kept, never offered for review or written to a context;
    # read in order, the change waits for review beside it
    assert found[was][0] == ("superseded" if newer_first else "pending")
    assert found[now][0] == "pending"
    assert {statement: replaced for statement, (_, replaced) in found.items() if replaced} == {now: [was]}
