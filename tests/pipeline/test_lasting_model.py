"""The lasting model reads a sentence's meaning beside the cue rules, only with the embedder it was made for."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from incremind_daemon.config import Settings
from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.lasting import STANDING
from incremind_daemon.pipeline.lasting_model import (
    Chance,
    LastingReader,
    WordWeights,
    load_weights,
    reader_for,
    relation_reader_for,
    word_slots,
)
from incremind_daemon.pipeline.pairs import PAIR_FEATURES, Known, Relation, pair_features
from incremind_daemon.pipeline.relate import relate
from incremind_daemon.pipeline.replacing import turns_down
from incremind_daemon.pipeline.steps import StepState, examine_pending, ingest_item, open_writer
from incremind_daemon.pipeline.work import TailSession
from incremind_daemon.sources.extract import extract_bytes
from incremind_daemon.sources.sessions.reader import ReadRules, TranscriptReader
from incremind_daemon.store import insights
from incremind_daemon.store.db import connect
from incremind_daemon.store.embedder import Embedder, ModelIdentity, NoEmbedder, Vectors
from incremind_daemon.store.records import Candidate
from tests.transcripts import ClaudeLog

# what a person says to last, with no cue word the rules know: the rules alone miss each one
CUELESS = [
    "Dependencies are managed with poetry, so poetry add / poetry run, not pip.",
    # a caption whose first word is a verb's ("commit"), found in a fresh half
    "commit msg style: conventional commits, lowercase subject, imperative mood.",
    "Our CI runs on GitHub Actions, self-hosted runners in Frankfurt.",
]
# passing talk: asks for the task at hand, thanks, the day's mood, a plan for now
PASSING = [
    "帮我看下这个报错",
    "thanks, looks good",
    "Let me check the logs first.",
    "我今天有点累",
    "Lunch was good today.",
    "run the tests again",
    # found in a fresh half: for this change only, or a guess at a cause
    "Don't wire the audit write into the hot path yet, just the table and a repo function `insert_audit`.",
    "Don't touch the settings screen in this PR, Ade is still redesigning it",
    "我猜是 fixture 里 incident 的时间是写死的，现在离那个时间早就超过 90 分钟了，跟 Markdown 的改动没关系。",
    "CI 的机器比我本地慢很多，线程也少，估计跟时序有关。",
    # an ask for now, "so that later" no standing word; "跑一遍" is a run asked for once
    "你在 dev 里跑一遍 fct_orders，确认加了 FINAL 之后没有重复",
    "帮我写个脚本，把 duckdb 里的 station_status 导成 parquet，放到 data/parquet/ 下面，方便以后丢给别的工具",
    "加一个 contract test：用真实请求把 feeds.toml 里每个城市的 gbfs.json 打一遍，检查 parse 用到的字段都在、类型对",
]


class _OtherModel:
    """An embedder the weights were not made for; it must never be asked to embed."""

    @property
    def identity(self) -> ModelIdentity:
        return ModelIdentity("other-model", 512, "0" * 64)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        raise AssertionError("the lasting model must not read another model's vectors")

    def embed_query(self, text: str) -> Vectors:
        raise AssertionError("the lasting model must not read another model's vectors")

    def close(self) -> None:
        pass


def test_the_shipped_weights_are_for_the_default_embedder(use_m3: Embedder) -> None:
    weights = load_weights()
    assert weights is not None
    assert (weights.embedder, weights.dimension) == (use_m3.identity.name, use_m3.identity.dimension)
    assert 0.0 <= weights.keep < weights.accept <= 1.0
    assert weights.scope is not None and 0.0 < weights.scope.threshold < 1.0
    assert reader_for(use_m3) is not None


def test_each_word_of_a_sentence_takes_one_slot() -> None:
    # three words, hashed the same way on every machine and in every process
    assert len(word_slots("from now on", 1 << 20)) == 3
    assert word_slots("From now on", 4096) == word_slots("from   now on", 4096) == word_slots("on now from", 4096)
    assert word_slots("这周每天泡沫轴", 4096) == [413, 2044, 3032, 3946, 4048] != word_slots("这周", 4096)
    assert all(0 <= slot < 64 for slot in word_slots("Commit it — message 'rig: move to uv'", 64))


def test_weights_that_read_the_words_are_loaded_with_them(tmp_path: Path) -> None:
    path = tmp_path / "lasting_weights.json"
    path.write_text(
        '{"format": 1, "embedder": "use-m3", "dimension": 3, "accept": 0.5, "keep": 0.1,'
        ' "lasting": {"weights": [1, 2, 3, 4], "bias": 0, "words": {"weights": [0.5, -1, 2], "scale": 0.3}},'
        ' "categories": {"names": ["a"], "weights": [[1, 2, 3, 4]], "bias": [0]}}',
        encoding="utf-8",
    )
    weights = load_weights(path)
    assert weights is not None and weights.words is not None
    assert weights.words.scale == 0.3 and list(weights.words.weights) == [0.5, -1.0, 2.0]


def test_the_word_slots_move_the_likelihood_of_lasting(use_m3: Embedder) -> None:
    shipped = load_weights()
    assert shipped is not None
    plain = replace(shipped, words=None)
    slots = 4096
    leaning = WordWeights(np.zeros(slots), 1.0)
    leaning.weights[word_slots("from now on we deploy on fridays", slots)] = 1.0  # each slot adds 1 to the log-odds
    texts = ["from now on we deploy on fridays", "what did the build say"]
    before = LastingReader(plain, use_m3).chances(texts, True)
    after = LastingReader(replace(shipped, words=leaning), use_m3).chances(texts, True)
    assert after[0].likelihood > before[0].likelihood + 0.05
    assert after[1].likelihood == pytest.approx(before[1].likelihood, abs=0.02)


def test_the_relation_model_reads_what_relate_measures(use_m3: Embedder) -> None:
    reading = relation_reader_for(use_m3)
    assert reading is not None
    assert reading.features == PAIR_FEATURES
    assert {"none", "repeat"} <= set(reading.kinds)


def test_without_vectors_or_with_another_model_the_rules_decide_alone() -> None:
    for embedder in (None, NoEmbedder(), _OtherModel()):
        assert reader_for(embedder) is None
        assert relation_reader_for(embedder) is None


@pytest.mark.parametrize(
    "text",
    [
        '{"format": 1, "dimension": 3',  # cut short
        '{"format": 2, "dimension": 3}',  # a later format
        '{"format": 1, "embedder": "use-m3", "dimension": 3, "accept": 0.5, "keep": 0.1,'
        ' "lasting": {"weights": [1, 2], "bias": 0}, "categories": {"names": ["a"], "weights": [[1, 2, 3, 4]],'
        ' "bias": [0]}}',  # weights of the wrong size
        '{"format": 1, "embedder": "use-m3", "dimension": 3, "accept": 0.5, "keep": 0.1,'
        ' "lasting": {"weights": [1, 2, 3, 4], "bias": 0, "words": {"weights": [], "scale": 0.3}},'
        ' "categories": {"names": ["a"], "weights": [[1, 2, 3, 4]], "bias": [0]}}',  # no word slots
        '{"format": 1, "embedder": "use-m3", "dimension": 3, "accept": 0.5, "keep": 0.1,'
        ' "lasting": {"weights": [1, 2, 3, 4], "bias": 0, "words": [1, 2]},'
        ' "categories": {"names": ["a"], "weights": [[1, 2, 3, 4]], "bias": [0]}}',  # words of another shape
    ],
)
def test_unusable_weights_are_reported_and_leave_the_rules_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, text: str
) -> None:
    path = tmp_path / "lasting_weights.json"
    path.write_text(text, encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        assert load_weights(path) is None
    assert "not usable" in caplog.text and "cue rules alone" in caplog.text


@pytest.mark.parametrize("text", CUELESS)
def test_a_lasting_statement_without_a_cue_word_is_taken_by_its_meaning(use_m3: Embedder, text: str) -> None:
    assert extract_candidates(text, conversational=True) == []  # the rules alone miss it
    [candidate] = extract_candidates(text, conversational=True, reader=reader_for(use_m3))
    assert candidate.quote == text.rstrip()
    assert candidate.category in ("preference", "decision", "entity", "correction", "identity")


@pytest.mark.parametrize(
    "text",
    [
        "读书会每两周一次，星期四 19:00，在 Waterstones 楼上 café",
        "# 中英讀書會\n\n- 每兩週一次，星期四 19:00，在 Bloomsbury 的 Waterstones 樓上 café\n",
    ],
    ids=["zh", "zh-hant-note"],
)
def test_every_two_weeks_names_no_monday(use_m3: Embedder, text: str) -> None:
    # "两周一次" holds 周一 without meaning a Monday, so it is no one-off day and no step put off
    [candidate] = extract_candidates(text, conversational=False, reader=reader_for(use_m3))
    assert "19:00" in candidate.statement


@pytest.mark.parametrize(
    ("text", "reported"),
    [
        ("Zhou Tao 的意见：lib crate 里也直接用 anyhow 就行，thiserror 的错误枚举太啰嗦。", True),
        ("Priya's view: every model change has to log NDCG@10 to MLflow.", True),
        # a team's view is how things are done there, said on its behalf
        ("SRE 组的意见：prod 变更一律走 CI 流水线里的 terraform apply，不应该在个人电脑上执行", False),
        # found in tuning halves: whom to tell, and what a name or a title says, are no one's view
        ("实验结果表可以写 rec_algo_exp 库，算例外，但建表前要先跟老韩说一声", False),
        ("Arrange / Act / Assert, one behaviour per test; test name says the behaviour, not the function name.", False),
    ],
)
def test_a_view_given_under_someones_name_is_theirs(use_m3: Embedder, text: str, reported: bool) -> None:
    [candidate] = extract_candidates(text, conversational=True, reader=reader_for(use_m3))
    assert candidate.reported is reported


@pytest.mark.parametrize(
    "text",
    [
        "Training job 4471 finished, val loss 0.312, NDCG@10 0.468.",
        "Status: ledgerly 1.14.2 is out on prod, V23 migration ran fine, no errors in the logs.",
        "Deployed 1.15.0 to staging, all green.",
        "v2.3 已经上线了，监控没报警。",
        "staging 部署好了，v1.8.2，接口都通了。",
        # build output pasted under an ask (found by new users)
        "build broke again:\ne: file:///home/dana/code/ledgerly/src/main/kotlin/io/ledgerly/posting/PostingService.kt"
        ":47:32 Argument type mismatch: actual type is 'kotlin.Double', but 'java.math.BigDecimal' was expected.",
        "ci is red:\nRun ./gradlew test --no-daemon\nDownloading https://services.gradle.org/distributions/"
        "gradle-8.10.2-bin.zip",
        "页面溢出了：\n  Column Column:file:///home/lx/code/tidepool/lib/features/tides/tide_chart_page.dart:38:16",
        # the problem the session opens on (found in fresh halves), however decided it sounds
        "Problem: Dev added a scvi_benchmark rule last week to compare scVI against Harmony and it dies every time.",
        "问题：昨天支付宝那批账单对出来 37 笔 AMOUNT_MISMATCH，我手工抽了几笔，渠道和我们的金额其实是一致的。",
        # what arrived today
        "Marta's batch 3 is back from the sequencer — 6 new samples, CellRanger already ran on them.",
        "New pseudobulk exports are in data/from_pipeline/ (leiden_r06 clusters, 15% mito).",
        "许晴的接口文档出来了：GET /api/recon/diffs?billDate=2026-11-25&channel=ALIPAY，分页返回差错列表",
        # the task under its label, found in a fresh half
        "actual task: `helmwright diff` panics on a release that has no values files.",
    ],
)
def test_news_of_the_day_and_pasted_build_output_are_no_candidates(use_m3: Embedder, text: str) -> None:
    assert extract_candidates(text, conversational=True, reader=reader_for(use_m3)) == []


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("不对，金额别引 decimal 库，统一用 int64 存分。", "金额别引 decimal 库，统一用 int64 存分"),
        ("时间不对，Airflow 里的调度我们都按 Asia/Shanghai 算，不要用 UTC。",
         "Airflow 里的调度我们都按 Asia/Shanghai 算，不要用 UTC"),
        ("文件名也不对，我们的 DAG 文件一律叫 dag_<业务>_<频率>.py。", "我们的 DAG 文件一律叫 dag_<业务>_<频率>.py"),
        ("No, we always use pnpm in this repo, never npm.", "We always use pnpm in this repo, never npm"),
    ],
)  # fmt: skip
def test_a_rule_said_to_put_the_agent_right_is_a_correction(use_m3: Embedder, text: str, statement: str) -> None:
    [candidate] = extract_candidates(text, conversational=True, reader=reader_for(use_m3))
    assert (candidate.category, candidate.statement) == ("correction", statement)


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("银行通道那边调用超时先定 3 秒，超时就按处理中返回。", "银行通道那边调用超时先定 3 秒，超时就按处理中返回"),
        ("银行通道的超时改成 5 秒吧，3 秒在晚高峰太容易误判成失败了。", "银行通道的超时改成 5 秒"),
        # found on a fresh half: a setting that "goes to" its new amount, and a schedule moved to an hour
        ("天气开始热喇. AC threshold goes to 27°C now.", "AC threshold goes to 27°C now"),
        ("1) Move the nightly run to 3:30.\n\n2) Can you look at the bucket size too?", "Move the nightly run to 3:30"),
        # found on tune25: the job named as it is in code
        ("Move tidewatch_daily_forecast to 04:00 SGT.", "Move tidewatch_daily_forecast to 04:00 SGT"),
        # found on tune28: a path the setting moves to is its new value as an amount is
        ("配额又爆了，烦死。results 目录改成 /scratch/zlin/results。", "results 目录改成 /scratch/zlin/results"),
        # found on tune55: a bare 改 before the new amount, and 设 after the setting's name
        ("30 分钟一轮太慢了。改 15 分钟一轮。", "改 15 分钟一轮"),
        ("SQLite 开 WAL，busy_timeout 设 5 秒。", "SQLite 开 WAL，busy_timeout 设 5 秒"),
        # found on tune57: a bare 改 before a time of day (the model read it at 0.05)
        ("提醒時間改晚上 8 點半，9 點麻糬常常躲到床底下。", "提醒時間改晚上 8 點半，9 點麻糬常常躲到床底下"),
    ],
)
def test_a_setting_fixed_or_moved_to_an_amount_is_a_decision(use_m3: Embedder, text: str, statement: str) -> None:
    [candidate] = extract_candidates(text, conversational=True, reader=reader_for(use_m3))
    assert (candidate.category, candidate.statement) == ("decision", statement)


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        # found by a new user: the model read each too weakly to keep, though the person chose a named thing
        ("用 feast 吧——这个 feature store 以后统一用 feast。", "feature store 以后统一用 feast"),
        ("switch migrations from golang-migrate to goose. golang-migrate is out.", "golang-migrate to goose"),
        ("exif 解析用 rwcarlsen/goexif 这个库。", "rwcarlsen/goexif"),
        # "./..." ended no sentence
        ("always run go test ./... before you say something is done.", "go test ./... before you say"),
        # found in a tuning half: "only" chooses as "always" does (the model read it at 0.19)
        ("别用 pip!! 这个 repo 只用 uv。", "这个 repo 只用 uv"),
    ],
)
def test_a_standing_choice_of_a_named_thing_is_never_the_models_to_drop(
    use_m3: Embedder, text: str, statement: str
) -> None:
    found = [c.statement for c in extract_candidates(text, conversational=True, reader=reader_for(use_m3))]
    assert any(statement in s for s in found), found


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        # found on tune57 (the model read them at 0.08 and 0.14): "从来不" says never, and the person says the rule
        # was said before, a word its lead-in takes with it
        ("週五從來不上 prod。", "週五從來不上 prod"),
        ("又一大張表……我說過兩三行就好。", "兩三行就好"),
    ],
)
def test_a_rule_said_as_never_or_as_said_before_is_not_the_models_to_drop(
    use_m3: Embedder, text: str, statement: str
) -> None:
    found = [c.statement for c in extract_candidates(text, conversational=True, reader=reader_for(use_m3))]
    assert found == [statement]


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        # found on tune28: Cantonese the model reads weakly, said again "for the how-many-th time"
        ("喂！submit 之前一定要 -n 睇下先㗎，讲咗几次", "submit 之前一定要 -n 睇下先㗎"),
        ("自己装啊！一律 renv::install 然后 renv::snapshot，讲过好多次", "一律 renv::install 然后 renv::snapshot"),
    ],
)
def test_a_rule_the_person_says_they_said_before_is_never_the_models_to_drop(
    use_m3: Embedder, text: str, statement: str
) -> None:
    found = [c.statement for c in extract_candidates(text, conversational=True, reader=reader_for(use_m3))]
    assert found == [statement], found


def test_a_sentence_opening_on_also_is_another_rule_with_the_model_too(use_m3: Embedder) -> None:
    # 回答 and 回复 are one concept, and the model reads both as global: "也别…" still opens another
    # rule, so a later repeat of the first is a repeat, not a new rule glued to the emoji one
    text = "回答短一点，不用每次都给我总结一大段。也别在回复和代码里加 emoji。直接改"
    found = [c.statement for c in extract_candidates(text, conversational=True, reader=reader_for(use_m3))]
    assert found == ["回答短一点，不用每次都给我总结一大段", "别在回复和代码里加 emoji"]


def test_a_remark_that_a_rule_goes_for_everything_makes_it_global_and_is_no_candidate(use_m3: Embedder) -> None:
    # found in a tuning half: the remark was proposed on its own, and the rule it widens stayed this project's
    text = "times in SGT please, not UTC. everyone here reads SGT, that goes for anything you write for me."
    found = extract_candidates(text, conversational=True, reader=reader_for(use_m3))
    assert [(c.statement, c.scope) for c in found] == [("Times in SGT please, not UTC", "global")]


@pytest.mark.parametrize(
    "text",
    [
        "- Every bug fix starts with a failing regression test that reproduces it; only then fix. Applies to all my "
        "repos, client or not.\n- Never mock the database in the integration tests of this service.",
        "- 每个 bug 修复都先写一个能复现的回归测试，再修。所有项目都一样。\n- 这个服务的集成测试永远不要 mock 数据库。",
    ],
)
def test_a_notes_rule_said_to_hold_everywhere_is_taken_whatever_the_model_reads(use_m3: Embedder, text: str) -> None:
    # found in a tuning half: the model read the rule as passing (0.17), and the remark after it was proposed alone
    first, second = extract_candidates(text, conversational=False, reader=reader_for(use_m3))
    assert first.statement.startswith(("Every bug fix", "每个 bug")) and first.scope == "global"
    assert not first.statement.endswith(("not", "一样"))
    assert "mock" in second.statement and second.scope == "project"


@pytest.mark.parametrize("text", PASSING)
def test_passing_talk_stays_out_with_the_model_too(use_m3: Embedder, text: str) -> None:
    assert extract_candidates(text, conversational=True, reader=reader_for(use_m3)) == []


class _SureReader:
    """A reader that finds every sentence lasting: what the model may take is up to the gates."""

    def chances(self, texts: Sequence[str], conversational: bool) -> list[Chance]:
        return [Chance(1.0, "entity", 0.7, 0.15) for _ in texts]


@pytest.mark.parametrize(
    "text",
    [
        "帮我在 chapters/ch4.tex 里加一个表：layer-wise 的 F1 和 selectivity，两个模型各一组列。",
        "Can you add a retry around the Kafka commit for this PR?",
        "今天先用 2 号卡跑一个 smoke test。",
        # found by a new user: the step agreed at the end of a session, proposed as an insight
        "行，下一步就上 cargo-dist，周末我来打 v0.1.0 的 tag。",
        "OK, next step is cargo-dist, and I'll cut the v0.1.0 tag at the weekend.",
        # found in fresh halves: "能不能用 X" asks whether X can be used, "别的" is "the others", and
        # "先降到 100" moves a value for now
        "帮我把 parent pom 里的 maven.compiler.release 改成 21，然后看看 ReconPoller 能不能用 virtual threads",
        "Can you set maven.compiler.release to 21 in the parent pom, then see if ReconPoller can use virtual threads?",
        "帮我把 content config 迁到 content layer，用 glob loader，别的先别动",
        "Move the content config to the content layer with the glob loader, leave the rest alone.",
        "max-poll-records 先降到 100，只改 application-prod.yml",
        "Drop max-poll-records to 100 for now, only in application-prod.yml.",
        # found by a new user: a connection string to use for now (as the insight step reads it, redacted)
        "DATABASE_URL=postgres://ledger:[REDACTED:password]@db.internal:5432/ledger 你先用这个连测试库",
        "Use this DATABASE_URL for now: postgres://ledger:[REDACTED:password]@db.internal:5432/ledger",
    ],
)
def test_an_ask_or_a_plan_for_now_is_never_the_models_to_take(text: str) -> None:
    assert extract_candidates(text, conversational=True, reader=_SureReader()) == []


def test_asking_whether_a_thing_can_be_used_or_naming_the_others_sets_no_rule() -> None:
    for said in ("看看 ReconPoller 能不能用 virtual threads", "别的先别动", "别人的分支"):
        assert STANDING.search(fold(said)) is None, said
    assert STANDING.search(fold("测试一律用 vitest，别用 jest")) is not None


@pytest.mark.parametrize(
    ("known", "said", "category", "by_rules", "with_model"),
    [
        # a translation the rules call a supplement is read as the repeat it is; one the embedder reads as the
        # same meaning (cosine 0.6 or more) the rules take as a repeat already
        ("时间戳一律按 UTC 存储", "Store every timestamp in UTC.", "preference", "repeat", "repeat"),
        ("每页 24 个", "Keep page size at 24 items.", "decision", "supplement", "repeat"),
        # a change of decision stays one
        (
            "数据库用 Postgres。",
            "Change of plans: switch the database to SQLite.",
            "decision",
            "supersedes",
            "supersedes",
        ),
        ("The API listens on port 8080.", "The API port is now 8443.", "entity", "supersedes", "supersedes"),
        ("每页 20 个", "每页改成 24 个", "decision", "supersedes", "supersedes"),
        # found in a tuning half: an exception said outright stays one, however the model reads the change
        (
            "HPA minReplicas in prod is at least 3.",
            "HPA: fx-quotes is tiny, min 2 in prod is fine — it's the one exception to the min-3 rule",
            "preference",
            "supplement",
            "supplement",
        ),
        # …and a "when" that widens the new rule does not make it one ("even when I write in Chinese")
        (
            "Answer in whatever language I write in.",
            "From now on answer me in English even when I write in Chinese",
            "preference",
            "supplement",
            "supersedes",
        ),
        # found by a new user: it stands where the known one stands, and confirming it retired the known one
        (
            "我们定了状态管理用 Zustand，服务端数据用 react-query，这个之前就定了",
            "No redux please, we're on zustand for client state (and react-query for server data).",
            "decision",
            "supplement",
            "supplement",
        ),
        # found in a fresh half: the language it says not to write any more is the one the known rule writes in
        # (the rules read a repeat of its words, the model too)
        (
            "代码注释写中文就行，组里都看得懂。",
            "以后代码注释不要写中文了，统一用英文",
            "preference",
            "supersedes",
            "supersedes",
        ),
        # found in a fresh half: a correction said again puts right the value the known one puts right too
        (
            "order-db: it listens on 5433, not 5432 (half the apps have 5433 hardcoded)",
            "5432 不對，order-db 是 5433",
            "correction",
            "repeat",
            "repeat",
        ),
        # …while beside a rule that holds the value it calls wrong it is a change, however alike the two read
        ("order-db 监听 5432", "5432 不对，order-db 是 5433", "entity", "supersedes", "supersedes"),
        # …and the same thing given another tool ("from now on" uses nothing by its "on")
        (
            "DI 用 Hilt，Application 上挂着 @HiltAndroidApp。",
            "from now on DI 用 Koin，koin-androidx-compose 那套，kapt 和相关注解全部拆掉。",
            "decision",
            "supersedes",
            "supersedes",
        ),
        # found on tune43: a change said again, in the other language, is the same change, not another
        (
            "決定唔再用 RabbitMQ，order event 全部改行 Oban（用返 Postgres）",
            "we're dropping RabbitMQ and moving all order events to Oban",
            "decision",
            "supplement",
            "repeat",
        ),
        # …while one that moves to another thing changes it
        (
            "決定唔再用 RabbitMQ，order event 全部改行 Oban（用返 Postgres）",
            "we're dropping RabbitMQ and moving all order events to Kafka",
            "decision",
            "supplement",
            "supersedes",
        ),
        # …and how to answer the person is changed by words on answering
        ("回复的话用中文", "以后回复改用英文", "preference", "supersedes", "supersedes"),
        # found on tune46: a name written another way changes how such names are written
        (
            "i18n key 按 `模块.页面.元素` 三段，小驼峰：`billing.invoiceList.exportBtn`",
            "还是 `模块.页面.元素` 三段，但每段改 snake_case：`billing.invoice_list.export_btn`",
            "decision",
            "supplement",
            "supersedes",
        ),
        # …not the same name said again as it was
        (
            "i18n key 按 `模块.页面.元素` 三段，小驼峰：`billing.invoiceList.exportBtn`",
            "导出按钮的 key 改好了，就是 `billing.invoiceList.exportBtn`",
            "decision",
            "repeat",
            "repeat",
        ),
    ],
)
def test_the_relation_model_reads_a_pair_again(
    use_m3: Embedder, known: str, said: str, category: str, by_rules: str, with_model: str
) -> None:
    first, second = use_m3.embed_passages([known, said])
    item = Known(1, known, "", category, float(first @ second), "project")
    candidate = Candidate(said, category, "", said, 0, len(said), "project")
    for reading, kind in ((None, by_rules), (relation_reader_for(use_m3), with_model)):
        relation = relate(
            candidate, [item], repeat_similarity=0.8, related_similarity=0.4, ordered=True, reading=reading
        )
        assert (relation.kind, relation.known_id) == (kind, 1)


@pytest.mark.parametrize(
    ("cosine", "kind"),
    [
        (0.585, "repeat"),  # the default model's cosine: the same rule in the other language, as labelled
        (0.38, "supplement"),  # lower (under the gist of a rule, relate_rules), it adds to the rule, still linked
    ],
)
def test_two_that_both_say_to_use_one_tool_stay_linked_however_the_model_reads_the_rest(
    use_m3: Embedder, cosine: float, kind: str
) -> None:
    """Found by a new user: "use pnpm, not npx/npm" beside "我所有 JS 项目都用 pnpm" was proposed as new."""
    known = Known(
        1, "这个仓库用 pnpm，我所有 JS 项目都用 pnpm，lockfile 是 pnpm-lock.yaml", "", "entity", cosine, "project"
    )
    said = "Use pnpm, not npx/npm — `pnpm jest`"
    candidate = Candidate(said, "preference", "", said, 0, len(said), "project")
    shipped = relation_reader_for(use_m3)
    assert shipped is not None
    none = shipped.relation_odds([pair_features(candidate, known, ordered=True) or []])[0]["none"]
    reading = replace(shipped, unrelated=min(shipped.unrelated, none))  # the model reads the two as unrelated
    relation = relate(candidate, [known], repeat_similarity=0.8, related_similarity=0.4, ordered=True, reading=reading)
    assert (relation.kind, relation.known_id) == (kind, 1)


def _read_beside(use_m3: Embedder, said: str, known_text: str, *, models: bool = True) -> Relation:
    """Relate a decision said in a session to one known project insight, with its real cosine."""
    vectors = use_m3.embed_passages([said, known_text])
    known = Known(1, known_text, "", "preference", float(vectors[0] @ vectors[1]), "project")
    candidate = Candidate(said, "decision", "", said, 0, len(said), "project")
    reading = relation_reader_for(use_m3) if models else None
    return relate(candidate, [known], repeat_similarity=0.8, related_similarity=0.4, ordered=True, reading=reading)


def test_saying_it_again_makes_no_repeat_of_an_unrelated_rule_that_shares_a_word(use_m3: Embedder) -> None:
    # found in a tuning half: "you know the drill" made the rules' link by "replica" a repeat of a fact on replicas
    said = "Split that out — the replica bump goes in its own PR, one thing per PR, you know the drill"
    assert _read_beside(use_m3, said, "Prod runs 6 replicas, one per two partitions of rider.location.v2").kind == "new"
    # …while a rule said again in fewer words stays a repeat however the model reads the pair
    known_text = "spark.sql.shuffle.partitions 统一是 200，写在 conf/spark-defaults.conf 里，job 里不要自己 set"
    assert _read_beside(use_m3, "job 里不许单独 set，这个之前说过", known_text).kind == "repeat"


def test_a_step_the_rules_link_as_a_supplement_stays_one_where_the_model_is_unsure(use_m3: Embedder) -> None:
    # found in a fresh half: the model read the two as unrelated at 0.67 and made the step new
    known_text = "本地跑 dbt 一律加 --target dev，prod 只让 Airflow 去写"
    relation = _read_beside(use_m3, "对 prod 核对数据用 prod_ro 这个 target 跑 dbt show，别用 run", known_text)
    assert (relation.kind, relation.known_id) == ("supplement", 1)


def test_a_change_to_the_value_the_known_one_gives_is_that_change_said_again(use_m3: Embedder) -> None:
    # found in a fresh half: a standup repeating "minSdk changes to 28" superseded it; "8.x" was no number
    known_text = "minSdk changes to 28 next release — we're dropping android 8.x, it's under 0.7% of our users"
    said = "minSdk 升到 28，下个版本生效，Android 8 的用户不到 0.7%"
    relation = _read_beside(use_m3, said, known_text)
    assert (relation.kind, relation.known_id) == ("repeat", 1)
    assert _read_beside(use_m3, said, known_text, models=False).kind != "supersedes"


def test_a_change_of_a_class_time_goes_to_the_class_not_to_a_rule_that_shares_a_word(
    use_m3: Embedder,
) -> None:
    said = "下周开始课改到周二, 晚上 8 点 (陈老师 has a new job, Thursdays don't work for her any more)"
    known = [
        (10, "中文 — week 10 老师: 陈老师, 每周四 晚上 7:30, online (Zoom link in calendar)", "entity", "project"),
        (42, "Every bash script I own starts with that, any repo", "preference", "global"),
    ]
    vectors = use_m3.embed_passages([said, *(text for _, text, _, _ in known)])
    items = [
        Known(i, text, "", category, float(vectors[0] @ vector), scope)
        for (i, text, category, scope), vector in zip(known, vectors[1:], strict=True)
    ]
    candidate = Candidate(said, "decision", "", said, 0, len(said), "project")
    by_rules = relate(candidate, items, repeat_similarity=0.8, related_similarity=0.4)
    assert by_rules.known_id != 42  # "don't … any more" says nothing of "any repo"
    relation = relate(
        candidate, items, repeat_similarity=0.8, related_similarity=0.4, reading=relation_reader_for(use_m3)
    )
    assert (relation.kind, relation.known_id) == ("supersedes", 10)


@pytest.mark.parametrize(
    ("said", "wanted"),
    [
        ("你也用简单的中文回答, HSK3 水平就行", "Reply in English anyway unless I say otherwise"),
        ("Answer in simple Chinese from now on, HSK3 level is enough", "回复用英文，除非我另外说"),
    ],
)
def test_another_reply_language_changes_the_rule_however_near_the_persons_own_story(
    use_m3: Embedder, said: str, wanted: str
) -> None:
    """Found in a tuning half: the model read a repeat of "I'm learning Mandarin (HSK3)" over the rules' change."""
    story = "I'm learning Mandarin (around HSK3), so sometimes I'll write to you in 中文 for practice"
    vectors = use_m3.embed_passages([said, story, wanted])
    items = [
        Known(1, story, "", "identity", float(vectors[0] @ vectors[1]), "global"),
        Known(2, wanted, "", "preference", float(vectors[0] @ vectors[2]), "global"),
    ]
    candidate = Candidate(said, "preference", "", said, 0, len(said), "global")
    reading = relation_reader_for(use_m3)
    relation = relate(candidate, items, repeat_similarity=0.8, related_similarity=0.4, ordered=True, reading=reading)
    assert (relation.kind, relation.known_id) == ("supersedes", 2)


