"""Session state: what the agent's turn reports done, read from how it captions and shows its changes."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.snapshot import snapshot_session
from tests.pipeline.test_snapshot import assistant, tool, user

ANNOUNCED = {
    "en": (
        "Make the core-api timeout 5 seconds, and put the requestId on every error log.",
        "Got it, I'll change two things:\n\n"
        "- Timeout: `coreClient.ts` reads `CORE_TIMEOUT_MS`, default 5000.\n"
        "- requestId: `pino-http` gives each request one, and error logs carry it.",
    ),
    "zh": (
        "core-api 超时改成 5 秒，另外 pino 打 error 的时候要带上 requestId",
        "明白，两件事一起改：\n\n"
        "1. 超时：`coreClient.ts` 里写死的 3000 抽到 `config.core.timeoutMs`，读 `CORE_TIMEOUT_MS`，默认 5000。\n"
        "2. requestId：接入 `pino-http`，错误日志带上 `requestId`。",
    ),
}


@pytest.mark.parametrize(("ask", "reply"), list(ANNOUNCED.values()), ids=list(ANNOUNCED))
def test_items_under_a_caption_that_announces_changes_are_done_once_the_tools_changed_files(
    ask: str, reply: str
) -> None:
    turns = [user(ask), assistant(reply), tool("Edit: /repo/src/lib/coreClient.ts"), user("ok thanks")]
    done = "; ".join(snapshot_session(turns).done)
    assert "CORE_TIMEOUT_MS" in done
    assert "pino-http" in done


@pytest.mark.parametrize(("ask", "reply"), list(ANNOUNCED.values()), ids=list(ANNOUNCED))
def test_items_under_a_caption_that_announces_changes_are_no_report_when_nothing_changed(ask: str, reply: str) -> None:
    turns = [user(ask), assistant(reply), user("ok thanks")]
    assert "CORE_TIMEOUT_MS" not in "; ".join(snapshot_session(turns).done)


@pytest.mark.parametrize(
    ("ask", "reply"),
    [
        ("we're on terraform 1.9.8 now, update the version files", "Both files → 1.9.8."),
        ("terraform 升到 1.9.8 了，帮我更新一下版本文件", "两个文件都 → 1.9.8。"),
    ],
    ids=["en", "zh"],
)
def test_report_names_the_dotfiles_its_tools_changed(ask: str, reply: str) -> None:
    turns = [
        user(ask),
        assistant(reply),
        tool("Edit: /repo/.terraform-version"),
        tool("Edit: /repo/atlantis.yaml"),
        user("ok thanks"),
    ]
    assert any(".terraform-version" in item and "atlantis.yaml" in item for item in snapshot_session(turns).done)


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        (
            "Updated the two places that still said 20:\n\n"
            "```diff\n--- a/.github/workflows/ci.yml\n+++ b/.github/workflows/ci.yml\n"
            "-          node-version: 20\n+          node-version: 22\n```\n\nNothing committed.",
            "`node-version: 22`",
        ),
        (
            "加好了。`FeatureFlags.swift` 里现有的 key 也都是 snake_case，我按同样的写法加了一个：\n\n"
            '```swift\n@FlagValue("enable_new_plan_page", default: false)\nvar enableNewPlanPage: Bool\n```\n\n'
            "`PlanTab` 里根据它切换新旧页面。",
            '`@FlagValue("enable_new_plan_page", default: false)`',
        ),
    ],
    ids=["en", "zh"],
)
def test_report_that_ends_over_code_shows_the_line_it_added(reply: str, shown: str) -> None:
    turns = [user("bump node and add the flag"), assistant(reply), tool("Edit: /repo/ci.yml"), user("ok thanks")]
    assert any(shown in item for item in snapshot_session(turns).done)


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        (
            "Added both keys to `Localizable.xcstrings`, with these translations:\n\n"
            "| key | zh-Hans | en |\n|---|---|---|\n| `checkin.success` | 打卡成功 | Checked in! |\n\n"
            "`CheckinView` reads them by key.",
            "`checkin.success` / 打卡成功 / Checked in!",
        ),
        (
            "加好了，两个 key 都在 `Localizable.xcstrings` 里，en 翻译如下：\n\n"
            "| key | zh-Hans | en |\n|---|---|---|\n| `checkin.success` | 打卡成功 | Checked in! |\n\n"
            "`CheckinView` 里按 key 取。",
            "`checkin.success` / 打卡成功 / Checked in!",
        ),
    ],
    ids=["en", "zh"],
)
def test_report_that_ends_over_a_table_shows_its_first_row(reply: str, shown: str) -> None:
    turns = [user("加一下打卡文案"), assistant(reply), tool("Edit: /repo/Localizable.xcstrings"), user("ok thanks")]
    assert any(shown in item for item in snapshot_session(turns).done)


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        (
            "Don't ignore it, it becomes an error in Swift 6. Mark `PlanListViewModel` `@MainActor`, iOS 16 has it:\n\n"
            "```diff\n+@MainActor\n final class PlanListViewModel: ObservableObject {\n```\n\nThe warning is gone.",
            "Mark `PlanListViewModel` `@MainActor`, iOS 16 has it — The warning is gone",
        ),
        (
            "别忽略，Swift 6 模式下会变 error。给 `PlanListViewModel` 加 `@MainActor` 就行，iOS 16 可用：\n\n"
            "```diff\n+@MainActor\n final class PlanListViewModel: ObservableObject {\n```\n\nwarning 没了。",
            "给 `PlanListViewModel` 加 `@MainActor` 就行，iOS 16 可用 — warning 没了",
        ),
    ],
    ids=["en", "zh"],
)
def test_check_right_under_the_code_a_change_shows_names_that_change(reply: str, shown: str) -> None:
    turns = [
        user("这个 warning 能忽略吗?"),
        assistant(reply),
        tool("Edit: /repo/PlanListViewModel.swift"),
        user("ok"),
    ]
    assert any(item.startswith(shown) for item in snapshot_session(turns).done)


@pytest.mark.parametrize(
    ("reply", "own"),
    [
        (
            "It did: `make_feedback.py` pasted the whole `pytest -rA` output into every student's file, which "
            "includes the assertion messages with the expected values. I changed it to list only the failed test "
            "names mapped to their rubric items.",
            "rubric items",
        ),
        (
            "sqlfluff 报了两处：`QUALIFY ... OVER ... PARTITION BY` 写成了大写，`fct_orders.sql` 第 42 行"
            "还少了一个空格，另外 `dim_customers.sql` 里的 CTE 名字也不符合我们的命名规范，一共三个文件都被它标出来了。"
            "两处都修好了，lint 现在是干净的。",
            "lint 现在是干净的",
        ),
    ],
    ids=["en", "zh"],
)
def test_report_of_those_keeps_room_for_its_own_words(reply: str, own: str) -> None:
    turns = [user("does the feedback include the pytest output?"), assistant(reply), user("ok lgtm")]
    assert any(own in item for item in snapshot_session(turns).done)


@pytest.mark.parametrize(
    ("reply", "own"),
    [
        (
            "Done. Here's what I changed and why:\n\n"
            "`ock auth refresh` reads the token with `op read` from 1Password and writes the keychain entry.\n\n"
            "Ran it: refreshed, and the ack went through.",
            "`ock auth refresh` reads the token with `op read` from 1Password",
        ),
        (
            "改好了。改动如下：\n\n"
            "`ock auth refresh` 用 `op read` 从 1Password 取 token，校验通过后再写进 keychain。\n\n"
            "跑了一下，ack 成功了。",
            "`ock auth refresh` 用 `op read` 从 1Password 取 token",
        ),
    ],
    ids=["en", "zh"],
)
def test_paragraph_under_a_bare_done_is_what_was_done(reply: str, own: str) -> None:
    turns = [user("add `ock auth refresh` that pulls the token with op read"), assistant(reply), user("thanks")]
    assert any(own in item for item in snapshot_session(turns).done)


@pytest.mark.parametrize(
    ("reply", "own"),
    [
        # found in tuning halves: "Done — <the person's whole ask>" stood for what the next sentence says
        ("Done. Gateway is back on -Os; the mbedTLS libraries get -O2. Committed as `gateway: size opts`.",
         "Gateway is back on -Os; the mbedTLS libraries get -O2"),
        ("改好了。我在 `ab_report.py` 里新增了 `bootstrap_ci()`，每个指标做 1000 次 bootstrap 求 95% CI。",
         "我在 `ab_report.py` 里新增了 `bootstrap_ci()`"),
    ],
    ids=["en", "zh"],
)  # fmt: skip
def test_sentence_after_a_bare_done_is_what_was_done(reply: str, own: str) -> None:
    ask = "Let's go back to CONFIG_SIZE_OPTIMIZATIONS for the gateway, and -O2 only for the mbedtls library."
    done = snapshot_session([user(ask), assistant(reply), user("thanks")]).done
    assert any(item.startswith(own) for item in done)
    assert not any("Let's go back" in item for item in done)  # the ask is not what was done


def test_paragraphs_after_a_bare_done_keep_their_own_reports() -> None:
    reply = "Done. The gateway image is 1.72 MB now.\n\nI also committed it as `gateway: size opts`."
    done = snapshot_session([user("go back to size optimizations"), assistant(reply), user("ok")]).done
    assert done == ("The gateway image is 1.72 MB now", "I also committed it as `gateway: size opts`")


def test_suggestion_after_a_bare_done_is_not_what_was_done() -> None:
    reply = "改好了。顺便建议：以后可以把所有图片都放在 static/images 下面，并且统一压缩成 webp，这样加载更快。"
    done = snapshot_session([user("把首页的 banner 图换成新的"), assistant(reply), user("好")]).done
    assert done and not any("static/images" in item for item in done)


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        (
            "Service port = containerPort in fx-quotes and in `_template`; stale comment removed.",
            "Service port = containerPort in fx-quotes",
        ),
        ("values-prod.yaml：`minReplicas: 2`，`maxReplicas: 4`。", "values-prod.yaml：`minReplicas: 2`"),
    ],
    ids=["en", "zh"],
)
def test_value_a_turn_sets_with_its_tools_is_done(reply: str, shown: str) -> None:
    turns = [
        user("service port = container port, and min 2 replicas in prod"),
        assistant(reply),
        tool("Edit: /repo/charts/fx-quotes/values-prod.yaml"),
        user("thx"),
    ]
    assert any(item.startswith(shown) for item in snapshot_session(turns).done)


def test_value_a_turn_names_without_changing_anything_is_no_report() -> None:
    turns = [user("what is the service port?"), assistant("Service port = containerPort, 8443."), user("thx")]
    assert snapshot_session(turns).done == ()


@pytest.mark.parametrize(
    ("announce", "pick"),
    [
        ("有 2 个旧测试还在断言返回的是数组。我来更新这两个测试。", "cursor 吧，默认每页 20，最多 50"),
        ("Two old tests still assert a list. Let me update those two tests.", "cursor, default 20 per page, max 50"),
    ],
)
def test_a_report_that_announces_what_it_does_is_not_glued_to_the_ask(announce: str, pick: str) -> None:
    turns = [
        user("给 GET /reviews 加分页"),
        assistant("offset 还是 cursor？你看用哪种？"),
        user(pick),
        tool("Edit: /code/api/src/reviews/reviews.service.ts"),
        assistant("实现好了：`GET /reviews?cursor=<id>&limit=20`。"),
        tool("Bash: pnpm test -- reviews"),
        assistant(announce),
        tool("Edit: /code/api/src/reviews/reviews.controller.spec.ts"),
    ]
    done = snapshot_session(turns).done
    assert not any(("update" in item or "更新" in item) and pick in item for item in done), done


def test_a_chinese_report_naming_its_own_work_takes_no_reminder_beside_it() -> None:
    # the last message before the report restates a rule; the report names what it did in Latin words
    turns = [
        user("下周一之前要把 refund 接口做完"),
        assistant("好的，我先写 handler。"),
        user("错误码还是老规矩，snake_case 字符串"),
        assistant("refund 的 handler 和测试都写好了，make test-race 通过。"),
        user("好，今天先到这"),
    ]
    done = "; ".join(snapshot_session(turns).done)
    assert "refund 的 handler 和测试都写好了" in done
    assert "snake_case" not in done


@pytest.mark.parametrize(
    ("rule", "report", "done"),
    [
        (
            "error codes stay snake_case strings as usual",
            "The refund handler and its tests are written; make test-race passes.",
            "The refund handler and its tests are written",
        ),
        ("错误码照老规矩来，snake_case 字符串", "退款的处理函数和测试都写好了。", "退款的处理函数和测试都写好了"),
    ],
    ids=["en", "zh"],
)
def test_a_report_after_a_rule_said_again_is_done_without_it(rule: str, report: str, done: str) -> None:
    # "as usual" / "老规矩": the person restates a rule; it asks for no work, so no report answers it
    turns = [
        user("The refund endpoint has to be done before Monday."),
        assistant("OK, starting on the handler."),
        user(rule),
        assistant(report),
        user("ok, that's it for today"),
    ]
    shown = "; ".join(snapshot_session(turns).done)
    assert done in shown
    assert "snake_case" not in shown


def test_a_report_that_ends_on_its_own_dash_joins_the_ask_with_one() -> None:
    """Read in a fresh session's state: "已经开始写了—— — PagerDuty 那边…" carried two dashes."""
    turns = [
        user("PagerDuty 那边最近老是 429，handoff 跑到一半就挂，给 `PdClient.request` 加 retry。"),
        assistant("我准备这样改：新增 `src/retry.ts`，在 `client.ts` 里包一层。已经开始写了——"),
        tool("Edit: src/retry.ts"),
        user("ok"),
    ]
    (done,) = snapshot_session(turns).done
    assert done.startswith("已经开始写了 — PagerDuty") and "—— —" not in done


