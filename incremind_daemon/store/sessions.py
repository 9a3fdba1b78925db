"""Agent sessions: their messages (raw tier), read progress per transcript, and state."""

from __future__ import annotations

from dataclasses import dataclass

import apsw

from incremind_daemon.store.db import fetch_int, fetch_row, fetch_rows
from incremind_daemon.store.items import upsert_summary
from incremind_daemon.store.records import NewSummary
from incremind_daemon.store.snapshots import SnapshotParts, snapshot_json


@dataclass(frozen=True, slots=True)
class TailState:
    """How far one transcript file has been read; saved with the messages it yielded."""

    path: str
    agent: str
    dev: int
    inode: int
    size: int
    head_hash: str
    head_len: int
    offset: int
    source_id: int | None = None
    messages: int = 0
    skipped: str | None = None
    last_error: str | None = None
    read_to: int = 0  # the end of the complete lines read: what status counts as not read yet starts here


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What is known about a session as a whole."""

    agent: str
    session_id: str
    project: str
    title: str
    transcript: str
    cwd: str | None = None
    git_branch: str | None = None
    model: str | None = None
    started_at: str | None = None


@dataclass(frozen=True, slots=True)
class NewMessage:
    message_id: str
    role: str
    text: str
    at: str | None
    subagent: bool = False


@dataclass(frozen=True, slots=True)
class MessageRow:
    id: int
    message_id: str
    role: str
    text: str
    at: str | None
    start: int
    end: int


def get_tail(conn: apsw.Connection, path: str) -> TailState | None:
    """Return the saved read progress of a transcript file."""
    row = fetch_row(
        conn,
        """SELECT path, agent, dev, inode, size, head_hash, head_len, offset, source_id, messages,
                  skipped, last_error, read_to FROM tail_files WHERE path = ?""",
        (path,),
    )
    return None if row is None else TailState(*row)


def save_tail(conn: apsw.Connection, state: TailState, *, now: str) -> None:
    """Save the read progress of a transcript file (inside the caller's transaction)."""
    conn.execute(
        """INSERT INTO tail_files (path, agent, dev, inode, size, head_hash, head_len, offset, source_id,
                                   messages, skipped, last_error, updated_at, read_to)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (path) DO UPDATE SET
               agent = excluded.agent, dev = excluded.dev, inode = excluded.inode, size = excluded.size,
               head_hash = excluded.head_hash, head_len = excluded.head_len, offset = excluded.offset,
               source_id = coalesce(excluded.source_id, tail_files.source_id),
               messages = excluded.messages, skipped = excluded.skipped,
               last_error = excluded.last_error, updated_at = excluded.updated_at, read_to = excluded.read_to""",
        (
            state.path,
            state.agent,
            state.dev,
            state.inode,
            state.size,
            state.head_hash,
            state.head_len,
            state.offset,
            state.source_id,
            state.messages,
            state.skipped,
            state.last_error,
            now,
            max(state.offset, state.read_to),
        ),
    )


def upsert_session(conn: apsw.Connection, info: SessionInfo, *, now: str) -> int:
    """Return the source id of a session, creating its source row the first time."""
    row = fetch_row(
        conn, "SELECT source_id FROM sessions WHERE agent = ? AND session_id = ?", (info.agent, info.session_id)
    )
    if row is not None:
        source_id = int(row[0])
        conn.execute(
            """UPDATE sessions SET cwd = coalesce(?, cwd), git_branch = coalesce(?, git_branch),
                   model = coalesce(?, model), started_at = coalesce(started_at, ?)
               WHERE source_id = ?""",
            (info.cwd, info.git_branch, info.model, info.started_at, source_id),
        )
        return source_id
    conn.execute(
        """INSERT INTO sources (kind, project, title, raw_path, original_name, media_type, raw_text,
                                created_at, last_seen_at)
           VALUES ('session', ?, ?, ?, ?, 'text/x-agent-session', '', ?, ?)""",
        (info.project, info.title, info.transcript, f"{info.agent}:{info.session_id}", now, now),
    )
    source_id = int(conn.last_insert_rowid())
    conn.execute(
        """INSERT INTO sessions (source_id, agent, session_id, cwd, git_branch, model, started_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)""",
        (source_id, info.agent, info.session_id, info.cwd, info.git_branch, info.model, info.started_at),
    )
    return source_id


def upsert_messages(conn: apsw.Connection, source_id: int, messages: list[NewMessage]) -> tuple[int, int]:
    """Insert new messages and replace changed ones; return (new count, replaced count).

    A message id seen before keeps its place; its text is replaced when it
    differs (an assistant reply still being written grows this way).
    """
    added = 0
    updated = 0
    next_seq = fetch_int(conn, "SELECT coalesce(max(seq), -1) + 1 FROM messages WHERE source_id = ?", (source_id,))
    for message in messages:
        row = fetch_row(
            conn,
            "SELECT id, text, dropped FROM messages WHERE source_id = ? AND message_id = ?",
            (source_id, message.message_id),
        )
        if row is None:
            conn.execute(
                """INSERT INTO messages (source_id, message_id, seq, role, text, at, subagent)
                   VALUES (?, ?, ?, ?, ?, ?, ?)""",
                (
                    source_id,
                    message.message_id,
                    next_seq,
                    message.role,
                    message.text,
                    message.at,
                    int(message.subagent),
                ),
            )
            next_seq += 1
            added += 1
        elif row[1] != message.text or row[2]:
            conn.execute(
                "UPDATE messages SET text = ?, role = ?, at = coalesce(?, at), dropped = 0 WHERE id = ?",
                (message.text, message.role, message.at, row[0]),
            )
            updated += 1
    return added, updated


def drop_messages(conn: apsw.Connection, source_id: int, from_message_id: str | None) -> bool:
    """Mark a message and every later one as rewound away; None (or unknown) drops all."""
    row = None
    if from_message_id is not None:
        row = fetch_row(
            conn, "SELECT seq FROM messages WHERE source_id = ? AND message_id = ?", (source_id, from_message_id)
        )
    first_seq = -1 if row is None else int(row[0])
    conn.execute(
        "UPDATE messages SET dropped = 1 WHERE source_id = ? AND seq >= ? AND dropped = 0", (source_id, first_seq)
    )
    return conn.changes() > 0


def live_messages(conn: apsw.Connection, source_id: int) -> list[MessageRow]:
    """Return a session's messages in conversation order, rewound ones left out."""
    rows = fetch_rows(
        conn,
        """SELECT id, message_id, role, text, at, start, "end" FROM messages
           WHERE source_id = ? AND dropped = 0 ORDER BY coalesce(at, ''), seq""",
        (source_id,),
    )
    return [MessageRow(*row) for row in rows]


def set_message_offsets(conn: apsw.Connection, offsets: list[tuple[int, int, int]]) -> None:
    """Store (start, end, message row id) offsets into the session's raw text."""
    conn.executemany('UPDATE messages SET start = ?, "end" = ? WHERE id = ?', offsets)


def replace_session_text(
    conn: apsw.Connection, source_id: int, raw_text: str, *, last_at: str | None, now: str
) -> None:
    """Replace a session's cleaned text and mark its summary for renewal."""
    conn.execute(
        "UPDATE sources SET raw_text = ?, last_seen_at = ?, size_bytes = ? WHERE id = ?",
        (raw_text, now, len(raw_text.encode("utf-8")), source_id),
    )
    conn.execute(
        "UPDATE sessions SET last_message_at = coalesce(?, last_message_at), summary_stale = 1 WHERE source_id = ?",
        (last_at, source_id),
    )


def session_text(conn: apsw.Connection, source_id: int) -> str:
    """Return a session's current cleaned text."""
    row = fetch_row(conn, "SELECT raw_text FROM sources WHERE id = ?", (source_id,))
    return "" if row is None else str(row[0])


def last_passage_start(conn: apsw.Connection, source_id: int, *, at_most: int) -> int:
    """Return where a source's last passage starting at or before an offset begins; the offset when none does."""
    row = fetch_row(conn, "SELECT max(start) FROM chunks WHERE source_id = ? AND start <= ?", (source_id, at_most))
    return at_most if row is None or row[0] is None else int(row[0])


def passage_spans_from(conn: apsw.Connection, source_id: int, start: int) -> list[tuple[int, int, int]]:
    """Return (id, start, end) of a source's passages that start at or after an offset, in text order."""
    rows = fetch_rows(
        conn,
        'SELECT id, start, "end" FROM chunks WHERE source_id = ? AND start >= ? ORDER BY start, seq',
        (source_id, start),
    )
    return [(int(row[0]), int(row[1]), int(row[2])) for row in rows]


def delete_passages(conn: apsw.Connection, source_id: int, ids: list[int]) -> int:
    """Delete some of a source's passages by id; return the next free seq."""
    conn.executemany("DELETE FROM chunks WHERE id = ? AND source_id = ?", [(i, source_id) for i in ids])
    return fetch_int(conn, "SELECT coalesce(max(seq), -1) + 1 FROM chunks WHERE source_id = ?", (source_id,))


def stale_sessions(conn: apsw.Connection, *, limit: int = 20) -> list[int]:
    """Return sessions whose summary needs renewing."""
    rows = fetch_rows(conn, "SELECT source_id FROM sessions WHERE summary_stale = 1 LIMIT ?", (limit,))
    return [int(row[0]) for row in rows]


def save_session_summary(
    conn: apsw.Connection, source_id: int, summary: NewSummary, snapshot: SnapshotParts, *, now: str
) -> int:
    """Store a session's summary text and its state snapshot together; return the summary id.

    The text is what search finds and ``show`` prints; the context blocks
    read the snapshot's parts as written, never split back out of the text.
    """
    summary_id = upsert_summary(conn, source_id, summary, now=now)
    conn.execute("UPDATE sessions SET snapshot = ? WHERE source_id = ?", (snapshot_json(snapshot), source_id))
    return summary_id


def mark_summarized(conn: apsw.Connection, source_id: int, title: str) -> None:
    """Clear a session's stale flag and give its source the summary's index line as title."""
    conn.execute("UPDATE sessions SET summary_stale = 0 WHERE source_id = ?", (source_id,))
    if title:
        conn.execute("UPDATE sources SET title = ? WHERE id = ?", (title, source_id))


def get_meta(conn: apsw.Connection, key: str) -> str | None:
    """Return a stored daemon fact such as when it first ran."""
    row = fetch_row(conn, "SELECT value FROM meta WHERE key = ?", (key,))
    return None if row is None else str(row[0])


def set_meta(conn: apsw.Connection, key: str, value: str) -> None:
    """Store a daemon fact."""
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A session as `incremind sessions` lists it."""

    source_id: str
    agent: str
    session_id: str
    project: str
    cwd: str | None
    started_at: str | None
    last_message_at: str | None
    messages: int
    index_line: str | None
    transcript: str | None


_SESSION_SELECT = """
    SELECT s.id, ss.agent, ss.session_id, s.project, ss.cwd, ss.started_at, ss.last_message_at,
           (SELECT count(*) FROM messages m WHERE m.source_id = s.id AND m.dropped = 0),
           (SELECT index_line FROM summaries WHERE source_id = s.id), s.raw_path
    FROM sessions ss JOIN sources s ON s.id = ss.source_id
"""


def list_sessions(conn: apsw.Connection, *, project: str | None = None, limit: int = 20) -> list[SessionRecord]:
    """Return the most recent sessions, newest first."""
    rows = fetch_rows(
        conn,
        _SESSION_SELECT
        + """ WHERE (:project IS NULL OR s.project = :project)
            ORDER BY coalesce(ss.last_message_at, ss.started_at, s.created_at) DESC LIMIT :limit""",
        {"project": project, "limit": limit},
    )
    return [_session_record(row) for row in rows]


def find_session(conn: apsw.Connection, key: str) -> SessionRecord | None:
    """Find a session by its agent's session id (or a unique prefix of it)."""
    rows = fetch_rows(
        conn,
        _SESSION_SELECT + " WHERE ss.session_id = ? OR ss.session_id LIKE ? LIMIT 2",
        (key, key.replace("%", "").replace("_", "") + "%"),
    )
    exact = [row for row in rows if row[2] == key]
    if exact or len(rows) == 1:
        return _session_record((exact or rows)[0])
    return None


def get_session(conn: apsw.Connection, source_id: int) -> SessionRecord | None:
    """Return the session stored as this source, if it is one."""
    row = fetch_row(conn, _SESSION_SELECT + " WHERE s.id = ?", (source_id,))
    return None if row is None else _session_record(row)


def _session_record(row: tuple[object, ...]) -> SessionRecord:
    source_id, agent, session_id, project, cwd, started, last, count, index_line, transcript = row
    return SessionRecord(
        f"src-{source_id}",
        str(agent),
        str(session_id),
        str(project),
        None if cwd is None else str(cwd),
        None if started is None else str(started),
        None if last is None else str(last),
        int(str(count)),
        None if index_line is None else str(index_line),
        None if transcript is None else str(transcript),
    )


@dataclass(frozen=True, slots=True)
class SourceProgress:
    """One agent's transcripts as status reports them."""

    agent: str
    files: int
    skipped: int
    messages: int
    last_message_at: str | None
    errors: int


def tail_progress(conn: apsw.Connection) -> list[SourceProgress]:
    """Summarize the transcript files read so far, per agent."""
    rows = fetch_rows(
        conn,
        """SELECT t.agent, count(*), sum(t.skipped IS NOT NULL), sum(t.messages),
                  (SELECT max(ss.last_message_at) FROM sessions ss WHERE ss.agent = t.agent),
                  sum(t.last_error IS NOT NULL)
           FROM tail_files t GROUP BY t.agent ORDER BY t.agent""",
    )
    return [
        SourceProgress(str(a), int(f), int(s or 0), int(m or 0), None if last is None else str(last), int(e or 0))
        for a, f, s, m, last, e in rows
    ]


def tail_marks(conn: apsw.Connection) -> dict[str, tuple[str, int]]:
    """Return each tracked transcript's agent and how far it has been read.

    That is past an agent's reply still open (read again from its start when
    the file grows): only bytes after it can still become messages.
    """
    return {
        str(path): (str(agent), max(int(offset), int(read_to)))
        for path, agent, offset, read_to in fetch_rows(conn, "SELECT path, agent, offset, read_to FROM tail_files")
    }


def get_message(conn: apsw.Connection, rowid: int) -> tuple[int, MessageRow] | None:
    """Return a message with the source id of its session."""
    row = fetch_row(
        conn, 'SELECT source_id, id, message_id, role, text, at, start, "end" FROM messages WHERE id = ?', (rowid,)
    )
    return None if row is None else (int(row[0]), MessageRow(*row[1:]))


def last_message_at(conn: apsw.Connection, source_id: int) -> str | None:
    """Return the time of a session's latest live message."""
    row = fetch_row(conn, "SELECT max(at) FROM messages WHERE source_id = ? AND dropped = 0", (source_id,))
    return None if row is None or row[0] is None else str(row[0])


def unplaced_messages(conn: apsw.Connection, source_id: int) -> list[MessageRow]:
    """Return live messages not yet laid out in the session text, in arrival order."""
    rows = fetch_rows(
        conn,
        """SELECT id, message_id, role, text, at, start, "end" FROM messages
           WHERE source_id = ? AND "end" = 0 AND dropped = 0 ORDER BY seq""",
        (source_id,),
    )
    return [MessageRow(*row) for row in rows]


def user_spans(conn: apsw.Connection, source_id: int, *, after: int) -> list[tuple[int, int, tuple[int, int] | None]]:
    """Return (start, end, asked) in the session text of the person's live messages that end past ``after``.

    ``asked`` is where the agent's last message before it sits, the one the person answers ("就 2 吧" picks
    its option 2), or None when the person speaks twice in a row.
    """
    rows = fetch_rows(
        conn,
        """SELECT role, start, "end" FROM messages WHERE source_id = ? AND role IN ('user', 'assistant')
               AND dropped = 0 AND "end" > 0 ORDER BY start""",
        (source_id,),
    )
    spans: list[tuple[int, int, tuple[int, int] | None]] = []
    asked: tuple[int, int] | None = None
    for role, start, end in rows:
        if role == "assistant":
            asked = (int(start), int(end)) if end > start else asked
            continue
        if end > after:
            spans.append((int(start), int(end), asked))
        asked = None
    return spans


def last_turn_start(conn: apsw.Connection, source_id: int, *, before: int | None) -> int:
    """Return where the last turn before a message begins in the session text (its user label)."""
    row = fetch_row(
        conn,
        """SELECT start - length('user: ') FROM messages
           WHERE source_id = ? AND role = 'user' AND dropped = 0 AND (? IS NULL OR id < ?)
           ORDER BY seq DESC LIMIT 1""",
        (source_id, before, before),
    )
    return 0 if row is None or row[0] is None else max(0, int(row[0]))


def said_at(conn: apsw.Connection, source_id: int, offset: int) -> str | None:
    """Return the stamp of the message that holds ``offset`` of a session's text; None outside any message."""
    row = fetch_row(
        conn,
        """SELECT at FROM messages WHERE source_id = ? AND start <= ? AND ? < "end" AND at IS NOT NULL
           ORDER BY seq LIMIT 1""",
        (source_id, offset, offset),
    )
    return None if row is None else str(row[0])
