"""The goal of a session is its ask: who the person is and how to talk to them, said on the way in, are not."""

from __future__ import annotations

import pytest

from incremind_daemon.pipeline.goal import ask_rank
from incremind_daemon.pipeline.snapshot import Turn, snapshot_session
from tests.pipeline.test_snapshot import assistant, user

OPENINGS = [
    (
        "First time using you in this repo, so 先自我介紹一下. I'm Chia-ying (林佳穎), analytics engineer at Larder "
        "here in London — 在台中長大的, so I switch between English and 中文 mid-sentence a lot, 你不用在意. Reply in "
        "English though, 就算我打中文也用 English 回我就好. Keep it short, no essay-length summary at the end of every "
        "answer.\n\nThis is larder-dbt: dbt-core 1.8.7 + dbt-bigquery, warehouse is BigQuery. fct_orders broke "
        "overnight:\n\n```\n09:02:11  Database Error in model fct_orders\n```\n\n幫我看一下是哪裡改到了。",
        "fct_orders",
    ),
    (
        "I'm Daniel Wu, I do the iOS app and most of the Go API at Kestrel Health. Keep answers short, no recap at "
        "the end. The Today screen shows doubled step counts for two pilot patients with Apple Watches, fix it.",
        "step counts",
    ),
]


@pytest.mark.parametrize(("opening", "asked"), OPENINGS)
def test_the_goal_leaves_out_who_the_person_is_and_how_to_answer(opening: str, asked: str) -> None:
    goal = snapshot_session([Turn("user", opening), Turn("assistant", "On it."), Turn("user", "thanks")]).goal
    assert asked in goal, goal
    assert "Chia-ying" not in goal and "Daniel Wu" not in goal, goal
    assert "Reply in English" not in goal and "Keep" not in goal, goal


def test_an_introduction_typed_without_apostrophes_is_neither_goal_nor_decision() -> None:
    opening = (
        "First session in this repo so quick context: Im Leo Huang (黄立峰), solo founder based in Shenzhen, no "
        "team — just me and the agents. Rails 7.1, Sidekiq, Postgres 16 on Render. OrdersSyncJob keeps failing "
        "with 429s from Shopify and the retries pile up, fix the retries so they respect Retry-After."
    )
    snapshot = snapshot_session([Turn("user", opening), Turn("assistant", "On it."), Turn("user", "thanks")])
    assert "OrdersSyncJob" in snapshot.goal and "Leo Huang" not in snapshot.goal, snapshot.goal
    assert not any("Leo Huang" in decision for decision in snapshot.decisions), snapshot.decisions


@pytest.mark.parametrize("closing", ["not now. that's it for tonight, thx", "not now", "今天就到这吧，辛苦了"])
def test_a_closing_that_turns_the_offer_down_and_ends_leaves_no_next_step(closing: str) -> None:
    turns = [
        Turn("user", "Fixtures go in tests/fixtures/ as real .md files, move the callout and table ones there."),
        Turn(
            "assistant",
            "Moved them to tests/fixtures/. 11 passed. Want me to bump minAppVersion to 1.4 while I'm here?",
        ),
        Turn("user", closing),
    ]
    assert snapshot_session(turns).next_steps == (), snapshot_session(turns).next_steps


def test_bug_caption_after_the_repo_context_is_the_goal() -> None:
    turns = [
        user(
            "Different repo. ops-dashboard is our internal SvelteKit dashboard for the ops team: SvelteKit 2 + "
            "TypeScript, pnpm. pnpm only — never npm or yarn. Dev server runs on 5173 and proxies /api to 8787.\n\n"
            "Git rule that holds in every repo: never push to main — work on a branch called cy/<topic>.\n\n"
            "Bug: since the clocks went back, the 'Orders per hour' chart labels are an hour off. "
            "src/lib/charts/OrdersPerHour.svelte:\n\n```svelte\nconst label = new Date(ts.replace('Z', ''))\n```"
        ),
        assistant("`ts.replace('Z', '')` strips the UTC marker. Want me to switch to moment-timezone?"),
        user("No moment, it's huge. We use date-fns for dates in this repo. Fix both charts."),
        assistant("Both charts now call `formatInTimeZone`."),
    ]
    assert "Orders per hour" in snapshot_session(turns).goal