@pytest.mark.parametrize(
    ("said", "known"),
    [
        (
            "Stripe Checkout is out, and we're integrating Airwallex's hosted payment page instead — same shape as"
            " before, redirect out and webhook back, and we never touch a card number",
            "支付用 Stripe Checkout，跳转到 Stripe 托管的页面，我们自己不做卡号表单",
        ),
        (
            "Stripe Checkout 不用了，改接 Airwallex 的托管支付页，跟之前一样跳出去再 webhook 回来",
            "Payments go through Stripe Checkout: redirect to Stripe's hosted page, we never build a card form",
        ),
    ],
)
def test_a_change_that_keeps_the_old_shape_still_changes_the_old_way(use_m3: Embedder, said: str, known: str) -> None:
    """Found in a tuning half: "same shape as before" read as the person saying it again, so a change of payment
    provider was a repeat of the old one, and the old one stayed in the context."""
    first, second = use_m3.embed_passages([said, known])
    items = [Known(1, known, "", "decision", float(first @ second), "project")]
    candidate = Candidate(said, "decision", "", said, 0, len(said), "project")
    reading = relation_reader_for(use_m3)
    relation = relate(candidate, items, repeat_similarity=0.8, related_similarity=0.4, ordered=True, reading=reading)
    assert (relation.kind, relation.known_id) == ("supersedes", 1)


