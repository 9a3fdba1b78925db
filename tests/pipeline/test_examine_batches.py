"""A long session read at once is examined in batches, in the order said, and loses nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from incremind_daemon.config import Settings
from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer
from incremind_daemon.pipeline.work import TailSession
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader
from incremind_daemon.store.db import fetch_rows
from tests.transcripts import ClaudeLog


@pytest.fixture
def repository(repository_named: Callable[[str], Path]) -> Path:
    return repository_named("infra-live")


RULES = [
    "Always use pnpm in this repo, never npm.",
    "Never commit .env files.",
    "Tests always run with pytest -q, never unittest.",
    "以后 commit message 一律写英文。",
    "Don't run terraform apply yourself, plan only.",
]


def test_a_long_session_read_at_once_loses_no_statement(settings: Settings, repository: Path) -> None:
    """A backfill reads a whole session at once: past the candidates one batch takes, the rest is examined in
    the next, in the order said, rather than dropped."""
    narrow = settings.model_copy(update={"insights": settings.insights.model_copy(update={"max_per_source": 2})})
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "s2", str(repository), day="2026-11-21")
    for number, rule in enumerate(RULES, start=1):
        log.append(log.user(f"u{number}", rule), log.assistant(f"a{number}", f"msg_{number}", "Noted."))
    steps = StepState(narrow, extract_bytes, read_session=TranscriptReader(ReadRules.from_settings(narrow)))
    with open_writer(steps) as conn:
        assert ingest_item(conn, steps, TailSession(log.path, "claude")).status == "added"
        examine_pending(conn, steps)
        stored = [str(row[0]) for row in fetch_rows(conn, "SELECT statement FROM insights ORDER BY id")]
        jobs = fetch_rows(conn, "SELECT state FROM insight_jobs")
    assert len(stored) == len(RULES), stored
    assert "pnpm" in stored[0] and "plan only" in stored[-1], stored  # in the order said
    assert [str(state) for (state,) in jobs] == ["done"]