@pytest.mark.parametrize(
    ("report", "named"),
    [("Draft PR #233 is open from cy/orders-chart-tz.", "#233"), ("cy/fct-revenue 的 draft PR #421 開好了。", "#421")],
    ids=["en", "zh-hant"],
)
def test_pull_request_opened_is_done(report: str, named: str) -> None:
    turns = [
        user("Fix the chart labels."),
        assistant("Both charts now call `formatInTimeZone`."),
        user("Push it and open the draft."),
        assistant(report),
        user("👍"),
    ]
    assert named in "; ".join(snapshot_session(turns).done)


@pytest.mark.parametrize(
    ("report", "named"),
    [
        ("生成了 `reports/out/EXP-4417_mid_20261007.md`。", "EXP-4417_mid_20261007.md"),
        ("导出了 `~/Downloads/ch_top20.csv`，20 行。", "ch_top20.csv"),
        ("我在 `ab_report.py` 里新增了 `bootstrap_ci()`，对每个指标求 95% CI。", "bootstrap_ci"),
        # without a perfective verb (tune26)
        ("wrapper 搬到 `internal/stats/record.go`，`internal/db` 重新 generate。", "internal/stats/record.go"),
        ("00007 還原了，player_stats 的表放在新的 migration 裡。", "00007 還原了"),
        ("`db/query/player_stats.sql` 加了 `UpsertPlayerStats`，`sqlc generate` 過。", "UpsertPlayerStats"),
    ],
    ids=["generated", "exported", "added", "moved-to", "restored", "command-passed"],
)
def test_chinese_reports_of_made_things_are_done(report: str, named: str) -> None:
    turns = [user("今天先把 md 生成出来。"), assistant(report), user("好。")]
    assert named in "; ".join(snapshot_session(turns).done)


