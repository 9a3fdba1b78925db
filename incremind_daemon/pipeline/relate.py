"""Decide how a candidate relates to what the person already knows: repeat, supplement, different, new.

Lexical and deterministic. Both texts become weighted word features: Latin words lightly
stemmed, Chinese words from jieba plus the character bigrams of each run (so a different
segmentation still overlaps), numbers, and a small bilingual concept map (复习 = review,
间隔 = interval, a list of days = an interval schedule) so the two languages meet on common
ground. Similarity is the weighted Dice overlap of the features. Whether a related candidate
disagrees is read from stance: a negation or criticism whose scope names the known topic,
opposite words (fixed / adjust, always / never), or a different number for the same unit.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass

from incremind_daemon.pipeline.cues import fold, wordset
from incremind_daemon.store.records import Candidate
from incremind_daemon.store.tokenizer import STOPWORDS, iter_tokens

log = logging.getLogger(__name__)

_PARAPHRASE_COSINE = 0.75  # with every named thing shared, a cosine this high reads as the same statement
_NOVEL_REPEAT = 0.2  # at most this share of a candidate's weight may be unknown for a repeat
_MATERIAL_WORDS = 2.0  # new topical weight that makes even a similar candidate a supplement
_FOCUS_LINK = 0.5  # a contradicted phrase this much about a known topic links to it, however short
_BIGRAM_WEIGHT = 0.25
_SINGLE_WEIGHT = 0.5


@dataclass(frozen=True, slots=True)
class Known:
    """A known insight as relate() sees it; vector_similarity is the embedder's cosine, if any."""

    id: int
    statement: str
    condition: str
    category: str
    vector_similarity: float | None = None
    scope: str = "project"


@dataclass(frozen=True, slots=True)
class Relation:
    kind: str  # one of records.RELATIONS: repeat, supplement, supersedes, different, new
    known_id: int | None
    similarity: float


