"""Read an agent's report of its work: what it names, the file it changed, the ask a bare report answers.

A report may say less than what was done: a bare "改好了：" answers the person's ask, a report the
agent's tools backed names the file they changed, and a reply that is only a diff says what the
diff added.
"""

from __future__ import annotations

import logging
import re

from incremind_daemon.pipeline.cues import (
    ACK,
    ASK_CAPTION,
    ASK_CUES,
    CHECK_CHARS,
    CHECK_WORDS,
    fold,
    may_hold_more_report_cue,
    may_hold_report_cue,
    may_hold_state_cue,
)
from incremind_daemon.pipeline.lasting import REQUEST
from incremind_daemon.pipeline.markdown import (
    CJK_RUN,
    LATIN_WORD,
    as_item,
    clean_sentence,
    clip,
    join_sentences,
    split_blocks,
    text_weight,
)
from incremind_daemon.pipeline.organize import split_sentences
from incremind_daemon.pipeline.prose import INLINE_CODE
from incremind_daemon.pipeline.state_cues import (
    GONE,
    is_ack_or_command,
    may_hold_later_done_cue,
    proposes,
    says_done_only,
)
from incremind_daemon.pipeline.statement import strip_lead_in

log = logging.getLogger(__name__)

ITEM_CHARS = 160
_FENCE_BODY = re.compile(r"^[ \t]*(`{3,}|~{3,})([^\n]*)\n(.*?)^[ \t]*\1", re.M | re.S)
# a fence right under a caption: blank lines, then the fence and its body
_FENCE_UNDER = re.compile(r"[ \t]*\n(?:[ \t]*\n)*[ \t]*(`{3,}|~{3,})[^\n]*\n(.*?)^[ \t]*\1", re.M | re.S)
# a table right under a caption: its header, the rule under it, and the first row, which is shown
_TABLE_UNDER = re.compile(r"[ \t]*\n(?:[ \t]*\n)*[ \t]*\|[^\n]*\|[ \t]*\n[ \t]*\|[ :|-]+\|[ \t]*\n[ \t]*(\|[^\n]*\|)")
_WORD = re.compile(r"\w+")
# where a sentence typed in lower case begins: "not (a), we don't mock the db. go with ubuntu-latest"
CHAT_BREAK = re.compile(r"(?<=[a-z0-9)][.!?])\s+(?=[a-z])(?<!\be\.g\. )(?<!\bi\.e\. )")
_NOT_TELLING = ("import ", "from ", "#", "//", "/*", "*", "@testable", "package ", "use ", "---", "+++", "@@")


def opens_bare_done(text: str, first_block: str) -> bool:
    """Tell whether a turn opens with a line that only says it is done: "Done. Here's what I changed and why:"."""
    line, _, rest = text.lstrip().partition("\n")
    if not first_block or not says_done_only(line) or line.startswith(first_block[:20]):
        return False  # split_blocks drops such a caption line; one it kept as a block is read as a report itself
    return "```" not in rest[: max(0, rest.find(first_block[:20]))]  # no code shown in between


def goes_on_after_bare_done(sentences: list[str]) -> bool:
    """Tell whether a paragraph's bare report ("Done.", "改好了。") goes on to say what was done in its next sentence.

    Not where it says a report follows ("Done. Here's what I changed and why:"), captions a list or code, or goes
    on to propose or ask ("改好了。顺便建议：以后可以把所有图片都放在 static/images 下面").
    """
    if len(sentences) < 2 or not says_done_only(sentences[0]) or says_done_only(" ".join(sentences[:2])):
        return False
    after = fold(sentences[1]).strip()
    return text_weight(after) >= 3 and not after.endswith((":", "：", "?", "？")) and not proposes(after)


