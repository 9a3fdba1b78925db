"""Deterministic mixed Chinese/English text for benchmarks.

Three kinds of writing, as people drop them into the inbox: Chinese study
notes, English technical notes, and code-switching notes ("今天把 Redis 的
maxmemory-policy 改成 allkeys-lru"). Everything comes from a seeded
``random.Random`` over the vocabularies below, so the same seed always gives
the same bytes, and the queries are drawn from the same words so they hit.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# Chinese nouns of study and engineering; most are in jieba's dictionary, so a
# query for one is segmented the way the documents were.
ZH_NOUNS = """
复习 记忆 笔记 考试 错题 概念 定理 公式 推导 练习 习题 课本 教材 章节 知识点 重点 难点 考点 大纲 提纲
例题 答案 解析 思路 方法 步骤 结论 证明 假设 条件 定义 性质 推论 模型 框架 体系 逻辑 原理 规律 现象
实验 数据 样本 变量 参数 函数 导数 积分 矩阵 向量 概率 统计 分布 期望 方差 极限 数列 集合 映射 空间
单词 语法 词汇 阅读 写作 听力 口语 翻译 句型 段落 文章 作文 标题 摘要 引用 参考文献 论文 课题 导师 答辩
端口 配置 缓存 数据库 索引 事务 线程 进程 内存 日志 部署 容器 集群 节点 服务 接口 请求 响应 超时 重试
队列 消息 消费者 生产者 分区 副本 主从 备份 恢复 迁移 版本 分支 合并 冲突 提交 回滚 发布 灰度 监控 告警
指标 延迟 吞吐量 带宽 负载 并发 锁 死锁 连接池 协程 异步 回调 网关 代理 路由 域名 证书 密钥 权限 用户
表结构 字段 主键 外键 查询 排序 分页 视图 存储过程 触发器 序列化 编码 解码 压缩 加密 哈希 签名 令牌 会话
文件 目录 路径 脚本 命令 终端 环境变量 依赖 安装包 编译 构建 测试 单元测试 覆盖率 断言 用例 调试 断点 堆栈
算法 复杂度 递归 动态规划 贪心 二分查找 链表 哈希表 二叉树 红黑树 图论 最短路径 拓扑排序 滑动窗口 双指针 前缀和
项目 需求 文档 评审 周报 会议 计划 目标 进度 风险 问题 方案 原因 影响 结果 经验 教训 总结 反思 习惯
时间 效率 专注 番茄钟 间隔重复 记忆曲线 卡片 闪卡 错题本 思维导图 草稿 清单 计划表 日程 周期 阶段
物理 化学 生物 历史 地理 政治 哲学 经济学 心理学 文学 诗词 古文 成语 修辞 论点 论据 材料 题型 选择题 填空题
分词 词典 词频 停用词 倒排表 召回率 准确率 相关性 权重 语料 向量 嵌入 特征 标注
训练集 验证集 损失函数 梯度 学习率 过拟合
"""
ZH_VERBS = """
复习 整理 记录 总结 归纳 理解 掌握 背诵 默写 推导 证明 计算 分析 比较 检查 验证 修改 调整 优化 重构
配置 部署 安装 升级 回滚 重启 排查 定位 修复 监控 测试 调试 发布 迁移 备份 恢复 压缩 统计 查询 更新
删除 合并 拆分 缓存 加载 解析 编译 运行 执行 提交 审查 设计 实现 对比 梳理 巩固 回顾 预习 练习 记住
"""
ZH_ADVERBS = """
反复 仔细 重新 认真 提前 及时 逐步 彻底 初步 大致 完整 系统地 临时 暂时 统一 手动 自动 批量 定期 尽量
"""
ZH_ADJECTIVES = """
重要 关键 复杂 简单 常见 典型 基础 核心 稳定 缓慢 明显 合理 完整 清晰 模糊 容易 困难 有效 必要 主要
"""
ZH_PHRASES = """
温故而知新 学而不思则罔 举一反三 熟能生巧 循序渐进 查漏补缺 融会贯通 由浅入深 事半功倍 一知半解
内存泄漏 性能瓶颈 冷启动 热点数据 缓存穿透 缓存雪崩 缓存击穿 慢查询 全表扫描 索引失效 读写分离 分库分表
幂等性 最终一致性 强一致性 限流熔断 服务降级 链路追踪 蓝绿部署 持续集成 代码审查 技术债务 边界条件 时间复杂度
错题整理 考前冲刺 知识框架 学习计划 阅读理解 完形填空 英语作文 高等数学 线性代数 概率论 数据结构 操作系统
计算机网络 编译原理 机器学习 深度学习 自然语言处理 信息检索 中文分词 倒排索引 全文搜索 向量检索
"""
ZH_TOPICS = """
高等数学 线性代数 概率论 英语阅读 考研政治 数据结构 操作系统 计算机网络 数据库原理 编译原理 软件工程
机器学习 中文分词 全文搜索 缓存设计 消息队列 分布式事务 容器编排 性能调优 日志分析 接口设计 单元测试
"""

EN_NOUNS = """
cache database index transaction thread process memory log deployment container cluster node service interface
request response timeout retry queue message consumer producer partition replica backup restore migration
version branch merge conflict commit rollback release canary monitor alert metric latency throughput bandwidth
load concurrency lock deadlock pool coroutine callback gateway proxy route domain certificate key permission
user schema field query sort pagination view trigger serialization encoding compression encryption hash
signature token session file directory path script command terminal variable dependency package build test
coverage assertion fixture debugger breakpoint stack heap algorithm complexity recursion tree graph array
vector matrix tensor embedding model tokenizer segmenter snippet ranking relevance score passage summary
document corpus benchmark profile regression bottleneck worker scheduler heartbeat watcher inbox daemon socket
endpoint payload header buffer stream batch shard segment checkpoint snapshot journal pragma cursor connection
statement parser lexer compiler runtime interpreter allocator garbage collector thread-pool event loop
config option flag default threshold limit quota budget deadline milestone estimate review postmortem incident
outage rollout capacity headroom spike baseline percentile histogram sample window bucket counter gauge
lease leader follower quorum election consensus raft gossip backoff jitter circuit breaker fallback sidecar
ingress egress namespace secret volume mount image registry manifest pipeline artifact cache-hit cache-miss
eviction fragmentation vacuum autovacuum bloat planner optimizer cardinality selectivity join scan seek
stopword stemming lemma bigram unigram recall precision rerank highlight offset span annotation chapter lecture
flashcard deck review interval spacing mnemonic outline draft reading essay grammar vocabulary exercise exam
"""
EN_VERBS = """
configure deploy install upgrade restart debug profile measure trace inspect verify validate refactor optimize
cache invalidate evict flush compact vacuum rebuild reindex migrate backfill replay retry throttle batch
serialize parse tokenize segment rank score merge split rotate archive compress encrypt sign publish subscribe
"""
EN_ADJECTIVES = """
slow fast stale fresh hot cold idle busy flaky stable noisy quiet large small incremental eventual strict
loose lazy eager async blocking concurrent durable atomic idempotent deterministic readonly writable
"""
TECH_NAMES = """
Redis PostgreSQL MySQL SQLite Kafka RabbitMQ Nginx Docker Kubernetes Helm Terraform Ansible Jenkins GitHub
GitLab Prometheus Grafana Elasticsearch ClickHouse MongoDB etcd Consul Envoy Istio gRPC GraphQL FastAPI Django
Flask React Vue TypeScript Python Rust Golang Java Spring Node.js Webpack Vite pytest jieba FTS5 WAL Linux
systemd cron tmux Vim VSCode Git Anki Notion Obsidian Zotero LaTeX PyTorch NumPy pandas ONNX
"""
IDENTIFIERS = """
maxmemory-policy allkeys-lru volatile-ttl maxmemory max_connections shared_buffers work_mem effective_cache_size
wal_level checkpoint_timeout innodb_buffer_pool_size slow_query_log long_query_time proxy_pass keepalive_timeout
worker_processes client_max_body_size replicas readinessProbe livenessProbe imagePullPolicy resources.limits
requests.memory acks=all linger.ms batch.size auto.offset.reset enable.auto.commit max.poll.records
useEffect useState componentDidMount getServerSideProps asyncio.gather ThreadPoolExecutor functools.lru_cache
__init__ __main__ snake_case CamelCase kebab-case settle_seconds rescan_seconds busy_timeout journal_mode
synchronous=NORMAL foreign_keys user_version wal_checkpoint query_words iter_tokens split_passages
summarize_text insert_passages HTTPServer BaseSettings ConnectionPool RetryPolicy RateLimiter CircuitBreaker
X-Request-Id Content-Type Cache-Control ETag If-None-Match HTTP/2 TLSv1.3 SIGTERM SIGKILL EADDRINUSE ECONNRESET
OOMKilled CrashLoopBackOff 127.0.0.1 0.0.0.0 localhost:8080 v1.2.3 v2.0.0-rc1 python3.11 utf-8 gb18030
"""
COMMANDS = """
redis-cli|CONFIG|SET|maxmemory-policy|allkeys-lru
kubectl|rollout|restart|deployment/api
docker|compose|up|-d
git|rebase|-i|HEAD~3
pip|install|-e|.
pytest|-x|-q|tests/store
psql|-c|"VACUUM|ANALYZE"
sqlite3|memory.db|"PRAGMA|wal_checkpoint(TRUNCATE)"
systemctl|--user|restart|incremind
journalctl|-u|nginx|--since|today
curl|-sS|http://127.0.0.1:8080/healthz
ruff|check|--fix|.
"""


def _words(block: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(block.split()))


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The word lists every generator and the query list draw from."""

    zh_nouns: tuple[str, ...] = _words(ZH_NOUNS)
    zh_verbs: tuple[str, ...] = _words(ZH_VERBS)
    zh_adverbs: tuple[str, ...] = _words(ZH_ADVERBS)
    zh_adjectives: tuple[str, ...] = _words(ZH_ADJECTIVES)
    zh_phrases: tuple[str, ...] = _words(ZH_PHRASES)
    zh_topics: tuple[str, ...] = _words(ZH_TOPICS)
    en_nouns: tuple[str, ...] = _words(EN_NOUNS)
    en_verbs: tuple[str, ...] = _words(EN_VERBS)
    en_adjectives: tuple[str, ...] = _words(EN_ADJECTIVES)
    tech: tuple[str, ...] = _words(TECH_NAMES)
    identifiers: tuple[str, ...] = _words(IDENTIFIERS)
    commands: tuple[str, ...] = tuple(line.replace("|", " ") for line in COMMANDS.split())


