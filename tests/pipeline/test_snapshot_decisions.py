"""Session state: what the person settles in passing is a decision, in English and Chinese."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.snapshot import Turn, snapshot_session
from tests.pipeline.test_snapshot import assistant, user


@pytest.mark.parametrize(
    "said",
    [
        "secrets through external-secrets like everything else.",
        "escalation on opsgenie: payments isn't P3XK2LM there, it's the team payments-core-oncall.",
        "shorter answers pls, just the diff, I don't need the essay.",
        "secret 跟其他服务一样走 external-secrets。",
        "老规矩，secret 都走 external-secrets，values 文件里不放。",
        "用英文答我就得，唔使跟住我转中文。",  # written Cantonese: 就得 is 就行, 唔使 is 不用
    ],
    ids=["en-house-way", "en-put-right", "en-manner", "zh-house-way", "zh-old-rule", "yue-manner"],
)
def test_house_way_and_value_put_right_are_decisions(said: str) -> None:
    turns = [
        user("Scaffold the fx-quotes chart from charts/_template."),
        assistant("Scaffolded `charts/fx-quotes`."),
        user(said),
        assistant("Done."),
        user("thanks"),
    ]
    assert said.rstrip("。.").casefold() in "; ".join(snapshot_session(turns).decisions).casefold()


def test_question_about_a_value_is_no_decision() -> None:
    turns = [user("Why isn't the port 8443, is it the gateway?"), assistant("The gateway forwards 8443 only.")]
    assert snapshot_session(turns).decisions == ()


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        (
            "另外 .env.example 里那个 CORE_API_TOKEN 谁写的真值?? 赶紧换成占位符。",
            "另外 .env.example 里那个 CORE_API_TOKEN 谁写的真值?? — 赶紧换成占位符",
        ),
        (
            "Who put the real CORE_API_TOKEN into .env.example?? Use a placeholder for the token.",
            "Use a placeholder for the token",
        ),
    ],
    ids=["zh", "en"],
)
def test_decision_that_names_nothing_borrows_the_sentence_before(said: str, shown: str) -> None:
    turns = [user("Add the requestId to the error logs."), assistant("Added it."), user(said), assistant("Done.")]
    assert shown in snapshot_session(turns).decisions


@pytest.mark.parametrize(
    "said",
    [
        "lgtm, commit it, your call on the message",
        "the cluster bootstrap for the appendix is a good idea, but not today",
        "the chapter 4 draft is due on April 15, so ch4 work takes priority over polishing ch5",
        "lgtm，commit 吧，message 你来写",
        "cluster bootstrap 放附录是个好主意，不过今天先不做",
        "另外迟交政策你记一下：每迟一天扣 10%，最多迟交三天",
    ],
    ids=["en-left", "en-not-today", "en-priority", "zh-left", "zh-not-today", "zh-note"],
)
def test_choice_left_to_the_agent_idea_put_off_and_priority_are_decisions(said: str) -> None:
    turns = [
        user("Add the bootstrap significance test to stats.py."),
        assistant("Added `paired_bootstrap` to `csp/stats.py`; layers 7-11 differ."),
        user(said),
        assistant("OK."),
        user("thanks"),
    ]
    assert said in "; ".join(snapshot_session(turns).decisions)


@pytest.mark.parametrize(
    ("said", "settled"),
    [
        ("Run it. The STAGING_HOST variable on GitHub I'll change in a moment myself.", "STAGING_HOST"),
        ("跑吧 指纹我跟运维对过了。GitHub 上那个 STAGING_HOST 变量我等下去改", "STAGING_HOST 变量我等下去改"),
    ],
    ids=["en", "zh"],
)
def test_step_the_person_takes_in_a_moment_mid_session_is_a_decision(said: str, settled: str) -> None:
    turns = [
        user("ssh to staging fails after the move to 10.12.5.8"),
        assistant("The fix is to drop the stale known_hosts entry with `ssh-keygen -R 10.12.5.8`. OK to run it?"),
        user(said),
        assistant("Done, stale key removed."),
        user("Now bump node to 22 in CI."),
        assistant("Updated `node-version: 22` in ci.yml."),
    ]
    snapshot = snapshot_session(turns)
    assert settled in "; ".join(snapshot.decisions)
    assert not any("STAGING_HOST" in step for step in snapshot.next_steps)


@pytest.mark.parametrize(
    ("said", "whole"),
    [
        ("thx. 回复还是用中文吧 我看得快一点, commit msg stay English", "commit msg stay English"),
        ("e2e 用 Playwright，只跑 chromium 就行，别的浏览器先不管", "别的浏览器先不管"),
        ("Use Playwright for e2e, chromium only is fine, the other browsers can wait", "the other browsers can wait"),
    ],
    ids=["zh-en-mixed", "zh", "en"],
)
def test_decision_keeps_the_words_its_sentence_goes_on_with(said: str, whole: str) -> None:
    turns = [user("Fix the lint step."), assistant("Fixed the lint step."), user(said), assistant("OK.")]
    assert any(whole in decision for decision in snapshot_session(turns).decisions)


@pytest.mark.parametrize(
    "said",
    [
        'rotated yesterday. source of truth is 1Password: vault SRE, item "PagerDuty API (ock)"',
        ".env.local 不进 git，secret 都在 1Password 的 Qingran-BFF vault 里",
    ],
    ids=["en", "zh"],
)
def test_where_a_thing_is_kept_is_a_decision(said: str) -> None:
    turns = [
        user("ock ack is broken, where does it get the token"),
        assistant("From the macOS keychain, falling back to `$PD_TOKEN`."),
        user(said),
        assistant("OK."),
        user("thanks"),
    ]
    assert any("1Password" in decision for decision in snapshot_session(turns).decisions)


@pytest.mark.parametrize(
    ("said", "whole", "clean"),
    [
        (
            "no — always a release tag. and don't create the secret in tf. I'll make it by hand in the console "
            "later today, just reference it with a data source.",
            "I'll make it by hand in the console",
            None,
        ),
        (
            "顺便我们升 Node 22 了，.nvmrc 我刚改成 22，你看下 CI 里 setup-node 那里也改一下",
            "你看下 CI 里 setup-node 那里也改一下",
            None,
        ),
        ("还有测试跑 QingranDev 这个 scheme，别用 Prod", None, "测试跑 QingranDev 这个 scheme，别用 Prod"),
    ],
    ids=["en-goes-on", "zh-goes-on", "zh-connective-only"],
)
def test_decision_that_goes_on_past_a_connective_stays_and_a_bare_connective_does_not(
    said: str, whole: str | None, clean: str | None
) -> None:
    turns = [
        user("Fix the lint step."),
        assistant("Fixed the lint step."),
        user(said),
        assistant("OK."),
        user("the account id is hardcoded 4 times, pull it into a local"),
        assistant("Pulled it into `local.account_id`; 4 ARNs updated."),
    ]
    decisions = snapshot_session(turns).decisions
    if whole is not None:
        assert any(whole in decision for decision in decisions)
    if clean is not None:
        assert any(decision.startswith(clean) for decision in decisions)


@pytest.mark.parametrize(
    ("opening", "moved"),
    [
        (
            "ok english today. min deployment target goes to iOS 17 — product signed off this morning. "
            "can you migrate PlanListViewModel to @Observable?",
            "min deployment target goes to iOS 17",
        ),
        (
            "HW3 的 grader 开始写了。HW3 里有 training loop，每个提交的 timeout 放宽到 180 秒，林老师确认过了。"
            "先帮我看一下 starter code。",
            "timeout 放宽到 180 秒",
        ),
    ],
    ids=["en", "zh"],
)
def test_value_moved_in_the_opening_is_a_decision(opening: str, moved: str) -> None:
    turns = [user(opening), assistant("Looking at it now."), user("thanks")]
    assert any(moved in decision for decision in snapshot_session(turns).decisions)


@pytest.mark.parametrize(
    ("said", "glad"),
    [
        ("Nice, 4s → 2ms. I'll put both in front of Marcus together with the goose PR.", "4s → 2ms"),
        ("太好了，4s → 2ms。", "4s → 2ms"),
    ],
    ids=["en", "zh"],
)
def test_a_result_the_person_is_glad_of_is_no_value_set(said: str, glad: str) -> None:
    """Found in a tuning half: "Nice, 4s → 2ms" was the session's decision."""
    turns = [
        user("The adherence endpoint is slow, dashboard takes 4+ seconds. Add an index."),
        assistant("Added the index in its own migration. The query went from 4s to 2ms; `make test` is green."),
        user(said),
    ]
    assert not any(glad in decision for decision in snapshot_session(turns).decisions)
    # a value set with an arrow is still one
    turns[-1] = user("timeout 30s → 60s please, the nightly job needs it.")
    assert any("30s → 60s" in decision for decision in snapshot_session(turns).decisions)


