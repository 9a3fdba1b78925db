"""Distractor vocabularies for operations, frontend, machine learning, decisions and debugging."""

from __future__ import annotations

from benchmarks.retrieval.records import TopicWords, split_lines

WORK_TOPICS: dict[str, TopicWords] = {
    "devops": TopicWords(
        (
            "Docker images",
            "liveness probes",
            "CI caching",
            "blue-green deploys",
            "log shipping",
            "alerting",
            "Terraform state",
            "systemd timers",
            "memory limits",
            "secrets",
        ),
        (
            "Docker 镜像",
            "存活探针",
            "CI 缓存",
            "蓝绿发布",
            "日志收集",
            "告警",
            "Terraform 状态",
            "systemd 定时器",
            "内存限制",
            "密钥管理",
        ),
        split_lines("""
            The Grafana dashboard for the API has too many panels.
            The Kubernetes 1.29 upgrade on the staging cluster is done.
            Build minutes on CI doubled this month.
            On-call handover notes are in the wiki.
            The Docker Desktop licence question came up again.
            The Helm chart values file has drifted from what is deployed.
            Terraform plan shows changes nobody made.
            We need a runbook for restarting the queue workers.
            Looked at Nomad as a lighter alternative; just reading for now.
            The status page was not updated during the last incident.
        """),
        split_lines("""
            API 的 Grafana 看板面板太多了。
            预发布集群的 Kubernetes 1.29 升级完成了。
            这个月 CI 构建分钟数翻倍了。
            值班交接记录在 wiki 上。
            又有人问起 Docker Desktop 授权的问题。
            Helm chart 的 values 文件和实际部署的不一致了。
            Terraform plan 显示有没人做过的变更。
            需要一份重启队列 worker 的操作手册。
            看了看 Nomad 这种更轻量的替代方案，只是了解。
            上次事故期间状态页没有更新。
        """),
        ("Ops log", "Deploy notes", "On-call notes"),
        ("运维日志", "发布记录", "值班笔记"),
    ),
    "frontend": TopicWords(
        (
            "layout shift",
            "React keys",
            "date libraries",
            "z-index",
            "form validation",
            "web fonts",
            "dark mode",
            "useEffect",
            "bundle size",
            "CSS",
        ),
        (
            "布局抖动",
            "React key",
            "日期库",
            "z-index",
            "表单校验",
            "网页字体",
            "深色模式",
            "useEffect",
            "打包体积",
            "CSS",
        ),
        split_lines("""
            The Storybook build is broken after the upgrade.
            Design asked for a new button variant.
            The Lighthouse score on mobile is 71.
            The Tailwind config has custom colours nobody uses.
            Considering Vite for the admin panel.
            The date picker component has accessibility issues.
            The bundle analyser shows lodash twice.
            Safari renders the sticky header differently.
            The dashboard needs a loading skeleton.
            The Playwright end-to-end tests take 12 minutes.
        """),
        split_lines("""
            升级后 Storybook 构建坏了。
            设计要一个新的按钮样式。
            移动端 Lighthouse 分数 71。
            Tailwind 配置里有一些没人用的自定义颜色。
            在考虑管理后台换成 Vite。
            日期选择组件有无障碍问题。
            打包分析显示 lodash 被打进去两份。
            Safari 下吸顶导航的表现不一样。
            仪表盘需要一个加载骨架屏。
            Playwright 端到端测试要跑 12 分钟。
        """),
        ("Frontend notes", "UI bugs", "Web perf"),
        ("前端笔记", "界面问题", "页面性能"),
    ),
    "ml": TopicWords(
        (
            "embeddings",
            "hybrid search",
            "learning rates",
            "chunk size",
            "label noise",
            "quantisation",
            "recall@10",
            "class imbalance",
            "fine-tuning",
            "evaluation sets",
        ),
        ("嵌入模型", "混合检索", "学习率", "切块大小", "标注错误", "量化", "recall@10", "样本不平衡", "微调", "评测集"),
        split_lines("""
            The team's GPU quota was cut in half.
            Reading the ColBERT paper on late interaction.
            Experiment tracking moved to a shared MLflow server.
            The eval set may overlap with the training set; need to check.
            The Chinese tokenizer splits names oddly.
            Someone suggested distilling the ranker.
            The learning-rate warmup schedule was copied from the old config.
            Inference server cold start takes 40 seconds.
            The annotation guidelines need examples of edge cases.
            Rebuilding the vector index over the full corpus takes an hour.
        """),
        split_lines("""
            团队的 GPU 配额被砍了一半。
            在读 ColBERT 后期交互的论文。
            实验记录迁到了共享的 MLflow 服务器。
            评测集和训练集可能有重复，需要检查。
            中文分词器对人名切得很怪。
            有人建议给排序模型做蒸馏。
            学习率预热策略是从旧配置里抄的。
            推理服务冷启动要 40 秒。
            标注规范需要补充边界情况的例子。
            全量语料重建向量索引要一个小时。
        """),
        ("ML notes", "Experiments", "Model eval"),
        ("模型笔记", "实验记录", "评测"),
    ),
    "decisions": TopicWords(
        (
            "Jenkins",
            "GitHub Actions",
            "MongoDB",
            "Redux",
            "SQLite",
            "gRPC",
            "Kubernetes",
            "Kafka",
            "NATS",
            "the monorepo",
            "Auth0",
            "microservices",
            "Confluence",
            "Go",
            "Grafana",
            "GitLab",
            "Elasticsearch",
            "feature flags",
        ),
        (
            "Jenkins",
            "GitHub Actions",
            "MongoDB",
            "Redux",
            "Zustand",
            "gRPC",
            "Kubernetes",
            "Kafka",
            "NATS",
            "单仓库",
            "Auth0",
            "微服务",
            "Confluence",
            "MkDocs",
            "Prometheus",
            "GitLab",
            "Elasticsearch",
            "功能开关",
        ),
        split_lines("""
            Architecture review on Thursday; the agenda is not final.
            We keep postponing the decision on the message broker.
            Wrote an ADR template so decisions get recorded.
            The vendor demo for the monitoring tool was underwhelming.
            Budget approval is needed before we try any paid CI.
            The pros and cons list for GraphQL is in the shared doc.
            Nobody owns the internal wiki, which is part of the problem.
            The migration plan has three phases; phase one is a dry run.
            Stakeholders want a decision by the end of the quarter.
            Revisit the hosting question after the traffic numbers come in.
        """),
        split_lines("""
            周四架构评审，议程还没定。
            消息中间件的选型一拖再拖。
            写了一个 ADR 模板，方便把决策记下来。
            监控工具厂商的演示很一般。
            试用付费 CI 之前需要预算审批。
            GraphQL 的利弊清单在共享文档里。
            内部 wiki 没有负责人，这也是问题之一。
            迁移方案分三个阶段，第一阶段是演练。
            相关方希望季度末前给出结论。
            等流量数据出来再讨论托管方案。
        """),
        ("Decision log", "Architecture notes", "Meeting notes"),
        ("决策记录", "架构笔记", "会议纪要"),
    ),
    "debugging": TopicWords(
        (
            "the flaky test",
            "memory leaks",
            "import errors",
            "the connection pool",
            "deadlocks",
            "CSV encoding",
            "the Docker build cache",
            "cron jobs",
            "N+1 queries",
            "CDN caching",
            "rounding",
            "test order",
            "segfaults",
            "upload limits",
            "file handles",
            "regexes",
            "email delivery",
            "goroutines",
        ),
        (
            "不稳定的测试",
            "内存泄漏",
            "导入错误",
            "连接池",
            "死锁",
            "CSV 编码",
            "构建缓存",
            "定时任务",
            "N+1 查询",
            "CDN 缓存",
            "金额精度",
            "测试顺序",
            "段错误",
            "上传限制",
            "文件句柄",
            "正则",
            "邮件投递",
            "goroutine",
        ),
        split_lines("""
            Reproduced the crash once, then never again.
            Added more logging around the payment callback.
            The stack trace points into a vendored library.
            Bisecting is blocked because old commits don't build.
            CI is red again, but for an unrelated lint error.
            The heap snapshot is 2 GB and the viewer chokes on it.
            Customer report: "it sometimes doesn't save". Not enough detail.
            Turned on debug logs in staging for an hour.
            Core dump analysis needs the exact binary; find it.
            The flaky test list has 11 entries this week.
        """),
        split_lines("""
            崩溃复现了一次，之后再也没出现。
            给支付回调加了更多日志。
            调用栈指向一个内置的第三方库。
            二分查找卡住了，因为老提交编译不过。
            CI 又红了，不过是无关的 lint 错误。
            堆快照 2 GB，查看器打不开。
            用户反馈“有时候保存不了”，信息太少。
            在预发布环境开了一小时调试日志。
            分析 core dump 需要完全一致的二进制，得找出来。
            这周不稳定测试列表有 11 个。
        """),
        ("Debugging notes", "Incident log", "Bug hunt"),
        ("排查笔记", "故障记录", "问题定位"),
    ),
}
