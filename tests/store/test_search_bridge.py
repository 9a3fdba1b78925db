from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest

from incremind_daemon.store import items
from incremind_daemon.store.db import connect
from incremind_daemon.store.glossary import bridge_words, is_chinese
from incremind_daemon.store.records import NewPassage, NewSource, item_id
from incremind_daemon.store.search import _SAME_LANGUAGE_BRIDGE as SAME_LANGUAGE_BRIDGE
from incremind_daemon.store.search import cut_query, rank_by_words, search
from incremind_daemon.store.semantic import Ranked

NOTES = (
    ("ledger", "CI notes", "The invoice tests failed in CI, so the test database goes back to Postgres."),
    ("ledger", "Deploys", "Production deploys are blue-green; roll back with the previous image tag."),
    ("ledger", "Backups", "The database backup runs nightly and the backup is copied offsite weekly."),
    ("ledger", "Ports", "The database listens on port 5433 since the move."),
    ("ledger", "缓存约定", "账户余额走 Redis 缓存，十分钟后过期，写入账目后立刻删掉。"),
    ("trail", "周报", "每周五下午写周报，分三段：完成的事、阻塞、下周计划。"),
    ("ops", "运维", "数据库每晚两点备份，备份文件保留三十天。"),
    ("trail", "地图", "离线地图的瓦片上限五百兆，超过后按最近最少使用删除。"),
)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[apsw.Connection]:
    db = connect(tmp_path / "memory.db")
    with db:
        for project, title, text in NOTES:
            source_id = items.insert_source(
                db,
                NewSource(kind="note", project=project, title=title, raw_text=text),
                now="2026-01-01T00:00:00+00:00",
            )
            items.insert_passages(db, source_id, [NewPassage(text, 0, len(text))])
    yield db
    db.close()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("测试用什么数据库", "the test database goes back to Postgres"),
        ("how long does the balance cache live", "账户余额走 Redis 缓存"),
    ],
)
def test_a_question_finds_notes_in_the_other_language_by_keywords(
    conn: apsw.Connection, tmp_path: Path, query: str, expected: str
) -> None:
    hits = search(conn, query, home=tmp_path, tier="organized", mode="keyword")
    assert any(expected in hit.text for hit in hits[:3])  # first only when its own words find no note of its language


def test_bridge_words_are_the_other_languages_words_the_question_lacks() -> None:
    assert bridge_words("测试用什么数据库") == ["test", "database", "db"]
    assert bridge_words("cache the balance") == ["缓存"]
    assert bridge_words("数据库 database") == ["db"]  # a word the question says is not looked up again
    assert bridge_words("zookeeper quorum") == []


def test_an_unrelated_same_language_question_keeps_its_ranking(conn: apsw.Connection, tmp_path: Path) -> None:
    query = "roll back the previous image"  # bridges to 回滚, 回退, 镜像: no note holds them
    assert bridge_words(query)
    hits = search(conn, query, home=tmp_path, tier="organized", mode="keyword")
    assert [h.id for h in hits] == [item_id(r.kind, r.item) for r in _plain_ranking(conn, query)]


def test_a_question_its_own_words_answer_well_is_not_bridged(conn: apsw.Connection, tmp_path: Path) -> None:
    query = "database backup"  # bridges to 数据库 and 备份, but the English backup note holds both words
    hits = search(conn, query, home=tmp_path, tier="organized", mode="keyword")
    assert [h.id for h in hits] == [item_id(r.kind, r.item) for r in _plain_ranking(conn, query)]
    assert all("数据库" not in h.text for h in hits)


def _plain_ranking(conn: apsw.Connection, query: str) -> list[Ranked]:
    """Rank by the question's own words alone, as search did before the bridge."""
    return rank_by_words(conn, list(cut_query(query).words), project=None, tier="organized", limit=10)


def _english_note_score(conn: apsw.Connection, query: str, best_by_meaning: str) -> float:
    """The score of the English test-database note for a Chinese question, as if ranking by meaning
    had put the note holding ``best_by_meaning`` first."""
    cut = cut_query(query)
    best = rank_by_words(conn, [best_by_meaning], project=None, tier="organized", limit=10)[0]
    ranked = rank_by_words(
        conn,
        list(cut.words),
        project=None,
        tier="organized",
        limit=10,
        bridged=bridge_words(query),
        asked_in_chinese=is_chinese(query),
        material=[best],
    )
    by_id = {r.key: r for r in ranked}
    note = _plain_ranking(conn, "test database Postgres")[0]
    return by_id[note.key].score if note.key in by_id else 0.0


def test_a_chinese_question_over_english_material_is_bridged_at_full_weight(conn: apsw.Connection) -> None:
    query = "测试用什么数据库"  # its best hit by meaning is the English note: the other language
    plain = [r.score for r in _plain_ranking(conn, query)]
    assert _english_note_score(conn, query, "Postgres") > max(plain)  # it ranks above every own-word hit


def test_a_chinese_paraphrase_over_chinese_material_weighs_the_bridge_less(conn: apsw.Connection) -> None:
    query = "测试用什么数据库"  # its best hit by meaning is a Chinese note: a paraphrase in its own language
    full = _english_note_score(conn, query, "Postgres")
    same = _english_note_score(conn, query, "备份文件")
    assert same == pytest.approx(full * SAME_LANGUAGE_BRIDGE)


def test_the_language_of_a_text_is_chinese_when_han_letters_are_a_third() -> None:
    assert is_chinese("测试用什么数据库") and is_chinese("CI 上的 redis 怎么配")
    assert not is_chinese("the test database goes back to Postgres") and not is_chinese("")
