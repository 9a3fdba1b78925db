"""Incremental reading of growing logs, and tailing real transcripts through the parsers."""

from __future__ import annotations

import logging
import os
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from incremind_daemon.sources.sessions import (
    ClaudeParser,
    CodexParser,
    FileIdentity,
    GeminiParser,
    SessionItem,
    SessionMessage,
    SessionParser,
    identify,
    needs_reread,
    read_complete_lines,
)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "sessions"
PARSERS: dict[str, Callable[[Path], SessionParser]] = {
    "claude": ClaudeParser.for_path,
    "codex": CodexParser.for_path,
    "gemini": lambda path: GeminiParser(),
}
LOGS = [
    pytest.param(agent, path, id=str(path.relative_to(FIXTURES)))
    for agent in PARSERS
    for path in sorted((FIXTURES / agent).rglob("*.jsonl"))
]


def apply_to_store(store: dict[str, SessionMessage], items: list[SessionItem]) -> None:
    """Upsert by id; a rewind drops its target and everything recorded after it."""
    for item in items:
        if isinstance(item, SessionMessage):
            store[item.message_id] = item
            continue
        order = list(store)
        cut = order.index(item.to_message_id) if item.to_message_id in store else 0
        for message_id in order[cut:]:
            del store[message_id]


def whole_file(agent: str, path: Path) -> dict[str, SessionMessage]:
    parser = PARSERS[agent](path)
    store: dict[str, SessionMessage] = {}
    for line in path.read_bytes().splitlines():
        apply_to_store(store, list(parser.feed(line)))
    apply_to_store(store, list(parser.flush()))
    return store


def tail_once(path: Path, parser: SessionParser, offset: int, store: dict[str, SessionMessage]) -> int:
    """One poll of the tailer; returns where the same parser continues next time."""
    while True:
        chunk = read_complete_lines(path, offset, max_bytes=4096)
        for line, at in zip(chunk.lines, chunk.offsets, strict=True):
            apply_to_store(store, list(parser.feed(line, offset=at)))
        apply_to_store(store, list(parser.flush()))
        if chunk.end == chunk.start:
            return offset
        offset = chunk.end


@pytest.mark.parametrize(("agent", "source"), LOGS)
def test_tailing_a_growing_log_equals_parsing_it_whole(agent: str, source: Path, tmp_path: Path) -> None:
    data = source.read_bytes()
    target = tmp_path / source.name
    target.write_bytes(b"")
    parser = PARSERS[agent](target)
    store: dict[str, SessionMessage] = {}
    written, offset, rng = 0, 0, random.Random(source.name)
    while written < len(data):
        written = min(len(data), written + rng.randint(1, 3000))  # cuts fall mid-line too
        target.write_bytes(data[:written])
        offset = tail_once(target, parser, offset, store)

    assert store == whole_file(agent, source)


@pytest.mark.parametrize(("agent", "source"), LOGS)
def test_tailer_restarting_from_resume_offset_loses_nothing(agent: str, source: Path, tmp_path: Path) -> None:
    data = source.read_bytes()
    target = tmp_path / source.name
    store: dict[str, SessionMessage] = {}
    saved = 0
    for cut in (len(data) // 3, 2 * len(data) // 3, len(data)):
        target.write_bytes(data[:cut])
        parser = PARSERS[agent](target)  # a daemon restart: state is gone, the offset was saved
        if saved:
            parser.prime(data.split(b"\n", 1)[0])
        tail_once(target, parser, saved, store)
        saved = parser.resume_offset or saved

    assert store == whole_file(agent, source)


def test_partial_last_line_is_left_for_the_next_read(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":')

    first = read_complete_lines(path, 0)
    with path.open("ab") as handle:
        handle.write(b"2}\n")
    second = read_complete_lines(path, first.end)

    assert (first.lines, first.start, first.end, first.offsets) == ((b'{"a":1}',), 0, 8, (0,))
    assert (second.lines, second.start, second.end, second.offsets) == ((b'{"b":2}',), 8, 16, (8,))


def test_read_stops_near_max_bytes_at_a_line_end(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(b"%05d\n" % number for number in range(100)))

    chunk = read_complete_lines(path, 0, max_bytes=64)

    assert chunk.lines == tuple(b"%05d" % number for number in range(10))
    assert chunk.end == 60
    assert chunk.offsets == tuple(range(0, 60, 6))


def test_line_longer_than_max_bytes_is_still_returned_whole(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    long_line = b"x" * 10_000
    path.write_bytes(long_line + b"\nshort\n")

    chunk = read_complete_lines(path, 0, max_bytes=1024, max_line=20_000)

    assert chunk.lines == (long_line,)
    assert chunk.end == len(long_line) + 1


def test_line_longer_than_max_line_is_skipped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"y" * 5000)

    still_writing = read_complete_lines(path, 0, max_bytes=1024, max_line=2048)
    with path.open("ab") as handle:
        handle.write(b"\nnext\n")
    with caplog.at_level(logging.WARNING):
        skipped = read_complete_lines(path, 0, max_bytes=1024, max_line=2048)
    after = read_complete_lines(path, skipped.end)

    assert (still_writing.lines, still_writing.end) == ((), 0)
    assert (skipped.lines, skipped.end) == ((), 5001)
    assert "skipped a line" in caplog.text
    assert after.lines == (b"next",)


def test_oversized_line_inside_a_chunk_is_skipped_and_offsets_stay_true(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"a\n" + b"z" * 50 + b"\nb\n")

    chunk = read_complete_lines(path, 0, max_bytes=4096, max_line=10)

    assert chunk.lines == (b"a", b"b")
    assert chunk.offsets == (0, 53)
    assert chunk.end == 55


def test_appending_does_not_ask_for_a_reread(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a":1}\n')
    old = identify(path)
    with path.open("ab") as handle:
        handle.write(b'{"b":2}\n' * 1000)

    assert not needs_reread(old, identify(path, head_len=old.head_len), old.size)


def test_truncated_file_needs_a_reread(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a":1}\n' * 10)
    old = identify(path)
    path.write_bytes(b'{"a":1}\n')

    assert needs_reread(old, identify(path, head_len=old.head_len), old.size)


def test_file_replaced_by_rename_needs_a_reread(tmp_path: Path) -> None:
    path, replacement = tmp_path / "log.jsonl", tmp_path / "log.jsonl.tmp"
    path.write_bytes(b'{"a":1}\n')
    old = identify(path)
    replacement.write_bytes(b'{"a":1}\n{"b":2}\n')
    os.replace(replacement, path)

    assert needs_reread(old, identify(path, head_len=old.head_len), old.size)


def test_file_rewritten_in_place_needs_a_reread(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a":1}\n' + b"." * 5000)
    old = identify(path)
    with path.open("r+b") as handle:
        handle.write(b'{"z":9}\n')

    new = identify(path, head_len=old.head_len)
    assert (new.inode, new.size) == (old.inode, old.size)
    assert needs_reread(old, new, old.size)


def test_identity_hashes_at_most_the_head(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"q" * 10_000)

    identity = identify(path)

    assert isinstance(identity, FileIdentity)
    assert (identity.size, identity.head_len) == (10_000, 4096)
