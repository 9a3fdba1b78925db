"""The questions of the cross-language set, by hand, each with the words of its evidence.

CROSS questions are asked in the other language than the words that answer them (a Chinese
question about an English session, an English question about a Chinese note), paraphrased as an
agent asks mid-task. CONTROL questions are asked in the evidence's own language. Each evidence
entry is (item id, a verbatim quote of the item's text that answers).
"""

from __future__ import annotations

Evidence = tuple[tuple[str, str], ...]

CROSS: tuple[tuple[str, Evidence], ...] = (
    # m01 ledger-api, en: the test database
    ("测试用什么数据库", (("m01", "the test database goes back to Postgres"),)),
    (
        "CI 里那几个发票查询的用例为什么一直挂",
        (("m01", "and the invoice search uses Postgres JSONB operators that SQLite does not have"),),
    ),
    ("换了数据库以后整套测试要跑多久", (("m01", "The full suite went from 41 s to 58 s."),)),
    # m02 ledger-api, zh: cache conventions
    ("How long do we cache account balances?", (("m02", "过期时间：余额缓存十分钟，汇率缓存一小时。"),)),
    (
        "what keeps a flood of requests off the db when a hot cache entry expires",
        (("m02", "现在的做法是重建缓存前先抢一个互斥锁"),),
    ),
    ("what naming scheme do our redis keys follow", (("m02", "key 的命名统一为 `ledger:{对象}:{id}`"),)),
    # m03 ledger-api, en: login rate limit
    (
        "登录接口的限流是怎么配置的",
        (("m03", "at most 5 attempts per minute per IP address and 10 per hour per account name"),),
    ),
    ("密码输错几次会锁定账号", (("m03", "After 20 failed passwords in a day the account is locked for 30 minutes"),)),
    ("公司办公网的出口 IP 会不会被限流拦住", (("m03", "The office IP range is on an allowlist"),)),
    # m04 ledger-api, zh: migrations
    (
        "how do I add an index to a huge table without blocking writes",
        (("m04", "大表建索引不能直接 CREATE INDEX，那样会锁表好几分钟，期间所有写入都会卡住。"),),
    ),
    ("does every schema migration need to be reversible before merging", (("m04", "每个迁移都要有能用的 downgrade"),)),
    ("what batch size should the backfill script use", (("m04", "每批一万行，批与批之间停 200 毫秒"),)),
    # m05 ledger-api, en: shipping
    ("线上出问题了怎么回退到上一个版本", (("m05", "To roll back, run `make promote` with the previous tag"),)),
    (
        "周五下午可以发布到生产吗",
        (("m05", "No production releases on Friday afternoons or the day before a public holiday."),),
    ),
    ("镜像打什么标签", (("m05", "builds a Docker image tagged with the short git commit hash, never `latest`"),)),
    # m06 ledger-api, zh: reconcile timeouts
    (
        "why did the reconciliation endpoint keep timing out in the morning",
        (("m06", "池子只有 10 个连接，而九点半正好是财务批量对账的时间"),),
    ),
    ("what is the connection pool size now", (("m06", "连接池从 10 调到 30"),)),
    ("what threshold does the slow query log use", (("m06", "打开慢查询日志（阈值 200 毫秒）"),)),
    # m07 ledger-api, en: invoice jobs
    (
        "发票邮件为什么会重复发给客户",
        (("m07", "Celery retried it, but the first attempt had actually gone through"),),
    ),
    (
        "后台任务失败以后重试几次，每次隔多久",
        (("m07", "Retries now back off exponentially: 30 s, 2 min, 8 min, up to 5 attempts"),),
    ),
    (
        "怎么保证重试的时候不会再发一遍邮件",
        (("m07", "Each task carries an idempotency key (invoice id plus version)"),),
    ),
    # m08 ledger-api, zh: log format
    (
        "which fields does every log line carry",
        (("m08", "已经把日志格式改成 JSON，每行一个对象，固定字段有 timestamp、level、request_id、route 和耗时"),),
    ),
    (
        "are we allowed to write user email addresses into the logs",
        (("m08", "日志里只记用户的数字 id，不记明文邮箱和手机号"),),
    ),
    ("how long are application logs retained", (("m08", "日志保留十四天，过期自动删除"),)),
    # m09 trailmate, en: iOS push
    ("苹果手机为什么收不到推送了", (("m09", "The APNs certificate the notification service used expired on Monday"),)),
    ("推送服务现在是用证书还是用密钥认证", (("m09", "I switched us to token-based authentication with a .p8 key"),)),
    ("推送大量失败的时候会不会报警", (("m09", "added an alert when more than 5 % of pushes fail in ten minutes"),)),
    # m10 trailmate, zh: offline maps
    ("how much storage may offline maps take on the phone", (("m10", "缓存总大小上限是 500MB"),)),
    (
        "when the map cache is full, what gets evicted first",
        (("m10", "按最近最少使用的顺序删除瓦片，但用户手动下载的区域不参与自动清理"),),
    ),
    ("do map tiles get refreshed over mobile data", (("m10", "连上 Wi-Fi 时在后台悄悄更新，用流量的时候不更新"),)),
    # m11 trailmate, en: App Store rejection
    (
        "上次苹果审核被拒是什么原因",
        (("m11", "the location permission prompt only said 'Trailmate needs your location'"),),
    ),
    (
        "什么时候向用户申请后台定位权限",
        (("m11", "ask for 'always' only when the user starts recording, not at first launch"),),
    ),
    # m12 trailmate, zh: Android cold start
    (
        "what made the android app slow to open",
        (
            ("m12", "一是地图 SDK 在 Application 初始化的时候就加载了"),
            ("m12", "二是启动页在主线程上同步请求了一次用户配置接口"),
        ),
    ),
    ("how fast is cold start now on that test phone", (("m12", "现在同一台手机冷启动是 1.4 秒"),)),
    (
        "is there anything in CI that catches a slow launch",
        (("m12", "我在 CI 里加了一个启动时间的基准测试，超过两秒就标红"),),
    ),
    # m13 trailmate, en: state management
    (
        "路线编辑页为什么一动就整个页面重绘",
        (("m13", "Every waypoint change notifies one big ChangeNotifier, so every widget listening to it rebuilds."),),
    ),
    ("状态管理打算换成哪个库", (("m13", "I suggest we move to Riverpod, one feature at a time"),)),
    ("业务逻辑可以写在界面组件里吗", (("m13", "no business logic inside widgets"),)),
    # m14 trailmate, zh: release checks
    ("what crash rate blocks a release", (("m14", "崩溃率低于 0.5%，否则先修崩溃再发新功能"),)),
    ("how does the staged rollout of a new version go", (("m14", "第一天只推给 10% 的用户，观察 48 小时"),)),
    ("which tool collects crash reports for the app", (("m14", "崩溃监控用 Sentry"),)),
    # m15 trailmate, en: dark mode
    (
        "夜间模式下海拔图为什么看不清",
        (("m15", "in dark mode the chart line is #666 on #222, a contrast ratio of about 2.6:1"),),
    ),
    ("能不能在组件里直接写颜色值", (("m15", "From now on nobody hard-codes a hex colour in a widget."),)),
    (
        "图表和文字的对比度最低要求是多少",
        (("m15", "The accessibility guideline for text and meaningful graphics is at least 4.5:1."),),
    ),
    # m16 trailmate, zh: battery
    ("how often do we ask for a GPS fix while recording a hike", (("m16", "现在改成：记录中每三十秒一次定位"),)),
    ("how much battery did the location change save", (("m16", "电量消耗从 48% 降到 19%"),)),
    ("when are recorded tracks uploaded to the server", (("m16", "后台上传轨迹也改成了只在充电或连 Wi-Fi 时进行"),)),
    # m17 nightly-etl, en: column order
    ("夜里的导入任务为什么失败了", (("m17", "The partner's orders export changed its column order"),)),
    (
        "导入之前会不会先核对文件的表头",
        (
            (
                "m17",
                "added a schema check that compares the file's headers with the expected ones",
            ),
        ),
    ),
    (
        "导入到一半出错会不会留下半截数据",
        (("m17", "I also made the load one transaction per file, so a half-loaded file cannot happen again."),),
    ),
    # m18 nightly-etl, zh: backfills
    ("how many days of history can I backfill in one go", (("m18", "按天分区回填，一次最多回填七天"),)),
    ("should I pause the downstream reports while backfilling", (("m18", "回填之前先暂停依赖这些表的下游报表任务"),)),
    ("what time of day should a backfill run", (("m18", "回填尽量放在晚上十点以后，避开业务高峰"),)),
    # m19 nightly-etl, en: duplicates
    (
        "订单事实表里为什么会有重复的行",
        (("m19", "The event stream delivers at least once, so the same order event can arrive twice"),),
    ),
    ("订单去重按哪几个字段判断", (("m19", "every event is identified by the pair (order_id, event_ts)"),)),
    ("重复数据让收入多算了多少", (("m19", "weekly revenue was overstated by a few thousand euros"),)),
    # m20 nightly-etl, zh: time zones
    (
        "why was an hour of orders missing from the daily report at the end of March",
        (("m20", "三月最后一个周日欧洲开始夏令时"),),
    ),
    ("which time zone do we store timestamps in", (("m20", "所有时间戳入库时一律转成 UTC 存储"),)),
    ("what time zone do reports show times in", (("m20", "报表展示的时候再按北京时间转换"),)),
    # m21 nightly-etl, en: warehouse bill
    ("数据仓库的账单为什么翻了一倍", (("m21", "three dashboard queries that scan the whole events table, 14 TB"),)),
    (
        "怎么防止有人写出扫全表的查询",
        (("m21", "set require_partition_filter on the table so a query without a date filter is refused"),),
    ),
    ("事件表按哪个字段做了聚簇", (("m21", "The table is now also clustered by customer_id"),)),
    # m22 nightly-etl, zh: alerts
    ("when does a failing job phone the on-call engineer", (("m22", "同一个任务连续失败两次，给当周值班的人打电话"),)),
    ("do we alert on late data even when no job failed", (("m22", "核心表最新分区比预期晚两个小时以上也要告警"),)),
    ("what must an alert message contain", (("m22", "告警信息里必须带上任务名、失败的那一步、日志链接和负责人"),)),
    # m23 nightly-etl, en: dbt tests
    ("主键字段要加哪些数据测试", (("m23", "Every model's primary key gets `not_null` and `unique`."),)),
    ("数据源多久没有新数据就算过期", (("m23", "warn when the newest row is older than 6 hours, error after 12"),)),
    ("没写测试的模型可以合并吗", (("m23", "A pull request that adds a model without tests is not merged."),)),
    # m24 nightly-etl, zh: storage format
    ("what file format should the raw data land in", (("m24", "建议改成 Parquet 列式存储，压缩算法用 zstd"),)),
    ("how much space did changing the file format save", (("m24", "同样的数据占用的空间少了七成"),)),
    ("how long do we keep the old CSV files around", (("m24", "旧的 CSV 保留九十天"),)),
    # m25 daily, en: working agreements
    ("提交信息用什么语言、什么格式写", (("m25", "Commit messages are in English, in the imperative mood"),)),
    ("上午几点之前不要约会议", (("m25", "no meetings before 11:00"),)),
    (
        "需求不清楚的时候是直接动手写代码吗",
        (("m25", "it should ask one short question rather than guess and write a lot of code"),),
    ),
    # m26 daily, zh: code style
    (
        "how should I indent code and how long may a line be",
        (("m26", "缩进一律用四个空格，不用 Tab；一行最多一百个字符"),),
    ),
    ("can variable names be written in pinyin", (("m26", "变量名和函数名用英文单词，不用拼音"),)),
    ("how long can a function get before I should split it", (("m26", "函数超过五十行就考虑拆开"),)),
    # m27 daily, en: backups
    (
        "我的电脑是怎么备份的",
        (
            (
                "m27",
                "Time Machine to the external disk every Sunday",
            ),
            ("m27", "restic to a Backblaze B2 bucket every night at 02:00"),
        ),
    ),
    (
        "备份能不能恢复，多久验证一次",
        (("m27", "Once a month I restore one random folder from restic to check the backups actually work"),),
    ),
    ("两步验证可以用短信吗", (("m27", "SMS only where nothing else is offered"),)),
    # m28 daily, zh: weekly report
    ("when do I write my weekly report", (("m28", "每周五下午四点以后写周报"),)),
    ("what sections go into the weekly status report", (("m28", "格式固定三段"),)),
    # m29 ledger-api, mixed (a Chinese prompt, English replies)
    ("旧版接口什么时候下线", (("m29", "will be switched off six months after v2 ships"),)),
    ("怎么知道哪些客户还在调用旧版接口", (("m29", "we log which API keys still call v1"),)),
    # m30 trailmate, mixed (a Chinese note, one English paragraph)
    (
        "where are the login tokens stored on the phone",
        (("m30", "都放在系统的安全存储里，iOS 用 Keychain，Android 用 Keystore 加密后再存"),),
    ),
    ("can users still sign up with an email and password", (("m30", "去掉了自己的邮箱密码注册"),)),
    ("刷新令牌的有效期是多久", (("m30", "The access token lives 15 minutes and the refresh token 30 days"),)),
    # m31 daily, en: debugging
    ("修 bug 之前第一步应该做什么", (("m31", "reproduce the bug with a failing test"),)),
    ("不知道是哪次提交引入的问题，怎么找", (("m31", "I use git bisect with that test as the check"),)),
    # m32 daily, zh: learning
    ("how do I usually start learning a new framework", (("m32", "先把官方文档里的入门教程完整跟着做一遍"),)),
    ("where do I keep study notes and what goes in them", (("m32", "笔记记在 Obsidian 里，每个技术一页"),)),
)

