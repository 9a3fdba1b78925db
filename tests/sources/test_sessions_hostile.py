"""Transcript readers on hostile files: links out of the agents' folders, pipes, bombs, arbitrary bytes."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from incremind_daemon.errors import IncremindError
from incremind_daemon.pipeline.work import Rewind, SessionMessage, TailSession
from incremind_daemon.sources.sessions.discover import WatchRoot, find_transcripts, matches
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader

# a file of this name in each agent's layout, and the agent that reads it
LAYOUTS = {
    "claude": "projects/-code-atlas/11111111-1111-4111-8111-111111111111.jsonl",
    "codex": "sessions/2026/11/30/rollout-2026-11-30T10-00-00-22222222-2222-4222-8222-222222222222.jsonl",
    "gemini": "tmp/atlas/chats/session-2026-11-30T12-00-33333333.jsonl",
    "gemini-json": "tmp/atlas/chats/session-2026-11-30T12-00-44444444.json",
    "generic": "logs/.aider.chat.history.md",
}
SECONDS_PER_READ = 5.0


def reader(tmp_path: Path) -> TranscriptReader:
    return TranscriptReader(ReadRules(home=tmp_path / "incremind-home", exclude=(), projects={}))


def read_all(read: TranscriptReader, path: Path, agent: str) -> list[object]:
    """Read a file to its end the way the worker does, turn after turn."""
    found: list[object] = []
    mark = None
    for _ in range(1_000):
        result = read(TailSession(path, agent), mark)
        found.extend(result.items)
        assert result.mark.offset <= max(result.mark.size, 0) or result.skipped
        mark = result.mark
        if not result.more:
            return found
    raise AssertionError(f"{path} was still 'more' after 1000 reads: a loop")


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.lists(
        st.binary(max_size=300)
        | st.sampled_from([b"{", b"[" * 5000, b"\x00" * 64, b"\r", b"\n", b'{"type": "user"}', b"\xff\xfe"]),
        max_size=12,
    )
)
def test_reader_on_arbitrary_bytes_returns_items_or_a_documented_error(
    tmp_path: Path, layout: str, data: list[bytes]
) -> None:
    agent = layout.split("-")[0]
    path = tmp_path / "agents" / LAYOUTS[layout]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(data))
    started = time.monotonic()
    try:
        items = read_all(reader(tmp_path), path, agent)
    except (OSError, IncremindError):  # the documented failures: the worker records them and retries later
        return
    assert time.monotonic() - started < SECONDS_PER_READ
    for item in items:
        assert isinstance(item, SessionMessage | Rewind)
        if isinstance(item, SessionMessage):
            assert item.text.strip()
            item.text.encode("utf-8")


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_deeply_nested_and_huge_lines_end_quickly(tmp_path: Path, layout: str) -> None:
    agent = layout.split("-")[0]
    path = tmp_path / "agents" / LAYOUTS[layout]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"[" * 200_000 + b"]" * 200_000 + b"\n" + b'{"a": "' + b"x" * (17 << 20) + b'"}\n')
    started = time.monotonic()
    read_all(reader(tmp_path), path, agent)
    assert time.monotonic() - started < 10


def test_pipe_named_like_a_transcript_is_skipped_without_waiting(tmp_path: Path) -> None:
    path = tmp_path / "agents" / LAYOUTS["claude"]
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(reader(tmp_path)(TailSession(path, "claude"), None)))
    thread.start()
    thread.join(5)
    assert not thread.is_alive(), "reading a pipe blocked"
    assert "not a regular file" in str(getattr(result[0], "skipped", ""))


def test_link_to_a_file_outside_is_skipped(tmp_path: Path) -> None:
    secret = tmp_path / "secret.jsonl"
    secret.write_text('{"type": "user", "message": {"content": "hush"}}\n', encoding="utf-8")
    path = tmp_path / "agents" / LAYOUTS["claude"]
    path.parent.mkdir(parents=True)
    path.symlink_to(secret)
    result = reader(tmp_path)(TailSession(path, "claude"), None)
    assert result.items == () and "symbolic link" in str(result.skipped)


def test_linked_folder_inside_an_agent_folder_is_never_listed(tmp_path: Path) -> None:
    root = WatchRoot(tmp_path / "claude" / "projects", "claude", ("*/*.jsonl",))
    (root.folder / "real").mkdir(parents=True)
    (root.folder / "real" / "a.jsonl").write_text("{}\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "b.jsonl").write_text("{}\n", encoding="utf-8")
    (root.folder / "linked").symlink_to(elsewhere, target_is_directory=True)

    listed = [t.path.name for t in find_transcripts([root])]

    assert listed == ["a.jsonl"]
    assert not matches(root, root.folder / "linked" / "b.jsonl")  # a watch event for it is ignored too
    assert matches(root, root.folder / "real" / "a.jsonl")


def test_agent_folder_that_is_itself_a_link_is_read(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "claude"
    (real / "projects" / "p").mkdir(parents=True)
    (real / "projects" / "p" / "s.jsonl").write_text("{}\n", encoding="utf-8")
    (tmp_path / ".claude").symlink_to(real, target_is_directory=True)
    root = WatchRoot(tmp_path / ".claude" / "projects", "claude", ("*/*.jsonl",))
    assert [t.path.name for t in find_transcripts([root])] == ["s.jsonl"]


def test_transcript_name_that_is_not_utf8_is_ignored(tmp_path: Path) -> None:
    root = WatchRoot(tmp_path / "projects", "claude", ("*/*.jsonl",))
    (root.folder / "p").mkdir(parents=True)
    (root.folder / "p" / os.fsdecode(b"bad\xff.jsonl")).write_text("{}\n", encoding="utf-8")
    assert list(find_transcripts([root])) == []


def test_compressed_rollout_bomb_is_read_in_bounded_lines(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    path = tmp_path / "agents" / (LAYOUTS["codex"] + ".zst")
    path.parent.mkdir(parents=True)
    payload = b'{"type": "x", "payload": "' + b"a" * (40 << 20) + b'"}\n'
    path.write_bytes(zstandard.ZstdCompressor(level=3).compress(payload))
    started = time.monotonic()
    result = reader(tmp_path)(TailSession(path, "codex"), None)
    assert result.items == ()
    assert time.monotonic() - started < 10
