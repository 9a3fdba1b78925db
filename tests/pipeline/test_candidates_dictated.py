"""A turn dictated by voice arrives as one line with spaces for pauses and no stop; read as one sentence it was
too long to be a statement, and tune44's first session lost every one of its eleven statements."""

from __future__ import annotations

from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.dictation import dictated_parts
from incremind_daemon.pipeline.goal import goal_of, request_sentences

TALK = (
    "嗯 你好 先介绍一下 我叫周宁 在杭州一家做跨境物流的公司做后端 然后 我一般是语音输入 错字你自己猜一下 别老问我 "
    "那个 回复的话用中文 然后简短一点 先说结论 嗯 这个仓库叫 waybill 就是给客服那边查运单的服务 后端是 go 数据库用 "
    "postgres 16 缓存用 redis 然后部署那边 先用公司的 k8s 就是 rancher 那套 密码在点 env 里面 那个文件千万别提交 "
    "嗯 今天想做的是 把查询接口加个分页 每页先按 50 条"
)


def parts(text: str) -> list[str]:
    return [text[start:end] for start, end in dictated_parts(text, 0, len(text))]


def test_a_dictated_run_is_cut_where_the_speaker_links_or_turns_to_another_thing() -> None:
    said = parts(TALK)
    assert "我叫周宁 在杭州一家做跨境物流的公司做后端" in said  # after the opening, before "然后"
    assert "回复的话用中文" in said and "简短一点 先说结论" in said  # fillers and links cut, and are dropped
    assert "缓存用 redis" in said  # a new topic said after a pause, with no linking word
    assert "先用公司的 k8s 就是 rancher 那套" in " ".join(said)  # "就是" waits for what follows it
    assert all(not part.startswith(("嗯", "然后", "那个 ")) for part in said), said


def test_text_with_stops_or_in_english_is_left_as_it_is() -> None:
    typed = "回复用中文，简短一点。" * 8
    assert parts(typed) == [typed]
    english = "so basically the backend is go and the database is postgres and the cache is redis " * 2
    assert parts(english) == [english]
    assert parts("回复的话用中文 然后简短一点") == ["回复的话用中文 然后简短一点"]  # a short line is a sentence


def test_a_dictated_turn_yields_its_rules() -> None:
    found = [c.statement for c in extract_candidates(TALK, conversational=True)]
    assert any("用中文" in s for s in found), found
    assert any(s.startswith("我叫周宁") for s in found), found
    assert not any(len(s) > 120 for s in found), found


def test_the_goal_of_a_dictated_opening_is_its_ask() -> None:
    """tune44: the goal was the talk from its first word, cut at its length, and the ask was past the cut."""
    goal = goal_of(request_sentences(TALK, opening=True))
    assert "分页" in goal and "我叫周宁" not in goal, goal


def test_shorter_talk_that_opens_a_paste_is_cut_at_its_links_and_its_caption() -> None:
    """tune35: 91 characters of talk ending "…的日志：" over a pasted log read as one caption, and the schedule said
    in it ("作业提醒是每天晚上19:30推") was lost with it."""
    talk = (
        "今天的事是作业提醒 作业提醒是每天晚上19:30推 但是昨天晚上反馈群里有家长说凌晨三点半收到推送 "
        "把伢都吵醒了 磊哥一大早在群里@我 我看了下 beat 和 worker 的日志："
    )
    said = parts(talk)
    assert said[0] == "今天的事是作业提醒 作业提醒是每天晚上19:30推", said
    assert said[-1] == "我看了下 beat 和 worker 的日志：", said
    pasted = "工具放 tools/notes2post 用 Go 写 输入就是微信读书 导出笔记 复制出来的那个 txt 我贴一个例子："
    assert parts(pasted)[-1] == "复制出来的那个 txt 我贴一个例子：", parts(pasted)
    # the same length with no paste after it is a sentence
    assert parts(talk[:-1] + " 你看看") == [talk[:-1] + " 你看看"]


def test_a_topic_is_not_cut_from_the_words_that_say_from_when_nor_is_a_verb_a_topic() -> None:
    talk = (
        "嗯 表结构这次先手写 sql 建就行 以后 schema 有变化都用 PRAGMA user_version 做升级 别删库重建 "
        "然后 数据库文件放 data 目录下面 名字就叫 app.db 备份的话每天凌晨三点拷一份到 nas 上面"
    )
    said = parts(talk)
    assert "以后 schema 有变化都用 PRAGMA user_version 做升级 别删库重建" in " | ".join(said), said
    assert not any(part.endswith("以后") or part.startswith("做升级") for part in said), said
