"""Session state: what the closing exchange leaves as the next step, and what it does not."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.snapshot import Turn, snapshot_session
from tests.pipeline.test_snapshot import assistant, tool, user

ASK_DONE_AT_THE_END = {
    "en": [
        user("Sync the results and update the README table."),
        assistant("Updated the README table with the linear probe results."),
        user("then can you plot layer-wise selectivity for next week's slides: linear vs MLP, one subplot per model"),
        assistant("Added `figures/slides/selectivity_linear_vs_mlp.png`: mBERT left, XLM-R right."),
        user("looks great, thanks"),
    ],
    "zh": [
        user("先帮我把 results sync 到本地，然后更新 README 里的结果表。"),
        assistant("README 的结果表已经换成 linear probe 的结果。"),
        user(
            "然后帮我画一张 layer-wise 的 selectivity 图，下周的 slides 要用："
            "linear vs MLP 两条线，每个模型一个 subplot"
        ),
        assistant("画好了：`figures/slides/selectivity_linear_vs_mlp.png`，左边 mBERT、右边 XLM-R。"),
        user("好看！谢谢～"),
    ],
}


@pytest.mark.parametrize("turns", list(ASK_DONE_AT_THE_END.values()), ids=list(ASK_DONE_AT_THE_END))
def test_ask_for_later_use_that_the_agent_carried_out_is_no_next_step(turns: list[Turn]) -> None:
    snapshot = snapshot_session(turns)
    assert snapshot.next_steps == ()
    assert any("selectivity_linear_vs_mlp" in item for item in snapshot.done)


@pytest.mark.parametrize(
    ("ask", "answer"),
    [
        ("ok, can you plot the selectivity for the slides tomorrow", "Sure, tomorrow then."),
        ("好的，明天再帮我画 slides 要用的 selectivity 图", "好的，明天画。"),
    ],
    ids=["en", "zh"],
)
def test_ask_put_off_that_the_agent_did_not_carry_out_stays_the_next_step(ask: str, answer: str) -> None:
    turns = [user("Update the README table."), assistant("Updated the README table."), user(ask), assistant(answer)]
    assert any("selectivity" in step for step in snapshot_session(turns).next_steps)


@pytest.mark.parametrize(
    ("closing", "named"),
    [
        (
            "Also note the late policy, the late penalty script will need it: minus 10% a day, at most three days.\n\n"
            "That's it for today, the script tomorrow.",
            "late penalty script",
        ),
        (
            "另外迟交政策你记一下，后面写 late penalty 脚本要用：每迟一天扣 10%，最多迟交三天。\n\n"
            "今天先这样，脚本明天再弄。",
            "late penalty 脚本",
        ),
    ],
    ids=["en", "zh"],
)
def test_short_step_borrows_the_clause_before_that_names_its_thing(closing: str, named: str) -> None:
    turns = [
        user("Fix the timeout in the grader tests."),
        assistant("Fixed the timeout in the grader tests."),
        user(closing),
    ]
    steps = snapshot_session(turns).next_steps
    assert any("tomorrow" in step or "明天" in step for step in steps)
    assert any(named in step for step in steps)


@pytest.mark.parametrize(
    "closing",
    [
        "do we also need hreflang alternates in the head, or does Starlight already emit them? check that next time.",
        "Starlight 会不会自己输出 hreflang？下次查一下这个。",
    ],
    ids=["en", "zh"],
)
def test_a_step_that_checks_a_question_asked_just_before_names_the_question(closing: str) -> None:
    # found by a new user: the next step read "check that next time", and nothing said what
    turns = [
        user("Finish the zh-cn getting-started page and fix the zh-cn sidebar links."),
        assistant("Done: the zh-cn page is finished and the sidebar uses `slug`. Build OK, 0 broken links."),
        user(closing),
    ]
    assert any("hreflang" in step for step in snapshot_session(turns).next_steps)


def test_step_that_names_its_thing_borrows_nothing() -> None:
    turns = [
        user("Fix the timeout in the grader tests."),
        assistant("Fixed the timeout in the grader tests."),
        user(
            "The export script is slow too.\n\nI'll rewrite the late penalty script for the new export format tomorrow."
        ),
    ]
    assert snapshot_session(turns).next_steps == (
        "I'll rewrite the late penalty script for the new export format tomorrow",
    )


TABLE_DONE = [
    user("Add the layer-wise table to chapter 4."),
    assistant("Added table 4.2 to chapter 4; the build is clean."),
]


@pytest.mark.parametrize(
    "closing",
    [
        "Figure 4.2: ignore it for now, until the attention head runs are done.",
        "图 4.2 先别管，等 attention head 那部分跑完再说",
    ],
    ids=["en", "zh"],
)
def test_thing_set_aside_until_later_is_a_decision_and_no_next_step(closing: str) -> None:
    snapshot = snapshot_session([*TABLE_DONE, user(closing)])
    assert snapshot.next_steps == ()
    assert any("4.2" in decision for decision in snapshot.decisions)


@pytest.mark.parametrize("closing", ["ok 知道了，回头再说", "好吧，以后再说。", "ok, later", "Got it. We'll see."])
def test_a_yes_and_later_with_nothing_to_do_is_no_step_and_no_decision(closing: str) -> None:
    """Found on the fresh sessions: "ok 知道了，回头再说" was the session's next step."""
    snapshot = snapshot_session([*TABLE_DONE, user(closing)])
    assert snapshot.next_steps == ()
    assert snapshot.decisions == ()


