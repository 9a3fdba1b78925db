"""Take one file into memory: keep the original, redact, organize, summarize, commit.

The original bytes are kept as they came, so nothing is lost; the text that is
stored, indexed, embedded, searched and served has its credentials replaced
by ``[REDACTED:kind]`` markers first, as messages of agent sessions do.

Order matters for crash safety. The original bytes are written (content
addressed, idempotent) before the transaction; the source row, its passages,
its summary, the inbox claim and the audit row commit together; only then is
the inbox file removed. A crash before the commit leaves the file in the inbox
to be taken again; a crash after it leaves a claim that turns the retry into a
plain removal, so every file ends up stored exactly once or in ``.failed``.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import stat
from pathlib import Path

import apsw

from incremind_daemon.config import Settings
from incremind_daemon.errors import ExtractError
from incremind_daemon.pipeline.organize import split_passages
from incremind_daemon.pipeline.redact import redact, redact_text
from incremind_daemon.pipeline.summarize import summarize_text
from incremind_daemon.pipeline.work import Extractor, IngestFile, Outcome
from incremind_daemon.private import make_private, make_private_folders, replace_file, write_private
from incremind_daemon.store import clock, items
from incremind_daemon.store.db import write_transaction
from incremind_daemon.store.records import InboxClaim, NewPassage, NewSource, NewSummary, item_id
from incremind_daemon.store.when import material_date

log = logging.getLogger(__name__)

NAME_MAX_BYTES = 255  # the longest file name most file systems take
_FAILED_NOTE = ".error.txt"
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def ingest_file(
    conn: apsw.Connection, item: IngestFile, *, settings: Settings, extract: Extractor, actor: str
) -> Outcome:
    """Take one file in and say what became of it; never raises for bad input."""
    path = item.path
    shown = _shown_path(item, settings)
    name = printable(path.name)
    try:
        data, mtime_ns = _read_original(path, name, settings.max_file_bytes)
    except ExtractError as exc:
        return _fail(conn, item, shown, str(exc), settings=settings, actor=actor)
    sha = hashlib.sha256(data).hexdigest()
    claim = InboxClaim(shown, sha, mtime_ns, len(data))

    if item.from_inbox and (done := items.find_claim(conn, claim)) is not None:
        _remove(path)  # committed before a crash; only the removal was left to do
        return Outcome(done, shown, item.project, "already taken in")

    existing = items.find_source_by_sha(conn, sha)
    if existing is not None:
        return _record_duplicate(conn, item, claim, existing, actor=actor)

    try:
        extracted = extract(data, name)
    except ExtractError as exc:
        return _fail(conn, item, shown, str(exc), settings=settings, actor=actor)

    raw_path = keep_original(data, sha, path.suffix, settings.raw_dir)
    text, pages = redact_pages(extracted.text, extracted.pages)
    title = redact(extracted.title)
    passages, summary = organize_text(text, pages, title=title)
    source = NewSource(
        kind="file",
        project=item.project,
        title=title or Path(name).stem,
        raw_text=text,
        sha256=sha,
        raw_path=str(raw_path.relative_to(settings.home_dir)),
        original_name=name,
        media_type=extracted.media_type,
        size_bytes=len(data),
        pages=pages,
        dated=material_date(name, text),
    )
    now = clock.stamp()
    with write_transaction(conn):
        # another process (`incremind ingest` beside the daemon) may have stored the same bytes meanwhile
        existing = items.find_source_by_sha(conn, sha)
        if existing is None:
            source_id = items.insert_source(conn, source, now=now)
            items.insert_passages(conn, source_id, passages)
            items.upsert_summary(conn, source_id, summary, now=now)
            if item.from_inbox:
                items.record_claim(conn, claim, outcome="stored", source_id=source_id, now=now)
            items.append_audit(
                conn,
                actor=actor,
                action="ingest",
                now=now,
                target=item_id("raw", source_id),
                detail={"path": shown, "project": item.project, "passages": len(passages)},
            )
    if existing is not None:
        return _record_duplicate(conn, item, claim, existing, actor=actor)
    if item.from_inbox:
        _remove(path)
    log.info("stored %s as %s (%d passages)", shown, item_id("raw", source_id), len(passages))
    return Outcome("added", shown, item.project, "", item_id("raw", source_id), source.title, len(passages))


def _record_duplicate(
    conn: apsw.Connection, item: IngestFile, claim: InboxClaim, existing: int, *, actor: str
) -> Outcome:
    now = clock.stamp()
    with write_transaction(conn):
        items.mark_seen(conn, existing, now=now)
        if item.from_inbox:
            items.record_claim(conn, claim, outcome="duplicate", source_id=existing, now=now)
        items.append_audit(
            conn, actor=actor, action="duplicate", now=now, target=item_id("raw", existing), detail={"path": claim.path}
        )
    if item.from_inbox:
        _remove(item.path)
    return Outcome("duplicate", claim.path, item.project, "same bytes as an existing source", item_id("raw", existing))


def redact_pages(text: str, pages: tuple[tuple[int, int], ...]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """Redact credentials; return the text and each page's start in it."""
    redacted = redact_text(text)
    return redacted.text, tuple((redacted.moved(start), page) for start, page in pages)


def organize_text(text: str, pages: tuple[tuple[int, int], ...], *, title: str) -> tuple[list[NewPassage], NewSummary]:
    """Cut a source's text into passages and summarize it, ready to store (no database work)."""
    summary = summarize_text(text, title=title)
    spans = tuple((s.start, s.end) for s in summary.sentences)
    return organize_pages(text, pages), NewSummary(summary.index_line, summary.text, spans)


