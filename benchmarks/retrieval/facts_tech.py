"""Facts of databases, networking, Python and Rust tooling, and git, with their queries.

Each row is (lang, text, lexical query, paraphrase query[, cross-language query[, echo passage]]).
"""

from __future__ import annotations

from benchmarks.retrieval.records import facts

DATABASES = facts(
    "databases",
    (
        "en",
        "We set Postgres max_connections to 200 and put PgBouncer in transaction mode in front, because "
        "each Django worker held its own connection.",
        "what is Postgres max_connections set to and why PgBouncer",
        "why is there a pooler between the web app and the SQL server",
        "",
        "会话记录：数据库连接数上限调到 200，前面加 PgBouncer（transaction 模式），"
        "原因是每个 Django worker 各占一个连接。",
    ),
    (
        "zh",
        "SQLite 开 WAL 模式以后读写可以并发，但同一时刻仍然只能有一个写者；检查点默认在 WAL 达到 1000 页时触发。",
        "SQLite WAL 模式下能同时写吗",
        "这个嵌入式库的日志写法下能不能多个进程同时写",
        "how many writers can SQLite have in WAL mode",
    ),
    (
        "en",
        "Composite index order matters: for WHERE tenant_id = ? ORDER BY created_at, the index must be "
        "(tenant_id, created_at), not the reverse.",
        "column order for a composite index with tenant_id and created_at",
        "which column should come first when a multi-column key serves both filtering and sorting",
    ),
    (
        "zh",
        "线上加索引一定要用 CREATE INDEX CONCURRENTLY，否则会锁表；上次直接建索引让订单表写入卡了四分钟。",
        "线上建索引为什么会锁表",
        "给大表加查询加速结构时怎么避免阻塞写入",
        "why did the orders table stop accepting writes for four minutes",
    ),
    (
        "en",
        "Redis eviction: we use maxmemory-policy allkeys-lru for the cache instance but noeviction for the "
        "queue instance, since dropping jobs is worse than erroring.",
        "which Redis maxmemory-policy for cache and queue",
        "what happens on each in-memory store when it fills up, and why the difference",
        "Redis 缓存实例和队列实例的淘汰策略为什么不一样",
    ),
    (
        "zh",
        "迁移脚本必须向前兼容：先加新列并双写，等所有服务部署完再删旧列，拆成至少两次发布。",
        "数据库迁移怎么加新列删旧列",
        "改表结构时怎样做到不停机",
    ),
    (
        "en",
        "EXPLAIN ANALYZE showed a sequential scan because the column was compared to a text literal; "
        "casting the parameter to uuid let the planner use the index.",
        "EXPLAIN ANALYZE showed a sequential scan, why",
        "why did the lookup ignore the btree and read the whole table",
    ),
    (
        "zh",
        "MySQL 的 utf8 其实只支持三字节，存 emoji 会报错，要用 utf8mb4，排序规则选 utf8mb4_0900_ai_ci。",
        "MySQL 存 emoji 要用什么字符集",
        "为什么表情符号写不进库里",
        "why did saving emoji fail in MySQL",
    ),
    (
        "en",
        "Backups: nightly pg_dump to S3 with 30-day retention plus WAL archiving for point-in-time recovery; "
        "we test a restore on the first Monday of each month.",
        "how are Postgres backups done with pg_dump",
        "how often do we check that we can actually get data back",
        "我们多久做一次数据库恢复演练",
    ),
    (
        "zh",
        "分页不要用 OFFSET，翻到第几万页会越来越慢；改成按 id 的游标分页（WHERE id > 上一页最后一个 id）。",
        "OFFSET 分页太慢怎么改",
        "列表往后翻很多屏以后查询变慢怎么办",
    ),
    (
        "en",
        "Isolation: the double-booking bug disappeared once the reservation transaction ran at SERIALIZABLE "
        "and retried on serialization failures.",
        "which isolation level fixed the double-booking bug",
        "how did we stop two customers getting the same slot",
        "重复预订的问题是怎么解决的",
    ),
    (
        "zh",
        "SQLite 的 FTS5 默认分词器不切中文，整句会当成一个词，所以知识库项目注册了基于 jieba 的自定义分词器。",
        "FTS5 中文分词用什么",
        "全文检索里汉字搜不到的原因是什么",
        "why did we write a custom tokenizer for full-text search",
    ),
    (
        "en",
        "Soft delete via a deleted_at column caused unique constraint clashes; we switched to a partial "
        "unique index WHERE deleted_at IS NULL.",
        "soft delete with deleted_at and unique constraints",
        "how did we allow recreating a record with the same email after removing the old one",
    ),
    (
        "zh",
        "连接超时设成 5 秒、语句超时设成 30 秒，报表查询单独走只读副本，不设语句超时。",
        "数据库连接超时和语句超时设多少",
        "跑得很久的统计 SQL 放在哪执行",
    ),
)

