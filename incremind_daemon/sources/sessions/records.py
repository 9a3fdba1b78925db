"""Values the session-log parsers produce: messages, rewinds and session metadata.

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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

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
    "SessionItem",
    "SessionMessage",
    "SessionMeta",
    "SessionParser",
]


class SessionParser(Protocol):
    """What the tailer needs from any line-oriented session parser."""

    def feed(self, line: bytes, *, offset: int | None = None) -> Sequence[SessionItem]: ...

    def flush(self) -> Sequence[SessionItem]: ...

    def prime(self, line: bytes) -> None: ...

    @property
    def meta(self) -> SessionMeta | None: ...

    @property
    def resume_offset(self) -> int | None: ...
