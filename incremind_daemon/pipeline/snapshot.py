"""Condense an agent session into where it stands: goal, done, decisions, next steps, files.

Deterministic and local: each item is a sentence or clause quoted from the conversation,
picked by cue phrases in English and Chinese and read in the light of the dialogue. The goal
is the opening ask in the person's words; done is what the agent reports finished and the
person did not take back; a decision is what the person said or accepted, changes of plan
included (an agent's plan counts once the person takes it); the next step is the one agreed
at the end, never a pasted log line, a plan the person turned down or work done since. When a
category has more candidates than slots, later turns win, since the state *now* matters most;
of two near-duplicate items the one that names more (a PR number, a branch, a value) stays.

This module reads the session as a dialogue (who answered what, where the closing exchange is)
and keeps the goal; turn_items.py reads each turn's sentences in that light.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise

from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.cues import (
    ACCEPT_CUES,
    ACK,
    ASK_CAPTION,
    ASK_CUES,
    CLOSING_WORDS,
    DECISION,
    DONE,
    INTRO_CUES,
    NEXT,
    OPENING,
    POLITE,
    PROHIBITION_CUES,
    RESULT_CUES,
    REVERSE_CUES,
    SCENE_CAPTION,
    SUPPOSE_CUES,
    fold,
)
from incremind_daemon.pipeline.lasting import REQUEST
from incremind_daemon.pipeline.markdown import (
    CJK_RUN,
    LATIN_WORD,
    as_item,
    clean_sentence,
    clip,
    join_sentences,
    named_values,
    split_blocks,
    text_weight,
    value_weight,
    words_of,
)
from incremind_daemon.pipeline.mentions import MentionedFiles
from incremind_daemon.pipeline.organize import split_sentences
from incremind_daemon.pipeline.pastes import pasted_error, sentences_before
from incremind_daemon.pipeline.prose import prose_spans
from incremind_daemon.pipeline.reports import ITEM_CHARS, is_checks
from incremind_daemon.pipeline.state_cues import (
    CONTEXT_CAPTION,
    MORE_CLOSING_WORDS,
    RESULT_ACK,
    drops_side_matter,
    is_ack_or_command,
    is_leaving,
    overrules,
    strip_prefix,
)
from incremind_daemon.pipeline.turn_items import ACCEPTED, OVERRULED, SENTENCE_END, TURN_CHARS, TurnView, read_items
from incremind_daemon.store.snapshots import SnapshotParts

log = logging.getLogger(__name__)

INDEX_LINE_CHARS = 80
GOAL_CHARS = 200
MAX_ITEMS = 6
MAX_DONE = 8  # a session's work spans its exchanges, and each exchange's head goes first
MAX_DECISIONS = 8  # a working session settles more than it finishes, and every choice binds the next one
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

    def parts(self) -> SnapshotParts:
        """Return the state as the store keeps it, item by item."""
        return SnapshotParts(self.goal, self.done, self.decisions, self.next_steps, self.files)

    def render(self) -> str:
        """Return the state as summary text, one labelled line per part, for search and display."""
        lists = ("; ".join(self.done), "; ".join(self.decisions), "; ".join(self.next_steps), ", ".join(self.files))
        parts = zip(("Goal", "Done", "Decisions", "Next", "Files"), (self.goal, *lists), strict=True)
        return "\n".join(f"{label}: {value}" for label, value in parts if value)


_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_CODE = re.compile(r"`[^`\n]*`")
_QUOTE_MARK = re.compile(r"^[ \t]*>[ \t]?", re.M)
# who wants it, before the ask: "I want proper flushing", "we need a replay script", "我想要…"
_WANTER = re.compile(r"^(?:i|we)(?:'d| would)? (?=(?:want|need|like|have to|must)\b)|^我们?(?=想|要|需要|希望)")
# a short ask that leans on the sentence before it: "Can you find out why?", "帮我看看为什么"
_LEANING = re.compile(r"\b(?:why|it|this|that|these|those)\b|为什么|这个|这些|它")
_CAPTION = re.compile(r"^(?:today|task|goal|todo|ask|今天|任务|目标)\s*[:：]?\s*")
_EDIT_MARKER = re.compile(
    r"(?:\[tool\][ \t]*)?(?:edit|multiedit|multi_edit|write|writefile|write_file|replace|apply_patch|create"
    r"|createfile|create_file|str_replace_editor|str_replace_based_edit_tool|notebookedit)[ \t]*:[ \t]*(.+)",
    re.I,
)
_PUSH = re.compile(r"\bgit push\b(?:\s+-\S+)*\s+\S+\s+(?:HEAD:)?([\w.][\w./-]*)(?=\s*(?:$|&&|;|\|\||\n))")
_NEW_BRANCH = re.compile(r"\bgit (?:checkout|switch)(?:\s+-q)?\s+-q?[bcBC]\s+([\w.][\w./-]*)(?=\s*(?:$|&&|;|\n))")
# a commit whose message the transcript cut short: "git commit -qm 'feat(consumer): buffer records and flush at 50 …"
_CUT_COMMIT = re.compile(r"\bgit\s+commit\b.*?\s-[a-z]*m\s*[\"']([^\"'\n]{12,}?)\s*…$")
_TAG = re.compile(r"\bgit tag\s+(?:-[as]\s+)?(v?\d[\w.-]*)(?=\s*(?:$|&&|;|\n|-m))")
_FIRST_CLAUSE = re.compile(r"[^,，.。!！;；\n]{1,16}(?=[,，.。!！;；\n]|$)")
_YES = re.compile(r"可以|行|没问题|同意|\b(?:ok|okay|sure|fine|yes|yeah|go ahead)\b")
_OPENS = re.compile(r"[A-Z][a-z']*\b(?![./-]\w)")  # "Can you …", "I'd like …", not "CI is red", "README.md …"
_NUMBERED = re.compile(r"^[ \t]*\d{1,2}[.)、][ \t]+\S", re.M)
_NUMBER = re.compile(r"\d{1,2}\) ")
_ITEM_RANK = 8  # above any sentence's own rank
_CLAUSE_BREAK = re.compile(r"[,;:]\s+|[，；：]\s*")
# a paragraph of several lines under a sentence that points to it ("但是 ssh 报这个", "I get this:") is what the
# person pasted, though it reads as prose ("IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!")
_POINTED_PASTE = re.compile(
    r"((?:这个|如下|这样|这些|(?<![a-z])(?:this|these|following|below))[ \t]*[:：]?)[ \t]*\n[ \t]*\n"
    r"(?![ \t]*(?:[-*+•]|\d+[.)])\s)(?:[^\n]*\S[^\n]*\n){2,}?(?=[ \t]*\n|\Z)",
    re.I,
)
_GREETING = re.compile(
    r"(?:good )?(?:morning|afternoon|evening)[\s!.,]*|(?:早上好|早安|早|下午好|晚上好)[\s!！。.,，]*"
)


def snapshot_session(turns: Sequence[Turn]) -> SessionSnapshot:
    """Condense a session's cleaned turns, oldest first, into its state now."""
    texts = [_readable(turn) for turn in turns]
    asks = [i for i, turn in enumerate(turns) if turn.role == "user" and not is_ack_or_command(texts[i])]
    goal_at, request = _opening_ask(turns, asks)
    if not request:  # a session no person opened (an /init command): the agent's first words
        spoken = (_request_sentences(texts[i], opening=True) for i, t in enumerate(turns) if t.role == "assistant")
        request = next((sentences for sentences in spoken if sentences), [])
    found: dict[str, list[_Kept]] = {DONE: [], DECISION: [], NEXT: []}
    asked = set(asks)
    files = MentionedFiles()
    # the next step is agreed at the end: in the last exchange, or the one before a closing "thanks"
    spoke = next((texts[i] for i in range(asks[-1] - 1, -1, -1) if turns[i].role == "assistant"), "") if asks else ""
    window = asks[-2] if len(asks) > 1 and _is_closing(texts[asks[-1]], spoke) else asks[-1] if asks else 0
    reply = -1  # the person's turn that answers the turns being read, newest first
    read = 0  # the person's turns read so far
    acted = False  # whether the agent went on working after that answer
    later_reply = False
    answered = -1  # the agent's turn after the one being read
    asked_before, spoke_before, edited = _context(turns, asked)
    # newest first, so a long session stops reading prose once every slot holds something newer
    for index in range(len(turns) - 1, -1, -1):
        role, text = turns[index].role, texts[index]
        if role == "tool":
            for done in _tool_done(text, files, index):
                _offer(found[DONE], done, _ROOM[DONE], _HEADLINE)
            continue
        round_end = role == "assistant" and not later_reply
        handed = texts[answered] if role == "user" and answered >= 0 else ""
        answered = index if role == "assistant" else answered
        if role == "user":
            reply, acted = index, later_reply
        later_reply = role == "assistant" or (later_reply and role != "user")
        if (role == "user" and index not in asked) or role not in ("user", "assistant"):
            continue
        if files.has_enough() and all(_is_full(kind, kept, early=index < window) for kind, kept in found.items()):
            continue
        answer = texts[reply] if role == "assistant" and reply >= 0 else ""
        verdict = _verdict(answer)
        # a day-long session's early turns are read for cues only: the statement finder costs more
        deep = role == "user" and (index == goal_at or (read := read + 1) <= _DEEP_ASKS)
        before = asked_before[index] if role == "assistant" else spoke_before[index]
        view = TurnView(
            role, round_end, index >= window, index == goal_at, verdict, answer, acted, _is_bare(answer), deep,
            texts[before] if before >= 0 else "", handed, edited.get(index, ()),
            role == "assistant" and text.rstrip().endswith(("?", "？")),
        )  # fmt: skip
        items = list(read_items(text, view, files, index))
        # a turn's first telling report heads what it did: of too many, each turn's head outranks detail
        reports = (i for i in items if i.kind == DONE and text_weight(i.text) >= 3 and _rank_done(i.own) >= _TELLING)
        head = next(reports, None) if round_end else None
        for item in reversed(items):
            if item.kind == NEXT and _is_covered(item.own, found[DONE]):
                continue  # already done later in the session
            rank = (_HEADLINE if item is head else _rank_done(item.own)) if item.kind == DONE else item.rank
            _offer(found[item.kind], item.text, _ROOM[item.kind], rank)
    goal = _goal_with_error(turns[goal_at].text, request) if goal_at >= 0 else _goal(request)
    newest = {kind: tuple(kept.item for kept in reversed(_best(found[kind], kind))) for kind in found}
    return SessionSnapshot(_index_line(request), goal, newest[DONE], newest[DECISION], newest[NEXT], files.recent())


