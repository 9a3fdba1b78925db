"""Session state: a session that ends waiting on someone, or on a named later time, says so as its next step."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.snapshot import snapshot_session
from tests.pipeline.test_snapshot import assistant, user


def test_a_hold_until_someone_reviews_is_the_next_step_and_stays_decided() -> None:
    """Found in a fresh half: "Don't run it now though, the migration PR needs Meng Fan's review first" left
    next empty; read as a step, its "it" must not turn it into the deploy command it holds back."""
    turns = [
        user("Need a migration for a route_plan_audit table, with its down.sql."),
        assistant("Round trip works, 227/227 tests pass. Anything else before I commit?"),
        user(
            "Commit. For the record, since I keep forgetting myself: staging deploys go through "
            "`make deploy-staging` — it runs helm upgrade into logi-staging with deploy/helm/values-staging.yaml. "
            "Don't run it now though, the migration PR needs Meng Fan's review first."
        ),
        assistant("Committed; not deploying."),
    ]
    snapshot = snapshot_session(turns)
    assert any("Meng Fan" in step for step in snapshot.next_steps), snapshot.next_steps
    assert not any("make deploy-staging" in step for step in snapshot.next_steps), snapshot.next_steps
    assert any("Meng Fan" in item for item in snapshot.decisions), snapshot.decisions


@pytest.mark.parametrize(
    ("closing", "who"),
    [
        ("好，等思琪 review。", "思琪"),
        ("ok, waiting on Priya's review now", "Priya"),
        ("perfect. pushed + opened, priya reviews tmrw.", "priya"),
    ],
    ids=["zh", "en", "tmrw"],
)
def test_a_session_left_waiting_on_a_review_says_whose(closing: str, who: str) -> None:
    """Found in a tuning half: "好，等思琪 review。" was too short to be read, and "tmrw" was no later time."""
    turns = [
        user("commit message 写英文。然后开 draft PR 给思琪。"),
        assistant("push 了，draft PR #236，reviewer @siqi-huang。"),
        user(closing),
    ]
    assert any(who in step for step in snapshot_session(turns).next_steps)


@pytest.mark.parametrize(
    ("reply", "closing", "named"),
    [
        ("改好了，只做了 rename，`pytest` 全过。", "👍 今天 backtest 先不跑了，明天再说。", "backtest"),
        ("`goose up` 跑完了。slog 要現在換嗎？", "slog 那個另外開 branch 慢慢換，今天先這樣。謝啦 🙏", "slog"),
        ("tests 過了。", "OK 先這樣，Retry-After 那個 header 晚點我自己用 curl 測。", "Retry-After"),
    ],
    ids=["put-off", "own-branch", "later-myself"],
)
def test_work_put_off_to_a_later_time_is_the_next_step(reply: str, closing: str, named: str) -> None:
    """Found in fresh and tuning halves: "先不跑了，明天再说" was only a decision, "另外开 branch 慢慢换" named no
    time, and "先这样" before "晚点我自己…测" read as leaving."""
    turns = [user("rename 就行，测试里的 fixture 也一起改。"), assistant(reply), user(closing)]
    assert any(named in step for step in snapshot_session(turns).next_steps)


def test_a_habit_on_a_weekday_is_decided_not_next() -> None:
    """Found in a tuning half: "每周一晚上我手动跑一下就行" turns the offered timer down for good; it is no step."""
    turns = [
        user("ingest 挂了，修一下"),
        assistant("改好了，重跑 ingest：6,412 行。要不要顺便加个 systemd timer，让 Pi 每天自动跑 ingest？"),
        user("不用 timer，数据一个月才更新几次，每周一晚上我手动跑一下就行。commit 吧"),
        assistant("已 commit 到 `main`。"),
        user("thanks 睡了"),
    ]
    snapshot = snapshot_session(turns)
    assert snapshot.next_steps == ()
    assert any("每周一" in item for item in snapshot.decisions)


def test_a_report_that_says_when_a_job_runs_next_is_done() -> None:
    """Found in a tuning half: "timer 已 enable：下次运行是明早 07:00" was read as a step for tomorrow."""
    turns = [
        user("timer 你直接装到 Pi 上吧，顺便把今天的改动 deploy 了。"),
        assistant("已 commit 并部署到 `pi5.local`，timer 已 enable：下次运行是明早 07:00。"),
        user("thanks"),
    ]
    snapshot = snapshot_session(turns)
    assert snapshot.next_steps == ()
    assert any("07:00" in item for item in snapshot.done)


@pytest.mark.parametrize(
    "closing",
    ["以后 PR 一律等思琪 review 完再合", "好，先这样，下午我去弄预测那边", "今天先到这，下午要去给陈桐讲 backtest"],
    ids=["rule", "leaving", "leaving-to-talk"],
)
def test_rules_and_leaving_are_no_step(closing: str) -> None:
    turns = [user("修一下测试"), assistant("修好了，已 commit。"), user(closing)]
    assert snapshot_session(turns).next_steps == ()


@pytest.mark.parametrize(
    ("said", "decided"),
    [
        (
            "not sendgrid, that key in .env.example is dead. we moved email to Resend, the key is RESEND_API_KEY, "
            "from address reports@stockpilot.app. fix .env.example while you're at it.",
            "Resend",
        ),
        ("morning. develop is gone as of today, so the v3 pr goes against main. rebase it on origin/main.", "main"),
    ],
    ids=["moved-to", "as-of-today"],
)
def test_a_change_of_plan_the_person_reports_is_decided(said: str, decided: str) -> None:
    """Found in tuning halves: "we moved email to Resend" and "develop is gone as of today" set how things go
    now, and neither was among the session's decisions."""
    turns = [
        user("add the weekly email report"),
        assistant("Should I send it through SendGrid? There's a key in .env.example."),
        user(said),
        assistant("Done: switched the report to Resend and rebased on origin/main."),
    ]
    assert any(decided in item for item in snapshot_session(turns).decisions)


