"""Condense an agent session into where it stands: goal, done, decisions, next steps, files.

Deterministic and local: each item is a sentence or clause quoted from the conversation,
picked by cue phrases in English and Chinese and read in the light of the dialogue. The goal
is the opening ask in the person's words; done is what the agent reports finished and the
person did not take back; a decision is what the person said or accepted, changes of plan
included (an agent's plan counts once the person takes it); the next step is the one agreed
at the end, never a pasted log line, a plan the person turned down or work done since. When a
category has more candidates than slots, later turns win, since the state *now* matters most.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.cues import (
    ACCEPT_CUES,
    ACK,
    ASK_CUES,
    DECISION,
    DECISION_CUES,
    DIRECTIVE_CUES,
    DONE,
    DONE_CUES,
    ITEM_LABEL,
    LATER_CUES,
    MORE_DONE_CUES,
    NEXT,
    NEXT_CUES,
    NOT_DONE_CUES,
    NOT_ITEM_CUES,
    OFFER_CUES,
    OPENING,
    OVERRULE_CUES,
    POLITE,
    PROHIBITION_CUES,
    PROPOSAL_CUES,
    SLASH_COMMAND,
    SUPPOSE_CUES,
    UNDO_CUES,
    WEAK_NEXT_CUES,
    fold,
    may_hold_state_cue,
    wordset,
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
from incremind_daemon.pipeline.mentions import MentionedFiles
from incremind_daemon.pipeline.organize import split_sentences
from incremind_daemon.pipeline.prose import prose_spans

log = logging.getLogger(__name__)

INDEX_LINE_CHARS = 80
GOAL_CHARS = 200
ITEM_CHARS = 160
MAX_ITEMS = 6
MAX_DECISIONS = 8  # a working session settles more than it finishes, and every choice binds the next one
_TURN_CHARS = 20_000
_DEEP_ASKS = 100


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


_INNER_END = re.compile(r"[.!?](?:\s|$)|[。！？…\n]")
_CLAUSE = re.compile(r"(?<=\S);\s+|；")
_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_QUOTE_MARK = re.compile(r"^[ \t]*>[ \t]?", re.M)
# an opening sentence that sets the scene rather than asks: "Context: …", "先自我介绍一下", "reminder: …"
_CONTEXT = re.compile(
    r"^(?:context|background|fyi|btw|reminder|note|ps)\s*[:：]"
    r"|^(?:my name is|i'm [a-z]+ from|背景|先自我介绍|自我介绍|补充|我叫)"
)
_CAPTION = re.compile(r"^(?:today|task|goal|todo|ask|今天|任务|目标)\s*[:：]?\s*")
_PUSH = re.compile(r"\bgit push\b(?:\s+-\S+)*\s+\S+\s+(?:HEAD:)?([\w.][\w./-]*)(?=\s*(?:$|&&|;|\|\||\n))")
_FIRST_CLAUSE = re.compile(r"[^,，.。!！;；\n]{1,16}(?=[,，.。!！;；\n]|$)")
_YES = re.compile(r"可以|行|没问题|同意|\b(?:ok|okay|sure|fine|yes|yeah|go ahead)\b")
_CHAT_BREAK = re.compile(r"(?<=[a-z0-9)][.!?])\s+(?=[a-z])(?<!\be\.g\. )(?<!\bi\.e\. )")
_CODE_SPAN = re.compile(r"`[^`\n]+`")
_COLON_END = re.compile(r"[:：]$")
_GREETING = re.compile(
    r"(?:good )?(?:morning|afternoon|evening)[\s!.,]*|(?:早上好|早安|早|下午好|晚上好)[\s!！。.,，]*"
)
_QUOTED = re.compile(r"「[^」]*」|“[^”]*”|\"[^\"]*\"")
_PROPOSAL_LEAD = re.compile(
    r"^(?:(?:so |then )?(?:i can(?: also)?|(?:do you )?want me to(?: also)?|should i|shall i|would you like me to"
    r"|i(?:'d)? (?:suggest|recommend|propose)(?: that)?|how about"
    r"|我(?:可以|建议)|建议(?:你|我们)?|要不要我?|需要我|是否需要我?)"
    r"[\s,，:：]*)"
)
_PROPOSAL_TAIL = re.compile(r"[\s,，]*(?:可以吗|好吗|吗|呢|吧)?\s*[?？]*$")
_COMMON = wordset(
    "the and for with that this from into are was were has have not but you your our its now all also then than just"
    " only one two add added use used run ran file files test tests make made new fix fixed done"
)


def snapshot_session(turns: Sequence[Turn]) -> SessionSnapshot:
    """Condense a session's cleaned turns, oldest first, into its state now."""
    texts = [_readable(turn) for turn in turns]
    asks = [i for i, turn in enumerate(turns) if turn.role == "user" and not _is_ack_or_command(texts[i])]
    goal_at, request = next(((i, r) for i in asks if (r := _request_sentences(_unquoted(turns[i].text)))), (-1, []))
    if not request:  # a session no person opened (an /init command): the agent's first words
        spoken = (_request_sentences(texts[i], opening=True) for i, t in enumerate(turns) if t.role == "assistant")
        request = next((sentences for sentences in spoken if sentences), [])
    found: dict[str, list[_Kept]] = {DONE: [], DECISION: [], NEXT: []}
    asked = set(asks)
    files = MentionedFiles()
    # the next step is agreed at the end: in the last exchange, or the one before a closing "thanks"
    window = asks[-2] if len(asks) > 1 and _is_closing(texts[asks[-1]]) else asks[-1] if asks else 0
    reply = -1  # the person's turn that answers the turns being read, newest first
    read = 0  # the person's turns read so far
    acted = False  # whether the agent went on working after that answer
    later_reply = False
    # newest first, so a long session stops reading prose once every slot holds something newer
    for index in range(len(turns) - 1, -1, -1):
        role, text = turns[index].role, texts[index]
        if role == "tool":
            for done in _tool_done(text, files, index):
                _offer(found[DONE], done, _ROOM[DONE])
            continue
        round_end = role == "assistant" and not later_reply
        if role == "user":
            reply, acted = index, later_reply
        later_reply = role == "assistant" or (later_reply and role != "user")
        if (role == "user" and index not in asked) or role not in ("user", "assistant"):
            continue
        if files.has_enough() and all(len(kept) >= _ROOM[kind] for kind, kept in found.items()):
            continue
        answer = texts[reply] if role == "assistant" and reply >= 0 else ""
        verdict = _verdict(answer)
        # a day-long session's early turns are read for cues only: the statement finder costs more
        deep = role == "user" and (index == goal_at or (read := read + 1) <= _DEEP_ASKS)
        view = _View(role, round_end, index >= window, index == goal_at, verdict, answer, acted, _is_bare(answer), deep)
        for kind, item, rank in reversed(list(_items(text, view, files, index))):
            if kind == NEXT and _is_covered(item, found[DONE]):
                continue  # already done later in the session
            _offer(found[kind], item, _ROOM[kind], rank)
    goal = _goal(request)
    newest = {kind: tuple(kept.item for kept in reversed(_best(found[kind], kind))) for kind in found}
    return SessionSnapshot(_index_line(request), goal, newest[DONE], newest[DECISION], newest[NEXT], files.recent())


