"""A new value said in the place of one a known insight holds replaces it, however few words the two share."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.lasting_model import relation_reader_for
from incremind_daemon.pipeline.pairs import Known, Relation
from incremind_daemon.pipeline.relate import relate
from incremind_daemon.pipeline.replacing import moved_from, sets_again, value_replaced
from incremind_daemon.pipeline.stance import negated
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.records import Candidate


def _relate(use_m3: Embedder, said: str, *known_texts: str) -> Relation:
    """Relate a decision said in a session to known project insights (ids 1, 2, …), with their real cosines."""
    vectors = use_m3.embed_passages([said, *known_texts])
    known = [
        Known(number, text, "", "fact", float(vectors[0] @ vectors[number]), "project")
        for number, text in enumerate(known_texts, start=1)
    ]
    candidate = Candidate(said, "decision", "", said, 0, len(said), "project")
    reading = relation_reader_for(use_m3)
    return relate(candidate, known, repeat_similarity=0.8, related_similarity=0.4, ordered=True, reading=reading)


# found in tuning halves: each was proposed as new (or as a supplement), so the old value stayed current
@pytest.mark.parametrize(
    ("said", "known_text"),
    [
        ("The dashboard runs on 5174 now", "Dev server runs on 5173 and proxies /api to the ops API on 8787"),
        ("pay-recon 的 parent 改成 3.3.6", "Spring Boot 是 3.2.5"),
        ("预算上限提到 S$680k，标红的阈值一起改", "我们预算上限 S$650k，超过的房子在列表里标红"),
        ("Move the nightly run to 3:30", "It runs every night at 2:00 from a launchd agent on the old Mac mini"),
        ("Make that us-east-2 instead, with her new vpc id", "Peer with that VPC in us-east-1, they created the role"),
        # the old value moved to a new one says the change itself, whatever day its reason names
        (
            "Bump replicas from 6 to 8 in values-prod.yaml — rider.location.v2 went to 16 partitions last week",
            "Prod runs 6 replicas, one per two partitions of rider.location.v2",
        ),
        ("match 長度 180 秒 → 240 秒，client/server 一起改", "一場 match 是 180 秒沒錯"),
        # a number written with thousands separators is one number, not two
        ("2月开始房租 €1,989", "房租 €1,950，每个月1号前转给 landlord (Rathmines 那间)"),
    ],
)
def test_a_new_value_in_the_place_of_the_nearest_insights_supersedes_it(
    use_m3: Embedder, said: str, known_text: str
) -> None:
    relation = _relate(use_m3, said, known_text, "Keep answers short, I read the diff myself")
    assert (relation.kind, relation.known_id) == ("supersedes", 1)


def test_a_value_for_now_or_of_another_thing_replaces_nothing(use_m3: Embedder) -> None:
    # "for now" says the value may change; it is no change of one
    relation = _relate(use_m3, "Use 28°C as the threshold for now", "The bedroom lights never go above 30% at night")
    assert relation.kind != "supersedes"
    # a value of the same form in an insight that is not the nearest one is not the one changed
    relation = _relate(
        use_m3,
        "The dashboard runs on 5174 now",
        "Dev server runs on 5173 and proxies /api to the ops API on 8787",
        "Release 2.4.1 goes out on 3/14",
    )
    assert relation.known_id != 2
    # tune58: a change of where a fund goes, and in another sentence an amount of the same form as the school fees'
    relation = _relate(
        use_m3,
        "Emergency fund moves from M-Shwari to the CIC money market fund. target KES 300k by end of June, standing"
        " order KES 25,000 on the 28th (salary day)",
        "School fees: term 1 balance KES 18,500, due Fri 13 March",
    )
    assert relation.kind == "new"


@pytest.mark.parametrize(
    ("mine", "theirs", "replaced"),
    [
        ("runs on 5174 now", "runs on 5173", True),
        ("parent 3.3.6", "Spring Boot 3.2.5", True),
        ("move it to 3:30", "runs at 2:00", True),
        # a name that holds a number: its letters are its form
        ("make that us-east-2 instead", "peer with that VPC in us-east-1", True),
        ("厦马目标改成 sub-4 吧", "厦门马拉松，全马，目标 sub-3:45", True),
        ("deploy to eu-west-1", "deploy to us-east-1", False),
        # the old value said again beside the new one is "X, not Y", which the rules read already
        ("15%, not 20%", "under 20% mito reads", False),
        # a lone digit is any count or day: "4 月起" is no new value for "订了 6 位"
        ("4 月起改成每周一次", "订了 6 位", False),
        ("这周 LSD 30k，不用去华西了", "25k 起步每周加 2–3k，最长到 32k", False),
        ("runs on 5173", "runs on 5173", False),
    ],
)
def test_a_value_is_replaced_by_one_of_its_form_that_the_other_lacks(mine: str, theirs: str, replaced: bool) -> None:
    assert value_replaced(mine, theirs) is replaced


@pytest.mark.parametrize(
    ("mine", "theirs", "moved"),
    [
        ("bump replicas from 6 to 8", "prod runs 6 replicas", True),
        ("match 長度 180 秒 → 240 秒", "一場 match 是 180 秒", True),
        ("lookback 从 3 天改成 7 天", "lookback 固定 3 天", True),
        # moved from a value the other does not hold, or to one it holds already: no change of it
        ("bump replicas from 6 to 8", "prod runs 4 replicas", False),
        ("from 6 to 8 replicas", "6 to 8 replicas", False),
        # a range is no move: "from 9 to 5", "从 3 月到 5 月"
        ("office hours are from 9 to 5", "standup at 9", False),
        ("从 3 月到 5 月都在杭州", "3 月去杭州出差", False),
        ("replicas went from 6 to 8 last week", "prod runs 6 replicas", True),
    ],
)
def test_a_value_moved_from_the_one_the_other_holds(mine: str, theirs: str, moved: bool) -> None:
    assert moved_from(mine, theirs) is moved


def test_a_thing_said_to_be_dead_is_given_up(use_m3: Embedder) -> None:
    # found in a tuning half: "X is dead" read as nothing turned down, so the change was a supplement
    said = "Glide is dead in this codebase, we're on coil 3 now (coil-compose 3.0.4)"
    assert "glide" in negated(said)
    relation = _relate(use_m3, said, "We use Glide for images here (glide compose integration)")
    assert (relation.kind, relation.known_id) == ("supersedes", 1)


# found in a fresh half: the person passed on a change a meeting's minutes had already made, and each was proposed
# as superseding the minutes
@pytest.mark.parametrize(
    ("said", "known_text"),
    [
        ("查重阈值改成 70%", "学院统一：代码类作业查重阈值统一为 70%，不再由各课自定"),
        ("讲义从 L05 起改成 2-up，A4 竖版，每页上下两张", "从 L05 开始讲义改成一页 2 张，L01–L04 已经发了，不再改"),
        (
            "代码字号改回 \\small，笔记里写了不能小于 \\small，一页本来就不该超过 15 行",
            "代码块字号不小于 \\small，一页代码不超过 15 行，超了就拆页或者只放关键部分",
        ),
    ],
)
def test_a_change_to_the_value_an_insight_already_gives_repeats_it(
    use_m3: Embedder, said: str, known_text: str
) -> None:
    relation = _relate(use_m3, said, known_text, "回答请先给结论，再给必要的理由")
    assert (relation.kind, relation.known_id) == ("repeat", 1)


@pytest.mark.parametrize(
    ("mine", "theirs", "again"),
    [
        ("查重阈值改成 70%", "查重阈值统一为 70%", True),
        ("代码字号改回 \\small", "代码块字号不小于 \\small", True),
        ("查重阈值改成 70%", "相似度 ≥ 80% 的标记出来", False),
        # the other's own change sets 60: the 30 it moved away from is no value it holds
        ("超时改回 30 秒", "超时从 30 秒改成 60 秒", False),
        ("超时改成 60 秒", "超时从 30 秒改成 60 秒", True),
        # the same numbers in another name
        ("引用改成作者年份制 用 gb7714-2015ay", "引用样式用 gb7714-2015 数字制", False),
        # a change said of the past, after the statement's own point
        (
            "The Dockerfile installs with `uv sync --frozen`, not pip; requirements.txt is from before we moved to uv",
            "This repo is uv: `uv add` for a new package, `uv sync` to install",
            False,
        ),
        # no change word sets anything
        ("查重阈值是 70%", "查重阈值统一为 70%", False),
    ],
)
def test_a_change_sets_again_only_a_value_the_other_gives(mine: str, theirs: str, again: bool) -> None:
    assert sets_again(mine, theirs) is again


def test_a_change_from_a_release_on_replaces_the_old_value(use_m3: Embedder) -> None:
    # found in a fresh half: a meeting note's "4.14 起" says from when the new minimum holds, and was read as a
    # difference with no order between the two
    candidate = Candidate("4.14 起最低支持 iOS 16", "decision", "", "4.14 起最低支持 iOS 16", 0, 17, "project")
    vectors = use_m3.embed_passages([candidate.statement, "我们 App 最低支持 iOS 15"])
    known = [Known(1, "我们 App 最低支持 iOS 15", "", "entity", float(vectors[0] @ vectors[1]), "project")]
    reading = relation_reader_for(use_m3)
    relation = relate(candidate, known, repeat_similarity=0.8, related_similarity=0.4, ordered=False, reading=reading)
    assert (relation.kind, relation.known_id) == ("supersedes", 1)


@pytest.mark.parametrize("slot", ["周会固定周二下午 3 点，会议室 7F-鲲鹏", "Team sync every Tuesday at 15:00"])
def test_a_slot_that_recurs_is_moved_by_a_change(use_m3: Embedder, slot: str) -> None:
    # found in a tuning half: a weekly slot filed as an event was history no change could move
    said = "从下周起周会挪到周四上午 10 点" if "周" in slot else "From next week team sync moves to Thursday 10:00"
    candidate = Candidate(said, "decision", "", said, 0, len(said), "project")
    vectors = use_m3.embed_passages([said, slot])
    known = [Known(1, slot, "", "event", float(vectors[0] @ vectors[1]), "project")]
    reading = relation_reader_for(use_m3)
    relation = relate(candidate, known, repeat_similarity=0.8, related_similarity=0.4, ordered=False, reading=reading)
    assert (relation.kind, relation.known_id) == ("supersedes", 1)