@pytest.mark.parametrize("closing", ["ok, I'll commit it myself", "好的 我自己提"], ids=["en", "zh"])
def test_commit_the_person_makes_themselves_is_no_next_step(closing: str) -> None:
    assert snapshot_session([*TABLE_DONE, user(closing)]).next_steps == ()


@pytest.mark.parametrize(
    "closing",
    [
        "commit 吧 别 push 我自己看过再推 以后都这样",  # tune44: a way of working from now on
        "push 还是我自己来",  # …and as before
        "修之前先写个能复现的测试 我的习惯是 bug 先有红的测试再修",
        "commit it, I always push myself",
    ],
)
def test_a_way_of_working_said_to_hold_on_is_no_next_step(closing: str) -> None:
    assert snapshot_session([*TABLE_DONE, user(closing)]).next_steps == ()


@pytest.mark.parametrize(
    "closing",
    ["I'll commit it myself once Priya has reviewed it", "等 Priya review 完我自己提"],
    ids=["en", "zh"],
)
def test_commit_the_person_makes_themselves_after_a_condition_stays_the_next_step(closing: str) -> None:
    assert any("Priya" in step for step in snapshot_session([*TABLE_DONE, user(closing)]).next_steps)


@pytest.mark.parametrize(
    ("closing", "step"),
    [
        ("No codemod. The other call sites, I'll migrate the rest by hand, there are only a dozen.", "the rest"),
        ("codemod 算了 剩下的我手动一个个迁 也就十几个", "剩下的我手动"),
    ],
    ids=["en", "zh"],
)
def test_rest_of_the_work_the_person_takes_over_is_the_next_step(closing: str, step: str) -> None:
    turns = [
        user("Move the plan endpoints to core v2."),
        assistant("Moved `getPlan` and `listTodayPlans` to v2. There are 14 more v1 call sites; want a codemod?"),
        user(closing),
        assistant("OK."),
    ]
    assert any(step in next_step for next_step in snapshot_session(turns).next_steps)


SIDE_MATTER_AT_THE_END = {
    "en": [
        user("Write the tests for the checkin route."),
        assistant("Wrote `test/routes/checkin.test.ts`; all 3 pass."),
        user("right, merging to main deploys staging by itself. So I'll open the PR then.\n\nwhat's this log line btw"),
        assistant("A half-created test plan in staging's core data; not related to your change."),
        user("ok never mind, test data"),
    ],
    "zh": [
        user("帮我把 checkin 接口的测试写了"),
        assistant("写好了 `test/routes/checkin.test.ts`，3 个都过了。"),
        user("对 merge 到 main 会自动上 staging，我记起来了。那我开 PR 了\n\n顺便 pm2 logs 里这条是啥"),
        assistant("是 staging 的 core 里一条没建完的测试数据，跟你的改动无关。"),
        user("ok 不管了 test data 的锅"),
    ],
}


@pytest.mark.parametrize("turns", list(SIDE_MATTER_AT_THE_END.values()), ids=list(SIDE_MATTER_AT_THE_END))
def test_side_matter_let_go_at_the_end_leaves_the_step_agreed_before_it(turns: list[Turn]) -> None:
    steps = "; ".join(snapshot_session(turns).next_steps)
    assert "PR" in steps
    assert "staging" in steps  # the step drawn from the sentence before takes it along


@pytest.mark.parametrize(
    "closing",
    ["No matter what, I'll release it tomorrow.", "不管怎样明天我都要发版"],
    ids=["en", "zh"],
)
def test_step_put_off_regardless_of_anything_stays_the_next_step(closing: str) -> None:
    steps = snapshot_session([*TABLE_DONE, user(closing)]).next_steps
    assert any("tomorrow" in step or "明天" in step for step in steps)