@dataclass(frozen=True, slots=True)
class _Kept:
    item: str
    key: str
    tokens: frozenset[str]
    rank: int  # which of too many to keep: the person's own words, and reports of what was done over checks


def _opening_ask(turns: Sequence[Turn], asks: list[int]) -> tuple[int, list[str]]:
    """Return the person's turn that opens the work and its request sentences.

    An opening that only gives context ("quick context: ledger is our billing API", "I prefer tabs") is not
    what a person calls the session's goal when a later turn asks for something: that ask is.
    """
    opening: tuple[int, list[str]] = (-1, [])
    for i in asks:
        text = _unquoted(turns[i].text)
        request = _request_sentences(text)
        if not request:
            continue
        if opening[0] < 0:
            if any(_asking(sentence, at) >= 0 for at, sentence in enumerate(request)):
                return i, request
            opening = (i, request)
        elif REQUEST.search(fold(text.lstrip()[:400])) or any(_asks(fold(sentence)) for sentence in request):
            # only a sentence that asks outright: an opening's ask the statement finder misreads must not lose
            # to a later "eta 包别动，只做这个接口"
            return i, request
    return opening


def _context(turns: Sequence[Turn], asked: set[int]) -> tuple[list[int], list[int], dict[int, tuple[str, ...]]]:
    """Return per turn the person's ask and the agent's turn before it, and the files each agent turn changed."""
    asked_before, spoke_before = [-1] * len(turns), [-1] * len(turns)
    edited: dict[int, tuple[str, ...]] = {}
    ask = spoke = owner = -1
    for index, turn in enumerate(turns):
        asked_before[index], spoke_before[index] = ask, spoke
        if turn.role == "user":
            ask, owner = (index if index in asked else -1), -1  # a bare "ok" asks nothing of its own
        elif turn.role == "assistant":
            spoke = owner = index
        elif owner >= 0 and (marker := _EDIT_MARKER.fullmatch(turn.text.split("\n", 1)[0].strip())):
            names = [path.rstrip("/").rsplit("/", 1)[-1] for path in marker.group(1).split(", ")]
            known = edited.get(owner, ())
            edited[owner] = known + tuple(n for n in names if _is_file_name(n) and n not in known)
    return asked_before, spoke_before, edited


