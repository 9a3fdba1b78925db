"""A small bilingual glossary of concepts, and the other language's words for those a text names.

Each concept has its words in English and Chinese ("database: database db 数据库"). The
pipeline compares texts through it (pipeline.features: "数据库" and "database" are one
feature), and search looks up the words of the other language a question does not say
(``bridge_words``), so a Chinese question can find an English note without vectors.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

from incremind_daemon.store.charsets import HAN
from incremind_daemon.store.tokenizer import STOPWORDS, iter_tokens, query_words

log = logging.getLogger(__name__)

# fmt: off
CONCEPTS = (
    "interval: interval spacing 间隔 间距 | review: review revise revision 复习 温习 回顾"
    " | recall: recall retrieval retrieve self-test 回忆 自答 自测"
    " | memory: memory memorize memorise 记忆 记住 | card: card flashcard 卡片 闪卡"
    " | difficulty: difficulty difficult hard 难度 | day: day daily 天 每天"
    " | week: week weekly 周 每周 星期 | hour: hour 小时 | minute: minute 分钟 | answer: answer 回答 答案 作答"
    " | flip: flip 翻面 翻转 | schedule: schedule 计划 安排 日程 | test: test 测试 单测 用例"
    " | deploy: deploy deployment release launch 部署 发布 上线 发版 | database: database db 数据库 | port: port 端口"
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
    " | chinese: chinese mandarin 中文 汉语 | answer: reply respond 回复 回我 | short: short brief concise 简短 简洁 短"
    " | summary: summary summarize summarise recap wrap-up 总结 | comment: comment 注释"
    " | mock: mock 模拟 | migration: migration 迁移 | style: style styling 样式 | state: state 状态"
    " | page: page 页 每页 | push: push 推送 | main: main master 主干 | pr: pr prs 合并请求"
    " | backend: backend 后端 | frontend: frontend 前端 | only: only sole 唯一 | team: team 组 组里 小组"
    " | developer: dev developer engineer 开发 工程师 | timezone: timezone 时区"
    " | chinese-traditional: 繁中 繁体 繁体中文 | chinese-simplified: 简中 简体 简体中文"
    " | monday: monday mon 周一 星期一 礼拜一 | tuesday: tuesday tue 周二 星期二 礼拜二"
    " | wednesday: wednesday wed 周三 星期三 礼拜三 | thursday: thursday thu 周四 星期四 礼拜四"
    " | friday: friday fri 周五 星期五 礼拜五 | saturday: saturday sat 周六 星期六 礼拜六"
    " | sunday: sunday sun 周日 周天 星期日 礼拜日 礼拜天 | class: class lecture 上课 课"
    " | night: night nights 晚上 夜里"
    " | command: command 命令 指令 | freeze: freeze frozen 冻结 | ask: ask 问 询问"
    " | online: online live 线上 | temperature: temperature 温度 | machine: machine host 机器 主机 | date: date 日期"
    " | default: default 默认 预设 | rollout: rollout canary 灰度 | time: time 时间"
    " | last: last latest recent 最近 最新 | build: build compile 构建 编译 打包 | crash: crash 崩溃 闪退"
    " | thread: thread 线程 | layout: layout 布局 | screen: screen 屏幕 | permission: permission 权限"
    " | notification: notification 通知 | network: network 网络 | login: login 登录 | payment: payment 支付 付款"
    " | picture: picture photo 图片 照片 | font: font 字体 | color: color colour 颜色 | animation: animation 动画"
    " | phone: phone mobile 手机 | device: device 设备 真机 | emulator: emulator simulator 模拟器"
    " | variable: variable 变量 | debug: debug 调试 | warning: warning 警告 | upload: upload 上传"
    " | download: download 下载 | width: width 宽度 | height: height 高度 | size: size 大小 尺寸"
    " | review: 评审 审查 | memory: 内存 | translate: translate translation 翻译 | term: term terminology 术语"
    " | signing: signing signature 签名 | obfuscation: obfuscation obfuscate minify 混淆"
)
# fmt: on


def stem(word: str) -> str:
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


# Words search also bridges (2026-12-03): general words that the tuning half of
# benchmarks/retrieval/crosslang missed; relate() does not read them (yet).
# fmt: off
SEARCH_CONCEPTS = (
    "rollback: 回退 | load: load import 导入 加载 | fail: fail failure 失败 | table: table 表 表格"
    " | warehouse: warehouse 数仓 数据仓库 | bill: bill billing invoice 账单 发票 | field: field column 字段"
    " | message: message 消息 信息 | language: language 语言 | customer: customer 客户 顾客 | call: call invoke 调用"
    " | token: token 令牌 | expire: expire expiry expiration lifetime ttl 过期 有效期 失效"
    " | connection: connection 连接 | pool: pool 池 连接池 | component: component widget 组件 控件"
    " | business: business 业务 | pause: pause 暂停 | downstream: downstream 下游 | upstream: upstream 上游"
    " | report: report 报表 报告 | backfill: backfill 回填 | oncall: oncall 值班 | transaction: transaction 事务"
    " | rebuild: rebuild redraw rerender 重绘 重建 | library: library lib 库"
)
# fmt: on


def _concept_words(*glossaries: str) -> dict[str, tuple[str, ...]]:
    words: dict[str, tuple[str, ...]] = {}
    for group in " | ".join(glossaries).split("|"):
        name, _, said = group.partition(":")
        words[name.strip()] = (*words.get(name.strip(), ()), *said.split())
    return words


def _stems(words: dict[str, tuple[str, ...]]) -> dict[str, str]:
    return {stem(word): name for name, said in words.items() for word in said}


CONCEPT = _stems(_concept_words(CONCEPTS))  # a word (stemmed) -> the concept it names
CONCEPT_NAMES = frozenset(CONCEPT.values())
SURFACES: dict[str, tuple[str, ...]] = {}  # a concept -> its words (stemmed), in the order of CONCEPTS
for _word, _name in CONCEPT.items():
    SURFACES[_name] = (*SURFACES.get(_name, ()), _word)
_SEARCH_WORDS = _concept_words(CONCEPTS, SEARCH_CONCEPTS)  # as written: the index stems English words itself
_SEARCH_CONCEPT = _stems(_SEARCH_WORDS)
_HAN = re.compile(f"[{HAN}]")


def concepts_named(text: str) -> list[tuple[str, bool]]:
    """Return the concepts a text names, each with whether a Chinese word named it; in order, once each.

    A Chinese word names a concept itself or through one of its two-character
    pieces, as does the pair of characters across two words ("数据" + "库");
    an English word through its stem ("cached" is cache).
    """
    return list(dict.fromkeys(_concepts(text)))


def _concepts(text: str) -> Iterator[tuple[str, bool]]:
    previous = None  # the last Chinese word, when the next token follows it directly
    for token in iter_tokens(text, for_query=True):
        word = token.text
        if not _is_han(word):
            previous = None
            if word not in STOPWORDS:
                found = _SEARCH_CONCEPT.get(stem(word)) or _SEARCH_CONCEPT.get(stem(word) + "e")
                if found:
                    yield found, False
            continue
        pieces = [word] + [word[i : i + 2] for i in range(len(word) - 1) if len(word) > 2]
        if previous is not None and previous[1] == token.start:
            pieces.append(previous[0][-1] + word[0])
        yield from ((_SEARCH_CONCEPT[piece], True) for piece in pieces if piece in _SEARCH_CONCEPT)
        previous = (word, token.end)


def _is_han(word: str) -> bool:
    return _HAN.match(word) is not None


def is_chinese(text: str) -> bool:
    """Tell whether a text is written in Chinese: Han characters are a third of its letters or more."""
    han = len(_HAN.findall(text))
    return han > 0 and han * 3 >= han + sum(c.isascii() and c.isalpha() for c in text)


def bridge_words(text: str) -> list[str]:
    """Return the other language's words for the concepts a text names, cut as the index cuts them.

    "测试用什么数据库" gives test, database, db; "cache balances" gives 缓存.
    Words the text already holds are left out.
    """
    said = {token.text for token in iter_tokens(text, for_query=True)} | set(query_words(text))
    words: list[str] = []
    for name, from_chinese in concepts_named(text):
        for written in _SEARCH_WORDS[name]:
            if _is_han(written) != from_chinese:
                words.extend(t.text for t in iter_tokens(written, for_query=True) if t.text not in said)
    return list(dict.fromkeys(words))
