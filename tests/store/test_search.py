from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from incremind_daemon.errors import QueryError
from incremind_daemon.store import items
from incremind_daemon.store import search as search_module
from incremind_daemon.store.db import connect
from incremind_daemon.store.records import NewPassage, NewSource, NewSummary
from incremind_daemon.store.search import quote_query, search

NOTES = {
    "study": ("学习笔记", "间隔重复是一种记忆方法。按第 1、2、4、7、15 天复习，效果最好。"),
    "api": ("API notes", "The service listens on port 8080. Configure snake_case keys in v1.2 of the C++ client."),
    "ops": ("运维", "数据库的端口号改成了 5433，备份在每晚两点。"),
}


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[apsw.Connection]:
    db = connect(tmp_path / "memory.db")
    with db:
        for project, (title, text) in NOTES.items():
            source_id = items.insert_source(
                db,
                NewSource(kind="note", project=project, title=title, raw_text="前言。\n" + text),
                now="2026-01-01T00:00:00+00:00",
            )
            start = len("前言。\n")
            items.insert_passages(db, source_id, [NewPassage(text, start, start + len(text))])
            items.upsert_summary(db, source_id, NewSummary(title, text[:20]), now="2026-01-01T00:00:00+00:00")
    yield db
    db.close()


@pytest.mark.parametrize(
    ("query", "project"),
    [("复习", "study"), ("端口", "ops"), ("port 8080", "api"), ("snake_case", "api"), ("間隔重複", "study")],
)
def test_search_finds_word_in_right_project(conn: apsw.Connection, tmp_path: Path, query: str, project: str) -> None:
    hits = search(conn, query, home=tmp_path, tier="organized")
    assert hits and hits[0].source.project == project


def test_search_offsets_slice_the_raw_text(conn: apsw.Connection, tmp_path: Path) -> None:
    for hit in search(conn, "端口", home=tmp_path, tier="organized"):
        source = items.get_source(conn, int(hit.source.id.split("-")[1]))
        assert hit.start is not None and hit.end is not None
        assert source.raw_text[hit.start : hit.end] == hit.text


def test_search_marks_matched_words_in_snippet(conn: apsw.Connection, tmp_path: Path) -> None:
    hit = search(conn, "备份", home=tmp_path, tier="organized")[0]
    assert "«备份»" in hit.snippet


def test_search_filters_by_project(conn: apsw.Connection, tmp_path: Path) -> None:
    assert search(conn, "端口", home=tmp_path, project="study") == []


def test_search_falls_back_to_any_word_when_all_words_miss(conn: apsw.Connection, tmp_path: Path) -> None:
    hits = search(conn, "复习 kubernetes", home=tmp_path)
    assert hits and hits[0].source.project == "study"


@pytest.mark.parametrize("query", ['"C++" AND (', "NEAR(a b", "port*", "a OR", ")))", "col:value", '"unbalanced'])
def test_search_treats_fts5_syntax_as_words(conn: apsw.Connection, tmp_path: Path, query: str) -> None:
    assert isinstance(search(conn, query, home=tmp_path), list)


def test_search_rejects_empty_query(conn: apsw.Connection, tmp_path: Path) -> None:
    with pytest.raises(QueryError, match="empty"):
        search(conn, "  ", home=tmp_path)


def test_search_returns_nothing_for_punctuation_only(conn: apsw.Connection, tmp_path: Path) -> None:
    assert search(conn, "？！ ...", home=tmp_path) == []


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=60))
def test_search_never_raises_fts5_errors(conn: apsw.Connection, tmp_path: Path, query: str) -> None:
    try:
        search(conn, query, home=tmp_path)
    except QueryError as exc:
        assert not query.strip(), exc


@given(st.text(max_size=60))
def test_quote_query_quotes_every_word(query: str) -> None:
    try:
        expression = quote_query(query)
    except QueryError:
        return
    for part in expression.split(" AND "):
        assert part.startswith('"') and part.endswith('"')


def _many_notes(db: apsw.Connection, texts: list[str]) -> list[int]:
    """Store one passage per text, oldest first; return the passages' row ids."""
    rowids: list[int] = []
    with db:
        for n, text in enumerate(texts):
            source_id = items.insert_source(
                db, NewSource(kind="note", project="p", title=f"n{n}", raw_text=text), now="2026-01-01T00:00:00+00:00"
            )
            items.insert_passages(db, source_id, [NewPassage(text, 0, len(text))])
            rowids.append(int(db.execute("SELECT max(id) FROM chunks").fetchall()[0][0]))
    return rowids


def test_a_very_common_word_ranks_its_newest_matches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "MAX_SCORED", 5)
    db = connect(tmp_path / "memory.db")
    # the oldest note holds the word most densely: exact BM25 would put it first
    rowids = _many_notes(db, ["缓存 缓存 缓存 缓存", *[f"第 {n} 条笔记提到缓存和别的很多很多事情" for n in range(11)]])
    hits = search(db, "缓存", home=tmp_path, tier="organized", limit=20)
    assert sorted(int(h.id.split("-")[1]) for h in hits) == rowids[-5:]
    monkeypatch.setattr(search_module, "MAX_SCORED", 100)  # under the cap, ranking is exact over all matches
    assert int(search(db, "缓存", home=tmp_path, tier="organized")[0].id.split("-")[1]) == rowids[0]
    db.close()


def test_the_any_word_fallback_leaves_out_words_that_match_too_much(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_module, "MAX_SCORED", 5)
    db = connect(tmp_path / "memory.db")
    rowids = _many_notes(db, [*[f"note {n} about caching layers" for n in range(10)], "the zookeeper quorum moved"])
    hits = search(db, "caching zookeeper outage", home=tmp_path, tier="organized")
    # no note holds all three words; 'caching' alone matches more than the cap, so only the telling word counts
    assert [int(h.id.split("-")[1]) for h in hits] == [rowids[-1]]
    db.close()


@pytest.mark.parametrize(
    ("index_line", "summary", "expected"),
    [
        ("间隔重复：第1、2、4、7天复习。", "间隔重复：第1、2、4、7天复习。", "间隔重复：第1、2、4、7天复习。"),
        ("复习计划 — 间隔", "间隔重复：第1、2、4、7天复习。", "复习计划 — 间隔\n间隔重复：第1、2、4、7天复习。"),
        ("We moved the API…", "Intro. We moved the API to port 8080.", "Intro. We moved the API to port 8080."),
    ],
)
def test_summary_hit_says_its_top_sentence_once(tmp_path: Path, index_line: str, summary: str, expected: str) -> None:
    db = connect(tmp_path / "memory.db")
    with db:
        source_id = items.insert_source(
            db, NewSource(kind="note", project="p", title="n", raw_text=summary), now="2026-01-01T00:00:00+00:00"
        )
        items.upsert_summary(db, source_id, NewSummary(index_line, summary), now="2026-01-01T00:00:00+00:00")
    hits = search(db, "复习 API", home=tmp_path, tier="summary")
    db.close()
    assert [hit.text for hit in hits] == [expected]
