"""Read what a person pasted into an ask: the line of a log or a traceback that names the error.

An opening such as "ock ack broken:" or "帮我看下这个测试为啥挂了" points at the paste under it, and
the paste's error line is what says which command, test or package broke; the goal keeps that
line, shortened, beside the sentence that points at it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from incremind_daemon.pipeline.markdown import clip

log = logging.getLogger(__name__)

ERROR_CHARS = 90
# "Error: 401 Unauthorized", "TypeError: …", "! Package fontspec Error:", "XCTAssertEqual failed", "编译报错"
_ERROR_WORD = re.compile(
    r"(?<![a-z])(?:error|exception|fail(?:ed|ure|s)?|fatal|denied|unauthorized|refused|cannot|could not"
    r"|couldn't|not found|timed? ?out|panic(?:ked)?)(?![a-z])|错误|报错|失败|异常",
    re.I,
)
# "OSError: …", "TypeError: …", "sqlite3.OperationalError: …"
_RAISED = re.compile(r"(?<![\w.])(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\b:")
# an error named by its code: "(MEMORY_LIMIT_EXCEEDED)", "(SQLITE_BUSY)", "error[E0308]", "error TS2322"
_ERROR_CODE = re.compile(
    r"\b[A-Z][A-Z0-9]*_(?:[A-Z0-9]+_)*(?:BUSY|LOCKED|EXCEEDED|DENIED|TIMEOUT|INVALID|FAILED|ERROR|REFUSED|NOTFOUND"
    r"|NOT_FOUND|OOM)\b|\berror\[?[A-Z]{1,3}\d{3,5}\]?"
)
# code the person shows ("```swift", "```ts") names error types without any error having happened
_CODE_FENCE = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[ \t]*(?!(?:text|txt|log|logs|console|output|shell|sh|bash|zsh)?[ \t]*$)"
    r"[^\n]*\n.*?^[ \t]*\1[ \t]*$",
    re.M | re.S,
)
# where a compiler or a test runner says the error is, before what it says: "/Users/…/Tests.swift:42: "
_LOCATION = re.compile(r"^(?:[\w.~-]*/)*[\w.-]+:\d+(?::\d+)?(?::|\s+-(?=\s))\s*")  # "BookingCTA.tsx:18:7 - "
_LEADING_MARKS = re.compile(r"^[^\w\[({'\"`<]+")  # ": ▸ ❌  error: …" after an Xcode log's time
_TIMESTAMP = re.compile(r"^\[?\d{4}-\d\d-\d\d[T ][\d:.]+Z?\]?\s*")
# what a logger puts before the message: "[2026-09-09, 04:23:07 CST] {subprocess.py:93} INFO - ", "2026/03/02 02:14:39 "
_LOG_PREFIX = re.compile(
    r"^(?:\[[^\]\n]{4,40}\]\s*|\{[\w.]+:\d+\}\s*|\d{4}[-/]\d\d[-/]\d\d[ T,]+[\d:.]+(?: [A-Z]{2,4}\b)?\s*"
    r"|(?:INFO|DEBUG|WARN(?:ING)?)\b\s*[-:]?\s*|\d\d:\d\d:\d\d\s+)+"
)
_TAIL_CHARS = 8
_CHINESE_WORDS = re.compile(r"[\u4e00-\u9fff]{4}")


def pasted_error(raw: str, prose: str) -> tuple[int, str]:
    """Return where the first pasted line of raw that names an error starts, and that line shortened.

    prose: raw with what was pasted blanked out, so a line of it is the person's own; (-1, "") when none.
    """
    own = {line.strip() for line in prose.splitlines()}
    position, first = 0, -1
    found: list[str] = []  # the error lines of the first paste that names one
    shown = _CODE_FENCE.sub(lambda code: "\n" * code.group().count("\n"), raw) if "```" in raw or "~~~" in raw else raw
    for line, kept in zip(raw.splitlines(keepends=True), shown.splitlines(keepends=True), strict=False):
        stripped = kept.strip()
        if first >= 0 and stripped in own and stripped:
            break  # the person's own words again: the paste ended
        telling = stripped and stripped not in own and not stripped.startswith("{")  # a JSON log line is all fields
        head = stripped[:400]
        raised = _RAISED.search(head) or _ERROR_CODE.search(head)
        # a quoted chat message says "失败" in passing ("> 还有 dw_hourly 失败了直接打我电话"); a log line is no message
        chat = stripped.startswith(">") and _CHINESE_WORDS.search(head) is not None
        if telling and (raised or (_ERROR_WORD.search(head) and not chat)):
            found.append(_LOCATION.sub("", _TIMESTAMP.sub("", stripped)))
            first = position if first < 0 else first
        position += len(line)
    if not found:
        return -1, ""
    # the line that names the error by its code or type says more than a runner's "3 of 41 ERROR creating …"
    # before it ("… (MEMORY_LIMIT_EXCEEDED)", "… database is locked (5) (SQLITE_BUSY)")
    named = [message for message in found if _ERROR_CODE.search(message) or _RAISED.search(message)]
    message = _LEADING_MARKS.sub("", _LOG_PREFIX.sub("", (named or found)[0]))
    code = _ERROR_CODE.search(message)
    if code and len(message) > ERROR_CHARS and code.end() > ERROR_CHARS - 1:
        # "Code: 241. DB::Exception: Memory limit (for query) exceeded… MEMORY_LIMIT_EXCEEDED"
        return first, f"{clip(message, ERROR_CHARS - len(code.group()) - 3)} {code.group()}"
    return first, clip(message, ERROR_CHARS)


def sentences_before(sentences: Sequence[str], head: str) -> int:
    """Count the sentences, in order, whose last words occur in head: those said before a paste."""
    spaced = " ".join(head.split())
    count = 0
    for sentence in sentences:
        tail = " ".join(sentence.split()).rstrip(".,:;!?。，：；！？ ")[-_TAIL_CHARS:]
        if not tail or tail not in spaced:
            break
        count += 1
    return count