# fmt: off
_CONCEPTS = (
    "interval: interval spacing 间隔 间距 | review: review revise revision 复习 温习 回顾"
    " | recall: recall retrieval retrieve self-test 回忆 自答 自测"
    " | memory: memory memorize memorise 记忆 记住 | card: card flashcard 卡片 闪卡"
    " | difficulty: difficulty difficult hard 难度 | day: day daily 天 每天"
    " | week: week weekly 周 每周 星期 | hour: hour 小时 | minute: minute 分钟 | answer: answer 回答 答案 作答"
    " | flip: flip 翻面 翻转 | schedule: schedule 计划 安排 日程 | test: test 测试 单测 用例"
    " | deploy: deploy deployment release 部署 发布 上线 | database: database db 数据库 | port: port 端口"
    " | config: config configuration setting 配置 设置 | path: path directory folder dir 路径 目录 文件夹"
    " | version: version 版本 | cache: cache 缓存 | log: log logging logger 日志"
    " | error: error exception 错误 异常 报错 | timeout: timeout 超时 | retry: retry 重试"
    " | server: server 服务器 | client: client 客户端 | user: user 用户 | install: install 安装"
    " | dependency: dependency deps dep package 依赖 | branch: branch 分支 | commit: commit 提交"
    " | merge: merge 合并 | code: code 代码 | function: function 函数 | query: query 查询"
    " | index: index 索引 | backup: backup 备份 | password: password 密码 | api: api 接口"
    " | request: request 请求 | container: container 容器 | image: image 镜像"
    " | performance: performance 性能 | morning: morning 早上 上午 早晨 | evening: evening 晚上"
    " | sleep: sleep 睡觉 睡眠 | coffee: coffee 咖啡 | tea: tea 茶 | exercise: exercise workout 锻炼 运动"
    " | running: running jog 跑步 | book: book 书 | note: note 笔记 | reading: reading 阅读"
    " | write: write writing 写作 | learn: learn study 学习 | vocabulary: vocabulary 单词 生词 词汇"
    " | english: english 英语 英文 | editor: editor 编辑器 | indent: indent indentation 缩进"
    " | format: format formatter 格式化 格式 | type: type typing 类型 | budget: budget 预算"
    " | cost: cost price 费用 价格 成本 | meeting: meeting 会议 开会 | team: team 团队 | email: email 邮件"
    " | flight: flight 航班 | hotel: hotel 酒店 | model: model 模型 | vector: embedding vector 向量"
    " | search: search 搜索 检索 | question: question 问题 | fixed: fixed 固定"
    " | adjust: adjust adaptive adapt dynamic 调整 动态 自适应 | coarse: coarse 粗糙"
    " | wrong: wrong incorrect 错误 | file: file 文件 | script: script 脚本 | task: task 任务"
    " | project: project 项目 | doc: documentation doc 文档 | environment: environment env 环境"
    " | production: production prod 生产 | local: local 本地 | remote: remote 远程"
    " | upgrade: upgrade 升级 | rollback: rollback revert 回滚 | monitor: monitor 监控"
    " | listen: listen 监听 | service: service 服务 | alert: alert 告警 报警 | disk: disk 磁盘"
    " | week-plan: weekday 工作日 | weekend: weekend 周末"
    " | chinese: chinese mandarin 中文 汉语 | answer: reply respond 回复 | short: short brief concise 简短 简洁 短"
    " | summary: summary summarize summarise recap 总结 | comment: comment 注释"
    " | mock: mock 模拟 | migration: migration 迁移 | style: style styling 样式 | state: state 状态"
    " | page: page 页 每页 | push: push 推送 | main: main master 主干 | pr: pr 合并请求"
    " | backend: backend 后端 | frontend: frontend 前端 | only: only sole 唯一 | team: team 组 组里 小组"
    " | developer: dev developer engineer 开发 工程师 | timezone: timezone 时区"
    " | chinese-traditional: 繁中 繁体 繁体中文 | chinese-simplified: 简中 简体 简体中文"
    " | monday: monday mon 周一 星期一 | tuesday: tuesday tue 周二 星期二 | wednesday: wednesday wed 周三 星期三"
    " | thursday: thursday thu 周四 星期四 | friday: friday fri 周五 星期五 | saturday: saturday sat 周六 星期六"
    " | sunday: sunday sun 周日 周天 星期日 | class: class lecture 上课 课 | night: night nights 晚上 夜里"
)
_STANCE_WORDS = wordset(
    "fixed adjust coarse wrong always never avoid stop instead rather longer too better worse must should "
    "总是 从不 避免 停止 而不是 不再 应该 必须 太 更好 更差 不要 别"
)
# Words that carry no topic: in a negation's scope, "don't *use* pip" is about pip.
_GENERIC = wordset(
    "use using used make do does get go put keep run have has need want try take set also just then now "
    "mean means called one thing things way it's that's there's i'm we're you're "
    "decision decided decide plan plans change changed switch switched let's go going now here repo project "
    "codebase always never please pls just still again stay stays keep keeps "
    "before after over under into onto about above below yourself myself itself ourselves each every "
    "btw pls plz thx thanks ok okay yeah same "
    "don't doesn't isn't aren't not no can't "
    "用 使用 做 进行 一下 时候 这样 那样 还是 就是 需要 可以 应该 一些 一个 时先 再 先 之前 以前 之后 以后 每次 都是 "
    "我都 已经 现在 然后 只在 都要 要先 统一 一遍 全部 所有 通过 以内 之内"
)
# fmt: on
_FUNCTION_CHARS = frozenset(
    "的了是在和与及也都就把被让给对从向之其这那有要会能而或并且但如若则即等着过得地很更最再才又还"
)


def _stem(word: str) -> str:
    """Strip the commonest English endings, so "intervals" meets "interval" and "reviewing" "review"."""
    if not word.isascii() or not word.isalpha() or len(word) <= 3:
        return word
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", "e"), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith(("ss", "us", "is")):
            base = word[: -len(suffix)] + keep
            if suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # flipping -> flip, planned -> plan
            return base
    return word


def _concept_map() -> dict[str, str]:
    mapping: dict[str, str] = {}
    for group in _CONCEPTS.split("|"):
        name, _, words = group.partition(":")
        for word in words.split():
            mapping[_stem(word)] = name.strip()
    return mapping


_CONCEPT = _concept_map()
_CONCEPT_NAMES = frozenset(_CONCEPT.values())
_SURFACES: dict[str, tuple[str, ...]] = {}
for _word, _name in _CONCEPT.items():
    _SURFACES[_name] = (*_SURFACES.get(_name, ()), _word)