@pytest.mark.parametrize(
    "turns",
    [
        [
            user("给 getRatingSummary 加个缓存，用 Redis，TTL 60 秒；新评价提交以后要让对应的缓存失效。"),
            assistant("我先在 docker-compose 里加 redis，再写 RatingCacheService。"),
            user("算了，不用 Redis 了，直接用内存缓存，不想多一个运维组件。"),
            assistant("好，改用进程内 LRU 缓存，已去掉 ioredis。"),
        ],
        [
            user("Cache getRatingSummary. We'll use Redis for the cache, 60 second TTL."),
            assistant("I'll add redis to docker-compose and write a RatingCacheService."),
            user("Actually no Redis, keep it in memory, I don't want another service to run."),
            assistant("Switched to an in-process LRU cache and removed ioredis."),
        ],
    ],
    ids=["zh", "en"],
)
def test_a_decision_turned_down_later_in_the_session_is_no_longer_a_decision(turns: list[Turn]) -> None:
    decisions = snapshot_session(turns).decisions
    assert any("redis" in item.casefold() for item in decisions), decisions  # the change itself names it
    assert not any(("用 Redis，" in item or "use Redis" in item) for item in decisions), decisions


@pytest.mark.parametrize(
    ("closing", "reply"),
    [("好的 搞定了 谢谢", "不客气！"), ("ok that did it, thanks", "You're welcome!")],
    ids=["zh", "en"],
)
def test_a_question_answered_and_a_thanks_decide_nothing(closing: str, reply: str) -> None:
    turns = [
        user("我刚把一个 commit 提交到 main 上了（还没 push），其实应该在新分支 feature/x 上。怎么把它挪过去？"),
        assistant("先 `git branch feature/x`，再 `git reset --hard HEAD~1`，然后 `git switch feature/x`。"),
        user("如果是 3 个 commit 呢"),
        assistant("把 `HEAD~1` 换成 `HEAD~3` 就行。"),
        user(closing),
        assistant(reply),
    ]
    assert snapshot_session(turns).decisions == ()