VOCAB = Vocabulary()

# Sentence templates; each {slot} is filled by _SLOTS. Chinese study notes ...
ZH_TEMPLATES = (
    "今天{zv}了{topic}，重点是{zn}和{zn}之间的关系。",
    "{zn}的核心在于{zn}，不能只{zv}{zn}。",
    "第{n}章讲{topic}，其中{zn}部分需要{zadv}{zv}。",
    "上次考试在{zn}上丢了{n}分，主要是{zn}没有{zv}清楚。",
    "{phrase}：先{zv}{zn}，再{zv}{zn}，最后{zv}{zn}。",
    "老师说{zn}是{zadj}考点，每年都会结合{zn}出题。",
    "用{zn}来{zv}{zn}，比直接{zv}{zn}更{zadj}。",
    "这一节的{zn}比较{zadj}，我打算明天{zadv}{zv}一遍。",
    "错题本里关于{zn}的题目有{n}道，大多是{zn}理解不到位。",
    "按照间隔重复的安排，第{n}天要{zv}{zn}和{zn}。",
    "{zn}和{zn}容易混淆，区别在于{zn}是否{zadj}。",
    "把{zn}画成思维导图以后，{zn}的脉络清晰多了。",
    "背了{n}个单词，其中和{zn}有关的占了大约{pct}。",
    "如果{zn}不成立，那么{zn}也就无从谈起，这是{zadj}的推论。",
    "{phrase}，这句话用在{topic}上特别合适。",
    "本周计划：{zv}{zn}，完成{n}道{zn}，{zadv}{zv}{zn}。",
    "{zn}这部分我只是一知半解，需要回到{zn}重新{zv}。",
    "做完第{n}套题，正确率{pct}，{zn}和{zn}仍然是难点。",
    "番茄钟{n}个，专注在{topic}的{zn}上，效率还不错。",
    "总结：{zn}决定{zn}，{zn}影响{zn}。",
)
# ... English technical notes ...
EN_TEMPLATES = (
    "We {ev} the {en} before every {en} so the {en} stays {ea}.",
    "The {en} was {ea} because the {en} held a {en} for {num} ms.",
    "{tech} reports p95 {en} of {num} ms after we set {ident} to {num}.",
    "Remember to {ev} the {en} when the {en} changes; otherwise the {en} goes {ea}.",
    "A {ea} {en} usually means the {en} is waiting on a {en}.",
    "To {ev} a {en}, run `{cmd}` and check the {en}.",
    "After the {en} the {en} dropped from {num} to {num} per second.",
    "{tech} keeps one {en} per {en}, which makes the {en} {ea}.",
    "Set {ident} in the {en}, then {ev} and {ev} the {en}.",
    "The {en} on {tech} {ver} is {ea}; pin {ident} until the {en} lands.",
    "Our {en} budget is {num} MB, so the {en} must {ev} {ea} entries.",
    "Incident {num}: the {en} timed out after {num} s and the {en} retried {num} times.",
    "Prefer a {ea} {en} over a {ea} {en} when the {en} is {ea}.",
    "{tech} {ver} changed the default of {ident}; {ev} the {en} after upgrading.",
    "The {en} reads {path} at start-up and writes a {en} every {num} s.",
    "If {ident} is unset, the {en} falls back to the {en} and logs a warning.",
    "We measured {num} {en} per second with {num} workers and a {ea} {en}.",
    "TODO: {ev} the {en}, {ev} the {en}, then {ev} the {en} again.",
    "The {en} between {tech} and {tech} is {ea}, so {ev} it explicitly.",
    "Keep the {en} {ea}: one {en}, one {en}, one {en}.",
)
# ... and notes that switch language mid-sentence.
MIXED_TEMPLATES = (
    "今天把 {tech} 的 {ident} 改成 {ident}，{zn}明显{zadj}了。",
    "{tech} 的 {en} 一直{zadj}，排查后发现是{zn}的问题。",
    "运行 `{cmd}` 之后，{zn}从 {num} 降到了 {num}。",
    "这个 {en} 在 {tech} {ver} 里默认开启，需要{zadv}{zv} {ident}。",
    "{zn}相关的配置写在 {path}，改完要重启 {tech}。",
    "复习 {tech} 的时候，重点看 {en} 和 {zn} 的对应关系。",
    "线上 {en} 的 p99 是 {num} ms，{zn}占了大约 {pct}。",
    "{ident} 设得太小会导致{phrase}，设得太大又浪费{zn}。",
    "用 {tech} 做{zn}，记得先 {ev} {en}，再{zv}{zn}。",
    "{topic}笔记：{en} 就是{zn}，{en} 对应{zn}。",
    "今天 code review 的结论：{zn}要{zadv}{zv}，{ident} 不要硬编码。",
    "{tech} 升级到 {ver} 后 {ident} 的含义变了，{zn}需要重新{zv}。",
    "把 {en} 的 {en} 从 {num} 调到 {num}，{zn}终于{zadj}了。",
    "周会讨论了 {tech} 的{phrase}，决定下周{zv} {en}。",
    "{zn}（{en}）和{zn}（{en}）是两个不同的概念，别搞混。",
    "报错 {ident}，原因是{zn}没有{zv}，{zadv}{zv}后恢复正常。",
)
ZH_HEADINGS = ("{topic}复习笔记", "{zn}与{zn}", "关于{zn}的整理", "{topic}：{zn}", "第{n}章 {zn}", "{phrase}")
EN_HEADINGS = ("Notes on {tech} {en}", "{ea} {en} checklist", "Why the {en} is {ea}", "{tech}: {en} and {en}",
               "Runbook: {ev} the {en}", "Postmortem {n}: {ea} {en}")