@pytest.mark.parametrize(
    ("known", "view"),
    [
        (
            "新写的测试都用 Swift Testing（@Test），不要再写 XCTestCase 了",
            "老周觉得新测试也应该继续用 XCTest，Swift Testing 在 CI 上跑得不稳",
        ),
        ("ETA 查询这块先不加缓存，Postgres 扛得住现在的量", "老周还是坚持要上 Redis 做 ETA 缓存"),
        (
            "Use uv for everything Python, never pip install directly",
            "Sam still prefers keeping pip + requirements.txt, because the CI image has no uv",
        ),
    ],
)
def test_someone_elses_view_at_odds_with_a_known_insight_is_a_difference(
    use_m3: Embedder, known: str, view: str
) -> None:
    first, second = use_m3.embed_passages([known, view])
    items = [
        Known(1, "The API listens on port 8080", "", "entity", 0.1, "project"),
        Known(2, known, "", "decision", float(first @ second), "project"),
    ]
    candidate = Candidate(view, "preference", "", view, 0, len(view), "project", reported=True)
    relation = relate(
        candidate, items, repeat_similarity=0.8, related_similarity=0.4, reading=relation_reader_for(use_m3)
    )
    assert (relation.kind, relation.known_id) == ("different", 2)


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Staging always talks to the db-stg-01.internal database.", "entity"),
        ("我们统一用 uv，不要再用 poetry。", "decision"),
    ],
)
def test_the_model_names_the_kind_of_a_statement_the_cues_call_a_preference(
    use_m3: Embedder, text: str, category: str
) -> None:
    assert [c.category for c in extract_candidates(text, conversational=True)] == ["preference"]
    found = extract_candidates(text, conversational=True, reader=reader_for(use_m3))
    assert [c.category for c in found] == [category]


