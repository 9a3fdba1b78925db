"""A note's lines read with their headings, and a postmortem's corrective changes: what tune51 found on first
reading (a 1:1's dated title, "## Rules for myself", "## Open", an action list of settings)."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.sections import decision_items, says_where_from, task_items, under_heading


@pytest.mark.parametrize(
    ("note", "line"),
    [
        (
            "# 1:1 with Priya, 19 Mar\n\n- DR: Marcus owns the replication call\n",
            "DR: Marcus owns the replication call",
        ),
        ("# 站会 12.02\n\n- 小何：!491 按老周意见改了\n", "小何：!491 按老周意见改了"),
        (
            "# platform sync — Wed 11/11\n\n- Katrin: every prod change needs her OK\n",
            "Katrin: every prod change needs her OK",
        ),
        ("# Plan\n\n## Rules for myself\n- No run after a night page.\n\nShoes: Novablast 4\n", "Shoes: Novablast 4"),
        ("# Handover\n\n## Open\n- DR: Aurora global PR merged\n", "DR: Aurora global PR merged"),
        ("# 周报\n\n## 本周完成\n- 汇率问题：接了汇率表\n", "汇率问题：接了汇率表"),
        ("# 产测\n\n- 刘工意见：Wi-Fi 建议抽检 10%\n", "刘工意见：Wi-Fi 建议抽检 10%"),
    ],
)
def test_a_heading_that_dates_the_note_or_names_the_list_gives_no_subject(note: str, line: str) -> None:
    assert under_heading(note, note.index(line), line) == line


def test_a_heading_that_names_a_thing_still_gives_it() -> None:
    note = "# 跑步\n\n- 目标：明年 3 月半马跑进 1:50\n"
    assert (
        under_heading(note, note.index("目标"), "目标：明年 3 月半马跑进 1:50") == "跑步 目标：明年 3 月半马跑进 1:50"
    )


POSTMORTEM = """# Postmortem: checkout 502s during the node upgrade

## Action items
1. checkout PDB back to maxUnavailable: 1. Slower drains are the price. (owner ZP, due 3 Apr)
2. Node group max surge 3 instead of 2. (owner Jia Hui)
3. Runbook page for pool saturation (owner Conor)
- Farah: PgBouncer max_client_conn 2000 → 4000 by Friday
"""


def test_a_postmortems_change_to_a_setting_is_decided_and_a_persons_task_is_not() -> None:
    decided = [POSTMORTEM[a:b] for a, b in decision_items(POSTMORTEM)]
    assert [item.split()[1] for item in decided] == ["checkout", "Node"]
    tasks = " ".join(POSTMORTEM[a:b] for a, b in task_items(POSTMORTEM))
    assert "Runbook page" in tasks and "Farah" in tasks and "maxUnavailable" not in tasks


@pytest.mark.parametrize(
    "line",
    [
        "时间：2027-05-07（周五）14:00–15:30　地点：5 楼小会议室",
        "参会：周振（数据负责人）、林晓（运营）、我（记录）",
        "Present: Priya Nair (PM, chair), Tom Okafor (CTO), Hattie (minutes)",
        "**Attendees:** Dana, Wei, me",
    ],
)
def test_the_header_of_minutes_says_nothing_that_lasts(line: str) -> None:
    """tune44, tune48, tune52: "纪要 时间：… 地点：…" was proposed three times, "参会：…" twice."""
    assert says_where_from(line)


def test_a_trips_date_line_is_no_header() -> None:
    assert not says_where_from("日期: 12/19 (六) – 12/20 (日)，跟小蕾一起")


HANDOVER = """# On-call handover: Wen → Dana (Fri 6 Mar)

## Incidents
- INC-0302 fraud-scoring p99 latency: Redis CPU 90% during their stg load test, not prod. Closed.

## Standing rules
- ledger-worker lag: never rollout restart, scale replicas up instead, max 12.
"""


def test_a_handovers_incidents_are_what_happened() -> None:
    """tune51: both handovers' "## Incidents" items were proposed, one as a supplement of a rule."""
    reported = " ".join(HANDOVER[a:b] for a, b in task_items(HANDOVER))
    assert "INC-0302" in reported and "rollout restart" not in reported


REVIEW = """# Incident review — 7 Apr

## What we changed
- CT-553: sensor offline now fires after 10 minutes without readings instead of 5, gateways buffer.

## 改动
- 卡粮重试次数 刘工建议加到 3 次 我同意

## Changelog
- v1.4.2 released
"""


def test_what_the_writer_says_was_changed_is_decided() -> None:
    """tune53: an incident review's "## What we changed" item raised an alert threshold set earlier (5 → 10 minutes)
    and was read as a difference; tune50's "## 改动" lists its changes of plan."""
    decided = " ".join(REVIEW[a:b] for a, b in decision_items(REVIEW))
    assert "10 minutes" in decided and "3 次" in decided and "v1.4.2" not in decided