MIXED_HEADINGS = ("{tech} {en} 排查记录", "{tech} 的{zn}笔记", "{ident} 调优", "{topic} × {tech}",
                  "今天学的 {tech} {en}", "{zn} / {en}")


def _slot_fillers(rng: random.Random) -> dict[str, Callable[[], str]]:
    v = VOCAB

    def pick(words: tuple[str, ...]) -> Callable[[], str]:
        return lambda: rng.choice(words)

    return {
        "zn": pick(v.zh_nouns), "zv": pick(v.zh_verbs), "zadv": pick(v.zh_adverbs),
        "zadj": pick(v.zh_adjectives), "phrase": pick(v.zh_phrases), "topic": pick(v.zh_topics),
        "en": pick(v.en_nouns), "ev": pick(v.en_verbs), "ea": pick(v.en_adjectives),
        "tech": pick(v.tech), "ident": pick(v.identifiers), "cmd": pick(v.commands),
        "n": lambda: str(rng.randint(1, 30)),  # chapters, days, exercise counts
        "num": lambda: str(rng.choice((rng.randint(1, 12), rng.randint(10, 999), rng.randint(1000, 65535)))),
        "pct": lambda: f"{rng.randint(1, 99)}%",
        "ver": lambda: f"{rng.randint(1, 17)}.{rng.randint(0, 12)}",
        "path": lambda: _config_path(rng),
    }