# "don't forget", "别忘了": a reminder, not a negation
_REMINDER = re.compile(r"(?:don't|do not|never) forget|别忘了?|不要忘了?|别忘记|不要忘记")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_SPLIT_WORD = re.compile(r"_|\d[a-z]|[a-z]\d")
_PARTS = re.compile(r"\d+(?:\.\d+)*|[a-z]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# "days 1, 2, 4, 7, 15" and "第 1、2、4、7、15 天" are interval schedules, whatever else they say
_DAY_LIST = re.compile(r"(?:days?|第)\s*\d+(?:\s*(?:,|、|，|and|和|及)\s*\d+){2,}|every \d+ days?|每(?:隔)?\s*\d+\s*天")


@dataclass(frozen=True, slots=True)
class _Features:
    weights: dict[str, float]  # feature -> weight; a feature is a word, a bigram, a number or a concept
    topical: frozenset[str]  # features that name what the text is about (no stance, no generic verb)
    units: dict[str, frozenset[str]]  # a word beside numbers -> those numbers ("port" -> {"8080"})

    @property
    def total(self) -> float:
        return sum(self.weights.values())


_CN_NUMBER = re.compile(r"[零一二两三四五六七八九十百千万]+(?=分钟|[天个次小秒公元块点周杯遍页章行字倍度岁年号条人])")
_CN_DIGIT = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2}
_CN_UNIT = {"十": 10, "百": 100, "千": 1000, "万": 10000}


def _arabic(match: re.Match[str]) -> str:
    """Return a Chinese numeral such as 二十 or 两千五百 in digits, so 五公里 meets 5 公里."""
    if match.group() == "一":
        return "一"  # 一周, 一次: "a week", "once" far more often than a count
    total = section = digit = 0
    for char in match.group():
        if char in _CN_DIGIT:
            digit = _CN_DIGIT[char]
        elif char == "万":
            total, section, digit = (total + section + digit) * 10000, 0, 0
        else:
            section += (digit or 1) * _CN_UNIT[char]
            digit = 0
    return f" {total + section + digit} "


@functools.lru_cache(maxsize=4096)
def _features(text: str) -> _Features:
    text = _CN_NUMBER.sub(_arabic, text)
    weights: dict[str, float] = {}
    sequence: list[str] = []  # one entry per token: its feature, or "" when it has none
    previous_end = -1
    run: list[str] = []
    for token in iter_tokens(text, for_query=True):
        word = token.text
        if _CJK.match(word):
            # bigrams across a CJK run bridge different segmentations of the same words
            run = [*run, word] if token.start == previous_end and run else [word]
            if len(run) > 1:
                joined = run[-2][-1] + word[0]
                weights.setdefault(joined, _BIGRAM_WEIGHT)
            feature = _cjk_feature(word, weights)
        else:
            run = []
            feature = _latin_feature(word)
            # "8ms" is "8 ms", "max_batch" is "max batch": each part counts as the other spelling's would
            for part in _PARTS.findall(word) if _SPLIT_WORD.search(word) else ():
                part_feature = _latin_feature(part)
                if part_feature and part_feature != feature:
                    weights.setdefault(part_feature, _SINGLE_WEIGHT)
        previous_end = token.end
        if feature:
            weights[feature] = max(weights.get(feature, 0.0), _SINGLE_WEIGHT if len(feature) == 1 else 1.0)
        sequence.append(feature)
    if _DAY_LIST.search(fold(text)):
        weights["interval"] = 1.0
    topical = frozenset(f for f in weights if f not in _STANCE_WORDS and f not in _GENERIC and len(f) > 1)
    return _Features(weights, topical, _units(sequence))


def _cjk_feature(word: str, weights: dict[str, float]) -> str:
    if word in _CONCEPT:
        return _CONCEPT[word]
    if len(word) == 1:
        return "" if word in _FUNCTION_CHARS else word
    if word in _GENERIC or word in STOPWORDS:
        return ""
    if len(word) > 2:
        for i in range(len(word) - 1):
            bigram = word[i : i + 2]
            weights.setdefault(_CONCEPT.get(bigram, bigram), _BIGRAM_WEIGHT)
    return word


def _latin_feature(word: str) -> str:
    if _NUMBER.fullmatch(word):
        return "#" + word
    if word in STOPWORDS or word in _GENERIC:
        return ""
    stem = _stem(word)
    return _CONCEPT.get(stem, stem)


