"""Facts of operations, frontend, machine learning, project decisions and debugging, with their queries.

Each row is (lang, text, lexical query, paraphrase query[, cross-language query[, echo passage]]).
"""

from __future__ import annotations

from benchmarks.retrieval.records import facts

DEVOPS = facts(
    "devops",
    (
        "zh",
        "Docker 镜像从 1.2 GB 降到 180 MB：多阶段构建，运行阶段用 python:3.11-slim，并加了 .dockerignore。",
        "Docker 镜像怎么从 1.2 GB 降下来的",
        "容器包体积是怎么缩小的",
        "how did we shrink the Docker image",
        "基础设施笔记：改成多阶段构建、运行阶段换成 python:3.11-slim、"
        "再补上 .dockerignore 之后，镜像从 1.2 GB 降到了 180 MB。",
    ),
    (
        "en",
        "Kubernetes liveness probes were killing pods during long GC pauses; we raised failureThreshold to 5 "
        "and moved heavy checks to the readiness probe.",
        "liveness probe killing pods during GC pauses",
        "why were containers being restarted while they were only busy",
    ),
    (
        "zh",
        "CI 缓存按 uv.lock 的哈希做 key，依赖不变时安装从三分钟变成二十秒。",
        "CI 缓存的 key 用什么",
        "流水线里装依赖怎么变快的",
    ),
    (
        "en",
        "Deploys are blue-green: the new version takes traffic only after its health checks pass for five "
        "minutes; rollback is flipping the router back.",
        "how do blue-green deploys and rollback work here",
        "how do we release without downtime and undo a bad release",
        "我们怎么发布和回滚",
    ),
    (
        "zh",
        "日志统一打成 JSON 输出到 stdout，由 Vector 收集发到 Loki，不在容器里写文件。",
        "日志输出到哪里，用 Loki 吗",
        "服务的运行记录最后存到哪里",
        "where do our container logs end up",
    ),
    (
        "en",
        "Alert fatigue: we deleted every alert that nobody acted on in 30 days and kept paging only for "
        "user-facing error rate and latency.",
        "which alerts still page after the alert fatigue cleanup",
        "why did the on-call phone get much quieter",
    ),
    (
        "zh",
        "Terraform 状态文件放在 S3 并用 DynamoDB 加锁，两个人同时 apply 导致状态损坏之后才加的。",
        "Terraform 状态文件放在哪里",
        "基础设施代码的共享记录怎么避免被同时改坏",
    ),
    (
        "en",
        "Cron jobs moved to systemd timers because we get logs in journalctl and Persistent=true reruns "
        "missed jobs after a reboot.",
        "cron jobs vs systemd timers",
        "why did we stop using crontab for scheduled tasks",
        "为什么把 cron 换成 systemd timer",
    ),
    (
        "zh",
        "容器内存限制设成 512M 以后 Java 服务频繁被 OOMKilled，原因是没设 -XX:MaxRAMPercentage，堆按宿主机内存算。",
        "Java 服务为什么被 OOMKilled",
        "JVM 程序在 pod 里老是被系统杀掉",
    ),
    (
        "en",
        "Secrets live in the cloud secret manager and are injected as env vars at start; nothing secret is "
        "baked into images or committed.",
        "how are secrets injected into services",
        "how do passwords and API keys reach the running service",
        "密钥是怎么传给服务的",
    ),
)

FRONTEND = facts(
    "frontend",
    (
        "en",
        "The layout shift came from images without width and height; adding both attributes dropped CLS "
        "from 0.31 to 0.02.",
        "how we fixed layout shift (CLS)",
        "why did the page jump around while loading",
        "页面加载时跳动是什么原因",
    ),
    (
        "zh",
        "React 列表用数组下标当 key，删除中间一项后输入框内容错位；改用数据的 id 做 key 就好了。",
        "React 列表 key 用数组下标的问题",
        "删掉列表里一行后其他行填的东西串了",
    ),
    (
        "en",
        "We replaced Moment.js with date-fns; the bundle lost 230 KB and tree-shaking finally worked.",
        "replacing Moment.js to shrink the bundle",
        "how did we cut the size of the JavaScript we ship",
        "为什么把 Moment.js 换掉",
    ),
    (
        "zh",
        "CSS 里 z-index 不生效，通常是父元素创建了新的层叠上下文，比如设置了 transform 或 opacity 小于 1。",
        "z-index 为什么不生效",
        "弹窗明明设了很大的层级还是被盖住",
        "why doesn't z-index work on my modal",
    ),
    (
        "en",
        "Forms: validate on blur, not on every keystroke; users hated seeing 'invalid email' while still typing.",
        "when should form fields validate",
        "when should input errors appear to users",
    ),
    (
        "zh",
        "字体加载闪烁用 font-display: swap 加预加载 woff2，首屏文字不再空白。",
        "字体加载闪烁 font-display 怎么设",
        "网页文字一开始显示不出来怎么办",
    ),
    (
        "en",
        "Dark mode uses CSS custom properties switched by prefers-color-scheme, with a manual toggle stored "
        "in localStorage.",
        "how dark mode is implemented with prefers-color-scheme",
        "how does the site remember whether a user wants the night theme",
    ),
    (
        "zh",
        "useEffect 里忘了返回清理函数，切页面后定时器还在跑，内存一直涨。",
        "useEffect 定时器没清理",
        "页面切走以后资源占用越来越高",
        "why did memory keep growing after leaving the page in React",
    ),
)

