"""Ingest through the CLI, in process, on real files and a real database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incremind_daemon import cli
from incremind_daemon.store import items
from incremind_daemon.store.db import connect
from incremind_daemon.store.records import row_number
from tests.bad_files import write_bad_files
from tests.sources.make_files import make_docx, make_pdf

CHINESE_NOTE = """# 记忆方法笔记

今天读了一篇关于间隔重复的文章。核心做法是按第 1、2、4、7、15 天复习，每次复习前先回忆。
如果忘记了，就把间隔缩短。这个方法适合背单词，也适合记住服务的端口配置。
"""


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli.main(list(args))
    return code, capsys.readouterr().out


def search_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, object]]:
    code, out = run_cli(capsys, "search", *args, "--json")
    assert code == 0, out
    hits: list[dict[str, object]] = json.loads(out)
    return hits


def assert_offsets_match_raw(hits: list[dict[str, object]], home: Path) -> None:
    conn = connect(home / "memory.db", readonly=True)
    try:
        for hit in hits:
            if hit["tier"] != "organized":
                continue
            source = hit["source"]
            assert isinstance(source, dict)
            raw = items.get_source(conn, row_number(str(source["id"]))).raw_text
            assert raw[int(str(hit["start"])) : int(str(hit["end"]))] == hit["text"]
    finally:
        conn.close()


@pytest.fixture
def home(private_home: Path) -> Path:
    return private_home / ".incremind"


def test_chinese_note_is_found_by_two_character_word_and_phrase(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    note = tmp_path / "note.md"
    note.write_text(CHINESE_NOTE, encoding="utf-8")
    code, out = run_cli(capsys, "ingest", str(note), "--project", "study")
    assert code == 0 and "added" in out
    for query in ("复习", "端口", "间隔重复的方法", "背单词"):
        hits = search_json(capsys, query)
        assert hits, query
        assert hits[0]["source"]["project"] == "study"  # type: ignore[index]
        assert_offsets_match_raw(hits, home)


def test_unquoted_words_are_one_query(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "note.md"
    note.write_text(CHINESE_NOTE, encoding="utf-8")
    assert run_cli(capsys, "ingest", str(note), "--project", "study")[0] == 0
    unquoted = search_json(capsys, "间隔重复", "的方法", "--mode", "keyword")
    assert unquoted == search_json(capsys, "间隔重复 的方法", "--mode", "keyword") and unquoted


def test_pdf_word_on_page_two_reports_the_page(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdf = make_pdf(
        tmp_path / "paper.pdf",
        [
            "Introduction to memory systems.\nThis page talks about storage.",
            "Retrieval practice beats rereading.\nThe zeppelin experiment showed it.",
        ],
    )
    assert run_cli(capsys, "ingest", str(pdf))[0] == 0
    hits = search_json(capsys, "zeppelin", "--tier", "organized")
    assert hits and hits[0]["page"] == 2
    assert_offsets_match_raw(hits, home)


KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
PASSWORD = "hunter2" + "secret"


def stored_text(home: Path) -> str:
    """Every text the database holds for sources, passages and summaries, joined."""
    conn = connect(home / "memory.db", readonly=True)
    try:
        rows = conn.execute(
            """SELECT title || raw_text FROM sources UNION ALL SELECT text FROM chunks
               UNION ALL SELECT index_line || summary FROM summaries"""
        ).fetchall()
    finally:
        conn.close()
    return "\n".join(str(row[0]) for row in rows)


def test_credentials_in_a_file_are_redacted_and_the_original_kept(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    note = tmp_path / "deploy.md"
    body = f"# Deploy\n\nThe staging key is OPENAI_API_KEY={KEY}\nDB: postgres://admin:{PASSWORD}@db.local/app\n"
    note.write_text(body, encoding="utf-8")
    assert run_cli(capsys, "ingest", str(note))[0] == 0
    text = stored_text(home)
    assert KEY not in text and PASSWORD not in text
    assert "[REDACTED:openai_key]" in text and "[REDACTED:password]" in text
    hits = search_json(capsys, "staging key")
    assert hits and all(KEY not in json.dumps(hit) for hit in hits)
    assert_offsets_match_raw(hits, home)
    originals = list((home / "data" / "raw").rglob("*.md"))
    assert [o.read_text(encoding="utf-8") for o in originals] == [body]  # nothing of the file is lost


def test_redaction_keeps_pdf_pages_in_place(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdf = make_pdf(
        tmp_path / "ops.pdf",
        [f"Runbook. Use API_TOKEN={KEY} for the deploy job.", "The zeppelin alarm means the disk is full."],
    )
    assert run_cli(capsys, "ingest", str(pdf))[0] == 0
    assert KEY not in stored_text(home)
    hits = search_json(capsys, "zeppelin", "--tier", "organized")
    assert hits and hits[0]["page"] == 2
    assert_offsets_match_raw(hits, home)


def test_docx_table_cells_are_searchable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docx = make_docx(
        tmp_path / "plan.docx",
        [
            "# Release plan",
            "The table lists owners.",
            [["Component", "Owner"], ["tokenizer", "Wang Fang"]],
            "Ship after review.",
        ],
    )
    assert run_cli(capsys, "ingest", str(docx))[0] == 0
    hits = search_json(capsys, "Wang Fang")
    assert hits and "tokenizer" in str(hits[0]["text"])


def test_gb18030_text_is_read_without_mojibake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "gbk.txt"
    path.write_bytes("数据库备份每晚两点执行，保留七天。".encode("gb18030"))
    assert run_cli(capsys, "ingest", str(path))[0] == 0
    hits = search_json(capsys, "备份")
    assert hits and "数据库备份每晚两点执行" in str(hits[0]["text"])


def test_same_file_twice_is_one_source_seen_twice(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    note = tmp_path / "note.md"
    note.write_text(CHINESE_NOTE, encoding="utf-8")
    run_cli(capsys, "ingest", str(note))
    code, out = run_cli(capsys, "ingest", str(note), "--json")
    assert code == 0 and json.loads(out)[0]["status"] == "duplicate"
    conn = connect(home / "memory.db", readonly=True)
    try:
        assert conn.execute("SELECT count(*), max(seen_count) FROM sources").fetchall() == [(1, 2)]
    finally:
        conn.close()


def test_bad_files_fail_with_their_own_message(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (home).mkdir(parents=True)
    (home / "config.json").write_text('{"inbox": {"max_file_mb": 2}}', encoding="utf-8")
    expected = write_bad_files(tmp_path / "bad")
    code, out = run_cli(capsys, "ingest", *(str(tmp_path / "bad" / name) for name in expected), "--json")
    assert code == 1
    outcomes = {Path(o["path"]).name: o for o in json.loads(out)}
    for name, words in expected.items():
        assert outcomes[name]["status"] == "failed"
        assert words in outcomes[name]["message"], (name, outcomes[name]["message"])
    assert all((tmp_path / "bad" / name).exists() for name in expected), "ingest must not touch the originals"


@pytest.mark.parametrize("query", ['"C++" AND (', "NEAR(", "*", "端口 OR"])
def test_fts5_syntax_query_returns_a_list(tmp_path: Path, capsys: pytest.CaptureFixture[str], query: str) -> None:
    note = tmp_path / "note.md"
    note.write_text(CHINESE_NOTE + "\nThe C++ client AND the server.\n", encoding="utf-8")
    run_cli(capsys, "ingest", str(note))
    assert isinstance(search_json(capsys, query), list)


def test_show_drills_down_from_summary_and_passage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "note.md"
    note.write_text(CHINESE_NOTE, encoding="utf-8")
    run_cli(capsys, "ingest", str(note))
    passage = search_json(capsys, "复习", "--tier", "organized")[0]
    code, out = run_cli(capsys, "show", str(passage["id"]), "--json")
    shown = json.loads(out)
    assert code == 0 and shown["text"] == passage["text"]
    code, out = run_cli(capsys, "show", "src-1", "--json")
    summary_id = json.loads(out)["summary_id"]
    code, out = run_cli(capsys, "show", summary_id)
    assert code == 0 and "incremind show src-1" in out
    code, out = run_cli(capsys, "show", "src-1")
    assert code == 0 and "file        note.md" in out  # the name it was dropped as, beside the kept copy


def test_show_unknown_id_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "note.md"
    note.write_text(CHINESE_NOTE, encoding="utf-8")
    run_cli(capsys, "ingest", str(note))
    assert cli.main(["show", "pas-999"]) == 1
    assert "no passage pas-999" in capsys.readouterr().err
    assert cli.main(["show", "banana"]) == 1
    assert "not a memory id" in capsys.readouterr().err


def test_status_works_without_daemon_and_exits_3(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_cli(capsys, "status", "--json")
    report = json.loads(out)
    assert code == 3 and report["daemon"]["running"] is False
    assert report["tiers"] == {"raw": 0, "organized": 0, "summary": 0, "insight": 0}
    assert report["search_modes"] == ["keyword"]


def test_init_writes_commented_config_once(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "init")[0] == 0
    config = (home / "config.json").read_text(encoding="utf-8")
    assert config.startswith("// incremind configuration")
    assert (home / "inbox").is_dir()
    assert "kept existing" in run_cli(capsys, "init")[1]


def test_a_file_named_for_a_day_is_searched_and_shown_as_of_that_day(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dated, undated = tmp_path / "chat-2025-06-01.md", tmp_path / "later.md"
    dated.write_text("# Chat\n\n**Tom:** I strained my calf on an 18-mile run.\n", encoding="utf-8")
    undated.write_text("**Tom:** The calf is healing; no run this week.\n", encoding="utf-8")
    for path in (dated, undated):
        assert run_cli(capsys, "ingest", str(path), "--project", "life")[0] == 0
    dates = {str(hit["text"])[:40]: hit["source"]["date"] for hit in search_json(capsys, "calf")}  # type: ignore[index]
    assert sorted(str(day)[:10] for day in dates.values())[0] == "2025-06-01"
    assert sum(str(day).startswith("2025-06-01") for day in dates.values()) == 1  # the other: the day it came in
    in_june = search_json(capsys, "Tom's calf in June 2025")
    assert in_june[0]["source"]["date"] == "2025-06-01"  # type: ignore[index]


def test_a_file_under_an_inbox_project_folder_is_ingested_into_that_project(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = home / "inbox" / "study"
    folder.mkdir(parents=True)
    (folder / "note.md").write_text(CHINESE_NOTE, encoding="utf-8")
    elsewhere = tmp_path / "other.md"
    elsewhere.write_text("端口配置的另一份笔记：staging 用 8443。", encoding="utf-8")
    code, out = run_cli(capsys, "ingest", str(home / "inbox"), str(elsewhere))
    assert code == 0 and "2 added" in out
    projects = {hit["source"]["title"]: hit["source"]["project"] for hit in search_json(capsys, "端口")}  # type: ignore[index]
    assert projects == {"记忆方法笔记": "study", "other": "daily"}