@pytest.mark.parametrize(
    "text",
    [
        "I use vim keybindings everywhere, so give me vim commands.",
        "Always write commit messages in English.",
        "Never use emoji in anything you write for me.",
    ],
)
def test_a_rule_of_the_persons_own_is_read_as_holding_in_every_project(use_m3: Embedder, text: str) -> None:
    assert [c.scope for c in extract_candidates(text, conversational=True)] == ["project"]  # the rules alone
    assert [c.scope for c in extract_candidates(text, conversational=True, reader=reader_for(use_m3))] == ["global"]


@pytest.mark.parametrize("text", ["This repo's API listens on port 8443.", "我们这个项目用 pnpm，不要用 npm。"])
def test_a_rule_of_this_repository_stays_in_its_project(use_m3: Embedder, text: str) -> None:
    assert [c.scope for c in extract_candidates(text, conversational=True, reader=reader_for(use_m3))] == ["project"]


@pytest.mark.parametrize("text", ["I prefer tabs over spaces.", "我习惯先写测试再写实现。"])
def test_what_a_person_says_of_themselves_is_never_the_models_to_drop(use_m3: Embedder, text: str) -> None:
    reader = reader_for(use_m3)
    assert reader is not None
    (chance,) = reader.chances([text], True)
    assert chance.likelihood < chance.keep  # the model alone would drop it
    assert len(extract_candidates(text, conversational=True, reader=reader)) == 1