@dataclass(frozen=True, slots=True)
class _View:
    """What a turn's sentences mean depends on where the turn stands and how the person answered it."""

    role: str
    round_end: bool  # the agent's last message before the person speaks again
    closing: bool  # in the last exchange, where the next step is agreed
    goal: bool  # the opening request
    verdict: str | None  # the person's answer to this agent turn: ACCEPTED, OVERRULED or None
    reply: str  # the text of that answer
    acted: bool  # the agent went on working after the answer
    bare: bool  # the answer only says yes, so what it took is the agent's proposal
    deep: bool  # look for the person's lasting statements too


@dataclass(frozen=True, slots=True)
class _Kept:
    item: str
    key: str
    tokens: frozenset[str]
    rank: int  # which of too many decisions to keep: the person's own words first


ACCEPTED, OVERRULED = "accepted", "overruled"
# how a decision was found: a lasting statement or a choice in the person's words, a rule they set,
# or a proposal of the agent they took
_STATED, _DIRECTED, _TAKEN = 3, 2, 1


def _items(text: str, view: _View, files: MentionedFiles, at: int) -> Iterator[tuple[str, str, int]]:
    """Yield (category, item, rank) for the cue sentences of one turn, in order; record the files it names."""
    if len(text) > _TURN_CHARS:  # a long paste: its head and tail say what matters, in bounded time
        text = f"{text[: _TURN_CHARS // 2]}\n\n{text[-_TURN_CHARS // 2 :]}"
    person = view.role == "user"
    # the first sentence of a person's objection ("不用。测试里不 mock 数据库") says what they want instead
    first = person and OVERRULE_CUES.match(fold(text.lstrip()[:40])) is not None
    for block in split_blocks(text):
        files.see_prose(block.text, at)
        if block.hint is None and not person and not may_hold_state_cue(block.text):
            continue
        # most blocks are one sentence, and splitting costs more than all the rest
        single = _INNER_END.search(block.text.rstrip(".!?。！？… ")) is None
        previous = ""
        sentences = [block.text] if single else [s.text for s in split_sentences(block.text)]
        if person:  # people start a sentence in lower case: "not (a), we don't mock the db. go with ubuntu-latest"
            sentences = [part for sentence in sentences for part in _CHAT_BREAK.split(sentence)]
        for sentence in sentences:
            clauses = _CLAUSE.split(sentence)
            for clause in clauses:
                if not person and block.hint is None and clause != block.text and not may_hold_state_cue(clause):
                    continue
                item = as_item(clause)
                if not person and previous and text_weight(item) < 3 and _is_done(fold(item)):
                    yield DONE, clip(f"{previous} — {item}", ITEM_CHARS), 0  # "The launcher never set X. Fixed."
                    continue
                found = _judge(item, view, block.hint, settles=first)
                if person and text_weight(item) >= 3 and not item.endswith(("?", "？")):
                    first = False
                previous = item
                if found is not None:
                    kind, rank = found
                    shown = _proposed(item) if kind == DECISION and not person else _unlabelled(item)
                    yield kind, clip(shown, ITEM_CHARS), rank
    if view.deep:  # what the person settled, in their own words: the lasting statements of the turn
        for statement in extract_candidates(text, conversational=True):
            asks = view.goal and REQUEST.search(_strip_prefix(POLITE, fold(statement.statement)))
            if statement.category != "identity" and not statement.reported and not asks:
                yield DECISION, clip(statement.statement, ITEM_CHARS), _STATED


