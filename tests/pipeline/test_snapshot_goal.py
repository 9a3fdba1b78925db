"""The goal of a session is its ask: who the person is and how to talk to them, said on the way in, are not."""

from __future__ import annotations

import pytest

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
