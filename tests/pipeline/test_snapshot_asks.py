"""Session state: what the person asks for is the goal or the work, and what they settle is a decision."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.snapshot import Turn, snapshot_session


def user(text: str) -> Turn:
    return Turn("user", text)


def assistant(text: str) -> Turn:
    return Turn("assistant", text)


@pytest.mark.parametrize(
    ("opening", "ask"),
    [
        (
            "Quick context: ledger is our billing API, Python 3.12, FastAPI. I prefer tabs over spaces.",
            "Add pagination to the /invoices endpoint, 50 per page.",
        ),
        (
            "先说下背景：ledger 是我们的计费 API，用 FastAPI。我习惯用 tab 缩进。",
            "帮我给 /invoices 接口加分页，每页 50 条",
        ),
    ],
    ids=["en", "zh"],
)
def test_goal_is_a_later_ask_when_the_opening_only_gives_context(opening: str, ask: str) -> None:
    turns = [user(opening), assistant("Got it."), user(ask), assistant("Added `limit` and `cursor` to /invoices.")]

    assert snapshot_session(turns).goal == ask.removeprefix("帮我")  # the goal leaves out the polite lead


def test_goal_is_the_opening_when_no_later_turn_asks() -> None:
    opening = "Quick context: ledger is our billing API, Python 3.12, FastAPI. I prefer tabs over spaces."
    turns = [user(opening), assistant("Got it."), user("No, the port is 8443, not 8080."), assistant("Noted.")]

    assert snapshot_session(turns).goal == opening