def _judge(item: str, view: _View, hint: str | None, *, settles: bool) -> tuple[str, int] | None:
    """Return the category of one sentence of a turn, seen in the light of how the person answered it."""
    folded = fold(item)
    if NOT_ITEM_CUES.search(folded):
        return None  # "Here's what I changed:", "let me know if …"
    if hint == DONE and (NOT_DONE_CUES.search(folded) or NEXT_CUES.match(folded) or WEAK_NEXT_CUES.match(folded)):
        hint = None  # "I did not touch the integration tests yet", "next I'll …" under "Implemented:"
    # cue words inside `code` name things ("`TODO.md`", "`# TODO(multi-region)`"); they say nothing of the state
    kind = _classify(_CODE_SPAN.sub("`x`", item) if "`" in item else item, view.role, hint, view.round_end)
    if view.role == "user":
        if text_weight(item) < 3 or folded.endswith(("?", "？")) or SUPPOSE_CUES.search(folded):
            return None  # "if we ever move to k8s …" settles nothing
        if view.goal and REQUEST.search(_strip_prefix(POLITE, folded)):
            return None  # the ask itself is the goal
        if kind == DECISION:
            return DECISION, _STATED
        if kind is None and LATER_CUES.search(folded):
            kind = NEXT
        if kind == NEXT:
            return (NEXT, 0) if view.closing and not view.goal else None
        if settles or DIRECTIVE_CUES.search(_QUOTED.sub("", folded)):
            return DECISION, _DIRECTED  # a rule for the work, or what the person wants instead of the agent's way
        return None
    if view.verdict == OVERRULED:
        # what the person turned down is neither decided nor next; what they took back is not done
        reply = fold(view.reply)
        undone = UNDO_CUES.search(reply) or (OVERRULE_CUES.match(reply) and _shares_words(item, view.reply))
        return (DONE, 0) if _is_done(folded) and not undone else None
    offer = view.round_end and OFFER_CUES.search(folded) is not None
    if offer or (view.round_end and PROPOSAL_CUES.search(folded)):
        if view.verdict == ACCEPTED and not view.acted:
            return NEXT, 0  # taken at the very end: the step agreed
        if view.verdict == ACCEPTED:
            return (DECISION, _TAKEN) if view.bare else None  # else the person's own words say what was taken
        if offer:
            return None  # an offer nobody took is no agreed step
    if kind == DECISION:
        # the agent's own plan is no decision until the person takes it, though it may say what was done
        if _is_done(folded):
            return DONE, 0  # "已改成自己 parse": what the agent did, whoever chose it
        return (DECISION, _TAKEN) if view.verdict == ACCEPTED and view.bare else None
    if kind == NEXT:
        return (NEXT, 0) if view.closing else None
    if kind is None and text_weight(item) >= 2 and _is_done(folded) and not folded.endswith(("?", "？")):
        return DONE, 0
    return None if kind is None else (kind, 0)