@pytest.mark.parametrize(
    ("first", "back", "gone", "stays"),
    [
        ("我倾向 Postgres：更接近生产，CI 里也能用同样的容器。", "算了，还是用 DuckDB，轻一点。", "Postgres", "DuckDB"),
        ("质量检查用 great_expectations，先从 fct_orders 开始。", "质量检查还是用 dbt tests + elementary。",
         "great_expectations", "elementary"),
        ("Let's go with Memcached for the session cache.", "Scratch that, stick with Redis for the session cache.",
         "Memcached", "Redis"),
    ],
    ids=["zh-bare", "zh-subject", "en"],
)  # fmt: skip
def test_a_choice_the_person_goes_back_on_is_no_decision(first: str, back: str, gone: str, stays: str) -> None:
    turns = [
        user("帮我给 atlas-etl 配一个本地跑 dbt 的环境。"),
        assistant("可以用 DuckDB 或者 Postgres 容器。"),
        user(first),
        assistant("好，我先看看。"),
        user(back),
        assistant("好的，已经改好了 profiles.yml。"),
    ]
    decisions = "; ".join(snapshot_session(turns).decisions)
    assert stays in decisions and gone not in decisions, decisions


@pytest.mark.parametrize(
    ("proposal", "yes", "more", "taken"),
    [
        (
            "OK. I suggest a separate refunds table with a foreign key to transfers, amounts as int64 cents.",
            "agreed",
            "error codes stay snake_case strings as usual",
            "a separate refunds table with a foreign key to transfers",
        ),
        (
            "好的。我建议 refund 走单独的表 refunds，和 transfers 用外键关联，金额用 int64 存分。",
            "同意你的方案",
            "金额一律用 int64 存分，绝对不要用 float",
            "refund 走单独的表 refunds，和 transfers 用外键关联",
        ),
    ],
    ids=["en", "zh"],
)
def test_a_proposal_taken_before_a_second_message_is_decided_not_next(
    proposal: str, yes: str, more: str, taken: str
) -> None:
    # the person says yes, then adds a rule in a message of its own; the agent answers both and goes on working
    turns = [
        user("The refund endpoint has to be done before Monday."),
        assistant(proposal),
        user(yes),
        user(more),
        assistant("Noted. The refund handler is in refund/handler.go."),
        user("tomorrow: idempotency keys. that's it for today"),
    ]
    state = snapshot_session(turns)
    assert taken in "; ".join(state.decisions)
    assert taken not in "; ".join(state.next_steps)