@pytest.mark.parametrize(
    ("opening", "title"),
    [
        (
            "早. 先講一件事: 以後不用英文回我了，用繁體中文就好. 在 dev 把 int_app_events backfill 到今天，"
            "再比一下 row count。",
            "在 dev 把 int_app_events backfill 到今天",
        ),
        ("Backend today. Sofia wants the therapist dashboard to show weekly adherence per patient.", "Sofia wants"),
        ("训练又 NaN 了。 model/train.py，DCN-v2，8 卡 torchrun。", "训练又 NaN 了"),
    ],
    ids=["zh-hant-greeting-and-language", "en-mood", "zh-short-problem-stays"],
)
def test_a_sessions_title_skips_the_greeting_mood_and_manner_it_opens_with(opening: str, title: str) -> None:
    snapshot = snapshot_session([Turn("user", opening), Turn("assistant", "On it.")])
    assert snapshot.index_line.startswith(title), snapshot.index_line


def test_the_ask_after_an_introduction_longer_than_three_goals_is_the_goal() -> None:
    """Found on tune28: the ask under "Problem:" came after 700 characters of who, what and how."""
    turns = [
        user(
            "Hi. New repo for you, so quick background first. I'm Zixuan, a postdoc in Ruth Abernathy's lab in "
            "Toronto — we grow colorectal cancer organoids from patients and look at how they respond to chemo.\n\n"
            "This is crc-sc-pipeline, our scRNA-seq pipeline: CellRanger outputs → QC → doublets → integration → "
            "clustering → pseudobulk exports that the paper repo picks up. Snakemake 8 with the SLURM executor "
            "plugin, profile is profiles/cedarvale, and every rule has its own conda env under envs/. Integration "
            "is Harmony on 50 PCs. The batch key is sample_id.\n\n"
            "Keep your replies short — a few lines, command or code first, no preamble.\n\n"
            "Problem: Dev added a scvi_benchmark rule last week to compare scVI against Harmony and it dies every "
            "single time. Tail of the log:\n\n"
            "```\nslurmstepd: error: *** JOB 4471823 CANCELLED DUE TO TIME LIMIT ***\n```"
        ),
        assistant("Killed at the 3h wall at epoch 212/400. I'd raise the runtime."),
        user("No, the partition is gpu-long, not gpu. Anything that trains scVI goes to gpu-long."),
        assistant("Job 4472950 on gpu-long, pending."),
    ]
    assert "scvi_benchmark" in snapshot_session(turns).goal


@pytest.mark.parametrize(
    ("opening", "asked"),
    [
        (
            "prod upgrade went fine this morning, 08:00–08:34, Dennis watched. 🎉\n\n"
            "next small thing: staging needs an ECR pull-through cache rule for ghcr.io so the CI runners stop "
            "hitting ghcr rate limits. prefix `ghcr`, "
            "creds from the secret ecr-pullthroughcache/ghcr. put it in envs/staging/ecr.tf.",
            "pull-through",
        ),
        (
            "Oskar approved !151, merged. thursday = release day, v0.10.0 today.\n\nbut first a bug: yesterday "
            "`helmwright sync --release vector --context staging-fra` installed vector into `default`. "
            "releases/vector.yaml has no namespace set. find out why.",
            "vector",
        ),
        ("昨晚 v2.3 上线了，很顺利。今天把 orders 接口的分页改成 cursor，每页 50 条。", "cursor"),
    ],
    ids=["en-went-fine", "en-approved-merged", "zh-released"],
)
def test_news_told_before_the_ask_does_not_take_the_asks_place(opening: str, asked: str) -> None:
    snapshot = snapshot_session([user(opening), assistant("On it."), user("thanks")])
    assert asked in snapshot.goal, snapshot.goal


