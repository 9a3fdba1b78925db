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