# found by a new user: the closing chatter and the agent's "OK?" were listed as steps, a bare yes as a decision
AGREED_STEP = {
    "zh": [
        user("Detox 的 E2E 又挂了，帮我看看。"),
        assistant(
            "登录 flow 在 Android 模拟器上跑通了。建议下一步：把 CI 里的 detox job 换成 maestro job。你看可以吗？"
        ),
        user("可以，就这么办。好，我去吃个饭。"),
    ],
    "en": [
        user("The Detox E2E run is failing again, can you take a look?"),
        assistant(
            "The login flow passes on the Android emulator. "
            "Next step: swap the detox job in CI for a maestro job. Sound good?"
        ),
        user("Yes, let's do that. Grabbing lunch now."),
    ],
}


@pytest.mark.parametrize("turns", list(AGREED_STEP.values()), ids=list(AGREED_STEP))
def test_the_agreed_step_is_next_and_the_yes_and_the_leaving_are_not(turns: list[Turn]) -> None:
    snapshot = snapshot_session(turns)
    assert len(snapshot.next_steps) == 1 and "maestro" in snapshot.next_steps[0], snapshot.next_steps
    assert not any(item.rstrip().endswith(("?", "？")) for item in snapshot.next_steps)
    assert not any(word in item for item in snapshot.decisions for word in ("就这么办", "let's do that")), snapshot


@pytest.mark.parametrize(
    "closing",
    ["Done — the build passes on Next 15 and all 141 tests pass. Enjoy Next 15!", "升级完成，Next 15 的构建通过了。"],
)
def test_nextjs_by_name_is_no_next_step(closing: str) -> None:
    """Found by a new user: "Enjoy Next 15" was the session's next step."""
    turns = [user("upgrade ledgerline-web from Next 14 to Next 15."), assistant(closing), user("great, thanks")]
    assert snapshot_session(turns).next_steps == ()


@pytest.mark.parametrize(
    ("proposal", "reply"),
    [
        (
            "All 8 tests pass. As a next step I'd suggest adding an Alembic migration "
            "that puts NOT NULL on invoices.currency.",
            "yep, do that tomorrow",
        ),
        ("测试都过了。建议下一步给 invoices.currency 加一个 NOT NULL 的 Alembic migration。", "行，明天再弄这个"),
    ],
)
def test_a_step_agreed_by_pronoun_names_the_proposal_it_takes(proposal: str, reply: str) -> None:
    """Found by a new user: the next step read "yep, do that tomorrow", and nothing said what "that" was."""
    turns = [user("POST /invoices returns 500 without a currency; fix it please"), assistant(proposal), user(reply)]
    (step,) = snapshot_session(turns).next_steps
    assert "Alembic migration" in step, step


PLAN_AT_THE_END = {
    "zh-list": (
        [
            user("手账现在数据全在后端，没网的时候记不了账。有没有办法做离线记账？"),
            tool("Read: /code/shouzhang/src/stores/bills.ts"),
            assistant("两个方案：1）localStorage 队列；2）IndexedDB + Dexie。你选哪个？"),
            user("用第二个方案"),
            assistant(
                "好，用 IndexedDB + Dexie。步骤是：\n1. `pnpm add dexie`\n"
                "2. 新建 `src/db/index.ts`，定义 `bills` 和 `outbox` 两张表\n"
                "3. 改 `bills` store，读写先走本地库\n\n我先从第 1、2 步开始。"
            ),
        ],
        "pnpm add dexie",
    ),
    "zh-sentence": (
        [
            user("重复评价要返回 409。"),
            tool("Edit: /code/api/src/reviews/reviews.service.ts"),
            assistant("已提交 `a91c0de`，重复评价现在返回 409。要我再补一个 e2e 测试吗？"),
            user("不用，先把评分统计接口的 N+1 查询弄了，一个请求打了 30 多条 SQL。"),
            tool("Read: /code/api/src/products/products.service.ts"),
            assistant("看到了：循环里逐条查 user。我接下来把它改成一条 `groupBy` 加一次 `findMany`，固定 2 条 SQL。"),
        ],
        "groupBy",
    ),
    "en": (
        [
            user("Deleting a review should be a soft delete, legal needs 180 days of history."),
            tool("Read: /code/api/prisma/schema.prisma"),
            assistant(
                "Understood. My plan:\n1. Add `deletedAt DateTime?` to Review and generate a migration\n"
                "2. Make `remove()` set `deletedAt` instead of deleting\n\nI'll start with step 1."
            ),
        ],
        "deletedAt",
    ),
}


@pytest.mark.parametrize(("turns", "step"), list(PLAN_AT_THE_END.values()), ids=list(PLAN_AT_THE_END))
def test_the_plan_a_session_ends_on_before_any_of_it_is_done_is_next(turns: list[Turn], step: str) -> None:
    snapshot = snapshot_session(turns)
    assert len(snapshot.next_steps) == 1 and step in snapshot.next_steps[0], snapshot
    assert not any("src/db/index.ts" in item for item in snapshot.done)  # a listed step is not done