def test_a_cue_less_statement_in_a_session_becomes_a_pending_candidate(
    settings: Settings, tmp_path: Path, use_m3: Embedder
) -> None:
    repo = tmp_path / "work" / "fk-stream"
    (repo / ".git").mkdir(parents=True)
    found: dict[str, list[str]] = {}
    for name, embedder in (("rules", None), ("model", use_m3)):
        home = settings.model_copy(update={"home": tmp_path / name})
        state = StepState(
            home, extract_bytes, read_session=TranscriptReader(ReadRules.from_settings(home)), embedder=embedder
        )
        log = ClaudeLog(tmp_path / name / "claude", f"11111111-2222-3333-4444-55555555555{len(found)}", str(repo))
        log.append(
            log.user(
                "u1",
                "The consumer drops bad records. Dependencies are managed with poetry, so poetry add / "
                "poetry run, not pip. Can you add a retry around the Kafka commit?",
            ),
            log.assistant("a1", "msg_1", "Added a retry with backoff around the commit; tests pass."),
        )
        with open_writer(state) as conn:
            assert ingest_item(conn, state, TailSession(log.path, "claude")).status == "added"
            examine_pending(conn, state)
        conn = connect(home.database_path)
        found[name] = [i.statement for i in insights.list_insights(conn, status="pending")]
        conn.close()
    assert not any("poetry" in s for s in found["rules"]), found
    assert any("poetry" in s and "pip" in s for s in found["model"]), found


MEETING = """# 周会纪要 2026-11-28

## 讨论
- 支付网关的压测结果：p99 从 800ms 降到 320ms。

## 决定
- 新版结算页 12 月 15 日上线，先灰度 10%。
- 结算页上线由陈静负责，王磊配合回滚预案。
- 海外区域先只开新加坡，东京下个季度再说。
"""