def _units(sequence: list[str]) -> dict[str, frozenset[str]]:
    """Map each word next to a run of numbers to the numbers of that run."""
    units: dict[str, set[str]] = {}
    i = 0
    while i < len(sequence):
        if not sequence[i].startswith("#"):
            i += 1
            continue
        j = i
        while j < len(sequence) and (sequence[j].startswith("#") or not sequence[j]):
            j += 1
        numbers = {n for n in sequence[i:j] if n}
        neighbours = [w for w in (*sequence[max(0, i - 2) : i], *sequence[j : j + 2]) if w and not w.startswith("#")]
        for word in neighbours:
            units.setdefault(word, set()).update(numbers)
        i = j
    return {word: frozenset(numbers) for word, numbers in units.items()}


def bridge_words(text: str) -> list[str]:
    """Return the words of both languages for the concepts a text names, to find neighbours across languages.

    "switch the database to SQLite" also looks for 数据库, so a known "数据库就用 Postgres" is
    compared with it even when no vectors are there to bridge the languages.
    """
    names = [f for f in _features(text).weights if f in _SURFACES]
    return [word for name in names for word in _SURFACES[name] if word not in text]


def similarity(a: str, b: str) -> float:
    """Return the lexical similarity of two texts in [0, 1], for Chinese, English and mixed text."""
    return _dice(_features(a), _features(b))


def _dice(a: _Features, b: _Features) -> float:
    total = a.total + b.total
    if total <= 0:
        return 0.0
    shared = sum(min(w, b.weights[f]) for f, w in a.weights.items() if f in b.weights)
    return min(1.0, 2 * shared / total)


def _text_of(statement: str, condition: str) -> str:
    return f"{statement} {condition}" if condition and condition not in statement else statement


def relate(
    candidate: Candidate,
    known: Sequence[Known],
    *,
    repeat_similarity: float,
    related_similarity: float,
    ordered: bool = False,
) -> Relation:
    """Decide whether candidate repeats, supplements, supersedes, contradicts or is new to the known insights.

    What a candidate adds decides, not its wording: when the named things and numbers it
    states are all in a known insight with the same polarity it is a repeat, whatever the
    language; when it keeps them and adds a step or condition, a supplement; when it turns
    one of them around or changes a value on the same subject, it supersedes the known one
    (it says so, or it is the person's newer word in the same scope: ``ordered``) or differs
    from it. The embedder's cosine, when given, helps rank the neighbours and is averaged in
    without lowering a lexical match; it never decides alone.
    """
    mine = _features(_text_of(candidate.statement, candidate.condition))
    scored: list[tuple[float, Known, _Features]] = []
    for item in known:
        theirs = _features(_text_of(item.statement, item.condition))
        lexical = _dice(mine, theirs)
        combined = lexical if item.vector_similarity is None else max(lexical, (lexical + item.vector_similarity) / 2)
        scored.append((combined, item, theirs))
    if not scored:
        return Relation("new", None, 0.0)
    keys = _keys(mine)
    # the known insight that shares the most named things comes first, then the most similar
    scored.sort(key=lambda entry: -(entry[0] + 0.1 * len(keys & _keys(entry[2]))))
    if keys:
        verdicts = (
            _by_keys(candidate, item, mine, theirs, score, related_similarity, repeat_similarity, ordered)
            for score, item, theirs in scored
        )
        found = [verdict for verdict in verdicts if verdict is not None]
        # someone else's view matters only where it disagrees, with whichever known insight that is
        if candidate.reported:
            found = [verdict for verdict in found if verdict.kind == "different"] or found
        if found:
            return found[0]
    scored.sort(key=lambda entry: -entry[0])
    best, match, theirs = scored[0]
    # named things were read for polarity above; the loose reading of a negation's scope is for texts without them
    if best < related_similarity:
        # a short disagreement ("fixed intervals are too coarse") shares few words with what it refutes
        for score, item, features in scored:
            loose = score >= related_similarity / 2
            if _may_conflict(candidate, item) and _contradicts(
                candidate.statement, item.statement, mine, features, linking=not loose, negations=not keys
            ):
                return _conflict(candidate, item, score, ordered)
        return Relation("new", None, round(best, 4))
    if _may_conflict(candidate, match) and _contradicts(
        candidate.statement, match.statement, mine, theirs, linking=False, negations=not keys
    ):
        return _conflict(candidate, match, best, ordered)
    if _adds_nothing(mine, theirs, candidate.condition, best >= repeat_similarity):
        return Relation("repeat", match.id, round(best, 4))
    return Relation("supplement", match.id, round(best, 4))