def test_cantonese_report_is_done() -> None:
    turns = [
        user("本地用 config.settings.local，唔系 config.settings.dev。"),
        assistant("`.env.example` 改咗做 `config.settings.local`。用 `make test` reproduce 到。"),
        user("得。"),
    ]
    assert "config.settings.local" in "; ".join(snapshot_session(turns).done)


def test_cantonese_bare_report_borrows_the_ask() -> None:
    turns = [
        user("金额换算一律用 Decimal，quantize 到两位，ROUND_HALF_UP。"),
        assistant("改好。"),
        user("得，唔该。"),
    ]
    assert "ROUND_HALF_UP" in "; ".join(snapshot_session(turns).done)


@pytest.mark.parametrize(
    ("put_in", "taken_out"),
    [
        ("加了 `github.com/ulule/limiter/v3`，用它的 chi middleware，掛在 `POST /v1/auth/login`。", "limiter 拿掉了。"),
        ("Added `axios-retry` and wired it into the API client.", "Removed axios-retry again."),
    ],
    ids=["zh-hant", "en"],
)
def test_a_thing_put_in_and_taken_out_again_is_no_work_done(put_in: str, taken_out: str) -> None:
    turns = [
        user("login 要加 rate limit。"),
        assistant(put_in),
        user("自己寫就好，拿掉。"),
        assistant(taken_out),
        user("OK。"),
    ]
    done = "; ".join(snapshot_session(turns).done)
    assert taken_out.rstrip("。.") in done
    assert put_in[:8] not in done


