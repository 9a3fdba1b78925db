"""Session state: the goal keeps the error line of what the person pasted under their ask."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.snapshot import snapshot_session
from tests.pipeline.test_snapshot import assistant, user

EN_ASK = (
    "paged, on call. ock ack broken:\n\n"
    "$ ock ack Q1R8ZK3\n"
    "Error: 401 Unauthorized from https://api.pagerduty.com/incidents/Q1R8ZK3\n"
    '{"error":{"message":"Unauthorized","code":2006}}\n\n'
    "where does it get the token"
)
ZH_ASK = (
    "xelatex 编译又挂了，昨天 tlmgr update 之后就这样：\n\n"
    "```\n"
    '! Package fontspec Error: The font "SourceHanSerifSC-Regular" cannot be found.\n'
    "l.87 \\setCJKmainfont{SourceHanSerifSC-Regular}\n"
    "```\n\n"
    "之前一直是好的，帮我看下"
)


@pytest.mark.parametrize(
    ("ask", "error", "own"),
    [
        (EN_ASK, "Error: 401 Unauthorized", "where does it get the token"),
        (ZH_ASK, "Package fontspec Error", "帮我看下"),
    ],
    ids=["en", "zh"],
)
def test_goal_keeps_the_error_line_of_the_paste_it_points_at(ask: str, error: str, own: str) -> None:
    goal = snapshot_session([user(ask), assistant("Looking.")]).goal
    assert error in goal
    assert own in goal
    assert goal.index(error) < goal.index(own)  # beside the sentence that points at it, in the person's order


@pytest.mark.parametrize(
    "ask",
    [
        "Move fetchPlans to async/await.\n\n```swift\nfunc fetchPlans() -> AnyPublisher<[Plan], APIError> {\n}\n```",
        "帮我把 fetchPlans 改成 async/await\n\n```swift\nfunc fetchPlans() -> AnyPublisher<[Plan], APIError> {\n}\n```",
    ],
    ids=["en", "zh"],
)
def test_goal_takes_no_error_line_from_code_the_person_shows(ask: str) -> None:
    goal = snapshot_session([user(ask), assistant("Done.")]).goal
    assert "APIError" not in goal
    assert "fetchPlans" in goal


def test_goal_leaves_the_paste_out_when_the_ask_names_what_broke_and_room_is_short() -> None:
    ask = (
        "今天的问题：tests/test_align.py 挂了，我周五跑还是好的，周末什么都没改（至少我记得没改）。"
        "cs-probing 是我论文第四章的代码，主要是在 XLM-R 和 mBERT 上 probe 中英 code-switching 的切换点。\n\n"
        "E   AssertionError: assert [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 5)] == [(0, 1), (1, 2)]\n\n"
        "帮我看下这个报错，我猜是 transformers 自己升级了？不太确定。上周五我还在 gpu3 上用同一个环境跑完了五个 seed，"
        "结果都在 results/ 下面，那时候这个测试是过的，所以应该不是数据的问题，可能是 tokenizer 的 offset 变了。"
    )
    goal = snapshot_session([user(ask), assistant("我看一下。")]).goal
    assert "test_align.py" in goal
    assert "AssertionError" not in goal


@pytest.mark.parametrize(
    ("ask", "named", "noise"),
    [
        (
            "int_order_items 昨晚在 Airflow 上挂了，log 最后几行：\n\n```\n"
            "[2026-09-09, 04:23:07 CST] {subprocess.py:93} INFO - 04:23:07  3 of 41 ERROR creating sql incremental "
            "model intermediate.int_order_items  [ERROR in 74.12s]\n"
            "[2026-09-09, 04:23:07 CST] {subprocess.py:93} INFO -    Code: 241. DB::Exception: "
            "Memory limit (for query) exceeded: would use 18.63 GiB (attempt to allocate chunk of 4194304 bytes), "
            "maximum: 18.63 GiB. "
            "(MEMORY_LIMIT_EXCEEDED) (version 24.3.5.46 (official build))\n```\n\n帮我看看",
            "MEMORY_LIMIT_EXCEEDED",
            "subprocess.py",
        ),
        (
            "Last night's run died:\n\n```\n2026/03/02 02:14:38 upload: starting 4 workers\n"
            "2026/03/02 02:14:39 index: mark uploaded IMG_4471.HEIC: database is locked (5) (SQLITE_BUSY)\n"
            "2026/03/02 02:14:39 fatal: index write failed\n```\n\nCan you fix it?",
            "SQLITE_BUSY",
            "2026/03/02",
        ),
    ],
    ids=["code-at-the-end", "code-before-fatal"],
)
def test_goal_takes_the_line_that_names_the_error_by_its_code(ask: str, named: str, noise: str) -> None:
    """Found in a fresh half: the goal took a runner's "3 of 41 ERROR creating …" (or "fatal: index write failed")
    and never said MEMORY_LIMIT_EXCEEDED (or SQLITE_BUSY), which the line after (or before) it names."""
    goal = snapshot_session([user(ask), assistant("Looking.")]).goal
    assert named in goal, goal
    assert noise not in goal, goal


def test_goal_keeps_the_error_when_its_room_costs_the_ask_nothing() -> None:
    """Found in a fresh half: the rules said after the paste ("依赖用 poetry 管", "改代码之前先跟我说") are no part of
    the goal, yet left it "cut", and the person's command in the ask then kept the KeyError out."""
    ask = (
        "sku-forecast 的 feature pipeline 挂了，"
        "跑 `poetry run python -m forecast.features --date 2026-09-06` 报错：\n\n"
        '```\nTraceback (most recent call last):\n  File "src/forecast/features.py", line 88, in build_features\n'
        '    df["cat_l2"] = df["category_level2"].astype("category")\nKeyError: \'category_level2\'\n```\n\n'
        "应该是上游 dim_sku 改了列名，上周 Kevin 他们在商品中台重构过一次。"
        "依赖用 poetry 管，不要直接 pip install 任何东西。\n\n"
        "还有，改代码之前先跟我说你打算怎么改，我点头了你再动手。"
    )
    goal = snapshot_session([user(ask), assistant("我先看看 dim_sku 的列名。")]).goal
    assert "KeyError: 'category_level2'" in goal, goal
    assert "feature pipeline 挂了" in goal, goal


def test_goal_of_a_breakage_starts_past_the_projects_introduction() -> None:
    """Found in a fresh half: "evening, side project time. tidy-photos is my little Rust CLI: …" filled the goal
    and "now it doesn't build" was cut."""
    ask = (
        "evening, side project time. tidy-photos is my little Rust CLI: walks a photo dir, reads EXIF, renames "
        "files to a date-based name and finds duplicates, then moves them into year and month folders and keeps a "
        "small index of what it already moved so a second run is cheap. I bumped deps over the weekend and now it "
        "doesn't build:\n\n```\n$ cargo build\nerror[E0308]: mismatched types\n  --> src/meta.rs:31:48\n```"
    )
    goal = snapshot_session([user(ask), assistant("Looking.")]).goal
    assert goal.startswith("I bumped deps over the weekend and now it doesn't build"), goal
    assert "error[E0308]" in goal, goal