def _by_keys(
    candidate: Candidate,
    item: Known,
    mine: _Features,
    theirs: _Features,
    score: float,
    related_similarity: float,
    repeat_similarity: float,
    ordered: bool,
) -> Relation | None:
    """Relate by the named things and numbers both state; None when they share none."""
    my_keys, their_keys = _keys(mine), _keys(theirs)
    shared = my_keys & their_keys
    named = {key for key in shared if not key.startswith("#")}
    if not named:
        return None  # no common subject
    my_negated = _negated(candidate.statement)
    their_negated = _negated(item.statement)
    history = not _may_conflict(candidate, item)
    covered = my_keys - _numbers(mine) <= their_keys
    tools = named - _CONCEPT_NAMES  # a named tool both speak of, not a topic word: one subject
    subject = covered or tools or len(named) >= 2 or len(named) * 2 >= len(their_keys - _numbers(theirs))
    if subject and not history and _flipped(candidate.statement, item.statement, shared, my_negated, their_negated):
        return _bounded(candidate, item, score, ordered)  # "not redux" against "use redux"
    if not subject and score < related_similarity:
        return None  # a word in common ("mock server" beside "don't mock"), not a subject
    # another number for the same unit, on more than the unit word alone ("metrics on port 9301" is not
    # "the service on port 9300"); or a rule that says it changes things and names something new
    renumbered = _different_numbers(mine, theirs) and (covered or len(named) >= 2)
    says_change = _CHANGE.search(fold(candidate.quote or candidate.statement)) is not None
    replaced = says_change and bool((my_keys - my_negated) - their_keys)
    changed = renumbered or replaced
    if changed and not history:
        return _bounded(candidate, item, score, ordered)
    if score < related_similarity / 2 and len(named) < 2:
        return None
    if not history and _contradicts(candidate.statement, item.statement, mine, theirs, linking=False, negations=False):
        return _conflict(candidate, item, score, ordered)  # "X is overkill", "fixed" against "adaptive"
    novel = my_keys - their_keys
    if _adds_nothing(mine, theirs, candidate.condition, score >= repeat_similarity or not novel):
        return Relation("repeat", item.id, round(score, 4))
    # the same named things, and the model reads the rest as the same meaning: other words, or the other language
    if not novel and covered and not candidate.condition and (item.vector_similarity or 0.0) >= _PARAPHRASE_COSINE:
        return Relation("repeat", item.id, round(score, 4))
    # a restatement may name one thing more ("straight to main", "pnpm install"); a step, condition or
    # example brings a thing and what to do with it, or a condition of its own
    if len(novel) <= 1 and not novel & my_negated and not candidate.condition and not _new_numbers(mine, theirs):
        extra = sum(mine.weights[f] for f in mine.topical - theirs.weights.keys() if not f.isascii())
        if extra < 2 * _MATERIAL_WORDS:  # other words for the same things: a paraphrase
            return Relation("repeat", item.id, round(score, 4))
    return Relation("supplement", item.id, round(score, 4))


def _flipped(mine: str, theirs: str, shared: Iterable[str], my_negated: Set[str], their_negated: Set[str]) -> bool:
    """Tell whether one side turns down a thing the other uses, or a value the other states.

    A thing merely mentioned beside a negation ("不要给我 npx / npm 的指令" names npm without
    using it) is not turned around by "not npm".
    """
    my_used, their_used = _used(mine), _used(theirs)
    for key in shared:
        if (key in my_negated) == (key in their_negated):
            continue
        if (
            key.startswith("#")
            or (key in my_negated and key in their_used)
            or (key in their_negated and key in my_used)
        ):
            return True
    return False


def _used(text: str) -> frozenset[str]:
    """Return the named things a text says to use: after a verb of use, or as the verb of an imperative."""
    folded = fold(text)
    out: set[str] = set()
    for match in _USED.finditer(folded):
        out.update(_keys(_features(match.group("thing"))))
    first = _FIRST_WORD.match(folded)
    if first is not None:
        out.update(_keys(_features(first.group(1))))
    return frozenset(out)