@pytest.mark.parametrize(
    ("offer", "yes", "report", "offered"),
    [
        ("1 job: `scvi_benchmark`, gpu-long, 720 min, 1 GPU, 64 GB. Submit?", "go", "Submitted.", "gpu-long"),
        ("Branch feat/retry is ready, 3 commits. Push it?", "yes", "Pushed.", "feat/retry"),
        ("两个 commit 都在 feat/retry 上了，要推吗？", "好", "已推送。", "feat/retry"),
    ],
    ids=["en-submit", "en-push", "zh-push"],
)
def test_a_bare_report_after_a_yes_reports_what_the_question_offered(
    offer: str, yes: str, report: str, offered: str
) -> None:
    turns = [
        user("Rerun scvi_benchmark on its own and get the retry branch out."),
        assistant(offer),
        user(yes),
        assistant(report),
        user("ok, thanks"),
    ]
    assert any(offered in item for item in snapshot_session(turns).done), snapshot_session(turns).done


def test_a_push_the_person_asked_for_leaves_the_step_they_take_next() -> None:
    turns = [
        user("Split the eks 1.30 change into two commits, one per environment."),
        assistant("Split into two commits on feat/eks-1.30. Push?"),
        user("push feat/eks-1.30, I'll open the PR so the plan runs in CI"),
        assistant("Pushed."),
    ]
    assert any("open the PR" in step for step in snapshot_session(turns).next_steps)


