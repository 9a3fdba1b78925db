"""A teammate's message the person takes as their own, and minutes kept under German headings: what the halves
tune49 and tune50 found on first reading."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.at_hand import STATUS
from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.lasting_model import reader_for
from incremind_daemon.pipeline.reported import reported_view
from incremind_daemon.pipeline.scope import names_this_project
from incremind_daemon.pipeline.sections import decision_items, taken_quotes, task_items
from incremind_daemon.pipeline.stance import RESTATED
from incremind_daemon.pipeline.statement import clean_statement
from incremind_daemon.store.embedder import Embedder

PASTED = "> 林蔚：@阿明 D-01 我改了 电池换成 2600mAh 的 18650 断电要撑5天 3天太短 差评风险大"


def statements(text: str, embedder: Embedder, *, conversational: bool = True) -> list[str]:
    reader = reader_for(embedder)
    return [c.statement for c in extract_candidates(text, conversational=conversational, reader=reader)]


@pytest.mark.parametrize(
    "turn",
    [
        f"电池检测 先贴林蔚今天的消息\n{PASTED}\n按这个来\n电池电压 ADC 在 PA0",  # taken below the quote
        f"先说个改动 林蔚今天定的\n{PASTED}\n所以编辑页上限改10",  # said above it to be decided
        f"林蔚又发了两条\n{PASTED}\n90天的按她的改 商城这个我不同意",  # taken in part, in the line below
        f"Jonas decided:\n{PASTED}",
        f"{PASTED}\nok, let's go with that",
    ],
)
def test_a_teammates_message_the_person_takes_is_read_as_theirs(turn: str, use_m3: Embedder) -> None:
    """tune50: the co-founder's decisions reach the firmware only as pasted chat lines, each taken with a word."""
    assert taken_quotes(turn)
    found = statements(turn, use_m3)
    # the addressee is chat noise; who wrote it stays, for "我改了" is hers
    assert any(statement.startswith("林蔚：D-01 我改了") for statement in found), found


@pytest.mark.parametrize(
    "turn",
    [
        f"隔壁王老师给我发了他那边的做法，你参考一下：\n{PASTED}",  # to look at, not to follow
        f"先贴林蔚今天的消息\n{PASTED}\n这个我不同意",
        f"{PASTED}\n> 林蔚：按这个来",  # her own word inside the quote takes nothing
        f"她发给我的语音转文字，原样贴：\n{PASTED}\n\n按这个来：\n1. 截单 20:00",  # it captions the person's own list
        f"运营小王刚在群里说：\n\n{PASTED}\n\n帮我看下导出那块",  # where from is said of the line just above it
    ],
)
def test_a_pasted_message_nobody_takes_stays_pasted(turn: str) -> None:
    assert not taken_quotes(turn)


TWO_POSTS = """Noor posted in #platform-decisions, pasting:

> **Noor Aziz** 10:42 AM
> For the upgrades this month: let's set checkout PDB to maxUnavailable: 50% so drains finish sooner.

ok go with that. pls update the values files.

and the other one:

> **Noor Aziz** 10:51 AM
> Proposal: page on p99 latency > 500ms for 5m, replacing the burn-rate alerts.

this one I don't agree, paging stays on burn rate."""


def test_each_quoted_message_is_taken_or_left_on_its_own(use_m3: Embedder) -> None:
    """tune51: a lead's two Slack posts, each set off by blank lines; the person takes the first with "ok go with
    that" and turns the second down. Only the first is theirs."""
    assert taken_quotes(TWO_POSTS) == [(TWO_POSTS.index("> **Noor"), TWO_POSTS.index("\nok go"))]
    found = statements(TWO_POSTS, use_m3)
    assert any("maxUnavailable: 50%" in statement for statement in found), found
    assert not any("p99 latency" in statement for statement in found), found


def test_who_a_chat_line_is_addressed_to_is_dropped_but_a_swift_attribute_is_not() -> None:
    assert clean_statement("林蔚：@阿明 D-01 我改了 电池换成 2600mAh") == "林蔚：D-01 我改了 电池换成 2600mAh"
    assert clean_statement("@阿明 周五前把样机寄回来") == "周五前把样机寄回来"
    assert clean_statement("@Observable 要 iOS 17 才有") == "@Observable 要 iOS 17 才有"


MINUTES = """# Team-Meeting Tracking — Di, 14.04.2026

## Stand
- Grafana: consumer lag on tracking.carrier-events.v1 peaked at 41k on Monday morning, back to zero by 08:10.

## Beschlüsse
1. Dedup: carrier events are deduplicated in Postgres with a unique constraint on (carrier, carrier_event_id).
2. Raw carrier events are kept for 90 days, then deleted by a nightly job.

## Offen
- Tobias: outbox table for the status publish? Parked until the Avro question is settled.

## Aufgaben
- Wen: TRK-219 readiness probe in dev (Svenja's ping), then TRK-220 retention job.
"""