ML = facts(
    "ml",
    (
        "zh",
        "知识库项目里用的嵌入模型是 bge-m3，维度 1024；换成多语言模型后跨语言召回明显提升。",
        "知识库用的嵌入模型是哪个",
        "中文问题找英文资料靠什么模型",
        "which embedding model do we use for bilingual retrieval",
    ),
    (
        "en",
        "Hybrid search: we merge BM25 and vector results with reciprocal rank fusion, k = 60, instead of "
        "trying to normalise the scores.",
        "how are BM25 and vector results fused",
        "how do we combine the keyword list and the semantic list into one ranking",
        "关键词结果和向量结果是怎么合并的",
        "Design review minutes: hybrid retrieval does not normalise scores; the BM25 and vector result "
        "lists are merged with reciprocal rank fusion (RRF), k = 60.",
    ),
    (
        "zh",
        "微调时学习率从 5e-5 降到 2e-5 后验证集损失不再震荡，batch size 保持 32。",
        "微调学习率调到多少验证集损失才稳定",
        "训练曲线上下抖动后调了哪个参数",
    ),
    (
        "en",
        "Chunk size for RAG: 512-token chunks with 64 tokens of overlap beat both 256 and 1024 on our QA eval.",
        "best chunk size for RAG",
        "how long should pieces of documents be for question answering",
        "切块大小选多少效果最好",
    ),
    (
        "zh",
        "数据集里有 3% 的标签是错的，用交叉验证找出模型最有把握但和标签不一致的样本，人工复核后准确率提高了 2 个点。",
        "数据集标签错误怎么用交叉验证找",
        "语料里被打错类别的例子怎么批量发现",
    ),
    (
        "en",
        "Quantising the model to int8 with ONNX Runtime cut CPU latency from 80 ms to 30 ms with less than "
        "1% accuracy loss.",
        "int8 quantising with ONNX Runtime, latency gain",
        "how did we make inference on the processor much faster",
    ),
    (
        "zh",
        "评估检索不要只看 recall@10，还要看 MRR，因为用户基本只看前三条。",
        "评估检索只看 recall@10 够吗",
        "衡量搜索质量时为什么要关注排第一的结果",
    ),
    (
        "en",
        "Class imbalance (1:50) was handled with a weighted loss rather than oversampling, because "
        "oversampling overfit the rare class.",
        "class imbalance: weighted loss or oversampling",
        "how did we deal with very few positive examples",
        "样本不平衡是怎么处理的",
    ),
)