def test_what_the_writer_put_under_a_decisions_heading_is_never_the_models_to_drop(use_m3: Embedder) -> None:
    reader = reader_for(use_m3)
    assert reader is not None
    owner = "结算页上线由陈静负责，王磊配合回滚预案。"
    (chance,) = reader.chances([owner], False)
    assert chance.likelihood < chance.keep  # the model alone would drop the owner
    found = [c.statement for c in extract_candidates(MEETING, reader=reader) if c.category == "decision"]
    assert owner.rstrip("。") in found
    assert any("12 月 15 日" in s for s in found) and any("新加坡" in s for s in found)


STUDY = """# How I study Japanese

I keep forgetting vocabulary, so this is the method I'm sticking with from now on:

1. Review each new card on day 1, 3, 7 and 21.
2. Always try to recall the word before flipping the card.
3. Max 20 new cards a day. More than that and the reviews pile up.

What I did this week:

- Finished chapter 4 of Genki.
"""


@pytest.mark.parametrize("with_model", [False, True])
def test_each_item_under_a_caption_of_rules_is_a_rule_however_plainly_worded(
    use_m3: Embedder, with_model: bool
) -> None:
    reader = reader_for(use_m3) if with_model else None
    found = [c.statement for c in extract_candidates(STUDY, reader=reader)]
    assert "Max 20 new cards a day" in found  # no cue word: the caption says it holds from now on
    assert not any("pile up" in s for s in found)  # the reason after the rule is no rule of its own
    assert not any("Genki" in s for s in found)  # a list under a caption of what was done stays a list


def test_a_heading_that_names_rules_heads_a_list_of_rules_too() -> None:
    note = (
        "# Team notes\n\n## House rules\n- Code review within one working day.\n\n"
        "## This week\n- Finished the billing migration.\n"
    )
    found = [c.statement for c in extract_candidates(note)]
    assert "Code review within one working day" in found
    assert not any("billing" in s for s in found)


def test_a_reminder_to_self_heads_rules_and_its_weekdays_recur() -> None:
    # found in a fresh half: "周五下午" under "提醒自己" is every Friday afternoon, not this one
    note = (
        "# weekly review W41\n\n## 提醒自己\n- 周五下午不写新功能，只修 bug、写文档、清 PR\n\n"
        "## Reminders to self\n- Mondays are for planning; no deploys.\n"
    )
    found = [c.statement for c in extract_candidates(note)]
    assert found == ["周五下午不写新功能，只修 bug、写文档、清 PR", "Mondays are for planning; no deploys"], found


def test_what_was_discussed_is_not_the_models_to_take_but_its_rules_and_decisions_are(use_m3: Embedder) -> None:
    note = (
        "# 周会纪要\n\n## 讨论\n- Sam 提到海外用户反馈登录慢，怀疑是 CDN 节点问题。\n\n"
        "## 决定\n- 结算页上线由陈静负责，王磊配合回滚预案。\n"
    )
    found = [c.statement for c in extract_candidates(note, reader=reader_for(use_m3))]
    assert not any("CDN" in s for s in found)  # someone's suspicion, said in a discussion
    assert "结算页上线由陈静负责，王磊配合回滚预案" in found


@pytest.mark.parametrize("with_model", [False, True])
def test_what_a_note_lists_to_do_once_is_never_proposed(use_m3: Embedder, with_model: bool) -> None:
    # found by a new user: "## Action items" under a Chinese meeting note's decisions became two candidates
    note = (
        "# orders-svc 周会纪要 2026-11-26\n\n## 决定\n1. 所有金额字段用整数分（total_cents），不用浮点数。\n\n"
        "## Action items\n- 李娜：写 outbox 设计文档（12 月 4 日前）。\n- Marco：ListOrders 改成 keyset 分页。\n"
        "- 以后每个新接口都要先写 proto 再写实现。\n\n"
        "## Next steps\n- Tomás to switch the deploy job to the new runner by Friday\n"
    )
    found = [c.statement for c in extract_candidates(note, reader=reader_for(use_m3) if with_model else None)]
    assert any("total_cents" in s for s in found)
    assert not any("outbox" in s or "keyset" in s or "runner" in s for s in found), found
    assert any("proto" in s for s in found)  # "以后每个…" holds from now on, wherever it is listed


@pytest.mark.parametrize("with_model", [False, True])
@pytest.mark.parametrize(
    "text",
    [
        # found by a new user: a reminder of a correction left no trace on the insight it repeats
        "Reminder: the date comes from DateTimeOriginal, not DateTime.",
        "State lives in the s3 bucket harbor-tfstate-prod, not in Terraform Cloud.",
    ],
)
def test_a_value_set_right_by_another_verb_is_a_correction(use_m3: Embedder, with_model: bool, text: str) -> None:
    reader = reader_for(use_m3) if with_model else None
    found = [(c.category, c.statement) for c in extract_candidates(text, conversational=True, reader=reader)]
    assert len(found) == 1 and found[0][0] == "correction" and ", not " in found[0][1], found


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        # found by a new user: where the person is and the clock they keep was for one project only
        ("I'm in Shanghai (UTC+8) — give me times in Beijing time, not UTC.", "global"),
        # …and a rule on a path of the repository was for every project
        ("Photos without EXIF go to unsorted/, don't guess the date from the file mtime", "project"),
        ("if you're not sure, say so, don't guess", "global"),
    ],
)
def test_the_clock_a_person_keeps_holds_everywhere_and_a_path_of_the_repo_here(
    use_m3: Embedder, text: str, scope: str
) -> None:
    found = extract_candidates(text, conversational=True, reader=reader_for(use_m3))
    assert [c.scope for c in found] == [scope], found


@pytest.mark.parametrize(
    "text",
    ["No. anyhow everywhere in this crate, no thiserror.", "不用 thiserror，这个 crate 里到处都用 anyhow。"],
)
def test_a_tool_named_for_everywhere_is_a_standing_choice_the_model_does_not_drop(use_m3: Embedder, text: str) -> None:
    """Found on a fresh half: a short "anyhow everywhere" read weakly to the model and was dropped."""
    assert len(extract_candidates(text, conversational=True, reader=reader_for(use_m3))) == 1


@pytest.mark.parametrize(
    ("text", "conversational"),
    [
        ("- 逢礼拜四晚七点后去打羽毛球，唔好约嘢。", False),  # written Cantonese, read as the Mandarin below
        ("- 每周四晚七点后去打羽毛球，别约别的事。", False),
        ("羽毛球由今个礼拜开始改咗礼拜三晚，场地换咗去天河体育中心。", True),
        ("So TestFlight goes back to Xcode Cloud, same Release workflow on pushes to main as before.", True),
    ],
)
def test_written_cantonese_and_a_return_to_an_old_choice_are_read_as_lasting(
    use_m3: Embedder, text: str, conversational: bool
) -> None:
    found = extract_candidates(text, conversational=conversational, reader=reader_for(use_m3))
    assert len(found) == 1, found