def _is_done(folded: str) -> bool:
    return bool(DONE_CUES.search(folded) or MORE_DONE_CUES.search(folded)) and not NOT_DONE_CUES.search(folded)


def _tool_done(marker: str, files: MentionedFiles, at: int) -> Iterator[str]:
    """Yield what a tool call finished: a commit's message, a branch pushed."""
    if message := files.see_marker(marker, at):
        yield clip(f"Committed: {message}", ITEM_CHARS)
    if pushed := _PUSH.search(marker):
        yield f"Pushed {pushed.group(1)}"


def _without_reminders(text: str) -> str:
    # the session readers drop harness blocks already; a stray one must still not reach a summary
    head, *rest = text.split("<system-reminder")
    return head + "".join(part.partition("</system-reminder>")[2] for part in rest)


def _readable(turn: Turn) -> str:
    """Return the words of a turn the state is read from: the person's own prose, the agent's reply."""
    if turn.role == "tool":
        return turn.text
    text = _without_reminders(turn.text)
    if turn.role == "user":
        return _prose(text)  # a pasted log line is never a step, a decision or the goal
    return _FENCED.sub("\n\n", text) if len(text) > _TURN_CHARS else text  # so a cut never lands inside a fence


def _prose(text: str) -> str:
    """Blank out what the person pasted (logs, tracebacks, code, quotes), keeping paragraph breaks."""
    spans = prose_spans(text)
    if spans == [(0, len(text))]:
        return text
    parts: list[str] = []
    position = 0
    for start, end in spans:
        gap = text[position:start]
        parts.append(gap if not gap.strip() else "\n\n")
        parts.append(text[start:end])
        position = end
    return "".join(parts)


def _unquoted(text: str) -> str:
    # a request may quote what someone else asked for ("> the CSV is garbled in Excel"): that is the ask too
    return _prose(_QUOTE_MARK.sub("", _without_reminders(text)))


def _is_closing(text: str) -> bool:
    """Tell whether the person's last words only close the session: "thanks, that's it for today"."""
    folded = fold(text.strip())
    head = ACK.match(folded)
    if head is None or (not LATIN_WORD.match(folded) and not CJK_RUN.match(folded)):
        return False
    rest = folded[head.end() :]
    return not any(REQUEST.search(s.text) for s in split_sentences(rest[:400]))