def test_minutes_under_german_headings_keep_their_decisions_and_leave_status_and_tasks(use_m3: Embedder) -> None:
    """tune49: a Berlin team's minutes, English items under "Stand", "Beschlüsse", "Offen" and "Aufgaben"."""
    decided = [MINUTES[a:b] for a, b in decision_items(MINUTES)]
    assert len(decided) == 2 and "90 days" in decided[1]
    not_kept = " ".join(MINUTES[a:b] for a, b in task_items(MINUTES))
    assert "consumer lag" in not_kept and "TRK-219" in not_kept
    found = statements(MINUTES, use_m3, conversational=False)
    # the heading names no subject for an item's own label: "Dedup: …", never "Beschlüsse dedup: …"
    assert any(statement.startswith("Dedup: carrier events") for statement in found), found
    assert any(statement.startswith("Raw carrier events are kept for 90 days") for statement in found), found
    assert not any("Beschl" in statement or "lag" in statement or "TRK-219" in statement for statement in found)


def test_a_second_verb_is_no_one_reporting_and_a_decision_drawn_from_a_report_is_the_persons() -> None:
    """ "…the BI team starts consuming in May and wants a schema": "and" is nobody; "the DPO says …, so we keep them
    for 30 days only" is the team's decision with its reason."""
    moved = "jonas: the status topic moves to avro now — the bi team starts consuming in may and wants a schema."
    assert not reported_view(moved, clipped=False)
    kept = "retention: the dpo (frau öztürk) says raw events contain addresses, so we keep them for 30 days only."
    assert not reported_view(kept, clipped=False)
    assert reported_view("tobias wants to replace the dedup with kafka transactions.", clipped=False)
    assert reported_view("mehmet says we should use jpa, so we should talk about it.", clipped=False)


@pytest.mark.parametrize(
    ("quote", "statement"),
    [
        ("Friday only hotfixes, and only with Jonas' OK.", "Friday only hotfixes, and only with Jonas' OK"),
        ("Dana: please pin every action to a SHA", "Dana: pin every action to a SHA"),
        ("commit 按老规矩 wdg: 开头 推分支 提PR", "commit 按老规矩 wdg: 开头 推分支 提PR"),  # by the rule: no caption
        ("老规矩：先跑测试再提交", "先跑测试再提交"),
    ],
)
def test_cleaning_keeps_a_named_ok_a_latin_colon_and_a_rule_followed(quote: str, statement: str) -> None:
    assert clean_statement(quote) == statement


def test_a_script_run_by_its_relative_path_is_the_repositorys() -> None:
    """tune49: "Build and tests always through ./gradlew" reached her balcony project's context as a global rule."""
    assert names_this_project("build and tests always through ./gradlew, never a system gradle")
    assert names_this_project("run ./scripts/check_config.sh before you tell me to reload")
    assert not names_this_project("cd ../shared and look") and not names_this_project("keep ~/./notes")


def test_the_case_a_rule_is_for_is_no_status_report() -> None:
    """tune49: "if it says the tank is empty, the pump must never start" was read as where the work stands."""
    assert STATUS.search("if it says the tank is empty, the pump must never start") is None
    assert STATUS.search("the repo is basically empty") is not None


ACTIONS = """# Design review — Mon 23 Nov

## Decisions
1. The status topic stays JSON for now — no Schema Registry until there is a second consumer.

## Actions
- Farah: alert rules draft; ask Supermicro about the fan errors on gpu-a100-07
- Priya: research leads re: preemption

## GitHub Actions
- CI runs on ubuntu-latest and every job caches the pnpm store
"""


def test_a_decision_for_now_is_decided_and_actions_are_tasks(use_m3: Embedder) -> None:
    """tune49: a meeting's "stays JSON for now" holds until a later meeting moves it; tune38: "## Actions" lists
    one person's work each, where "## GitHub Actions" is about the workflows."""
    found = statements(ACTIONS, use_m3, conversational=False)
    assert any(statement.startswith("The status topic stays JSON for now") for statement in found), found
    assert not any("Supermicro" in statement or "preemption" in statement for statement in found), found
    tasks = " ".join(ACTIONS[a:b] for a, b in task_items(ACTIONS))
    assert "Farah" in tasks and "ubuntu-latest" not in tasks


@pytest.mark.parametrize(
    "said", ["SN 按会上定的 MB加年月加5位流水", "卡粮重试改3次 复盘会定的", "最低版本已经改成 iOS 16 了，上周周会定的"]
)
def test_what_a_meeting_settled_said_again_is_said_again(said: str) -> None:
    """tune50: "SN 按会上定的 MB加年月加5位流水" beside the minutes' "SN：MB + 年月 yyMM + 5 位流水" adds nothing."""
    assert RESTATED.search(said) is not None
    assert RESTATED.search("产测固件 工厂那几项 按键 电机出粮3份") is None
    assert RESTATED.search("application.yaml 里 retention 还是 90d，会上定的是 30 天，改成 30d") is None
