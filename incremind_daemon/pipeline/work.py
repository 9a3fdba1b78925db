"""Work items handed to the pipeline, and what became of them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class Extraction(Protocol):
    """Text extracted from a file (implemented by ``sources.extract.Extracted``)."""

    @property
    def text(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def media_type(self) -> str: ...
    @property
    def pages(self) -> tuple[tuple[int, int], ...]: ...


Extractor = Callable[[bytes, str], Extraction]


@dataclass(frozen=True, slots=True)
class IngestFile:
    """Take in one file.

    Inbox files are claimed: removed once stored, or moved to ``.failed``.
    Files named on the command line are only read.
    """

    path: Path
    project: str
    from_inbox: bool = False


@dataclass(frozen=True, slots=True)
class Outcome:
    """What happened to one work item."""

    status: str  # added | duplicate | failed | gone (left the inbox before its turn)
    path: str
    project: str
    message: str = ""
    source_id: str | None = None
    title: str | None = None
    passages: int = 0


# --- agent sessions -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionMessage:
    """One cleaned message of an agent session, as a transcript parser yields it.

    Keyed by (agent, session_id, message_id); the same key may arrive again,
    and then its text replaces the earlier text (a reply still being written).
    """

    agent: str
    session_id: str
    message_id: str
    role: str  # user | assistant | tool (a one-line marker, never tool output)
    text: str
    timestamp: str | None
    cwd: str | None
    git_branch: str | None = None
    subagent: bool = False


@dataclass(frozen=True, slots=True)
class Rewind:
    """Drop ``to_message_id`` and every later message (Gemini ``$rewindTo``); None drops all."""

    agent: str
    session_id: str
    to_message_id: str | None
    removed_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SessionMeta:
    agent: str
    session_id: str
    cwd: str | None = None
    started: str | None = None
    model: str | None = None
    title: str | None = None
    git_branch: str | None = None
    version: str | None = None
    subagent: bool = False


SessionItem = SessionMessage | Rewind


@dataclass(frozen=True, slots=True)
class FileMark:
    """A transcript file's identity and how far it has been read."""

    dev: int
    inode: int
    size: int
    head_hash: str
    head_len: int
    offset: int  # where the next read starts: an agent's reply still open is read again from its start
    read_to: int = 0  # the end of the complete lines read so far; bytes past it may still become messages


@dataclass(frozen=True, slots=True)
class TailSession:
    """Read what is new in one transcript file."""

    path: Path
    agent: str
    history: bool = False  # a backfill: its increments are found by the local rules, never a model


@dataclass(frozen=True, slots=True)
class SessionRead:
    """What a transcript reader found past the saved mark."""

    items: tuple[SessionItem, ...]
    meta: SessionMeta | None
    mark: FileMark  # the new identity and the offset to resume from
    project: str | None  # from the session's working directory
    more: bool = False  # stopped at the batch limit; read again
    skipped: str | None = None  # why the file is not taken in at all, if so


SessionReader = Callable[[TailSession, FileMark | None], SessionRead]

WorkItem = IngestFile | TailSession
