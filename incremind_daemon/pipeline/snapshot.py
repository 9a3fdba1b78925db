"""Condense an agent session into where it stands: goal, done, decisions, next steps, files.

Deterministic and local: each item is a sentence or clause quoted from the conversation and
picked by cue phrases in English and Chinese. When a category has more candidates than slots,
later turns win, since the state *now* matters most; only the goal keeps the first request.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from incremind_daemon.pipeline.cues import (
    ACK,
    DECISION,
    DECISION_CUES,
    DONE,
    DONE_CUES,
    NEXT,
    NEXT_CUES,
    NOT_DONE_CUES,
    NOT_ITEM_CUES,
    OFFER_CUES,
    OPENING,
    POLITE,
    REFINE,
    SECTION_CUES,
    SLASH_COMMAND,
    WEAK_NEXT_CUES,
    fold,
    may_hold_cue,
)
from incremind_daemon.pipeline.mentions import MentionedFiles
from incremind_daemon.pipeline.organize import split_sentences

log = logging.getLogger(__name__)

INDEX_LINE_CHARS = 80
GOAL_CHARS = 200
ITEM_CHARS = 160
MAX_ITEMS = 6
_TURN_CHARS = 20_000


@dataclass(frozen=True, slots=True)
class Turn:
    role: str  # "user" | "assistant" | "tool"
    text: str


@dataclass(frozen=True, slots=True)
class SessionSnapshot:
    index_line: str  # the task in <= 80 characters, one line
    goal: str
    done: tuple[str, ...]
    decisions: tuple[str, ...]
    next_steps: tuple[str, ...]
    files: tuple[str, ...]  # most recent first

    def render(self) -> str:
        lists = ("; ".join(self.done), "; ".join(self.decisions), "; ".join(self.next_steps), ", ".join(self.files))
        parts = zip(("Goal", "Done", "Decisions", "Next", "Files"), (self.goal, *lists), strict=True)
        return "\n".join(f"{label}: {value}" for label, value in parts if value)


_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+(.*)")
_BOLD_LINE = re.compile(r"[ \t]*(?:\*\*|__)([^*_]{1,60})(?:\*\*|__)[ \t]*[:：]?[ \t]*")
_ITEM = re.compile(r"([ \t]*)(?:[-*+•]|\d{1,3}[.)、])[ \t]+(?:\[([ xX])\][ \t]+)?(.*)")
_RULE = re.compile(r"[ \t]*(?:(?:[-*_][ \t]*){3,}|\|.*|[=-]+)[ \t]*")
_INNER_END = re.compile(r"[.!?](?:\s|$)|[。！？…\n]")
_CLAUSE = re.compile(r"(?<=\S);\s+|；")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*\)")
_EMPHASIS = re.compile(r"\*\*|~~")  # not "__": it belongs to __init__.py
_LEAD_NOISE = re.compile(r"^[\s#>*•·\-+–—|=]+|^\[[ xX]\]\s+|^\d{1,3}[.)、]\s+")
_CJK_CHARS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_WIDE = re.compile(f"[{_CJK_CHARS}\u3000-\u303f\uff00-\uffef]")
_LATIN_WORD = re.compile(rf"[^\W_{_CJK_CHARS}]+")
_CJK_RUN = re.compile(f"[{_CJK_CHARS}]+")
_CLAUSE_CUT = re.compile(r"[,，;；:：、]|\s[—–-]\s")
_TRAILING = " ,;:、，；：—–-([{（【「"


def snapshot_session(turns: Sequence[Turn]) -> SessionSnapshot:
    """Condense a session's cleaned turns, oldest first, into its state now."""
    texts = [_without_reminders(t.text) if t.role != "tool" else t.text for t in turns]
    asks = [i for i, turn in enumerate(turns) if turn.role == "user" and not _is_ack_or_command(texts[i])]
    goal_at, request = next(((i, r) for i in asks if (r := _request_sentences(texts[i]))), (-1, []))
    later = (i for i in reversed(asks) if i > goal_at and REFINE.match(fold(_strip_prefix(POLITE, texts[i]))))
    refinement = next((r for i in later if (r := _request_sentences(texts[i]))), [])
    if not request:  # a session no person opened (an /init command): the agent's first words
        spoken = (_request_sentences(texts[i], opening=True) for i, t in enumerate(turns) if t.role == "assistant")
        request = next((sentences for sentences in spoken if sentences), [])
    found: dict[str, list[tuple[str, str, frozenset[str]]]] = {DONE: [], DECISION: [], NEXT: []}
    asked = set(asks)
    files = MentionedFiles()
    later_reply = False
    # newest first, so a long session stops reading prose once every slot holds something newer
    for index in range(len(turns) - 1, -1, -1):
        role, text = turns[index].role, texts[index]
        if role == "tool":
            if message := files.see_marker(text, index):
                _offer(found[DONE], _clip(f"Committed: {message}", ITEM_CHARS))
            continue
        round_end = role == "assistant" and not later_reply
        later_reply = role == "assistant" or (later_reply and role != "user")
        if role not in ("user", "assistant") or (role == "user" and index not in asked):
            continue
        if files.has_enough() and all(len(kept) >= MAX_ITEMS for kept in found.values()):
            continue
        for kind, item in reversed(list(_items(text, role, round_end, files, index, index == goal_at))):
            _offer(found[kind], item)
    goal = _goal(request, refinement if goal_at >= 0 else [])
    newest = {kind: tuple(item for item, _, _ in reversed(kept)) for kind, kept in found.items()}
    return SessionSnapshot(_index_line(request), goal, newest[DONE], newest[DECISION], newest[NEXT], files.recent())