def _is_file_name(name: str) -> bool:
    """Tell whether a name an edit marker gives is a file's: "ci.yml", and dotfiles such as ".terraform-version"."""
    return len(name) <= 60 and ("." in name[1:] or (name.startswith(".") and len(name) > 2))


def _tool_done(marker: str, files: MentionedFiles, at: int) -> Iterator[str]:
    """Yield what a tool call finished: a commit's message and the branch it started, a tag, a branch pushed."""
    cut = _CUT_COMMIT.search(marker.split("\n", 1)[0].strip()) if "…" in marker else None
    if message := files.see_marker(marker, at) or (f"{cut.group(1)}…" if cut else ""):
        branch = _NEW_BRANCH.search(marker)
        yield clip(f"Committed on {branch.group(1)}: {message}" if branch else f"Committed: {message}", ITEM_CHARS)
    if tagged := _TAG.search(marker):
        yield f"Tagged {tagged.group(1)}"
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
    return _FENCED.sub("\n\n", text) if len(text) > TURN_CHARS else text  # so a cut never lands inside a fence


def _prose(text: str) -> str:
    """Blank out what the person pasted (logs, tracebacks, code, quotes), keeping paragraph breaks."""
    spans = prose_spans(text)
    if spans != [(0, len(text))]:
        parts: list[str] = []
        position = 0
        for start, end in spans:
            gap = text[position:start]
            parts.append(gap if not gap.strip() else "\n\n")
            parts.append(text[start:end])
            position = end
        text = "".join(parts)
    # what the paste finder took for prose may still be what a sentence points to
    return _POINTED_PASTE.sub(lambda pointed: pointed.group(1) + "\n\n", text) if "\n" in text else text


