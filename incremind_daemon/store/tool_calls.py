"""MCP tool calls: one row per call, and who has been using memory lately."""

from __future__ import annotations

from dataclasses import dataclass

import apsw

from incremind_daemon.store.db import fetch_rows, write_transaction

MAX_OUTCOME_CHARS = 300  # an error sentence is kept, a runaway message is not


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One MCP tool call as it is logged."""

    at: str  # ISO 8601 UTC, when the call arrived
    tool: str
    transport: str  # stdio or http
    duration_ms: int
    outcome: str  # ok, or "error: <why>"
    project: str | None = None
    client: str | None = None  # the MCP client's name, when it gives one


@dataclass(frozen=True, slots=True)
class ToolUse:
    """How much one client used one tool."""

    tool: str
    client: str | None
    transport: str
    calls: int
    errors: int
    last_at: str


def log_tool_call(conn: apsw.Connection, call: ToolCall) -> None:
    """Append one tool call in its own short write transaction."""
    with write_transaction(conn):
        conn.execute(
            """INSERT INTO tool_calls (at, tool, project, client, transport, duration_ms, outcome)
               VALUES (?, ?, ?, ?, ?, ?, ?)""",
            (
                call.at,
                call.tool,
                call.project,
                call.client,
                call.transport,
                max(0, call.duration_ms),
                call.outcome[:MAX_OUTCOME_CHARS],
            ),
        )


def summarize_tool_calls(conn: apsw.Connection, *, since: str | None = None) -> list[ToolUse]:
    """Return calls per tool, client and transport (since an ISO time, if given), most recent first."""
    rows = fetch_rows(
        conn,
        """SELECT tool, client, transport, count(*), sum(outcome != 'ok'), max(at) FROM tool_calls
           WHERE (:since IS NULL OR at >= :since)
           GROUP BY tool, client, transport ORDER BY max(at) DESC, tool""",
        {"since": since},
    )
    return [
        ToolUse(str(r[0]), None if r[1] is None else str(r[1]), str(r[2]), int(r[3]), int(r[4]), str(r[5]))
        for r in rows
    ]


def recent_tool_calls(conn: apsw.Connection, *, limit: int = 20) -> list[ToolCall]:
    """Return the latest tool calls, newest first."""
    rows = fetch_rows(
        conn,
        """SELECT at, tool, transport, duration_ms, outcome, project, client FROM tool_calls
           ORDER BY id DESC LIMIT ?""",
        (limit,),
    )
    return [ToolCall(str(r[0]), str(r[1]), str(r[2]), int(r[3]), str(r[4]), r[5], r[6]) for r in rows]