def _verdict(text: str) -> str | None:
    """Return how the person answered the agent: ACCEPTED ("ok 加 default"), OVERRULED ("不对，…") or None."""
    folded = fold(text.strip()[:400])
    head = _FIRST_CLAUSE.match(folded)
    # "sha2 可以加": a short first clause that says yes takes the proposal too
    accepted = ACCEPT_CUES.match(folded) is not None or (head is not None and _YES.search(head.group()) is not None)
    if (OVERRULE_CUES.match(folded) or PROHIBITION_CUES.search(folded)) and not accepted:
        return OVERRULED
    return ACCEPTED if accepted else None


def _proposed(item: str) -> str:
    """Word an accepted proposal as what was decided: "Want me to kill it?" → "kill it"."""
    folded = fold(item)
    lead = _PROPOSAL_LEAD.match(folded)
    rest = item[lead.end() :] if lead else item
    rest = _PROPOSAL_TAIL.sub("", rest)
    return rest if text_weight(rest) >= 2 else item


def _unlabelled(item: str) -> str:
    """Drop a caption that only repeats the item's kind: "Next steps: add tests" → "add tests"."""
    label = ITEM_LABEL.match(fold(item))
    rest = item[label.end() :] if label else item
    return rest if text_weight(rest) >= 2 else item


def _words_of(text: str) -> frozenset[str]:
    """Return the telling words of a text: names and numbers, and its CJK character pairs."""
    folded = fold(text).casefold()
    latin = {w for w in LATIN_WORD.findall(folded) if len(w) >= 3 or w.isdigit()} - _COMMON
    return frozenset(latin | {run[i : i + 2] for run in CJK_RUN.findall(folded) for i in range(len(run) - 1)})


def _shares_words(item: str, reply: str) -> bool:
    ours = {w for w in _words_of(item) if w.isascii()}
    return not ours.isdisjoint(_words_of(reply))


def _is_covered(item: str, done: list[_Kept]) -> bool:
    """Tell whether a next step is mostly the words of something done after it was said."""
    ours = _words_of(item)
    return len(ours) >= 2 and any(len(ours & _words_of(other.item)) >= 0.6 * len(ours) for other in done)


def _is_ack_or_command(text: str) -> bool:
    stripped = text.strip()
    if not stripped or SLASH_COMMAND.match(stripped):
        return True
    return len(stripped) <= 60 and ACK.fullmatch(fold(stripped)) is not None


def _classify(item: str, role: str, hint: str | None, round_end: bool) -> str | None:
    if text_weight(item) < 3:
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
    for block in split_blocks(text[:4000]):
        if block.item and sentences and sentences[-1].endswith((":", "：", ",")):
            # a list under "Update these:" continues the sentence: "Update these: a, b"
            sentences[-1] += ("" if sentences[-1].endswith("：") else " ") + as_item(block.text) + ","
            continue
        for sentence in split_sentences(block.text):
            cleaned = clean_sentence(sentence.text)
            if not sentences:
                if _is_ack_or_command(cleaned) or text_weight(cleaned) < 1 or _GREETING.fullmatch(fold(cleaned)):
                    continue
                stripped = _strip_prefix(OPENING if opening else POLITE, cleaned)
                if stripped != cleaned and stripped[:1].isascii():
                    stripped = stripped[:1].upper() + stripped[1:]
                cleaned = stripped
            elif sentences[-1].endswith(","):
                sentences[-1] = sentences[-1][:-1]
            sentences.append(cleaned)
            size += len(cleaned)
        if size > 3 * GOAL_CHARS:  # enough to find the ask behind an introduction
            break
    # a colon over a paste that was left out leads into the next sentence: "CI is red: runner has no docker"
    trimmed = [_COLON_END.sub(lambda m: "，" if m.group() == "：" else ",", s) for s in sentences[:-1]]
    trimmed = [s.rstrip(",，:：") if len(s.rstrip(",，:：")) < 2 else s for s in trimmed]
    trimmed += [sentence.rstrip(",:：") for sentence in sentences[-1:]]
    return [sentence for sentence in trimmed if sentence.rstrip(",，")]  # a lone ":" after a sentence is no sentence


