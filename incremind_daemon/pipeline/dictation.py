"""Cut a dictated chat turn into the things it says, where speech to text left no stops.

People talk to agents through voice input, and a minute of talk arrives as one line with spaces for
pauses and no punctuation: "嗯 你好 先说一下 我是孟凡 … 然后 我平时很多时候是语音输入的 … 那个 回复的话用中文
然后简短一点 别给我列一大堆 先说结论 嗯 这个项目叫 clausewise …". Read as one sentence it is too long to be a
statement, and nothing in it is proposed. The speaker marks where one thing ends with fillers and linking
words said after a pause ("然后", "嗯", a lone "那个", "第二个"), and a new thing often opens on what it is
about ("嵌入模型用 BGE M3", "切块的话先按 500 字一块"). Patterns run on the raw text: the offsets are kept.
"""

from __future__ import annotations

import re

from incremind_daemon.pipeline.organize import strip_span
from incremind_daemon.store.charsets import CJK_CHAR

# a run this long with this few stops is talk, not a sentence
_DICTATED_CHARS = 100
# …and so is a shorter one that ends by opening a paste (tune35's 91 characters "今天的事是作业提醒 作业提醒是每天晚上
# 19:30推 但是昨天晚上… 我看了下 beat 和 worker 的日志："), cut at its links and its caption only: cut at its
# topics as well, typed runs of 60 to 100 characters lost as many statements as they gave (tune35, tune42)
_BEFORE_PASTE_CHARS = 60
_CHARS_PER_STOP = 60
_STOPS = re.compile(r"[，。,.!?；;！？\n]")
# …and a part this long still holds more than one thing, said without a linking word
_LONG_PART = 48
# what a speaker says after a pause to go on to another thing: fillers ("嗯", a lone "那个") and linking
# words ("然后", "还有就是", "第二个", "一个是"); the next part begins after it
_LINK = re.compile(
    r"(?<!\S)(?:嗯+|呃+|额+|那个(?=\s)|这个(?=\s)|然后(?:呢|的话)?|还有就是|还有|另外|对了|再就是|再有|其次|最后|而且"
    r"|第[一二三四五六七八九十\d]{1,2}个?(?:事|是|就是)?|一个是|另一个是?|但是|不过|所以|停"
    # …and the opening of the talk: "早 先说下背景哈 我叫…", "你好 先介绍一下"
    r"|(?:先|我先)?(?:说|讲|介绍)(?:一)?下(?:背景|自己|情况)?[哈啊呀吧]?|你好)(?:\s+|(?=\S))"
)
# what a new thing opens on after a pause: its topic, then how it is set ("嵌入模型用 BGE M3", "key 在点 env 里面",
# "切块的话先按 500 字一块", "app 目录是 flutter"); not a clause going on with the one before ("就是给法务…", "也别…")
# (…and a verb opens no topic: "PRAGMA user_version 做升级 别删库重建")
_GOES_ON = "就也还都又才再不没别但可而却且要会能让把被给跟和"
_TOPIC = re.compile(
    rf"(?<=\s)(?![{_GOES_ON}])"
    rf"(?:(?P<lead>[A-Za-z][\w.-]* )?(?P<head>(?![{_GOES_ON}做加跑])[\u4e00-\u9fff]{{2,6}})"
    r"|[A-Za-z][\w.-]*(?: [A-Za-z][\w.-]*)?)[ \t]?"
    r"(?:的话|这边|那边|这块|方面)?[ \t]?(?:现在|以后|目前|默认)?(?:先|就|也|都|要|得|必须|千万|一律|统一|还是)?"
    r"(?:用|是|叫|在|放|走|改成|换成|改用|别|不要|按)"
)
# …unless the words before it wait for it: "先用千问 就是 qwen plus 走 …", "换本地模型 先用 Qwen2.5-14B-Instruct …",
# "…建就行 以后 schema 有变化都用 …" (from when on is of what follows)
_OPEN_END = re.compile(r"(?:就是|也就是|是|用|叫|在|把|给|的|改成|换成|和|跟|以后|今后|每次|从现在起)\s*$")
# a Latin word before the topic is its own only after a clause's end ("…monorepo 里 app 目录是 flutter"), not after
# a word it goes with ("FastAPI 加 Celery 回答我用中文", "后端是 fast API 向量库…", "那个 app 前后端…")
_BOUND_BEFORE = re.compile(r"(?:[A-Za-z][\w.-]*|加|和|跟|与|同|用|是|个|的|叫|在|那个|这个)\s+$")
# a pause between two Chinese words, not the space around a Latin one
_PAUSE = re.compile(r"[\u4e00-\u9fff]\s+(?=[\u4e00-\u9fff])")


def dictated_parts(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Return the parts of ``text[start:end]`` a dictated run says, in order; the span itself when it is no such run."""
    run = text[start:end]
    before_paste = run.rstrip().endswith((":", "："))
    if len(run) < (_BEFORE_PASTE_CHARS if before_paste else _DICTATED_CHARS):
        return [(start, end)]
    if len(_STOPS.findall(run)) > len(run) / _CHARS_PER_STOP:
        return [(start, end)]
    if len(CJK_CHAR.findall(run)) < len(run) / 3:
        return [(start, end)]  # English said without stops reads on with its own cues
    parts: list[tuple[int, int]] = []
    begin = start
    for link in _LINK.finditer(text, start, end):
        parts.append((begin, link.start()))
        begin = link.end()
    parts.append((begin, end))
    out: list[tuple[int, int]] = []
    for first, last in parts:
        talk = last - first > _LONG_PART and len(run) >= _DICTATED_CHARS
        out.extend(_by_topic(text, first, last) if talk else [(first, last)])
    if out and (caption := _caption_start(text, *out[-1])) is not None:
        out[-1:] = [(out[-1][0], caption), (caption, out[-1][1])]
    return [(first, last) for first, last in (strip_span(text, a, b) for a, b in out) if last > first]


def _caption_start(text: str, start: int, end: int) -> int | None:
    """Return where the talk's closing caption begins ("…复制出来的那个 txt 我贴一个例子：", "…我周日手动补过了
    我看了下 beat 和 worker 的日志："): at its last pause between two Chinese words, before a colon that opens a paste.
    What was said before it is read on its own; the caption alone reads as one and is dropped."""
    if not text[start:end].rstrip().endswith((":", "：")):
        return None
    pauses = [m.start() + 1 for m in _PAUSE.finditer(text, start, end)]
    at = pauses[-1] if pauses else None
    return at if at is not None and len(text[start:at].strip()) >= 8 else None


def _by_topic(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Cut a long part where a new topic opens after a pause, each piece long enough to say something."""
    parts: list[tuple[int, int]] = []
    begin = start
    for topic in _TOPIC.finditer(text, start, end):
        at = (
            topic.start("head")
            if topic.group("lead") and _BOUND_BEFORE.search(text, begin, topic.start())
            else topic.start()
        )
        before = text[begin:at]
        if len(before.strip()) >= 8 and len(text[at:end].strip()) >= 6 and not _OPEN_END.search(before):
            parts.append((begin, at))
            begin = at
    parts.append((begin, end))
    return parts