def test_a_plan_the_agent_then_carried_out_is_no_next_step() -> None:
    turns = [
        *PLAN_AT_THE_END["en"][0],
        tool("Edit: /code/api/prisma/schema.prisma"),
        assistant("Added `deletedAt` and the migration `20260901_soft_delete`."),
    ]
    assert snapshot_session(turns).next_steps == ()


@pytest.mark.parametrize(
    "closing",
    [
        "这次升级相关的工作都做完了，没有遗留的 TODO。",
        "That's the whole upgrade done, nothing left to do and no open TODOs.",
    ],
)
def test_saying_nothing_is_left_is_no_next_step(closing: str) -> None:
    turns = [
        user("把 prisma 升到 6。"),
        tool("Bash: pnpm up prisma@6"),
        assistant(f"升级完成，53 个测试通过。{closing}"),
    ]
    assert snapshot_session(turns).next_steps == ()


@pytest.mark.parametrize(
    "rule",
    [
        "对账文件如果凌晨 3 点还没到，就发飞书告警然后直接失败，别一直 sensor 等着占 worker。",
        "If the bank file still isn't there by 3am, alert on Feishu and fail, don't keep a sensor waiting.",
    ],
)
def test_a_rule_whose_condition_says_not_yet_is_no_next_step(rule: str) -> None:
    turns = [
        user("帮我把 merge_daily 的参数收成一个 dataclass。"),
        tool("apply_patch: jobs/settlement/merge.py"),
        assistant("`merge_daily` 现在只接收一个 `MergeParams`，测试全部通过。"),
        user(rule),
        tool("apply_patch: dags/dag_reconcile_daily.py"),
        assistant("`wait_bank_file` 改成 reschedule 模式，3 点没到就失败并告警。测试通过。"),
        user("ok 今天先到这"),
        assistant("好的，今天的改动都已提交。"),
    ]
    snapshot = snapshot_session(turns)
    assert snapshot.next_steps == ()
    assert any("告警" in item or "alert" in item for item in snapshot.decisions)


@pytest.mark.parametrize(
    "closing",
    ["Shall I start with step 1?", "要我先从第 1 步开始吗？"],
)
def test_a_plan_that_waits_for_the_go_ahead_is_next(closing: str) -> None:
    turns = [
        user("plan RBAC for the dashboard first, don't write code yet. roles: admin, dispatcher, viewer"),
        tool("Read: /code/fleet-ui/src/hooks.server.ts"),
        assistant(
            "Here's how I'd do it:\n1. Parse role and depot_id into locals.user in hooks.server.ts\n"
            "2. Add a requireRole() guard for the admin routes\n3. Hide the edit buttons for viewers\n\n" + closing
        ),
    ]
    snapshot = snapshot_session(turns)
    assert len(snapshot.next_steps) == 1 and "locals.user" in snapshot.next_steps[0], snapshot


def test_a_question_of_the_agents_own_leaves_no_plan_as_next() -> None:
    turns = [
        user("plan RBAC for the dashboard first"),
        assistant("Two ways:\n1. roles in the JWT\n2. roles in the database\n\nWhich one do you prefer?"),
    ]
    assert snapshot_session(turns).next_steps == ()


def test_an_answer_that_offers_more_in_passing_leaves_no_plan_as_next() -> None:
    turns = [
        user("how does the cursor pagination in invoices.go work?"),
        tool("Read: /code/ledgerly/internal/api/invoices.go"),
        assistant(
            "It pages on (issued_at, id):\n- the cursor is base64 of `issued_at|id`\n- `next_cursor` is null on the "
            "last page\n\nLet me know if you want me to add the same to payments, I'll be here."
        ),
    ]
    assert snapshot_session(turns).next_steps == ()


@pytest.mark.parametrize(
    "closing",
    [
        "好，先这样，下午我去给陈桐讲 backtest",
        "今天先到这，下午带娃去了",
        "Calling it a day, dinner with my parents tonight",
        "That's it for today, this afternoon I present the forecast to Chen Tong",  # "the" named nothing of the work
    ],
)
def test_stopping_for_the_day_for_something_else_is_no_next_step(closing: str) -> None:
    """Found on the fresh halves: the person's afternoon elsewhere was the session's next step."""
    assert snapshot_session([*TABLE_DONE, user(closing)]).next_steps == ()


@pytest.mark.parametrize(
    "closing",
    ["今天先这样，表 4.3 明天再补", "That's it for today, I'll add table 4.3 tomorrow"],
)
def test_stopping_for_the_day_with_this_work_put_off_keeps_it_next(closing: str) -> None:
    steps = snapshot_session([*TABLE_DONE, user(closing)]).next_steps
    assert any("4.3" in step for step in steps), steps