def _items(
    text: str, role: str, round_end: bool, files: MentionedFiles, at: int, goal: bool
) -> Iterator[tuple[str, str]]:
    """Yield (category, item) for the cue sentences of one turn, in order; record the files it names."""
    if len(text) > _TURN_CHARS:  # a pasted log: its head and tail say what matters, in bounded time
        text = f"{text[: _TURN_CHARS // 2]}\n\n{text[-_TURN_CHARS // 2 :]}"
    for block in _blocks(text):
        files.see_prose(block.text, at)
        # the opening request is the goal, not a source of items
        if goal or (block.hint is None and not may_hold_cue(block.text)):
            continue
        # most blocks are one sentence, and splitting costs more than all the rest
        single = _INNER_END.search(block.text.rstrip(".!?。！？… ")) is None
        for sentence in [block.text] if single else [s.text for s in split_sentences(block.text)]:
            for clause in _CLAUSE.split(sentence):
                if block.hint is None and clause != block.text and not may_hold_cue(clause):
                    continue
                item = _as_item(clause)
                if kind := _classify(item, role, block.hint, round_end):
                    yield kind, _clip(item, ITEM_CHARS)


def _without_reminders(text: str) -> str:
    # the session readers drop harness blocks already; a stray one must still not reach a summary
    head, *rest = text.split("<system-reminder")
    return head + "".join(part.partition("</system-reminder>")[2] for part in rest)


def _is_ack_or_command(text: str) -> bool:
    stripped = text.strip()
    if not stripped or SLASH_COMMAND.match(stripped):
        return True
    return len(stripped) <= 60 and ACK.fullmatch(fold(stripped)) is not None


@dataclass(frozen=True, slots=True)
class _Block:
    text: str  # one paragraph or list item, its lines joined
    hint: str | None  # the category its section caption or checkbox implies
    item: bool


