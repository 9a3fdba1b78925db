"""No credential of the labelled corpus reaches the database, its WAL or an agent's context file.

Each test takes every credential of ``tests/pipeline/redaction_corpus.py`` in
one way the daemon takes text in (a dropped file, an agent transcript, an MCP
save), runs the insight step, confirms what it proposed, writes CLAUDE.md,
AGENTS.md and GEMINI.md, and then greps the bytes of the database file, its
WAL and the three files for any six characters of any credential.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import apsw
import pytest

from incremind_daemon.config import Settings
from incremind_daemon.pipeline.insights import save_memory
from incremind_daemon.pipeline.redact import redact
from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer, summarize_due
from incremind_daemon.pipeline.work import IngestFile, TailSession
from incremind_daemon.serve.context.writer import ContextWriter
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader
from incremind_daemon.store import insights, recall
from incremind_daemon.store.db import connect, fetch_rows, write_transaction
from incremind_daemon.store.recall import ContextTargetRow
from incremind_daemon.store.records import SaveRequest
from incremind_daemon.store.schema import MIGRATIONS
from tests.pipeline.redaction_corpus import PEM, POSITIVES
from tests.transcripts import ClaudeLog

NOW = "2026-12-02T00:00:00+00:00"
SENTINEL = "The zeppelin alarm means the disk is full, so we always restart the worker after a deploy."
INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff\u3164]")
MARKERS = sorted({marker for p in POSITIVES for marker in re.findall(r"\[REDACTED:\w+\]", redact(p.text))})
# what the store holds besides the credentials (the words around them, its markers, its schema): a piece of a
# credential found here is no leak ("correc" of "correcthorse" is in the schema's 'correction')
# and a key block's BEGIN and END lines, which name its format ("begin " is also in a context block's marker)
AROUND = "\n".join(
    [*(p.text.replace(p.secret, " ") for p in POSITIVES), *MARKERS, *MIGRATIONS, *PEM.splitlines()[::2]]
).lower()


def pieces(secret: str, size: int = 6) -> set[str]:
    shown = INVISIBLE.sub("", secret).lower()
    every = {shown[at : at + size] for at in range(len(shown) - size + 1)}
    return {piece for piece in every if piece not in AROUND}


PIECES = {p.case: pieces(p.secret) for p in POSITIVES}


def leaks(data: bytes) -> dict[str, list[str]]:
    """Return, per corpus case, the pieces of its credential that data holds in any case."""
    lowered = data.lower()
    found = {case: sorted(p for p in held if p.encode() in lowered) for case, held in PIECES.items()}
    return {case: held for case, held in found.items() if held}


@dataclass(frozen=True)
class Taken:
    database: bytes
    wal: bytes
    contexts: list[str]


@pytest.fixture
def repository(settings: Settings, private_home: Path, tmp_path: Path) -> Path:
    for agent in (".claude", ".codex", ".gemini"):
        (private_home / agent).mkdir(exist_ok=True)
    folder = tmp_path / "ops"  # a git repository named like the project, so a session lands in it
    (folder / ".git").mkdir(parents=True)
    return folder


@pytest.fixture
def steps(settings: Settings) -> StepState:
    """The writer's steps, run here as `incremind ingest` runs them with no daemon."""
    return StepState(settings, extract_bytes, read_session=TranscriptReader(ReadRules.from_settings(settings)))


def confirm_and_render(settings: Settings, repository: Path) -> Taken:
    """Confirm every proposed insight, write the three context files, and read what is on disk."""
    conn = connect(settings.database_path)  # held open, so the WAL stays on disk
    try:
        with write_transaction(conn):
            for (pending,) in fetch_rows(conn, "SELECT id FROM insights WHERE status = 'pending'"):
                insights.review(conn, int(pending), "confirm", actor="test", now=NOW)
            for name, agent in (("CLAUDE.md", "claude"), ("AGENTS.md", "codex"), ("GEMINI.md", "gemini")):
                row = ContextTargetRow(str(repository / name), "project", agent, "ops", "inline", True, True)
                recall.save_context_target(conn, row)
        blocks = ContextWriter(settings, scrub=redact).regenerate(conn, datetime(2026, 12, 2, tzinfo=UTC))
        assert sum(block.written for block in blocks) >= 3
        contexts = [Path(block.path).read_text(encoding="utf-8") for block in blocks]
        return Taken(settings.database_path.read_bytes(), Path(f"{settings.database_path}-wal").read_bytes(), contexts)
    finally:
        conn.close()


def assert_nothing_leaked(taken: Taken) -> None:
    assert b"zeppelin" in taken.database + taken.wal  # the text around the credentials is stored
    assert any("[REDACTED:" in text for text in taken.contexts)  # and what was said with them reaches the agents
    assert leaks(taken.database) == {}
    assert leaks(taken.wal) == {}
    for text in taken.contexts:
        assert leaks(text.encode()) == {}


def test_no_credential_dropped_in_a_file_is_stored_or_written_to_a_context_file(
    settings: Settings, repository: Path, steps: StepState
) -> None:
    dropped = settings.inbox_dir / "ops" / "runbook.md"
    dropped.parent.mkdir(parents=True)
    lines = [f"- {p.text}" for p in POSITIVES]
    dropped.write_text("# Release runbook\n\n" + "\n".join(lines) + f"\n\n{SENTINEL}\n", encoding="utf-8")

    with open_writer(steps) as conn:
        assert ingest_item(conn, steps, IngestFile(dropped, "ops", from_inbox=True)).status == "added"
        examine_pending(conn, steps)
    taken = confirm_and_render(settings, repository)

    assert_nothing_leaked(taken)


def test_no_credential_said_in_an_agent_session_is_stored_or_written_to_a_context_file(
    settings: Settings, repository: Path, steps: StepState
) -> None:
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "66666666-2222-3333-4444-555555555555", str(repository))
    for at, positive in enumerate(POSITIVES):
        log.append(log.user(f"u{at}", f"Remember this for the release: {positive.text}"))
        log.append(log.assistant(f"a{at}", f"msg_{at}", f"Noted. We always use it like this: {positive.text}"))
    log.append(log.user("u-last", SENTINEL))

    with open_writer(steps) as conn:
        assert ingest_item(conn, steps, TailSession(log.path, "claude")).status == "added"
        examine_pending(conn, steps)
        summarize_due(conn, steps, force=True)
    taken = confirm_and_render(settings, repository)

    assert_nothing_leaked(taken)


def test_no_credential_saved_through_mcp_is_stored_or_written_to_a_context_file(
    settings: Settings, repository: Path
) -> None:
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    conn: apsw.Connection = connect(settings.database_path)
    try:
        long_note = "\n".join(p.text for p in POSITIVES) + f"\n{SENTINEL}"
        save_memory(conn, settings, SaveRequest(long_note, project="ops", actor="mcp:test", trusted=True))
        for positive in POSITIVES:  # short saves: each one statement, confirmed as it comes
            request = SaveRequest(f"Always deploy with this: {positive.text}", project="ops", actor="mcp:test")
            save_memory(conn, settings, request)
    finally:
        conn.close()
    taken = confirm_and_render(settings, repository)

    assert_nothing_leaked(taken)