@pytest.mark.parametrize(
    "opening",
    [
        "The refund endpoint has to be done before Monday, that's the priority now.",
        "退款接口周五之前必须上线，这是现在的重点。",
    ],
    ids=["en", "zh"],
)
def test_when_the_work_asked_for_is_due_is_the_goal_not_a_decision(opening: str) -> None:
    turns = [user(opening), assistant("OK, starting on the handler."), user("ok")]
    state = snapshot_session(turns)
    assert state.goal.startswith(opening[:12])
    assert state.decisions == ()


LATER_RULE = [user("Fix the contact form."), assistant("Fixed: the form posts again.")]


@pytest.mark.parametrize(
    "said",
    [
        "Run `pnpm test:e2e` whenever you touch the contact form.",
        "You're allowed to push branches named `preview/*` here.",
        "You may push branches named `preview/*` here.",
    ],
)
def test_a_step_each_time_and_a_permission_are_decisions(said: str) -> None:
    """Found on the fresh halves: "whenever" and "you're allowed to" settled nothing, said on their own."""
    turns = [*LATER_RULE, user(said), assistant("OK.")]
    assert snapshot_session(turns).decisions == (said.rstrip("."),)


@pytest.mark.parametrize(
    ("said", "items"),
    [
        (
            "Two process things for this repo:\n\n1. Run `pnpm test:e2e` whenever you touch the contact form.\n"
            "2. You're allowed to push branches named `preview/*` here.",
            ("Run `pnpm test:e2e` whenever you touch the contact form",
             "You're allowed to push branches named `preview/*` here"),
        ),
        ("这个 repo 的两条规矩：\n\n- 提交前必须跑 make lint\n- 不许直接推 main",
         ("提交前必须跑 make lint", "不许直接推 main")),
    ],
)  # fmt: skip
def test_a_caption_over_a_list_is_no_decision_its_items_are(said: str, items: tuple[str, ...]) -> None:
    """Found on the fresh halves: "Two process things for this repo" took a decision's place."""
    turns = [*LATER_RULE, user(said), assistant("OK.")]
    assert snapshot_session(turns).decisions == items


@pytest.mark.parametrize(
    "refusal",
    [
        "不行. 別用固定秒數去等畫面 — 用會自己 retry 的 expect, 讓 DepotMap 把 zoom 寫在 data-zoom 上.",
        "不可以，别用固定的等待时间，用会自己 retry 的 expect。",
        "not ok, no fixed sleeps: use an expect that retries on data-zoom.",
    ],
    ids=["zh-hant", "zh", "en"],
)
def test_plan_turned_down_with_a_negated_yes_is_no_decision(refusal: str) -> None:
    turns = [
        user("Depot map page: /depots lists every depot and zooms the map to the one clicked."),
        assistant("已加 depots 頁面。zoom 動畫大約 250 ms，我打算在 click 之後加 `waitForTimeout(300)`，可以嗎？"),
        user(refusal),
        assistant("改好了：DepotMap 在 zoomend 時更新 data-zoom。"),
    ]
    assert "waitForTimeout" not in "; ".join(snapshot_session(turns).decisions)