NETWORKING = facts(
    "networking",
    (
        "en",
        "Port map for the dev stack: API on 8080, admin UI on 3000, Postgres on 5433 (not 5432, which the "
        "system Postgres already uses), Redis on 6380.",
        "which ports does the dev stack use",
        "why does the local database listen on a non-default number",
        "",
        "用户：本地起不来，说端口冲突。\n\n助手：开发环境的 Postgres "
        "用的是 5433，因为 5432 已经被系统自带的 Postgres 占了；"
        "API 是 8080，管理后台 3000，Redis 6380。",
    ),
    (
        "zh",
        "服务只绑定 127.0.0.1 就只能本机访问；在容器里要绑 0.0.0.0，否则宿主机端口映射了也连不上。",
        "容器里服务绑定 127.0.0.1 还是 0.0.0.0",
        "docker 里跑的程序为什么外面访问不到",
        "why can't I reach a service in a container that listens on 127.0.0.1",
    ),
    (
        "en",
        "DNS TTL was 86400, so the migration took a day to propagate; for cutovers lower the TTL to 300 at "
        "least 48 hours before.",
        "DNS TTL before a migration cutover",
        "why did it take a whole day before everyone reached the new server",
        "迁移前要提前多久把 DNS TTL 调低",
    ),
    (
        "zh",
        "Let's Encrypt 证书 90 天过期，certbot 定时任务每天跑两次续期，"
        "上次过期是因为 80 端口被防火墙挡了导致 HTTP-01 验证失败。",
        "Let's Encrypt 证书续期失败的原因",
        "网站的加密凭证上次为什么没能自动更新",
        "why did the TLS certificate renewal fail last time",
    ),
    (
        "en",
        "MTU issue over the VPN: large HTTPS responses hung while small ones worked; clamping TCP MSS to "
        "1360 fixed it.",
        "MTU problem over the VPN",
        "why did big pages stall over the tunnel but tiny requests go through",
    ),
    (
        "zh",
        "SSH 保持连接：在 ~/.ssh/config 里加 ServerAliveInterval 60，公司网络空闲五分钟就断的问题没了。",
        "ssh 断线 ServerAliveInterval 设置",
        "远程登录的会话放着不动就掉线怎么处理",
        "how did I stop SSH sessions dropping when idle",
    ),
    (
        "en",
        "CORS: the preflight failed because the server answered OPTIONS with 404; adding the route and "
        "Access-Control-Allow-Headers: Authorization fixed the browser error.",
        "CORS preflight error fix",
        "why did the browser block calls from our frontend to the API domain",
    ),
    (
        "zh",
        'nginx 反向代理 WebSocket 要加 proxy_set_header Upgrade 和 Connection "upgrade"，'
        "并把 proxy_read_timeout 调到 3600 秒，不然 60 秒就断。",
        "nginx 代理 WebSocket 断开",
        "长连接经过网关一分钟就掉是什么原因",
        "why do websocket connections drop after 60 seconds behind nginx",
    ),
    (
        "en",
        "Rule of thumb for timeouts: the client timeout must be longer than the load balancer idle timeout "
        "(60 s), or users see 502s instead of the real error.",
        "client timeout versus load balancer idle timeout",
        "why were people getting bad gateway errors on slow requests",
    ),
    (
        "zh",
        "查端口占用用 ss -ltnp | grep 8080，比 netstat 快，而且 netstat 在新系统上默认没装。",
        "查端口占用用什么命令",
        "怎么看哪个程序正在监听某个网络口",
    ),
    (
        "en",
        "HTTP/2 didn't help much when everything is one big JSON response; the real gain came from gzip, "
        "which cut the payload from 2.1 MB to 240 KB.",
        "did HTTP/2 or gzip speed up the JSON response",
        "what actually made the API response faster to download",
        "接口响应变快主要靠的是什么",
    ),
    (
        "zh",
        "内网服务之间用 mTLS，证书由内部 CA 签发，有效期 24 小时，由 sidecar 自动轮换。",
        "内网服务 mTLS 证书怎么轮换",
        "微服务之间互相怎么认证身份",
    ),
    (
        "en",
        "IPv6 gotcha: localhost resolved to ::1 first and the server only listened on IPv4, so connections "
        "to localhost:5000 were refused until I used 127.0.0.1.",
        "localhost connection refused because of IPv6",
        "why did connecting by hostname fail but the numeric loopback address worked",
        "为什么连 localhost 被拒绝但是 127.0.0.1 可以",
    ),
    (
        "zh",
        "家里的路由器把 DHCP 地址池限制在 .100 到 .199，NAS 和打印机用 .10 到 .20 的静态地址。",
        "家里路由器 DHCP 地址池范围",
        "家中设备的 IP 是怎么分配的",
    ),
)

