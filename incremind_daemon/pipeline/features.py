"""What a text names, as weighted features both languages share: words, numbers and concepts.

Latin words are lightly stemmed; Chinese words come from jieba plus the character bigrams
of each run (so a different segmentation still overlaps); numbers are kept with the words
beside them (their unit); a small bilingual concept map (复习 = review, 间隔 = interval, a list
of days = an interval schedule) lets the two languages meet on common ground. Similarity is
the weighted Dice overlap of two texts' features. ``keys_of`` picks the named things: Latin
words, numbers and concepts, which decide whether two statements say the same.
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass

from incremind_daemon.pipeline.cues import fold, wordset
from incremind_daemon.store.tokenizer import STOPWORDS, iter_tokens

log = logging.getLogger(__name__)

_BIGRAM_WEIGHT = 0.25
_SINGLE_WEIGHT = 0.5


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
CONCEPT_NAMES = frozenset(_CONCEPT.values())
_SURFACES: dict[str, tuple[str, ...]] = {}
for _word, _name in _CONCEPT.items():
    _SURFACES[_name] = (*_SURFACES.get(_name, ()), _word)
# "don't forget", "别忘了": a reminder, not a negation
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_SPLIT_WORD = re.compile(r"_|\d[a-z]|[a-z]\d")
_PARTS = re.compile(r"\d+(?:\.\d+)*|[a-z]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# "days 1, 2, 4, 7, 15" and "第 1、2、4、7、15 天" are interval schedules, whatever else they say
_DAY_LIST = re.compile(r"(?:days?|第)\s*\d+(?:\s*(?:,|、|，|and|和|及)\s*\d+){2,}|every \d+ days?|每(?:隔)?\s*\d+\s*天")


@dataclass(frozen=True, slots=True)
class Features:
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
def features_of(text: str) -> Features:
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
    return Features(weights, topical, _units(sequence))


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
    names = [f for f in features_of(text).weights if f in _SURFACES]
    return [word for name in names for word in _SURFACES[name] if word not in text]


def similarity(a: str, b: str) -> float:
    """Return the lexical similarity of two texts in [0, 1], for Chinese, English and mixed text."""
    return dice(features_of(a), features_of(b))


def dice(a: Features, b: Features) -> float:
    total = a.total + b.total
    if total <= 0:
        return 0.0
    shared = sum(min(w, b.weights[f]) for f, w in a.weights.items() if f in b.weights)
    return min(1.0, 2 * shared / total)


def keys_of(features: Features) -> frozenset[str]:
    """Return the named things of a text: Latin words, numbers and bilingual concepts."""
    return frozenset(f for f in features.topical if f.isascii() and len(f) > 1)


def new_numbers(mine: Features, theirs: Features) -> bool:
    return bool(numbers_of(mine) - theirs.weights.keys())


def numbers_of(features: Features) -> frozenset[str]:
    return frozenset(f for f in features.weights if f.startswith("#"))
