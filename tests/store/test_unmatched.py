from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest

from incremind_daemon.store import items
from incremind_daemon.store.db import connect
from incremind_daemon.store.records import NewPassage, NewSource
from incremind_daemon.store.search import cut_query, search
from incremind_daemon.store.unmatched import split_unmatched

TEXTS = ("**晓雨:** 在黄龙那边找了个工作室，每周六上午上古筝课。", "**陈浩:** 周末去爬山了，腰还有点疼。")


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[apsw.Connection]:
    db = connect(tmp_path / "memory.db")
    with db:
        for n, text in enumerate(TEXTS):
            source_id = items.insert_source(
                db,
                NewSource(kind="note", project="chat", title=f"chat {n}", raw_text=text),
                now="2026-01-01T00:00:00+00:00",
            )
            items.insert_passages(db, source_id, [NewPassage(text, 0, len(text))])
    yield db
    db.close()


def test_a_name_glued_to_the_next_character_is_searched_as_the_name(conn: apsw.Connection) -> None:
    words = list(cut_query("晓雨学古筝这一路是怎么过来的？").words)
    assert "晓雨学" in words  # the segmenter's guess, which no passage holds
    split = split_unmatched(conn, words)
    assert "晓雨学" not in split and "晓雨" in split and "古筝" in split


def test_a_glued_stopword_is_left_out(tmp_path: Path) -> None:
    db = connect(tmp_path / "memory.db")
    with db:
        text = "苏婷周末烤了个巴斯克芝士蛋糕。"
        source_id = items.insert_source(
            db, NewSource(kind="note", project="p", title="t", raw_text=text), now="2026-01-01T00:00:00+00:00"
        )
        items.insert_passages(db, source_id, [NewPassage(text, 0, len(text))])
    assert split_unmatched(db, ["苏婷会", "兴趣"]) == ["苏婷", "兴趣"]


def test_words_the_memory_holds_or_has_no_piece_of_stay(conn: apsw.Connection) -> None:
    assert split_unmatched(conn, ["工作室", "古筝", "烘焙机", "kubernetes"]) == [
        "工作室",
        "古筝",
        "烘焙机",
        "kubernetes",
    ]


def test_search_finds_all_the_words_once_the_name_is_unglued(conn: apsw.Connection, tmp_path: Path) -> None:
    hits = search(conn, "晓雨学古筝", home=tmp_path)
    assert hits and hits[0].text == TEXTS[0]
    assert "«晓雨»" in hits[0].snippet