PYTHON = facts(
    "python",
    (
        "en",
        "We moved from Poetry to uv because resolving the lock file took about four minutes in CI; uv does "
        "it in under ten seconds.",
        "why did we move from Poetry to uv",
        "why did we change the Python package manager",
        "",
        "用户：CI 里装依赖太慢了。\n\n助手：已经把 Poetry 换成 uv，锁文件解析从四分钟左右降到十秒以内。",
    ),
    (
        "zh",
        "ruff 同时替代了 flake8、isort 和 pyupgrade，pre-commit 里只留 ruff 和 ruff-format 两个钩子。",
        "ruff 替代了哪些工具",
        "规范代码格式的那些 linter 现在剩几个",
        "which tools did ruff replace in our pre-commit",
    ),
    (
        "en",
        "mypy strict flagged every untyped decorator; wrapping them with ParamSpec kept the signatures "
        "instead of silencing them with type: ignore.",
        "mypy strict complaining about untyped decorators",
        "how did we keep the type checker happy about wrappers without suppressing errors",
    ),
    (
        "zh",
        "pytest 的 fixture 作用域用 session 时要小心，"
        "数据库连接共享会让测试互相污染；我们改成 function 作用域加事务回滚。",
        "pytest fixture 作用域用 session 的问题",
        "用例之间数据互相影响应该怎么隔离",
        "how did we stop tests polluting each other's database state",
    ),
    (
        "en",
        "Never use a mutable default argument: def add(item, bucket=[]) shares one list across calls; use "
        "None and create the list inside.",
        "mutable default argument bug in Python",
        "why did a function keep remembering values from earlier calls",
        "为什么函数会记住上一次调用的值",
    ),
    (
        "zh",
        "asyncio 里调用阻塞的 requests 会卡住整个事件循环，要么换 httpx.AsyncClient，要么用 asyncio.to_thread 包起来。",
        "asyncio 里用 requests 阻塞事件循环",
        "协程程序里某个网络调用让所有任务都停住了",
    ),
    (
        "en",
        "Python 3.11 gave us about 25% faster test runs with no code changes, so the minimum version was "
        "bumped to 3.11.",
        "why is the minimum Python version 3.11",
        "why did we drop support for older interpreters",
    ),
    (
        "zh",
        "虚拟环境统一放在项目根目录的 .venv，VS Code 会自动识别，也方便 .gitignore 一起忽略。",
        "虚拟环境放在哪个目录",
        "依赖隔离的文件夹我放在哪里",
        "where do I keep the virtualenv for a project",
    ),
    (
        "en",
        "Logging: libraries only call logging.getLogger(__name__); basicConfig happens once in the CLI entry "
        "point, never at import time.",
        "where should logging basicConfig be called",
        "where is the log output set up in our code",
    ),
    (
        "zh",
        "dataclass 加 slots=True 后内存占用降了大约 40%，但要注意不能再随意给实例加新属性。",
        "dataclass 用 slots=True 省多少内存",
        "让大量小对象更省空间的办法",
        "how much memory did slots save on dataclasses",
    ),
    (
        "en",
        "The GIL means threads won't speed up the CPU-bound image resizing; ProcessPoolExecutor with 4 "
        "workers cut it from 12 minutes to 3.",
        "GIL and CPU-bound image resizing",
        "how did we make the thumbnail job use all cores",
    ),
    (
        "zh",
        "hypothesis 属性测试发现了分段函数在空字符串和纯空白输入时越界，单元测试一直没覆盖到这种情况。",
        "hypothesis 属性测试发现了什么 bug",
        "随机生成输入的检查找出了什么边界问题",
    ),
    (
        "en",
        "Pin direct dependencies with compatible ranges in pyproject, and let the lock file pin everything "
        "exactly; never pin exact versions in a library.",
        "how to pin dependencies in pyproject for a library",
        "how strict should version constraints be for a package others install",
    ),
    (
        "zh",
        "打包时 src 布局能避免测试误导入工作目录里的源码，确保测的是安装后的包。",
        "为什么用 src 布局",
        "为什么代码要放在单独的一层目录下",
    ),
)

