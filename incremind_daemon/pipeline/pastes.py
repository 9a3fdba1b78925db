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
# code the person shows ("```swift", "```ts") names error types without any error having happened
_CODE_FENCE = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[ \t]*(?!(?:text|txt|log|logs|console|output|shell|sh|bash|zsh)?[ \t]*$)"
    r"[^\n]*\n.*?^[ \t]*\1[ \t]*$",
    re.M | re.S,
)
# where a compiler or a test runner says the error is, before what it says: "/Users/…/Tests.swift:42: "
_LOCATION = re.compile(r"^(?:[\w.~-]*/)*[\w.-]+:\d+(?::\d+)?:\s*")
_TIMESTAMP = re.compile(r"^\[?\d{4}-\d\d-\d\d[T ][\d:.]+Z?\]?\s*")
_TAIL_CHARS = 8


def pasted_error(raw: str, prose: str) -> tuple[int, str]:
    """Return where the first pasted line of raw that names an error starts, and that line shortened.

    prose: raw with what was pasted blanked out, so a line of it is the person's own; (-1, "") when none.
    """
    own = {line.strip() for line in prose.splitlines()}
    position = 0
    shown = _CODE_FENCE.sub(lambda code: "\n" * code.group().count("\n"), raw) if "```" in raw or "~~~" in raw else raw
    for line, kept in zip(raw.splitlines(keepends=True), shown.splitlines(keepends=True), strict=False):
        stripped = kept.strip()
        telling = stripped and stripped not in own and not stripped.startswith("{")  # a JSON log line is all fields
        if telling and (_ERROR_WORD.search(stripped[:400]) or _RAISED.search(stripped[:400])):
            message = _LOCATION.sub("", _TIMESTAMP.sub("", stripped))
            return position, clip(message, ERROR_CHARS)
        position += len(line)
    return -1, ""


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
