"""Take the conversational set in as coding-agent sessions, the material most of a real memory holds.

``evidence.py --as-sessions`` uses this instead of dropping each session in as a Markdown file: each
session becomes a Claude Code transcript (the first speaker's turns as the person's, the other's as
the agent's, each turn opening with its speaker's name, as the file does), read by ``backfill`` as a
person's history is. A session is then stored as its messages (the raw tier) and the passages cut
from them (the organized tier), each exchange with the turns around it.

Imports incremind: evidence.py imports this only after ``isolate_home``.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from incremind_daemon.config import Settings
from incremind_daemon.ops.backfill import plan_backfill, run_backfill
from incremind_daemon.pipeline.steps import StepState, embed_pending, open_writer
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.store.db import fetch_rows
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.records import item_id
from tests.transcripts import ClaudeLog

if TYPE_CHECKING:
    from benchmarks.retrieval.evidence import Conversation, Read

TURN_GAP = timedelta(minutes=1)


@dataclass
class _DatedLog(ClaudeLog):
    """A Claude Code transcript whose turns are stamped a minute apart from the session's own start."""

    start: datetime = datetime(2025, 1, 1, tzinfo=UTC)

    def _stamp(self) -> str:
        at = self.start + self.clock * TURN_GAP
        self.clock += 1
        return at.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def write_transcripts(home: Path, conversations: Sequence[Conversation]) -> None:
    """Write every session as a Claude Code transcript of a folder named after its conversation."""
    for conv in conversations:
        folder = home / "code" / conv.id
        folder.mkdir(parents=True, exist_ok=True)
        for session in conv.sessions:
            sid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{conv.id}/{session.id}"))
            began = datetime.fromisoformat(session.date).astimezone(UTC)
            log = _DatedLog(home / ".claude", sid, str(folder), start=began)
            for turn in session.turns:
                said = f"{turn.speaker}: {turn.text}"
                key = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{sid}/{turn.id}"))
                person = turn.speaker == conv.speakers[0]
                log.append(log.user(key, said) if person else log.assistant(key, f"msg_{turn.id}", said))


def build_session_memory(
    settings: Settings, conversations: Sequence[Conversation], embedder: Embedder | None
) -> dict[str, Read]:
    """Backfill every session and embed it; return where each turn (conversation/turn id) lies."""
    from benchmarks.retrieval.evidence import Read

    home = settings.home_dir.parent
    write_transcripts(home, conversations)
    claude = settings.sessions.claude.model_copy(update={"dir": home / ".claude"})  # found when settings load
    settings = settings.model_copy(update={"sessions": settings.sessions.model_copy(update={"claude": claude})})
    planned = plan_backfill(settings, agent="claude", since=None)
    done = run_backfill(settings, planned, dry_run=False, report=lambda progress: None)
    if done.failed or done.files != sum(len(c.sessions) for c in conversations):
        raise RuntimeError(f"backfill read {done.files} transcripts, {done.failed} failed")
    located: dict[str, Read] = {}
    state = StepState(settings, extract_bytes, embedder=embedder, actor="benchmark")
    with open_writer(state) as conn:
        embed_pending(conn, state)
        for conv in conversations:
            for session in conv.sessions:
                first = f"{session.turns[0].speaker}: {session.turns[0].text}"
                rows = fetch_rows(
                    conn,
                    """SELECT m.source_id, m.text, m.start, m."end" FROM messages m
                       WHERE m.source_id = (SELECT source_id FROM messages WHERE text = ? LIMIT 1)
                       ORDER BY m.at, m.seq""",
                    (first,),
                )
                if len(rows) != len(session.turns):
                    raise RuntimeError(f"{conv.id}/{session.id}: {len(rows)} messages for {len(session.turns)} turns")
                for turn, (source_id, text, start, end) in zip(session.turns, rows, strict=True):
                    if not str(text).endswith(turn.text.strip()[-20:]):
                        raise RuntimeError(f"{conv.id}/{turn.id} is not where it was expected")
                    span = ((int(start), int(end)),)
                    located[f"{conv.id}/{turn.id}"] = Read(
                        item_id("raw", int(source_id)), span, int(end) - int(start), turn.id
                    )
    return located