def _bounded(candidate: Candidate, item: Known, score: float, ordered: bool) -> Relation:
    """A turned-around candidate that keeps to a case of its own ("except admin forms") supplements."""
    if candidate.condition or _EXCEPTION.search(fold(candidate.statement)):
        return Relation("supplement", item.id, round(score, 4))
    return _conflict(candidate, item, score, ordered)


def _may_conflict(candidate: Candidate, item: Known) -> bool:
    """Tell whether the two can disagree: what happened, or who the person is, is not refuted by a rule."""
    kinds = {candidate.category, item.category}
    return len(kinds) == 1 or not kinds & {"event", "identity"}


def _conflict(candidate: Candidate, item: Known, score: float, ordered: bool) -> Relation:
    """A disagreement supersedes when it says it changes things, or is the person's newer word in that scope."""
    says_so = _CHANGE_OF_PLAN.search(fold(candidate.quote or candidate.statement))
    mine = (says_so or ordered) and not candidate.reported
    kind = "supersedes" if mine and candidate.scope == item.scope else "different"
    return Relation(kind, item.id, round(score, 4))


def _keys(features: _Features) -> frozenset[str]:
    """Return the named things of a text: Latin words, numbers and bilingual concepts."""
    return frozenset(f for f in features.topical if f.isascii() and len(f) > 1)


def _new_numbers(mine: _Features, theirs: _Features) -> bool:
    return bool(_numbers(mine) - theirs.weights.keys())


def _numbers(features: _Features) -> frozenset[str]:
    return frozenset(f for f in features.weights if f.startswith("#"))


def _negated(text: str) -> frozenset[str]:
    """Return the named things a text turns down: "not redux", "不想上 redux", "instead of MySQL".

    Only a thing right after the negation counts: "never block the writer in WAL mode"
    turns down blocking, not WAL.
    """
    folded = _REMINDER.sub(" remember ", fold(text))
    out: set[str] = set()
    for match in _TURNED_DOWN.finditer(folded):
        thing = match.group("latin") or match.group("used") or match.group("placed") or match.group("named")
        out.update(_keys(_features(thing)))
    for match in _DROPPED.finditer(folded):
        out.update(_keys(_features(match.group(1))))
    return frozenset(out)


def _adds_nothing(mine: _Features, theirs: _Features, condition: str, similar: bool) -> bool:
    """Return whether the candidate brings no new number, condition or material words.

    A similar candidate may bring one new topical word ("the *whole* test suite");
    two or more, such as a new step with its object, are material.
    """
    if mine.total <= 0:
        return True
    if any(f.startswith("#") and f not in theirs.weights for f in mine.weights):
        return False
    if condition and not (_features(condition).topical <= theirs.weights.keys()):
        return False
    novel = sum(w for f, w in mine.weights.items() if f not in theirs.weights)
    if similar:
        return sum(mine.weights[f] for f in mine.topical if f not in theirs.weights) < _MATERIAL_WORDS
    return novel <= _NOVEL_REPEAT * mine.total


def _words(*phrases: str) -> str:
    return rf"(?<![a-z0-9_])(?:{'|'.join(phrases)})(?![a-z0-9_])"


