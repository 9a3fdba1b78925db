"""Session state: which turn opens the work, what its goal says first, and one label on a next step."""

from __future__ import annotations

from incremind_daemon.pipeline.snapshot import snapshot_session
from tests.pipeline.test_snapshot import assistant, user

TRACEBACK = """```
Traceback (most recent call last):
  File "/home/jiahe/code/sku-forecast/src/forecast/features.py", line 88, in build_features
    df["cat_l2"] = df["category_level2"].astype("category")
KeyError: 'category_level2'
```"""


def test_an_opening_that_sets_the_work_without_asking_is_the_goal_once_the_agent_reports_it_done() -> None:
    """"规则这样定：…" asks for nothing in so many words; the agent's "实现了" says it set the work, so the person's
    "Now bump the version" later in the session is the next piece of work, not the goal."""
    snapshot = snapshot_session(
        [
            user(
                "tidy-photos 准备发 v0.2。NAS 上这几晚的 dry-run 报告里每次都有一千多张 no-date，基本都是微信存下来的图"
                "和截图，EXIF 里没有 DateTimeOriginal：\n\n```\n"
                "[skip] no-date: /volume1/photo/2023/mmexport1687312211093.jpg\n"
                "summary: scanned 38211, rename 36190, dup-groups 817, no-date 1204\n```\n\n"
                "规则这样定：没有 DateTimeOriginal 的就 fall back 到 CreateDate，再没有就用文件 mtime，报告里加一列 "
                "date_source 标出来是哪个来源。"
            ),
            assistant("实现了，`meta.rs` 里新增 `resolve_date()`，按顺序取 DateTimeOriginal、CreateDate、mtime。"),
            user(
                "Looks right. Also: skip the recap at the end of your replies, I read the diff anyway. Now bump the "
                "version to 0.2.0 and write the CHANGELOG entry."
            ),
            assistant("Version 改成 0.2.0，CHANGELOG 加了 0.2.0 条目。"),
        ]
    )
    assert "DateTimeOriginal" in snapshot.goal, snapshot.goal
    assert "CHANGELOG" not in snapshot.goal, snapshot.goal


def test_a_go_ahead_to_the_fix_of_a_pasted_error_is_no_new_goal() -> None:
    snapshot = snapshot_session(
        [
            user(
                "sku-forecast 的 feature pipeline 挂了，跑 `poetry run python -m forecast.features --date 2026-09-06` "
                f"报错：\n\n{TRACEBACK}\n\n应该是上游 dim_sku 改了列名，上周 Kevin 他们在商品中台重构过一次。"
            ),
            assistant(
                "确实是上游改名：`category_level2` 现在是 `category_l2_name`。打算把 features.py 里的列名换掉，"
                "你看可以的话我再改。"
            ),
            user("行，改吧。rename 就行，先别加列检查，测试里的 fixture 也一起改。"),
            assistant("改好了，只做了 rename，测试 fixture 同步改了，`pytest` 全过。"),
        ]
    )
    assert "feature pipeline" in snapshot.goal, snapshot.goal
    assert not snapshot.goal.startswith("行"), snapshot.goal


def test_what_goes_wrong_comes_before_a_rule_said_on_the_way_in() -> None:
    snapshot = snapshot_session(
        [
            user(
                "Switching to my side project. Flutter is the one exception to the mise thing: it goes through fvm, "
                "and .fvmrc is committed. Added a `note` column to transactions yesterday and now the app dies on "
                "launch on my phone (fresh installs on the simulator are fine). I'm guessing I forgot to bump "
                "schemaVersion. Check?"
            ),
            assistant("Yes — `schemaVersion` is still 2 and `onUpgrade` has no step for `note`."),
        ]
    )
    assert "dies on launch" in snapshot.goal and "schemaVersion" in snapshot.goal, snapshot.goal
    assert "fvm" not in snapshot.goal, snapshot.goal


def test_a_decision_the_session_opens_on_is_part_of_its_goal() -> None:
    snapshot = snapshot_session(
        [
            user(
                "The full-epoch fp16 run finished. GAUC is fine but grad norm still spikes under fp16 even with "
                "clipping. Decision: switch to bf16 autocast from now on, no more fp16 + GradScaler — the A100s "
                "handle bf16 natively. Change model/train.py and drop the scaler, then run the eval on 20261008."
            ),
            assistant("Switched to bf16 autocast and removed the GradScaler in `model/train.py`."),
        ]
    )
    assert "bf16" in snapshot.goal and "model/train.py" in snapshot.goal, snapshot.goal


def test_a_step_that_points_back_at_a_labelled_one_carries_no_second_label() -> None:
    snapshot = snapshot_session(
        [
            user("Rerun the backtest with the holiday model."),
            assistant("Done: WAPE 11.2 % with the holiday model, 12.9 % without."),
            user(
                "Nice. For the client deck Zhou Bo can headline MAPE since that's their contract KPI — his call. "
                "Internally we stay on WAPE.\n\nNext step: regenerate notebooks/demo.ipynb with the holiday model "
                "for 3 Dec, MAPE up front and WAPE in the appendix. I start on it after lunch."
            ),
        ]
    )
    assert any("notebooks/demo.ipynb" in step for step in snapshot.next_steps), snapshot.next_steps
    assert not any(step.startswith("Next step") for step in snapshot.next_steps), snapshot.next_steps


def test_a_quoted_message_that_says_failed_is_no_pasted_error() -> None:
    """tune52: the lead's WeChat ask ("> 还有 dw_hourly 失败了直接打我电话"), which the person turned down, was put
    into the goal in brackets as the error of a paste."""
    snapshot = snapshot_session(
        [
            user(
                "做 618 的小时级刷新，按周报里写的来。6/12 封版前要合进去。\n\n周哥早上微信：\n"
                "> 618 小时级的看板能不能 6/10 就开始刷？\n> 还有 dw_hourly 失败了直接打我电话，别只发群里\n\n"
                "第一条可以，小时级刷新改成 6/10–6/19。第二条做不了，失败通知发企业微信“数据告警”群。"
            ),
            assistant("好的，dw_hourly 已建好，6/10–6/19 每小时跑。"),
        ]
    )
    assert "618" in snapshot.goal and "打我电话" not in snapshot.goal, snapshot.goal