def test_reply_that_turns_down_a_named_option_is_a_decision() -> None:
    turns = [
        user("网关 MQTT 重连很慢，TLS 握手要 9 秒，看看能不能快一点。"),
        assistant("几个办法：1. 开 CONFIG_SPEED_OPTIMIZATIONS  2. 开 ECP 优化  3. 换 TLS-PSK。要用哪几个？"),
        user("PSK 不行，broker 是云厂商托管的，不支持 PSK。先试 1 和 2。"),
        assistant("好，先开 1 和 2。"),
    ]
    assert "PSK 不行，broker 是云厂商托管的，不支持 PSK" in snapshot_session(turns).decisions


def test_revert_that_names_its_object_takes_back_only_that() -> None:
    turns = [
        user("The RBC import blows up on the first row."),
        assistant(
            "I switched it to `DateFormat('M/d/yyyy')` and added a test with `3/1/2026`.\n\n"
            "I also simplified the amount handling: `parseMinorUnits` is gone, amounts go through `double.parse`."
        ),
        user("不行。金额一律存整数分，别给我 double，那个 parseMinorUnits 是故意按字符串拆的。改回去。"),
        assistant("Reverted to `parseMinorUnits`."),
    ]
    done = "; ".join(snapshot_session(turns).done)
    assert "DateFormat('M/d/yyyy')" in done
    assert "double.parse" not in done


@pytest.mark.parametrize(
    ("said", "decided"),
    [
        (
            "good. and no to Firebase or any cloud backup. kakeibo stays offline-only: no Firebase, no Supabase, "
            "nothing that phones home — it's my bank data.",
            "offline-only",
        ),
        ("fine, leave vpc-cni where it is, that's what we ran on staging all weekend.", "vpc-cni"),
    ],
    ids=["stays", "leave-as-is"],
)
def test_what_the_person_keeps_as_it_is_is_decided(said: str, decided: str) -> None:
    """Found in a fresh half: "kakeibo stays offline-only" and "leave vpc-cni where it is", said after a report
    and not in answer to a question, were read as nothing."""
    turns = [
        user("add the rbc parser"),
        assistant("Reverted to `parseMinorUnits`; date fix kept. 7/7 import tests pass."),
        user(said),
        assistant("Understood."),
    ]
    assert any(decided in item for item in snapshot_session(turns).decisions)


def test_an_opener_that_only_says_context_follows_is_no_decision() -> None:
    """Found in a fresh half: "First time running you in this repo so some quick context" led the decisions."""
    turns = [
        user(
            "Morning! First time running you in this repo so some quick context. I'm Daniel, I do the iOS app. "
            "I updated to Xcode 26.3 and now the app target won't build. Can you take a look?"
        ),
        assistant("Both are Swift 6 data-race diagnostics. Should I turn strict concurrency down to minimal?"),
        user("Don't turn strict concurrency down. The app target is in Swift 6 language mode and it stays there."),
        assistant("Done, it builds."),
    ]
    decisions = snapshot_session(turns).decisions
    assert not any("First time" in item for item in decisions), decisions
    assert any("Swift 6" in item for item in decisions), decisions


