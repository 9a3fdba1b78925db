from __future__ import annotations

from pathlib import Path

import apsw
import pytest

from incremind_daemon.store import items
from incremind_daemon.store import search as search_module
from incremind_daemon.store.db import connect
from incremind_daemon.store.query_parts import MAX_PARTS, query_parts
from incremind_daemon.store.records import NewPassage, NewSource
from incremind_daemon.store.search import search, take_turns

NOW = "2026-01-01T00:00:00+00:00"


@pytest.mark.parametrize(
    ("query", "parts"),
    [
        (
            "李明去的那个分公司在哪座城市？另外那边有多少人？",
            ["李明去的那个分公司在哪座城市？", "那边有多少人？"],
        ),
        ("新车是什么型号？还有保险花了多少？", ["新车是什么型号？", "保险花了多少？"]),
        (
            "What injuries did Maya and Tom each have this year?",
            ["What injuries did Maya each have this year?", "What injuries did Tom each have this year?"],
        ),
        (
            "What happened with Daniel and Ana's parents' home?",
            ["What happened with Daniel's parents' home?", "What happened with Ana's parents' home?"],
        ),
        ("婆婆和公公谁年纪大？", ["婆婆谁年纪大？", "公公谁年纪大？"]),
        (
            "厦门的住宿和青岛的住宿，哪一趟总共花得多？",
            ["厦门的住宿，哪一趟总共花得多？", "青岛的住宿，哪一趟总共花得多？"],
        ),
    ],
)
def test_a_question_that_asks_several_things_is_cut_into_them(query: str, parts: list[str]) -> None:
    assert query_parts(query) == parts


@pytest.mark.parametrize(
    "query",
    [
        "How do I run the tests?",
        "间隔复习按第几天复习？",
        "我和李明一起去的饭店叫什么",  # 我 is no name of its own
        "按照和朵朵的约定，她期末成绩够不够领养猫的条件？",  # 按照 joins nothing
        "rock and roll records",  # lower-case words are no names
        "Which birds has Daniel seen, and where?",  # "where?" alone has nothing to search for
        "Which camera did Daniel buy, and how much did it cost?",  # nor has "how much did it cost"
    ],
)
def test_a_question_that_asks_one_thing_stays_whole(query: str) -> None:
    assert query_parts(query) == []


def test_a_question_is_cut_into_at_most_max_parts() -> None:
    query = "？".join(f"第{n}个项目的预算是多少" for n in range(1, 9)) + "？"
    assert len(query_parts(query)) == MAX_PARTS


def _hit(name: str) -> search_module.Hit:
    return search_module.Hit(
        id=name, tier="organized", score=1.0, text=name, source=None, start=None, end=None, snippet=name, page=None
    )  # type: ignore[arg-type]


def test_the_whole_question_keeps_every_other_place_and_the_parts_take_turns_between() -> None:
    whole = [_hit(n) for n in ("w1", "w2", "w3", "shared")]
    one, two = [_hit(n) for n in ("a1", "shared", "a2")], [_hit(n) for n in ("b1", "b2")]
    merged = [hit.id for hit in take_turns(whole, [one, two])]
    assert merged == ["w1", "a1", "w2", "b1", "w3", "shared", "b2", "a2"]


def _notes(db: apsw.Connection, texts: list[str]) -> None:
    with db:
        for n, text in enumerate(texts):
            source_id = items.insert_source(
                db, NewSource(kind="note", project="p", title=f"n{n}", raw_text=text), now=NOW
            )
            items.insert_passages(db, source_id, [NewPassage(text, 0, len(text))])


def test_search_looks_up_each_part_and_lets_the_parts_take_turns_with_the_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = connect(tmp_path / "memory.db")
    _notes(db, [f"李明说分公司{n}月要搬到新城市，人也多了。" for n in range(1, 7)])
    _notes(db, ["空气净化器在京东买的，花了两千三百元。", "净化器的滤网每半年换一次，花钱不多。"])
    looked_up: list[str] = []
    ranked_hits = search_module._ranked_hits

    def spy(conn: apsw.Connection, cut: search_module.QueryCut, **kwargs: object) -> list[search_module.Hit]:
        looked_up.append(cut.text)
        return ranked_hits(conn, cut, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(search_module, "_ranked_hits", spy)
    question = "李明去的那个分公司在哪座城市？另外空气净化器花了多少钱？"
    found = search(db, question, home=tmp_path, limit=6)
    whole, first, second = (
        search_module._ranked_hits(db, search_module.cut_query(text), **_args(tmp_path)) for text in looked_up[:3]
    )
    db.close()
    assert looked_up[:3] == [question, "李明去的那个分公司在哪座城市？", "空气净化器花了多少钱？"]
    assert [hit.id for hit in found] == [hit.id for hit in take_turns(whole, [first, second])][:6]
    assert {"净化器" in hit.text for hit in found[:4]} == {True, False}  # both parts among the first four
    assert len({hit.id for hit in found}) == len(found)


def _args(home: Path) -> dict[str, object]:
    return {
        "home": home,
        "project": None,
        "tier": None,
        "limit": 6,
        "wanted": "keyword",
        "embedder": None,
        "fusion": "gated",
        "insight_status": "confirmed",
    }