BROADCAST_DONE = [
    user("stage 37 很慢，帮我看下 trip_detail.py。"),
    assistant("总结一下：把 join 改成 broadcast 了，dev 上 9 分钟跑完。"),
]


@pytest.mark.parametrize(
    "closing",
    [
        "回答别太长，最后不要来一段总结，我自己会看 diff。",
        "Keep answers short and skip the recap at the end, I'll read the diff myself.",
    ],
)
def test_how_to_answer_and_why_is_no_next_step(closing: str) -> None:
    """Found on the fresh halves: "我自己会看 diff", the reason of a rule on answers, was the next step."""
    assert snapshot_session([*BROADCAST_DONE, user(closing)]).next_steps == ()


@pytest.mark.parametrize(
    "said", ["👌 下一步: depot filter 要放進 URL search params", "ok, next: depot filter in the URL"], ids=["zh", "en"]
)
def test_next_step_loses_its_caption_behind_a_yes(said: str) -> None:
    turns = [user("Add the depots page."), assistant("Added the depots page."), user(said)]
    (step,) = snapshot_session(turns).next_steps
    assert step.startswith("depot filter")


@pytest.mark.parametrize(
    ("said", "named"),
    [
        ("好，明天 review。", "明天 review"),
        ("OK，唔该。听日再睇 getOrderItems 嘅 rate limit 点处理。", "getOrderItems"),
        ("得，唔该。37 张单嘅库存点冲返，下礼拜一同 Ben 对完先算。", "Ben"),
        ("跑通了，晚上看 Airflow 那边怎么样。", "Airflow"),
        ("good. tomorrow-ish: the diff report, with fx rates from the ECB daily feed.", "diff report"),
        ("then I'm done for today, the painter labels can wait till the weekend.", "painter labels"),
        ("Nice, 4s to 2ms. I'll put both in front of Marcus together with the goose PR.", "Marcus"),
        ("Thanks. After lunch I look at the backtest, Zhou Bo says the YSH numbers look off.", "backtest"),
        ("ok commit. I open the PR after standup, Arjun reviews.", "Arjun"),
        ("Nice. Panel D tomorrow probably.", "Panel D"),  # a hedge leaves the step put off the step
        ("下週一早上再一起 deploy 到 Linode。", "Linode"),  # traditional characters meet the same cues
        ("Good. Once Dev confirms he can read them I'll point him at that folder.", "Dev"),
        # tune58: a run the person triggers herself once the branch is merged
        ("sawa. once it's merged I'll trigger the February backfill from Composer myself.", "February backfill"),
    ],
    ids=[
        "zh-short", "yue-tomorrow", "yue-next-week", "zh-evening", "en-tomorrowish", "en-can-wait", "en-ill-put",
        "en-after-lunch", "en-after-standup", "en-probably", "zh-hant-next-monday", "en-once-someone-confirms",
        "en-once-merged",
    ],
)
def test_step_put_off_in_the_last_words_is_next(said: str, named: str) -> None:
    turns = [
        user("Add the currency columns to the price table."),
        assistant("Added `currency` and `price_minor`; tests pass. MR !214 is open."),
        user(said),
    ]
    assert named in "; ".join(snapshot_session(turns).next_steps)


@pytest.mark.parametrize(
    "said",
    [
        "好的，周末愉快 🙌",
        "昨天晚上挂了一次，重启之后好了，谢谢",
        "謝啦，週末愉快 🙌",
        "好，明天见",
        "ok thanks, have a good weekend",
        "thanks, see you Monday",
    ],
    ids=["zh-weekend", "zh-last-night", "zh-hant-weekend", "zh-see-you-tomorrow", "en-weekend", "en-see-you-monday"],
)
def test_weekend_wishes_and_last_night_are_no_next_step(said: str) -> None:
    turns = [
        user("Add the currency columns to the price table."),
        assistant("Added `currency` and `price_minor`; tests pass."),
        user(said),
    ]
    assert snapshot_session(turns).next_steps == ()


@pytest.mark.parametrize(
    ("said", "step", "held"),
    [
        (
            "Looks right. Don't commit yet — I'll send Ruth the new PNG first and see if she's happy with it.",
            "send Ruth the new PNG",
            "commit",
        ),
        ("ok. don't commit yet, I'll check the PDFs in Illustrator first.", "Illustrator", "commit"),
        ("好。这次先别 push，我晚上装到自己手机上看一眼。", "装到自己手机上", "push"),
    ],
    ids=["en-dash", "en-comma", "zh"],
)
def test_a_hold_ahead_of_the_step_stays_a_decision_and_leaves_the_step_next(said: str, step: str, held: str) -> None:
    turns = [
        user("Make the y axis of panel A start at 0."),
        assistant("Done — `expand_limits(y = 0)` on panel A, figure rebuilt."),
        user(said),
    ]
    snapshot = snapshot_session(turns)
    assert any(step in item and held not in item for item in snapshot.next_steps), snapshot.next_steps
    assert any(held in item for item in snapshot.decisions), snapshot.decisions