@pytest.mark.parametrize(
    ("caption", "rule"),
    [
        ("几条规矩我先定下来：", "运费：满 80 澳元包邮，不满 80 收 9.9 澳元。"),
        ("Ground rules for this shop:", "Shipping: free over 80 AUD, 9.90 below that."),
    ],
    ids=["zh", "en"],
)
def test_each_item_under_a_caption_that_sets_rules_is_decided(caption: str, rule: str) -> None:
    """Found in a fresh half: under "几条规矩我先定下来：" a fee with no rule word in it was not among the decisions."""
    turns = [
        user("帮我把周总的需求拆成开发任务，先别写代码。"),
        assistant("拆好了，P0 是运费和 GST。"),
        user(f"{caption}\n- {rule}\n- 所有价格一律显示含 GST。"),
        assistant("收到。"),
    ]
    decisions = snapshot_session(turns).decisions
    assert any(rule.rstrip("。.") in item for item in decisions), decisions


@pytest.mark.parametrize(
    ("said", "decided"),
    [
        (
            "Commit messages in English, conventional commits style (feat:, fix:, chore:) — that goes for all my "
            "repos. Commit it.",
            "conventional commits",
        ),
        ("Use the shared helper. And keep it a function-based view.", "function-based"),
    ],
    ids=["holds-everywhere", "and-keep"],
)
def test_rules_said_in_passing_are_decided(said: str, decided: str) -> None:
    """Found in a fresh half: a rule that says it holds in every repo, "Not the e2e this time" and "And keep it a
    function-based view" were none of the session's decisions."""
    turns = [user("add the cart badge partial"), assistant("Added; all tests pass. Commit?"), user(said)]
    turns.append(assistant("Done."))
    assert any(decided in item for item in snapshot_session(turns).decisions)


def test_not_this_time_in_the_opening_ask_is_decided() -> None:
    ask = (
        "Swap the hero for a click-to-play video with a poster. Keyboard accessible, obviously. Run lint and "
        "typecheck after. Not the e2e this time, you're nowhere near the form."
    )
    turns = [user(ask), assistant("Done: `components/HeroVideo.tsx`. Lint and typecheck pass.")]
    assert any("e2e" in item for item in snapshot_session(turns).decisions)


def test_keep_going_decides_nothing() -> None:
    turns = [user("add the cart badge partial"), assistant("Added the partial; shall I go on?"), user("and keep going")]
    assert snapshot_session(turns).decisions == ()


@pytest.mark.parametrize(
    ("said", "decided"),
    [
        ("Change on pushing: you can push feature branches yourself now, saves me a step.", "feature branches"),
        ("对了，本地开发的时候 PD_API_TOKEN 可以放 .env.local，.env 不行，.env 是要进仓库的。", ".env.local"),
    ],
    ids=["leave-given", "allowed-beside-not"],
)
def test_leave_given_and_what_is_not_allowed_are_decided(said: str, decided: str) -> None:
    """Found in a fresh half: "you can push feature branches yourself now" and ".env.local 可以，.env 不行" were none
    of the session's decisions."""
    turns = [user("add the --since flag"), assistant("Added `--since`; tests pass."), user(said)]
    turns.append(assistant("Got it."))
    assert any(decided in item for item in snapshot_session(turns).decisions)


@pytest.mark.parametrize("reply", ["改了以后，还是不行", "还是不行，报同样的错"])
def test_still_failing_decides_nothing(reply: str) -> None:
    """Found while testing this session's fixes: "改了以后" (after the change) read as 以后 (from now on), and
    "还是不行" (still failing) as turning something down."""
    turns = [user("修一下 ingest"), assistant("改好了，重跑一下？"), user(reply)]
    assert snapshot_session(turns).decisions == ()


@pytest.mark.parametrize("reply", ["以后都用 pnpm", "axios 不行，用 fetch"])
def test_from_now_on_and_turning_down_still_decide(reply: str) -> None:
    turns = [user("修一下 ingest"), assistant("改好了，重跑一下？"), user(reply)]
    assert snapshot_session(turns).decisions != ()


@pytest.mark.parametrize(
    ("said", "decided"),
    [
        ("looks right. dont apply, open the PR with Priya as reviewer", "don't apply"),
        ("Errors stay problem+json through the filter, dont hand-roll an envelope", "don't hand-roll an envelope"),
    ],
)
def test_a_contraction_typed_without_its_apostrophe_decides_as_one_with_it(said: str, decided: str) -> None:
    """Found in a fresh half whose author types fast: "dont apply" read as no prohibition at all."""
    turns = [user("DLQ alerting for the ocr queue"), assistant("Done — DLQ and alarm added; tests pass."), user(said)]
    turns.append(assistant("PR opened."))
    assert any(decided in item for item in snapshot_session(turns).decisions)


