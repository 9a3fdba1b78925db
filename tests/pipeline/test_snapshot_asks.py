"""Session state: what the person asks for is the goal or the work, and what they settle is a decision."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.snapshot import Turn, snapshot_session
from tests.pipeline.test_snapshot import assistant, user

# a new user's Claude Code session: context first, a correction and rules, then two asks
NEW_USER_SESSION = [
    user("hey, quick context: ledger is our billing API, Python 3.12, FastAPI. I prefer tabs over spaces."),
    assistant("Got it."),
    user("No, the port is 8443, not 8080 — the gateway only forwards 8443."),
    assistant("Got it."),
    user(
        "以后都用中文回复我，代码注释可以用英文。argo auto-syncs stg only. prod is a manual sync in the argo UI "
        "that I do myself — don't ever run `argocd app sync` on prod apps."
    ),
    assistant("Got it."),
    user("帮我把 PlanService 里的 fetchPlans 改成 async/await"),
    assistant("已改好。"),
    user("Change of plans on the database: let's switch to SQLite, not Postgres."),
    assistant("OK, switching to SQLite."),
]

NEW_USER_SESSION_ZH = [
    user("先说下背景：ledger 是我们的计费 API，Python 3.12，FastAPI。我习惯用 tab 缩进，不要用空格。"),
    assistant("明白。"),
    user("不对，端口是 8443，不是 8080，网关只转发 8443。"),
    assistant("好的。"),
    user("帮我把 PlanService 里的 fetchPlans 改成 async/await"),
    assistant("已改好。"),
    user("数据库换个方案：改用 SQLite，不用 Postgres 了。"),
    assistant("好的，换成 SQLite。"),
]


@pytest.mark.parametrize("turns", [NEW_USER_SESSION, NEW_USER_SESSION_ZH], ids=["en", "zh"])
def test_session_state_takes_the_ask_as_goal_and_the_changes_of_plan_as_decisions(turns: list[Turn]) -> None:
    snapshot = snapshot_session(turns)

    assert snapshot.goal == "把 PlanService 里的 fetchPlans 改成 async/await"
    assert any("fetchPlans" in item for item in snapshot.done)
    assert not any("fetchPlans" in item for item in snapshot.decisions)
    assert any("SQLite" in item and "Postgres" in item for item in snapshot.decisions)
    assert any("8443" in item and "8080" in item for item in snapshot.decisions)


@pytest.mark.parametrize(
    ("opening", "ask"),
    [
        (
            "Quick context: ledger is our billing API, Python 3.12, FastAPI. I prefer tabs over spaces.",
            "Add pagination to the /invoices endpoint, 50 per page.",
        ),
        (
            "先说下背景：ledger 是我们的计费 API，用 FastAPI。我习惯用 tab 缩进。",
            "帮我给 /invoices 接口加分页，每页 50 条",
        ),
    ],
    ids=["en", "zh"],
)
def test_goal_is_a_later_ask_when_the_opening_only_gives_context(opening: str, ask: str) -> None:
    turns = [user(opening), assistant("Got it."), user(ask), assistant("Added `limit` and `cursor` to /invoices.")]

    assert snapshot_session(turns).goal == ask.removeprefix("帮我")  # the goal leaves out the polite lead


@pytest.mark.parametrize(
    ("broke", "later"),
    [
        ("跑测试挂了，帮我看看：", "先不用。帮我把 README 里那个 typo 修一下，'recieve' 改成 'receive'。"),
        ("The refund tests fail, can you look?", "Not now. Fix the typo in the README, 'recieve' to 'receive'."),
    ],
    ids=["zh", "en"],
)
def test_an_ask_after_what_broke_is_the_goal_not_a_later_errand(broke: str, later: str) -> None:
    paste = '```\nTraceback (most recent call last):\n  File "app/refunds.py", line 88\nTypeError: float\n```'
    turns = [
        user("以后都用中文回复，代码注释可以用英文。"),  # a standing rule first: no ask
        assistant("好的。"),
        user(f"{broke}\n\n{paste}"),
        assistant("`order.currency_rate` 是 float，我改成了 Decimal。"),
        user(later),
        assistant("已修好。"),
    ]

    goal = snapshot_session(turns).goal
    assert goal.startswith(broke.removesuffix("：")[:12]) and "README" not in goal, goal


def test_goal_is_the_opening_when_no_later_turn_asks() -> None:
    opening = "Quick context: ledger is our billing API, Python 3.12, FastAPI. I prefer tabs over spaces."
    turns = [user(opening), assistant("Got it."), user("No, the port is 8443, not 8080."), assistant("Noted.")]

    assert snapshot_session(turns).goal == opening


@pytest.mark.parametrize(
    "ask",
    [
        "Can you switch to async/await in the invoice list of invoices.py",
        "帮我把 invoices.py 里的 InvoiceList 改成 async/await",
        "请把 invoices.py 里的 InvoiceList 改成 async/await",
    ],
)
def test_an_ask_for_work_after_the_goal_is_no_decision(ask: str) -> None:
    turns = [
        user("Add pagination to the /invoices endpoint."),
        assistant("Added `limit` and `cursor` to /invoices."),
        user(ask),
        assistant("Switched `InvoiceList` to async/await (invoices.py)."),
    ]

    assert snapshot_session(turns).decisions == ()


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Can you keep the page size at 50 instead of 20, since the mobile app asks for 50.", "instead of 20"),
        ("帮我 commit 就好，commit message 用 Conventional Commits", "Conventional Commits"),
    ],
)
def test_an_ask_that_replaces_a_value_or_sets_a_rule_stays_a_decision(said: str, kept: str) -> None:
    turns = [
        user("Add pagination to the /invoices endpoint."),
        assistant("Added `limit` and `cursor` to /invoices."),
        user(said),
        assistant("Done."),
    ]

    assert any(kept in item for item in snapshot_session(turns).decisions)


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("bump chart version 0.7.2 -> 0.8.0. someone hardcoded a tag in stg I think", "0.8.0"),
        ("raise the client timeout from 3s to 5s, core is slow at peak", "5s"),
        ('image tag is the git sha, CI fills it in, so leave `image.tag: ""` empty in the values files.', "empty"),
        ("帮我把 core-api 的超时改成 5 秒", "5 秒"),
        ("image.tag 留空，CI 会填 git sha", "留空"),
    ],
)
def test_a_value_the_person_sets_or_leaves_is_a_decision(said: str, kept: str) -> None:
    turns = [
        user("Add an HPA to the ledger-writer chart."),
        assistant("Added `templates/hpa.yaml`; lint passes."),
        user(said),
        assistant("Done."),
    ]

    assert any(kept in item for item in snapshot_session(turns).decisions)


@pytest.mark.parametrize(
    ("plan", "answer"),
    [
        (
            "我写一个 `scripts/make_table.py`，用 pandas 从 csv 生成 `tables/ch4.tex`，以后重跑脚本就行。可以吗？",
            "可以。",
        ),
        (
            "I'll write `scripts/make_table.py` to build `tables/ch4.tex` from the csv with pandas. Should I go ahead?",
            "Yes.",
        ),
    ],
    ids=["zh", "en"],
)
def test_a_yes_to_a_bare_question_takes_the_plan_before_it(plan: str, answer: str) -> None:
    turns = [
        user("Turn the layer-wise results in summary.csv into a LaTeX table for chapter 4."),
        assistant(plan),
        user(answer),
        assistant("Added `scripts/make_table.py`; `tables/ch4.tex` is generated."),
    ]

    decisions = snapshot_session(turns).decisions

    assert any("make_table.py" in item for item in decisions)
    assert not any(item.rstrip("?？").strip() in ("可以吗", "go ahead") for item in decisions)


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("ok 不管了 test data 的锅", "不管了"),
        ("ok that one is not our problem, it's the old test data", "not our problem"),
    ],
)
def test_a_side_matter_the_person_drops_is_a_decision(said: str, kept: str) -> None:
    turns = [
        user("Write the tests for the checkin route."),
        assistant(
            "Added `test/routes/checkin.test.ts`; all 3 pass. The staging log shows 'plan without owner' though."
        ),
        user(said),
        assistant("OK."),
    ]

    assert any(kept in item for item in snapshot_session(turns).decisions)


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("the am client is in ock/am.py. max 24h, anything longer needs a change ticket, so refuse it.", "max 24h"),
        ("am 客户端在 ock/am.py 里。静默时长最多 24 小时，更长的要走变更单。", "最多 24 小时"),
    ],
    ids=["en", "zh"],
)
def test_a_bound_the_person_sets_is_a_decision(said: str, kept: str) -> None:
    turns = [
        user("Add `ock silence <fingerprint> --for 90m` that creates an alertmanager silence."),
        assistant("Added `ock silence` in ock/cli.py; it builds the matchers from the alert's labels."),
        user(said),
        assistant("Added the check."),
    ]

    assert any(kept in item for item in snapshot_session(turns).decisions)


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Policy for cases like this: with a medical certificate the late days are waived entirely.", "Policy"),
        ("规则：有医院证明的，迟交天数全部免掉。", "规则"),
        ("A submission that's one minute late counts as a full day late.", "counts as"),
        ("迟交一分钟也算作迟交一整天。", "算作"),
    ],
)
def test_a_rule_the_person_states_as_one_is_a_decision(said: str, kept: str) -> None:
    turns = [
        user("Write scripts/late_penalty.py: a CSV with student_id, raw_score, days_late, final_score."),
        assistant("Added scripts/late_penalty.py; it reads the deadline from hw2/meta.yaml."),
        user(said),
        assistant("Updated the script."),
    ]

    assert any(kept in item for item in snapshot_session(turns).decisions)


@pytest.mark.parametrize(
    ("report", "reply"),
    [
        (
            "为了透传 requestId，我把 `coreClient` 改成了 axios，用 interceptor 统一加头。测试都过了。",
            "等下 你怎么又引了 axios。HTTP 请求就用 Node 自带的 fetch，header 自己拼",
        ),
        (
            "To pass the request id on, I switched `coreClient` to axios with an interceptor. Tests pass.",
            "hold up, axios again? Use the built-in fetch and build the header yourself",
        ),
        ("I switched `coreClient` to axios with an interceptor. Tests pass.", "wait, no axios. Use the built-in fetch"),
    ],
    ids=["zh", "en", "en-wait"],
)
def test_a_change_the_person_stops_is_not_done_with_the_check_after_it(report: str, reply: str) -> None:
    turns = [
        user("Pass the request id on to core-api in every request."),
        assistant(report),
        user(reply),
        assistant("Removed axios; `coreClient` is back on fetch and sets `x-request-id` in `headers()`."),
    ]

    done = snapshot_session(turns).done

    assert not any("to axios" in item or "改成了 axios" in item for item in done)
    assert any("Removed axios" in item for item in done)


@pytest.mark.parametrize(
    ("opening", "goal"),
    [
        ("我们把 ledger-api 的测试库迁到 SQLite 吧。", "我们把 ledger-api 的测试库迁到 SQLite 吧"),
        ("咱们今天先把登录页改完。", "咱们今天先把登录页改完"),
        ("Let's move the ledger-api test database to SQLite.", "move the ledger-api test database to SQLite"),
    ],
)
def test_a_lets_opening_is_the_goal_and_a_report_names_only_the_ask_it_answers(opening: str, goal: str) -> None:
    snapshot = snapshot_session(
        [
            user(opening),
            assistant("好的，先看一下 tests/conftest.py。"),
            user("好，跑一下测试吧。对了，以后 commit message 都用英文。"),
            assistant("测试全部通过（142 passed）。"),
        ]
    )
    assert goal.casefold() in snapshot.goal.casefold()
    assert snapshot.done == ("测试全部通过（142 passed） — 跑一下测试吧。",)  # not the rule said on the way


def test_a_session_of_small_talk_identity_and_an_apology_keeps_only_its_work() -> None:
    """Who the person is, the weekend's hike and the agent owning up to a wrong port are no state of the work;
    a few words over a pasted traceback ask for it to be fixed, ahead of a later errand."""
    turns = [
        user("记住：我叫林晓，是后端工程师，主要写 Python 和 Go。"),
        assistant("好的林晓，记住了。"),
        user("btw the API port is 8443, not 8080 — I told you last time."),
        assistant("抱歉，已确认端口是 8443。"),
        user(
            '又挂了：\n\nTraceback (most recent call last):\n  File "app/worker.py", line 31, in flush\n'
            "    conn.execute(sql, row)\nsqlite3.OperationalError: database is locked\n"
        ),
        assistant("这是并发写导致的。我打开了 WAL 并把 busy_timeout 设成 5000。"),
        user("周末去爬山了，累死，今天效率不高哈哈"),
        assistant("辛苦了，注意休息！"),
        user("帮我把 worker 的重试次数改成 3 次"),
        assistant("已改成 3 次。"),
    ]

    snapshot = snapshot_session(turns)
    assert snapshot.goal == "又挂了 (sqlite3.OperationalError: database is locked)"
    assert not any("抱歉" in item for item in snapshot.done), snapshot.done
    assert not any("林晓" in item or "爬山" in item for item in snapshot.decisions), snapshot.decisions
    assert any("8443" in item for item in snapshot.decisions)


@pytest.mark.parametrize(
    ("opening", "named"),
    [
        ("few things for the invoices api:\n1. add pagination to GET /v1/invoices, it returns all 40k rows rn\n"
         "2. cursor based, not offset\n3. default limit 50, max 200\n4. update api/openapi.yaml", "pagination"),
        ("发票接口几件事：\n1. GET /v1/invoices 加分页，现在一次返回 4 万行\n"
         "2. 用 cursor，不用 offset\n3. 默认 50，最多 200", "分页"),
    ],
)  # fmt: skip
def test_a_numbered_list_of_work_opens_the_session_though_a_later_turn_asks_outright(opening: str, named: str) -> None:
    turns = [
        user(opening),
        assistant("I'll add keyset pagination on (issued_at, id)."),
        user("commit it"),
        assistant("Committed `a91d03e`."),
    ]
    snapshot = snapshot_session(turns)
    assert named in snapshot.goal and named in snapshot.index_line, snapshot


def test_a_pasted_env_file_is_no_part_of_the_goal() -> None:
    # found by a new user: the goal read "PAYMENTS_ADDR=payments.internal:9443", a line of the pasted .env
    turns = [
        user(
            "CreateOrder needs an idempotency key. clients send header `idempotency-key` (grpc metadata). store it "
            "in orders.idempotency_key with a unique index, return the existing order on a repeat. my .env for "
            "reference:\n\nGRPC_ADDR=:9090\nGATEWAY_ADDR=:8081\nPAYMENTS_ADDR=payments.internal:9443\nLOG_LEVEL=debug"
        ),
        assistant("Done. A repeat returns the existing order (test `TestCreateOrder_Idempotent`)."),
    ]
    goal = snapshot_session(turns).goal
    assert goal.startswith("CreateOrder needs an idempotency key") and "PAYMENTS_ADDR" not in goal


@pytest.mark.parametrize(
    ("opening", "problem", "chatter"),
    [
        (
            "hey. first time using you on this repo so some context before the actual problem.\n\n"
            "I'm Jay, a freelance full-stack dev in Melbourne, mostly Django and Next.js for small businesses who "
            "can't afford an agency. This repo is teahouse-shop, Django 5.1 on Python 3.12, HTMX on the front.\n\n"
            "Now the actual problem. I pulled main this morning and checkout is dead. My guess is the migration "
            "never got committed. Can you check which before touching anything?",
            "checkout is dead",
            "first time",
        ),
        (
            "周末去青城山爬了一天，腿到现在还是废的，下周估计也缓不过来。说正事。"
            "上周 int_order_items 改成 delete+insert 之后，query_log 里 mutation 特别重，"
            "基本都是 delete+insert 产生的。先从 int_order_items 和 fct_orders 两个开始改。",
            "mutation",
            "青城山",
        ),
        # "Actual problem: …" opens the ask's own sentence
        (
            "morning. first session in this repo so quick context before the actual thing.\n\n"
            "I'm Mei Lin Chow, SRE on the platform team at Tidewell, based in Toronto. Keep replies short: the command "
            "or the diff first, explanation only if I ask for it. infra-live is Terraform 1.9 with Terragrunt 0.67, "
            "everything in ca-central-1.\n\n"
            "Actual problem: a bunch of pods in payments have been Pending since ~8:40. Look at the node group.",
            "Pending",
            "Mei Lin",
        ),
        (
            "早。第一次在这个仓库用你，先交代一下背景：我是周美琳，平台组的 SRE，在多伦多。"
            "回复简短一点，先给命令或者 diff，解释等我问了再说。"
            "infra-live 是 Terraform 1.9 加 Terragrunt 0.67，全部在 ca-central-1。\n\n"
            "说正事：payments 里一堆 pod 从 8:40 开始一直 Pending，看看 node group。",
            "Pending",
            "周美琳",
        ),
    ],
    ids=["en", "zh", "en-opening-the-ask", "zh-opening-the-ask"],
)
def test_the_ask_after_a_turn_to_business_is_the_goal_not_the_way_in(opening: str, problem: str, chatter: str) -> None:
    # found in fresh halves: the goal kept "first time using you …" and "Now the actual problem." and lost the problem
    goal = snapshot_session([user(opening), assistant("Looking.")]).goal
    assert problem in goal and chatter not in goal, goal


@pytest.mark.parametrize(
    ("opening", "wanted"),
    [
        (
            "photos in the trail detail carousel flicker when you scroll the LazyRow back and forth, and sometimes "
            "show the wrong trail's photo for a frame. see ui/detail/TrailPhotoCarousel.kt. we use Glide for images "
            "here, dont pull in another image library to fix this.\n\n"
            "screen recording from the A14 if it helps: https://drive.google.com/file/d/1Qx/view",
            "carousel flicker",
        ),
        (
            "详情页的轮播图在 LazyRow 里来回滑动的时候会闪，偶尔还会闪一下别的路线的照片，测试机上两台都能复现，"
            "快速滑动的时候最明显，慢慢滑基本看不出来，返回再进来第一张图也会闪一下。"
            "代码在 ui/detail/TrailPhotoCarousel.kt。图片我们一直用 Glide，别为了修这个再引入别的图片库，"
            "也别动 Compose 的版本，这个版本是和设计系统一起锁死的，上次有人升级了一下 Compose，"
            "结果整个详情页的动画全乱了，回滚花了一下午，测试机是 Pixel 4a 和三星 A14，两台都能复现。\n\n"
            "录屏在这里，可能有用：https://drive.google.com/file/d/1Qx/view",
            "轮播图",
        ),
    ],
    ids=["en", "zh"],
)
def test_a_long_report_of_what_is_wrong_heads_the_goal_not_an_aside_after_it(opening: str, wanted: str) -> None:
    # found in a fresh half: with no sentence that asks, the goal was the only short one, the link to a recording;
    # and a rule said on the way (Glide, later retired) is an insight of its own, not the goal
    goal = snapshot_session([user(opening), assistant("Looking.")]).goal
    assert wanted in goal and "drive.google.com" not in goal and "Glide" not in goal, goal


@pytest.mark.parametrize(
    ("lead", "ask", "wanted"),
    [
        (
            "Email from Priya this morning, pasting the whole thing because the details matter:",
            'For this branch: change "Book now" to "Book online" on every CTA, and make the contact form submit '
            "with fetch and show an inline thank-you instead of redirecting.",
            "Book online",
        ),
        (
            "Priya 早上发的邮件，原文贴上，细节都很重要：",
            "这个分支：把所有按钮的 Book now 改成 Book online，联系表单改成 fetch 提交，"
            "提交后在页面上直接显示感谢，不要再跳转了。",
            "Book online",
        ),
    ],
    ids=["en", "zh"],
)
def test_the_persons_ask_beside_a_quoted_email_is_the_goal_not_the_email(lead: str, ask: str, wanted: str) -> None:
    # found in a fresh half: the goal was the email's "From:" and "Hi Jay", and the ask after it was never read
    email = "\n".join(
        "> " + line
        for line in (
            "From: Priya Raman <priya@harbourline.example>",
            "Subject: Re: go-live + a few tweaks",
            "",
            "Hi Jay,",
            "",
            "Thanks for the preview link, the team loves it. Bad news first: the board wants the Brunswick clinic "
            "in the locations grid with real photos, and the photographer can't do it until the 25th. So we'd like "
            "to move go-live to Friday 5 September. I've already moved the radio spot.",
            "",
            "Smaller things: can the buttons say Book online instead of Book now? Front desk says people think "
            "Book now means they have to ring. And when someone sends the contact form they land on a Formspree "
            "page that looks like a phishing site. Can it just say thanks on our page?",
            "",
            "Cheers, Priya",
        )
    )
    goal = snapshot_session([user(f"{lead}\n\n{email}\n\n{ask}"), assistant("On it.")]).goal
    assert wanted in goal and "From:" not in goal and "Hi Jay" not in goal, goal


def test_a_cantonese_ask_behind_an_introduction_is_the_goal() -> None:
    """Found on the fresh halves: "睇下点解" was no ask, so the goal was the introduction alone."""
    opening = (
        "早晨。第一次喺呢个 repo 用你，先交代几句。\n\n"
        "我系陈家乐，喺广州一间做跨境电商嘅公司写后端，主要系 Django 同 Celery。"
        "你用中文答我就得，技术名词保留英文，唔好硬翻。\n\n"
        "order-service 系我哋嘅订单服务。Stack: Django 4.2, Celery 5.3, Postgres 15, Redis as broker + cache.\n\n"
        "今朝 CI 红咗，汇率换算嘅 test 挂咗：\n\n"
        "```\nFAILED apps/fx/tests/test_convert.py::test_convert_usd_to_cny_rounding\n```\n\n"
        "睇下点解。"
    )
    goal = snapshot_session([user(opening), assistant("我睇下 `apps/fx/convert.py`。")]).goal
    assert "睇下点解" in goal and "汇率" in goal, goal
