"""Session state: what the person settles in passing is a decision, in English and Chinese."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.snapshot import snapshot_session
from tests.pipeline.test_snapshot import assistant, user


@pytest.mark.parametrize(
    "said",
    [
        "secrets through external-secrets like everything else.",
        "escalation on opsgenie: payments isn't P3XK2LM there, it's the team payments-core-oncall.",
        "shorter answers pls, just the diff, I don't need the essay.",
        "secret 跟其他服务一样走 external-secrets。",
        "老规矩，secret 都走 external-secrets，values 文件里不放。",
    ],
    ids=["en-house-way", "en-put-right", "en-manner", "zh-house-way", "zh-old-rule"],
)
def test_house_way_and_value_put_right_are_decisions(said: str) -> None:
    turns = [
        user("Scaffold the fx-quotes chart from charts/_template."),
        assistant("Scaffolded `charts/fx-quotes`."),
        user(said),
        assistant("Done."),
        user("thanks"),
    ]
    assert said.rstrip("。.") in "; ".join(snapshot_session(turns).decisions)


def test_question_about_a_value_is_no_decision() -> None:
    turns = [user("Why isn't the port 8443, is it the gateway?"), assistant("The gateway forwards 8443 only.")]
    assert snapshot_session(turns).decisions == ()


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        (
            "另外 .env.example 里那个 CORE_API_TOKEN 谁写的真值?? 赶紧换成占位符。",
            "另外 .env.example 里那个 CORE_API_TOKEN 谁写的真值?? — 赶紧换成占位符",
        ),
        (
            "Who put the real CORE_API_TOKEN into .env.example?? Use a placeholder for the token.",
            "Use a placeholder for the token",
        ),
    ],
    ids=["zh", "en"],
)
def test_decision_that_names_nothing_borrows_the_sentence_before(said: str, shown: str) -> None:
    turns = [user("Add the requestId to the error logs."), assistant("Added it."), user(said), assistant("Done.")]
    assert shown in snapshot_session(turns).decisions