# Stance cues over folded text. A negation or a change of plan is about what follows it
# ("instead of *MySQL*", "不再用 *pip*"); a criticism about what precedes it ("*fixed intervals*
# are too coarse", "*固定间隔*太粗糙").
_NEGATION = re.compile(
    _words(
        r"not|never|no longer|no|don't|do not|doesn't|does not|didn't|isn't|aren't|shouldn't|won't|can't|cannot"
        r"|avoid|stop|instead of|rather than|without"
    )
    + r"|不再|不要|别|而不是|没有|不必|无需|避免|停止|禁止|不能|不应该?|不用|从不|不是|不会|不该"
    r"|不[^同断少仅过错久然但如管论足]"
)
_CRITIQUE = re.compile(
    _words(
        r"wrong|incorrect|outdated|obsolete|a myth|overrated|too \w+|doesn't work|does not work|bad idea|misleading"
        r"|not true|useless|inaccurate|broken|flawed|coarse|overkill|a waste|(?:doesn't|does not|don't) matter"
        r"|no difference|unnecessary|not (?:needed|necessary|required)|good enough|(?:is|are) fine|worse"
    )
    + r"|错|过时|太粗糙|太死板|太[^\W\d_]|没用|无效|不准|误区|不靠谱|不对|粗糙|死板|有问题|不合理|不好用|浪费"
    r"|没必要|不重要|没(?:什么)?区别|不需要|就够|就行|更差|效果差|不适合"
)
_CHANGE = re.compile(
    _words(
        r"actually|in fact|turns out|switch(?:ed|ing)? (?:to|from|over)|mov(?:ed|ing) (?:to|from)|replaced?"
        r"|now use|migrated|changed? to|no longer|correction|change of plans?|from now on|going forward|instead"
        r"|got (?:pushed|moved|bumped)|(?:we're|we are) on|bumped|now (?:on|at|is|are)|is now|are now"
    )
    + r"|其实|实际上|改用|换成|改为|改成|替换|纠正|更正|不再|换用|迁移|迁到|搬到|升到|升级到|现在用"
    r"|以后不|不是[^，。]{1,20}而是|改到|推迟|提前"
    r"|不用[^，。]{0,15}了|现在是|升级到|换到"
)
# what a document says to replace an older rule; a person's own newer words replace it anyway
_CHANGE_OF_PLAN = re.compile(
    _words(r"switch(?:ed|ing)? to|change of plans?|from now on|going forward|no longer|moved? to|migrat\w* to")
    + r"|改用|换成|改为|改成|以后不|不再|不是[^，。]{1,20}而是|现在改|换用"
)
# The one thing right after a negation is what it turns down: "don't mock the db" turns down mocking,
# "不想上 redux" redux. A Chinese object counts only after a verb of use ("别在回复里加 emoji" is about emoji).
_TURNED_DOWN = re.compile(
    r"(?:(?<![a-z])(?:not|no|never|don't|do not|instead of|rather than|without|avoid|stop using|no more)\s+"
    r"(?:(?:use|using|add|install|touch|pick|go with|bring in)\s+)?(?:the\s+|a\s+|an\s+)?"
    r"(?P<latin>[\w.+#-]+)"
    r"|(?:不要|不用|别|不想|不再|而不是|不是|避免|禁止|不能|不许|不)\s*"
    r"(?:(?:用|上|引入|装|加|使用|选|要)\s*(?P<used>[a-z0-9][\w.+#-]*|[\u4e00-\u9fff]{1,4})"
    # "别在回复和代码里加 emoji": a place between the negation and its verb, then a named thing
    r"|[^，。,；;]{1,8}?(?:用|装|加|引入|写)\s*(?P<placed>[a-z0-9][\w.+#-]*)|(?P<named>[a-z0-9][\w.+#-]*)))"
)
_USED = re.compile(
    r"(?:(?<![a-z])(?:use|using|uses|go with|switch(?:ed)? to|move to|stick with|prefer|pick|install|run|runs on"
    r"|on|with)\s+(?:the\s+|a\s+)?|(?:就用|改用|换成|换到|都用|一律用|统一用|用|走|上|采用|选)\s*)(?P<thing>[a-z0-9][\w.+#-]*)"
)
_FIRST_WORD = re.compile(r"^[\"'“「(\s]*([a-z][\w.+#-]*)\b")
# a case of its own: the rule stands, this one is the exception
_EXCEPTION = re.compile(
    r"(?<![a-z])(?:except|unless|the exception|only (?:for|when|in|on)|when |if |on [\w-]+ machines)"
    r"|例外|除外|除了|的时候|时候|如果|只有在|单卡|本地调试"
)
# "date-fns 不用了", "Redis is out": what a text drops, named before the words that drop it
_DROPPED = re.compile(r"([\w.+-]{2,30})\s*(?:不用了|不要了|去掉|is out|is gone|no more)")
_CLAUSE_BREAK = re.compile(r"[,;:.!?，；：。！？]")
# fmt: off
_OPPOSITES = tuple((re.compile(a), re.compile(b)) for a, b in (
    (_words(r"fixed|static|constant|hard-?coded") + "|固定|静态|写死",
     _words(r"adjust\w*|adaptive|adapt\w*|dynamic\w*|variable|flexib\w*") + "|调整|动态|自适应|灵活"),
    (_words(r"always|every time") + "|总是|始终|每次都", _words(r"never") + "|从不|从来不|绝不"),
    (_words(r"enabled?|enabling|turn on") + "|开启|打开|启用", _words(r"disabled?|disabling|turn off") + "|关闭|禁用"),
    (_words(r"increase\w*|raise|more|higher") + "|增加|提高|加大|调高|更多",
     _words(r"decrease\w*|reduce\w*|lower|less|fewer") + "|减少|降低|调低|更少"),
    (_words(r"sync|synchronous(?:ly)?") + "|同步", _words(r"async\w*|asynchronous(?:ly)?") + "|异步"),
    (_words(r"manual(?:ly)?|by hand") + "|手动|手工", _words(r"automatic(?:ally)?|automate\w*|auto") + "|自动"),
    (_words(r"tabs?"), _words(r"spaces")),
    (_words(r"morning") + "|早上|上午|早晨", _words(r"evening|night") + "|晚上|夜里|睡前"),
    (_words(r"local(?:ly)?") + "|本地", _words(r"remote(?:ly)?|cloud") + "|远程|云端"),
    (_words(r"allow\w*|permit\w*") + "|允许", _words(r"forbid\w*|deny|block\w*") + "|禁止|不允许"),
    (_words(r"monolith\w*") + "|单体", _words(r"microservices?") + "|微服务"),
))
# fmt: on