@pytest.mark.parametrize(
    ("said", "step"),
    [
        (
            "提交吧。老规矩，你只管 commit，别 push，我自己看完再推。  那个时区测试我下午自己修，拖了一个礼拜了。",
            "时区测试",
        ),
        (
            "commit it. As usual, don't push, I push myself after I read it tomorrow. Timezone test I fix tonight.",
            "Timezone",
        ),
    ],
    ids=["zh", "en"],
)
def test_a_step_put_off_the_house_way_is_a_rule_not_the_next_step(said: str, step: str) -> None:
    turns = [
        user("Add the shipping threshold and move the giftbox template."),
        assistant("Done: threshold at 500 and the template moved; tests pass. Commit?"),
        user(said),
    ]
    snapshot = snapshot_session(turns)
    assert [item for item in snapshot.next_steps if "push" in item] == [], snapshot.next_steps
    assert any(step in item for item in snapshot.next_steps), snapshot.next_steps
    assert any("push" in item for item in snapshot.decisions), snapshot.decisions


@pytest.mark.parametrize(
    ("offer", "yes", "step"),
    [
        ("Committed and pushed. Want me to replay the full flow on UAT tomorrow after the close?", "go", "UAT"),
        ("Committed and pushed. Next: replay the full flow on UAT tomorrow after the close?", "ok", "UAT"),
        ("已 commit，已推送。下一步：下周一用新 loader 跑一遍全市场，跟 CsvLoader 逐日对 NAV？", "好", "NAV"),
    ],
    ids=["en-go", "en-next-caption", "zh-next-caption"],
)
def test_the_step_the_agent_offers_last_and_the_person_takes_is_next(offer: str, yes: str, step: str) -> None:
    turns = [user("Add the parquet loader and commit it."), assistant(offer), user(yes)]
    assert any(step in item for item in snapshot_session(turns).next_steps), snapshot_session(turns).next_steps


def test_go_followed_by_what_to_do_is_no_yes_to_the_offer() -> None:
    turns = [
        user("Add the parquet loader and commit it."),
        assistant("Committed and pushed. Want me to replay the full flow on UAT tomorrow after the close?"),
        user("go through the logs first"),
    ]
    assert not any("UAT" in item for item in snapshot_session(turns).next_steps)


def test_a_goodbye_after_a_hold_is_no_decision() -> None:
    turns = [
        user("Add the ingress rule on the order-db security group in staging."),
        assistant("Applied in staging and pushed feat/report-builder-db."),
        user("nice. don't merge yet — I'll run the prod plan with Dennis on Monday. see you Monday 👋"),
    ]
    snapshot = snapshot_session(turns)
    assert not any("see you" in item for item in (*snapshot.decisions, *snapshot.next_steps)), snapshot
    assert any("Dennis" in step for step in snapshot.next_steps)


@pytest.mark.parametrize(
    ("closing", "step", "hold"),
    [
        ("好累。revive 那五個明天再修，今天先這樣，先不要 commit。", "revive", "先不要 commit"),
        ("ok, fix the five revive warnings tomorrow, don't commit yet.", "revive", "commit yet"),
    ],
    ids=["zh-hant", "en"],
)
def test_a_hold_said_after_the_step_put_off_leaves_the_step_next(closing: str, step: str, hold: str) -> None:
    """Found in a fresh half: "…明天再修，今天先這樣，先不要 commit" was one decision, and no step was next."""
    turns = [
        user("lint setup as promised. add a .golangci.yml and fix what it finds."),
        assistant("Added .golangci.yml. 5 revive warnings left (missing doc comments on exported funcs)."),
        user(closing),
        assistant("OK, changes left uncommitted; the five revive warnings are still open."),
    ]
    snapshot = snapshot_session(turns)
    assert any(step in item for item in snapshot.next_steps), snapshot.next_steps
    assert any(hold in item for item in snapshot.decisions), snapshot.decisions


@pytest.mark.parametrize("declined", ["no, nobody uses brew on the jump hosts. thx", "不用了，跳板机上没人用 brew"])
def test_turning_the_agents_last_offer_down_closes_and_the_step_before_stays_next(declined: str) -> None:
    turns = [
        user("fix the default namespace bug."),
        assistant("Fallback is now platform-system, with a test case. Unit tests pass."),
        user("ok. commit, push, MR for Oskar. he's online, so once he approves I'll tag v0.10.0 myself today."),
        assistant(
            "Pushed fix/default-namespace, MR !153 opened for Oskar. One more idea: goreleaser can also publish "
            "a Homebrew tap. Want me to add that before you tag?"
        ),
        user(declined),
    ]
    snapshot = snapshot_session(turns)
    assert any("v0.10.0" in item for item in snapshot.next_steps), snapshot.next_steps