def test_an_ask_too_long_for_the_goal_is_cut_rather_than_left_for_an_aside() -> None:
    """Found in a fresh half: a paragraph typed without capitals is one sentence, too long for the goal and with
    no last clause to keep, so the aside after it was the goal."""
    opening = (
        "lint setup as promised. add a .golangci.yml — CI runs golangci-lint v1.61 (image "
        "golangci/golangci-lint:v1.61.0) through `make lint`, so the config has to work with that. enable "
        "errcheck, govet, staticcheck, revive, gofumpt, errorlint. fix what it finds, small stuff only.\n\n"
        "fyi `helmwright serve` (the GitLab webhook mode that posts diffs on MRs) listens on :8088, in case "
        "the linters complain about the listener code."
    )
    goal = snapshot_session([user(opening), assistant("Done."), user("thanks")]).goal
    assert ".golangci.yml" in goal and not goal.startswith("fyi"), goal


def test_an_ask_under_what_i_want_from_you_is_the_goal() -> None:
    opening = (
        "MR !142 (values fix + lint stuff) got a review from Mehmet. pasting his comment:\n\n"
        "> releases/monitoring.yaml L4: leave this as `~45.7`. we should always use ~ ranges for chart versions "
        "so patch releases flow in automatically. pinning exact versions just means someone has to bump them by "
        "hand every week. IMO this must be the default for all releases.\n\n"
        "I disagree, exact pins stay — a patch release of ingress-nginx took down prod ingress last year and "
        "nobody knew which version we were even on. the reply to him is on me. what I want from you: make "
        "`helmwright lint` reject anything in releases/*.yaml whose version isn't an exact semver."
    )
    goal = snapshot_session([user(opening), assistant("Done."), user("thanks")]).goal
    assert "helmwright lint" in goal, goal


def test_what_tonight_is_for_and_the_want_after_it_are_the_goal() -> None:
    """Found in a fresh half: "tonight: the booking page. … want a grid of buttons instead, grouped by hour." typed
    in lower case was one long sentence with the files named after it, so the goal was an introduction."""
    opening = (
        "ok side project time. this is the app I built for the Strathcona Community Pantry (volunteer thing, "
        "我喺度做咗兩年義工). pantry-live is Elixir 1.16 / Phoenix 1.7 LiveView, Ecto + Postgres, deployed on fly, "
        "primary region sea. runs on port 4001 locally coz 4000 is taken by something else.\n\n"
        "UI is bilingual English + 繁體中文 via gettext (zh_Hant), many clients are Cantonese-speaking seniors.\n\n"
        "tonight: the booking page. clients pick a pickup slot for saturday and rn its a plain <select> with like 40 "
        "options, Aunty May says 好難用 on the iPad, the old folks cant scroll it. want a grid of buttons instead, "
        "grouped by hour. lib/pantry_live_web/live/booking_live.ex + booking_live.html.heex"
    )
    goal = snapshot_session([user(opening), assistant("Done."), user("thanks")]).goal
    assert goal.startswith("tonight: the booking page") and "want a grid of buttons" in goal, goal


def test_a_goal_cut_short_ends_on_one_ellipsis() -> None:
    opening = (
        "ok hobby time. i want to start pulling bike share GBFS feeds for a few cities every few minutes and keep "
        "the history so i can chart dock availability later. repo is basically empty, just a scratch fetch.py and "
        "feeds.toml. set it up properly:\n\n- use uv for deps, not pip or poetry\n- fetch station_status + "
        "station_information for every feed in feeds.toml\n- store snapshots in sqlite, data/stations.db\n\n"
        'feeds.toml right now:\n\n```toml\n[nyc]\nurl = "https://gbfs.citibikenyc.com/gbfs/2.3/gbfs.json"\n```\n\n'
        "heads up, i go through the gbfs-proxy.bikedata.io mirror for all of them and it allows 60 requests per "
        "minute per IP, anything over gets a 429 and they block you for an hour. so throttle."
    )
    goal = snapshot_session([user(opening), assistant("Done."), user("thanks")]).goal
    assert "… …" not in goal and "i want to start pulling" in goal, goal


