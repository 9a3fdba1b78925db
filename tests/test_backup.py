"""Backup while a real worker writes, restore into a new home, compare item by item; export."""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path

import apsw
import pytest

from incremind_daemon import cli
from incremind_daemon.config import Settings, load_settings
from incremind_daemon.errors import IncremindError
from incremind_daemon.ops.backup import BackupResult, restore_backup, take_backup
from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer
from incremind_daemon.pipeline.work import IngestFile, Outcome, TailSession, WorkItem
from incremind_daemon.pipeline.worker import Worker
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader
from incremind_daemon.store.db import connect
from incremind_daemon.store.records import SaveRequest
from tests.transcripts import ClaudeLog

NOTE = """# 笔记 {n}

复习单词时我更喜欢按第 1、2、4、7 天复习，这个方法对我最有效。
Always run the linter before committing change number {n}.
服务 {n} 的端口配置是 {port}。
"""

# what never changes once written: a session's passages are re-cut as it grows, and its
# summary, an insight's hotness and a session's last message move on, so those are left out
FILES = "source_id IN (SELECT id FROM sources WHERE kind = 'file')"
IDENTITY = {
    "sources": ("kind, project, title, sha256, raw_path, created_at", ""),
    "chunks": ('source_id, seq, text, start, "end"', FILES),
    "summaries": ("source_id, index_line, summary, created_at", FILES),
    "insights": ("project, category, statement, created_at", ""),
    "insight_sources": ('insight_id, source_id, quote, start, "end"', ""),
    "messages": ("source_id, message_id, role, seq", ""),
    "sessions": ("agent, session_id, cwd", ""),
}


def rows(conn: apsw.Connection, table: str, spec: tuple[str, str]) -> dict[int, tuple[object, ...]]:
    columns, where = spec
    sql = f"SELECT rowid, {columns} FROM {table}" + (f" WHERE {where}" if where else "")
    return {int(r[0]): tuple(r[1:]) for r in conn.execute(sql).fetchall()}


def by_source(conn: apsw.Connection, table: str) -> dict[int, list[tuple[object, ...]]]:
    grouped: dict[int, list[tuple[object, ...]]] = {}
    for row in conn.execute(f"SELECT source_id, * FROM {table} ORDER BY rowid").fetchall():
        grouped.setdefault(int(row[0]), []).append(tuple(row))
    return grouped


@pytest.fixture
def worker(settings: Settings) -> Iterator[Worker]:
    made = Worker(
        settings, extract_bytes, read_session=TranscriptReader(ReadRules.from_settings(settings)), actor="test"
    )
    made.start()
    yield made
    made.stop()


def feed(worker: Worker, settings: Settings, folder: Path, count: int, *, start: int = 0) -> list[Future[Outcome]]:
    """Submit notes (each with an original kept under data/raw) and a growing agent session."""
    folder.mkdir(parents=True, exist_ok=True)
    repo = folder / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "aaaaaaaa-1111-2222-3333-444444444444", str(repo))
    futures: list[Future[Outcome]] = []
    for n in range(start, start + count):
        note = folder / f"note-{n}.md"
        note.write_text(NOTE.format(n=n, port=8000 + n), encoding="utf-8")
        futures.append(worker.submit(IngestFile(note.absolute(), "study" if n % 2 else "daily")))
        log.append(
            log.user(f"u{n}", f"把第 {n} 个服务的超时改成 {n} 秒"), log.assistant(f"a{n}", f"m{n}", f"改好了 {n}")
        )
        futures.append(worker.submit(TailSession(log.path, "claude")))
    return futures