def ask_of(text: str) -> str:
    """Return what a person's turn asks in their words: its sentences, acknowledgements and questions left out.

    Of a turn that asks and says more ("好，跑一下测试吧。对了，以后 commit message 都用英文"), the
    sentences that ask: a rule said on the way is not what a report answers.
    """
    kept: list[str] = []
    for block in split_blocks(text[:2000]):
        # sentences typed in lower case part too: "tonight: the booking page. … want a grid of buttons instead"
        for typed in (part for sentence in split_sentences(block.text) for part in CHAT_BREAK.split(sentence.text)):
            cleaned = strip_lead_in(clean_sentence(typed))  # "好，跑一下测试吧": the ask, not the "好"
            if text_weight(cleaned) >= 2 and not cleaned.endswith(("?", "？")) and not is_ack_or_command(cleaned):
                kept.append(cleaned)
    asking = [
        s for s in kept if REQUEST.search(folded := fold(s)) or ASK_CUES.match(folded) or ASK_CAPTION.match(folded)
    ]
    kept = asking or kept
    return clip(join_sentences(kept, ITEM_CHARS), ITEM_CHARS // 2) if kept else ""


def with_file(item: str, edited: tuple[str, ...]) -> str:
    """Name the file a done report is about when the report does not: "Moved the timestamp … (OrderSummary.tsx)"."""
    if not edited or len(edited) > 2 or any((name.rsplit(".", 1)[0] or name) in item for name in edited):
        return item
    if is_checks(fold(item)):
        return item  # "15 个测试全部通过" is about the suite, not the file
    return f"{item} ({', '.join(edited)})"


_TABLE_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|[\s:|-]+\|\s*$")
_PATH_CELL = re.compile(r"^`?[\w.@~-]*[./][\w./{},*@~-]*`?$")


def tools_told(text: str, prose: list[str], edited: tuple[str, ...], *, silent: bool) -> list[str]:
    """Say what a turn's tools changed: the rows of its table of changed files, else, when its words (``prose``, its
    paragraphs) report nothing done (``silent``), the files or the sentence that names them (``_edit_report``)."""
    if rows := _table_reports(text):
        return rows
    return [_edit_report(prose, edited)] if silent else []


def _table_reports(text: str) -> list[str]:
    """Return the rows of a table of changed files as reports: "| `src/main.ts` | pino `redact` … |" → "`src/main.ts`:
    pino `redact` …". A row whose first cell names no file (a metric, a step) reports nothing."""
    found: list[str] = []
    lines = text.split("\n")
    for at, line in enumerate(lines[1:], start=1):
        if not (_TABLE_RULE.match(line) and _TABLE_ROW.match(lines[at - 1])):
            continue
        for row in lines[at + 1 :]:
            if (cells := _TABLE_ROW.match(row)) is None:
                break
            first, *rest = (cell.strip() for cell in cells.group(1).split("|"))
            if rest and _PATH_CELL.match(first) and text_weight(rest[0]) >= 2:
                found.append(f"{first}: {rest[0]}")
    return found


def _edit_report(prose: list[str], edited: tuple[str, ...]) -> str:
    """Say what a turn's tools changed when its words report nothing done.

    That is its sentence that names a changed file ("时间显示方面，我加一个 `src/time.ts`：…"), else its first
    sentence with the files ("Plan is one in-place change on the node group's `scaling_config` (root.hcl)"),
    else the files alone. A question says nothing done.
    """
    said = [sentence.text for paragraph in prose for sentence in split_sentences(paragraph)]
    said = [sentence for sentence in said if text_weight(sentence) >= 4 and not sentence.rstrip().endswith(("?", "？"))]
    names = [name for name in edited if len(name.rsplit(".", 1)[0]) >= 3]
    if naming := next((sentence for sentence in said if any(name in sentence for name in names)), None):
        return as_item(naming)
    if said and not proposes(first := fold(said[0])) and not _acknowledges(first):
        return with_file(as_item(said[0]), edited)
    return "Edited " + ", ".join(edited)


def _acknowledges(folded: str) -> bool:
    """Tell whether a sentence opens on an acknowledgement: "明白，按 1.22 的写法来", "好，以后术语直接用英文"."""
    head = ACK.match(folded)
    return (
        head is not None
        and re.search(r"[^\W\d_]", head.group()) is not None
        and re.search(r"[^\w\s]", head.group()) is not None
    )


def shown_diff(text: str, prose: list[str], reported: bool) -> str | None:
    """Say what a turn's diff changed when its words do not.

    That is a reply that is only the diff, the diff and how the checks went ("测试 14/14 通过"), or the diff and
    words that neither report (``reported``: the turn's words gave a done item) nor ask ("要不要这样改？").
    """
    said = [paragraph for paragraph in prose if not is_checks(fold(paragraph))]
    # a question is asked in words: the `?` of Rust's "`?` + context" or of the diff's code asks nothing
    asked = any(mark in INLINE_CODE.sub(" ", paragraph) for paragraph in prose for mark in ("?", "？"))
    quiet = not (asked or reported)
    if ("\n+++ " in text or "```diff" in text) and (sum(map(text_weight, said)) < 3 or quiet):
        return diff_report(text)
    return None


def diff_report(text: str) -> str | None:
    """Say what a diff shows changed: "Changed config.go: defaultGPXDir = "~/Dropbox/hikes"."""
    for _, info, body in _FENCE_BODY.findall(text):
        lines = body.splitlines()
        target = next((line[4:].strip() for line in lines if line.startswith("+++ ")), "")
        added = [line[1:].strip() for line in lines if line.startswith("+") and not line.startswith("+++")]
        # a ```diff fence without file headers ("-static X: LazyLock…", "+static X: Lazy…") changed it too
        if (target or info.strip().casefold() in ("diff", "patch")) and any(added):
            name = target.removeprefix("b/").rsplit("/", 1)[-1]
            # the added line that brings the most words the removed ones lack: the change, not its set-up
            removed = set(_WORD.findall(" ".join(line[1:] for line in lines if line.startswith("-"))))
            telling = max((line for line in added if line), key=lambda line: len(set(_WORD.findall(line)) - removed))
            shown = clip(telling, ITEM_CHARS // 2).rstrip(";")  # a statement's ";" is no separator of the list
            return f"Changed {name}: {shown}" if name else f"Changed: {shown}"
    return None


def is_checks(folded: str) -> bool:
    """Tell whether a report names checks alone: "tsc is clean and the table tests pass", "测试全部通过"."""
    words = LATIN_WORD.findall(folded)
    return all(w in CHECK_WORDS or w.isdigit() for w in words) and set("".join(CJK_RUN.findall(folded))) <= CHECK_CHARS


def shown_code(caption: str, text: str) -> str:
    """Return what a caption stands over, as shown: a diff's first added line, code's first, a table's first row.

    "Updated the two places that still said 20:" over a diff says what it changed only in the diff,
    "我按同样的写法加了一个：" over code only in the code, and "en 翻译如下：" over a table only in the table.
    """
    tail = caption.rstrip()[-24:]  # a block's lines are joined by spaces; its last characters are on one line
    at = text.find(tail)
    if not tail or at < 0:
        return ""
    if table := _TABLE_UNDER.match(text, at + len(tail)):
        cells = [cell.strip() for cell in table.group(1).strip().strip("|").split("|")]
        return clip(" / ".join(cell for cell in cells if cell), ITEM_CHARS // 2)
    fence = _FENCE_UNDER.match(text, at + len(tail))
    if fence is None:
        return ""
    lines = [line.strip() for line in fence.group(2).splitlines() if line.strip()]
    added = [line[1:].strip() for line in lines if line.startswith("+") and not line.startswith("+++")]
    if any(added) and any(line.startswith("-") for line in lines):
        return f"`{clip(next(line for line in added if line), ITEM_CHARS // 2)}`"
    telling = [line for line in lines if not line.startswith(_NOT_TELLING) and text_weight(line) >= 1]
    return f"`{clip(telling[0], ITEM_CHARS // 2)}`" if telling else ""


def is_result(folded: str) -> bool:
    """Tell whether a report says only how checks went: "编译通过了", "tests pass", "warning 没了"."""
    return is_checks(folded) or (text_weight(folded) <= 4 and GONE.search(folded) is not None)


def with_code_shown(shown: str, clause: str, block: str, code: str) -> str:
    """Add the code a block ends over to the report of its last clause: "…加了一个: `@FlagValue(…)`"."""
    ends = block.rstrip(" :：").endswith(clause.rstrip(" :：")[-16:])
    return f"{shown}: {code}" if code and ends and code.strip("`").casefold() not in shown.casefold() else shown


# what a piece of code the agent's tools changed now does, said with it as the subject: "`components/HeroVideo.tsx`
# renders the poster with `next/image`", "- `--legacy-metrics` adds the MAPE column back" (not "`x` is …")
CODE_DOES = re.compile(
    r"^[-*•]?\s*`[^`\n]{2,80}`\s+(?:now\s+)?(?:(?:also|only|always|still)\s+)?"
    r"(?!is\b|was\b|has\b|does\b|needs\b|seems\b)[a-z]{3,}s\b"
    # …or a file's name, then what it now holds: "`checkin_live.ex` + template: one search box …"
    r"|^[-*•]?\s*`[\w./{},@~-]+\.\w{1,8}/?`(?:\s*\+\s*[\w ]{1,20})?\s*(?:[:：]|\s[—–])\s*\S"
)


def may_hold(text: str) -> bool:
    """Tell quickly whether text may hold any cue of a session's state, done reports and later steps included."""
    if may_hold_state_cue(text) or may_hold_report_cue(text) or may_hold_more_report_cue(text):
        return True
    if may_hold_later_done_cue(text) or CODE_DOES.match(text):
        return True
    # "改咗做 config.settings.local" holds 改了 as the cues read it, once folded
    return not text.isascii() and (folded := fold(text)) != text and may_hold(folded)
