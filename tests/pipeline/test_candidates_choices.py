"""Choices said in few words: what a part of the work uses for now, a bare refusal of a named thing, and a Chinese
sentence that opens on an English word."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.candidates import extract_candidates, read_pieces
from incremind_daemon.pipeline.lasting_model import reader_for
from incremind_daemon.store.embedder import Embedder


def statements(text: str, embedder: Embedder) -> list[str]:
    return [c.statement for c in extract_candidates(text, conversational=True, reader=reader_for(embedder))]


@pytest.mark.parametrize(
    "text",
    [
        "向量苦现在先用 chroma 本地的就行",  # tune44 (向量苦 for 向量库): each changed later, with nothing to replace
        "生成这边 先用千问 就是 qwen plus 走 dash scope 的接口",
        "hidden loss 权重先用 0.1",
        "`AMAZON_SYNC_BATCH_SIZE` 暂时用 50 先",
    ],
)
def test_what_a_part_of_the_work_uses_for_now_holds_until_it_is_changed(text: str, use_m3: Embedder) -> None:
    assert statements(text, use_m3) != [], text


@pytest.mark.parametrize(
    "text",
    [
        "先用 staging 的 kubeconfig 跑一下 template 看看渲染结果",  # a tool for one run
        "你先用 FakeTransport 餵假資料做畫面就好",  # what the agent uses for a task
        "到时候先用 placeholder",
        "行 那我先用 set -x 临时的 TestFlight 明天再说",
        "数据先用假的",
        "新的文案先用「請輸入 6 位數交易密碼」",
    ],
)
def test_what_is_used_for_one_task_is_no_choice(text: str, use_m3: Embedder) -> None:
    assert statements(text, use_m3) == []


def test_a_bare_refusal_is_read_with_the_reason_after_it(use_m3: Embedder) -> None:
    """tune44: "不要 langchain。" was too short to read, and the reason after it said no rule alone."""
    found = statements("不要 langchain。依赖太重 升级一次炸一次 splitter 自己写 几十行的事", use_m3)
    assert any(s.startswith("不要 langchain") for s in found), found
    # on a line of its own it stays apart
    assert not any(
        "langchain" in s and "升级" in s for s in statements("不要 langchain。\n依赖太重 升级一次炸一次", use_m3)
    )


def test_a_chinese_sentence_that_opens_on_an_english_word_asks_nothing() -> None:
    """tune37: "can" (the CAN bus) opened the sentence and it read as "can …?", never to be read."""
    assert read_pieces("can 解析就放 src/can/ 下面 别拆新 crate 就这么个小东西", conversational=True) != []
    assert read_pieces("can 帧的日志只能打 trace 级别 debug 都不行", conversational=True) != []
    assert read_pieces("can we keep the parser in src/can for the whole project", conversational=True) == []


@pytest.mark.parametrize(
    "text",
    [
        "每个 View 都要有 #Preview。",  # tune34: a rule of every one of a kind, which the model read as 0.08
        "can 帧的日志只能打 trace 级别 debug 都不行 现场 RUST_LOG 一开 debug journal 没几天就写满了",
        "staging 的库你只能 select 改结构都走 alembic migration 别在上面手动建索引",
    ],
)
def test_a_rule_for_every_one_of_a_kind_or_only_one_way_is_the_persons_word(text: str, use_m3: Embedder) -> None:
    assert statements(text, use_m3) != [], text


@pytest.mark.parametrize("text", ["所有 pod 都要重启一下", "现在只能手动跑一下了"])
def test_work_on_all_of_them_once_is_no_rule(text: str, use_m3: Embedder) -> None:
    assert statements(text, use_m3) == []


def test_how_to_write_in_every_reply_is_no_task(use_m3: Embedder) -> None:
    """tune45: "Please write …" read as an ask for the task at hand, and her language rule was lost."""
    text = "Please write in British English — colour, organise, cancelled, licence — in your replies, in code comments."
    assert statements(text, use_m3) != []
    assert statements("Please write the PR description in English.", use_m3) == []


def test_a_step_before_any_of_a_kind_holds_each_time(use_m3: Embedder) -> None:
    """tune45: "before any migration" says when, every time; only "before any commit" and its like were read so."""
    said = "Before any migration goes near a database, show me its SQL with sqlmigrate first."
    found = extract_candidates(said, conversational=True, reader=reader_for(use_m3))
    assert [(c.statement, c.condition, c.scope) for c in found] == [
        ("Show me its SQL with sqlmigrate first", "Before any migration goes near a database", "project")
    ], found  # a step before one kind of the repo's work is the project's, though it says "show me"


@pytest.mark.parametrize("text", ["先交代背景，以后新开会话也按这个来。", "以后设计到的代码都按这个来。"])
def test_words_that_only_point_to_rules_said_elsewhere_are_no_rule(text: str, use_m3: Embedder) -> None:
    """tune46, tune15: "以后…按这个来" holds nothing of its own; the rules it points to are read where they are said."""
    assert statements(text, use_m3) == []
    assert statements("以后都按这个来：接口错误只在 request 拦截器里统一提示", use_m3) != []


def test_a_line_the_writer_labels_a_decision_is_one_by_their_word(use_m3: Embedder) -> None:
    """tune45's meeting minutes mark each decision "- DECIDED: …" and tune38's "- **Decision:** …"; the model read
    "online cancellation closes 48 hours before the appointment" at 0.13, and the change it made was lost."""
    note = (
        "## 3. Cancellation window\n"
        "NPG's physios want more notice to refill a slot.\n"
        "- DECIDED: online cancellation closes 48 hours before the appointment. Arun objected.\n"
        "- **Decision:** half-life of 7 days for the decay.\n"
        "- 决定：支付回调的超时时间设为 30 秒，超时后进入重试队列。下周再看效果。\n"
    )
    found = extract_candidates(note, conversational=False, reader=reader_for(use_m3))
    assert [(c.category, c.statement) for c in found] == [
        ("decision", "Online cancellation closes 48 hours before the appointment"),
        ("decision", "half-life of 7 days for the decay"),
        ("decision", "支付回调的超时时间设为 30 秒，超时后进入重试队列"),
    ], found


def test_the_items_of_a_list_the_person_says_to_follow_are_rules(use_m3: Embedder) -> None:
    """tune46 hands the agent its rules as "按这个来：" over a numbered list; said to an agent, such items were read
    only by their own cues, and the model read "周一店休，取货日期选择器里周一置灰" at 0.12."""
    turn = (
        "做个小程序给街坊下单，到店自提。\n\n按这个来：\n"
        "1. 截单 20:00：20:00 前下的单次日可取，过了 20:00 顺延一天。\n"
        "2. 周一店休，取货日期选择器里周一置灰。\n\n"
        "今天先把下单页的取货日期选择做出来。"
    )
    found = extract_candidates(turn, conversational=True, reader=reader_for(use_m3))
    assert [c.statement for c in found] == [
        "截单 20:00：20:00 前下的单次日可取，过了 20:00 顺延一天",
        "周一店休，取货日期选择器里周一置灰",
    ]
    assert {c.category for c in found} == {"decision"}, found


@pytest.mark.parametrize(
    ("text", "opening"),
    [
        # tune58: a choice of one thing over another, said with "use … instead of"
        (
            "the sender ID KWAYA got approved by Africa's Talking on Thursday. use it instead of the shared "
            "AFRICASTKNG one.",
            "Use it instead of the shared AFRICASTKNG one",
        ),
        # tune58: what a part of the app leaves out, a comma after a word ("no React, no DRF")
        ("server-rendered templates + htmx. no React, no DRF.", "No React, no DRF"),
        # …and where a thing never goes
        (
            "region mapping doesn't go in a case statement. there's seeds/branches.csv (branch_code, branch_name,"
            " region), join to that.",
            "Region mapping doesn't go in a case statement",
        ),
    ],
)
def test_a_choice_said_in_few_words_to_an_agent_holds(text: str, opening: str, use_m3: Embedder) -> None:
    found = statements(text, use_m3)
    assert any(s.startswith(opening) for s in found), found


def note_statements(text: str, embedder: Embedder) -> list[str]:
    return [c.statement for c in extract_candidates(text, conversational=False, reader=reader_for(embedder))]


@pytest.mark.parametrize(
    ("line", "opening"),
    [
        # tune58: a setting a note moves to a new value or keeps at one, with no word of always or decision
        ("- lookback goes to 7 days. she's right, I checked the same 14.", "Lookback goes to 7 days"),
        ("- dbt_daily moves to 04:00 EAT so it runs after the Kobo sync.", "dbt_daily moves to 04:00 EAT"),
        ("- dbt_daily DAG stays at 02:00 EAT. nothing else hits BigQuery before it", "dbt_daily DAG stays at 02:00"),
        # …and whom to ask before a change
        (
            "- Kevin owns the Kobo survey models (stg_kobo__*, int_surveys__*). ask him before changing anything there",
            "Kevin owns the Kobo survey models (stg_kobo__*, int_surveys__*)",
        ),
    ],
)
def test_a_notes_setting_and_whom_to_ask_hold(line: str, opening: str, use_m3: Embedder) -> None:
    found = note_statements(f"# data team planning\n\n{line}\n", use_m3)
    assert any(s.startswith(opening) for s in found), found


@pytest.mark.parametrize(
    "line",
    [
        # what a value did is what happened (tune40)
        "Card authorization p99 went from 180 ms to 4.2 s, and 3.1% of card authorizations in the window were declined"
        " with a timeout (issuer response 91).",
    ],
)
def test_a_value_a_note_says_went_somewhere_is_news(line: str, use_m3: Embedder) -> None:
    assert note_statements(f"# incident\n\n{line}\n", use_m3) == []
