"""Take the conversational set in as coding-agent sessions, the material most of a real memory holds.

``evidence.py --as-sessions`` uses this instead of dropping each session in as a Markdown file: each
session becomes a Claude Code transcript (the first speaker's turns as the person's, the other's as
the agent's, each turn opening with its speaker's name, as the file does), read by ``backfill`` as a
person's history is. A session is then stored as its messages (the raw tier) and the passages cut
from them (the organized tier), so search can return the same words twice: a message and the
passage around it.

Imports incremind: evidence.py imports this only after ``isolate_home``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
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

if TYPE_CHECKING:
    from benchmarks.retrieval.evidence import Conversation, Read, Session

TURN_GAP = timedelta(minutes=1)


def write_transcripts(home: Path, conversations: Sequence[Conversation]) -> None:
    """Write every session as a Claude Code transcript of a folder named after its conversation."""
    for conv in conversations:
        folder = home / "code" / conv.id
        folder.mkdir(parents=True, exist_ok=True)
        slug = "".join(c if c.isalnum() else "-" for c in str(folder))
        logs = home / ".claude" / "projects" / slug
        logs.mkdir(parents=True, exist_ok=True)
        for session in conv.sessions:
            sid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{conv.id}/{session.id}"))
            lines = _records(conv, session, sid, str(folder))
            (logs / f"{sid}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines))


def _records(conv: Conversation, session: Session, sid: str, cwd: str) -> list[dict[str, object]]:
    at = datetime.fromisoformat(session.date).astimezone(UTC)
    records: list[dict[str, object]] = []
    for number, turn in enumerate(session.turns):
        text = f"{turn.speaker}: {turn.text}"
        person = turn.speaker == conv.speakers[0]
        record: dict[str, object] = {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": cwd,
            "sessionId": sid,
            "version": "2.1.38",
            "gitBranch": "main",
            "type": "user" if person else "assistant",
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{sid}/{turn.id}")),
            "timestamp": (at + number * TURN_GAP).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        }
        if person:
            record["message"] = {"role": "user", "content": text}
        else:
            record["message"] = {
                "id": f"msg_{turn.id}",
                "type": "message",
                "role": "assistant",
                "model": "claude-opus-4",
                "content": [{"type": "text", "text": text}],
            }
        records.append(record)
    return records


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