def _unquoted(text: str) -> str:
    # a request may quote what someone else asked for ("> the CSV is garbled in Excel"): that is the ask too
    return _prose(_QUOTE_MARK.sub("", _without_reminders(text)))


def _quoted(text: str) -> str:
    """Return the lines a person quotes with ">", squashed for lookup."""
    return _squash(" ".join(line for line in text.splitlines() if _QUOTE_MARK.match(line))) if ">" in text else ""


def _squash(text: str) -> str:
    return " ".join(_QUOTE_MARK.sub("", text).split()).rstrip(" ,，:：")


def _is_closing(text: str, spoke: str = "") -> bool:
    """Tell whether the person's last words only close the session: "thanks, that's it for today".

    spoke: the agent's turn before them, which a plan said while leaving names if it is a step of the work.
    """
    folded = fold(text.strip())
    head = ACK.match(folded) or RESULT_ACK.match(folded)
    if head is None or (not LATIN_WORD.match(folded) and not CJK_RUN.match(folded)):
        return False
    # "好了，两个 pod 都 Running 了。谢谢，先这样" reports news, which opens an exchange of its own;
    # a what-if ("if it turns out slow we might …, but let's see") and the person's own plan as they
    # leave ("晚上还要背单词 先撤了") open none
    said = (s.text for s in split_sentences(folded[head.end() : head.end() + 400]))
    rest = " ".join(s for s in said if not (SUPPOSE_CUES.search(s) or is_leaving(s, spoke) or drops_side_matter(s)))
    return text_weight(ACK.sub(" ", CLOSING_WORDS.sub(" ", MORE_CLOSING_WORDS.sub(" ", rest)))) < 3


def _verdict(text: str) -> str | None:
    """Return how the person answered the agent: ACCEPTED ("ok 加 default"), OVERRULED ("不对，…") or None."""
    folded = fold(text.strip()[:400])
    head = _FIRST_CLAUSE.match(folded)
    # "sha2 可以加": a short first clause that says yes takes the proposal too
    accepted = ACCEPT_CUES.match(folded) is not None or (head is not None and _YES.search(head.group()) is not None)
    turned = overrules(folded) or PROHIBITION_CUES.search(folded) or REVERSE_CUES.match(folded)
    if turned and not accepted:
        return OVERRULED
    return ACCEPTED if accepted else None


