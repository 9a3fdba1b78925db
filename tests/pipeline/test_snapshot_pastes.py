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
        "帮我看下这个报错，我猜是 transformers 自己升级了？不太确定。"
    )
    goal = snapshot_session([user(ask), assistant("我看一下。")]).goal
    assert "test_align.py" in goal
    assert "AssertionError" not in goal
