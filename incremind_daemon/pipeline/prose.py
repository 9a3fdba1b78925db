"""Find the person's own words in a message or note: prose, without what was pasted into it.

People paste tracebacks, CI logs, code, diffs, shell sessions and other people's words
into their messages. None of that says what the person wants remembered, so the insight
step reads only the prose spans this module returns. A line is judged on its own shape
(a traceback frame, a log stamp, a diff hunk, a prompt, code punctuation) and, for the
lines of a traceback or log block, by the company it keeps: the indented lines under a
pasted header go with it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from incremind_daemon.store.charsets import CJK_CHAR

log = logging.getLogger(__name__)

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
# lines that are output, not speech: tracebacks, stack frames, log records, test runners, shells
_PASTED_LINE = re.compile(
    r"^\s*(?:"
    r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|at [\w$.<>]+\(.*\)\s*$|at [\w$./<>-]+:\d+"
    r"|[\w.]*(?:Error|Exception|Warning|Fault)(?::|\s*$)|[a-z_]\w*(?:\.\w+)*\.[A-Z][A-Za-z]+:\s"
    r"|E {2,}|E\s+\w+Error|>>>\s|\$ |PS [A-Z]:|C:\\"
    r"|npm (?:ERR|WARN)!?|yarn (?:error|warn)|pnpm (?:ERR|WARN)|error(?:\[E\d+\])?:|warning:|panic:"
    r"|\[(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL|CRITICAL|NOTICE)\]|\{\"[^\"]+\":.*\}\s*$"
    # a compiler's or linter's "file:line[:col]: error", a bare "file:line", node's own frames, XCTest, banners
    r"|[\w./~@+-]*\.\w+:\d+(?::\d+)?:?\s*(?:-\s*)?(?i:error|warning|note|fatal)\b|[\w./~-]+\.\w+:\d+(?::\d+)?\s*$"
    r"|[\w./~-]+\.\w+:\d+: in [\w<>.]+\s*$"  # pytest's frame: "tests/test_pager.py:31: in test_ack_incident"
    r"|(?:Tests|Test Suites|Snapshots|Test Files):\s+\d+ "  # a test runner's summary (Jest, Vitest)
    # kotlinc's "e: file:///…/PostingService.kt:47:32 …", Flutter's "Column Column:file:///…/page.dart:38:16"
    r"|[ew]: (?:file://)?/\S|(?:\S+\s+){0,3}\S*file:///\S+:\d+"
    # a build tool fetching what it needs: "Downloading https://services.gradle.org/…/gradle-8.10.2-bin.zip"
    r"|(?:Downloading|Downloaded|Resolving|Fetching|Collecting|Unpacking|Extracting)\s+(?:https?://|\S+\.(?:zip|jar|whl|tgz)\b)"
    r"|node:internal/|Test (?:Case|Suite) '|[@#*=]{8,}|@\s.*@\s*$|Done linting|Found \d+ violations?\b"
    r"|FAIL(?:ED)?\b|PASS(?:ED)?\b|ERROR\b|WARN(?:ING)?\b|INFO\b|DEBUG\b|TRACE\b|CRITICAL\b|✓|✗|✔|✘|×|●"
    r"|\[\d{1,2}:\d{2}|\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\d{2}:\d{2}:\d{2}[.,]?\d*\s"
    r"|@@ |diff --git|index [0-9a-f]{7}|--- a/|\+\+\+ b/|[+-](?![-+\s\d])\S|commit [0-9a-f]{7,}"
    r"|\d+ (?:passed|failed|errors?)\b|=+ .* =+$|-{5,}|={5,}|_{5,}|\^{3,}|~{3,}"
    r"|(?:def|class|fn|func|function)\s+\w+\s*[(:<{]|import\s+[\w.{*]+|from\s+[\w.]+\s+import\s"
    r"|(?:const|let|var)\s+\w+\s*=|#include|(?:SELECT|INSERT|UPDATE|CREATE|DELETE)\s+[A-Z*]|return\s.*;$"
    r"|[{}\[\]()<>;]\s*$|<[/a-zA-Z][^>]*>\s*$|[\w.-]+\s*[:=]\s*[\"'{\[]"
    r"|[A-Z][A-Z0-9_]{2,}=\S*\s*$"  # a line of a pasted .env: "PAYMENTS_ADDR=payments.internal:9443"
    r")"
)
# a shell command on a line of its own: a tool, then arguments, and none of the small words of a sentence
_COMMAND = re.compile(
    r"^\s*(?:[-*+•]\s+|\d{1,2}[.)]\s+)?`?(?:git|npm|npx|pnpm|yarn|go|make|docker|kubectl|pip|pip3|python3?|cargo|curl"
    r"|wget|ssh|cd|ls|cat|sudo|brew|apt|apt-get|uv|poetry|node|gradle|gradlew|\./gradlew|mvn|terraform|helm|psql"
    r"|redis-cli|adb|export|source|rm|cp|mv|mkdir|chmod|grep|find|tar|systemctl|journalctl)\s+[^\s\u4e00-\u9fff]+[^\u4e00-\u9fff]*$"
)
_SENTENCE_WORDS = re.compile(r"(?i)\b(?:the|a|an|to|with|and|for|is|are|we|i|it|this|that|when|if|so|but|of|on)\b")
_LIST_MARKER = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)、])\s")
_CODE_CHAR = re.compile(r"[{}\[\]();=<>$\\|`]")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{2,}")
_CJK = re.compile(r"[\u3400-\u9fff]")
_QUOTED_LINE = re.compile(r"^\s*>")
_QUOTE_MARK = re.compile(r"^\s*(?:>\s?)+")  # "> ", ">> ": the marks of a quoted line
INLINE_CODE = re.compile(r"`[^`\n]+`")  # a `code span` inside a line of prose
# words in brackets after a space, not a call's arguments: "(lib)", "(周凯，后端 user-service)" (not a list of
# names and titles: "Attendees: Marta (Head of Data), Lukas (BI)" is no sentence)
_ASIDE = re.compile(r"(?<![\w)\]])\(([a-z\u4e00-\u9fff][\w\s,.'/，、-]{0,40})\)")
PLACEHOLDER = re.compile(r"<[A-Za-z\u4e00-\u9fff][\w\u4e00-\u9fff-]{0,30}>")
# "- 21:40 告警触发", "22:15 recovered": an incident's timeline is a log, however it is worded
# …or a span of time: "- 14:02–14:04 rollout replaces 1 of 3 pods"
_TIMELINE = re.compile(r"^\s*(?:[-*]\s+)?\d{1,2}:\d{2}(?::\d{2})?(?:[AaPp][Mm])?(?:\s*[–—-]\s*\d{1,2}:\d{2})?\s")
# a conventional commit's prefix, "fix(exif):", is a name in a sentence; Chinese or a stop between sentences is prose
_COMMIT_TYPE = re.compile(r"(?<![\w.])(?:feat|fix|chore|docs|refactor|test|perf|build|ci|style|revert)\([\w./-]+\)!?:?")
_SENTENCES = re.compile(r"[\u3400-\u9fff]{2}|[?？!！。]\s*\S")
# a row of a command's table output ("payments-api-7d9  0/1   CrashLoopBackOff   6   11m"): columns lined up
_COLUMNS = re.compile(r"\S {2,}\S+ {2,}\S")
# a tool's frame around its warning, as OpenSSH's: "@@@@…" (a person's own rule line is "****" or "####", their text)
_BANNER = re.compile(r"^\s*(?:@{8,}|@\s.*\s@)\s*$")
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")


def prose_spans(text: str, *, quoted: bool = False, taken: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """Return the (start, end) spans of text that are the writer's own prose, in order.

    Fenced blocks, quoted lines (``>``), table rows and lines shaped like code,
    logs, tracebacks, diffs or shell sessions are left out, and so are the
    indented or blank-free lines that follow such a line in one block. With
    ``quoted``, a quoted line is read past its ``>`` like any other: a note that
    keeps a message someone sent ("pasted from #infra-announce — Dana: > …") is
    that message's prose. A quoted line inside one of the ``taken`` spans is read
    so too: a chat turn's team message the person takes as theirs.
    """
    fenced = [(m.start(), m.end()) for m in _FENCE.finditer(text)] if ("```" in text or "~~~" in text) else []
    spans: list[tuple[int, int]] = []
    in_paste = banner = False
    position = follows = 0
    lines = text.splitlines(keepends=True)
    timed = [_TIMELINE.match(line) is not None for line in lines]
    for index, line in enumerate(lines):
        start, end = position, position + len(line)
        position = end
        body = line.rstrip("\r\n")
        if (quoted or any(a <= start < b for a, b in taken)) and (mark := _QUOTE_MARK.match(body)) is not None:
            start, body = start + mark.end(), body[mark.end() :]
        if any(a <= start < b for a, b in fenced):
            in_paste = banner = False
            continue
        if not body.strip():
            in_paste = banner = False
            continue
        # under a banner that opens a block ("@@@@…" over "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!    @")
        # the block is the tool's, however like sentences its lines read, up to a blank line or the person's Chinese
        opens = index == 0 or not lines[index - 1].strip()
        banner = (banner or (opens and _BANNER.match(body) is not None)) and not _CJK.search(body)
        # a time opens each line of an incident's timeline and of a log; one line that opens on a time and
        # reads as sentences is one ("02:24 是 UTC 吧？日志里的时间戳都是 UTC，…"), "10:41AM INF Target …" is not
        timeline = timed[index] and (
            _LIST_MARKER.match(body) is not None
            or any(timed[max(0, index - 1) : index] + timed[index + 1 : index + 2])
            or not _SENTENCES.search(body)
        )
        pasted = (
            banner
            or timeline
            or is_pasted_line(body)
            or (in_paste and not _LIST_MARKER.match(body) and (body[:1].isspace() or not _is_sentence_like(body)))
        )
        in_paste = pasted
        if pasted:
            continue
        # a sentence hard-wrapped over two lines of a paragraph stays one span; short lines are items of their own
        if spans and follows == start and _wraps(text[spans[-1][0] : spans[-1][1]], body):
            spans[-1] = (spans[-1][0], start + len(body))
        else:
            spans.append((start, start + len(body)))
        follows = end
    return spans


# a line wrapped to a width: long, but no longer than editors and mail wrap to (a chat line of 150 characters that
# ends without a stop is a thought of its own, and so is the line after it)
_WRAPPED = re.compile(r"(?:^|\n)[^\n]{60,100}$")
_LABELLED = re.compile(r"^\s*[\w][\w ./-]{0,20}[:：]\s")  # "back: SQ 529, …", "cutover: run both …": an item
_SENTENCE_DONE = re.compile(r"[.!?。！？:：;；)）\]]\s*$")


def _wraps(before: str, line: str) -> bool:
    """Tell whether a line goes on with the sentence of the long line before it, which the writer wrapped."""
    if not _WRAPPED.search(before) or _SENTENCE_DONE.search(before):
        return False
    if CJK_CHAR.search(before[-30:]):
        return False  # Chinese typed a line per thought: "…系统是我们自己的 yocto⏎ci 上是好的 …" is two
    if _LIST_MARKER.match(line) or _LABELLED.match(line):
        return False
    first = line.lstrip()[:1]
    return first.islower() or (first.isalnum() and first.isascii())


def is_list_item(line: str) -> bool:
    """Tell whether a line is an item of a list ("- …", "2. …", "• …")."""
    return _LIST_MARKER.match(line) is not None


def is_pasted_line(line: str) -> bool:
    """Tell whether one line reads as pasted output or code rather than something a person wrote."""
    stripped = line.strip()
    if _QUOTED_LINE.match(line) or _TABLE_LINE.match(line):
        return True
    if _COLUMNS.search(stripped) and not _CJK.search(stripped):
        return True
    if _PASTED_LINE.match(line) and not _is_sentence_like(stripped, strict=True):
        return True
    if _COMMAND.match(line) and not _SENTENCE_WORDS.search(line):
        return True
    if len(line) - len(line.lstrip(" \t")) >= 4 and not _CJK.search(line) and not _LIST_MARKER.match(line):
        return True  # an indented line in Latin text that is no list item: a code or output block
    # inline code in a sentence ("发布前必须跑完 `uv run pytest` 和 `go test`") is a name in it: its backticks
    # and what is inside count as one word, not as code punctuation
    # …and so is a placeholder in a pattern ("分支一律叫 feat/<单号>-<slug>", "named dag_<domain>.py")
    # …and so is a conventional commit's prefix ("scope 用模块名，比如 feat(dedup): 或者 fix(exif):")
    spans = (
        len(INLINE_CODE.findall(stripped)) + len(PLACEHOLDER.findall(stripped)) + len(_COMMIT_TYPE.findall(stripped))
    )
    stripped = _COMMIT_TYPE.sub(" ", PLACEHOLDER.sub(" ", INLINE_CODE.sub(" ", stripped))) if spans else stripped
    stripped = _ASIDE.sub(r" \1 ", stripped)  # "`tidy_core` (lib) 用 thiserror": an aside in brackets is words
    words = len(_LATIN_WORD.findall(stripped)) + len(_CJK.findall(stripped)) / 2 + spans
    symbols = len(_CODE_CHAR.findall(stripped))
    return symbols >= 3 and symbols * 3 > words


def _is_sentence_like(line: str, *, strict: bool = False) -> bool:
    """Tell whether a line reads as a sentence: mostly words, few code symbols."""
    cjk = len(_CJK.findall(line))
    words = len(_LATIN_WORD.findall(line))
    symbols = len(_CODE_CHAR.findall(line))
    weight = words + cjk / 2
    if strict:
        return cjk >= 4 and symbols <= 2
    return weight >= 3 and symbols * 4 <= weight


_CODE = re.compile(r"[{}\[\]();=<>$\\|]")
# a name qualified by its package or type, with or without its call: "renv::install()", "Vec::new", "std::fs"
# …and a label's colon may follow it ("Stripe::WebhookJob: no automatic retries")
_QUALIFIED = re.compile(r"(?<![\w:])[A-Za-z_][\w.]*(?:::[A-Za-z_]\w*)+(?:\(\))?(?![\w(]|:[\w:])")
# words only speech has, never a shell line: a command joined by && among three of them is named, not run
_SPEECH = re.compile(r"(?<![\w./-])(?:always|never|before|after|you|me|we|please|pls|when|should|must)(?![\w-])")
_CODE_WORDS = re.compile(
    r"\b(?:def|class|import|return|const|let|var|fn|func)\s+\w+\s*[(=:{<]|=>|::|&&|\|\||\)\s*\{|^\s*[@$#>]"
)


_HEADING_MARKS = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")


def is_block_line(text: str, start: int) -> bool:
    """Return whether the sentence at start is a heading, a table row or an indented code line."""
    line_start = text.rfind("\n", 0, start) + 1
    prefix = text[line_start:start]
    # a heading opens its line with its marks; "#scf-forecast" or "PR #418" earlier in a line is a name
    if _HEADING_MARKS.match(prefix) or "|" in prefix or text.startswith("|", start):
        return True
    line_end = text.find("\n", start)
    line = text[start : len(text) if line_end < 0 else line_end]
    return line.count("|") >= 2 or (prefix.startswith(("    ", "\t")) and not prefix.strip())


def is_code(folded: str) -> bool:
    """Return whether a sentence (folded) reads as code rather than speech."""
    # a command named in backticks is a name in prose: "run `pnpm lint && pnpm typecheck` before you say done"
    folded = INLINE_CODE.sub("x", folded)
    # …and so is one typed bare among Chinese words: "提交前先跑单元测试：cmake -B build && ctest，全绿再 commit"
    # …or among English words that only speech has: "always run pnpm typecheck && pnpm test before you tell me"
    prose = len(_CJK.findall(folded)) >= 6 or len(_SPEECH.findall(folded)) >= 3
    # …and so is a qualified name among words: "don't use install.packages(), renv::install() and then renv::snapshot()"
    folded = _QUALIFIED.sub("x", folded) if prose or len(_LATIN_WORD.findall(folded)) >= 6 else folded
    # …and so is an attribute named at the head of Chinese words: "@Observable 要 iOS 17 才有，我们最低是 16，先别用"
    if any(not (prose and found.group().strip() in ("&&", "||", "@")) for found in _CODE_WORDS.finditer(folded)):
        return True
    return len(_CODE.findall(PLACEHOLDER.sub("x", folded))) > max(2, len(folded) // 12)


# a line of Chinese that ends on a word, before a line of prose: "…系统是我们自己的 yocto⏎ci 上是好的 …"
_LINE_END = re.compile(r"^([^\n]*[\u3400-\u9fff](?:[^\n]*[\w\u3400-\u9fff])?)[ \t]*\n(?=[ \t]*[\w\u3400-\u9fff])", re.M)


def stop_chinese_lines(text: str) -> str:
    """End with a stop each line of Chinese that ends on a word before another line of prose: typed a line per
    thought with no stops ("下午接台架 明天搞 can" under "push 永远我自己来"), each line is a sentence."""
    return _LINE_END.sub(r"\1。\n", text)