@pytest.mark.parametrize(
    ("reply", "taken", "gone"),
    [
        ("第一点可以。第二点不行，金额还是按整数分存，不要转 Decimal 存进库。", "去重键迁移改成", "Decimal` 存成"),
        ("第二点不行，金额还是按整数分存。第一点可以。", "去重键迁移改成一次性的脚本", "Decimal` 存成"),
        ("第1点不要，其他的可以。", "金额改用 `Decimal` 存成 TEXT", "去重键迁移改成"),
    ],
)
def test_an_item_the_reply_turns_down_by_its_place_is_no_decision(reply: str, taken: str, gone: str) -> None:
    # found in a fresh half: the reply took the first suggestion and turned down the second, and both were decided
    turns = [
        user("导入 10 月工行账单的时候报错了，麻烦帮我看看。"),
        assistant(
            "找到两个问题：\n\n1. **重复计算**：信用卡还款被记成了支出。\n2. **导入报错**：迁移撞上唯一约束。\n\n"
            "建议：\n"
            "- 去重键迁移改成一次性的脚本跑完就删，`import_file` 里不再做迁移；\n"
            '- 金额改用 `Decimal` 存成 TEXT（比如 "12680.32"），这样报表格式化的时候不会有精度问题。\n\n你看可以吗？'
        ),
        user(reply),
        assistant("好的，改好了。"),
    ]
    decisions = "; ".join(snapshot_session(turns).decisions)
    assert taken in decisions and gone not in decisions, decisions


def test_a_message_pasted_under_a_pointer_to_it_is_no_decision() -> None:
    # found in a fresh half: a colleague's chat message, pasted under "我贴一下：", reached the state as a decision
    turns = [
        user(
            "产品在钉钉上提了个需求，我贴一下：\n\n【钉钉 · 移动端需求群】刘婷 10-21 18:07\n"
            "@周敏 续保提醒弹窗：运营希望用户每次打开 App 都弹一次，保单到期前 30 天开始。\n\n"
            "每次打开都弹不行，太打扰用户了，续保弹窗一天最多弹一次。这个需求放 4.14 做。"
        ),
        assistant("好的，4.14 再做。"),
    ]
    decisions = "; ".join(snapshot_session(turns).decisions)
    assert "一天最多弹一次" in decisions and "每次打开 App 都弹一次" not in decisions, decisions


@pytest.mark.parametrize("said", ["10 月的报表多了一万五，我怀疑是重复算了。", "这个月好像多算了一笔，帮我查查。"])
def test_a_count_gone_wrong_is_no_thing_dropped(said: str) -> None:
    # found in a fresh half: "重复算了" (counted twice) read as "X 算了" (X dropped), a decision
    turns = [user(said), assistant("我先看一下。"), user("好的，谢谢。")]
    assert not snapshot_session(turns).decisions


@pytest.mark.parametrize(
    "said",
    [
        "啊，数据库密码贴出来了。刚才那一行不要记，也不要写进任何文件或者 commit message，我回头改掉。",
        "哎呀，刚才把 MATCH_PASSWORD 也贴进来了，麻烦别记下来，我回头去改掉。",
    ],
)
def test_an_ask_not_to_keep_a_paste_is_neither_decided_nor_next(said: str) -> None:
    # found in two fresh halves: the ask about a pasted secret was the session's next step, or a decision
    turns = [
        user("Jenkins 上打包失败了，帮我看下。"),
        assistant("是证书的问题，我改了 Matchfile。"),
        user(said),
        assistant("好的，不会写进任何文件。"),
    ]
    state = snapshot_session(turns)
    assert "记" not in "; ".join([*state.decisions, *state.next_steps]), state