@pytest.mark.parametrize(
    ("ask", "reply", "done"),
    [
        (
            "CI is red again. Fix it.",
            "`clinikoUrl` is optional in `lib/clinics.ts` because the Brunswick entry doesn't have one yet. "
            "`BookingCTA` now falls back to the main booking page (`BOOKING_FALLBACK_URL`) when it's missing.",
            "BOOKING_FALLBACK_URL",
        ),
        (
            "Swap Formspree for a Resend route handler.",
            "Contact form now posts to `/api/contact`. The route handler validates name, email and message.",
            "/api/contact",
        ),
        (
            "Switch the hero to next/image.",
            "Hero is now `next/image` with `priority` and AVIF from the image optimizer; the 812 KiB JPEG becomes "
            "a 140 KiB AVIF.",
            "next/image",
        ),
    ],
)
def test_a_reply_that_says_what_the_code_now_does_reports_it_done(ask: str, reply: str, done: str) -> None:
    snapshot = snapshot_session([user(ask), assistant(reply), user("thanks")])
    assert any(done in item for item in snapshot.done), snapshot.done


def test_what_now_goes_wrong_is_no_report_of_work_done() -> None:
    snapshot = snapshot_session(
        [user("Bump next to 14.2."), assistant("The build now fails with `Module not found: next/font`."), user("hm")]
    )
    assert not any("Module not found" in item for item in snapshot.done), snapshot.done


def test_a_report_item_is_read_past_the_file_it_names() -> None:
    reply = (
        "commit 已撤，改动在暂存区。\n"
        "- `model/metrics.py`：新增 `gauc(user_ids, labels, preds)`，只统计正负样本都有的 user\n"
        "- calibration 目前在 `serving/calibrate.py` 里做，没动。"
    )
    snapshot = snapshot_session([user("加一个 GAUC 指标，别帮我 commit"), assistant(reply), user("好")])
    assert any("gauc(" in item for item in snapshot.done), snapshot.done


def test_changes_to_two_files_told_alike_are_two_pieces_of_work() -> None:
    """Found in a fresh half: "`Appfile`: app_identifier(…)" read as a near duplicate of the "`Matchfile`: …" line
    after it, so the fix the person asked for by name was not among what was done."""
    turns = [
        user("Fix the Appfile and whatever else still says the old bundle id."),
        assistant(
            'Fixed:\n\n- `Appfile`: `app_identifier("health.kestrel.app")`\n'
            '- `Matchfile`: `app_identifier(["health.kestrel.app"])`\n- `Fastfile`: no hardcoded identifier left.'
        ),
    ]
    done = snapshot_session(turns).done
    assert any(item.startswith("`Appfile`") for item in done), done
    assert any(item.startswith("`Matchfile`") for item in done), done


@pytest.mark.parametrize(
    "report",
    ["The run went through: lint, signing, archive and upload all passed.", "The CI run went through, all green."],
)
def test_a_run_that_went_through_is_done(report: str) -> None:
    """Found in a fresh half: "The run went through: …" after the person pushed was not read as a report at all."""
    turns = [user("Commit the fix, I'll push, then watch the run with gh."), assistant("Committed."), user("pushed")]
    turns.append(assistant(report))
    assert any("went through" in item for item in snapshot_session(turns).done)