def _blocks(text: str) -> Iterator[_Block]:
    """Yield the paragraphs and list items of Markdown-ish text, leaving out code fences."""
    lines = text.split("\n")
    block: list[str] = []
    hint: str | None = None
    section: str | None = None
    item = nested = False
    indent = 0
    fence = ""
    for number, line in enumerate(lines):
        if fence:
            fence = "" if line.strip().startswith(fence) else fence
            continue
        label = None
        plain = line[:1].isalpha() or not line.strip()  # prose and blank lines need no Markdown tests
        if not plain and (opened := _FENCE.match(line)):
            fence = opened.group(1)
        elif not plain and (caption := _HEADING.fullmatch(line) or _BOLD_LINE.fullmatch(line)):
            label = caption.group(1)
        elif not plain and (bullet := _ITEM.fullmatch(line)):
            depth = len(bullet.group(1).expandtabs(4))
            if block and item and depth > indent and (nested or block[-1].endswith((":", "："))):
                # "Added notes to:" over nested items reads as one item: "Added notes to: a, b"
                block[-1] += "," if nested else ""
                block.append(bullet.group(3))
                nested = True
                continue
            if block:
                yield _Block(" ".join(block), hint, item)
            box = bullet.group(2)
            hint = section if box is None else (NEXT if box == " " else DONE)
            block, item, nested, indent = [bullet.group(3)], True, False, depth
            continue
        elif line.strip() and (plain or not _RULE.fullmatch(line)):
            if _is_label(line, lines, number):
                label = line
            else:
                if not block:
                    section, hint, item = None, None, False
                block.append(line.strip())  # a new paragraph, or a wrapped line of the block above
                continue
        if block:
            yield _Block(" ".join(block), hint, item)
            block = []
        if label is not None:
            section = _section_of(label)
            if section is None:
                yield _Block(label.strip(), None, False)
    if block:
        yield _Block(" ".join(block), hint, item)


def _is_label(line: str, lines: list[str], number: int) -> bool:
    """Return whether line is a short caption such as "Changes made" or "Next steps:" over a list."""
    stripped = line.strip()
    if len(stripped) > 48 or line[:1] in " \t":
        return False
    if stripped.endswith((":", "：")):
        return True
    following = next((later for later in lines[number + 1 : number + 3] if later.strip()), "")
    return stripped[-1] not in ".!?。！？" and _ITEM.fullmatch(following) is not None


def _section_of(label: str) -> str | None:
    caption = fold(_clean(label))
    if len(caption) > 48:
        return None
    return next((kind for kind, pattern in SECTION_CUES if re.search(pattern, caption)), None)


def _clean(text: str) -> str:
    """Strip Markdown noise from one sentence and collapse its whitespace; backticks stay."""
    text = _EMPHASIS.sub("", _LINK.sub(r"\1", text)) if "*" in text or "[" in text or "~" in text else text
    return _LEAD_NOISE.sub("", " ".join(text.split()))


def _as_item(text: str) -> str:
    item = _clean(text)
    return item if item.endswith(("...", "…")) else item.rstrip(" :：.。!！")


def _weight(text: str) -> float:
    return len(_LATIN_WORD.findall(text)) + sum(map(len, _CJK_RUN.findall(text))) / 2


def _classify(item: str, role: str, hint: str | None, round_end: bool) -> str | None:
    if _weight(item) < 3:
        return None
    folded = fold(item)
    if NOT_ITEM_CUES.search(folded):
        return None
    if round_end and role == "assistant" and OFFER_CUES.search(folded):
        return NEXT
    if folded.endswith(("?", "？")):
        return None
    if hint is not None:
        return hint
    weak_next = round_end or role == "user"
    if NEXT_CUES.match(folded) or (weak_next and WEAK_NEXT_CUES.match(folded)):
        return NEXT  # "TODO: switch to TOML" is an open item before it is a decision
    if DECISION_CUES.search(folded):
        return DECISION
    if role == "assistant" and DONE_CUES.search(folded) and not NOT_DONE_CUES.search(folded):
        return DONE
    if NEXT_CUES.search(folded) or (weak_next and WEAK_NEXT_CUES.search(folded)):
        return NEXT
    return None


