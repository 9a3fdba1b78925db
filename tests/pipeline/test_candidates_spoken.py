"""How terse turns and kept messages are cut and read: what the halves tune39 and tune40 found on first reading."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.candidates import extract_candidates, read_pieces
from incremind_daemon.pipeline.lasting_model import reader_for
from incremind_daemon.pipeline.prose import prose_spans
from incremind_daemon.pipeline.sections import spoken_lines, taken_quotes
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


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("commit 之前先把 diff 给我看", "commit 之前先把 diff 给我看"),  # tune39: the lasting model read it at 0.06
        ("before you push, run the tfsec scan", "Run the tfsec scan"),  # "before you push" is its condition
    ],
)
def test_a_step_before_each_commit_holds_whatever_the_model_reads(text: str, statement: str, use_m3: Embedder) -> None:
    """A step before each commit or push is taken every time: the lasting model may not read it away."""
    assert statements(text, embedder=use_m3) == [statement]


def test_a_step_before_a_commit_of_the_work_at_hand_is_for_this_time(use_m3: Embedder) -> None:
    """tune2: "squash these wip commits before pushing" names the commits at hand."""
    assert statements("squash these wip commits before pushing.", embedder=use_m3) == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # tune42: how to answer, the object first, and in slang
        ("中文回我啊 怎么突然又英文了 啊这", "中文回我"),
        ("tldr first pls, no essays 上次回我一大段 我看完都下班了hhh", "no essays"),
        # a forbidding beside the failure it names is no complaint
        ("A 和 C 都不行 dbt test 挂了就是挂了 不许改 severity 成 warn 也不许 --exclude 糊弄过去", "不许改 severity"),
        # a slot every week, said to an agent
        ("我每周四定投 005827 500 块", "每周四定投"),
        # tune41: what comes first whenever a change is large, "再說" and all
        ("改之前先講你打算動哪些檔案，只要超過三個檔案的改動我都想先看計畫再說", "超過三個檔案的改動我都想先看計畫"),
        # tune41: whose decision it is, said beside an ask to check the code against it
        (
            "然後順便確認一下 biometric 的邏輯：轉帳金額 NT$5,000 以上才要跳 FaceID / 指紋，以下直接過，這是產品定的，"
            "你看 useTransferAuth 有沒有寫對",
            "NT$5,000 以上才要跳 FaceID",
        ),
    ],
)
def test_terse_standing_words_are_read_as_rules(text: str, said: str, use_m3: Embedder) -> None:
    assert any(said in statement for statement in statements(text, embedder=use_m3))


def test_not_yet_and_later_is_for_this_time(use_m3: Embedder) -> None:
    """tune41: "先不要 commit，我晚點跟別的一起" holds the commit back for now, then does it with the rest."""
    assert statements("先不要 commit，我晚點跟別的一起", embedder=use_m3) == []


TRANSCRIPT = """# 双12数据保障会

## 文字记录

王磊 00:00:03
呃 人齐了吧 那个 思雨今天请假 我们就 就先开始 今天主要是双12 那个 数据保障 呃 三件事 一个是封板时间 一个是实时大屏

周子睿 00:00:58
现在是 8:30 之前 就是 正常七点多就出了 但是 那个 今天早上 dws 那个 挂了一次 就 就拖到九点多

王磊 00:01:10
那 那个 ads 的 SLA 就改成 8 点 以后都按 8 点算 不只是大促
"""


def test_a_meeting_transcript_is_read_as_talk(use_m3: Embedder) -> None:
    """tune42: in an auto-generated transcript, who came and how the morning went are talk; a rule said for from now
    on is what lasts."""
    found = statements(TRANSCRIPT, conversational=False, embedder=use_m3)
    assert len(found) == 1 and "以后都按 8 点算" in found[0], found
    assert [TRANSCRIPT[a:b].split()[0] for a, b in spoken_lines(TRANSCRIPT)] == ["呃", "现在是", "那"]
    # a group chat kept in a note gives the clock, not the time into a recording: its messages are written (tune37)
    chat = "林涛  11月24日 17:52\n1. 星河湾站试点定在 12 月 9 号（周三）\n\n卢晓峰  17:58\n收到\n\n何静  18:01\n收到\n"
    assert spoken_lines(chat) == []


def test_a_team_message_passed_on_in_a_chat_is_read(use_m3: Embedder) -> None:
    """tune41: the PM's new dates, quoted under "Tina 剛在 Slack 更新時程："; other quotes in a turn stay pasted."""
    relayed = "另外 Tina 剛在 Slack 更新時程：\n> 更新一下 v2.3 時程：code freeze 延到 12/9（三），送審改 12/11（五）"
    assert taken_quotes(relayed)
    assert any("12/9" in statement for statement in statements(relayed, embedder=use_m3))
    pasted = "他們文章這樣寫：\n> code freeze 延到 12/9（三），送審改 12/11（五）"
    assert not taken_quotes(pasted) and statements(pasted, embedder=use_m3) == []
