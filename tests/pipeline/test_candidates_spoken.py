"""How terse turns and kept messages are cut and read: what the halves tune39 and tune40 found on first reading."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.candidates import extract_candidates, read_pieces
from incremind_daemon.pipeline.lasting_model import reader_for
from incremind_daemon.pipeline.prose import prose_spans
from incremind_daemon.pipeline.statement import strip_lead_in
from incremind_daemon.store.embedder import Embedder


def statements(text: str, *, conversational: bool = True, embedder: Embedder | None = None) -> list[str]:
    reader = reader_for(embedder) if embedder is not None else None
    return [c.statement for c in extract_candidates(text, conversational=conversational, reader=reader)]


def test_a_long_chat_line_without_a_stop_is_no_wrapped_line() -> None:
    """Mail and editors wrap at 72 to 100 columns; a chat line of 150 characters is a thought of its own."""
    first = (
        "every monitor message needs the runbook link + @pagerduty-payments-db. runbook will be "
        "runbooks/pgbouncer/pool-saturation.md, doesn't exist yet, link it anyway"
    )
    text = f"{first}\nrun tfsec on the changed dir before you push"
    assert [text[a:b] for a, b in prose_spans(text)] == [first, "run tfsec on the changed dir before you push"]
    wrapped = "Please keep the retry budget at three attempts for every outbound\ncall to the ledger service."
    assert [wrapped[a:b] for a, b in prose_spans(wrapped)] == [wrapped]


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        # the ask while at it comes after the rule, a space for its stop
        (
            "figures/ 里的 pdf 都是 scripts/figs/ 的脚本生成的 别手改 也不进 git 顺手加到 .gitignore",
            "figures/ 里的 pdf 都是 scripts/figs/ 的脚本生成的 别手改 也不进 git",
        ),
        # …and where what to change is before 顺便, the whole ask goes with its comma
        (
            "CI 里装依赖用 pnpm install --frozen-lockfile，workflow 里那个 npm ci 顺便改掉",
            "CI 里装依赖用 pnpm install --frozen-lockfile",
        ),
        # a date, then the week's work
        ("中期报告 12 月 10 号交 PDF 这周先把第三章的图弄完 下次接着弄 fig3-4", "中期报告 12 月 10 号交 PDF"),
        # a reproach leads in; a step before each push is a standing rule, though it opens on the verb
        ("谁让你 push 的 push 到 main 之前必须先问我", "push 到 main 之前必须先问我"),
    ],
)
def test_a_turn_typed_with_spaces_for_stops_keeps_its_rule_alone(text: str, statement: str, use_m3: Embedder) -> None:
    assert statements(text, embedder=use_m3) == [statement]


def test_a_times_colon_is_no_lead_in() -> None:
    """ "提醒" before a colon leads in ("一个提醒: …"); in "推送改到晚上 20:00" the colon is the time's."""
    text = "作业提醒推送改到晚上 20:00，运营看了上周的数据"
    assert strip_lead_in(text) == text
    assert strip_lead_in("一个提醒: 以后都用 pnpm") == "以后都用 pnpm"


def test_no_exceptions_widens_the_item_it_ends_and_no_more() -> None:
    text = (
        "quick rules:\n"
        "- repo is payments-infra: terraform 1.9.8, pinned in .terraform-version\n"
        "- always tf plan before apply and i read the plan. no exceptions, any repo\n"
    )
    found = {c.statement: c.scope for c in extract_candidates(text, conversational=True)}
    assert found.get("Always tf plan before apply and i read the plan") == "global", found
    assert not any("exceptions" in statement for statement in found), found
    assert all(scope == "project" for statement, scope in found.items() if "1.9.8" in statement), found


_TEAM_MESSAGE = """pasted from #infra-announce — Dana Whitfield, Wed 25 Nov, 3:02 PM

> @here two things for everyone touching prod infra:
>
> 1. **Holiday change freeze: Thu Dec 17 – Mon Jan 4.** No prod changes to payments-infra or to any payment \
service during the freeze.
>
> 2. **tfsec → trivy.** Starting today CI runs `trivy config --severity HIGH,CRITICAL` on payments-infra instead \
of tfsec, and please run the same locally before you push.
"""


def test_a_note_that_keeps_a_message_of_the_team_reads_its_quoted_lines_as_the_teams_rules() -> None:
    found = extract_candidates(_TEAM_MESSAGE, conversational=False)
    said = [c.statement for c in found]
    assert any("trivy config" in s for s in said) and any("Dec 17" in s for s in said), said
    assert not any(c.reported for c in found), found  # the team's word, not an author's view
    assert not any("pasted from" in s.casefold() for s in said), said  # where it is from is no rule
    for c in found:
        assert _TEAM_MESSAGE[c.start : c.end] == c.quote and not c.quote.startswith(">")


def test_a_quoted_line_in_a_turn_stays_pasted() -> None:
    text = "someone on reddit says:\n> Keep everything in automations.yaml so the UI editor works\nthoughts?"
    pieces = read_pieces(text, conversational=True)
    assert not any("automations.yaml" in text[p.start : p.end] for p in pieces)


@pytest.mark.parametrize(
    "text",
    [
        "cl_waiting monitor: change to cl_waiting > 25 for 1 min, same pagerduty target.",
        "raise the replica lag threshold to 120s, sustained 5 min.",
    ],
)
def test_a_setting_moved_to_a_new_amount_is_a_decision_though_said_as_an_ask(text: str, use_m3: Embedder) -> None:
    """ "改成 5 秒" decided; its English "change to … 25 for 1 min" read as an ask for the task at hand."""
    found = extract_candidates(text, conversational=True, reader=reader_for(use_m3))
    assert [c.category for c in found] == ["decision"], found


@pytest.mark.parametrize("text", ["change it to 25 for today's load test", "bump the timeout to 30s for now"])
def test_a_setting_moved_for_once_is_no_decision(text: str) -> None:
    assert statements(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "vllm 升到 0.13 之后 eval 起不来了",  # what went wrong after a change decides no change
        "同一个 checkpoint eval 两次 LongBench v2 差了 1.5 个点 eval harness 又不稳定了",  # 稳定了 is no 定了
        "另外 8100 现在也不太行 李昊那边也开始用了",
        "李昊那个 PR #14 先别 merge，等 CI green 了再说 你别碰",  # held until CI passes: this time only
    ],
)
def test_a_report_of_what_went_wrong_or_a_hold_for_now_is_no_candidate(text: str, use_m3: Embedder) -> None:
    assert statements(text, embedder=use_m3) == []


def test_a_pasted_mails_header_is_no_candidate() -> None:
    note = (
        "Pasted from email\n\nFrom: Dan Whitfield <dan@ed.ac.uk>\nDate: Wed, 25 Nov 2026 08:47 +0000\n"
        "Subject: RULER at 64k\n\nHi Siyuan, the draft deadline is Dec 12.\n"
    )
    pieces = [note[p.start : p.end] for p in read_pieces(note, conversational=False)]
    assert not any(piece.startswith(("From:", "Date:", "Subject:")) for piece in pieces), pieces