def _request_sentences(text: str, *, opening: bool = False) -> list[str]:
    """Return the first sentences of a request, greetings and polite openers left out."""
    sentences: list[str] = []
    size = 0
    for block in _blocks(text[:4000]):
        if block.item and sentences and sentences[-1].endswith((":", "：", ",")):
            # a list under "Update these:" continues the sentence: "Update these: a, b"
            sentences[-1] += ("" if sentences[-1].endswith("：") else " ") + _as_item(block.text) + ","
            continue
        for sentence in split_sentences(block.text):
            cleaned = _clean(sentence.text)
            if not sentences:
                if _is_ack_or_command(cleaned) or _weight(cleaned) < 1:
                    continue
                stripped = _strip_prefix(OPENING if opening else POLITE, cleaned)
                if stripped != cleaned and stripped[:1].isascii():
                    stripped = stripped[:1].upper() + stripped[1:]
                cleaned = stripped
            elif sentences[-1].endswith(","):
                sentences[-1] = sentences[-1][:-1]
            sentences.append(cleaned)
            size += len(cleaned)
        if size > GOAL_CHARS:
            break
    trimmed = (sentence.rstrip(",:：") for sentence in sentences)
    return [sentence for sentence in trimmed if sentence]  # a lone ":" after a sentence is no sentence


def _strip_prefix(pattern: re.Pattern[str], text: str) -> str:
    text = text.lstrip()
    match = pattern.match(fold(text[:400]))  # the fold keeps offsets, so they cut the original
    rest = text[match.end() :] if match else text
    return rest if _weight(rest[:80]) >= 1 else text


def _join(sentences: Sequence[str], limit: int) -> str:
    text = ""
    for sentence in sentences:
        wide = text and _WIDE.match(text[-1]) and _WIDE.match(sentence[0])  # no space between CJK sentences
        text += sentence if not text or wide else " " + sentence
        if len(text) > limit:
            break
    return text


def _index_line(request: list[str]) -> str:
    if not request:
        return ""
    line = request[0] if len(request[0]) >= 24 else _join(request[:2], INDEX_LINE_CHARS)
    return _clip(line, INDEX_LINE_CHARS, clause=True)


def _goal(request: list[str], refinement: list[str]) -> str:
    goal = _join(request, GOAL_CHARS)
    if refinement:
        goal = f"{_clip(goal, GOAL_CHARS // 2)} → {_join(refinement, GOAL_CHARS)}"
    return _clip(goal, GOAL_CHARS)


def _clip(text: str, limit: int, *, clause: bool = False) -> str:
    """Collapse whitespace and cut to limit characters at a word boundary, ending in "…"."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = limit - 1
    clauses = [m.start() for m in _CLAUSE_CUT.finditer(text, limit // 2, cut)] if clause else []
    if clauses:
        cut = clauses[-1]
    elif _LATIN_WORD.match(text[cut - 1]) and _LATIN_WORD.match(text[cut]):
        space = text.rfind(" ", 0, cut)
        cut = space if space > cut - 30 else cut
    if "\ud800" <= text[cut - 1] <= "\udbff":
        cut -= 1
    return (text[:cut].rstrip(_TRAILING) or text[: limit - 1]) + "…"


def _offer(kept: list[tuple[str, str, frozenset[str]]], item: str) -> None:
    """Keep an item, offered newest first, unless the list is full or holds it already."""
    if len(kept) >= MAX_ITEMS:
        return
    folded = fold(item).casefold()
    key = re.sub(r"[\W_]+", "", folded)
    tokens = frozenset(_LATIN_WORD.findall(folded))
    tokens |= {run[i : i + 2] for run in _CJK_RUN.findall(folded) for i in range(max(1, len(run) - 1))}
    # the same after case and space, or near: token Jaccard >= 0.8 (CJK counted in character pairs)
    if not any(key == other or len(tokens & seen) >= 0.8 * len(tokens | seen) for _, other, seen in kept):
        kept.append((item, key, tokens))
