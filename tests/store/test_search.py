from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import apsw
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from incremind_daemon.errors import QueryError
from incremind_daemon.store import items
from incremind_daemon.store import search as search_module
from incremind_daemon.store.db import connect
from incremind_daemon.store.records import Hit, NewPassage, NewSource, NewSummary, SourceRef
from incremind_daemon.store.search import (
    MAX_ANY_WORDS,
    MAX_QUERY_CHARS,
    MAX_QUERY_WORDS,
    cut_query,
    quote_query,
    search,
)
from incremind_daemon.store.snippet import mark_snippet

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


# bounded work: a query is cut before any work, and the any-word step probes a bounded number of words


def test_a_short_query_is_searched_whole() -> None:
    cut = cut_query("端口 配置 of the API")
    assert (cut.text, cut.is_cut, cut.note()) == ("端口 配置 of the API", False, None)


def test_a_huge_query_is_cut_to_its_first_characters_at_a_word_end() -> None:
    query = "port 8080 " + "configure listening sockets " * 17_000  # about 450 KB
    cut = cut_query(query)
    assert len(cut.text) <= MAX_QUERY_CHARS and query.startswith(cut.text)
    assert cut.text.endswith(("configure", "listening", "sockets"))  # no word split by the cut
    assert cut.kept_words <= MAX_QUERY_WORDS and len(cut.words) <= MAX_QUERY_WORDS
    note = cut.note()
    assert note is not None and f"{len(query):,} characters" in note and f"{MAX_QUERY_WORDS} words" in note


def test_a_query_of_many_short_words_is_cut_to_max_words() -> None:
    words = [f"w{n}" for n in range(200)]
    cut = cut_query(" ".join(words))
    assert cut.text == " ".join(words[:MAX_QUERY_WORDS])
    assert cut.words == tuple(words[:MAX_QUERY_WORDS]) and cut.kept_words == MAX_QUERY_WORDS


def test_a_single_word_longer_than_the_cut_is_kept_cut() -> None:
    cut = cut_query("x" * (MAX_QUERY_CHARS * 3))
    assert cut.text == "x" * MAX_QUERY_CHARS and cut.is_cut


def test_search_answers_an_oversize_query_from_its_first_words(conn: apsw.Connection, tmp_path: Path) -> None:
    query = "备份 " + "zebra quagga okapi " * 25_000
    hits = search(conn, query, home=tmp_path, tier="organized")
    assert [hit.source.project for hit in hits] == ["ops"]
    assert "«备份»" in hits[0].snippet


@dataclass
class MatchLog:
    """Every FTS5 statement a connection ran, with its match expression."""

    matches: list[str] = field(default_factory=list)

    def __call__(self, _cursor: apsw.Cursor, sql: str, bindings: object) -> bool:
        if " MATCH " in sql and isinstance(bindings, dict):
            self.matches.append(str(bindings["match"]))
        return True


def test_the_any_word_step_runs_a_bounded_number_of_fts_queries(conn: apsw.Connection, tmp_path: Path) -> None:
    words = [f"absent{n}" for n in range(MAX_QUERY_WORDS * 3)]
    log = MatchLog()
    conn.exec_trace = log
    try:
        assert search(conn, "端口 " + " ".join(words), home=tmp_path) != []  # found by any word: 端口
    finally:
        conn.exec_trace = None
    kinds = 4  # passages, summaries, messages, insights
    # all words: floor and rank per kind; any word, and the other language's words for 端口 (port):
    # one probe per word probed, then floor and rank
    assert len(log.matches) <= kinds * (2 + 2 * (MAX_ANY_WORDS + 2))
    loose = [m for m in log.matches if " OR " in m]
    assert loose and all(m.count(" OR ") < MAX_ANY_WORDS for m in loose)
    assert all(m.count(" AND ") < MAX_QUERY_WORDS for m in log.matches)


def test_a_note_comes_back_once_as_its_passage_not_again_as_its_summary(conn: apsw.Connection, tmp_path: Path) -> None:
    hits = search(conn, "端口", home=tmp_path)  # every tier: the ops note has a passage and a summary with it
    ops = [hit for hit in hits if hit.source.project == "ops"]
    assert [hit.tier for hit in ops] == ["organized"]
    assert ops[0].start is not None  # the passage, with its offsets into the note


def test_a_passage_standing_in_for_its_summary_keeps_the_summarys_score() -> None:
    # a note saved a moment ago: its summary matched best, its passage (not yet embedded) scored nothing
    def hit(item: str, source: str, score: float) -> Hit:
        tier = {"sum": "summary", "pas": "organized"}[item[:3]]
        return Hit(item, tier, score, "text", SourceRef(source, "t", None, "p", "note"), None, None, "")

    ranked = [hit("sum-7", "src-7", 0.8), hit("pas-6", "src-3", 0.15), hit("pas-11", "src-7", 0.0)]
    kept = search_module.one_per_summary(ranked, 5)
    assert [(h.id, h.score) for h in kept] == [("pas-11", 0.8), ("pas-6", 0.15)]


def test_a_summary_stays_when_nothing_else_of_its_source_was_found(tmp_path: Path) -> None:
    db = connect(tmp_path / "memory.db")
    with db:
        source_id = items.insert_source(
            db, NewSource(kind="note", project="p", title="n", raw_text="全文"), now="2026-01-01T00:00:00+00:00"
        )
        items.upsert_summary(
            db, source_id, NewSummary("复习计划", "间隔重复：第1、2、4、7天复习。"), now="2026-01-01T00:00:00+00:00"
        )
    hits = search(db, "复习", home=tmp_path)
    db.close()
    assert [hit.tier for hit in hits] == ["summary"]


def test_stand_ins_do_not_shorten_the_list(tmp_path: Path) -> None:
    db = connect(tmp_path / "memory.db")
    with db:
        for n in range(15):
            text = f"部署笔记 {n}：周五部署。"
            source_id = items.insert_source(
                db, NewSource(kind="note", project="p", title=f"n{n}", raw_text=text), now="2026-01-01T00:00:00+00:00"
            )
            items.insert_passages(db, source_id, [NewPassage(text, 0, len(text))])
            items.upsert_summary(db, source_id, NewSummary(text, text), now="2026-01-01T00:00:00+00:00")
    hits = search(db, "部署", home=tmp_path, limit=10)
    db.close()
    assert len(hits) == 10 and len({hit.source.id for hit in hits}) == 10
    assert {hit.tier for hit in hits} == {"organized"}


def test_a_snippet_marks_whole_words_and_their_endings_not_pieces_of_others() -> None:
    snippet = mark_snippet("user: the dashboard we use deploys on Fridays; snake_case keys", ["use", "deploy", "case"])
    assert snippet == "user: the dashboard we «use» «deploy»s on Fridays; snake_case keys"