RUST = facts(
    "rust",
    (
        "en",
        "cargo clippy -- -D warnings runs in CI; clippy::pedantic is only enabled locally because it was "
        "too noisy for the team.",
        "clippy settings in CI, pedantic or not",
        "which linter warnings fail the pipeline and which stay optional",
        "clippy 在 CI 里是什么级别",
    ),
    (
        "zh",
        "借用检查器报“cannot borrow as mutable”时，先看是不是在遍历 Vec 的同时往里 push；改成先收集索引再修改就过了。",
        "cannot borrow as mutable 报错怎么改",
        "一边迭代一边往动态数组里追加元素，编译不通过怎么办",
        "how did I fix a borrow error when pushing while iterating",
    ),
    (
        "en",
        'Release builds: setting lto = "thin" and codegen-units = 1 shrank the binary from 14 MB to 9 MB '
        "and made it 8% faster.",
        "release profile lto settings for binary size",
        "how did we make the shipped executable smaller",
    ),
    (
        "zh",
        "错误处理：库里用 thiserror 定义具体错误类型，应用层用 anyhow 加上下文，不要在库里返回 anyhow::Error。",
        "Rust 错误处理用 thiserror 还是 anyhow",
        "写给别人用的 crate 和可执行程序，出错信息分别该怎么表达",
        "thiserror or anyhow: which one in a library",
    ),
    (
        "en",
        "tokio::spawn requires 'static futures, so I clone the Arc before moving it in instead of borrowing "
        "the shared state.",
        "tokio::spawn and the 'static requirement",
        "why does the async task refuse a reference to shared data",
    ),
    (
        "zh",
        "cargo 编译太慢，把链接器换成 mold 后增量编译从 20 秒降到 6 秒。",
        "Rust 增量编译太慢，换 mold 链接器",
        "怎么让改一行代码后的重新构建更快",
        "what made incremental Rust builds faster",
    ),
    (
        "en",
        "We use cargo-deny to block crates with GPL licences and known advisories; it runs next to clippy "
        "in the same CI job.",
        "what does cargo-deny check in CI",
        "how do we stop copyleft or vulnerable packages entering the dependency tree",
    ),
    (
        "zh",
        'serde 反序列化时字段名不一致，用 #[serde(rename_all = "camelCase")] 统一处理，比每个字段写 rename 省事。',
        "serde 字段名 camelCase 怎么统一",
        "JSON 的驼峰键和结构体的下划线名字对不上",
    ),
    (
        "en",
        "Avoid unwrap() in library code; the panic in production came from unwrap on a config value that "
        "was missing in the staging file.",
        "the unwrap panic in production",
        "what crashed the service when a setting was absent",
        "生产环境那次 panic 是怎么来的",
    ),
    (
        "zh",
        "交叉编译到 ARM 用 cross 工具，它在 Docker 里带好了工具链，比手动装 gcc-aarch64 省心。",
        "交叉编译到 ARM 用什么工具",
        "给树莓派构建程序最省事的办法",
    ),
)