def join_sentences(sentences: list[str]) -> str:
    """Join sentences: a space after Latin punctuation, nothing after Chinese."""
    out: list[str] = []
    for sentence in sentences:
        if out and out[-1][-1:].isascii():
            out.append(" ")
        out.append(sentence)
    return "".join(out)


def _config_path(rng: random.Random) -> str:
    folder = rng.choice(("/etc/", "~/.config/", "./", "/var/lib/"))
    stem = rng.choice(VOCAB.identifiers).replace(".", "_").replace("/", "_")
    return folder + stem + rng.choice((".conf", ".json", ".yaml", ".toml"))


class Writer:
    """Fill templates from a seeded generator; the same seed gives the same text."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._fill = _slot_fillers(rng)

    def fill(self, template: str) -> str:
        """Replace every {slot} in template with a fresh random word."""
        out: list[str] = []
        rest = template
        while (open_at := rest.find("{")) >= 0:
            close_at = rest.index("}", open_at)
            out.append(rest[:open_at])
            out.append(self._fill[rest[open_at + 1 : close_at]]())
            rest = rest[close_at + 1 :]
        out.append(rest)
        return "".join(out)

    def sentence(self, kind: str) -> str:
        """Return one sentence of a kind: zh, en or mixed (which borrows from both)."""
        rng = self.rng
        if kind == "mixed":
            pool = rng.choices((MIXED_TEMPLATES, ZH_TEMPLATES, EN_TEMPLATES), weights=(6, 3, 1))[0]
        elif kind == "zh":
            pool = MIXED_TEMPLATES if rng.random() < 0.12 else ZH_TEMPLATES
        else:
            pool = EN_TEMPLATES
        return self.fill(rng.choice(pool))

    def paragraph(self, kind: str, sentences: int) -> str:
        """Return sentences joined the way the language writes them."""
        return join_sentences([self.sentence(kind) for _ in range(sentences)])

    def heading(self, kind: str) -> str:
        pool = {"zh": ZH_HEADINGS, "en": EN_HEADINGS, "mixed": MIXED_HEADINGS}[kind]
        return self.fill(self.rng.choice(pool))

    def block(self, kind: str, markdown: bool) -> str:
        """Return one body block: mostly paragraphs, sometimes a list or code."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.15:
            bullet = "- " if markdown else "· "
            return "\n".join(bullet + self.sentence(kind) for _ in range(rng.randint(2, 6)))
        if roll < 0.22:
            return "\n".join(f"{i}. {self.sentence(kind)}" for i in range(1, rng.randint(3, 6)))
        if roll < 0.28 and kind != "zh":
            lines = [rng.choice(VOCAB.commands) for _ in range(rng.randint(1, 4))]
            lines += [f"{rng.choice(VOCAB.identifiers)} = {rng.randint(0, 4096)}" for _ in range(rng.randint(0, 3))]
            body = "\n".join(lines)
            return f"```bash\n{body}\n```" if markdown else body
        return self.paragraph(kind, rng.randint(2, 7))


