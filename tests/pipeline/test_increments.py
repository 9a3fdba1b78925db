"""What a person says to an agent becomes clean candidates; repeats fold in; a changed decision replaces the old."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import apsw
import pytest

from incremind_daemon import cli
from incremind_daemon.config import InsightSettings, Settings
from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.insights import Increment, record_increments, save_memory
from incremind_daemon.pipeline.pairs import Known
from incremind_daemon.pipeline.relate import relate
from incremind_daemon.pipeline.scope import names_this_project
from incremind_daemon.store import insight_jobs, insights, items, recall
from incremind_daemon.store.db import connect, write_transaction
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.records import Candidate, NewSource, SaveRequest

NOW = "2026-12-01T09:00:00Z"


def said(turn: str) -> list[Candidate]:
    return extract_candidates(turn, conversational=True)


@pytest.mark.parametrize(
    ("turn", "statement", "category", "scope", "must"),
    [
        (
            "No, the port is 8443, not 8080 — the gateway only forwards 8443",
            "The port is 8443, not 8080 — the gateway only forwards 8443",
            "correction",
            "project",
            ("8443", "8080"),
        ),
        ("每页 24 个，不是 20 个", "每页 24 个，不是 20 个", "correction", "project", ("24", "20")),
        ("请用中文回答我，代码注释可以用英文", "请用中文回答我，代码注释可以用英文", "preference", "global", ("中文",)),
        ("以后都回复中文吧", "以后都回复中文", "preference", "global", ("中文",)),
        ("Reply in Chinese from now on, please.", "Reply in Chinese from now on", "preference", "global", ("Chinese",)),
        ("Stop — always use pnpm in this repo", "Always use pnpm in this repo", "preference", "project", ("pnpm",)),
        ("还有样式统一用 tailwind 吧", "样式统一用 tailwind", "preference", "project", ("tailwind",)),
        (
            "Decision: we go with zustand, not redux",
            "We go with zustand, not redux",
            "decision",
            "project",
            ("zustand",),
        ),
        ("数据库就用 Postgres", "数据库就用 Postgres", "decision", "project", ("Postgres",)),
        ("I'm the only backend dev on this team", None, "identity", "global", ("backend",)),
        ("我是组里唯一的后端", "我是组里唯一的后端", "identity", "global", ("后端",)),
    ],
)
def test_a_lasting_turn_becomes_one_clean_candidate(
    turn: str, statement: str | None, category: str, scope: str, must: tuple[str, ...]
) -> None:
    [candidate] = said(turn)
    assert candidate.statement == (statement or turn)
    assert (candidate.category, candidate.scope) == (category, scope)
    assert all(word in candidate.statement for word in must)
    assert turn[candidate.start : candidate.end] == candidate.quote


@pytest.mark.parametrize(
    "turn",
    [
        "can you fix the failing test?",
        "run the tests again",
        "帮我看下这个报错",
        "好的继续",
        "thanks!",
        "should we use redis here?",
        "要不要加缓存？",
        "if we ever move to k8s we'd need helm charts",
        "it always fails on CI, no idea why",
        "这个测试总是报错",
        "我现在在 github.com 上看",
        'I get this:\nTraceback (most recent call last):\n  File "/usr/lib/python3.11/site-packages/uvicorn", line 8, '
        "in <module>\n    sys.exit(main())\nValueError: always use port 8080",
        "Error: listen EADDRINUSE: address already in use 127.0.0.1:8080\n"
        "    at Server.setupListenHandle (node:net:1817:16)",
        "```\nnpm install --always-use-pnpm\n```",
        # a command's table output, JSON log records, bracketed levels, a logger's clock, a dotted exception
        "$ kubectl get pods\nNAME                   READY   STATUS    RESTARTS   AGE\n"
        "payments-api-6c7d8e9f1-tz5rw    1/1     Running   0          52s",
        '{"level":"fatal","ts":"2027-03-09T00:41:12Z","msg":"config: DB_POOL_MAX must be set and > 0"}',
        "[ERROR] templates/hpa.yaml: unable to parse YAML: the port must always be set",
        "10:41AM INF Target K8s version is 1.30.9-eks-8cce635",
        "ock.errors.RunbookNotFound: runbook must exist under /Users/arjun/src/runbooks: payments-api",
        # a compiler's and a type checker's diagnostics, a runtime's own frame, a bare location
        "/Users/yt/dev/app/Tests/SummaryTests.swift:42: error: XCTAssertEqual failed: always use 1740",
        "src/routes/leaderboard.ts:14:9 - error TS7006: Parameter 'row' must not be any.",
        "node:internal/process/promises:289\n    triggerUncaughtException(err, true /* fromPromise */);",
        # an upper-case diagnostic and a test runner's summary (found by a new user)
        'src/tools/PolygonTool.tsx:112:18: ERROR: Expected ">" but found "points", always close the tag',
        "Test Suites: 1 failed, 9 passed, 10 total\nTests:       1 failed, 57 passed, 58 total",
        "> 以后都用 yarn（同事在群里说的）",
        # an opener that only says context follows
        "First time running you in this repo so some quick context.",
        "Quick intro since it's the first time you're in this repo.",
        "first session in this repo so quick context before the actual thing.",
        "第一次在这个 repo 里用你，先给点背景。",
        "First time using you in this repo, so 先自我介紹一下",  # found as junk in a tuning half
    ],
)
def test_requests_questions_openers_and_pasted_output_yield_nothing(turn: str) -> None:
    assert said(turn) == []


def test_an_aside_for_this_time_is_cut_from_a_rule_and_a_doubt_is_not() -> None:
    [candidate] = said("HTTP 请求就用 Node 自带的 fetch（undici），不要引 axios，header 自己拼一下就行")
    assert candidate.statement == "HTTP 请求就用 Node 自带的 fetch（undici），不要引 axios"
    assert said("我们用 Postgres，不过还没决定") == []
    assert said("测试用 vitest，这次先这样") == []
    # found in a fresh half: a closing clause for today or tomorrow is such an aside
    [candidate] = said("图表用 matplotlib 就行，出 png 放 out/charts/ 下面，今天先不画，明天再说。")
    assert candidate.statement == "图表用 matplotlib 就行，出 png 放 out/charts/ 下面"


def test_a_clause_that_says_always_is_no_ask_whatever_word_it_opens_on() -> None:
    # found in a fresh half: "push 永远是我自己来" opens on "push", and was cut as an ask
    [candidate] = said("commit 可以，push 永远是我自己来。token 我等会儿去 rotate。")
    assert candidate.statement == "commit 可以，push 永远是我自己来"


@pytest.mark.parametrize(
    ("turn", "statement"),
    [
        ("spotless yes, but before you commit, let me see the diff first", "before you commit, let me see the diff"),
        (
            "also we format with ktlint through spotless — run ./gradlew spotlessApply before you commit anything",
            "run ./gradlew spotlessApply before you commit anything",
        ),
        # typed with a space between the English word and the Chinese
        (
            "commit 前先跑 cargo clippy --all-targets -- -D warnings 和 cargo nextest run，两个都过才 commit",
            "commit 前先跑 cargo clippy --all-targets -- -D warnings 和 cargo nextest run",
        ),
    ],
)
def test_a_step_before_each_commit_is_a_standing_one(turn: str, statement: str) -> None:
    # found in a fresh half: neither was a rule, and the second was cut as an ask; "before you commit" may
    # stand as the rule's condition
    [candidate] = said(turn)
    assert statement.casefold() in f"{candidate.condition}, {candidate.statement}".casefold()


def test_a_change_made_for_good_holds_beyond_the_task() -> None:
    # found on tune28: "switch … for good" was read as the ask of the hour
    [candidate] = said("And switch the integration to scVI for good — Harmony glues the persister cells together.")
    assert candidate.statement.startswith("Switch the integration to scVI for good")


def test_a_command_in_backticks_is_a_name_in_prose_not_code() -> None:
    # found in a fresh half: "&&" inside the backticks read as a line of code
    [candidate] = said("From now on, run `pnpm lint && pnpm typecheck` yourself before you tell me anything is done.")
    assert "`pnpm lint && pnpm typecheck`" in candidate.statement


@pytest.mark.parametrize(
    "turn",
    [
        "Don't use install.packages() in this repo — renv::install() and then renv::snapshot(), the lockfile is "
        "the source of truth.",
        "Never log from a model, use ActiveSupport::Notifications and an initializer that listens to it.",
        # found in tune54: the label's colon after the name read as more of it
        "AutopayJob, RentChargeJob, Stripe::WebhookJob: no automatic retries at all anymore, retry: false from now on.",
    ],
)
def test_a_qualified_name_among_words_is_a_name_in_prose_not_code(turn: str) -> None:
    # found in tune28: "::" read the whole rule as a line of code
    [candidate] = said(turn)
    assert "::" in candidate.statement


@pytest.mark.parametrize(
    "line", ["let v = Vec::new();", "use std::collections::HashMap;", "std::vector<int> v = a::b();"]
)
def test_code_with_qualified_names_stays_code(line: str) -> None:
    assert said(line) == []


def test_a_maybe_in_the_reason_after_a_rule_that_says_always_leaves_the_rule() -> None:
    # found in a fresh half: "可能" in the reason discarded the whole rule
    [candidate] = said(
        "以后中文问你就用中文回答；但代码注释和 commit message 一律用英文，这个店以后可能换别的开发接手。"
    )
    assert candidate.statement == "以后中文问你就用中文回答；但代码注释和 commit message 一律用英文"
    assert said("以后都用 Postgres，可能吧") == []  # a maybe on its own doubts the whole


def test_a_correction_after_a_pasted_log_is_found_and_the_log_is_not() -> None:
    turn = (
        "Error: listen EADDRINUSE :::8080\n    at Server.setupListenHandle (node:net:1817:16)\n"
        "不对，测试用 vitest，不要 jest"
    )
    [candidate] = said(turn)
    assert candidate.statement == "测试用 vitest，不要 jest"
    assert candidate.category == "correction"


_CHECKS = "In northbay-site, run `pnpm lint && pnpm typecheck` locally before reporting anything as done."


def _known(statement: str, *, scope: str = "project", cosine: float | None = None) -> Known:
    return Known(1, statement, "", "preference", cosine, scope)


def _relation(candidate: str, known: str, *, ordered: bool = True) -> str:
    [found] = extract_candidates(candidate, conversational=ordered) or [
        Candidate(candidate, "preference", "", candidate, 0, len(candidate))
    ]
    return relate(
        found, [_known(known, scope=found.scope)], repeat_similarity=0.8, related_similarity=0.4, ordered=ordered
    ).kind


@pytest.mark.parametrize(
    ("candidate", "known", "kind"),
    [
        ("this is a pnpm repo", "Always use pnpm", "repeat"),
        # a switch away from what the known insight uses replaces it (tune25)
        ("Switch the backtest scoring from MAPE to WAPE, per terminal.", "we score every terminal on MAPE",
         "supersedes"),
        ("评估指标从 MAPE 换成 WAPE", "we score every terminal on MAPE", "supersedes"),
        # the person says it is said again, in English or Cantonese (tune27, tune28)
        ("versions go in libs.versions.toml only, said that on day one.",
         "依赖版本只写在 gradle/libs.versions.toml 里，build.gradle.kts 里不要出现写死的版本号。", "repeat"),
        ("submit 之前一定要 -n 睇下先㗎，讲咗几次",
         "Always dry-run first with -n and show me the job list before anything is submitted.", "repeat"),
        ("Decision: we go with zustand, not redux", "我倾向用 zustand，不想上 redux", "repeat"),
        ("以后都回复中文吧", "请用中文回答我，代码注释可以用英文", "repeat"),
        ("Reply in Chinese from now on", "以后都回复中文", "repeat"),
        (
            "按第 1、2、4、7、15 天复习同一张卡片，这就是间隔重复的做法",
            "复习时应该按第 1、2、4、7、15 天的间隔复习同一张卡片",
            "repeat",
        ),
        ("Change of plans on the database: let's switch to SQLite", "数据库就用 Postgres", "supersedes"),
        ("以后不用 docker compose 了，改成 podman", "Use docker compose for local services", "supersedes"),
        ("No, the port is 8443, not 8080", "The API listens on port 8080", "supersedes"),
        ("CI 里装依赖用 pnpm install --frozen-lockfile", "Always use pnpm, not npm", "supplement"),
    ],
)
def test_relation_is_decided_by_what_the_candidate_adds(candidate: str, known: str, kind: str) -> None:
    assert _relation(candidate, known) == kind


def test_a_disagreeing_note_with_no_order_is_different_not_supersedes() -> None:
    note = Candidate("Mock the database in unit tests", "method", "", "Mock the database in unit tests", 0, 31)
    known = _known("Don't mock the database in tests")
    assert relate(note, [known], repeat_similarity=0.8, related_similarity=0.4).kind == "different"


def _open(settings: Settings) -> apsw.Connection:
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    return connect(settings.database_path)


def _examine_dropped(
    settings: Settings, project: str, name: str, text: str, *, embedder: Embedder | None = None
) -> apsw.Connection:
    """Drop a note into the project's inbox folder, take it in and find its candidates, as the writer does."""
    from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer
    from incremind_daemon.pipeline.work import IngestFile
    from incremind_daemon.sources.extract import extract_bytes

    path = settings.inbox_dir / project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    state = StepState(settings, extract_bytes, embedder=embedder, actor="test", use_model=False)
    with open_writer(state) as conn:
        ingest_item(conn, state, IngestFile(path, project, from_inbox=True))
        examine_pending(conn, state)
    return _open(settings)


