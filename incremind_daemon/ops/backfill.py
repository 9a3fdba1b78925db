"""Take existing agent history in, with progress, or count what would be read."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from incremind_daemon.config import Settings
from incremind_daemon.embedding.configured import make_embedder
from incremind_daemon.errors import IncremindError
from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer, summarize_due
from incremind_daemon.pipeline.work import FileMark, Outcome, SessionMessage, TailSession, WorkItem
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.sources.sessions.discover import AGENTS, Transcript, find_transcripts, watch_roots
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader
from incremind_daemon.store.embedder import Embedder


@dataclass(slots=True)
class Progress:
    """Running totals of a backfill, handed to the progress callback after each file."""

    files_total: int
    bytes_total: int
    files: int = 0
    bytes: int = 0
    messages: int = 0
    characters: int = 0
    skipped: int = 0
    failed: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    @property
    def eta_seconds(self) -> float | None:
        elapsed = time.monotonic() - self.started
        if self.bytes == 0 or elapsed < 0.5:
            return None
        return elapsed * (self.bytes_total - self.bytes) / self.bytes


def plan_backfill(settings: Settings, *, agent: str | None, since: date | None) -> list[tuple[Transcript, int]]:
    """List the transcripts a backfill would read, with their sizes, oldest first."""
    agents = (agent,) if agent else AGENTS
    cutoff = None if since is None else datetime(since.year, since.month, since.day, tzinfo=UTC).timestamp()
    found: list[tuple[Transcript, int, float]] = []
    for transcript in find_transcripts(watch_roots(settings, agents=agents), since=cutoff):
        try:
            info = transcript.path.stat()
        except OSError:
            continue
        found.append((transcript, info.st_size, info.st_mtime))
    found.sort(key=lambda entry: entry[2])
    return [(transcript, size) for transcript, size, _ in found]


def run_backfill(
    settings: Settings,
    planned: list[tuple[Transcript, int]],
    *,
    dry_run: bool,
    report: Callable[[Progress], None],
    with_model: bool = False,
    queue: Callable[[WorkItem], Outcome] | None = None,
) -> Progress:
    """Read every planned transcript into memory (or only count it, with dry_run).

    ``queue`` is the running daemon's writer (``runtime.daemon_queue``): given
    one, it takes each transcript in, and summarises and examines in its own
    time; without one, this is the writer.
    """
    progress = Progress(len(planned), sum(size for _, size in planned))
    reader = TranscriptReader(ReadRules.from_settings(settings))
    if dry_run or queue is not None:
        _read_all(planned, reader, progress, report, take=None if dry_run else queue, with_model=with_model)
        return progress
    embedder = _sentence_reader(settings)
    state = StepState(
        settings, extract_bytes, read_session=reader, embedder=embedder, actor="backfill", use_model=with_model
    )
    try:
        with open_writer(state) as conn:
            take = functools.partial(ingest_item, conn, state)
            _read_all(planned, reader, progress, report, take=take, with_model=with_model)
            summarize_due(conn, state, force=True)
            examine_pending(conn, state)  # the local path unless --with-model
    finally:
        if embedder is not None:
            embedder.close()
    return progress


def _sentence_reader(settings: Settings) -> Embedder | None:
    """Return the embedder the local insight path reads sentences with, when it is the lasting model's own.

    With no daemon running, the backfill is the writer and examines what it read; the lasting
    model (``pipeline.lasting_model``) needs use-m3, loaded here for that (about 2 s). Vectors
    themselves are left to the daemon, and no other embedder is called: a remote one would be
    asked once for every candidate of every transcript.
    """
    if settings.embedding.backend != "use-m3":
        return None
    return make_embedder(settings)


def _read_all(
    planned: list[tuple[Transcript, int]],
    reader: TranscriptReader,
    progress: Progress,
    report: Callable[[Progress], None],
    *,
    take: Callable[[WorkItem], Outcome] | None,
    with_model: bool,
) -> None:
    """Take each transcript in with ``take`` (only count it, without one), reporting after each."""
    for transcript, size in planned:
        item = TailSession(transcript.path, transcript.agent, history=not with_model)
        if take is None:
            _count(reader, item, progress)
        else:
            outcome = take(item)
            progress.messages += outcome.passages
            if outcome.status == "skipped":
                progress.skipped += 1
            elif outcome.status == "failed":
                progress.failed.append(f"{transcript.path}: {outcome.message}")
        progress.files += 1
        progress.bytes += size
        report(progress)


def _count(reader: TranscriptReader, item: TailSession, progress: Progress) -> None:
    """Parse a transcript to the end without storing anything."""
    mark: FileMark | None = None
    seen: dict[str, int] = {}
    while True:
        try:
            result = reader(item, mark)
        except (OSError, IncremindError) as exc:
            progress.failed.append(f"{item.path}: {exc}")
            return
        if result.skipped:
            progress.skipped += 1
            return
        for entry in result.items:
            if isinstance(entry, SessionMessage):
                seen[entry.message_id] = len(entry.text)
        if not result.more:
            break
        mark = result.mark
    progress.messages += len(seen)
    progress.characters += sum(seen.values())