@pytest.mark.parametrize(
    ("report", "named"),
    [
        ("已提交 `chore: rename tests`；csv 在 `~/Downloads/ch_top20_queries_0917.csv`（20 行）。", "ch_top20_queries"),
        ("Committed. The CSV is at ~/Downloads/top20.csv (20 rows).", "top20.csv"),
    ],
    ids=["zh", "en"],
)
def test_where_the_file_asked_for_now_is_is_done(report: str, named: str) -> None:
    """Found in a fresh half: "csv 在 `~/Downloads/…csv`（20 行）" answered "帮我导个 csv 到 ~/Downloads" and was no
    report; saying where a thing is, though, is none: "the settings are in config/settings.toml"."""
    turns = [user("commit 一下，query_log 那张 top 20 的结果顺手帮我导个 csv 到 ~/Downloads。"), assistant(report)]
    assert any(named in item for item in snapshot_session(turns).done)
    turns = [user("where do the settings live?"), assistant("The settings are in config/settings.toml.")]
    assert snapshot_session(turns).done == ()


@pytest.mark.parametrize(
    ("report", "named"),
    [
        ("Entity, DAO, `MIGRATION_7_8`, `OfflineConfig` (500 MB / 200 MB under 3 GB RAM) are in.", "OfflineConfig"),
        ("All green (1 skipped). Mock URL now `10.0.2.2:8080`.", "10.0.2.2:8080"),
    ],
    ids=["are-in", "now-code"],
)
def test_work_that_is_in_or_now_holds_a_new_value_is_done(report: str, named: str) -> None:
    """Found in a fresh half: "… `OfflineConfig` (…) are in." and "Mock URL now `10.0.2.2:8080`." read as no report."""
    turns = [user("Add the offline regions entity and point the mock at the emulator host."), assistant(report)]
    assert any(named in item for item in snapshot_session(turns).done)


@pytest.mark.parametrize(
    ("report", "named"),
    [
        ("`status` revert 咗，migration 重新生成做 `0042_add_refund_reason.py`。", "0042_add_refund_reason"),
        ("冇 Jira 单。开咗 branch `ci/pin-postgres-15`，改动喺度，未 commit。", "ci/pin-postgres-15"),
        ("写好 `apps/refunds/management/commands/backfill_refund_reason.py` 同 test。", "backfill_refund_reason"),
        ("fixture 改返 `datetime(2026, 4, 21, 3, 0, tzinfo=timezone.utc)`。15 passed。", "tzinfo=timezone.utc"),
    ],
    ids=["verb-le", "opened", "written", "changed-back"],
)
def test_reports_in_cantonese_and_mixed_forms_are_done(report: str, named: str) -> None:
    """Found in a fresh half written in Cantonese: "revert 咗", "开咗 branch", "写好 …" and "改返 …" read as no
    report, where "改咗" already was one."""
    turns = [user("帮我搞掂呢个 migration 同 fixture。"), assistant(report)]
    assert any(named in item for item in snapshot_session(turns).done)


def test_a_person_asking_to_change_a_value_back_reports_nothing() -> None:
    turns = [user("好。"), assistant("要我改吗？"), user("fixture 改回 `UTC` 吧")]
    assert snapshot_session(turns).done == ()


def test_what_the_edited_code_now_does_is_done() -> None:
    """Found in a fresh half: "`components/HeroVideo.tsx` renders the poster with `next/image` …", said after the
    tools wrote that file, was no report; "`HeroVideo` is a client component" says what a thing is, not what was
    done, and a turn whose tools changed nothing reports nothing by it."""
    reply = (
        "`components/HeroVideo.tsx` renders the poster with `next/image` and a play button overlay; on click it "
        "swaps in the `<video>`. `HeroVideo` is a client component."
    )
    turns = [
        user("make the hero a click-to-play video"),
        assistant(reply),
        tool("Edit: /repo/components/HeroVideo.tsx"),
    ]
    done = snapshot_session([*turns, user("ok thanks")]).done
    assert any(item.startswith("`components/HeroVideo.tsx` renders") for item in done), done
    assert not any("client component" in item for item in done), done
    assert snapshot_session([user("what does the hero do?"), assistant(reply), user("ok thanks")]).done == ()


