"""The lasting model with the sentence's words, fitted on every tuning half, and the words it may not overrule.

Found on the tuning halves 25-32, which a fit on halves 1-24 never saw: the vector-only model fitted on
eight halves kept a remark, a status or a promise to do something when the rules' cues took it, and dropped
plain standing rules whose vector read weakly.
"""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.lasting import DECISION, one_off
from incremind_daemon.pipeline.lasting_model import load_weights, reader_for
from incremind_daemon.pipeline.sections import rule_items
from incremind_daemon.store.embedder import Embedder


def statements(text: str, embedder: Embedder | None, *, conversational: bool = True) -> list[str]:
    reader = reader_for(embedder) if embedder is not None else None
    return [c.statement for c in extract_candidates(text, conversational=conversational, reader=reader)]


def test_the_shipped_lasting_model_reads_words_and_was_fitted_on_every_tuning_half() -> None:
    weights = load_weights()
    assert weights is not None and weights.words is not None
    assert len(weights.words.weights) == 4096 and weights.words.scale > 0
    assert weights.keep < weights.accept


@pytest.mark.parametrize(
    "text",
    [
        "yes eps = 0.",  # an answer to the agent's question, for this run
        "no, bigmem has a three-day queue.",  # why not now
        "applied, took 31 min total.",  # how a step went
        "first time in this repo with you so here's the lay of the land.",  # says context follows
        "👍 I'll answer Mehmet and tag v0.9.0 once he approves.",  # the person's own next step
        "Leave the colours alone, I'll talk to her about viridis on Monday.",  # for this change
    ],
)
def test_a_remark_for_the_task_at_hand_is_no_candidate(use_m3: Embedder, text: str) -> None:
    assert statements(text, use_m3) == []


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # the rule says it holds on: "never", "from now on", "以后"
        ("Never set continue-on-error on the test job.", "continue-on-error"),
        ("from now on both repos branch off main and squash-merge back", "squash-merge"),
        ("helmwright 的 MR 以後改找 Oskar review", "Oskar"),
        # a change of plan
        ("Switch the backtest scoring from MAPE to WAPE — sum of abs errors over sum of actuals.", "WAPE"),
        ("厦马目标改成 sub-4 吧，先保证不受伤跑完。", "sub-4"),
        ("Change of plans: max_seq_len goes down to 384 for v2.", "384"),  # the change is said in the lead-in
        ("make that us-east-2 instead, with her new vpc id.", "us-east-2"),  # a change of what was just said
        # said to an agent, an instruction that forbids
        ("Don't roll back migrations by hand; write a forward fix.", "roll back migrations"),
        ("dont add comments that just restate the code", "restate the code"),
    ],
)
def test_a_rule_that_says_it_holds_is_never_the_models_to_drop(use_m3: Embedder, text: str, kept: str) -> None:
    found = statements(text, use_m3)
    assert len(found) == 1 and kept in found[0], found


@pytest.mark.parametrize(
    "text",
    [
        "- 每周四晚七点后去打羽毛球，别约别的事。",
        "读书会每两周一次，星期四 19:00，在 Waterstones 楼上 café",
        "Tandem with Jonas every Tuesday at 19:00, Café Lindwurm on Graefestraße.",
    ],
)
def test_a_weekly_slot_in_a_note_lasts(use_m3: Embedder, text: str) -> None:
    assert len(statements(text, use_m3, conversational=False)) == 1
    # the rules alone read it as well: a slot every week, on a day or at an hour, holds until it is moved
    assert len(statements(text, None, conversational=False)) == 1


def test_a_list_under_conventions_or_guidelines_is_a_list_of_rules() -> None:
    for heading in ("# platform conventions", "## Code review guidelines", "# platform-charts 约定"):
        text = f"{heading}\n\n1. Every pod must set a CPU limit.\n2. Secrets never go in values files.\n"
        items = [text[start:end].strip() for start, end in rule_items(text)]
        assert items == ["1. Every pod must set a CPU limit.", "2. Secrets never go in values files."], heading


@pytest.mark.parametrize(
    ("text", "once"),
    [
        # a date's own weekday in brackets is no day of this week
        ("HW2 的截止时间是 3 月 21 日（周日）23:59", False),
        ("周会 3/5（周四）定了上线日期", False),
        # a day kept fixed recurs
        ("周三下午 4 点半的围棋课，这学期固定我去接，周三下午不要排会", False),
        ("周日别忘了交作业", True),
        ("这周四固定去一趟", True),
        # found in tune54: tonight and from now on is no one night
        ("今晚同以後都係咁：anything that touches production，你俾 command 我，我自己行，你唔好行。", False),
        ("今晚先唔好 deploy", True),
    ],
)
def test_a_dates_weekday_and_a_day_kept_fixed_are_no_one_off(text: str, once: bool) -> None:
    assert one_off(fold(text)) is once


@pytest.mark.parametrize(
    ("text", "decides"),
    [
        # found in tune54: Cantonese 改返 sets a value back, as 改回 does
        ("kayak threshold 改返 15 km/h。", True),
        ("front matter 算了 还是改返 YAML 吧", True),
        # …and alone asks to put right what the agent just did (tune19, tune43)
        ("啊 copy 漏咗個 minus 😅 你幫我改返", False),
        ("你头先喺 serializer 写咗句中文 comment，改返", False),
    ],
)
def test_a_value_set_back_in_cantonese_is_a_decision(text: str, decides: bool) -> None:
    assert (DECISION.search(fold(text)) is not None) is decides