DECISIONS = facts(
    "decisions",
    (
        "zh",
        "团队决定从 Jenkins 迁到 GitHub Actions，主要是 Jenkins 插件升级经常把流水线搞坏，没人愿意维护那台机器。",
        "为什么从 Jenkins 迁到 GitHub Actions",
        "为什么不再用自己托管的构建服务器了",
        "why did we leave Jenkins",
        "复盘记录：CI 从 Jenkins 搬到 GitHub Actions，主要因为插件一升级流水线就坏，而且那台机器没人想管。",
    ),
    (
        "en",
        "Decision: we switched from MongoDB to Postgres because most queries turned out to be relational "
        "joins, and a JSONB column covers the few schemaless parts.",
        "why we switched from MongoDB to Postgres",
        "why did we leave the document store for a relational one",
        "",
        "用户：当初为什么放弃 MongoDB？\n\n助手：因为大部分查询其实都是关联查询，"
        "少量没有固定结构的数据用 Postgres 的 JSONB 列就够了。",
    ),
    (
        "zh",
        "前端状态管理从 Redux 换成了 Zustand，样板代码少了一大半，新人半天就能上手。",
        "为什么把 Redux 换成 Zustand",
        "为什么换了前端存放全局数据的库",
    ),
    (
        "en",
        "We chose SQLite over a client-server database for the desktop app because users should never have "
        "to install or run a server.",
        "why SQLite for the desktop app",
        "why is the local app's storage a single file rather than a separate service",
        "桌面应用为什么选 SQLite",
    ),
    (
        "zh",
        "接口从 REST 改成 gRPC 只用于内部服务之间，对外仍然保留 REST，因为第三方接入 gRPC 成本太高。",
        "对外接口为什么还用 REST 不用 gRPC",
        "为什么外部合作方还是走原来的 HTTP 接口",
    ),
    (
        "en",
        "We dropped Kubernetes for the side project and went back to a single VM with Docker Compose; the "
        "cluster cost more than the app earned.",
        "why did we drop Kubernetes for the side project",
        "why did we simplify hosting for the hobby app",
        "副业项目为什么不用 Kubernetes 了",
    ),
    (
        "zh",
        "消息队列选了 NATS 而不是 Kafka：我们的消息量每秒不到一千条，不需要 Kafka 的分区和持久化，运维简单得多。",
        "消息队列为什么选 NATS",
        "为什么异步通信组件没用最流行的那个",
        "why NATS instead of Kafka",
    ),
    (
        "en",
        "Monorepo decision: frontend and backend now live in one repository so that API changes and their "
        "UI changes land in the same pull request.",
        "why a monorepo for frontend and backend",
        "why did we merge the client and server codebases",
    ),
    (
        "zh",
        "放弃自研登录，改用 Auth0：自己做的密码重置和多因素认证两次出过安全问题。",
        "为什么改用 Auth0",
        "用户身份验证为什么交给外部服务",
        "why did we stop building our own authentication",
    ),
    (
        "en",
        "We stopped using microservices for the billing system and merged five services into one modular "
        "monolith; most incidents were network calls between them.",
        "why did we stop using microservices for billing",
        "why did we consolidate the payment backend",
        "计费系统为什么合并成单体",
    ),
    (
        "zh",
        "文档站从 Confluence 搬到仓库里的 MkDocs，文档和代码一起评审，过时的内容少了很多。",
        "文档为什么从 Confluence 搬走",
        "团队的 wiki 内容为什么改成跟源码放在一块",
    ),
    (
        "en",
        "Decided to keep Python for the data pipeline instead of rewriting it in Go: the bottleneck is the "
        "warehouse, not our code.",
        "should the data pipeline be rewritten in Go",
        "why didn't we port the ETL to a faster language",
        "为什么数据管道不用 Go 重写",
    ),
    (
        "zh",
        "监控从自建 Prometheus + Grafana 改成托管的 Grafana Cloud，值班的人不用再半夜处理磁盘满。",
        "为什么改用托管的 Grafana Cloud",
        "为什么指标系统不自己运维了",
    ),
    (
        "en",
        "We moved feature flags from a config file to LaunchDarkly so product managers can flip them without a deploy.",
        "why did feature flags move to LaunchDarkly",
        "why can non-engineers now turn features on and off",
    ),
    (
        "zh",
        "代码托管从自建 GitLab 迁到 GitHub，主要是为了 Dependabot 和更好的代码审查体验，自建实例升级太费事。",
        "为什么从 GitLab 迁到 GitHub",
        "为什么换了存放代码的平台",
        "why did we move away from self-hosted GitLab",
    ),
    (
        "en",
        "The search box moved from Elasticsearch to SQLite FTS5 for the offline version; one file to ship "
        "beat a JVM on every laptop.",
        "why SQLite FTS5 instead of Elasticsearch offline",
        "why doesn't the disconnected build need a separate search server",
    ),
)

