"""Values the session-log parsers produce (messages, rewinds, metadata), and their facts.

Every parser follows one contract, written here once:

* ``feed(line, offset=...)`` takes one complete line (no trailing newline) and returns the
  items that line completes; ``flush()`` returns what is still buffered. A parser instance
  belongs to one file and carries state between calls (the session id, cwd, an assistant
  reply still being written).
* Items are keyed by ``(agent, session_id, message_id)``, and the same key may be emitted
  more than once. **Upsert semantics: a later item with the same key replaces the earlier
  text.** Re-reading a file from byte 0 yields the same keys, so the store deduplicates.
* ``resume_offset`` is the byte offset from which a *fresh* parser reproduces every item that
  is not yet final. Persist it (not the end of the chunk) as the file's offset; when feeding,
  pass each line's starting byte offset as ``offset=`` so the parser can compute it.
* When a fresh parser resumes a file at an offset > 0, call ``prime(first_line)`` with the
  file's first line first: Codex and Gemini keep the session id there, and priming emits
  nothing.
* What a parser learns about the session (id, cwd, model, ...) goes into one ``SessionFacts``,
  which alone builds the ``SessionMeta`` the parser reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from incremind_daemon.pipeline.work import Rewind, SessionItem, SessionMessage, SessionMeta

ROLE_USER = "user"
ROLE_ASSISTANT = "assistant"
ROLE_TOOL = "tool"  # a one-line marker: tool name and target, never the output


# The values themselves are the pipeline's work-item contract: sources produce them,
# the worker stores them, so they live in pipeline.work and are re-exported here.
__all__ = [
    "ROLE_ASSISTANT",
    "ROLE_TOOL",
    "ROLE_USER",
    "Rewind",
    "SessionFacts",
    "SessionItem",
    "SessionMessage",
    "SessionMeta",
    "SessionParser",
]

Fact = Literal["session_id", "cwd", "started", "model", "title", "git_branch", "version"]


@dataclass(slots=True)
class SessionFacts:
    """What one parser has learned about its session so far, updated line by line.

    Mutable, unlike the ``SessionMeta`` it becomes: a parser holds one and reports
    ``meta(...)`` of it whenever asked.
    """

    session_id: str | None = None
    cwd: str | None = None
    started: str | None = None
    model: str | None = None
    title: str | None = None
    git_branch: str | None = None
    version: str | None = None
    subagent: bool = False  # once true, stays true

    def note(self, fact: Fact, value: str | None, *, first: bool = False) -> None:
        """Take a value from the transcript: the latest non-empty wins, or the first."""
        # Transcripts restate most facts on later lines (a new model, a moved cwd), so the
        # latest wins; ``first`` is for facts fixed at the start, such as when it started.
        current: str | None = getattr(self, fact)
        setattr(self, fact, (current or value) if first else (value or current))

    def current_session(self, fallback: str | None) -> str:
        """Return the session id messages carry: the recorded one, else ``fallback``."""
        return self.session_id or fallback or "unknown"

    def meta(self, agent: str, fallback_session_id: str | None) -> SessionMeta | None:
        """Return the session's metadata, or None while no session id is known."""
        session_id = self.session_id or fallback_session_id
        if session_id is None:
            return None
        return SessionMeta(
            agent=agent,
            session_id=session_id,
            cwd=self.cwd,
            started=self.started,
            model=self.model,
            title=self.title,
            git_branch=self.git_branch,
            version=self.version,
            subagent=self.subagent,
        )


class SessionParser(Protocol):
    """What the tailer needs from any line-oriented session parser."""

    def feed(self, line: bytes, *, offset: int | None = None) -> Sequence[SessionItem]: ...

    def flush(self) -> Sequence[SessionItem]: ...

    def prime(self, line: bytes) -> None: ...

    @property
    def meta(self) -> SessionMeta | None: ...

    @property
    def resume_offset(self) -> int | None: ...