def _is_covered(item: str, done: list[_Kept]) -> bool:
    """Tell whether a next step is mostly the words of something done after it was said."""
    ours = words_of(item)
    return len(ours) >= 2 and any(len(ours & words_of(other.item)) >= 0.6 * len(ours) for other in done)


def _request_sentences(text: str, *, opening: bool = False) -> list[str]:
    """Return the first sentences of a request, greetings and polite openers left out."""
    sentences: list[str] = []
    size = 0
    numbered = len(_NUMBERED.findall(text[:4000])) >= 2  # "Two things today. 1) … 2) …": each item is asked
    items = 0
    for block in split_blocks(text[:4000]):
        if block.item and sentences and sentences[-1].endswith((":", "：", ",")):
            # a list under "Update these:" continues the sentence: "Update these: a, b"
            sentences[-1] += ("" if sentences[-1].endswith("：") else " ") + as_item(block.text) + ","
            continue
        items += block.item and numbered
        for at, sentence in enumerate(split_sentences(block.text)):
            cleaned = clean_sentence(sentence.text)
            cleaned = f"{items}) {cleaned}" if block.item and numbered and not at else cleaned
            if not sentences:
                if is_ack_or_command(cleaned) or text_weight(cleaned) < 1 or _GREETING.fullmatch(fold(cleaned)):
                    continue
                stripped = strip_prefix(OPENING if opening else POLITE, cleaned)
                if stripped != cleaned and stripped[:1].isascii():
                    stripped = stripped[:1].upper() + stripped[1:]
                cleaned = stripped
            elif sentences[-1].endswith(","):
                sentences[-1] = sentences[-1][:-1]
            elif CJK_RUN.fullmatch(sentences[-1][-1:]) and CJK_RUN.match(cleaned):
                sentences[-1] += "，"  # a paragraph's last words lead into the next, which no space parts in Chinese
            sentences.append(cleaned)
            size += len(cleaned)
        if size > 3 * GOAL_CHARS:  # enough to find the ask behind an introduction
            break
    # a colon over a paste that was left out leads into the next sentence: "CI is red: runner has no docker";
    # before one that opens as a sentence does ("… prints this: Can you …") it ends its own
    trimmed = [_end_colon(sentence, after) for sentence, after in pairwise(sentences)]
    trimmed = [s.rstrip(",，:：") if len(s.rstrip(",，:：")) < 2 else s for s in trimmed]
    trimmed += [sentence.rstrip(",:：") for sentence in sentences[-1:]]
    return [sentence for sentence in trimmed if sentence.rstrip(",，")]  # a lone ":" after a sentence is no sentence


def _end_colon(sentence: str, after: str) -> str:
    if sentence.endswith("："):
        return sentence[:-1] + "，"
    return sentence[:-1] + ("." if _OPENS.match(after) else ",") if sentence.endswith(":") else sentence


def _index_line(request: list[str]) -> str:
    if not request:
        return ""
    line = request[0] if len(request[0]) >= 24 else join_sentences(request[:2], INDEX_LINE_CHARS)
    return clip(line, INDEX_LINE_CHARS, clause=True)


def _goal_with_error(text: str, request: list[str]) -> str:
    """Return the goal of the opening turn, with the error line of what it pasted after the sentence before it."""
    raw = _without_reminders(text)
    quoted = _quoted(text)
    at, error = pasted_error(raw[:8000], _unquoted(text))
    if at < 0 or not request:
        return _goal(request, quoted)
    # the error line takes the room the ask leaves; it takes the room of the ask's context only when the
    # person's words name no file, test or value of their own, so the paste is what says what broke
    goal = _goal(request, quoted, GOAL_CHARS - len(error) - 3)
    if goal != " ".join(join_sentences(request, len(" ".join(request))).split()) and named_values(" ".join(request)):
        return _goal(request, quoted)
    said = request[max(1, sentences_before(request, raw[:at])) - 1]
    if said in goal:
        end = goal.index(said) + len(said.rstrip(",，:："))  # "CI is red (Error: …), runner-3 has no docker"
        return f"{goal[:end]} ({error}){goal[end:]}"
    return f"{goal} ({error})"


