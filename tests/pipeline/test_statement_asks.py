"""Asks and their words: a fact after a bare ask, a style asked for, and what cleaning keeps at the front (tune51,
tune52 on first reading)."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.lasting import REQUEST
from incremind_daemon.pipeline.lasting_model import reader_for
from incremind_daemon.pipeline.stance import RESTATED
from incremind_daemon.pipeline.statement import clean_statement
from incremind_daemon.store.embedder import Embedder


def statements(text: str, embedder: Embedder) -> list[str]:
    return [c.statement for c in extract_candidates(text, conversational=True, reader=reader_for(embedder))]


@pytest.mark.parametrize(
    ("said", "statement"),
    [
        (
            "About 2,300 failed authorisations; merchants retried.",
            "About 2,300 failed authorisations; merchants retried",
        ),
        ("fyi .terraform-version is 1.10.5 now", ".terraform-version is 1.10.5 now"),
        ("fyi. the gateway port is 8443", "The gateway port is 8443"),
        ("About commits: squash them", "Commits: squash them"),
    ],
)
def test_cleaning_keeps_a_number_and_a_dotfile_at_the_front(said: str, statement: str) -> None:
    assert clean_statement(said) == statement


def test_a_verb_that_opens_a_compound_asks_for_nothing() -> None:
    assert REQUEST.search("read-only kubectl on prod is ok (get, describe, logs)") is None
    assert REQUEST.search("run-time config lives in env vars") is None
    assert REQUEST.search("read the runbook first") is not None


def test_a_style_asked_for_is_the_rule_after_its_colon(use_m3: Embedder) -> None:
    """tune52: "改一下风格：SQL 关键字都小写，缩进 4 空格…" was dropped as a request."""
    found = statements("改一下风格：SQL 关键字都小写，缩进 4 空格，import CTE 放最前面。", use_m3)
    assert any(statement.startswith("SQL 关键字都小写") for statement in found), found
    # …but a commit asked for before a format keeps the format's subject
    found = statements("麻烦帮我 commit 一下，commit message 麻烦按我们的格式：[BX-编号] 中文简述", use_m3)
    assert any(statement.startswith("commit message") for statement in found), found


def test_how_commit_messages_are_written_after_a_bare_commit(use_m3: Embedder) -> None:
    """tune52: "然后 commit，message 写中文，一句话说清楚改了啥就行" holds for every commit; "commit" is for now."""
    assert statements("然后 commit，message 写中文，一句话说清楚改了啥就行。", use_m3) == [
        "message 写中文，一句话说清楚改了啥就行"
    ]


def test_what_must_pass_before_the_agent_says_done_holds(use_m3: Embedder) -> None:
    """tune51: "`golangci-lint run` must be clean before you tell me something's done" read weakly to the model; a step
    before each report of done work holds like one before each commit (twelve such rules in the halves)."""
    found = statements("And `golangci-lint run` must be clean before you tell me something's done.", use_m3)
    assert found == ["`golangci-lint run` must be clean before you tell me something's done"]
    assert statements("fix the flaky test before you tell me this one is done", use_m3) == []


@pytest.mark.parametrize("said", ["region ohio like we decided.", "我講咗喇 iPhone 16 sim, OS=latest."])
def test_what_was_decided_or_told_before_said_again_is_said_again(said: str, use_m3: Embedder) -> None:
    """tune54: "region ohio like we decided" and the Cantonese "我講咗喇" (I told you already) were dropped."""
    assert RESTATED.search(fold(said)) is not None
    assert statements(said, use_m3), said