def _strip_prefix(pattern: re.Pattern[str], text: str) -> str:
    text = text.lstrip()
    match = pattern.match(fold(text[:400]))  # the fold keeps offsets, so they cut the original
    rest = text[match.end() :] if match else text
    return rest if text_weight(rest[:80]) >= 1 else text


def _index_line(request: list[str]) -> str:
    if not request:
        return ""
    line = request[0] if len(request[0]) >= 24 else join_sentences(request[:2], INDEX_LINE_CHARS)
    return clip(line, INDEX_LINE_CHARS, clause=True)


def _goal(request: list[str]) -> str:
    """Return the ask in the person's words: whole sentences that fit, the asking ones first, "…" where cut."""
    if not request:
        return ""
    whole = " ".join(join_sentences(request, len(" ".join(request))).split())
    if len(whole) <= GOAL_CHARS:
        return whole
    ranked = sorted(range(len(request)), key=lambda i: (-_asking(request[i], i), i))
    chosen: list[int] = []
    size = 0
    for i in ranked:
        if size + len(request[i]) + 2 <= GOAL_CHARS:
            chosen.append(i)
            size += len(request[i]) + 2
    if not chosen:  # one sentence longer than the goal: cut it at a clause or a word
        return clip(request[ranked[0]], GOAL_CHARS, clause=True)
    chosen.sort()
    parts = [request[i] if not k or chosen[k - 1] == i - 1 else f"… {request[i]}" for k, i in enumerate(chosen)]
    goal = " ".join(join_sentences(parts, GOAL_CHARS).split())
    return goal if chosen[-1] == len(request) - 1 else clip(goal + " …", GOAL_CHARS)


def _is_bare(answer: str) -> bool:
    """Tell whether a yes says no more than yes: "ok 加 default", "Sure.", "行。", "sha2 可以加"."""
    folded = fold(answer.strip()[:200])
    yes = ACCEPT_CUES.match(folded)
    return yes is None or text_weight(_INNER_END.split(folded[yes.end() :], maxsplit=1)[0]) < 3


def _asking(sentence: str, position: int) -> int:
    """Rank a sentence of the opening request by how much of the ask it carries."""
    folded = fold(sentence)
    if _CONTEXT.match(folded):
        return -1
    rank = 2 if REQUEST.search(folded) or ASK_CUES.match(_CAPTION.sub("", folded)) else 0
    return rank + (1 if position == 0 else 0) + (1 if ASK_CUES.search(folded) else 0)


_ROOM = {DONE: MAX_ITEMS, DECISION: 3 * MAX_DECISIONS, NEXT: MAX_ITEMS}


def _offer(kept: list[_Kept], item: str, room: int, rank: int = 0) -> None:
    """Keep an item, offered newest first, unless the list is full or holds it already."""
    if len(kept) >= room:
        return
    folded = fold(item).casefold()
    key = re.sub(r"[\W_]+", "", folded)
    tokens = frozenset(LATIN_WORD.findall(folded))
    tokens |= {run[i : i + 2] for run in CJK_RUN.findall(folded) for i in range(max(1, len(run) - 1))}
    # the same after case and space, or near: one holds 3/4 of the other's tokens (CJK counted in character pairs)
    near = (key == k.key or len(tokens & k.tokens) >= 0.75 * min(len(tokens), len(k.tokens)) for k in kept)
    if not any(near):
        kept.append(_Kept(item, key, tokens, rank))


def _best(kept: list[_Kept], kind: str) -> list[_Kept]:
    """Return the items to show, newest first: of too many decisions, the person's own words win."""
    if kind != DECISION or len(kept) <= MAX_DECISIONS:
        return kept
    chosen = sorted(range(len(kept)), key=lambda i: (-kept[i].rank, i))[:MAX_DECISIONS]
    return [kept[i] for i in sorted(chosen)]