def test_a_goal_whose_next_sentence_did_not_fit_ends_on_no_comma() -> None:
    """Found in a fresh half: "有几本书名拼音不对：" over a pasted run led into the long sentence after it, which did
    not fit, and the goal ended "…拼音不对，"."""
    ask = (
        "导了一遍今年的笔记 19 本 有几本书名拼音不对：\n\n```\nwrote content/reading/zhong-lai/index.md\n```\n\n"
        "长安的荔枝 变成 zhang-an 重来 变成 zhong-lai 了不起 变成 le-bu-qi 多音字的你别猜"
        " 在 tools/notes2post/overrides.tsv 里手动写 一行一本 书名 tab slug 有 override 就用 override"
        " 没有再转拼音 错的那几个目录直接删掉 里面我还没改过"
    )
    goal = snapshot_session([user(ask), assistant("好，加了 overrides.tsv。")]).goal
    assert goal.startswith("导了一遍今年的笔记"), goal
    assert not goal.endswith(("，", ",", "：", ":")), goal


def test_with_no_ask_the_goal_is_what_goes_wrong_after_the_rules_said_on_the_way_in() -> None:
    """Found in a fresh half: an opening of who the person is, the stack with two rules in it, and then "staging is
    crashlooping since this morning's sync" over a paste had the stack as its goal: the rules were no way in, and a
    crash loop did not go wrong."""
    ask = (
        "morning. first time in this repo with you so: I'm on the platform & bookings team at Skyvale Travel. keep it"
        " short — commands first, then the why, no essays.\n\n"
        "itinerary-svc is the first service we're carving out of skyvale-core (the Django monolith): still Django 5.1"
        " + DRF on python 3.12, Postgres 16 on RDS, Redis on ElastiCache for caching. deps with uv — never pip"
        " install, never poetry. runs on EKS; helm chart is deploy/helm/itinerary-svc and ArgoCD picks it up from"
        " skyvale/platform-gitops, namespace itinerary.\n\n"
        "staging is crashlooping since this morning's sync:\n\n```\n$ kubectl -n itinerary get pods\n"
        "itinerary-svc-7d9f8c6b5-2xkqp    0/1     CrashLoopBackOff   11 (2m1s ago)   34m\n```\n"
    )
    goal = snapshot_session([user(ask), assistant("The pod lacks ITINERARY_DB_PASSWORD; fixed the secret name.")]).goal
    assert goal.startswith("staging is crashlooping"), goal


def test_after_a_long_way_in_and_now_the_problem_comes_the_goal() -> None:
    """Found in a fresh half: a polite opening ("Before we dive in, a bit of context, …"), who the person is, the
    repo, five rules and "Now the problem." had the way in as its goal, not the failing tests."""
    ask = (
        "Good morning! Before we dive in, a bit of context, since this is a fresh Claude Code setup on my new work"
        " laptop and you don't know me yet. I'm Dan — Daniel Okafor-Reyes — and I work on the ML platform team at"
        " Tessera AI here in Singapore. This repo, gpu-sched-operator, is our Go operator (kubebuilder v4 scaffold,"
        " controller-runtime v0.19, Go 1.23) that schedules GPU jobs onto the on-prem A100 cluster.\n\n"
        "A few things about how the repo works, and then the actual problem:\n\n"
        "1. The controllers live in internal/controller/ and the fair-share math in internal/fairshare/.\n"
        "2. Tests: run them with `make test`. Please don't run plain `go test ./...`.\n\n"
        "Now the problem. Since Friday the TeamQuota controller tests fail, both on my machine and in CI. Here's the"
        " CI output:\n\n```\n$ make test\n--- FAIL: TestTeamQuota (10.00s)\n```\n\nCould you take a look and tell me"
        " what you think is going on before changing too much? Thank you!"
    )
    goal = snapshot_session([user(ask), assistant("The index was never registered in the test manager.")]).goal
    assert goal.startswith("Since Friday the TeamQuota controller tests fail"), goal
    assert "Thank you" not in goal, goal