DEBUGGING = facts(
    "debugging",
    (
        "en",
        "The flaky test was caused by timezone: test_report_dates assumed UTC, but the CI runner in Frankfurt "
        "used Europe/Berlin, so around midnight the date was off by one.",
        "what caused the flaky test in CI",
        "why did a check fail only some nights on the build machine",
        "那个时好时坏的测试是什么原因",
        "Note: test_report_dates was unstable because of the timezone; the CI machine in Frankfurt runs "
        "Europe/Berlin, so near midnight the date was a day off. Tests now pin TZ=UTC.",
    ),
    (
        "zh",
        "内存泄漏最后定位到 lru_cache 装饰在实例方法上，self 被缓存引用着，对象永远不会被回收。",
        "lru_cache 导致内存泄漏",
        "为什么对象一直释放不掉导致占用越来越大",
        "what caused the memory leak with lru_cache",
    ),
    (
        "en",
        "The 'works on my machine' bug: macOS filesystems are case-insensitive, so import Utils worked locally "
        "but failed on Linux CI where the file was utils.py.",
        "import works on macOS but fails on Linux",
        "why did a module load on my laptop but not on the build server",
        "为什么本地能导入、CI 上却找不到模块",
    ),
    (
        "zh",
        "接口偶发 500 是因为数据库连接池耗尽：一个后台任务拿了连接不还，池子大小 10，第 11 个请求就超时。",
        "接口偶发 500 的原因",
        "服务时不时报内部错误，最后查出是什么",
        "",
        "Postmortem summary: the intermittent 500s came from an exhausted connection pool; a background job "
        "held a connection and never returned it, and with a pool of 10 the eleventh request timed out.",
    ),
    (
        "en",
        "The deadlock came from two transactions updating accounts in opposite order; always locking rows "
        "by ascending id fixed it.",
        "how was the deadlock between transactions fixed",
        "why did two transfers freeze each other",
        "死锁是怎么解决的",
    ),
    (
        "zh",
        "CSV 导入中文乱码，原因是 Excel 导出的是 GBK 编码，读取时用 encoding='gb18030' 就正常了。",
        "CSV 导入中文乱码怎么办",
        "表格文件打开后汉字都变成了奇怪符号",
        "why did the CSV import show garbled Chinese",
    ),
    (
        "en",
        "The Docker build cache kept missing because COPY . . came before pip install; copying only "
        "requirements first made rebuilds take seconds.",
        "Docker build cache not working for pip install",
        "why did every image rebuild reinstall all the libraries",
    ),
    (
        "zh",
        "定时任务在夏令时切换那天跑了两次，因为 cron 用的是本地时间；改成 UTC 调度后没再出现。",
        "定时任务为什么跑了两次",
        "某个后台作业在一年中特定的一天执行重复了",
        "why did the scheduled job run twice on the daylight saving day",
    ),
    (
        "en",
        "The slow page was an N+1 query: 300 SELECTs per request from the ORM; select_related brought it "
        "down to 2 queries and 40 ms.",
        "slow page caused by an N+1 query",
        "why did loading the list page hit the database hundreds of times",
    ),
    (
        "zh",
        "前端偶尔显示旧数据，是 CDN 把带登录态的接口也缓存了，加上 Cache-Control: private 以后修复。",
        "前端显示旧数据和 CDN 缓存有关吗",
        "有些用户看到别人或过时的信息是什么原因",
        "why did users see stale data from the API",
    ),
    (
        "en",
        "Float rounding: invoice totals were off by a cent because we summed floats; switching to Decimal "
        "with ROUND_HALF_UP matched the accounting system.",
        "invoice totals off by a cent",
        "why didn't our bills match finance's numbers exactly",
        "发票金额差一分钱的原因",
    ),
    (
        "zh",
        "测试在本地通过、在 CI 失败，是因为测试顺序不同：有个测试改了全局配置没恢复，用 pytest-randomly 复现出来的。",
        "测试本地通过 CI 失败，跟测试顺序有关",
        "单独跑没问题一起跑就挂的检查是怎么回事",
    ),
    (
        "en",
        "Segfault in the C extension only under Python 3.12: the wheel was built against 3.11 headers; "
        "rebuilding from source fixed it.",
        "segfault in a C extension after Python 3.12",
        "why did the native module crash after upgrading the interpreter",
    ),
    (
        "zh",
        "上传大文件总是在 1 MB 失败，原来是 nginx 的 client_max_body_size 默认 1m，改成 50m 就好了。",
        "上传大文件失败和 client_max_body_size",
        "附件超过一兆就发不出去是为什么",
        "why did uploads over 1 MB fail",
    ),
    (
        "en",
        "Intermittent 'too many open files': we leaked a file handle per request in the thumbnail code; a "
        "with-block fixed it and ulimit stayed at 1024.",
        "too many open files error",
        "why did the server run out of descriptors after a few hours",
    ),
    (
        "zh",
        "正则表达式回溯爆炸导致 CPU 100%，罪魁是 (a+)+ 这种嵌套量词；改写后匹配时间从几秒降到微秒级。",
        "正则表达式导致 CPU 100%",
        "一个文本匹配把处理器占满了是为什么",
        "what regex pattern pegged the CPU at 100%",
    ),
    (
        "en",
        "Emails went to spam because our DKIM record was longer than 255 characters and got truncated; "
        "splitting it into two quoted strings fixed delivery.",
        "emails going to spam, DKIM record",
        "why were our messages landing in the junk folder",
        "邮件进垃圾箱的原因",
    ),
    (
        "zh",
        "Go 服务的 goroutine 数量一直涨，pprof 看到都卡在没有消费者的 channel 发送上，加了 context 取消后恢复正常。",
        "goroutine 数量一直涨怎么排查",
        "协程越来越多、不会退出是怎么回事",
    ),
)

WORK_FACTS = DEVOPS + FRONTEND + ML + DECISIONS + DEBUGGING