GIT = facts(
    "git",
    (
        "zh",
        "合并前用 git rebase -i 把修修补补的提交 squash 掉，主分支只保留有意义的提交。",
        "合并前怎么用 rebase squash 提交",
        "合入之前怎么整理零碎的历史记录",
        "how do I clean up fixup commits before merging",
    ),
    (
        "en",
        "git bisect found the regression in 7 steps across 120 commits; automate it with git bisect run ./check.sh.",
        "finding a regression with git bisect",
        "how did I track down which change broke things among many revisions",
        "怎么在一百多个提交里快速找到引入问题的那个",
    ),
    (
        "zh",
        "误删分支可以用 git reflog 找回，只要还没过 90 天的过期时间。",
        "误删分支怎么找回",
        "不小心删掉的工作还能恢复吗",
        "how to recover a deleted branch",
    ),
    (
        "en",
        "We use trunk-based development: branches live less than two days, and unfinished features hide behind flags.",
        "how long do branches live in trunk-based development",
        "how long do our working copies stay separate from main",
        "",
        "团队约定复盘：我们是主干开发，分支存活不超过两天，没做完的功能用开关藏起来。",
    ),
    (
        "zh",
        "提交前的 pre-commit 钩子只跑格式化和快速检查，完整测试放在 CI，否则大家会用 --no-verify 绕过。",
        "pre-commit 钩子应该跑哪些检查",
        "本地保存改动时自动检查应该做多少",
    ),
    (
        "en",
        "Use git push --force-with-lease, never --force: it refuses to overwrite the remote if someone else "
        "pushed in the meantime.",
        "git push --force-with-lease vs --force",
        "safe way to overwrite a shared remote branch after rewriting history",
        "强制推送怎样才安全",
    ),
    (
        "zh",
        "大文件不要进仓库，设计稿和数据集用 Git LFS，.gitattributes 里按扩展名追踪。",
        "仓库里的大文件用 Git LFS 怎么管理",
        "设计图和数据放在版本库里太占空间怎么办",
    ),
    (
        "en",
        "git worktree lets me keep a hotfix checkout next to my feature branch without stashing; each "
        "worktree is its own directory.",
        "git worktree for a hotfix",
        "how do I work on an urgent fix without disturbing my half-done changes",
        "不 stash 怎么同时处理紧急修复",
    ),
    (
        "zh",
        "合并冲突太多时打开 rerere（git config rerere.enabled true），同样的冲突解决一次就会被记住。",
        "重复的合并冲突用 rerere",
        "同一处代码每次合都要手动改一遍，有办法吗",
    ),
    (
        "en",
        "Signed commits: we sign with SSH keys (gpg.format ssh) since GPG setup kept breaking on new laptops.",
        "how do we sign commits",
        "how do we prove authorship of our changes without the old key tool hassle",
    ),
    (
        "zh",
        "提交信息遵循 Conventional Commits，feat/fix 前缀用来自动生成 changelog 和版本号。",
        "Conventional Commits 前缀有什么用",
        "发布说明是怎么自动出来的",
        "how are our changelogs generated",
    ),
    (
        "en",
        "The .gitignore was ignored for files already tracked; git rm --cached removed them from the index "
        "without deleting them locally.",
        ".gitignore not working for a tracked file",
        "why did a file keep showing up in commits even after I excluded it",
    ),
)

TECH_FACTS = DATABASES + NETWORKING + PYTHON + RUST + GIT
