"""Take what is new in an agent transcript into memory, exactly once.

The messages read from a file and the file's new read mark commit in one
transaction, so a crash at any point resumes from the last committed mark and
the store's upsert on the agent's own message ids absorbs any re-read.

A session's cleaned text is its live messages in order, each behind a role
label. Appends only add to its end, so earlier offsets stay valid; when a
reply grows or the agent rewinds, the text is rebuilt from the first turn that
changed, and that turn's passages with it.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import pairwise

import apsw

from incremind_daemon.errors import IncremindError
from incremind_daemon.pipeline.organize import PASSAGE_CHARS, split_passages
from incremind_daemon.pipeline.redact import redact
from incremind_daemon.pipeline.snapshot import Turn, snapshot_session
from incremind_daemon.pipeline.work import (
    FileMark,
    Outcome,
    Rewind,
    SessionItem,
    SessionMessage,
    SessionRead,
    SessionReader,
    TailSession,
)
from incremind_daemon.store import clock, insight_jobs, items, sessions
from incremind_daemon.store.db import write_transaction
from incremind_daemon.store.records import NewPassage, NewSummary, item_id
from incremind_daemon.store.sessions import MessageRow, NewMessage, SessionInfo, TailState

log = logging.getLogger(__name__)


def take_session(
    conn: apsw.Connection, item: TailSession, *, read: SessionReader, default_project: str
) -> tuple[Outcome, bool]:
    """Read and store what is new in a transcript; return the outcome and whether more is left."""
    path = str(item.path)
    added = 0
    source_ids: list[int] = []
    # the mark is read, the file read past it and the result stored under one write lock,
    # so a backfill beside the daemon can never read the same bytes twice
    with write_transaction(conn):
        saved = sessions.get_tail(conn, path)
        mark = (
            None
            if saved is None
            else FileMark(
                saved.dev, saved.inode, saved.size, saved.head_hash, saved.head_len, saved.offset, saved.read_to
            )
        )
        try:
            result = read(item, mark)
        except FileNotFoundError:
            return Outcome("gone", path, default_project, "the transcript was removed"), False
        except (OSError, IncremindError) as exc:
            # kept for status; the file is tried again when it changes or the daemon restarts
            if saved is not None:
                sessions.save_tail(conn, replace(saved, last_error=str(exc)), now=clock.stamp())
            return Outcome("failed", path, default_project, str(exc)), False
        now = clock.stamp()
        project = result.project or default_project
        if result.skipped is None:
            for session_id, group in _by_session(result.items).items():
                source_id, new = _store_group(conn, item, result, session_id, group, project=project, now=now)
                source_ids.append(source_id)
                added += new
        if item.history and source_ids:
            insight_jobs.pin_new_jobs(conn, source_ids, "local", now=now)
        total = (saved.messages if saved else 0) + added
        sessions.save_tail(conn, _tail_state(path, item.agent, result, source_ids, total, saved), now=now)
    if result.skipped is not None:
        return Outcome("skipped", path, project, result.skipped), False
    status = "added" if added else "unchanged"
    first = item_id("raw", source_ids[0]) if source_ids else None
    return Outcome(status, path, project, f"{added} new messages", first, passages=added), result.more


def _tail_state(
    path: str, agent: str, result: SessionRead, source_ids: list[int], total: int, saved: TailState | None
) -> TailState:
    m = result.mark
    source_id = source_ids[0] if source_ids else (saved.source_id if saved else None)
    return TailState(
        path,
        agent,
        m.dev,
        m.inode,
        m.size,
        m.head_hash,
        m.head_len,
        m.offset,
        source_id,
        total,
        result.skipped,
        None,
        read_to=m.read_to,
    )


def _by_session(found: tuple[SessionItem, ...]) -> dict[str, list[SessionItem]]:
    groups: dict[str, list[SessionItem]] = defaultdict(list)
    for entry in found:
        groups[entry.session_id].append(entry)
    return groups


def _store_group(
    conn: apsw.Connection,
    item: TailSession,
    result: SessionRead,
    session_id: str,
    group: list[SessionItem],
    *,
    project: str,
    now: str,
) -> tuple[int, int]:
    meta = result.meta
    first = next((m for m in group if isinstance(m, SessionMessage)), None)
    cwd = (meta.cwd if meta else None) or (first.cwd if first else None)
    info = SessionInfo(
        agent=item.agent,
        session_id=session_id,
        project=project,
        title=redact(meta.title) if meta and meta.title else f"{item.agent} session {session_id[:8]}",
        transcript=str(item.path),
        cwd=cwd,
        git_branch=(meta.git_branch if meta else None) or (first.git_branch if first else None),
        model=meta.model if meta else None,
        started_at=meta.started if meta else None,
    )
    source_id = sessions.upsert_session(conn, info, now=now)
    last_at = sessions.last_message_at(conn, source_id)
    messages = [
        NewMessage(m.message_id, m.role, redact(m.text), m.timestamp, m.subagent)
        for m in group
        if isinstance(m, SessionMessage)
    ]
    if not any(isinstance(m, Rewind) for m in group):
        added, updated = sessions.upsert_messages(conn, source_id, messages)
        fresh = sessions.unplaced_messages(conn, source_id) if added and not updated else []
        if fresh and all((m.at or "") >= (last_at or "") for m in fresh):
            append_to_session(conn, source_id, fresh, now=now)
        elif added or updated:
            rebuild_session(conn, source_id, now=now)  # an earlier message changed or arrived late
        return source_id, added
    added = 0
    changed = False
    pending: list[NewMessage] = []
    for entry in group:
        if isinstance(entry, Rewind):
            new, updated = sessions.upsert_messages(conn, source_id, pending)
            added, changed, pending = added + new, changed or bool(new or updated), []
            changed = sessions.drop_messages(conn, source_id, entry.to_message_id) or changed
        else:
            pending.append(
                NewMessage(entry.message_id, entry.role, redact(entry.text), entry.timestamp, entry.subagent)
            )
    new, updated = sessions.upsert_messages(conn, source_id, pending)
    added, changed = added + new, changed or bool(new or updated)
    if changed:
        rebuild_session(conn, source_id, now=now)
    return source_id, added


def append_to_session(conn: apsw.Connection, source_id: int, fresh: list[MessageRow], *, now: str) -> None:
    """Add newly arrived messages to the end of a session's text, renewing only the last turn's passages.

    The common case (a reply or a prompt appended) then costs the new text, not the whole session.
    """
    old = sessions.session_text(conn, source_id)
    turn_start = sessions.last_turn_start(conn, source_id, before=fresh[0].id)
    # the last passage may hold short turns before the last one: it is packed again with what is new
    cut = sessions.last_passage_start(conn, source_id, at_most=turn_start)
    layout = layout_session(fresh, after=old)
    starts = sorted({cut, turn_start, *(start for start, _ in layout.turns)})
    passages = turn_passages(layout.text, pairwise([*starts, len(layout.text)]))
    renew_passages(conn, source_id, cut, passages, unchanged=len(old))
    sessions.set_message_offsets(conn, layout.offsets)
    last_at = max((m.at for m in fresh if m.at), default=None)
    sessions.replace_session_text(conn, source_id, layout.text, last_at=last_at, now=now)


@dataclass(frozen=True, slots=True)
class _Layout:
    text: str
    offsets: list[tuple[int, int, int]]  # (start, end, message row id)
    turns: list[tuple[int, int]]  # (start, end) of each user prompt with the replies to it


def layout_session(messages: list[MessageRow], *, after: str = "") -> _Layout:
    """Lay messages out as labelled text after ``after``, with offsets and the turns they start.

    With ``after`` (the session's text so far) the first message continues the
    last turn unless it is a prompt; offsets and turns index the whole text.
    """
    parts: list[str] = [after]
    offsets: list[tuple[int, int, int]] = []
    turns: list[tuple[int, int]] = []
    position = len(after)
    for message in messages:
        if position:
            parts.append("\n\n")
            position += 2
        label = f"{message.role}: "
        if message.role == "user" or (not turns and not after):
            turns.append((position, position))
        parts.append(label + message.text)
        start = position + len(label)
        position = start + len(message.text)
        offsets.append((start, position, message.id))
        if turns:
            turns[-1] = (turns[-1][0], position)
    return _Layout("".join(parts), offsets, turns)


def turn_passages(text: str, spans: Iterable[tuple[int, int]]) -> list[NewPassage]:
    """Cut the turn spans of a session's text, in order, into passages with offsets into the whole text.

    Short turns in a row share a passage up to PASSAGE_CHARS ("ok, do it" with what it answers, a
    quick question with the two before it); a longer turn is split on its own. Packed greedily from
    the left, so the passages before a changed turn come out as they were.
    """
    return [
        NewPassage(p.text, start + p.start, start + p.end)
        for start, end in _packed(text, spans)
        for p in split_passages(text[start:end])
    ]


def _packed(text: str, spans: Iterable[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    group: tuple[int, int] | None = None
    for start, given_end in spans:
        # a turn is measured to its last character: an append's spans run on to the next turn's start,
        # over the blank line between, and must pack as one fresh layout's turns do
        end = start + len(text[start:given_end].rstrip())
        if end <= start:
            continue
        if group is not None and end - group[0] <= PASSAGE_CHARS:
            group = (group[0], end)
            continue
        if group is not None:
            yield group
        group = (start, end)
    if group is not None:
        yield group


def rebuild_session(conn: apsw.Connection, source_id: int, *, now: str) -> None:
    """Re-lay a session's text and renew the passages of the turns that changed."""
    messages = sessions.live_messages(conn, source_id)
    layout = layout_session(messages)
    old = sessions.session_text(conn, source_id)
    same = common_prefix(old, layout.text)
    if same == len(old) == len(layout.text):
        return
    # packed from the first turn: the passages before the change come out as stored and are kept
    renew_passages(conn, source_id, 0, turn_passages(layout.text, layout.turns), unchanged=same)
    moved = [o for o, m in zip(layout.offsets, messages, strict=True) if (o[0], o[1]) != (m.start, m.end)]
    sessions.set_message_offsets(conn, moved)
    last_at = max((m.at for m in messages if m.at), default=None)
    sessions.replace_session_text(conn, source_id, layout.text, last_at=last_at, now=now)


def renew_passages(
    conn: apsw.Connection, source_id: int, cut: int, passages: list[NewPassage], *, unchanged: int
) -> None:
    """Make a session's passages from offset ``cut`` on the given ones.

    The text before offset ``unchanged`` is the same as when the stored passages were cut, and
    the split is greedy from the left, so the passages of a long turn that has grown come out as
    before except the last few: those stored alike (same span, inside the unchanged text) are
    kept, with their ids, index entries and vectors. Only what differs is deleted and written:
    a message appended to a turn of hundreds costs its own passages, not the whole turn again.
    """
    stored = sessions.passage_spans_from(conn, source_id, cut)
    kept = 0
    for (_, start, end), passage in zip(stored, passages, strict=False):
        if (start, end) != (passage.start, passage.end) or end > unchanged:
            break
        kept += 1
    next_seq = sessions.delete_passages(conn, source_id, [row[0] for row in stored[kept:]])
    items.insert_passages(conn, source_id, passages[kept:], first_seq=next_seq)


def common_prefix(a: str, b: str) -> int:
    """Return the length of the longest common prefix, comparing slices at C speed."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def summarize_session(conn: apsw.Connection, source_id: int, *, now: str) -> None:
    """Renew a session's summary: an index line and its state snapshot."""
    turns = [Turn(m.role, m.text) for m in sessions.live_messages(conn, source_id)]
    snapshot = snapshot_session(turns)
    with conn:
        if turns:
            index_line = snapshot.index_line or "(no request yet)"
            summary = NewSummary(index_line, snapshot.render())
            sessions.save_session_summary(conn, source_id, summary, snapshot.parts(), now=now)
        sessions.mark_summarized(conn, source_id, snapshot.index_line)