@dataclass(frozen=True, slots=True)
class Document:
    """One generated file: its name (with .md or .txt) and its text."""

    name: str
    kind: str
    text: str

    @property
    def size_bytes(self) -> int:
        return len(self.text.encode("utf-8"))


MIN_DOC_BYTES = 500
MAX_DOC_BYTES = 20 * 1024
_SIZE_MU = 7.98  # log-normal: median ~2.9 KB, clipped mean ~4 KB
_SIZE_SIGMA = 0.8
KIND_WEIGHTS = {"zh": 35, "en": 30, "mixed": 35}


def _document_size(rng: random.Random) -> int:
    size = int(rng.lognormvariate(_SIZE_MU, _SIZE_SIGMA))
    return min(max(size, MIN_DOC_BYTES), MAX_DOC_BYTES)


def write_document(writer: Writer, number: int) -> Document:
    """Generate one note of a random kind, format and size."""
    rng = writer.rng
    kind = rng.choices(list(KIND_WEIGHTS), weights=list(KIND_WEIGHTS.values()))[0]
    markdown = rng.random() < 0.6
    target = _document_size(rng)
    title = writer.heading(kind)
    parts = [f"# {title}" if markdown else title]
    if rng.random() < 0.5:
        parts.append(f"日期：2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}" if kind != "en"
                     else f"Date: 2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
    section = 0
    while sum(len(p.encode("utf-8")) + 2 for p in parts) < target:
        if section == 0 or rng.random() < 0.25:
            section += 1
            heading = writer.heading(kind)
            parts.append(f"## {heading}" if markdown else f"{section}. {heading}")
        parts.append(writer.block(kind, markdown))
    suffix = ".md" if markdown else ".txt"
    return Document(f"{number:05d}-{kind}{suffix}", kind, "\n\n".join(parts) + "\n")


def generate_documents(count: int, *, seed: int = 1) -> list[Document]:
    """Return count generated documents; the same seed gives the same documents."""
    writer = Writer(random.Random(seed))
    return [write_document(writer, number) for number in range(1, count + 1)]


def corpus_text(size: int, documents: list[str]) -> str:
    """Return about ``size`` bytes of the generated notes, repeated as needed, cut at a character."""
    text = "\n\n".join(documents)
    text = text * (size // max(1, len(text.encode())) + 1)
    return text.encode()[:size].decode(errors="ignore")


def distinct_words(size: int, first: str) -> str:
    """Return about ``size`` bytes of different made-up words after ``first``: every word its own FTS query."""
    rng = random.Random(17)
    words = [first]
    total = len(first)
    while total < size:
        word = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 10)))
        words.append(word)
        total += len(word) + 1
    return " ".join(words)


