"""Distractor vocabularies for databases, networking, Python, Rust and git."""

from __future__ import annotations

from benchmarks.retrieval.records import TopicWords, split_lines

TECH_TOPICS: dict[str, TopicWords] = {
    "databases": TopicWords(
        (
            "Postgres",
            "PgBouncer",
            "max_connections",
            "SQLite WAL",
            "composite indexes",
            "CREATE INDEX CONCURRENTLY",
            "Redis",
            "schema migrations",
            "EXPLAIN ANALYZE",
            "utf8mb4",
            "pg_dump",
            "pagination",
            "isolation levels",
            "FTS5",
            "soft deletes",
            "statement timeouts",
        ),
        (
            "Postgres",
            "PgBouncer",
            "连接数",
            "SQLite WAL",
            "联合索引",
            "在线建索引",
            "Redis",
            "数据库迁移",
            "执行计划",
            "utf8mb4",
            "备份",
            "分页",
            "隔离级别",
            "FTS5",
            "软删除",
            "语句超时",
        ),
        split_lines("""
            The Postgres 16 upgrade is scheduled for the next maintenance window.
            The staging database is a week behind production data.
            Someone asked whether we should try CockroachDB; parked for now.
            Index bloat on the events table needs another look.
            Reading the SQLite docs about the query planner.
            PgBouncer logs are noisy at the default log level.
            The ORM generates odd SQL for that report; haven't dug in.
            The Redis memory graph looks flat after the weekend.
            Migration 0042 touches the orders table; review it carefully.
            We have two different UUID formats in the users table.
        """),
        split_lines("""
            Postgres 16 升级排在下一个维护窗口。
            预发布环境的数据库比线上落后一周。
            有人提议试试 CockroachDB，先搁置。
            events 表的索引膨胀问题，需要再看一下。
            在看 SQLite 文档里关于查询规划器的部分。
            PgBouncer 默认日志级别太吵。
            ORM 给那张报表生成的 SQL 很奇怪，还没细看。
            周末过后 Redis 内存曲线很平稳。
            0042 号迁移会动订单表，评审时仔细点。
            users 表里有两种 UUID 格式，头疼。
        """),
        ("DB notes", "Database runbook", "Schema review"),
        ("数据库笔记", "数据库运维", "表结构评审"),
    ),
    "networking": TopicWords(
        (
            "ports",
            "127.0.0.1",
            "DNS TTL",
            "Let's Encrypt",
            "MTU",
            "SSH keepalive",
            "CORS",
            "WebSockets",
            "nginx",
            "timeouts",
            "gzip",
            "mTLS",
            "IPv6",
            "DHCP",
        ),
        (
            "端口",
            "127.0.0.1",
            "DNS TTL",
            "证书续期",
            "MTU",
            "SSH 连接",
            "跨域",
            "WebSocket",
            "nginx",
            "超时设置",
            "gzip 压缩",
            "mTLS",
            "IPv6",
            "DHCP",
        ),
        split_lines("""
            The office Wi-Fi drops every afternoon around 3 pm.
            Need to document which ports the staging stack exposes.
            Read about QUIC and HTTP/3; interesting but not urgent.
            The VPN client update asks for a reboot again.
            Firewall rules on the new server are still the defaults.
            The certificate expiry dashboard shows everything green this week.
            The nginx config has grown to 600 lines; split it into includes someday.
            Ping to the Singapore region is around 180 ms from here.
            The DNS provider sent an email about a price change.
            The load balancer health check path is /healthz.
        """),
        split_lines("""
            办公室 Wi-Fi 每天下午三点左右掉线。
            需要把预发布环境开放了哪些端口写下来。
            看了 QUIC 和 HTTP/3 的资料，有意思但不急。
            VPN 客户端更新后又要重启。
            新服务器的防火墙规则还是默认的。
            证书过期看板这周全是绿色。
            nginx 配置已经六百多行，找时间拆成 include。
            从这里 ping 新加坡区域大约 180 毫秒。
            DNS 服务商发邮件说要调价。
            负载均衡的健康检查路径是 /healthz。
        """),
        ("Network notes", "Ops notes", "Infra log"),
        ("网络笔记", "运维记录", "排障记录"),
    ),
    "python": TopicWords(
        (
            "uv",
            "Poetry",
            "ruff",
            "mypy",
            "pytest fixtures",
            "default arguments",
            "asyncio",
            "Python 3.11",
            "virtualenvs",
            "logging",
            "dataclasses",
            "the GIL",
            "hypothesis",
            "pyproject.toml",
            "the src layout",
        ),
        (
            "uv",
            "Poetry",
            "ruff",
            "mypy",
            "pytest fixture",
            "默认参数",
            "asyncio",
            "Python 3.11",
            "虚拟环境",
            "日志配置",
            "dataclass",
            "GIL",
            "hypothesis",
            "pyproject.toml",
            "src 布局",
        ),
        split_lines("""
            pip resolver warnings show up in the old service; ignoring them for now.
            Looking at the new features in Python 3.13.
            pytest output is too verbose in CI; maybe use -q.
            The pre-commit config has a hook nobody remembers adding.
            Type hints in the legacy module are mostly Any.
            uv python install works behind the corporate proxy, surprisingly.
            Read about the free-threaded Python builds.
            Our requirements.txt still lists a package we removed last year.
            The conftest.py is getting long.
            Someone proposed Pydantic v2 for the config layer; it needs a spike.
        """),
        split_lines("""
            老服务里 pip 解析依赖时有警告，先不管。
            在看 Python 3.13 的新特性。
            CI 里 pytest 输出太多了，也许加个 -q。
            pre-commit 配置里有个钩子没人记得是谁加的。
            老模块里的类型注解基本都是 Any。
            uv python install 在公司代理后面居然能用。
            看了关于 free-threaded Python 构建的介绍。
            requirements.txt 里还留着去年已经删掉的包。
            conftest.py 越来越长了。
            有人提议配置层用 Pydantic v2，需要先做个验证。
        """),
        ("Python notes", "Tooling", "Dev log"),
        ("Python 笔记", "工具链", "开发日志"),
    ),
    "rust": TopicWords(
        (
            "clippy",
            "the borrow checker",
            "release profiles",
            "thiserror",
            "anyhow",
            "tokio",
            "mold",
            "cargo-deny",
            "serde",
            "unwrap",
            "cross-compiling",
            "lifetimes",
        ),
        (
            "clippy",
            "借用检查",
            "release 配置",
            "thiserror",
            "anyhow",
            "tokio",
            "mold",
            "cargo-deny",
            "serde",
            "unwrap",
            "交叉编译",
            "生命周期",
        ),
        split_lines("""
            Rust 1.80 is out; check the release notes for LazyLock.
            Compile times for the whole workspace are painful on the laptop.
            Read a thread about async functions in traits being stable now.
            A crate we depend on hasn't had a release in two years.
            Clippy suggested a rewrite that I don't find clearer.
            Tuning rust-analyzer settings to reduce memory use.
            Lifetimes in that parser module still confuse me.
            Benchmarks with criterion show about 3% noise.
            The cargo workspace has 14 members now.
            Wrote a small CLI with clap to practise.
        """),
        split_lines("""
            Rust 1.80 发布了，看看 LazyLock 相关的说明。
            整个 workspace 在笔记本上编译太慢了。
            看了关于 async trait 稳定的讨论帖。
            我们依赖的一个 crate 两年没发版了。
            clippy 建议的写法我不觉得更清楚。
            在调 rust-analyzer 的设置，想降低内存占用。
            那个解析器模块里的生命周期还是看不太懂。
            用 criterion 跑基准，噪声大概 3%。
            cargo workspace 现在有 14 个成员。
            用 clap 写了个小命令行工具练手。
        """),
        ("Rust notes", "Cargo log", "Rust learning"),
        ("Rust 笔记", "cargo 记录", "Rust 学习"),
    ),
    "git": TopicWords(
        (
            "rebase",
            "git bisect",
            "the reflog",
            "trunk-based development",
            "pre-commit hooks",
            "force pushes",
            "Git LFS",
            "worktrees",
            "merge conflicts",
            "signed commits",
            "Conventional Commits",
            ".gitignore",
        ),
        (
            "rebase",
            "git bisect",
            "reflog",
            "主干开发",
            "pre-commit 钩子",
            "强制推送",
            "Git LFS",
            "worktree",
            "合并冲突",
            "提交签名",
            "Conventional Commits",
            ".gitignore",
        ),
        split_lines("""
            Branch protection on main now needs a second reviewer.
            The merge queue trial starts next sprint.
            My local clone has 60 stale branches.
            Read the Pro Git chapter on internals.
            Someone committed a 200 MB file last week; it was reverted.
            The git log for that file is confusing after the big rename.
            Release tags are inconsistent: some start with v, some don't.
            Need to configure git to use the work email in that folder.
            The stash list has entries from months ago.
            The CODEOWNERS file is out of date.
        """),
        split_lines("""
            主分支保护规则现在需要两个评审人。
            下个迭代开始试用合并队列。
            本地仓库有 60 多个过时的分支。
            看了 Pro Git 讲内部原理的那一章。
            上周有人提交了一个 200 MB 的文件，已经回滚。
            那个文件大改名之后 git log 很难看懂。
            发布标签不统一，有的带 v 有的不带。
            要给那个目录配置用工作邮箱提交。
            stash 列表里还有几个月前的记录。
            CODEOWNERS 文件过时了。
        """),
        ("Git notes", "Repo hygiene", "Workflow"),
        ("Git 笔记", "仓库整理", "协作流程"),
    ),
}