@pytest.mark.parametrize(
    ("said", "changed", "beside", "ordered"),
    [
        # a return to an old choice "as before" is a change of the current one, not a rule said again
        ("So TestFlight goes back to Xcode Cloud, same Release workflow on pushes to main as before",
         "TestFlight: until further notice it goes through the fastlane beta lane on GitHub Actions",
         "The app target is in Swift 6 language mode and it stays there, I'm not giving that back for one Xcode update",
         True),
        ("TestFlight 出包换回 Xcode Cloud，跟以前一样", "TestFlight 暂时改用 GitHub Actions 上的 fastlane 出包",
         "App target 保持 Swift 6 language mode，不会为了一次 Xcode 更新退回去", True),
        # a note that says from when a new tool holds, read with no order between it and what it changes,
        # beside a rule that shares the word "new" with it
        ("From today new migrations are goose SQL files in api/db/migrations",
         "Migrations are golang-migrate, numbered up/down pairs in api/db/migrations",
         "Migrations that have run on prod are frozen: if something's wrong you add a new migration file", False),
        # a reviewer handed over from a day on, in a meeting note: written Cantonese and English
        ("阿Ben 下礼拜一开始调去 WMS 组，payment 模块嘅 review 以后搵 Vivian（林慧雯）",
         "payment 相关嘅 PR 要搵阿Ben（何俊彬）review，佢管 payment 模块",
         "汇率系每朝 9 点由 `fx.sync_boc_rates` 从中国银行牌价拉落嚟", False),
        ("From next Monday Ben moves to the WMS team; payment module reviews go to Vivian from then on",
         "Payment PRs need a review from Ben, he owns the payment module",
         "FX rates are pulled every morning at 9 by fx.sync_boc_rates", False),
        ("从今天起新的 migration 都用 goose 的 SQL 文件，放在 api/db/migrations",
         "migration 用 golang-migrate，up/down 成对放在 api/db/migrations",
         "跑过 prod 的 migration 一律不改，有问题就加一个新的 migration 文件", False),
    ],
)  # fmt: skip
def test_a_return_to_an_old_choice_or_a_change_from_today_supersedes_what_it_changes(
    use_m3: Embedder, said: str, changed: str, beside: str, ordered: bool
) -> None:
    vectors = use_m3.embed_passages([said, changed, beside])
    known = [
        Known(n, text, "", "decision", float(vectors[0] @ vectors[n]), "project")
        for n, text in ((1, changed), (2, beside))
    ]
    candidate = Candidate(said, "decision", "", said, 0, len(said), "project")
    reading = relation_reader_for(use_m3)
    relation = relate(candidate, known, repeat_similarity=0.8, related_similarity=0.4, ordered=ordered, reading=reading)
    assert (relation.kind, relation.known_id) == ("supersedes", 1)


@pytest.mark.parametrize(
    ("turn", "statement"),
    [
        # found on a fresh half: a rule said for next time, one recalled with "remember", a rule for a kind of thing
        ("Just give me the diff next time, I don't need the whole file pasted back. Anyway, looks right.",
         "Give me the diff next time, I don't need the whole file pasted back"),
        ("下次直接给我 diff 就行，不用把整个文件贴回来。", "下次直接给我 diff 就行，不用把整个文件贴回来"),
        ("No prefixes, remember.", "No prefixes"),
        ("dont add comments that just restate the code", "Dont add comments that just restate the code"),
        ("commit message 不要加前缀，记住。", "commit message 不要加前缀"),
        ("payment 相关的 PR 要找阿Ben（何俊彬）review，他管 payment 模块。",
         "payment 相关的 PR 要找阿Ben（何俊彬）review，他管 payment 模块"),
        ("Payment PRs need a review from Ben, he owns the payment module.",
         "Payment PRs need a review from Ben, he owns the payment module"),
        # a convention for a kind of thing ("are named", "get prefixed"), said with no other cue: the rules take
        # it, with or without a model (a lasting model fitted with words read this one at 0.52, under its 0.55)
        ("DLQ topics are named <topic>.dlq.", "DLQ topics are named <topic>.dlq"),
    ],
)  # fmt: skip
def test_a_rule_for_next_time_recalled_or_for_a_kind_of_thing_is_found(
    use_m3: Embedder, turn: str, statement: str
) -> None:
    found = [c.statement for c in extract_candidates(turn, conversational=True, reader=reader_for(use_m3))]
    assert found == [statement]


@pytest.mark.parametrize(
    "turn",
    [
        "next time we meet let's talk about the roadmap",
        "The painter needs labels and a selected-month highlight, that's next time.",
        "Next time: put the AC threshold in an input_number helper so Mandy can change it from her phone.",
        "No worries, thanks.",
        "登录相关的 bug 要修一下",
        # found on the tuning halves: the task at hand, with a default, a file path or a trial in it
        "帮我把 settle-app 里 CutoverProperties 的默认日期和 docs/runbook/cutover.md 里的日期都改一下",
        "Swap it for next/font/local with the Inter woff2 files in /public/fonts (I grabbed them last night)",
        "把这个 join 改成 broadcast 试试，dim_driver 也就 80MB 左右",
        "tests → data_tests 可以，一次性全改，改完 parse 一下确认没有 warning",
        # a guess at what is wrong now
        "I'm pretty sure it's the 4 upload workers all writing to the index at the same time.",
        "Trust policy lives in live/shared/ca-central-1/iam-gha/, my bet is the sub condition.",
        "怀疑是上游 dim_sku 改了列名，上周 Kevin 他们在商品中台重构过一次。",
        "多半是 status 多了个 partial_refunded，售后那边上周新加的。",
        # the work moving to another repository
        "Ok different repo, side project time.",
        "Different client, different repo.",
        # a piece of work wanted
        "I want a GitHub Actions workflow that builds the musl binary on tag push and attaches it to the release.",
        "Need to add a POST /app/plans/:planId/checkin endpoint to the BFF.",
        "要写个 Celery task `sync_amazon_orders(marketplace_id)`，用 SP-API 的 getOrders 拉过去 30 分钟有更新的单。",
        "我想写个脚本每天备份数据库。",
        # where a tag, an environment or a build stands today
        "v0.2.0 tag is pushed.",
        "Staging has been on 1.30 since Friday night, no issues.",
        "CF Pages build 又挂了，local `pnpm build` 是好的。",
    ],
)
def test_a_later_plan_a_polite_no_the_task_at_hand_or_news_of_now_is_no_rule(use_m3: Embedder, turn: str) -> None:
    assert extract_candidates(turn, conversational=True, reader=reader_for(use_m3)) == []


@pytest.mark.parametrize(
    ("turn", "statement"),
    [
        ("默认用 pnpm，别用 npm。", "默认用 pnpm，别用 npm"),
        ("Replace it with a plain struct, always.", "Replace it with a plain struct, always"),
    ],
)
def test_a_default_or_a_change_said_to_hold_always_is_still_a_rule(use_m3: Embedder, turn: str, statement: str) -> None:
    found = [c.statement for c in extract_candidates(turn, conversational=True, reader=reader_for(use_m3))]
    assert found == [statement]


@pytest.mark.parametrize(
    ("turn", "scope"),
    [
        # a step always taken before another is the person's rule, in every project, however weakly it reads
        ("PR 一律等我 review 之后再合并。", "global"),
        ("Always let me review the PR before you merge.", "global"),
        # …but who reviews a part of this project is this project's: "payment 模块", "the payment module"
        ("payment 相关嘅 PR 要搵阿Ben（何俊彬）review，佢管 payment 模块。", "project"),
        ("Payment PRs need a review from Ben, he owns the payment module.", "project"),
    ],
)
def test_a_review_rule_holds_everywhere_unless_it_names_a_part_of_the_project(
    use_m3: Embedder, turn: str, scope: str
) -> None:
    [candidate] = extract_candidates(turn, conversational=True, reader=reader_for(use_m3))
    assert candidate.scope == scope


@pytest.mark.parametrize(
    ("text", "conversational", "must"),
    [
        # "…)" ended a sentence before ", not timestamps", and each half said too little to be read as a rule
        ("use sequential versions (goose's -s style, 00001_…), not timestamps", True, ("not timestamps",)),
        ("迁移版本号按顺序来（00001_…），不用时间戳", True, ("不用时间戳",)),
        # a sentence that says why the rule before it holds is no candidate of its own
        ("# platform conventions\n\n1. Every pod must set a CPU limit. Otherwise, one pod can eat a whole node's CPU"
         " and the other services all suffer.\n", False, ("CPU limit",)),
        ("# platform-charts 约定\n\n1. CPU limit 一律要加上。不加的话, 一个 pod 可以把整个 node 的 CPU 吃光,"
         " 别的服务都会受影响。\n", False, ("CPU limit",)),
        # what not to do and what to do instead, said back to back, are one rule
        ("# platform-charts 约定\n\n- secrets 不要放在 values 里。用 external-secrets, 从 AWS Secrets Manager 拿。\n",
         False, ("values", "external-secrets")),
        ("# platform-charts conventions\n\n- Never put secrets in values files. Use external-secrets, pulled from AWS"
         " Secrets Manager.\n", False, ("values", "external-secrets")),
    ],
)  # fmt: skip
def test_one_rule_said_across_a_stop_is_one_candidate(
    use_m3: Embedder, text: str, conversational: bool, must: tuple[str, ...]
) -> None:
    [found] = extract_candidates(text, conversational=conversational, reader=reader_for(use_m3))
    assert all(word in found.statement for word in must), found.statement