def organize_pages(text: str, pages: tuple[tuple[int, int], ...]) -> list[NewPassage]:
    """Split text into passages that never cross a page, each knowing its page."""
    if not pages:
        return [NewPassage(p.text, p.start, p.end) for p in split_passages(text)]
    passages: list[NewPassage] = []
    bounds = [start for start, _ in pages[1:]] + [len(text)]
    for (start, page), end in zip(pages, bounds, strict=True):
        passages.extend(
            NewPassage(p.text, start + p.start, start + p.end, page) for p in split_passages(text[start:end])
        )
    return passages


def keep_original(data: bytes, sha: str, suffix: str, raw_dir: Path) -> Path:
    """Write the original bytes under raw_dir, addressed by SHA-256; idempotent."""
    target = raw_dir / sha[:2] / (sha + suffix.lower()[:16])
    if target.exists() and target.stat().st_size == len(data):
        return target
    make_private_folders(target.parent)
    replace_file(target, data)  # a full disk leaves no half-written copy; the inbox file stays for a retry
    return target


def printable(name: str) -> str:
    """Return a file name fit to store and show: control characters and undecodable bytes escaped.

    The same name always gives the same result, so claims keyed by it still match.
    """
    if not _UNPRINTABLE.search(name):
        return name
    return _UNPRINTABLE.sub(lambda match: _escape(match.group()), name)


def _escape(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, as os.fsdecode keeps it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _read_original(path: Path, name: str, max_bytes: int) -> tuple[bytes, int]:
    """Read a regular file's bytes without following a link or waiting on a pipe."""
    try:
        info = path.lstat()
    except OSError as exc:
        raise _unreadable(name, exc) from exc
    if stat.S_ISLNK(info.st_mode):
        raise ExtractError(f"{name} is a symbolic link; links are not followed, drop the file itself")
    if not stat.S_ISREG(info.st_mode):
        raise ExtractError(f"{name} is not a regular file (a pipe or device?); drop a plain file instead")
    if info.st_size > max_bytes:
        raise _too_large(name, info.st_size, max_bytes)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        # the checks above raced with the file system: the open itself refuses links and pipes
        fd = os.open(path, flags)
        with open(fd, "rb") as handle:
            opened = os.fstat(handle.fileno())
            if not stat.S_ISREG(opened.st_mode):
                raise ExtractError(f"{name} is not a regular file (a pipe or device?); drop a plain file instead")
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise _unreadable(name, exc) from exc
    if len(data) > max_bytes:
        raise _too_large(name, len(data), max_bytes)
    return data, opened.st_mtime_ns


def _unreadable(name: str, exc: OSError) -> ExtractError:
    reason = exc.strerror or type(exc).__name__
    return ExtractError(f"{name} could not be read ({reason}); check its permissions and drop it again")


def _too_large(name: str, size: int, max_bytes: int) -> ExtractError:
    limit = max_bytes / (1024 * 1024)
    return ExtractError(
        f"{name} is {size / (1024 * 1024):.1f} MB, over the {limit:g} MB limit; split it or raise inbox.max_file_mb"
    )


def _shown_path(item: IngestFile, settings: Settings) -> str:
    if item.from_inbox:
        try:
            return printable(str(item.path.relative_to(settings.inbox_dir)))
        except ValueError:
            pass
    return printable(str(item.path))


def _fail(
    conn: apsw.Connection, item: IngestFile, shown: str, reason: str, *, settings: Settings, actor: str
) -> Outcome:
    log.warning("could not take in %s: %s", shown, reason)
    if item.from_inbox and os.path.lexists(item.path):  # a dangling link is moved too
        moved = move_to_failed(item.path, reason, settings.failed_dir)
        shown_failed = printable(str(moved.relative_to(settings.inbox_dir)))
    else:
        shown_failed = shown
    with conn:
        items.append_audit(
            conn,
            actor=actor,
            action="failed",
            target=shown,
            now=clock.stamp(),
            detail={"reason": reason, "kept_at": shown_failed},
        )
    return Outcome("failed", shown, item.project, reason)


def move_to_failed(path: Path, reason: str, failed_dir: Path) -> Path:
    """Move a file to the failed folder beside a ``<name>.error.txt`` that says why.

    The reason is written first, so a crash in between leaves the file in the
    inbox to be tried (and explained) again, never a file without a reason.
    """
    make_private_folders(failed_dir)
    target = failed_dir / _failed_name(path.name, 1)
    number = 2
    while os.path.lexists(target) or os.path.lexists(_note_for(target)):
        target = failed_dir / _failed_name(path.name, number)
        number += 1
    note = _note_for(target)
    write_private(note, (reason.rstrip() + "\n").encode("utf-8", errors="backslashreplace"))
    os.replace(path, target)
    make_private(target)  # in the home now, where nothing is anyone else's to read
    return target


def _note_for(target: Path) -> Path:
    return target.with_name(target.name + _FAILED_NOTE)


def _failed_name(name: str, number: int) -> str:
    """Name the n-th failed copy of name, short enough that its note's name fits too."""
    stem, suffix = os.path.splitext(name)
    mark = "" if number == 1 else f" ({number})"
    raw_suffix = os.fsencode(suffix)[:16]
    room = NAME_MAX_BYTES - len(_FAILED_NOTE) - len(mark.encode()) - len(raw_suffix)
    return os.fsdecode(_cut_bytes(os.fsencode(stem), room) + mark.encode() + raw_suffix)


def _cut_bytes(raw: bytes, size: int) -> bytes:
    """Cut raw to at most size bytes, never inside a UTF-8 character."""
    if len(raw) <= size:
        return raw
    for end in range(size, max(size - 4, 0), -1):
        try:
            raw[:end].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return raw[:end]
    return raw[:size]  # not UTF-8 anyway: keep the bytes as they were


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