def test_backup_taken_while_the_worker_writes_restores_item_by_item(
    worker: Worker, settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = feed(worker, settings, tmp_path / "notes", 6)
    for future in first:
        future.result(timeout=60)
    saved = worker.save(SaveRequest("I prefer pytest over unittest for new code", project="daily", trusted=True))
    saved.result(timeout=60)
    more = feed(worker, settings, tmp_path / "notes", 30, start=6)  # still being written while the backup runs

    done: list[BackupResult] = []
    backup = threading.Thread(target=lambda: done.append(take_backup(settings, tmp_path / "backup")))
    more[0].result(timeout=60)
    backup.start()
    backup.join(60)
    assert done, "the backup finished"
    assert any(not f.done() for f in more), "the worker was still writing when the backup finished"
    for future in more:
        future.result(timeout=120)
    assert done[0].raw_files >= 6 and not done[0].missing

    target = load_settings(home=tmp_path / "restored-home")
    restored = restore_backup(target, tmp_path / "backup")
    manifest = json.loads((tmp_path / "backup" / "manifest.json").read_text(encoding="utf-8"))
    assert restored.tables == manifest["tables"] == done[0].tables
    assert restored.tables["insights"] >= 1 and restored.tables["messages"] >= 12

    live = connect(settings.database_path, readonly=True)
    copy = connect(target.database_path, readonly=True)
    try:
        # every item in the backup is the live one: the copy is one earlier moment of the same store
        for table, spec in IDENTITY.items():
            copied, current = rows(copy, table, spec), rows(live, table, spec)
            assert copied, table
            for rowid, row in copied.items():
                assert current.get(rowid) == row, (table, rowid)
        # and consistent: each file has all of its passages and its summary, or is absent
        live_chunks, copy_chunks = by_source(live, "chunks"), by_source(copy, "chunks")
        live_summaries, copy_summaries = by_source(live, "summaries"), by_source(copy, "summaries")
        files = copy.execute("SELECT id, raw_path, sha256 FROM sources WHERE kind = 'file'").fetchall()
        for source_id, raw_path, sha in files:
            assert copy_chunks[source_id] == live_chunks[source_id], source_id
            assert copy_summaries.get(source_id) == live_summaries.get(source_id), source_id
            original = target.home_dir / raw_path
            assert hashlib.sha256(original.read_bytes()).hexdigest() == sha
            assert original.read_bytes() == (settings.home_dir / raw_path).read_bytes()
        assert len(files) == restored.raw_files
    finally:
        live.close()
        copy.close()

    assert cli.main(["--home", str(target.home_dir), "search", "端口", "--json"]) == 0
    assert json.loads(capsys.readouterr().out), "the restored full-text index answers"


@pytest.fixture
def filled(settings: Settings, tmp_path: Path) -> Settings:
    state = StepState(settings, extract_bytes, read_session=TranscriptReader(ReadRules.from_settings(settings)))
    with open_writer(state) as conn:
        for outcome in feed_sync(functools.partial(ingest_item, conn, state), tmp_path / "notes"):
            assert outcome.status == "added", outcome
        examine_pending(conn, state)
    return settings


def feed_sync(take_in: Callable[[WorkItem], Outcome], folder: Path) -> list[Outcome]:
    folder.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for n in range(3):
        note = folder / f"note-{n}.md"
        note.write_text(NOTE.format(n=n, port=9000 + n), encoding="utf-8")
        outcomes.append(take_in(IngestFile(note.absolute(), "study" if n % 2 else "daily")))
    return outcomes


def test_tar_gz_backup_restores_the_same_items(filled: Settings, tmp_path: Path) -> None:
    archive = tmp_path / "out" / "memory.tar.gz"
    config = filled.home_dir / "config.json"
    config.write_text('{"default_project": "daily"}\n', encoding="utf-8")
    done = take_backup(filled, archive)
    assert archive.is_file() and done.raw_files == 3
    assert not [p for p in archive.parent.iterdir() if p != archive], "no staging left behind"
    target = load_settings(home=tmp_path / "new-home")
    restored = restore_backup(target, archive)
    assert restored.tables == done.tables
    assert restored.config == target.home_dir / "config.json"
    assert (target.home_dir / "config.json").read_text(encoding="utf-8") == config.read_text(encoding="utf-8")


def test_restore_into_a_home_that_holds_memory_is_refused(filled: Settings, tmp_path: Path) -> None:
    take_backup(filled, tmp_path / "backup")
    with pytest.raises(IncremindError, match="already holds memory"):
        restore_backup(filled, tmp_path / "backup")


def test_restore_of_a_damaged_backup_writes_nothing(filled: Settings, tmp_path: Path) -> None:
    take_backup(filled, tmp_path / "backup")
    original = next(p for p in (tmp_path / "backup" / "data" / "raw").rglob("*") if p.is_file())
    original.write_bytes(original.read_bytes() + b"tampered")
    target = load_settings(home=tmp_path / "new-home")
    with pytest.raises(IncremindError, match="damaged"):
        restore_backup(target, tmp_path / "backup")
    assert not target.database_path.exists()


def test_backup_into_a_folder_that_is_not_empty_is_refused(filled: Settings, tmp_path: Path) -> None:
    dest = tmp_path / "backup"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(IncremindError, match="not an empty folder"):
        take_backup(filled, dest)
    assert [p.name for p in dest.iterdir()] == ["keep.txt"]


def test_backup_and_restore_through_the_cli(
    filled: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["backup", str(tmp_path / "b"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["raw_files"] == 3
    home = tmp_path / "restored"
    assert cli.main(["--home", str(home), "restore-backup", str(tmp_path / "b")]) == 0
    assert "restored into" in capsys.readouterr().out
    assert cli.main(["--home", str(home), "restore-backup", str(tmp_path / "b")]) == 1
    assert "already holds memory" in capsys.readouterr().err


def test_export_jsonl_holds_insights_sources_and_summaries(
    filled: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    standup = tmp_path / "standup-2025-06-01.md"
    standup.write_text("# Standup\n\nThe gateway listens on 8443.\n", encoding="utf-8")
    assert cli.main(["ingest", str(standup), "--project", "daily"]) == 0
    out = tmp_path / "export.jsonl"
    assert cli.main(["export", "--format", "jsonl", "--out", str(out), "--with-text"]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    dated = {r["original_name"]: r.get("dated") for r in records if r["type"] == "source"}
    assert dated["standup-2025-06-01.md"] == "2025-06-01" and dated["note-0.md"] is None
    kinds = {r["type"] for r in records}
    assert kinds == {"insight", "source", "summary"}
    insight = next(r for r in records if r["type"] == "insight")
    assert {"status", "category", "condition", "evidence"} <= set(insight)
    assert insight["evidence"] and insight["evidence"][0]["source"].startswith("src-")
    source = next(r for r in records if r["type"] == "source")
    assert source["index_line"] and "端口" in source["text"]
    assert "exported" in capsys.readouterr().err


def test_export_markdown_filters_by_project(filled: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["export", "--format", "markdown", "--project", "study"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# incremind export (project study)")
    assert "## Insights" in text and "## Sources and summaries" in text
    assert "note-1.md" in text and "note-0.md" not in text
    assert "```" not in text, "no source text without --with-text"


def test_status_counts_what_was_taken_in_today(filled: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["status", "--json"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["today"]["sources"] == 3 and report["today"]["messages"] == 0
    assert report["daemon"]["process"] is None and report["last_errors"] == {}
    assert cli.main(["status"]) == 3
    assert "today         3 sources taken in, 0 session messages said" in capsys.readouterr().out