CONTROL: tuple[tuple[str, Evidence], ...] = (
    ("which database do the tests run against now", (("m01", "the test database goes back to Postgres"),)),
    ("余额缓存多久过期", (("m02", "过期时间：余额缓存十分钟，汇率缓存一小时。"),)),
    (
        "what happens after too many failed logins",
        (("m03", "After 20 failed passwords in a day the account is locked for 30 minutes"),),
    ),
    ("对账接口为什么一到早上就超时", (("m06", "池子只有 10 个连接，而九点半正好是财务批量对账的时间"),)),
    (
        "why did a customer get the same invoice email three times",
        (("m07", "Celery retried it, but the first attempt had actually gone through"),),
    ),
    ("离线地图最多能占多少空间", (("m10", "缓存总大小上限是 500MB"),)),
    (
        "why did Apple reject the last build",
        (("m11", "the location permission prompt only said 'Trailmate needs your location'"),),
    ),
    ("安卓应用启动为什么慢", (("m12", "一是地图 SDK 在 Application 初始化的时候就加载了"),)),
    (
        "what contrast ratio do charts need to meet",
        (("m15", "The accessibility guideline for text and meaningful graphics is at least 4.5:1."),),
    ),
    ("记录轨迹的时候多久定位一次", (("m16", "现在改成：记录中每三十秒一次定位"),)),
    (
        "how do we protect the load against the partner reordering CSV columns",
        (
            (
                "m17",
                "added a schema check that compares the file's headers with the expected ones",
            ),
        ),
    ),
    ("历史数据一次最多回填几天", (("m18", "按天分区回填，一次最多回填七天"),)),
    ("what key do we dedupe order events on", (("m19", "every event is identified by the pair (order_id, event_ts)"),)),
    ("时间戳入库用什么时区", (("m20", "所有时间戳入库时一律转成 UTC 存储"),)),
    (
        "why did the warehouse cost double in March",
        (("m21", "three dashboard queries that scan the whole events table, 14 TB"),),
    ),
    ("任务连续失败几次会打电话给值班的人", (("m22", "同一个任务连续失败两次，给当周值班的人打电话"),)),
    ("when do I do code reviews", (("m25", "I review pull requests first thing in the morning, before 10:00"),)),
    ("变量名可以用拼音吗", (("m26", "变量名和函数名用英文单词，不用拼音"),)),
    (
        "how often do I test restoring a backup",
        (("m27", "Once a month I restore one random folder from restic to check the backups actually work"),),
    ),
    ("周报分成哪几部分", (("m28", "格式固定三段"),)),
)