@pytest.mark.parametrize(
    ("report", "named"),
    [
        ('Both envs on `cluster_version = "1.30"`, committed on `feat/eks-1.30` (not pushed).', "feat/eks-1.30"),
        ("Swapped the uploader.\n\n- New `internal/b2/s3.go`: `s3Uploader` on `aws-sdk-go-v2`.", "b2/s3.go"),
    ],
    ids=["committed-on", "new-code"],
)
def test_a_commit_on_a_branch_and_new_code_are_done(report: str, named: str) -> None:
    """Found in a fresh half: "…, committed on `feat/eks-1.30` (not pushed)" and "New `internal/b2/s3.go`: …" read
    as no report."""
    turns = [user("bump both envs to 1.30 and move the uploader to the S3 API"), assistant(report)]
    assert any(named in item for item in snapshot_session(turns).done)


def test_a_bare_report_answers_the_ask_not_the_rule_said_with_it() -> None:
    """Found in a fresh half: "测试和 clippy 都过了" was shown with "写 Rust 的时候别动不动就 unwrap()…", the rule said
    on the way, instead of the ask after it ("…顺手改掉，加个 context")."""
    ask = (
        "对了，写 Rust 的时候别动不动就 unwrap()，应用代码里 error 一律用 anyhow 往上抛。"
        "上面那个 depots_near(...).await.unwrap() 顺手改掉，加个 context。"
    )
    done = snapshot_session([user(ask), assistant("测试和 clippy 都过了。"), user("好")]).done
    assert any("顺手改掉" in item for item in done), done
    assert not any("写 Rust 的时候" in item for item in done), done


def test_a_diff_whose_code_has_question_marks_still_says_what_changed() -> None:
    """Found in a fresh half: Rust's `?` in the diff and in "unwrap 换成 `?` + context" read as a question, so a
    reply of a diff and two lines of why reported nothing."""
    reply = (
        "```diff\n-        let depots = self.repo.depots_near(req.origin).await.unwrap();\n"
        '+        let depots = self.repo.depots_near(req.origin).await.context("depots_near failed")?;\n```\n'
        "`once_cell` 已在依赖树里，1.79 可编译；unwrap 换成 `?` + context。"
    )
    done = snapshot_session([user("unwrap 改掉，加个 context"), assistant(reply), user("ok")]).done
    assert any(item.startswith("Changed") and "depots_near" in item for item in done), done


@pytest.mark.parametrize(
    ("reply", "edited", "shown"),
    [
        (
            "关于 Intl.DurationFormat：Node 22 里没有，时长我用一个小函数自己格式化。\n\n"
            "时间显示方面，我加一个 `src/time.ts`：`fmtLocal(d)` 按 Asia/Shanghai 显示，PD 请求那里保持 UTC。",
            "/repo/src/time.ts",
            "时间显示方面，我加一个 `src/time.ts`",
        ),
        (
            "Plan is one in-place change on the node group's `scaling_config` (3→4 desired, 3→5 max), nothing else.",
            "/repo/live/prod/eks/terragrunt.hcl",
            "Plan is one in-place change on the node group's `scaling_config` (3→4 desired, 3→5 max), nothing else "
            "(terragrunt.hcl)",
        ),
        ("明白，按 1.22 的写法来，只动 ETA 接口相关的代码。", "/repo/internal/api/vessels.go", "Edited vessels.go"),
    ],
    ids=["names-the-file", "result", "acknowledges"],
)
def test_files_the_tools_changed_are_done_when_the_words_report_nothing(reply: str, edited: str, shown: str) -> None:
    """Found in a fresh half: turns whose tools wrote files said what they did as a plan ("我加一个 `src/time.ts`")
    or as a result ("Plan is one in-place change …"), and the session's done was empty. A sentence that names a
    changed file says what was done; else the first one, with the files; after an acknowledgement, the files."""
    turns = [user("统一一下时间显示，顺手把 node group 扩一下"), assistant(reply), tool(f"Edit: {edited}"), user("ok")]
    done = snapshot_session(turns).done
    assert any(item.startswith(shown) for item in done), done


def test_files_changed_are_no_work_done_when_the_person_takes_them_back() -> None:
    turns = [
        user("统一一下时间显示"),
        assistant("时间显示方面，我加一个 `src/time.ts`：`fmtLocal(d)` 按 Asia/Shanghai 显示。"),
        tool("Edit: /repo/src/time.ts"),
        user("不要加新文件，改回去"),
    ]
    assert not any("time.ts" in item for item in snapshot_session(turns).done)