@pytest.mark.parametrize(
    ("said", "known_text"),
    [
        (
            "Uv manages the interpreter, not the Pi's system python",
            "The rig is pinned to python 3.11, same as the pi's system python, leave requires-python alone",
        ),
    ],
)
def test_turning_down_what_the_insight_holds_repeats_none_of_it(use_m3: Embedder, said: str, known_text: str) -> None:
    """Found in tune21: the model read 0.62 repeat, and the rig's move off the system python was lost as one."""
    assert _read_beside(use_m3, said, known_text).kind != "repeat"


def test_never_beside_the_same_never_stays_a_repeat() -> None:
    assert not turns_down("Never npm, the lockfile is pnpm-lock.yaml", "pnpm only — never npm or yarn")
    assert turns_down("Uv manages the interpreter, not the Pi's system python", "pinned to the pi's system python")


@pytest.mark.parametrize(
    ("said", "known_text"),
    [
        # found in tuning halves: the known one turns the name down too, where its reading of a negation does not
        # reach it, so the restatement read as a change of it
        ("Don't push, I always push myself", "push 我都自己來，你不要跑 git push"),
        ("New code uses log/slog, not zerolog — we switched", "zerolog 不要再用了，之後一律改用標準庫的 log/slog"),
        ("automations.yaml 唔好掂", "One file per room — never touch the UI-generated automations.yaml"),
        ("No f64 anywhere near an order", "价格和数量一律 rust_decimal::Decimal，to_f64 这种也别出现"),
    ],
)
def test_a_name_both_turn_down_in_either_language_is_turned_down_by_neither(said: str, known_text: str) -> None:
    assert not turns_down(said, known_text)
    # …while one the known insight holds as it stands is turned down
    assert turns_down("5432 不对", "order-db 监听 5432")
    assert turns_down("代码注释不要写中文了", "代码注释写中文就行")


def test_saying_it_again_of_a_rule_that_names_the_same_things_stays_a_repeat(use_m3: Embedder) -> None:
    # found in a tuning half: two metric names shared, and the model read the pair as unrelated at 0.93
    known_text = "评估指标用 WAPE，不要 MAPE，小销量的 SKU 一天卖 0 件 MAPE 直接爆，这个测试本来就该删"
    said = "别给我看 MAPE，周一说过了，P50 只看 WAPE"
    known = Known(8, known_text, "", "decision", 0.509, "project")
    candidate = Candidate(said, "preference", "", said, 0, len(said), "global")
    reading = relation_reader_for(use_m3)
    assert reading is not None
    assert reading.relation_odds([pair_features(candidate, known, ordered=True) or []])[0]["none"] > 0.85
    relation = relate(candidate, [known], repeat_similarity=0.8, related_similarity=0.4, ordered=True, reading=reading)
    assert (relation.kind, relation.known_id) == ("repeat", 8)


def test_a_change_of_a_project_rule_is_read_in_the_scope_it_takes_beside_it(use_m3: Embedder) -> None:
    # found in a tuning half: the statement looked global to the scope model, and the relation model, fitted on
    # labelled scopes (where a change of a project's rule is the project's), read the change at 0.29
    said = "老周昨天定了新的分支规则，以后 PR 不是提 main，而是提 dev，main 只在发版的时候由他合并"
    known = Known(28, "PR 直接提 main，找老周 review 就行，他 GitHub 是 zhoujg", "", "preference", 0.49, "project")
    candidate = Candidate(said, "decision", "", said, 0, len(said), "global")
    reading = relation_reader_for(use_m3)
    relation = relate(candidate, [known], repeat_similarity=0.8, related_similarity=0.4, ordered=True, reading=reading)
    assert (relation.kind, relation.known_id) == ("supersedes", 28)


def test_a_change_the_model_reads_of_an_insight_that_shares_no_words_with_it_is_new(use_m3: Embedder) -> None:
    """Found in a fresh half: "重连上限改成 60 秒" replaced the CAN bitrate ("功率模块那条 can 是 250k 不是 500k …
    你改成 250k"), which the model read as changed at 0.41 for the 改成 both say: a valid rule left the context."""
    said = "重连上限改成 60 秒 晓峰那边平台要求的 昨天林涛群里说了 你先把这个改了"
    known_text = "功率模块那条 can 是 250k 不是 500k 脚本里写错了 你改成 250k"
    known = Known(15, known_text, "", "correction", 0.419, "project")
    candidate = Candidate(said, "decision", "", said, 0, len(said), "project")
    reading = relation_reader_for(use_m3)
    relation = relate(candidate, [known], repeat_similarity=0.8, related_similarity=0.4, ordered=True, reading=reading)
    assert relation.kind == "new"
    # …while a change that shares the thing it changes still replaces it
    rent = Known(8, "房租 €1,950，每个月1号前转给 landlord", "", "entity", 0.62, "daily")
    moved = Candidate("2月开始房租 €1,989", "entity", "", "2月开始房租 €1,989", 0, 12, "daily")
    relation = relate(moved, [rent], repeat_similarity=0.8, related_similarity=0.4, ordered=True, reading=reading)
    assert (relation.kind, relation.known_id) == ("supersedes", 8)


def test_how_to_answer_is_changed_by_no_words_on_anything_else(use_m3: Embedder) -> None:
    """Found on tune44: "那个换成本地的 就是 派珀 piper 有中文的声音" (a text-to-speech voice) superseded
    "回复的话用中文", which the scope of the change then made global, in every project's context."""
    known, said = "回复的话用中文", "那个换成本地的 就是 派珀 piper 有中文的声音"
    first, second = use_m3.embed_passages([known, said])
    item = Known(1, known, "", "preference", float(first @ second), "global")
    candidate = Candidate(said, "decision", "", said, 0, len(said), "project")
    relation = relate(
        candidate,
        [item],
        repeat_similarity=0.8,
        related_similarity=0.4,
        ordered=True,
        reading=relation_reader_for(use_m3),
    )
    assert relation.kind not in ("supersedes", "different")


def test_what_is_said_again_after_words_on_the_code_at_hand_repeats_the_rule(use_m3: Embedder) -> None:
    """tune46: the model read the pair as unrelated (the file and function named first), and the rule said again in
    the other project was proposed a second time."""
    known = Known(9, "TS 里禁止 `any`，不知道类型就 `unknown` 再收窄", "", "decision", 0.465, "global")
    said = "`pickup.ts` 里 `fmt(d: any)`，我说过 TS 不许 any，这个项目也一样"
    candidate = Candidate(said, "preference", "", said + "。", 0, len(said) + 1, "project")
    reading = relation_reader_for(use_m3)
    relation = relate(candidate, [known], repeat_similarity=0.8, related_similarity=0.4, ordered=True, reading=reading)
    assert (relation.kind, relation.known_id) == ("repeat", 9), relation
    # …but not where what is said again names something the insight does not
    other = "`pickup.ts` 里 `fmt(d: any)`，我说过 eslint 不许 any，这个项目也一样"
    candidate = Candidate(other, "preference", "", other, 0, len(other), "project")
    relation = relate(candidate, [known], repeat_similarity=0.8, related_similarity=0.4, ordered=True, reading=reading)
    assert (relation.kind, relation.known_id) != ("repeat", 9), relation