def _goal(request: list[str], quoted: str = "", limit: int = GOAL_CHARS) -> str:
    """Return the ask in the person's words: whole sentences that fit, the asking ones first, "…" where cut."""
    if not request:
        return ""
    whole = " ".join(join_sentences(request, len(" ".join(request))).split())
    if len(whole) <= limit:
        return whole
    # what the person quotes ("> I must ask whether the penalty can be waived") is someone else's ask, not theirs
    others = {i for i, sentence in enumerate(request) if quoted and _squash(sentence) in quoted}
    ranks = [min(_asking(s, i), 0) if i in others else _asking(s, i) for i, s in enumerate(request)]
    _pass_captions(request, ranks)
    ranked = sorted(range(len(request)), key=lambda i: (-ranks[i], i))
    request, cut = list(request), set()
    chosen: list[int] = []
    size = 0
    for i in ranked:
        if size + len(request[i]) + 2 > limit and ranks[i] >= 2 and len(request) > 1:
            # a long sentence of the ask keeps its last clause, where the ask is: "…, so add a Holm correction"
            tail, number = _last_clause(request[i]), _NUMBER.match(request[i])
            tail = f"{number.group()}… {tail}" if tail and number else tail
            if tail and size + len(tail) + 4 <= limit:
                request[i] = tail
                cut.add(i)
        if size + len(request[i]) + 2 <= limit:
            chosen.append(i)
            size += len(request[i]) + 2 + (2 if i in cut else 0)
    for i in list(chosen):  # "Can you find out why?" asks about the sentence before it
        before = i - 1
        if (
            before >= 0
            and before not in chosen
            and ranks[before] >= 0
            and len(request[i]) < 60
            and _LEANING.search(fold(request[i]))
        ):
            while chosen and size + len(request[before]) + 2 > limit:
                dropped = min((c for c in chosen if c != i), key=lambda c: (ranks[c], -c), default=None)
                if dropped is None or ranks[dropped] >= ranks[before]:
                    break
                chosen.remove(dropped)
                size -= len(request[dropped]) + 2
            if size + len(request[before]) + 2 <= limit:
                chosen.append(before)
                size += len(request[before]) + 2
    if not chosen:  # one sentence longer than the goal: cut it at a clause or a word
        return clip(request[ranked[0]], limit, clause=True)
    chosen.sort()
    joined = {i for k, i in enumerate(chosen) if i not in cut and (not k or chosen[k - 1] == i - 1)}
    parts = [
        request[i] if i in joined or (i in cut and _NUMBER.match(request[i])) else f"… {request[i]}" for i in chosen
    ]
    goal = " ".join(join_sentences(parts, limit).split())
    return goal if chosen[-1] == len(request) - 1 else clip(goal + " …", limit)


def _last_clause(sentence: str) -> str:
    """Return a sentence's last clause if it says something: "…, so add a Holm correction on top"."""
    clauses = _CLAUSE_BREAK.split(sentence)
    return clauses[-1].strip() if len(clauses) > 1 and text_weight(clauses[-1]) >= 4 else ""


def _is_bare(answer: str) -> bool:
    """Tell whether a yes says no more than yes: "ok 加 default", "Sure.", "行。", "sha2 可以加"."""
    folded = fold(answer.strip()[:200])
    yes = ACCEPT_CUES.match(folded)
    return yes is None or text_weight(SENTENCE_END.split(folded[yes.end() :], maxsplit=1)[0]) < 3


def _asking(sentence: str, position: int) -> int:
    """Rank a sentence of the opening request by how much of the ask it carries."""
    if _NUMBER.match(sentence):  # each numbered item is asked, though it opens with a rule, so each goes first
        return _ITEM_RANK
    folded = fold(sentence)
    if SCENE_CAPTION.match(folded) or INTRO_CUES.match(folded) or CONTEXT_CAPTION.match(folded):
        return -1
    asks = _asks(folded)
    if not asks and extract_candidates(sentence, limit=1, conversational=True):
        return -1  # how to work, said on the way in ("answer in English", "poetry, not pip"): not the ask
    rank = 2 if asks else 0
    rank += 3 if ASK_CAPTION.match(folded) else 0
    return rank + (1 if position == 0 else 0) + (1 if ASK_CUES.search(folded) else 0)


