"""The two time-dependent lines of a context block: the header and the time anchor.

Standard library only: ``incremind hook`` imports this module to write these
lines with the live time, so it must stay free of the store, pydantic and jieba.
Everything below these two lines of a block is stable while memory is unchanged.
"""

from __future__ import annotations

from datetime import datetime

MCP_TOOLS = "search_memory / read_memory"


def header_line(now: datetime) -> str:
    """Return the block's one-line header."""
    return (
        f"> Memory from incremind, generated {format_moment(now)}. Edits inside this block are replaced "
        f"on the next write; the memory MCP tools ({MCP_TOOLS}) find more by id or words."
    )


def part_header_line(now: datetime, project: str | None) -> str:
    """Return the header of what a SessionStart hook adds: whose memory, when, and where to find more."""
    whose = f" for {project}" if project else ""
    return (
        f"Memory from incremind{whose}, generated {format_moment(now)}; the memory MCP tools "
        f"({MCP_TOOLS}) find more by id or words."
    )


def anchor_line(now: datetime, last: datetime | None, *, agent: str | None, where: str | None) -> str:
    """Return the time anchor: now, and how long since the last session of this agent here."""
    who = f"{agent} session" if agent else "agent session"
    place = f" in {where}" if where else ""
    if last is None:
        return f"Now: {format_moment(now)}. No earlier {who}{place} is on record."
    return (
        f"Now: {format_moment(now)}. The last {who}{place} was active {format_moment(last)}, "
        f"{format_elapsed(now, last)} ago."
    )


def format_moment(moment: datetime) -> str:
    """Return a minute-precise time with its weekday and UTC offset, in the moment's own zone."""
    offset = moment.strftime("%z")
    zone = "UTC" if offset in ("+0000", "") else f"UTC{offset[:3]}:{offset[3:]}"
    return moment.strftime("%Y-%m-%d %H:%M (%a) ") + zone


def format_elapsed(now: datetime, then: datetime) -> str:
    """Return a rounded duration: 5 minutes, 3 hours, 2 days, 6 weeks."""
    seconds = max(0.0, (now - then).total_seconds())
    for unit, size in (("week", 604_800), ("day", 86_400), ("hour", 3_600), ("minute", 60)):
        count = int(seconds // size)
        if count >= 2 or unit == "minute":
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return "0 minutes"
