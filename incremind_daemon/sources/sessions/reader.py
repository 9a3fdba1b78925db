"""Read what is new in one transcript past its saved mark, for the worker to store.

JSONL transcripts are tailed by byte offset: only complete lines are read, a
replaced or truncated file starts over from 0, and the offset handed back is
the parser's resume point (the start of a reply still being written), so a
restart rebuilds that reply whole. Whole-file formats (Gemini's older JSON
chats, Markdown chat logs, compressed Codex rollouts) are re-read whenever
they change; the store's upsert on message ids keeps that exactly-once.
"""

from __future__ import annotations

import hashlib
import logging
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

from incremind_daemon.config import Settings
from incremind_daemon.names import project_for_cwd
from incremind_daemon.pipeline.work import FileMark, SessionItem, SessionMessage, SessionMeta, SessionRead, TailSession
from incremind_daemon.sources.sessions.claude import ClaudeParser
from incremind_daemon.sources.sessions.codex import CodexParser, open_rollout
from incremind_daemon.sources.sessions.discover import is_excluded
from incremind_daemon.sources.sessions.gemini import GeminiParser, read_gemini_json
from incremind_daemon.sources.sessions.generic import parse_chat_markdown
from incremind_daemon.sources.sessions.records import SessionFacts, SessionParser
from incremind_daemon.sources.sessions.tail import (
    FileIdentity,
    identify,
    needs_reread,
    open_regular,
    read_complete_lines,
)

log = logging.getLogger(__name__)

BATCH_BYTES = 4 << 20  # read at most this much per turn, so other work interleaves with a backfill
MAX_WHOLE_FILE = 256 << 20  # a whole-file chat larger than this is refused, not loaded
MAX_LINE = 16 << 20  # a longer line of a compressed rollout is skipped, as the tailer skips it
MAX_INFLATED = 4 << 30  # a compressed rollout is read no further than this (a zstd bomb?)


@dataclass(frozen=True, slots=True)
class ReadRules:
    """What the reader needs to know from the settings."""

    home: Path
    exclude: tuple[str, ...]
    projects: dict[str, str]
    batch_bytes: int = BATCH_BYTES

    @classmethod
    def from_settings(cls, settings: Settings) -> ReadRules:
        return cls(settings.home_dir, tuple(settings.sessions.exclude), dict(settings.sessions.projects))