MIN_PASSAGE_CHARS = 300
MAX_PASSAGE_CHARS = 700


def iter_passages(count: int, *, seed: int = 2) -> Iterator[tuple[str, str]]:
    """Yield (kind, text) passages of 300–700 characters, for search-scale tests."""
    writer = Writer(random.Random(seed))
    rng = writer.rng
    kinds = list(KIND_WEIGHTS)
    weights = list(KIND_WEIGHTS.values())
    for _ in range(count):
        kind = rng.choices(kinds, weights=weights)[0]
        target = rng.randint(MIN_PASSAGE_CHARS, MAX_PASSAGE_CHARS)
        sentences: list[str] = []
        text = ""
        while len(text) < target:
            sentence = writer.sentence(kind)
            candidate = join_sentences([*sentences, sentence])
            if len(candidate) > MAX_PASSAGE_CHARS and len(text) >= MIN_PASSAGE_CHARS:
                break
            sentences.append(sentence)
            text = candidate
        yield kind, text[:MAX_PASSAGE_CHARS]


@dataclass(frozen=True, slots=True)
class Query:
    """One search query and the family it belongs to."""

    text: str
    family: str  # zh-word | zh-phrase | en-word | identifier | mixed | en-phrase


def _zh_two_char(words: tuple[str, ...]) -> list[str]:
    return [w for w in words if len(w) == 2]


def build_queries(*, seed: int = 3) -> list[Query]:
    """Return about 130 queries drawn from the corpus vocabulary, so they hit."""
    rng = random.Random(seed)
    v = VOCAB
    two_char = _zh_two_char(v.zh_nouns + v.zh_verbs)
    queries: list[Query] = [Query(w, "zh-word") for w in rng.sample(sorted(set(two_char)), 30)]
    queries += [Query(p, "zh-phrase") for p in rng.sample(v.zh_phrases, 12)]
    queries += [Query(f"{rng.choice(v.zh_nouns)} {rng.choice(v.zh_nouns)}", "zh-phrase") for _ in range(10)]
    queries += [Query(rng.choice(v.zh_verbs) + rng.choice(v.zh_nouns), "zh-phrase") for _ in range(6)]
    queries += [Query(w, "en-word") for w in rng.sample(v.en_nouns + v.en_verbs, 22)]
    queries += [Query(f"{rng.choice(v.en_adjectives)} {rng.choice(v.en_nouns)}", "en-phrase") for _ in range(10)]
    queries += [Query(i, "identifier") for i in rng.sample(v.identifiers, 18)]
    queries += [Query(t, "identifier") for t in rng.sample(v.tech, 6)]
    mixed = (
        lambda: f"{rng.choice(v.tech)} {rng.choice(v.zh_nouns)}",
        lambda: f"{rng.choice(v.identifiers)} {rng.choice(v.zh_verbs)}",
        lambda: f"{rng.choice(v.zh_nouns)} {rng.choice(v.en_nouns)}",
        lambda: f"把 {rng.choice(v.tech)} 的 {rng.choice(v.identifiers)} 改成 {rng.choice(v.identifiers)}",
    )
    queries += [Query(rng.choice(mixed)(), "mixed") for _ in range(20)]
    return queries