def test_turning_the_offer_down_with_what_to_do_instead_is_no_closing() -> None:
    turns = [
        user("fix the default namespace bug."),
        assistant("Fallback is now platform-system, with a test case. Unit tests pass."),
        user("ok. commit, push, MR for Oskar. he's online, so once he approves I'll tag v0.10.0 myself today."),
        assistant("Pushed fix/default-namespace, MR !153 opened for Oskar. Want me to add a Homebrew tap too?"),
        user("no, add a --yes flag to prod sync instead"),
    ]
    snapshot = snapshot_session(turns)
    assert not any("v0.10.0" in item for item in snapshot.next_steps), snapshot.next_steps
    assert any("--yes" in item for item in snapshot.decisions + snapshot.next_steps)


@pytest.mark.parametrize(
    ("offer", "yes", "named"),
    [
        (
            "两个 commit 都好了。下一步：`engine/positions.py` 还是 pandas，rebalance 里 `groupby().apply` 占六成时间。"
            "明天把它迁到 polars？",
            "好，明天弄",
            "polars",
        ),
        (
            "Both commits are in. Next: the loader still reads CSV exports from Wind. Switch it to the NAS parquet "
            "tomorrow?",
            "yes, tomorrow",
            "parquet",
        ),
    ],
    ids=["zh", "en"],
)
def test_a_step_named_next_and_offered_by_the_question_after_it_is_one(offer: str, yes: str, named: str) -> None:
    """Found in a fresh half: "下一步：X。明天把它迁到 polars？" taken with "好" left the offer's question out."""
    turns = [user("fees 的测试挂了，帮我修一下然后 commit"), assistant(offer), user(yes)]
    snapshot = snapshot_session(turns)
    assert any(named in item for item in snapshot.next_steps), snapshot.next_steps


@pytest.mark.parametrize(
    ("closing", "step"),
    [
        ("metrics 先别动，等老钱周会把指标口径定了再迁，估计明天", "老钱"),
        ("ok。MR 先不开，等王工回邮件确认 UAT 那边单笔限额是不是也是 50 万再开", "王工"),
        # …or "再说" after someone is to answer (not after a run is done: that sets it aside)
        ("PR 先不开，下午跟 Ken 确认一下 worker 上的 polars 版本再说，worker 要是还是 0.20 合进去就炸了", "Ken"),
        ("thx. prod 那邊等 Dennis 確認 ghcr 的 credentials 要放哪個 secret 再說。", "Dennis"),
        ("好，先不要動，等阿凱說他手機上那兩個按鈕 ok，我再推到 staging", "阿凱"),
        ("先不要，3D 驗證要不要開我還要跟阿凱確認，順便講金額驗證的事。明天再說", "阿凱"),
        ("prod is Kai's job only. but don't deploy now, wait till Kai says when /api/quote lands", "Kai"),
    ],
)
def test_work_held_until_someone_answers_and_then_done_is_the_next_step(closing: str, step: str) -> None:
    """Found in a fresh half: "等王工回邮件确认…再开" at the end was only a decision; it is also what comes next
    (unlike "先别管，等…跑完再说", which sets the thing aside)."""
    turns = [
        user("把 positions.py 迁到 polars"),
        assistant("已 commit。`metrics.py` 里 rolling sharpe / drawdown 也还是 pandas，要接着迁吗？"),
        user(closing),
    ]
    assert any(step in item for item in snapshot_session(turns).next_steps)


def test_a_bare_step_put_off_names_what_the_agent_offered() -> None:
    """Found in a fresh half: "不用，周一早上再跑" said what day, and not what runs then."""
    turns = [
        user("加 holiday 特征"),
        assistant("已 commit 到 `jh/SCF-418`。要不要现在就跑一次 8 周 backtest 看 holiday 特征的效果？大概 50 分钟。"),
        user("不用，周一早上再跑，今天周五早点走。"),
    ]
    assert any("backtest" in step and "周一" in step for step in snapshot_session(turns).next_steps)


def test_a_rule_that_waits_on_someone_every_time_is_no_next_step() -> None:
    turns = [user("修一下测试"), assistant("修好了，已 commit。"), user("以后 MR 一律等我 review 完再合")]
    assert snapshot_session(turns).next_steps == ()


