"""A sentence that picks one of the options the agent listed ("就 2 吧", "go w/ option 2") is the person's decision,
worded as the option the agent offered: tune40 and tune42 lost three decisions said only by their label."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from incremind_daemon.config import Settings
from incremind_daemon.pipeline.answers import picks_option
from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer
from incremind_daemon.pipeline.work import TailSession
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader
from incremind_daemon.store.db import fetch_rows
from tests.transcripts import ClaudeLog

HOLIDAYS = """加了 `fundbot/alert.py`。还有两个问题：
1. 非交易日怎么跳过？
   1) 硬编码 2026 年节假日表
   2) 用 `chinese_calendar` 包判断工作日
   3) 每次调交易所日历接口
2. 定时几点跑？"""

DATABASE = """DB 存取有兩種：
- **A**：Prisma 接 Supabase 的 Postgres，型別比較完整，但多一層
- **B**：直接用 `@supabase/supabase-js`，型別用 `supabase gen types` 產

你要哪個？"""

MONITORS = """Atlantis locks the whole `envs/prod` project while the PR is open. Options:

1. Keep monitors in `envs/prod` (status quo).
2. Move all Datadog monitors to their own root, `envs/prod/monitoring`, with a separate state file.
3. Move monitors to a separate repository.

I'd recommend option 2."""


@pytest.mark.parametrize(
    ("said", "asked", "option"),
    [
        ("节假日那个 就 2 吧 chinese_calendar 省事", HOLIDAYS, "用 `chinese_calendar` 包判断工作日"),
        ("DB 用方案 B，直接 supabase-js 就好", DATABASE, "直接用 `@supabase/supabase-js`"),
        ("B 吧", DATABASE, "直接用 `@supabase/supabase-js`"),
        ("yeah go w/ option 2 — the separate state file.", MONITORS, "Move all Datadog monitors"),
        ("(b) then", DATABASE, "直接用 `@supabase/supabase-js`"),
        ("可以，按方案二，订阅消息兜底。", HOLIDAYS, "用 `chinese_calendar` 包判断工作日"),  # tune46: 二 for 2
    ],
)
def test_a_sentence_picks_the_option_its_label_names(said: str, asked: str, option: str) -> None:
    assert (picks_option(said, asked) or "").startswith(option)


@pytest.mark.parametrize(
    ("said", "asked"),
    [
        ("就 2 个 worker 吧", HOLIDAYS),  # a count, not a label
        ("go with 3 replicas", MONITORS),
        ("A 和 C 都不行", DATABASE),  # turned down, none picked
        ("pick a name that says what it does", DATABASE),  # a lowercase letter picks only in brackets
        ("就 2 吧", "要不要先跑一遍 2 号机的测试？"),  # no list of options
        ("就 2 吧", "Options:\n1. Keep it as it is."),  # one option is no choice
        ("A 还是 B 都行，你定", DATABASE),  # a choice handed back
        ("方案三个都不行", MONITORS),  # a count in Chinese numerals
    ],
)
def test_no_option_is_picked_without_a_label_from_a_list(said: str, asked: str) -> None:
    assert picks_option(said, asked) is None


def test_a_pick_is_a_decision_in_the_options_words() -> None:
    """Without the agent's turn, "就 2 吧 chinese_calendar 省事" read as nothing that lasts."""
    text = "节假日那个 就 2 吧 chinese_calendar 省事"
    assert extract_candidates(text, conversational=True) == []
    [found] = extract_candidates(text, conversational=True, asked=HOLIDAYS)
    assert found.category == "decision" and found.quote == text
    assert found.statement == "用 `chinese_calendar` 包判断工作日"


def test_a_pick_keeps_a_value_the_person_adds() -> None:
    [found] = extract_candidates("就 B，型別檔放 src/types/db.ts", conversational=True, asked=DATABASE)
    assert found.statement.startswith("直接用 `@supabase/supabase-js`") and "src/types/db.ts" in found.statement


def test_a_pick_is_no_short_rule_to_give_the_next_sentence() -> None:
    # found in tune46: "按方案二" took the sentence after it as its reason, and lost the option it picked
    found = extract_candidates("可以，按方案二。交易所接口太慢了", conversational=True, asked=HOLIDAYS)
    assert [c.statement for c in found][:1] == ["用 `chinese_calendar` 包判断工作日"]


@pytest.fixture
def repository(repository_named: Callable[[str], Path]) -> Path:
    return repository_named("payments-infra")


def test_a_session_turn_is_read_against_the_agent_message_it_answers(settings: Settings, repository: Path) -> None:
    """The session's insight step hands each turn the agent's message just before it, not an earlier one."""
    log = ClaudeLog(settings.sessions.claude.dir or Path(), "s1", str(repository), day="2026-11-21")
    log.append(
        log.user("u1", "the datadog monitor PR is slow to plan, what can we do?"),
        log.assistant("a1", "msg_1", MONITORS),
        log.user("u2", "yeah go w/ option 2 — the separate state file."),
        log.assistant("a2", "msg_2", "Done. Which runner?\n1. GitHub Actions\n2. Atlantis"),
        log.user("u3", "thanks, looks good."),
    )
    steps = StepState(settings, extract_bytes, read_session=TranscriptReader(ReadRules.from_settings(settings)))
    with open_writer(steps) as conn:
        assert ingest_item(conn, steps, TailSession(log.path, "claude")).status == "added"
        examine_pending(conn, steps)
        stored = [(str(s), str(c)) for s, c in fetch_rows(conn, "SELECT statement, category FROM insights")]
    assert stored == [
        ("Move all Datadog monitors to their own root, `envs/prod/monitoring`, with a separate state file", "decision")
    ]