def test_a_change_named_as_the_step_for_later_stays_the_next_step() -> None:
    turns = [
        user("把集合点加到活动详情页"),
        assistant("改好了，测试过了。"),
        user("PR 开到 yf/meeting-point。下一步把分享图的字体换成跑团那套（站酷快乐体），下周弄。"),
        assistant("PR #17 已开（`yf/meeting-point`）。"),
    ]
    assert any("站酷快乐体" in step for step in snapshot_session(turns).next_steps)


@pytest.mark.parametrize(
    ("closing", "named"),
    [
        ("Perfect. One commit for all of it. Marcus reviews this before it goes anywhere near prod.", "Marcus"),
        ("Thanks. Priya will review it before it goes to prod.", "Priya"),
        ("open it but don't merge, Ravi needs to look at the hook first — 0042 is his migration", "Ravi needs"),
        ("no, merge after Ravi approves, then we watch the 5xx dashboard for an hour.", "after Ravi approves"),
    ],
    ids=["reviews", "will-review", "looks-first", "merge-after"],
)
def test_someone_reviewing_the_work_before_it_goes_on_is_the_next_step(closing: str, named: str) -> None:
    """Found in fresh halves: "Marcus reviews this before it goes anywhere near prod" was no step at all, and its
    "this" is the whole work, not the sentence before it ("One commit for all of it"); nor were "Ravi needs to look at
    the hook first" and "merge after Ravi approves", which hold the merge for a named reviewer."""
    turns = [
        user("Convert the migrations to goose and keep the numbering."),
        assistant("Converted the 16 pairs; `make test` is green."),
        user(closing),
        assistant("Committed as one commit."),
    ]
    steps = snapshot_session(turns).next_steps
    assert any(named in step for step in steps), steps
    assert not any("One commit" in step for step in steps), steps


def test_a_request_the_person_opens_themselves_is_the_next_step() -> None:
    """Found in a fresh half: "行，MR 我自己提" names a step of its own, where a bare "好的 我自己提" (the agent's
    commit) names none (test_snapshot_closing)."""
    turns = [
        user("poetry 迁到 uv，CI 也改成 uv sync --frozen。"),
        assistant("已提交：`chore: migrate dependency management from poetry to uv`。"),
        user("行，MR 我自己提。"),
    ]
    assert any("MR" in step for step in snapshot_session(turns).next_steps)


def test_a_step_put_off_before_a_goodbye_that_says_who_the_person_is_stays_the_next_step() -> None:
    """Found in a fresh half: "搞掂，唔该。我广州长大的，…不用纠正我。瞓觉了。" closes the session; the "图明天再弄"
    said just before it was read as a decision and next stayed empty."""
    turns = [
        user("把 budget 那块的 StateNotifier 改成 Notifier。"),
        assistant("Done, `BudgetController` is a `Notifier` now and the tests pass."),
        user("数据库在 Application Support 下面，helper 改一下。月度的图用 fl_chart。先把依赖加上就行，图明天再弄。"),
        assistant("Helper now uses `getApplicationSupportDirectory()`; `fl_chart` added."),
        user("搞掂，唔该。我广州长大的，打字偶尔会冒粤语，你看得懂就行，不用纠正我。瞓觉了。"),
        assistant("Got it. Good night."),
    ]
    assert any("图明天再弄" in step for step in snapshot_session(turns).next_steps)