@pytest.mark.parametrize(
    ("ask", "starts"),
    [
        # found in a fresh half: the greeting with the agent's name, and the opener that only says a long message
        # follows, led the goal
        (
            "Hi Claude, a few things today, sorry in advance for the long message.\n\nFirst, Priya's message is in"
            " the drop folder. I'd like an --enable-preemption flag (default true) so we can switch preemption per"
            " environment. Prod flags belong in the kustomize overlay config/overlays/prod, never in"
            " config/manager/manager.yaml — the base is shared by dev and staging.\n\nSecond, Wei Jie and I looked at"
            " this week's usage data, and the 7-day half-life is too sticky. We're changing the half-life to 72"
            " hours. It's the --fairshare-half-life flag, default in cmd/main.go.",
            "First, Priya's message is in the drop folder. I'd like an --enable-preemption flag",
        ),
        (
            "Hi Gemini. I'm using you on the operator repo today because Claude is busy on another branch. Could"
            " you write the NVIDIA device plugin time-slicing config for gpu-a100-11 and gpu-a100-12?",
            "I'm using you on the operator repo today",
        ),
    ],
)
def test_a_greeting_by_name_and_an_opener_about_the_message_are_no_goal(ask: str, starts: str) -> None:
    goal = snapshot_session([user(ask), assistant("Done.")]).goal
    assert goal.startswith(starts), goal


def test_an_ask_after_a_dash_and_an_ask_after_then_are_asks() -> None:
    """Found in a fresh half: "Good news: …, so preemption goes back on in prod — remove the override …" and "Then, if
    there's time, let's prepare v0.4.0" read as no ask, so the goal was the opening cut at its length."""
    ask = (
        "Good morning! Good news: Priya got the research leads' sign-off yesterday evening, so preemption goes back on"
        " in prod — remove the --enable-preemption=false override from config/overlays/prod, with the 5-minute grace"
        " period as before.\n\nThey asked for one extra condition, which I think is fair: never preempt a job that is"
        " in the last 10% of its walltime (spec.maxRuntime), because killing a 20-hour run at hour 19 hurts more than"
        " it helps. Jobs without a maxRuntime are treated as always preemptible.\n\nThen, if there's time, let's"
        " prepare v0.4.0. RELEASING.md is a bit stale; please follow it, but tell me where it looks wrong."
    )
    goal = snapshot_session([user(ask), assistant("Done.")]).goal
    assert goal.startswith("Good news: Priya got the research leads' sign-off"), goal
    assert "let's prepare v0.4.0" in goal, goal


def test_chinese_typed_a_line_per_thought_is_read_a_sentence_a_line() -> None:
    """Found in a fresh half: lines with no stops ran together, so the ask on the last line ("我本地 aarch64 的
    release 编不过 你看下") read as part of the introduction before it, and a later turn became the goal."""
    ask = (
        "早\n我叫邵一鸣 在杭州极桩科技做充电桩固件 rust 跟嵌入式 linux 这块\n回复中文 短点 直接说结论\n\n"
        "这个 repo 是 charger-fw 桩控制板上跑的 rust daemon 板子是 imx8mm 系统是我们自己的 yocto\n"
        "ci 上是好的 我本地 aarch64 的 release 编不过 你看下"
    )
    turns = [
        user(ask),
        assistant("原因：`.cargo/config.toml` 没给 aarch64 配 linker。两个办法：装 cross，或者用 Yocto SDK。"),
        user("不用 cross 我们 ci 也是 yocto sdk 编的\nsdk 装在 /opt/jzsdk/kirkstone 下面 你 ls 一下"),
        assistant("好，用 SDK。"),
    ]
    goal = snapshot_session(turns).goal
    assert "release 编不过" in goal and "邵一鸣" not in goal and "不用 cross" not in goal, goal