def _asks(folded: str) -> bool:
    return bool(REQUEST.search(folded) or ASK_CUES.match(_WANTER.sub("", _CAPTION.sub("", folded))))


def _pass_captions(request: list[str], ranks: list[int]) -> None:
    """Move an ask caption's weight to the ask it leads into: "Task: the runs finished. I want a table: …"."""
    for i in range(len(request) - 1):
        folded, after = fold(request[i]), fold(request[i + 1])
        if ranks[i] >= 3 and ASK_CAPTION.match(folded) and not _asks(folded) and _asks(after):
            ranks[i], ranks[i + 1] = ranks[i] - 3, ranks[i + 1] + 3


_ROOM = {DONE: 2 * MAX_DONE, DECISION: 3 * MAX_DECISIONS, NEXT: MAX_ITEMS}
_LIMIT = {DONE: MAX_DONE, DECISION: MAX_DECISIONS, NEXT: MAX_ITEMS}
_TELLING = 1  # what was done says more than "all 12 tests pass", so checks alone give way first
_HEADLINE = 2  # a turn's first telling report, so a long last turn's detail leaves room for earlier work


def _is_full(kind: str, kept: list[_Kept], *, early: bool) -> bool:
    """Tell whether older turns can no longer change a list, read newest first; early: before the closing window."""
    if kind == NEXT and early:
        return True  # a next step is agreed at the end
    if kind == DONE:  # older reports only displace checks and detail, so a head for every slot fills it
        return sum(k.rank >= _HEADLINE for k in kept) >= _LIMIT[DONE]
    return len(kept) >= _ROOM[kind]


def _rank_done(item: str) -> int:
    folded = fold(item)
    # "`mypy --strict` is clean" says how a check went; "The dry run was clean" says a run was done
    result = RESULT_CUES.search(folded) if "clean" in folded or "green" in folded else None
    subject = _CODE.sub(" ", folded[: result.start()]) if result else ""
    return 0 if is_checks(folded) or (result and is_checks(subject)) else _TELLING


def _offer(kept: list[_Kept], item: str, room: int, rank: int = 0) -> None:
    """Keep an item, offered newest first, unless the list holds it already or is full of items that rank higher."""
    if len(kept) >= room:
        weakest = min(range(len(kept)), key=lambda at: (kept[at].rank, -at))
        if kept[weakest].rank >= rank:
            return
        del kept[weakest]  # an older turn's head displaces a newer turn's detail
    folded = fold(item).casefold()
    key = re.sub(r"[\W_]+", "", folded)
    tokens = frozenset(LATIN_WORD.findall(folded))
    tokens |= {run[i : i + 2] for run in CJK_RUN.findall(folded) for i in range(max(1, len(run) - 1))}
    # the same after case and space, or near: one holds 3/4 of the other's tokens (CJK counted in character pairs)
    for at, other in enumerate(kept):
        if key == other.key or len(tokens & other.tokens) >= 0.75 * min(len(tokens), len(other.tokens)):
            # of two near duplicates the one that names more stays: "已提交并开 PR #279：…" over "Committed on …";
            # it holds more tokens the other lacks than the other holds tokens it lacks
            if len(tokens) > len(other.tokens):
                ours, theirs = named_values(item), named_values(other.item)
                # or it goes on where the other stops: "回复还是用中文吧 我看得快一点, commit msg stay English"
                holds = key.startswith(other.key)
                if holds or _weigh(ours, fold(other.item).casefold()) > _weigh(theirs, folded):
                    kept[at] = _Kept(item, key, tokens, max(rank, other.rank))
            return
    kept.append(_Kept(item, key, tokens, rank))


def _weigh(values: list[str], other: str) -> int:
    """Weigh the values an item names that the other item (folded) does not."""
    return sum(value_weight(value) for value in values if value.strip("`").casefold() not in other)


def _best(kept: list[_Kept], kind: str) -> list[_Kept]:
    """Return the items to show, newest first: of too many, the person's own words and the telling reports win."""
    if len(kept) <= _LIMIT[kind]:
        return kept
    chosen = sorted(range(len(kept)), key=lambda i: (-kept[i].rank, i))[: _LIMIT[kind]]
    return [kept[i] for i in sorted(chosen)]