class TranscriptReader:
    """Callable the worker uses to read a transcript past its mark."""

    def __init__(self, rules: ReadRules) -> None:
        self._rules = rules

    def __call__(self, item: TailSession, mark: FileMark | None) -> SessionRead:
        path = item.path
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            identity = _link_identity(path)
            return SessionRead((), None, _mark(identity, 0), None, skipped="a symbolic link; links are not followed")
        if not stat.S_ISREG(info.st_mode):
            identity = _link_identity(path)
            return SessionRead((), None, _mark(identity, 0), None, skipped="not a regular file (a pipe or device?)")
        if path.name.endswith((".jsonl.zst", ".json", ".md", ".txt")) or item.agent not in {
            "claude",
            "codex",
            "gemini",
        }:
            return self._read_whole(item, mark)
        return self._tail(item, mark)

    def _tail(self, item: TailSession, mark: FileMark | None) -> SessionRead:
        path = item.path
        old = _identity_of(mark)
        identity = identify(path, head_len=old.head_len if old else 4096)
        offset = 0 if old is None or mark is None or needs_reread(old, identity, mark.offset) else mark.offset
        if mark is not None and offset == mark.offset and identity.size == offset:
            return SessionRead((), None, _mark(identity, offset), None)  # nothing new
        parser = _parser_for(item, path)
        if offset > 0:
            first = read_complete_lines(path, 0, max_bytes=1 << 20)
            if first.lines:
                parser.prime(first.lines[0])
        chunk = read_complete_lines(path, offset, max_bytes=self._rules.batch_bytes)
        found: list[SessionItem] = []
        for line, at in zip(chunk.lines, chunk.offsets, strict=True):
            found.extend(parser.feed(line, offset=at))
        found.extend(parser.flush())
        resume = parser.resume_offset
        next_offset = chunk.end if resume is None or resume <= offset or resume > chunk.end else resume
        more = chunk.end > chunk.start and chunk.end < identity.size
        return self._finish(item, parser.meta, found, _mark(identity, next_offset, read_to=chunk.end), more=more)

    def _read_whole(self, item: TailSession, mark: FileMark | None) -> SessionRead:
        path = item.path
        identity = identify(path)
        if mark is not None and _identity_of(mark) == identity and mark.offset == identity.size:
            return SessionRead((), None, _mark(identity, identity.size), None)
        if identity.size > MAX_WHOLE_FILE:
            return SessionRead(
                (),
                None,
                _mark(identity, identity.size),
                None,
                skipped=f"larger than {MAX_WHOLE_FILE >> 20} MB; not read whole",
            )
        found: list[SessionItem]
        meta: SessionMeta | None = None
        if path.name.endswith(".jsonl.zst"):
            parser = CodexParser.for_path(path.with_suffix(""))
            found = []
            with open_rollout(path) as stream:
                for line in _bounded_lines(stream, path):
                    found.extend(parser.feed(line))
            found.extend(parser.flush())
            meta = parser.meta
        elif item.agent == "gemini":
            messages, meta = read_gemini_json(_read_all(path), cwd=_gemini_root(path))
            found = list(messages)
        else:
            text = _read_all(path).decode("utf-8", errors="replace")
            session_id = _chat_session_id(path)
            found = list(parse_chat_markdown(text, agent=item.agent, session_id=session_id, cwd=str(path.parent)))
            meta = SessionFacts(cwd=str(path.parent)).meta(item.agent, session_id)
        return self._finish(item, meta, found, _mark(identity, identity.size), more=False)

    def _finish(
        self, item: TailSession, meta: SessionMeta | None, found: Sequence[SessionItem], mark: FileMark, *, more: bool
    ) -> SessionRead:
        cwd = meta.cwd if meta else None
        if cwd is None:
            cwd = next((m.cwd for m in found if isinstance(m, SessionMessage) and m.cwd), None)
        if cwd is None and item.agent == "gemini":
            cwd = _gemini_root(item.path)
        skipped = is_excluded(cwd, item.path, home=self._rules.home, patterns=list(self._rules.exclude))
        if skipped is not None:
            return SessionRead((), meta, mark, None, skipped=skipped)
        project = project_for_cwd(cwd, self._rules.projects)
        if meta is not None and meta.cwd is None and cwd is not None:
            meta = replace(meta, cwd=cwd)
        return SessionRead(tuple(found), meta, mark, project, more=more)


def _read_all(path: Path) -> bytes:
    with open_regular(path) as handle:
        return handle.read(MAX_WHOLE_FILE + 1)


def _bounded_lines(stream: BinaryIO, path: Path) -> Iterator[bytes]:
    """Yield the lines of an inflating stream, skipping huge ones, up to MAX_INFLATED bytes in all."""
    total = 0
    skipping = False
    while total < MAX_INFLATED:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        total += len(line)
        complete = line.endswith(b"\n")
        if skipping or len(line) > MAX_LINE:
            if not skipping:
                log.warning("skipped a line of more than %d bytes in %s", MAX_LINE, path)
            skipping = not complete
            continue
        yield line.rstrip(b"\r\n")
    log.warning("stopped reading %s after %d inflated bytes", path, MAX_INFLATED)


def _parser_for(item: TailSession, path: Path) -> SessionParser:
    if item.agent == "claude":
        return ClaudeParser.for_path(path)
    if item.agent == "codex":
        return CodexParser.for_path(path)
    return GeminiParser(cwd=_gemini_root(path))


def _gemini_root(path: Path) -> str | None:
    """Return the project folder Gemini recorded beside a chat (tmp/<id>/.project_root)."""
    for folder in path.parents:
        marker = folder / ".project_root"
        if marker.is_file():
            try:
                return marker.read_text(encoding="utf-8").strip() or None
            except OSError:
                return None
        if folder.name == "tmp":
            break
    return None


def _chat_session_id(path: Path) -> str:
    return hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]


def _identity_of(mark: FileMark | None) -> FileIdentity | None:
    if mark is None:
        return None
    return FileIdentity(mark.dev, mark.inode, mark.size, mark.head_hash, mark.head_len)


def _mark(identity: FileIdentity, offset: int, *, read_to: int | None = None) -> FileMark:
    read = offset if read_to is None else max(offset, read_to)
    return FileMark(identity.dev, identity.inode, identity.size, identity.head_hash, identity.head_len, offset, read)


def _link_identity(path: Path) -> FileIdentity:
    info = path.lstat()
    return FileIdentity(info.st_dev, info.st_ino, 0, "", 0)