def test_a_numbered_list_under_could_you_please_is_the_asks_each_its_own() -> None:
    """Found in a fresh half: the three numbered asks under "Could you please:" ran into one sentence, too long to
    keep whole, so the goal kept the story before it and only the last ask's tail."""
    ask = (
        "The weekend soak on dev went fine, but something happened in prod on Saturday that I'd like the operator to"
        " handle better. gpu-a100-07 threw an Xid 79 around 3am SGT on Saturday; Farah cordoned it. The problem: our"
        " fair-share math still counted its 8 GPUs as capacity, so shares were computed out of 96 and the operator"
        " kept admitting jobs that then sat Pending forever.\n\nCould you please:\n"
        "1. Make capacity count only GPUs on nodes that are Ready and schedulable (not cordoned), recomputed when"
        " nodes change.\n2. Let's make the borrowing cap 125% of quota instead of 150%.\n"
        "3. Add a gauge gpusched_cluster_capacity_gpus so we can see what the operator thinks the capacity is."
    )
    goal = snapshot_session([user(ask), assistant("Done.")]).goal
    assert "1) Make capacity count only GPUs on nodes that are Ready and schedulable (not cordoned)" in goal, goal


def test_a_switch_of_what_is_used_is_work_to_do_not_a_rule_on_the_way_in() -> None:
    """Found in a fresh half: "we're switching the scheduler from SM-2 to FSRS" after "今天我想换 SRS 的算法" read as a
    rule said on the way in, so the goal never named FSRS."""
    ask = (
        "周末好！今天我想换 SRS 的算法。\n\n"
        "I read the FSRS paper and the benchmark on the open-spaced-repetition GitHub over breakfast, and I'm"
        " convinced: we're switching the scheduler from SM-2 to FSRS, using the `fsrs` package from PyPI (py-fsrs)."
        " Keep my review history, of course — later we can run the optimizer on it.\n\nTwo more things:\n"
        "1. 每天15个新词太多了，改成每天10个。\n"
        "2. Schema changes: from now on they go through numbered SQL files in migrations/ with PRAGMA user_version."
        " No Alembic, no ORM.\n\n你可以先告诉我你的计划吗？用中文和英文。"
    )
    goal = snapshot_session([user(ask), assistant("计划：用 py-fsrs 替换 srs.py 里的 SM-2。")]).goal
    assert "FSRS" in goal and goal.startswith("今天我想换 SRS 的算法"), goal


def test_an_ask_after_a_space_typed_for_a_stop_is_an_ask() -> None:
    """Found in tune35 once "你先看下" was trimmed as an ask: the opening's first sentence held a fact (where the API
    doc is), read as a statement, so it ranked as no ask, and the goal went to a later turn's objection."""
    sentence = (
        "成绩单的接口 文档我昨天晚上写了 在 docs/api/report-card.md 你先看下 今天要把列表和详情两个接口写出来 "
        "GET /api/v1/report-cards 和 GET /api/v1/report-cards/{id}"
    )
    assert ask_rank(sentence, 0) >= 0


def test_going_back_to_what_was_used_is_work_to_do() -> None:
    """Found in tune35: "一个是 front matter 算了 还是改回 YAML 吧 …" read as a rule said on the way in, and the goal
    lost the first of its two pieces of work."""
    sentence = (
        "一个是 front matter 算了 还是改回 YAML 吧 我发现 Obsidian 里打开 TOML 的属性面板显示不出来 "
        "我平时是在 Obsidian 里改这些文章的 已经生成的那几篇也转回去 注意别用 -force 重新生成 "
        "我在上面手改过了 你直接转 front matter 那几行，"
    )
    assert ask_rank(sentence, 1) >= 0