def _confirmed(conn: apsw.Connection, statement: str, *, project: str, scope: str = "project") -> int:
    with write_transaction(conn):
        insight_id = insights.insert_insight(
            conn,
            project=project,
            candidate=Candidate(statement, "decision", "", statement, 0, len(statement), scope),
            relation="new",
            source_id=None,
            now=NOW,
        )
        insights.review(conn, insight_id, "confirm", actor="test", now=NOW)
    return insight_id


def test_confirming_a_supersede_retires_the_old_decision_everywhere(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    conn = _open(settings)
    first = save_memory(conn, settings, SaveRequest("数据库就用 Postgres", "ledger", trusted=True))
    assert first.insight_id is not None and first.status == "confirmed"
    old = first.insight_id
    saved = save_memory(
        conn, settings, SaveRequest("Change of plans on the database: let's switch to SQLite", "ledger")
    )
    assert (saved.relation, saved.known_id, saved.status) == ("supersedes", old, "pending")
    assert insights.get_insight(conn, old).status == "confirmed"  # nothing changes until the person confirms
    conn.close()

    assert cli.main(["confirm", f"ins-{saved.insight_id}"]) == 0
    conn = connect(settings.database_path)
    assert insights.get_insight(conn, old).status == "superseded"
    shown = recall.recall_insights(
        conn, project="ledger", private=frozenset(), now=datetime.now(UTC), half_life_days=30, cold_below=0.1
    )
    assert [r.insight.id for r in shown] == [saved.insight_id]
    conn.close()

    capsys.readouterr()
    assert cli.main(["search", "database", "--json", "--tier", "insight"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [hit["id"] for hit in hits] == [f"ins-{saved.insight_id}"]
    assert cli.main(["search", "Postgres", "--json", "--tier", "insight", "--status", "superseded"]) == 0
    assert [hit["id"] for hit in json.loads(capsys.readouterr().out)] == [f"ins-{old}"]
    assert cli.main(["search", "Postgres", "--json", "--status", "superseded"]) == 0  # asks after insights alone
    assert [hit["id"] for hit in json.loads(capsys.readouterr().out)] == [f"ins-{old}"]
    assert cli.main(["insights", "--status", "superseded", "--json"]) == 0
    assert [row["id"] for row in json.loads(capsys.readouterr().out)] == [f"ins-{old}"]
    assert cli.main(["history", f"ins-{old}"]) == 0
    assert f'"by": "ins-{saved.insight_id}"' in capsys.readouterr().out  # the audit trail says what replaced it


def test_a_repeat_in_other_words_adds_a_source_and_nothing_pending(settings: Settings) -> None:
    conn = _open(settings)
    first = save_memory(conn, settings, SaveRequest("Always use pnpm in this repo", "shop", trusted=True))
    again = save_memory(conn, settings, SaveRequest("this is a pnpm repo", "shop"))
    assert (again.relation, again.known_id) == ("repeat", first.insight_id)
    assert insights.count_insights(conn, status="pending") == 0
    assert first.insight_id is not None
    assert len(insights.evidence_of(conn, first.insight_id)) == 2
    assert insights.get_insight(conn, first.insight_id).confidence > 0.5


def test_the_same_chinese_sentence_saved_twice_is_a_repeat(settings: Settings) -> None:
    conn = _open(settings)
    first = save_memory(conn, settings, SaveRequest("我喜欢用 vim 写代码。", "daily"))
    again = save_memory(conn, settings, SaveRequest("我喜欢用 vim 写代码。", "daily"))
    assert (again.relation, again.known_id) == ("repeat", first.insight_id)
    assert insights.count_insights(conn, status="pending") == 1


def test_a_project_scoped_insight_stays_in_its_project(settings: Settings) -> None:
    conn = _open(settings)
    own = _confirmed(conn, "Use pnpm, not npm", project="shop")
    everywhere = _confirmed(conn, "Reply in Chinese", project="shop", scope="global")
    near = insight_jobs.keyword_neighbours(conn, "pnpm npm Chinese reply", project="ledger", private=(), limit=10)
    assert [i.id for i in near] == [everywhere]
    shown = recall.recall_insights(
        conn, project="ledger", private=frozenset(), now=datetime.now(UTC), half_life_days=30, cold_below=0.1
    )
    assert [r.insight.id for r in shown] == [everywhere]
    with write_transaction(conn):
        insights.set_scope(conn, own, "global", actor="test", now=NOW)
    near = insight_jobs.keyword_neighbours(conn, "pnpm npm", project="ledger", private=(), limit=10)
    assert [i.id for i in near] == [own]


def test_a_session_candidate_supersedes_within_record_increments(settings: Settings) -> None:
    conn = _open(settings)
    old = _confirmed(conn, "Local services run with docker compose", project="api")
    [candidate] = said("以后不用 docker compose 了，改成 podman")
    with write_transaction(conn):
        [made] = record_increments(
            conn, settings, project="api", source_id=None, candidates=[candidate], origin="local", ordered=True, now=NOW
        )
    assert (made.relation, made.known_id) == ("supersedes", old)


@pytest.mark.parametrize(
    ("known", "note"),
    [
        ("The ch4 draft is due April 15", "Deadline moved: the ch4 draft is now due April 8, not April 15."),
        ("周四晚上 7:30 上中文课", "下周开始中文课改到周二晚上 8 点。"),
    ],
)
def test_a_note_that_says_it_changes_a_value_supersedes(settings: Settings, known: str, note: str) -> None:
    conn = _open(settings)
    old = _confirmed(conn, known, project="daily")
    [candidate] = extract_candidates(note)
    with write_transaction(conn):
        [made] = record_increments(
            conn, settings, project="daily", source_id=None, candidates=[candidate], origin="local", now=NOW
        )
    assert (made.relation, made.known_id) == ("supersedes", old)


def test_edit_scope_moves_an_insight_between_global_and_project(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    conn = _open(settings)
    own = _confirmed(conn, "Use pnpm, not npm", project="shop")
    conn.close()
    assert cli.main(["edit", f"ins-{own}", "--scope", "global", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["scope"], data["statement"]) == ("global", "Use pnpm, not npm")
    assert cli.main(["edit", f"ins-{own}"]) == 1


@pytest.mark.parametrize(
    ("turn", "must"),
    [
        ("函数组件加 hooks，不要用 class", ("hooks", "class")),
        ("Use function components with hooks, never class components", ("hooks", "class")),
        ("About commits: use conventional commit messages", ("conventional",)),
        ("关于提交：commit message 一律用英文", ("英文",)),
        # where a thing is, and a date moved, said plainly in Chinese
        ("staging 在 10.20.3.7 上", ("10.20.3.7",)),
        ("预发环境在 pre.example.com", ("pre.example.com",)),
        ("周会改到周三了", ("周三",)),
    ],
)
def test_rules_with_lead_ins_or_no_standing_word_are_found(turn: str, must: tuple[str, ...]) -> None:
    [candidate] = said(turn)
    assert all(word in candidate.statement for word in must)
    assert not candidate.statement.lower().startswith(("about", "关于"))


@pytest.mark.parametrize(
    ("note", "wanted"),
    [
        (
            "# Weekly sync, 2026-11-20\n\nAttendees: Li Wei, Sam, Priya\n\n## Decisions\n"
            "- Launch date: 2026-12-12\n- Owner of the rollout: Li Wei\n- Region: eu-west-1 first\n\n"
            "## Other\nWe talked about the offsite.\n",
            ("2026-12-12", "Li Wei", "eu-west-1"),
        ),
        (
            "# 周会纪要 11-20\n\n参会：李伟、Sam\n\n## 结论\n- 上线日期定在 12 月 12 日\n- 灰度由李伟负责\n"
            "- 先开华东区\n\n## 其他\n聊了下团建。\n",
            ("12 月 12 日", "李伟", "华东"),
        ),
        (
            "# How I study vocabulary\n\nI tried many apps. Review each card on day 1, 3 and 7.\n"
            "Always recall the answer before you look at it.\n",
            ("1, 3 and 7", "recall"),
        ),
        ("# 背单词\n\n试过很多方法。每张卡片在第 1、3、7 天复习。\n看答案之前先自己回忆。\n", ("1、3、7", "回忆")),
    ],
)
def test_a_notes_methods_and_decisions_are_all_found(note: str, wanted: tuple[str, ...]) -> None:
    statements = [c.statement for c in extract_candidates(note)]
    for word in wanted:
        assert any(word in statement for statement in statements), (word, statements)
    assert not any("offsite" in s or "团建" in s or "tried many" in s for s in statements)


@pytest.mark.parametrize(
    ("candidate", "known", "kind"),
    [
        ("这是个 pnpm 仓库", "Always use pnpm", "repeat"),
        (
            "Review the same card on days 1, 2, 4, 7 and 15, that's spaced repetition",
            "When reviewing, go over the same card on days 1, 2, 4, 7, 15",
            "repeat",
        ),
        ("数据库改成 SQLite", "The database is Postgres", "supersedes"),
    ],
)
def test_the_other_languages_forms_of_the_examples(candidate: str, known: str, kind: str) -> None:
    assert _relation(candidate, known) == kind


@pytest.mark.parametrize(
    ("candidate", "known"),
    [
        ("commit message 以后可以用中文写了，但是 feat: / fix: 这些前缀保留英文",
         "所有 repo 里 commit message 都用英文写，按 Conventional Commits 的格式来"),
        ("Commit messages can be in Chinese from now on, but keep the feat: / fix: prefixes in English",
         "Write every commit message in English, in the Conventional Commits format"),
    ],
    ids=["zh", "en"],
)  # fmt: skip
def test_what_is_allowed_from_now_on_supersedes_the_rule_against_it(candidate: str, known: str) -> None:
    assert _relation(candidate, known) == "supersedes"


@pytest.mark.parametrize(
    ("candidate", "known", "kind"),
    [
        (
            "admin 后台的表单例外，可以用 server actions",
            "API 统一走 route handlers，不要用 server actions",
            "supplement",
        ),
        ("When debugging on one GPU, don't use torchrun", "Launch training with torchrun on 8 GPUs", "supplement"),
        ("pnpm pls, not npm — I use pnpm for everything", "我都用 pnpm，不要给我 npx / npm 的指令", "repeat"),
        ("Use npm for everything here", "Use pnpm, not npm", "supersedes"),
        # an exception that turns the rule around for its own case, found by a new user
        (
            "Ok fair, exception: in test classes field @Autowired is fine",
            "In ledgerly use constructor injection only, never field @Autowired",
            "supplement",
        ),
        ("测试类例外，可以用字段 @Autowired 注入", "ledgerly 里只用构造器注入，不要字段 @Autowired 注入", "supplement"),
        # found in a tuning half: a case of its own, and what still holds, retired the rule
        (
            "for local testing a relative source like ../tf-modules//eks is fine, but never commit a relative source",
            "Modules are sourced from tf-modules pinned to a release tag, never a branch.",
            "supplement",
        ),
        ("Besides lint and typecheck, run `pnpm test:e2e` whenever you touch the contact form", _CHECKS, "supplement"),
        # amounts of different measures give a thing no other value: a cache kept 30 days adds to one of 500 MB
        (
            "离线区域超过 30 天就提示用户刷新（MapTiler license 只允许缓存 30 天）",
            "The offline tile cache is capped at 500 MB per device; "
            "a download that would exceed it asks the user to delete a region first.",
            "supplement",
        ),
    ],
)
def test_exceptions_supplement_and_a_mention_is_not_a_use(candidate: str, known: str, kind: str) -> None:
    assert _relation(candidate, known) == kind


def test_a_disagreement_that_says_when_is_no_exception_for_it() -> None:
    """"sleep when tired" names no case the rule stands aside for: the bedtime rule is disputed, not supplemented."""
    said = "Bedtime at 23:00 is too rigid; sleep when tired and wake at a fixed time instead"
    assert _relation(said, "Go to bed by 23:00 on weekdays") in ("different", "supersedes")


def test_a_dropped_notes_candidates_stay_in_its_project(settings: Settings) -> None:
    conn = _examine_dropped(settings, "daily", "日记.md", "我乳糖不耐受，咖啡只喝美式。\n\n以后回答我都用中文。\n")
    found = insights.list_insights(conn, status="pending", project="daily", limit=10)
    assert found and {i.scope for i in found} == {"project"}  # global only once the person says so


def _recorded(conn: apsw.Connection, settings: Settings, statement: str, *, project: str) -> tuple[str, int | None]:
    candidate = Candidate(statement, "preference", "", statement, 0, len(statement), "project")
    made = _record(conn, settings, candidate, project=project)
    return made.relation, made.known_id


def _record(conn: apsw.Connection, settings: Settings, candidate: Candidate, *, project: str) -> Increment:
    """Record one candidate as the person's newer word in ``project``."""
    with write_transaction(conn):
        [made] = record_increments(
            conn, settings, project=project, source_id=None, candidates=[candidate], origin="local", ordered=True,
            now=NOW,
        )  # fmt: skip
    return made


@pytest.mark.parametrize(
    ("statement", "dated", "others"),
    [
        ("Data freeze slipped to March 14", "训练数据 3/12 冻结，之后不再加新数据",
         ["V2 发版日期定在 3/20", "数据在 /mnt/nas/lumen/data/v3", "Checkpoint 存 /mnt/nas/lumen/ckpt，保留最近 3 个"]),
        ("数据冻结推迟到 3 月 14 日", "The training data freeze is on 2026-03-12",
         ["The v2 release date is March 20", "Training data lives under /mnt/nas/lumen/data/v3"]),
    ],
)  # fmt: skip
def test_a_changed_date_supersedes_the_insight_of_the_same_dated_thing(
    settings: Settings, statement: str, dated: str, others: list[str]
) -> None:
    conn = _open(settings)
    for other in others:
        _confirmed(conn, other, project="lumen")
    target = _confirmed(conn, dated, project="lumen")
    assert _recorded(conn, settings, statement, project="lumen") == ("supersedes", target)


@pytest.mark.parametrize(
    ("statement", "known", "others"),
    [
        ("每次最后别再给我总结一遍了，diff 我自己会看",
         "Skip the recap at the end of every answer, I read the diff myself",
         ["每次最后都要跑一遍测试", "别再给我发一遍长日志了", "我自己会看 CI 的结果", "每次最后给我一个命令清单"]),
        ("Skip the recap at the end of every answer, I read the diff myself",
         "每次最后别再给我总结一遍了，diff 我自己会看",
         ["Skip the flaky e2e suite at the end of CI runs", "Answer every question in one paragraph",
          "I read the logs myself", "At the end of every session, list the commands"]),
    ],
)  # fmt: skip
def test_a_repeat_in_the_other_language_is_found_among_insights_sharing_its_common_words(
    settings: Settings, statement: str, known: str, others: list[str]
) -> None:
    narrow = settings.model_copy(update={"insights": InsightSettings(neighbours=2)})
    conn = _open(narrow)
    target = _confirmed(conn, known, project="lumen")
    for other in others:
        _confirmed(conn, other, project="lumen")
    assert _recorded(conn, narrow, statement, project="lumen") == ("repeat", target)
    assert insights.count_insights(conn, status="pending") == 0


@pytest.mark.parametrize(
    ("turn", "category", "scope"),
    [
        # "everywhere" in the code is not every project
        ("Bf16 everywhere, except the similarity logits: upcast those to fp32", "preference", "project"),
        ("Use pnpm in all my projects, never npm", "preference", "global"),
        # how to talk to the person holds everywhere, in either script and language
        ("以後回我都用繁體中文，code comment 跟 commit message 維持英文就好", "preference", "global"),
        ("以后回我都用简体中文", "preference", "global"),
        ("skip the recap at the end of every answer, I read the diff myself", "preference", "global"),
        ("Answer in whatever language I write in.", "preference", "global"),
        # "don't guess" is a rule, and a quoted hedge ('not sure') is not the person hedging
        (
            "if you're not sure just say so, don't guess — I'd rather hear 'not sure' than a confident wrong answer",
            "preference",
            "global",
        ),
        ("不确定就说不确定，别瞎猜", "preference", "global"),
        # rules and settings said plainly
        ("one concern per PR", "preference", "global"),
        ("Flush at 50,000 records or 60 seconds, whichever comes first.", "preference", "project"),
        ("Prod runs 6 replicas, one per two partitions of rider.location.v2.", "entity", "project"),
        # a rule said of the project at hand stays with it, however it addresses the person
        ("这个项目用 poetry 管理依赖，别给我用 pip install。", "preference", "project"),
        ("這個專案一律用 pnpm，不要給我 npm 的指令", "preference", "project"),
        # typed with a space before the English word
        ("這個 repo 的 commit message 用中文寫，前面一樣 feat: / fix:，林老闆會看 changelog", "preference", "project"),
        ("我都用 pnpm，不要給我 npx / npm 的指令，所有專案都一樣。", "preference", "global"),
        ("Use pnpm in all my projects, not just this repo", "preference", "global"),
        # found in a fresh half: a habit "for everything" stayed with the repo it was said in
        ("I use pnpm for everything, never npm install", "preference", "global"),
        ("我什么都用 pnpm，别给我 npm install", "preference", "global"),
        # how to talk to the person, said of this project only, stays with it
        ("In this repo answer in English, the code and docs here are all English.", "preference", "project"),
        ("这个仓库里用英文回复我就行，代码和文档都是英文的。", "preference", "project"),
        # where the person grew up is who they are, in every project
        ("I grew up in Guangzhou, so you'll see Chinese or Cantonese from me sometimes.", "identity", "global"),
        ("我广州长大的，打字偶尔会冒粤语，你看得懂就行。", "identity", "global"),
        ("我是在台中長大的，所以中英文混著講。", "identity", "global"),
    ],
)
def test_a_rule_is_found_with_its_category_and_scope(turn: str, category: str, scope: str) -> None:
    found = said(turn)
    assert found and (found[0].category, found[0].scope) == (category, scope)


@pytest.mark.parametrize(
    ("sentence", "names_it"),
    [
        ("这个项目用 poetry 管理依赖", True),
        ("這個專案一律轉 WebP", True),
        ("this repo is on Go 1.22", True),
        ("type hints in all my python code, not just this repo", False),
        ("不只是这个项目，别的也一样", False),
        ("這個 repo 的 commit message 用中文寫", True),
        ("不只是这个 repo，别的也一样", False),
        ("Any PR that changes model output bumps the minor version in pyproject", True),  # its manifest
        ("go.mod says go 1.23 now", True),
        ("my pyprojects are tidy", False),
        ("use pnpm, never npm", False),
    ],
)
def test_a_sentence_names_the_project_at_hand_only_outright(sentence: str, names_it: bool) -> None:
    assert names_this_project(fold(sentence)) is names_it


def _rejected(conn: apsw.Connection, statement: str, *, project: str) -> int:
    with write_transaction(conn):
        insight_id = insights.insert_insight(
            conn,
            project=project,
            candidate=Candidate(statement, "decision", "", statement, 0, len(statement), "project"),
            relation="new",
            source_id=None,
            now=NOW,
        )
        insights.review(conn, insight_id, "reject", actor="test", now=NOW)
    return insight_id


@pytest.mark.parametrize(
    ("statement", "dated", "rejected"),
    [
        ("周会结论：切读推迟到 1 月 8 日凌晨，gh-ost 改 t_settle_detail 太慢",
         "切读日期定在 12 月 20 日凌晨 2 点", "海峰担心 t_settle_detail 大表 DDL 锁表，韩雪说用 gh-ost 在线改"),
        ("Cutover moved to January 8, gh-ost is too slow on t_settle_detail",
         "The read cutover is on December 20 at 2am", "Han Xue says gh-ost can alter t_settle_detail online"),
    ],
)  # fmt: skip
def test_a_change_passes_over_a_rejected_idea_to_the_live_insight_it_changes(
    settings: Settings, statement: str, dated: str, rejected: str
) -> None:
    # found in a fresh half: the rejected note shared more words, and a rejected idea anchors no change,
    # so the moved cutover date was proposed as new and the old date stayed
    conn = _open(settings)
    target = _confirmed(conn, dated, project="settle")
    _rejected(conn, rejected, project="settle")
    assert _recorded(conn, settings, statement, project="settle") == ("supersedes", target)


@pytest.mark.parametrize(
    ("name", "note", "own"),
    [
        ("b2-clipping.md",
         "Saved from a blog someone posted in the Discord.\n\n---\n\n# Why I went back to the UI editor\n\nBy Erik"
         "\n\nKeep your automations in the UI editor and let automations.yaml be the single source of truth.\n\n"
         "Never split YAML by room; it just means two places to look.\n\n---\n\n"
         "My notes: from now on every automation of ours lives in one YAML file per room.\n",
         "one YAML file per room"),
        ("转载-celery.md",
         "> 转自一个技术博客，收藏返嚟。\n\n# 我们踩过的坑\n\n作者：王志远\n\n"
         "所有 task 统一加 `autoretry_for=(Exception,)`，以后都不用单独想 retry 什么异常。\n\n"
         "我们把 `task_ignore_result=True` 设成全局默认。\n\n---\n\n我嘅批注：\n- 以后我哋只 retry 网络错误同 429。\n",
         "只 retry 网络错误同 429"),
        # a note of someone else's talk is theirs too, up to the person's own section
        ("meetup.md",
         "# Vue.js SG meetup — Oct edition\n\n## Talk 1 — Playwright at 3,000 tests\n"
         "- Her take: never use data-testid, always locate by role and accessible name.\n"
         "- They always keep traces only on failure, to cut artifact storage.\n\n"
         "## My take\n- From now on our e2e tests keep traces only on failure.\n",
         "our e2e tests keep traces only on failure"),
        ("qcon.md",
         "# 看回放：QCon 上海 2026《支付核心的资金一致性实践》\n\n## 要点\n"
         "- 讲者建议资金类核心链路一律用 TCC，不要用 outbox。\n- 他们的对账一律做成准实时，差异实时告警。\n\n"
         "## 我的想法\n- 以后我写的所有对外接口都要带幂等键。\n",
         "所有对外接口都要带幂等键"),
        # a note on a named article or book: its listed points are the work's, the reader's own section theirs
        ("reading-mocks.md",
         '# reading: "Stop mocking the database" — Ana Ruiz (blog)\n\nSource: a post from the #backend channel\n\n'
         "## her points\n- Never mock the ORM; run every test against a real Postgres in a container.\n"
         "- Mocks drift from the real schema, so tests keep passing against tables that no longer exist.\n\n"
         "## my take\n- From now on every repo of mine runs its integration tests against a real Postgres.\n",
         "integration tests against a real Postgres"),
        ("ddia.md",
         "# 《数据密集型应用系统设计》第 5 章 复制\n\n地铁上读的，记几个点。\n\n"
         "- 读自己刚写的数据时一律走主库。\n- 从库读可能读到旧数据，这叫复制延迟，一般在一秒以内。\n\n"
         "## 我的想法\n- 以后我们订单详情页一律读主库。\n",
         "订单详情页一律读主库"),
        # …while a heading that only names a talk with someone is no talk of theirs
        ("rachel.md", "# Talk with Rachel — Q2 plan\n\n- From now on the Q2 plan is reviewed every Monday.\n",
         "reviewed every Monday"),
    ],
)  # fmt: skip
def test_a_clipped_article_in_the_inbox_proposes_only_the_readers_own_words(
    settings: Settings, name: str, note: str, own: str
) -> None:
    conn = _examine_dropped(settings, "home", name, note)
    found = insights.list_insights(conn, status="pending", project="home", limit=10)
    assert [own in i.statement for i in found] == [True], [i.statement for i in found]


@pytest.mark.parametrize(
    ("candidate", "known"),
    [
        # a count moved, with no unit: written Cantonese, and English
        ("SP-API 嘅 quota 批咗，batch size 改做 200。", "`SYNC_BATCH_SIZE` 暂时用 50 先，quota 批落嚟之前唔好调大"),
        ("The quota came through, so bump the batch size to 200.", "Batch size stays at 50 until the quota is in"),
        # a weekday moved, the Cantonese way and the Mandarin way
        ("羽毛球由今个礼拜开始改咗礼拜三晚，礼拜四晚唔使留空喇。", "逢礼拜四晚七点后去打羽毛球，唔好约嘢"),
        ("羽毛球从这周开始改到周三晚，周四晚不用留空了。", "每周四晚七点后去打羽毛球，别约别的事"),
        ("AC threshold goes to 27°C now.", "Use 28°C as the AC threshold"),
    ],
)  # fmt: skip
def test_a_value_moved_in_cantonese_or_without_a_unit_supersedes(candidate: str, known: str) -> None:
    assert _relation(candidate, known) == "supersedes"


@pytest.mark.parametrize(
    ("candidate", "known"),
    [
        ("PR titles start with the Jira key in brackets, like [OMS-2315] Switch FX source to Wise — same as every PR"
         " in this repo.", "PR titles start with [OMS-<number>], e.g. `[OMS-2291] Add refund_reason`"),
        ("PR 标题要用 [OMS-编号] 开头，比如「[OMS-2315] 汇率来源换成 Wise」，跟其他 PR 一样。",
         "PR title 要用 [OMS-编号] 开头，例如 `[OMS-2291] Refund 加 refund_reason 字段`"),
    ],
)  # fmt: skip
def test_a_change_word_inside_an_example_is_no_change_of_a_rule_said_again(candidate: str, known: str) -> None:
    assert _relation(candidate, known) == "repeat"


@pytest.mark.parametrize(
    "turn",
    [
        "TestFlight builds come from Xcode Cloud — the Release workflow picks up every push to main.",
        "TestFlight 的包都来自 Xcode Cloud，每次 push 到 main 都会触发 Release workflow。",
    ],
)
def test_what_a_projects_ci_does_on_every_push_to_main_stays_with_the_project(turn: str) -> None:
    found = extract_candidates(turn, conversational=True)
    assert found and {c.scope for c in found} == {"project"}, found


@pytest.mark.parametrize(
    ("candidate", "known", "kind"),
    [
        # a rule about a project beside the project's introduction, which it names and does not add to
        ("Kakeibo stays offline-only: no Firebase, no Supabase, nothing that phones home.",
         "Kakeibo is my personal budgeting app — Flutter 3.24, Riverpod 2, Drift on SQLite", "new"),
        ("trip-etl 的 DAG 一律 catchup=False，补数走手动 backfill。",
         "trip-etl 是我维护的行程数仓 ETL，调度用 Airflow，表全是 Delta", "new"),
        # …or beside the person's own
        ("Celery 的 task 一律放进 orders.sync 这条 queue。",
         "我是陈家乐，在广州写后端，主要用 Django 和 Celery", "new"),
        ("Every Celery task goes on the orders.sync queue.",
         "I'm Jiale Chen, a backend dev in Guangzhou — Django and Celery", "new"),
        # an introduction said again, in either language, is still a repeat of it
        ("Kakeibo is my personal budgeting app, built with Flutter and Drift.",
         "Kakeibo is my personal budgeting app — Flutter 3.24, Riverpod 2, Drift on SQLite", "repeat"),
        ("Kakeibo 是我自己的记账 app，用 Flutter 和 Drift 写的。",
         "Kakeibo is my personal budgeting app — Flutter 3.24, Riverpod 2, Drift on SQLite", "repeat"),
    ],
)  # fmt: skip
def test_a_rule_about_a_project_is_no_supplement_of_its_introduction(candidate: str, known: str, kind: str) -> None:
    [found] = extract_candidates(candidate, conversational=True) or [
        Candidate(candidate, "entity", "", candidate, 0, len(candidate))
    ]
    # with the cosine the default model gives such a pair (0.34 for the first), as the product relates them
    relation = relate(found, [_known(known, cosine=0.35)], repeat_similarity=0.8, related_similarity=0.4, ordered=True)
    assert relation.kind == kind


@pytest.mark.parametrize(
    ("older", "turns", "kinds"),
    [
        # one session's two rules, on one crate or on migrations: side by side, neither adds to the other
        (None, ["Rexif is a different crate and we don't use it.", "Anyhow everywhere in this crate, no thiserror."],
         ["new", "new"]),
        (None, ["迁移脚本一律手写 SQL。", "跑过 prod 的迁移脚本不许再改，有问题就加一个新的迁移。"], ["new", "new"]),
        # …while what adds to a rule said before still supplements it
        ("Thumbnails are written as WebP", ["Rexif is a different crate and we don't use it.",
         "Thumbnails are always written as WebP next to each photo, at 512 px."], ["new", "supplement"]),
        ("缩略图一律存成 WebP", ["Rexif 是另一个 crate，我们不用。", "缩略图一律存成 WebP，放在照片旁边，宽 512 px。"],
         ["supplement"]),
    ],
)  # fmt: skip
def test_a_sentence_supplements_what_was_said_before_not_the_rule_beside_it(
    settings: Settings, older: str | None, turns: list[str], kinds: list[str]
) -> None:
    conn = _open(settings)
    known = _confirmed(conn, older, project="photos") if older is not None else None
    candidates = [candidate for turn in turns for candidate in said(turn)]
    with write_transaction(conn):
        made = record_increments(
            conn, settings, project="photos", source_id=None, candidates=candidates, origin="local", ordered=True,
            now=NOW,
        )  # fmt: skip
    assert [increment.relation for increment in made] == kinds, made
    if known is not None:
        assert made[-1].known_id == known


@pytest.mark.parametrize(
    ("candidate", "known", "kind"),
    [
        ("Use pnpm, not npm — `pnpm jest` too.",
         "这个仓库用 pnpm，我所有 JS 项目都用 pnpm，lockfile 是 pnpm-lock.yaml", "repeat"),
        ("commit message 继续用 conventional commits 那种 feat: / fix: 前缀。",
         "Commit messages use conventional-commit style (e.g. `ci: add workflow`)", "repeat"),
        # …while a case of its own still adds to it, in any words
        ("Use pnpm, except in the docs folder, which stays on npm.",
         "这个仓库用 pnpm，我所有 JS 项目都用 pnpm，lockfile 是 pnpm-lock.yaml", "supplement"),
    ],
)  # fmt: skip
def test_a_rule_said_in_the_other_language_at_a_middling_cosine_is_a_repeat(
    candidate: str, known: str, kind: str
) -> None:
    # 0.58: the default model's cosine of "use pnpm, not npx/npm — `pnpm jest`" and its Chinese known insight
    [found] = extract_candidates(candidate, conversational=True)
    relation = relate(found, [_known(known, cosine=0.58)], repeat_similarity=0.8, related_similarity=0.4, ordered=True)
    assert relation.kind == kind


def test_what_follows_an_openers_colon_is_still_read() -> None:
    [found] = said("First time in this repo, so context: we always use pnpm here.")
    assert "pnpm" in found.statement


@pytest.mark.parametrize(
    ("candidate", "known"),
    [
        ("We dropped Great Expectations last week — quality rules now live as Delta CHECK constraints on the tables.",
         "Data quality checks use Great Expectations; suites live under gx/"),
        ("上周把 Great Expectations 砍掉了，质量规则都写成 Delta 的 CHECK 约束。",
         "数据质量检查用 Great Expectations，suite 放在 gx/ 下面"),
        ("So scrap Formspree: the contact form now posts to our own route handler.",
         "The contact form goes through Formspree"),
        ("Formspree 弃用了，联系表单改成发到我们自己的 route handler。", "联系表单走 Formspree"),
    ],
)  # fmt: skip
def test_a_tool_dropped_or_scrapped_supersedes_the_rule_that_uses_it(candidate: str, known: str) -> None:
    [found] = extract_candidates(candidate, conversational=True) or [
        Candidate(candidate, "decision", "", candidate, 0, len(candidate))
    ]
    relation = relate(found, [_known(known, cosine=0.3)], repeat_similarity=0.8, related_similarity=0.4, ordered=True)
    assert relation.kind == "supersedes"


@pytest.mark.parametrize(
    ("statement", "quote", "known"),
    [
        # a note's item under a heading that says the change: the heading is in the statement, not the quote
        ("mosquitto 迁到 NAS — 新 broker: 192.168.1.20:1883（NAS），Pi 上的 mosquitto 已停用",
         "新 broker: 192.168.1.20:1883（NAS），Pi 上的 mosquitto 已停用",
         "Broker is mosquitto running on the Pi itself, 192.168.1.50 port 1883"),
        ("Switched to podman — local services run with podman compose, not docker compose",
         "local services run with podman compose, not docker compose", "Local services run with docker compose"),
    ],
)  # fmt: skip
def test_a_change_said_in_a_notes_heading_supersedes(statement: str, quote: str, known: str) -> None:
    candidate = Candidate(statement, "entity", "", quote, 0, len(quote))
    relation = relate(
        candidate, [_known(known, cosine=0.4)], repeat_similarity=0.8, related_similarity=0.4, ordered=False
    )
    assert relation.kind == "supersedes"


@pytest.mark.parametrize(
    ("candidate", "known", "kind"),
    [
        # another reply language is a change, in either language, not the rule said again
        ("以后回复都用英文吧", "回复一律用中文", "supersedes"),
        ("From now on reply in English.", "Always reply in Chinese.", "supersedes"),
        # …and said of this repo only, it is this project's exception to the global rule
        ("In this repo answer in English, the docs here are all English.",
         "Answer in Chinese, keeping technical terms in English.", "supplement"),
        ("这个仓库里回答一律用英文。", "回复一律用中文", "supplement"),
        # the language the person writes in is not the one they want answers in
        ("From now on, even when I write in Chinese, answer in English.", "回复用中文", "supersedes"),
        ("Chinese replies please, even when I write in English.", "Always reply in English.", "supersedes"),
        ("Chinese replies please, even when I write in English.", "回复一律用中文", "repeat"),
        # "English replies", "回答我用英文", "跟我说话用英文" name the answers' language as well
        ("English replies from now on, even when I type 中文", "回复一律用中文", "supersedes"),
        ("以后回答我用英文", "回复一律用中文", "supersedes"),
        ("跟我说话用英文就好，就算我打中文也一样", "Always reply in Chinese.", "supersedes"),
    ],
)  # fmt: skip
def test_another_reply_language_changes_the_rule_or_is_a_projects_exception(
    candidate: str, known: str, kind: str
) -> None:
    [found] = extract_candidates(candidate, conversational=True)
    relation = relate(
        found, [_known(known, scope="global")], repeat_similarity=0.8, related_similarity=0.4, ordered=True
    )
    assert relation.kind == kind


def test_a_reply_language_in_a_condition_sets_nothing() -> None:
    said = "生词后面加个 English，比如 降级 (downgrade)"
    found = Candidate(said, "preference", "用中文回答的时候", said, 0, len(said), "global")
    relation = relate(
        found, [_known("Reply in English unless I say otherwise", scope="global")], repeat_similarity=0.8,
        related_similarity=0.4, ordered=True,
    )  # fmt: skip
    assert relation.kind not in ("supersedes", "different")


def _said_as_global(conn: apsw.Connection, settings: Settings, said: str, *, project: str) -> Increment:
    """Record a statement the scope rules read as global, as the person's newer word in ``project``."""
    return _record(conn, settings, Candidate(said, "decision", "", said, 0, len(said), "global"), project=project)


def _scope_of(conn: apsw.Connection, made: Increment) -> str:
    assert made.insight_id is not None
    return insights.get_insight(conn, made.insight_id).scope


@pytest.mark.parametrize(
    ("known", "said", "scope"),
    [
        # an exception to one repo's rule is that repo's, whatever the scope rules read in it
        (
            "Migrations must be reversible: every new migration gets a down.sql",
            "Data backfill migrations may skip the down.sql, but always write how to roll back by hand",
            "project",
        ),
        (
            "迁移必须可回滚，每个新 migration 都要写 down.sql",
            "数据 backfill 的 migration 可以不写 down.sql，但一定要写清楚怎么手动回滚",
            "project",
        ),
        # …unless it says it holds in every project
        (
            "Migrations must be reversible: every new migration gets a down.sql",
            "In all my repos, data backfill migrations may skip the down.sql",
            "global",
        ),
    ],
)  # fmt: skip
def test_what_adds_to_a_projects_rule_is_that_projects(settings: Settings, known: str, said: str, scope: str) -> None:
    """Found in a tuning half: an exception to fleet-router's migration rule was global, so every other
    project's context carried it."""
    conn = _open(settings)
    target = _confirmed(conn, known, project="fleet-router")
    made = _said_as_global(conn, settings, said, project="fleet-router")
    assert (made.relation, made.known_id) == ("supplement", target)
    assert _scope_of(conn, made) == scope


@pytest.mark.parametrize(
    ("said", "relation", "scope"),
    [
        ("部署方式变了：make deploy-staging 以后不用了，改走 Argo CD", "supersedes", "project"),
        ("Change of plans: no more make deploy-staging, deploys go through Argo CD now", "supersedes", "project"),
        # said of every project, it stands beside the project's own rule
        ("In all my repos, no more make deploy-staging: deploys go through Argo CD now", "different", "global"),
    ],
)
def test_a_change_of_a_projects_rule_supersedes_it_whatever_scope_its_words_read(
    settings: Settings, said: str, relation: str, scope: str
) -> None:
    """Found in a tuning half: a change read as global by its words was "different" from the project rule it
    changed, so both stayed in the context side by side."""
    conn = _open(settings)
    target = _confirmed(conn, "Staging deploys go through make deploy-staging", project="fleet-router")
    made = _said_as_global(conn, settings, said, project="fleet-router")
    assert (made.relation, made.known_id) == (relation, target)
    assert _scope_of(conn, made) == scope


@pytest.mark.parametrize(
    ("said", "relation", "scope"),
    [
        ("From now on you can push feature branches yourself, just never main", "supersedes", "global"),
        # said of this repository, it is its exception, and the rule stands everywhere else
        ("In this repo you can push feature branches yourself from now on, just never main", "supplement", "project"),
    ],
)  # fmt: skip
def test_a_change_of_plan_of_a_rule_kept_everywhere_changes_it_everywhere(
    settings: Settings, said: str, relation: str, scope: str
) -> None:
    """Found in a tuning half: said in one project, the change of a global rule was "different" from it and
    project-scoped, so every other project kept "never push" beside it."""
    conn = _open(settings)
    target = _confirmed(conn, "Never push — pushing is my job", project="helmwright", scope="global")
    candidate = Candidate(said, "preference", "", said, 0, len(said), "project")
    made = _record(conn, settings, candidate, project="infra-live")
    assert (made.relation, made.known_id) == (relation, target)
    assert _scope_of(conn, made) == scope


MEETING = (
    "补货预测对齐会 2026-09-09（周三）\n\n"
    "陈桐：采购是按 6 周一个周期下单的，28 天的预测不够用。\n\n"
    "决定：预测 horizon 从 28 天改成 42 天，对齐采购 6 周的下单周期。\n"
)


def _meeting_candidates(conn: apsw.Connection) -> tuple[int, list[Candidate]]:
    with write_transaction(conn):
        source_id = items.insert_source(
            conn, NewSource(kind="file", project="forecast", title="meeting", raw_text=MEETING), now=NOW
        )
    said = (
        "陈桐：采购是按 6 周一个周期下单的，28 天的预测不够用",
        "预测 horizon 从 28 天改成 42 天，对齐采购 6 周的下单周期",
    )
    found = []
    for sentence in said:
        start = MEETING.index(sentence)
        found.append(Candidate(sentence, "decision", "", sentence, start, start + len(sentence)))
    return source_id, found


@pytest.mark.parametrize("older", [None, "预测的粒度是 SKU × 仓库 × 天，horizon 是 28 天"])
def test_a_change_is_never_of_a_candidate_the_same_source_just_proposed(settings: Settings, older: str | None) -> None:
    conn = _open(settings)
    known = _confirmed(conn, older, project="forecast") if older is not None else None
    source_id, candidates = _meeting_candidates(conn)
    with write_transaction(conn):
        first, second = record_increments(
            conn, settings, project="forecast", source_id=source_id, candidates=candidates, origin="local", now=NOW
        )
    assert first.relation == "new"
    # the decision changes the confirmed horizon, not the remark one paragraph above it in the same note
    assert (second.relation, second.known_id) == (("supersedes", known) if known is not None else ("new", None))


def test_a_change_is_of_the_insight_holding_the_value_it_leaves() -> None:
    # found in tune18: the change named the old version, and went to the rule sharing more of its path words
    text = "We're on 1.30 now, so the 1.29 AMI SSM parameter lookups in live/*/ca-central-1/eks can go"
    found = Candidate(text, "entity", "", text, 0, len(text))
    known = [
        Known(1, "Prod is live/prod/ca-central-1/eks, not live/prod/eks — every env has the region level", "",
              "correction", None, "project"),
        Known(2, "The prod cluster is tw-prod-ca, running EKS 1.29", "", "entity", None, "project"),
    ]  # fmt: skip
    relation = relate(found, known, repeat_similarity=0.8, related_similarity=0.4, ordered=True)
    assert (relation.kind, relation.known_id) == ("supersedes", 2)


@pytest.mark.parametrize(
    ("turn", "reported"),
    [
        # found on tune28: the person's own change, with the PI's wish as its reason
        ("Change of target journal: we're no longer going to Nature Communications first — Ruth wants Cell "
         "Reports, so full-width figures are 174 mm.", False),
        ("Ruth wants Cell Reports, so full-width figures are 174 mm.", True),
        # found on tune41: a change made by the one who has a say in it (the café is 阿凱's), passed on as news
        ("先說一個變更：阿凱說下個月起公休日改成週一", False),
        ("阿凱說客人都玩超久，原本的根本不夠，時段改成 3 小時", False),
        ("dana says the change freeze moved to thu dec 17", False),
        # …not a view, advice or a wish, nor what an article says
        ("阿凱覺得時段應該改成 3 小時", True),
        ("dana thinks the freeze should move to thu dec 17", True),
        ("文章說以後 front matter 都改成 TOML", True),
    ],
)  # fmt: skip
def test_a_change_the_person_makes_for_someone_elses_reason_is_theirs(turn: str, reported: bool) -> None:
    [candidate] = said(turn)
    assert candidate.reported is reported


def test_what_the_person_is_no_longer_going_to_is_turned_down() -> None:
    # found on tune28: the change went to the repo's introduction ("a targets pipeline" shares "target")
    text = "we're no longer going to Nature Communications first, Ruth wants Cell Reports, so figures are 174 mm"
    known = [
        Known(1, "It's R 4.4 with renv, a targets pipeline (_targets.R), ggplot2 figures and a Quarto manuscript",
              "", "entity", None, "project"),
        Known(2, "We're aiming at Nature Communications, so double-column panels are 180 mm wide", "", "entity",
              None, "project"),
    ]  # fmt: skip
    found = Candidate(f"Change of target journal: {text}", "decision", "", f"Change of target journal: {text}", 0, 9)
    relation = relate(found, known, repeat_similarity=0.8, related_similarity=0.4, ordered=True)
    assert (relation.kind, relation.known_id) == ("supersedes", 2)


def test_a_point_of_a_work_that_turns_a_rule_around_differs_from_it(settings: Settings) -> None:
    """Found in a tuning half: "Don't mock httpx — record real responses" was read as using "don", not "record",
    so "her rule: never record real responses" added to the rule instead of turning it around."""
    rule = "Don't mock httpx in the scraper tests — record real responses with vcrpy cassettes under tests/cassettes"
    known = _confirmed(_open(settings), rule, project="gbfs")
    note = (
        '# reading: "Your cassettes are lying to you" — Priya Raman (blog)\n\n## her points\n'
        "- Recorded cassettes go stale silently: the API changes and your test keeps passing against an old reply.\n"
        "- Her rule: never record real responses at all; hand-write minimal fixtures per test case.\n"
    )
    conn = _examine_dropped(settings, "gbfs", "reading-cassettes.md", note)
    views = insights.list_insights(conn, status="pending", project="gbfs", limit=10)
    differs = {v.statement: {link.to_id for link in insights.links_of(conn, v.id) if link.relation == "refutes"}
               for v in views}  # fmt: skip
    assert all(linked <= {known} for linked in differs.values()), differs
    turned = [linked for statement, linked in differs.items() if "never record" in statement.lower()]
    assert turned == [{known}], differs


def test_a_later_note_moves_the_day_an_earlier_note_planned(settings: Settings, use_m3: Embedder) -> None:
    """Found in the tuning halves: the moving day was never taken, so "搬家不是 24 号而是 25 号了" replaced nothing."""
    plan = "# 搬家\n\n10 月 24 日（周六）搬，约了搬家公司早上 8:00 到双井老房子。\n"
    conn = _examine_dropped(settings, "home", "搬家.md", plan, embedder=use_m3)
    [planned] = insights.list_insights(conn, status="pending", project="home", limit=10)
    with write_transaction(conn):
        insights.review(conn, planned.id, "confirm", actor="test", now=NOW)
    moving = "搬家不是 24 号而是 25 号（周日）了，搬家公司周六约满了。\n"
    conn = _examine_dropped(settings, "home", "搬家-改期.md", moving, embedder=use_m3)
    [moved] = insights.list_insights(conn, status="pending", project="home", limit=10)
    assert [(link.relation, link.to_id) for link in insights.links_of(conn, moved.id)] == [("supersedes", planned.id)]