def test_a_commit_the_tool_output_shows_is_done_with_its_hash() -> None:
    """Found in a fresh half: "Committed on feature/…: geo: bound GEORADIUS …" named no commit an agent could look
    up; git's own line in the tool's output names it ("[feature/geo-timeout 3e8d1f0] …"), amended or not."""
    turns = [
        user("commit it"),
        assistant("Committing."),
        tool('Bash: git checkout -b feature/geo-timeout && git commit -am "geo: bound GEORADIUS"'),
        tool("git-commit: [feature/geo-timeout 3e8d1f0] geo: bound GEORADIUS"),
        user("ok"),
    ]
    done = snapshot_session(turns).done
    assert done == ("Committed `3e8d1f0` on feature/geo-timeout: geo: bound GEORADIUS",), done


def test_each_row_of_a_table_of_changed_files_is_done() -> None:
    """Found in a fresh half: a reply that told its work as a "| File | Change |" table gave only "`pnpm test` → 208
    passed" as done."""
    reply = (
        "| File | Change |\n|---|---|\n"
        "| `prisma/schema.prisma` | `OutboxEvent` model (`id`, `payload Json`, `publishedAt?`) |\n"
        "| `src/main.ts` | pino `redact`: `*.claimant.name`, `*.claimant.dob` |\n"
        "| p95 | 812 ms |\n\n"
        "`pnpm test` → 208 passed."
    )
    turns = [user("ok go with the outbox thing"), assistant(reply), tool("Edit: /repo/src/claims/claims.service.ts")]
    done = snapshot_session([*turns, user("nice")]).done
    assert any(item.startswith("`prisma/schema.prisma`: `OutboxEvent` model") for item in done), done
    assert any(item.startswith("`src/main.ts`: pino `redact`") for item in done), done
    assert not any(item.startswith("p95") for item in done), done  # a row that names no file
    turns[2] = tool("Read: /repo/src/claims/claims.service.ts")  # nothing changed: the table is a plan
    assert not any("OutboxEvent" in item for item in snapshot_session([*turns, user("nice")]).done)


@pytest.mark.parametrize(
    "item",
    [
        "`checkin_live.ex` + template: one search box, result cards and a full-width `CHECK IN` button",
        "`mix pantry.forget_client` now also runs `Oban.Job |> Repo.delete_all()` inside the same transaction",
    ],
)
def test_a_list_item_led_by_the_file_or_command_the_tools_changed_is_done(item: str) -> None:
    """Found in a fresh half: a caption-less list of what each file now holds reported nothing done."""
    turns = [
        user("check-in screen, and forget_client must delete the oban jobs too"),
        assistant(f"- {item}\n\n`mix test` → 71 tests, 0 failures."),
    ]
    turns += [tool("Edit: /repo/lib/mix/tasks/pantry.forget_client.ex"), user("nice")]
    done = snapshot_session(turns).done
    assert any(said.startswith(item[:20]) for said in done), done


def test_a_bare_report_answers_the_ask_typed_in_lower_case_after_an_introduction() -> None:
    """Found in a fresh half: "Started on it"-style reports took the opening's introduction ("ok side project time.
    this is the app I built …") for the ask, as no sentence typed in lower case was read apart."""
    opening = (
        "ok side project time. this is the app I built for the pantry. runs on port 4001 locally.\n\n"
        "tonight: the booking page. clients pick a slot from a plain <select> with 40 options. want a grid of "
        "buttons instead, grouped by hour."
    )
    done = snapshot_session([user(opening), assistant("改好了。"), user("thanks")]).done
    assert any("want a grid of buttons" in item for item in done), done
    assert not any("side project" in item for item in done), done


def test_a_commit_said_in_chinese_with_its_english_verb_is_done() -> None:
    """Found in a fresh half: "已本地 commit `4e7b1c9`，没 push。" was no report of work done, so the commit's hash was
    nowhere in the state."""
    turns = [
        user("commit 吧 本地 commit 就行 push 永远我自己来"),
        assistant("已本地 commit `4e7b1c9`，没 push。明天看 CAN。"),
    ]
    assert any("4e7b1c9" in item for item in snapshot_session(turns).done), snapshot_session(turns)