def _contradicts(
    mine_text: str, their_text: str, mine: _Features, theirs: _Features, *, linking: bool, negations: bool = True
) -> bool:
    """Return whether the candidate disagrees with the known statement.

    With ``linking``, the two are not similar overall, so only a negation, criticism
    or change whose own words are mostly about the known insight counts. Without
    ``negations``, the polarity of named things has been read already (``_negated``):
    only criticism, a change, other numbers and opposite words count.
    """
    folded, their_folded = fold(mine_text), fold(their_text)
    for pattern in (_NEGATION, _CRITIQUE, _CHANGE) if negations else (_CRITIQUE,):
        if pattern.search(their_folded) is not None and pattern is not _CHANGE:
            continue  # both sides negate or criticise: no flip of polarity here
        for scope in _scopes(folded, pattern):
            if _is_about(scope, theirs, linking=linking):
                return True
    # the known insight negates what the candidate states plainly: "use tabs" against "don't use tabs"
    if negations and _NEGATION.search(folded) is None:
        for scope in _scopes(their_folded, _NEGATION):
            if _is_about(scope, mine, linking=linking):
                return True
    if _different_numbers(mine, theirs):
        return True
    if linking:
        return False
    for first, second in _OPPOSITES:
        mine_first, mine_second = first.search(folded), second.search(folded)
        their_first, their_second = first.search(their_folded), second.search(their_folded)
        if (mine_first and their_second and not mine_second and not their_first) or (
            mine_second and their_first and not mine_first and not their_second
        ):
            return True
    return False


def _scopes(folded: str, pattern: re.Pattern[str]) -> list[str]:
    scopes: list[str] = []
    for match in pattern.finditer(folded):
        before = max((m.end() for m in _CLAUSE_BREAK.finditer(folded, 0, match.start())), default=0)
        after = _CLAUSE_BREAK.search(folded, match.end())
        following = folded[match.end() : after.start() if after else len(folded)]
        preceding = folded[before : match.start()]
        if pattern is _CRITIQUE:
            scopes.append(preceding)
        elif pattern is _CHANGE:
            scopes.append(preceding + " " + following)
        else:
            scopes.append(following)
    return scopes


def _is_about(scope: str, other: _Features, *, linking: bool) -> bool:
    topical = _features(scope).topical
    if not topical:
        return False
    shared = topical & other.weights.keys()
    if not linking:
        return bool(shared)
    weights = _features(scope).weights
    shared_weight = sum(weights[f] for f in shared)
    return shared_weight >= 1.0 and shared_weight >= _FOCUS_LINK * sum(weights[f] for f in topical)


def _different_numbers(mine: _Features, theirs: _Features) -> bool:
    """Return whether both give a number for the same unit and neither's numbers hold the other's."""
    for unit, numbers in mine.units.items():
        known = theirs.units.get(unit)
        if known and unit in theirs.topical and not (numbers <= known or known <= numbers):
            return True
    return False