@pytest.mark.parametrize(
    ("asked", "reply"),
    [
        (
            "好，commit 一下。下周三周会我要讲成本分析，query_log 那张 top 20 的结果顺手帮我导个 csv 到 ~/Downloads。",
            "已提交 `chore: rename tests`；csv 在 `~/Downloads/ch_top20_queries.csv`（20 行）。",
        ),
        (
            "可以，按这个改。还有，测试那条再补一句：incremental 的 model 还要加一个 updated_at 的 recency 测试。",
            "两个 model 已改为 insert_overwrite，recency 测试已加。dev 上 build 通过。",
        ),
    ],
    ids=["help-me-within", "one-more"],
)
def test_work_asked_after_a_lead_in_and_done_is_no_next_step(asked: str, reply: str) -> None:
    """Found in a fresh half: an ask that does not open its sentence ("下周三…，…顺手帮我导个 csv") was read as a
    step for later, though the agent's answer did it."""
    turns = [user("dbt 升级到 1.8"), assistant("升级好了，parse 无 warning。"), user(asked), assistant(reply)]
    turns.append(user("ok。今天先到这。"))
    assert snapshot_session(turns).next_steps == ()


@pytest.mark.parametrize(
    "closing",
    ["cool. load test it on Monday, I'm off tmr afternoon for Sophie's thing", "load test it on Monday, I'm away tmr"],
)
def test_a_step_put_off_beside_when_the_person_is_away_is_the_next_step(closing: str) -> None:
    """Found in a fresh half: "load test it on Monday, I'm off tmr afternoon" was read as only saying when the
    person is away, and "I'm off" as leaving now, so the session had no next step."""
    turns = [
        user("relay worker for the outbox, in src/outbox/outbox-relay.service.ts"),
        assistant("Committed `3f2a9be feat(outbox): add relay worker`. `pnpm test` → 214 passed. Not load-tested."),
        user(closing),
    ]
    steps = snapshot_session(turns).next_steps
    assert any(step.startswith("load test it on Monday") for step in steps), steps


def test_holding_the_merge_till_someone_okays_it_is_the_next_step() -> None:
    """Found in a fresh half: "dont merge till Priya okays it" (no apostrophe, "till") was a decision and no step."""
    turns = [
        user("GET /claims list endpoint for the adjuster dashboard"),
        assistant("Done — `GET /claims` takes `cursor` + `limit`; `pnpm test` → 223 passed."),
        user("ok PR it, reviewers Priya + Marcus. dont merge till Priya okays it"),
        assistant("PR #491 open, reviewers `priya-raman`, `marcus-oyelaran`. Not merged."),
    ]
    steps = snapshot_session(turns).next_steps
    assert any("till Priya okays it" in step for step in steps), steps


def test_putting_a_named_file_back_takes_back_the_work_on_it() -> None:
    """Found in a fresh half: "put that file back exactly" after the agent edited an applied migration left the edit
    among what was done."""
    turns = [
        user("add an attempts counter to the outbox row"),
        assistant("Added `attempts Int @default(0)` to `OutboxEvent` by editing `20270303183112/migration.sql`."),
        user(
            "and you edited an applied migration?? never edit a migration that's already been applied, always make a"
            " new one. put that file back exactly and do attempts in a new migration."
        ),
        assistant("Restored; new migration `20270304181210_outbox_attempts` adds the column."),
    ]
    done = snapshot_session(turns).done
    assert not any("by editing" in item for item in done), done


def test_a_pull_request_that_waits_for_someone_and_a_sunday_is_the_next_step() -> None:
    """Found in tune40: "#416 waits for aisha + sunday" left next empty ("waits" and Sunday were no later cue),
    and the PR's "#" was stripped as if it opened a heading."""
    turns = [
        user("aurora writer: go db.r7g.4xlarge instead of what the pm says. update #416, and add a CPU monitor."),
        assistant("Pushed. #416 updated (writer → db.r7g.4xlarge); #419 opened (writer CPU monitor + runbook)."),
        user("lgtm. #419 can merge today. #416 waits for aisha + sunday"),
    ]
    snapshot = snapshot_session(turns)
    assert any(step.startswith("#416") and "sunday" in step for step in snapshot.next_steps), snapshot.next_steps
