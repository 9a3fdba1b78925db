"""The material of the cross-language set: developer notes and agent-session excerpts, by hand.

Three projects (ledger-api, a web backend; trailmate, a mobile app; nightly-etl, a data
pipeline) and the person's own working habits (daily). Each item is what one file dropped into
the inbox holds: a note, or an excerpt of an agent session written as a Markdown transcript.
The order is fixed: make_set.py splits the set by an item's place in this tuple.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    project: str
    lang: str  # en, zh, or mixed (one language asks, the other answers)
    kind: str  # note or session
    title: str
    text: str


def session(*turns: tuple[str, str]) -> str:
    """Write an agent session excerpt the way a transcript file holds it."""
    return "\n\n".join(f"**{who}:** {said}" for who, said in turns)


ITEMS: tuple[Item, ...] = (
    Item(
        "m01",
        "ledger-api",
        "en",
        "session",
        "Session 2025-03-04: tests against a real database",
        session(
            (
                "User",
                "The invoice search tests pass locally but three of them fail in CI with "
                "'no such function: jsonb_extract_path_text'. What's going on?",
            ),
            (
                "Assistant",
                "The test suite runs on an in-memory SQLite file, and the invoice search uses "
                "Postgres JSONB operators that SQLite does not have. The local runs pass because "
                "your .env points at the dev Postgres container. I'd stop pretending: the test "
                "database goes back to Postgres. I added a postgres:16 service to the CI workflow "
                "and a session-scoped fixture that creates a throwaway schema per test run and "
                "drops it afterwards.",
            ),
            ("User", "Fine. How much slower is it?"),
            (
                "Assistant",
                "The full suite went from 41 s to 58 s. Each test still runs inside a transaction "
                "that is rolled back at the end, so tests don't see each other's rows.",
            ),
        ),
    ),
    Item(
        "m02",
        "ledger-api",
        "zh",
        "note",
        "缓存约定",
        "# ledger-api 缓存约定\n\n"
        "账户余额和汇率都走 Redis 缓存。key 的命名统一为 `ledger:{对象}:{id}`，比如 `ledger:balance:42`，"
        "不要在 key 里放用户邮箱之类的个人信息。\n\n"
        "过期时间：余额缓存十分钟，汇率缓存一小时。写入账目之后立刻删掉对应账户的余额缓存，不等它自己过期，"
        "否则用户转账后刷新页面还是旧余额，上周就被客服投诉过两次。\n\n"
        "热门账户的缓存同时失效时，大量请求会一起打到数据库上。现在的做法是重建缓存前先抢一个互斥锁，"
        "抢不到的请求等 50 毫秒再读缓存；锁本身五秒后自动释放，防止进程挂掉后锁一直不放。"
        "另外过期时间加了一个零到六十秒的随机偏移，避免一批 key 在同一秒失效。",
    ),
    Item(
        "m03",
        "ledger-api",
        "en",
        "session",
        "Session 2025-03-11: login rate limit",
        session(
            (
                "User",
                "Someone is hammering /auth/login from a handful of IPs. Can we throttle it without "
                "annoying real users?",
            ),
            (
                "Assistant",
                "I added a sliding-window limiter in front of the login route: at most 5 attempts per "
                "minute per IP address and 10 per hour per account name. Beyond that the endpoint "
                "answers 429 Too Many Requests with a Retry-After header. After 20 failed passwords "
                "in a day the account is locked for 30 minutes and the owner gets an email.",
            ),
            ("User", "Where do the counters live?"),
            (
                "Assistant",
                "In Redis, keyed by IP and by account, so the limit holds across all four API "
                "replicas. The office IP range is on an allowlist because the support team logs in "
                "to many customer accounts from there.",
            ),
        ),
    ),
    Item(
        "m04",
        "ledger-api",
        "zh",
        "session",
        "会话 2025-03-18：数据库迁移规范",
        session(
            ("用户", "给 invoices 表加一个 customer_ref 列，再建个索引。线上这张表有八千万行，要注意什么？"),
            (
                "助手",
                "迁移脚本还是用 Alembic 写。按我们的规矩，每个迁移都要有能用的 downgrade，"
                "合并之前在预发环境上先升级再回滚一遍，确认两个方向都能跑通。",
            ),
            (
                "助手",
                "大表建索引不能直接 CREATE INDEX，那样会锁表好几分钟，期间所有写入都会卡住。"
                "要用 CREATE INDEX CONCURRENTLY，而且它不能放在事务里，所以这个迁移单独一个文件，"
                "里面关掉事务。新加的列先允许为空，数据回填完再加非空约束，分三次发布。",
            ),
            ("用户", "好，回填脚本每批多少行？"),
            ("助手", "每批一万行，批与批之间停 200 毫秒，让复制延迟跟得上。"),
        ),
    ),
    Item(
        "m05",
        "ledger-api",
        "en",
        "note",
        "How we ship ledger-api",
        "# Shipping ledger-api\n\n"
        "Every merge to main builds a Docker image tagged with the short git commit hash, never "
        "`latest`. Staging picks it up automatically; production is promoted by hand with "
        "`make promote TAG=<hash>`.\n\n"
        "Production deploys are blue-green: the new stack starts beside the old one, health checks "
        "must pass for five minutes, then the load balancer switches over. To roll back, run "
        "`make promote` with the previous tag; the old stack is kept warm for an hour.\n\n"
        "No production releases on Friday afternoons or the day before a public holiday. If "
        "something must go out, a second engineer has to be online for two hours afterwards.",
    ),
    Item(
        "m06",
        "ledger-api",
        "zh",
        "note",
        "排查记录：对账接口超时",
        "# 排查记录：对账接口超时（2025-04-02）\n\n"
        "现象：每天上午九点半左右，/reconcile 接口大量超时，持续十来分钟，别的时间正常。\n\n"
        "过程：一开始怀疑是慢查询，打开慢查询日志（阈值 200 毫秒）后发现 SQL 本身都很快。"
        "再看应用指标，超时时连接池的等待队列一直是满的：池子只有 10 个连接，"
        "而九点半正好是财务批量对账的时间，并发一上来连接就不够用了。\n\n"
        "处理：连接池从 10 调到 30，同时给获取连接加了三秒的等待上限，拿不到就直接报错，"
        "不再无限排队。数据库那边的最大连接数是 200，四个实例加起来 120，还有余量。"
        "改完之后第二天九点半没有再超时。\n\n"
        "后续：在监控面板上加了连接池使用率的图，超过八成持续五分钟就提醒。"
        "财务那边也答应把批量对账拆成几批，错开十分钟提交。",
    ),
    Item(
        "m07",
        "ledger-api",
        "en",
        "session",
        "Session 2025-04-09: background jobs that send invoices",
        session(
            ("User", "A customer got the same invoice email three times yesterday. Why?"),
            (
                "Assistant",
                "The send_invoice Celery task timed out talking to the mail provider, and Celery "
                "retried it, but the first attempt had actually gone through. I changed three "
                "things. Retries now back off exponentially: 30 s, 2 min, 8 min, up to 5 attempts, "
                "after which the task lands in a dead-letter queue that someone checks each "
                "morning. Each task carries an idempotency key (invoice id plus version), and the "
                "worker records the key before calling the provider, so a retry of a send that "
                "already happened is skipped. And the provider call has a 10 s timeout instead of "
                "none.",
            ),
            ("User", "Does the retry reuse the same key?"),
            ("Assistant", "Yes, the key is computed from the invoice, not from the attempt."),
        ),
    ),
    Item(
        "m08",
        "ledger-api",
        "zh",
        "session",
        "会话 2025-04-15：日志格式",
        session(
            ("用户", "现在的日志都是纯文本，在 Loki 里很难按请求过滤。能不能改一改？"),
            (
                "助手",
                "已经把日志格式改成 JSON，每行一个对象，固定字段有 timestamp、level、request_id、"
                "route 和耗时。request_id 在网关生成，通过请求头一路传下去，后台任务也会带上触发它的那个请求的 id，"
                "这样一次转账从接口到异步任务的所有日志都能串起来。",
            ),
            (
                "助手",
                "隐私方面：日志里只记用户的数字 id，不记明文邮箱和手机号；银行卡号只保留后四位。"
                "日志保留十四天，过期自动删除，审计日志单独存放，保留一年。",
            ),
            ("用户", "好，debug 级别线上要关掉吧？"),
            ("助手", "对，线上默认 info，需要时可以按单个请求临时打开 debug。"),
        ),
    ),
    Item(
        "m09",
        "trailmate",
        "en",
        "session",
        "Session 2025-02-20: iOS push stopped",
        session(
            ("User", "Nobody on iPhone has received a push notification since Monday. Android is fine."),
            (
                "Assistant",
                "The APNs certificate the notification service used expired on Monday; Apple "
                "returns 403 for every request and our service logged it at debug level, so no "
                "alert fired. Instead of renewing the certificate I switched us to token-based "
                "authentication with a .p8 key: it does not expire every year and one key covers "
                "both the sandbox and production environments.",
            ),
            (
                "Assistant",
                "I also made APNs errors log at error level and added an alert when more than 5 % "
                "of pushes fail in ten minutes. The key itself lives in the secrets manager, not in "
                "the repository.",
            ),
        ),
    ),
    Item(
        "m10",
        "trailmate",
        "zh",
        "note",
        "离线地图的缓存",
        "# trailmate 离线地图\n\n"
        "用户出发前可以把一片区域的地图下载到手机上，山里没有信号的时候也能看路线。"
        "瓦片按缩放级别存在应用的私有目录里，不放相册也不放公共存储。\n\n"
        "空间：缓存总大小上限是 500MB。超过上限时，按最近最少使用的顺序删除瓦片，"
        "但用户手动下载的区域不参与自动清理，只有用户自己能删。设置页里有一个“清空离线地图”的按钮，"
        "旁边显示当前占用了多少空间。\n\n"
        "更新：瓦片三十天后视为过期，连上 Wi-Fi 时在后台悄悄更新，用流量的时候不更新，"
        "免得用户被流量费吓到。\n\n"
        "已知问题：部分安卓手机的清理软件会把缓存目录当垃圾删掉，用户进山才发现地图没了。"
        "下载完成后会提示用户把 trailmate 加到清理软件的白名单里，出发前的检查页也会再核对一遍离线区域是否完整。",
    ),
    Item(
        "m11",
        "trailmate",
        "en",
        "note",
        "App Store rejection, build 2.3.0",
        "# App Store rejection (2.3.0)\n\n"
        "Apple rejected 2.3.0 under guideline 5.1.1: the location permission prompt only said "
        "'Trailmate needs your location'. Reviewers want the purpose string to say why and give an "
        "example.\n\n"
        "New wording for the 'when in use' prompt: 'Trailmate uses your location to show where you "
        "are on the trail map and to record your hike.' The 'always' prompt now explains that "
        "background location is only used while a hike recording is running.\n\n"
        "We resubmitted on 2025-03-02 and it was approved the next day. Lesson: ask for 'always' "
        "only when the user starts recording, not at first launch.",
    ),
    Item(
        "m12",
        "trailmate",
        "zh",
        "session",
        "会话 2025-03-06：安卓冷启动",
        session(
            ("用户", "安卓上从点图标到看到首页要三秒多，低端机更慢，能查一下吗？"),
            (
                "助手",
                "在一台三年前的红米上量了一下，冷启动 3.2 秒。主要有两块：一是地图 SDK 在 Application "
                "初始化的时候就加载了，占了一秒多；二是启动页在主线程上同步请求了一次用户配置接口，"
                "网络差的时候要等很久。",
            ),
            (
                "助手",
                "改法：地图 SDK 改成第一次打开地图页时再初始化；用户配置先用本地上次保存的那份，"
                "启动后在后台再去拉新的。现在同一台手机冷启动是 1.4 秒。我在 CI 里加了一个启动时间的基准测试，"
                "超过两秒就标红。",
            ),
            ("用户", "iOS 那边要不要也看一下？"),
            (
                "助手",
                "iOS 冷启动现在是 0.9 秒，还在可以接受的范围。不过同样的问题也存在：地图在启动时就初始化了，"
                "下个版本一起改掉，两端保持一致，以后新加的第三方 SDK 都默认延迟初始化。",
            ),
        ),
    ),
    Item(
        "m13",
        "trailmate",
        "en",
        "session",
        "Session 2025-03-20: state management",
        session(
            (
                "User",
                "The route editor keeps rebuilding the whole screen when one waypoint moves. Is Provider the problem?",
            ),
            (
                "Assistant",
                "Partly. Every waypoint change notifies one big ChangeNotifier, so every widget "
                "listening to it rebuilds. I suggest we move to Riverpod, one feature at a time, "
                "starting with the route editor: each waypoint gets its own provider and only its "
                "marker rebuilds.",
            ),
            (
                "User",
                "OK, let's do it. And while we're at it, let's agree on a rule: no business logic "
                "inside widgets. Widgets read state and send events, that's it.",
            ),
            (
                "Assistant",
                "Agreed. Calculations like distance and elevation gain move into plain Dart classes "
                "with unit tests, and the widgets only display the results.",
            ),
        ),
    ),
    Item(
        "m14",
        "trailmate",
        "zh",
        "note",
        "发版前的检查",
        "# trailmate 发版规则\n\n"
        "崩溃监控用 Sentry，安卓和 iOS 是同一个项目，按版本号区分。\n\n"
        "每次发版前看上一个版本的数据：无崩溃用户比例必须高于 99.5%，也就是崩溃率低于 0.5%，"
        "否则先修崩溃再发新功能。\n\n"
        "新版本先灰度：第一天只推给 10% 的用户，观察 48 小时，崩溃率和差评都没有上升再全量。"
        "如果灰度期间出现新的高频崩溃，直接在商店后台暂停分阶段发布，不用等修复。\n\n"
        "发版说明要写给普通用户看，不要写“修复若干 bug”这种话。\n\n"
        "商店截图每个大版本更新一次，中英文各一套。"
        "发版当天负责人要在群里贴出版本号、灰度比例和回滚方案，出了问题谁来拍板也要提前说清楚。"
        "热修复版本也走同样的流程，只是灰度观察缩短到一天。",
    ),
    Item(
        "m15",
        "trailmate",
        "en",
        "session",
        "Session 2025-04-03: dark mode",
        session(
            (
                "User",
                "Users say the elevation chart is unreadable at night. Grey lines on a dark grey background, I guess.",
            ),
            (
                "Assistant",
                "Yes: in dark mode the chart line is #666 on #222, a contrast ratio of about 2.6:1. "
                "The accessibility guideline for text and meaningful graphics is at least 4.5:1. I "
                "moved all colours into design tokens with a light and a dark value each, and the "
                "chart now uses the accent token, which reaches 7:1 on the dark background.",
            ),
            (
                "Assistant",
                "I checked every screen with the Xcode Accessibility Inspector and Android's "
                "Accessibility Scanner; two buttons on the settings page also failed and are fixed. "
                "From now on nobody hard-codes a hex colour in a widget.",
            ),
        ),
    ),
    Item(
        "m16",
        "trailmate",
        "zh",
        "session",
        "会话 2025-04-22：耗电",
        session(
            ("用户", "应用商店里好几条差评说开着 trailmate 一下午手机电量掉了一半。"),
            (
                "助手",
                "查了一下，记录轨迹时我们每五秒要一次高精度定位，而且屏幕关了也不降频。"
                "现在改成：记录中每三十秒一次定位，用户停下不动时改用系统的显著位置变化通知，"
                "几乎不耗电；屏幕亮着、用户在看地图的时候才恢复到每五秒一次。",
            ),
            ("助手", "在同一条四小时的路线上对比了一下，电量消耗从 48% 降到 19%，轨迹的精度肉眼看不出差别。"),
            ("用户", "会不会有人觉得轨迹变粗糙了？"),
            (
                "助手",
                "山路拐弯多的地方三十秒一次确实可能切角，所以速度超过每小时十五公里，比如骑车的时候，"
                "会自动切回每五秒一次。设置里也加了一个“高精度记录”开关，给需要的人自己打开。"
                "另外把后台上传轨迹也改成了只在充电或连 Wi-Fi 时进行。",
            ),
        ),
    ),
    Item(
        "m17",
        "nightly-etl",
        "en",
        "session",
        "Session 2025-02-11: nightly load failed",
        session(
            (
                "User",
                "The nightly load failed again, and yesterday's revenue numbers on the dashboard are "
                "nonsense. What happened?",
            ),
            (
                "Assistant",
                "The partner's orders export changed its column order: 'currency' now comes before "
                "'amount'. Our loader read columns by position, so amounts went into the currency "
                "field and the cast failed halfway through, after some rows were already in. I "
                "changed the loader to read columns by header name, and added a schema check that "
                "compares the file's headers with the expected ones before anything is loaded; if "
                "they differ, the run stops and nothing is written.",
            ),
            (
                "Assistant",
                "I also made the load one transaction per file, so a half-loaded file cannot happen "
                "again. Yesterday's partition is reloaded and the dashboard is correct now.",
            ),
        ),
    ),
    Item(
        "m18",
        "nightly-etl",
        "zh",
        "note",
        "历史数据回填流程",
        "# nightly-etl 回填流程\n\n"
        "上游修了数据或者我们改了计算口径以后，需要把历史数据重新跑一遍。规矩如下：\n\n"
        "1. 按天分区回填，一次最多回填七天，跑完一批检查行数再跑下一批。"
        "一次跑几个月会把数据仓库的计算资源占满，白天的报表查询全部排队。\n"
        "2. 回填之前先暂停依赖这些表的下游报表任务，回填完成并核对以后再恢复，"
        "不然下游会读到一半新一半旧的数据。\n"
        "3. 回填尽量放在晚上十点以后，避开业务高峰。\n"
        "4. 每次回填在群里说一声：哪几张表、哪个日期范围、为什么回填。\n"
        "5. 回填脚本要能重复执行：同一天跑两遍，结果和跑一遍一样，中途失败了从失败的那天接着跑就行。\n\n"
        "上次一口气回填了三个月，结果第二天上午所有报表都慢得打不开，这条规矩就是那次定下来的。",
    ),
    Item(
        "m19",
        "nightly-etl",
        "en",
        "note",
        "Duplicate events in the orders table",
        "# Duplicates in fact_orders\n\n"
        "The event stream delivers at least once, so the same order event can arrive twice, "
        "usually after a consumer restart. Since March about 0.3 % of rows in fact_orders were "
        "duplicates, and weekly revenue was overstated by a few thousand euros.\n\n"
        "Fix: every event is identified by the pair (order_id, event_ts). The load now uses MERGE "
        "on that key instead of a plain INSERT, so a repeated event updates the row it already "
        "wrote instead of adding a second one. A nightly check counts keys that appear more than "
        "once and fails the run if it finds any.\n\n"
        "The historical duplicates were removed with a one-off query; the count before and after "
        "is in the ticket DATA-212.",
    ),
    Item(
        "m20",
        "nightly-etl",
        "zh",
        "session",
        "会话 2025-03-27：时区",
        session(
            ("用户", "三月最后一个周末的日报少了一个小时的订单，是不是哪里算错了？"),
            (
                "助手",
                "是时区的问题。欧洲那边的源系统给的是当地时间，不带时区，我们入库时按固定的加一小时换算。"
                "三月最后一个周日欧洲开始夏令时，那天凌晨两点直接跳到三点，换算错了一个小时，"
                "那一小时的订单被算到了前一天。",
            ),
            (
                "助手",
                "现在的规定：所有时间戳入库时一律转成 UTC 存储，源系统必须告诉我们它的时区名称，"
                "不接受只给偏移量；报表展示的时候再按北京时间转换。"
                "受影响的那两天已经重算过了。",
            ),
            ("用户", "以后怎么提前发现这种问题？"),
            (
                "助手",
                "加了一个检查：每天每小时的订单量和上周同一时段比，某个小时是零或者掉了九成以上就告警。"
                "另外每年三月和十月夏令时切换的那两个周末，在值班日历上标出来，提醒值班的人第二天早上核对一下日报。",
            ),
        ),
    ),
    Item(
        "m21",
        "nightly-etl",
        "en",
        "session",
        "Session 2025-04-08: the warehouse bill",
        session(
            ("User", "Our warehouse bill for March is twice February's. Where is the money going?"),
            (
                "Assistant",
                "Mostly three dashboard queries that scan the whole events table, 14 TB, every time "
                "someone opens the page. The table is partitioned by day, but those queries filter "
                "on a derived date column, so partition pruning never kicks in.",
            ),
            (
                "Assistant",
                "I rewrote them to filter on the partition column, and set require_partition_filter "
                "on the table so a query without a date filter is refused instead of scanning "
                "everything. The table is now also clustered by customer_id, since most queries "
                "look at one customer. A test run of the three queries read 40 GB instead of 14 TB.",
            ),
        ),
    ),
    Item(
        "m22",
        "nightly-etl",
        "zh",
        "note",
        "告警规则",
        "# nightly-etl 告警\n\n"
        "任务失败：第一次失败发到飞书的数据组群里，不打扰人；同一个任务连续失败两次，"
        "给当周值班的人打电话。值班表在共享日历里，每周一早上交接。\n\n"
        "数据延迟：核心表最新分区比预期晚两个小时以上也要告警，哪怕任务本身没报错，"
        "因为上游卡住的时候我们的任务会一直空等。\n\n"
        "告警信息里必须带上任务名、失败的那一步、日志链接和负责人，半夜被叫醒的人不应该再去翻代码找谁负责。"
        "每条告警都要能在十五分钟内判断是真问题还是误报；一个月里误报超过三次的规则要重新调阈值。\n\n"
        "值班的人处理完告警后，在群里回复一句原因和处理结果，周一交接的时候一起过一遍，"
        "重复出现的问题要建工单彻底解决。"
        "新加的任务上线前，负责人要先把告警规则配好，没有告警的任务不许上线。",
    ),
    Item(
        "m23",
        "nightly-etl",
        "en",
        "note",
        "Data quality tests in dbt",
        "# dbt tests we require\n\n"
        "Every model's primary key gets `not_null` and `unique`. Status columns get "
        "`accepted_values` with the full list, so a new status from the source fails loudly "
        "instead of falling into an 'other' bucket.\n\n"
        "Sources get a freshness check: warn when the newest row is older than 6 hours, error after "
        "12.\n\n"
        "Foreign keys from fact tables to dimensions get `relationships` tests. These are slow on "
        "the big tables, so they run only on the last three days of data.\n\n"
        "A pull request that adds a model without tests is not merged. `dbt build` runs the tests "
        "right after each model, so a failing test stops everything downstream of it.",
    ),
    Item(
        "m24",
        "nightly-etl",
        "zh",
        "session",
        "会话 2025-04-29：存储格式",
        session(
            ("用户", "对象存储里的原始文件越来越多，读起来也慢，有什么办法？"),
            (
                "助手",
                "现在落地的是 CSV，既占地方，查询时又要整行读。建议改成 Parquet 列式存储，压缩算法用 zstd。"
                "我拿上个月的数据试了：同样的数据占用的空间少了七成，常用的几个聚合查询快了大约三倍，"
                "因为只读需要的列。",
            ),
            (
                "助手",
                "迁移方式：新数据从下周一起直接写 Parquet；旧的 CSV 保留九十天，期间两种格式都能读，"
                "之后删掉。文件按日期分目录，每个文件控制在一两百兆，太小的文件太多会拖慢查询。",
            ),
            ("用户", "那些小文件现在怎么处理？"),
            (
                "助手",
                "每天凌晨加一个合并任务，把前一天流式写进来的小文件合成大文件，合并完校验行数一致再删掉原来的。"
                "读数据的代码不用改，目录结构保持不变。",
            ),
        ),
    ),
    Item(
        "m25",
        "daily",
        "en",
        "note",
        "How I like to work",
        "# Working agreements (for agents too)\n\n"
        "I review pull requests first thing in the morning, before 10:00, so nobody waits a day "
        "for a review. I keep mornings free: no meetings before 11:00.\n\n"
        "Commit messages are in English, in the imperative mood ('Add retry to invoice sender', "
        "not 'added retry'), first line under 72 characters, with a blank line before the body. "
        "One logical change per commit; formatting changes go in their own commit.\n\n"
        "When an agent is unsure what I want, it should ask one short question rather than guess "
        "and write a lot of code.",
    ),
    Item(
        "m26",
        "daily",
        "zh",
        "note",
        "我的代码风格",
        "# 代码风格（所有项目通用）\n\n"
        "缩进一律用四个空格，不用 Tab；一行最多一百个字符，超过就换行。\n\n"
        "写文档和注释的时候，中文和英文、数字之间加一个空格，比如“用 Redis 做缓存”。\n\n"
        "变量名和函数名用英文单词，不用拼音，也不用只有自己看得懂的缩写。"
        "布尔值用 is_ 或 has_ 开头。\n\n"
        "函数超过五十行就考虑拆开。能写成纯函数的就写成纯函数，副作用放在最外层。"
        "这些规则对 AI 助手写的代码同样适用，别让我在评审时再改一遍。\n\n"
        "提交之前先在本地跑一遍格式化和静态检查，不要把格式问题留给 CI 去发现。"
        "魔法数字要起名字放成常量，注释写为什么这样做，而不是重复代码在做什么。"
        "错误信息要写清楚发生了什么、怎么处理，不要只打印一个“出错了”。",
    ),
    Item(
        "m27",
        "daily",
        "en",
        "note",
        "Backups and accounts",
        "# My backups\n\n"
        "The laptop is backed up two ways: Time Machine to the external disk every Sunday, and "
        "restic to a Backblaze B2 bucket every night at 02:00. The restic repository password is "
        "in 1Password, never in a file on the laptop.\n\n"
        "Once a month I restore one random folder from restic to check the backups actually work; "
        "the last restore test was on 2025-04-06.\n\n"
        "Every account that supports it has two-factor authentication with the authenticator app "
        "or a hardware key; SMS only where nothing else is offered. Recovery codes are printed and "
        "kept in a drawer at home.",
    ),
    Item(
        "m28",
        "daily",
        "zh",
        "note",
        "周报习惯",
        "# 周报\n\n"
        "每周五下午四点以后写周报，发给组长，同时抄一份到自己的笔记里。\n\n"
        "格式固定三段：这周做完了什么（写结果，不写过程）、被什么卡住了需要谁帮忙、下周打算做什么。"
        "每一段不超过五条，整份周报不超过一页，写不下说明这周事情太散了。\n\n"
        "如果周五请假，就周四晚上写。写周报的时候顺便把下周一要做的第一件事写在便签上，"
        "周一早上一来就能直接开始，不用想半天从哪儿下手。\n\n"
        "写结果的时候尽量带数字，比如“启动时间从 3.2 秒降到 1.4 秒”，而不是“优化了启动速度”。"
        "阻塞的事情要写清楚在等谁、从哪天开始等的，组长才好去催。"
        "每个月底把四份周报翻一遍，挑出做完的大事写进月度总结，年底写述职的时候就不用从头回忆了。",
    ),
    Item(
        "m29",
        "ledger-api",
        "mixed",
        "session",
        "会话 2025-05-06：API versioning",
        session(
            ("用户", "v1 的接口有几个字段命名很乱，想改但又怕把老客户端弄坏，怎么处理比较好？"),
            (
                "Assistant",
                "Put the new shapes under a /v2 prefix and leave /v1 as it is. Both versions share "
                "the same service layer; only the request and response schemas differ. v1 is "
                "deprecated from today and will be switched off six months after v2 ships. Until "
                "then every v1 response carries a Deprecation header and a Sunset header with the "
                "shutdown date, and we log which API keys still call v1 so we can email those "
                "customers a month before.",
            ),
            ("用户", "好，文档也要同步更新吧。"),
            (
                "Assistant",
                "Yes: the OpenAPI docs show v2 by default, with v1 under a separate 'legacy' tab and "
                "a migration guide that lists every renamed field.",
            ),
        ),
    ),
    Item(
        "m30",
        "trailmate",
        "mixed",
        "note",
        "登录和 token 存储",
        "# trailmate 登录\n\n"
        "登录方式只保留 Sign in with Apple 和 Google 两种，去掉了自己的邮箱密码注册，"
        "少维护一套找回密码的流程。iOS 上架要求：只要提供了第三方登录，就必须同时提供 Apple 登录。\n\n"
        "token 的存放：access token 和 refresh token 都放在系统的安全存储里，"
        "iOS 用 Keychain，Android 用 Keystore 加密后再存，绝对不放 SharedPreferences 或 UserDefaults 的明文里。\n\n"
        "The access token lives 15 minutes and the refresh token 30 days; a refresh token is "
        "rotated on every use, and reusing an old one logs the user out everywhere.",
    ),
    Item(
        "m31",
        "daily",
        "en",
        "note",
        "How I debug",
        "# Debugging habits\n\n"
        "Before touching the code, reproduce the bug with a failing test. The test goes in the same "
        "commit as the fix, so the history shows what was broken and proves it stays fixed.\n\n"
        "When something that used to work is broken and I don't know why, I use git bisect with "
        "that test as the check instead of reading diffs: it finds the guilty commit in a few "
        "steps even across hundreds of commits.\n\n"
        "I write down the root cause in one sentence in the pull request description. If I can't "
        "say it in one sentence, I haven't found it yet.",
    ),
    Item(
        "m32",
        "daily",
        "zh",
        "note",
        "学新东西的方法",
        "# 学新技术的顺序\n\n"
        "先把官方文档里的入门教程完整跟着做一遍，不先看博客和视频，二手资料经常是过时的版本。\n\n"
        "跟完教程马上自己写一个小 demo，题目要跟手头的工作有关，比如学 Riverpod 就拿 trailmate 的一个页面练手。"
        "只看不写，两周后基本全忘。\n\n"
        "笔记记在 Obsidian 里，每个技术一页，只记三样东西：它解决什么问题、最小的可运行例子、"
        "我踩过的坑。一个月后回头看一次，删掉已经记住的内容。\n\n"
        "一次只学一样新东西，同时学两个框架的时候哪个都学不扎实。"
        "遇到看不懂的概念，先试着用自己的话给别人讲一遍，讲不清楚就说明还没懂，回去再读原文。"
        "学到能在项目里用上的程度就停，不追求把文档全部读完。",
    ),
)