@pytest.mark.parametrize("closing", ["算了，今天脑壳痛，不搞了。", "forget it, not worth it"])
def test_dropping_the_work_leaves_no_step_agreed(closing: str) -> None:
    """Found in a fresh half: after "算了，今天脑壳痛，不搞了" (forget it, headache, not doing it) the session's next
    step was a sentence of the exchange before, "热力图我自己画格子", though the agent's question was left open."""
    turns = [
        user("加一个桌面小组件（WidgetKit），显示今天还有几个习惯没打卡。"),
        assistant("加了 HabitNestWidget extension target。以后要做热力图的话，可以直接上 DGCharts。"),
        user("说了不要第三方库的，Swift Charts 够用了，热力图我自己画格子。小组件刷新有问题。"),
        assistant("权限补了。刷新有两个办法：timeline policy 定时拉，或者 Darwin notification。你想用哪个？"),
        user(closing),
        assistant("好，改动都还在工作区，没 commit。"),
    ]
    assert snapshot_session(turns).next_steps == ()


def test_dropping_the_work_till_a_named_day_keeps_that_step() -> None:
    turns = [user("加一个桌面小组件"), assistant("加好了。刷新用哪个办法？"), user("算了，今天不搞了，明天再弄刷新")]
    assert any("明天再弄刷新" in step for step in snapshot_session(turns).next_steps)


def test_a_step_on_its_own_line_after_a_rule_is_the_next_step() -> None:
    """Found in a fresh half: Chinese typed a line per thought with no stops ran "…push 永远我自己来 所有 repo 都一样"
    and "下午接台架 明天搞 can" together, so the step was read as part of the rule and no step was left."""
    turns = [
        user("ci 上是好的 我本地 aarch64 的 release 编不过 你看下"),
        assistant("改好了，linker 用 SDK 的。要 commit 吗？"),
        user("commit 吧 本地 commit 就行 push 永远我自己来 所有 repo 都一样\n下午接台架 明天搞 can"),
        assistant("已本地 commit `4e7b1c9`，没 push。明天看 CAN。"),
    ]
    state = snapshot_session(turns)
    assert state.next_steps == ("下午接台架 明天搞 can",), state
    assert any("push 永远我自己来" in decision for decision in state.decisions), state


@pytest.mark.parametrize("closing", ["That's enough for tonight, 晚安!", "好的 晚安"])
def test_enough_for_tonight_is_a_goodbye_not_a_step(closing: str) -> None:
    """Found in a fresh half: "That's enough for tonight, 晚安" was the next step, for its "tonight"."""
    turns = [
        user("Please use US spelling in code and docs: color, not colour."),
        assistant("Fixed: renamed everywhere, `grep -rni colour .` finds nothing. Erhua: same color as the syllable?"),
        user(f"Good question about erhua — let me think about it, my tutor has opinions. {closing}"),
    ]
    assert snapshot_session(turns).next_steps == ()


def test_done_for_tonight_closes_the_session_and_names_no_step() -> None:
    """Found in tune40: "works. 阿妈笑咗，话部机识讲广东话 😂 done for tonight" was the next step, read as put off
    to tonight."""
    turns = [
        user("node-red: 爸妈嘅食药提醒。announce on the kitchen nest mini at 08:00 and 19:00. just give me the code."),
        assistant("Here is the function node and the service call; tested it on media_player.kitchen_nest_mini."),
        user("works. 阿妈笑咗，话部机识讲广东话 😂 done for tonight"),
    ]
    assert snapshot_session(turns).next_steps == ()


def test_going_to_bed_closes_the_session_and_names_no_step() -> None:
    """Found in tune41 and tune42: "好喔 明天要上班 先睡了 ㄅㄅ" (Taiwan's "bye bye" in bopomofo) and
    "行 先这样 明天再说 睡了 zzz" were the next step."""
    for closing in ("好喔 明天要上班 先睡了 ㄅㄅ", "行 先这样 明天再说 睡了 zzz"):
        turns = [
            user("LINE 通知改用 Messaging API 的 push message，訂位成功就推一張 Flex Message 給客人"),
            assistant("Done: lib/flex/bookingConfirmed.ts builds the card; the webhook route pushes it after insert."),
            user(closing),
        ]
        assert snapshot_session(turns).next_steps == (), closing


def test_the_agents_goodbye_after_the_person_left_agrees_no_step() -> None:
    """Found in tune42: after "行 先这样 明天再说 睡了 zzz" the agent's "还没 commit" was the next step."""
    turns = [
        user("晚上搞下 fundbot 估值涨跌幅绝对值 >= 2% 就推一条"),
        assistant("改好了：alert.py 复用 fetch，dry-run 结果：161725 估值 -2.31%，会推。"),
        user("行 先这样 明天再说 睡了 zzz"),
        assistant("好，改动都在工作区，还没 commit。"),
    ]
    assert snapshot_session(turns).next_steps == ()
