"""The home is the person's alone: folders 0700 and files 0600 under a loose umask, on real files."""

from __future__ import annotations

import logging
import os
import stat
import tarfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import apsw
import pytest

from incremind_daemon import cli
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.daemon import acquire_lock, prepare_home
from incremind_daemon.ops.backup import restore_backup, take_backup
from incremind_daemon.ops.export import export_to_file
from incremind_daemon.ops.logs import DaemonLogHandler, log_path
from incremind_daemon.private import replace_file, replacing
from incremind_daemon.serve.context.blockfile import write_block, write_owned_file
from incremind_daemon.serve.status import Heartbeat, write_heartbeat
from incremind_daemon.store.db import connect, write_transaction


@pytest.fixture(autouse=True)
def loose_umask() -> Iterator[None]:
    """The usual umask, under which new files would be 0644 and folders 0755."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def open_to_others(top: Path) -> dict[str, str]:
    """Return each path under top (top included) whose mode is not 0700 (folder) or 0600 (file)."""
    found: dict[str, str] = {}
    paths = [top, *top.rglob("*")]
    for path in paths:
        if path.is_symlink():
            continue
        wanted = 0o700 if path.is_dir() else 0o600
        if mode(path) != wanted:
            found[str(path.relative_to(top.parent))] = oct(mode(path))
    return found


def write_probe(conn: apsw.Connection) -> None:
    with write_transaction(conn):
        conn.execute("CREATE TABLE IF NOT EXISTS probe(x)")
        conn.execute("INSERT INTO probe VALUES ('a write that lands in the WAL')")


def stored_home(settings: Settings, tmp_path: Path) -> None:
    """A home holding one ingested note and a config file."""
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    (settings.home_dir / "config.json").write_text("{}\n", encoding="utf-8")
    note = tmp_path / "note.md"
    note.write_text("Modeprobe01: a note that is kept as an original.\n", encoding="utf-8")
    assert cli.main(["ingest", str(note)]) == 0


def test_every_path_in_the_home_is_private_after_a_start(settings: Settings) -> None:
    prepare_home(settings)
    lock = acquire_lock(settings)
    handler = DaemonLogHandler(log_path(settings))
    conn = connect(settings.database_path)
    try:
        handler.emit(logging.makeLogRecord({"msg": "started"}))
        write_probe(conn)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        write_heartbeat(settings.status_path, Heartbeat(pid=os.getpid(), started_at=now, heartbeat_at=now, version="t"))
        assert Path(f"{settings.database_path}-wal").exists() and (settings.home_dir / "status.json").exists()
        assert open_to_others(settings.home_dir) == {}
    finally:
        conn.close()
        handler.close()
        lock.close()


def test_wal_and_shm_are_private_like_the_database(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    conn = connect(path)
    try:
        write_probe(conn)
        for part in ("", "-wal", "-shm"):
            assert mode(Path(f"{path}{part}")) == 0o600, part
    finally:
        conn.close()


def test_wal_and_shm_left_by_a_crash_are_made_private_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    conn = apsw.Connection(str(path))  # as an earlier version made it: 0644 less the umask
    conn.pragma("journal_mode", "wal")
    conn.close()
    for part in ("-wal", "-shm"):
        Path(f"{path}{part}").touch(0o644)
    assert mode(path) == 0o644
    conn = connect(path)
    try:
        write_probe(conn)
        assert [mode(Path(f"{path}{part}")) for part in ("", "-wal", "-shm")] == [0o600] * 3
    finally:
        conn.close()


def test_loose_home_from_before_is_made_private_on_start(settings: Settings) -> None:
    home = settings.home_dir
    (home / "data" / "raw" / "ab").mkdir(parents=True)
    (home / "logs").mkdir()
    (home / "inbox" / "work").mkdir(parents=True)
    conn = apsw.Connection(str(settings.database_path))
    conn.pragma("journal_mode", "wal")
    conn.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
    conn.close()
    Path(f"{settings.database_path}-wal").touch()  # as a crash leaves it
    for name in ("config.json", "data/raw/ab/ab12.md", "logs/incremind.log", "logs/incremind.log.1", "inbox/work/a.md"):
        (home / name).write_text("text\n", encoding="utf-8")
    (home / "token").write_text("secret\n", encoding="utf-8")
    os.chmod(home, 0o755)
    assert mode(home) == 0o755 and mode(settings.database_path) == 0o644
    prepare_home(settings)
    assert open_to_others(home) == {}


def test_start_keeps_the_owners_bits_and_leaves_paths_outside_the_home_alone(
    settings: Settings, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    shared = outside / "shared.md"
    shared.write_text("the person's own file\n", encoding="utf-8")
    (outside / "folder" / "inner.md").write_text("inside a linked folder\n", encoding="utf-8")
    home = settings.home_dir
    (home / "inbox").mkdir(parents=True)
    (home / "inbox" / "link.md").symlink_to(shared)
    (home / "inbox" / "linked-folder").symlink_to(outside / "folder")
    os.link(shared, home / "inbox" / "hard.md")  # the same file as one outside the home
    script = home / "agent-runs" / "run.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(0o755)
    before = {path: mode(path) for path in (outside, outside / "folder", shared, outside / "folder" / "inner.md")}
    prepare_home(settings)
    assert {path: mode(path) for path in before} == before
    assert (home / "inbox" / "link.md").is_symlink() and (home / "inbox" / "linked-folder").is_symlink()
    assert mode(script) == 0o700  # private, and still runs


def test_backup_folder_holds_only_private_files(settings: Settings, tmp_path: Path) -> None:
    stored_home(settings, tmp_path)
    done = take_backup(settings, tmp_path / "backups" / "today")
    assert done.raw_files == 1 and (done.path / "config.json").exists()
    assert open_to_others(done.path) == {}


def test_backup_archive_and_its_members_are_private(settings: Settings, tmp_path: Path) -> None:
    stored_home(settings, tmp_path)
    archive = tmp_path / "backup.tar.gz"
    take_backup(settings, archive)
    assert mode(archive) == 0o600
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
    assert {m.name for m in members} >= {"manifest.json", "memory.db", "config.json", "data/raw"}
    assert [m.name for m in members if stat.S_IMODE(m.mode) != (0o700 if m.isdir() else 0o600)] == []


def test_restored_home_is_private(settings: Settings, tmp_path: Path) -> None:
    stored_home(settings, tmp_path)
    done = take_backup(settings, tmp_path / "backup")
    fresh = load_settings(home=tmp_path / "restored")
    restore_backup(fresh, done.path)
    assert open_to_others(fresh.home_dir) == {}


def test_export_file_is_private(settings: Settings, tmp_path: Path) -> None:
    stored_home(settings, tmp_path)
    out = tmp_path / "memory.jsonl"
    counts = export_to_file(settings, out, fmt="jsonl", with_text=True)
    assert counts.sources == 1 and "Modeprobe01" in out.read_text(encoding="utf-8")
    assert mode(out) == 0o600 and not list(tmp_path.glob(".memory.jsonl.*"))


def test_new_context_file_is_private(tmp_path: Path) -> None:
    path = tmp_path / "repo" / "AGENTS.md"
    path.parent.mkdir()
    assert write_block(path, "a confirmed insight").created
    assert mode(path) == 0o600


def test_existing_context_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text("# my rules\n", encoding="utf-8")
    assert mode(path) == 0o644
    assert write_block(path, "a confirmed insight").changed
    assert mode(path) == 0o644 and "a confirmed insight" in path.read_text(encoding="utf-8")


def test_context_files_in_the_home_are_private(settings: Settings) -> None:
    prepare_home(settings)
    write_owned_file(settings.context_dir / "hook" / "index.json", "{}")
    assert open_to_others(settings.home_dir) == {}


def test_log_file_is_private_when_new_rotated_or_made_by_a_detached_start(settings: Settings) -> None:
    path = log_path(settings)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")  # the detached start opens the file for the daemon's stderr first
    handler = DaemonLogHandler(path, max_bytes=200)
    try:
        for number in range(10):
            handler.emit(logging.makeLogRecord({"msg": f"line {number} " + "x" * 40}))
    finally:
        handler.close()
    files = {p.name: mode(p) for p in path.parent.iterdir()}
    assert "incremind.log.1" in files and files == dict.fromkeys(files, 0o600)


def test_what_the_daemon_writes_while_it_runs_is_private(settings: Settings, tmp_path: Path) -> None:
    from incremind_daemon.config import update_config_file
    from incremind_daemon.pipeline.ingest import keep_original, move_to_failed

    prepare_home(settings)
    connect(settings.database_path).close()
    original = keep_original(b"unredacted bytes", "ab" * 32, ".md", settings.home_dir / "data" / "raw")
    assert (mode(original), mode(original.parent)) == (0o600, 0o700)
    dropped = settings.inbox_dir / "broken.pdf"
    dropped.write_bytes(b"%PDF-broken")
    failed = move_to_failed(dropped, "not a PDF", settings.home_dir / "inbox" / ".failed")
    assert mode(failed.parent) == 0o700 and mode(failed.with_name(failed.name + ".error.txt")) == 0o600
    update_config_file(settings.home_dir / "config.json", "context", {"budget_tokens": 1200})
    update_config_file(settings.home_dir / "config.json", "context", {"budget_tokens": 1300})
    assert mode(settings.home_dir / "config.json") == 0o600 == mode(settings.home_dir / "config.json.bak")
    assert cli.main(["export", "--out", str(tmp_path / "memory.jsonl")]) == 0
    assert mode(tmp_path / "memory.jsonl") == 0o600
    assert open_to_others(settings.home_dir) == {}


def test_a_replaced_file_is_whole_or_untouched_and_exactly_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("old", encoding="utf-8")
    old_umask = os.umask(0o077)
    try:
        replace_file(path, b"new", mode=0o644)  # a unit file others may read, whatever the umask
    finally:
        os.umask(old_umask)
    assert path.read_text(encoding="utf-8") == "new" and mode(path) == 0o644
    with pytest.raises(RuntimeError), replacing(path) as handle:
        handle.write(b"half of it")
        raise RuntimeError("the writer failed midway")
    assert path.read_text(encoding="utf-8") == "new"

    def refuse(temp: Path) -> None:
        assert temp.read_bytes() == b"newer" and temp.parent == path.parent
        raise FileExistsError("changed meanwhile")

    with pytest.raises(FileExistsError), replacing(path, before_rename=refuse) as handle:
        handle.write(b"newer")
    assert path.read_text(encoding="utf-8") == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]  # no temporary file is left
