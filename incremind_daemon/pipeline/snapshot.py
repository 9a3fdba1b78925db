"""Condense an agent session into where it stands: goal, done, decisions, next steps, files.

Deterministic and local: each item is a sentence or clause quoted from the conversation,
picked by cue phrases in English and Chinese and read in the light of the dialogue. The goal
is the opening ask in the person's words; done is what the agent reports finished and the
person did not take back; a decision is what the person said or accepted, changes of plan
included (an agent's plan counts once the person takes it); the next step is the one agreed
at the end, never a pasted log line, a plan the person turned down or work done since. When a
category has more candidates than slots, later turns win, since the state *now* matters most;
of two near-duplicate items the one that names more (a PR number, a branch, a value) stays.

This module reads the session as a dialogue (who answered what, where the closing exchange is);
goal.py words the opening ask, and turn_items.py reads each turn's sentences in that light.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from incremind_daemon.pipeline.answers import among, turned_down
from incremind_daemon.pipeline.cues import (
    ACCEPT_CUES,
    ACK,
    CLOSING_WORDS,
    DECISION,
    DIRECTIVE_CUES,
    DONE,
    LATER_CUES,
    NEXT,
    PROHIBITION_CUES,
    RESULT_CUES,
    REVERSE_CUES,
    SUPPOSE_CUES,
    UNDO_CUES,
    fold,
)
from incremind_daemon.pipeline.goal import (
    ask_rank,
    goal_of,
    goal_with_error,
    index_line,
    is_ask,
    lists_numbered,
    request_sentences,
    squash,
)
from incremind_daemon.pipeline.lasting import IDENTITY, REQUEST
from incremind_daemon.pipeline.markdown import (
    CJK_RUN,
    LATIN_WORD,
    clip,
    named_values,
    text_weight,
    value_weight,
    words_of,
)
from incremind_daemon.pipeline.mentions import MentionedFiles
from incremind_daemon.pipeline.organize import split_sentences
from incremind_daemon.pipeline.pastes import pasted_error
from incremind_daemon.pipeline.prose import prose_spans, stop_chinese_lines
from incremind_daemon.pipeline.reports import ITEM_CHARS, is_checks
from incremind_daemon.pipeline.standing import CONNECTIVES, Kept, a_standing_rule, standing
from incremind_daemon.pipeline.state_cues import (
    MORE_CLOSING_WORDS,
    RESULT_ACK,
    drops_side_matter,
    is_ack_or_command,
    is_done,
    is_leaving,
    opens_ask,
    overrules,
)
from incremind_daemon.pipeline.turn_items import ACCEPTED, OVERRULED, SENTENCE_END, TURN_CHARS, TurnView, read_items
from incremind_daemon.store.snapshots import SnapshotParts

log = logging.getLogger(__name__)

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
_EDIT_MARKER = re.compile(
    r"(?:\[tool\][ \t]*)?(?:edit|multiedit|multi_edit|write|writefile|write_file|replace|apply_patch|create"
    r"|createfile|create_file|str_replace_editor|str_replace_based_edit_tool|notebookedit)[ \t]*:[ \t]*(.+)",
    re.I,
)
_PUSH = re.compile(r"\bgit push\b(?:\s+-\S+)*\s+\S+\s+(?:HEAD:)?([\w.][\w./-]*)(?=\s*(?:$|&&|;|\|\||\n))")
_NEW_BRANCH = re.compile(r"\bgit (?:checkout|switch)(?:\s+-q)?\s+-q?[bcBC]\s+([\w.][\w./-]*)(?=\s*(?:$|&&|;|\n))")
# a commit whose message the transcript cut short: "git commit -qm 'feat(consumer): buffer records and flush at 50 …"
_CUT_COMMIT = re.compile(r"\bgit\s+commit\b.*?\s-[a-z]*m\s*[\"']([^\"'\n]{12,}?)\s*…$")
# the commit a tool's output says git made (sources.sessions.cleaning.commit_marker)
_COMMIT_MADE = re.compile(r"git-commit: \[(\S+) ([0-9a-f]{7,40})\] (.+)")
_TAG = re.compile(r"\bgit tag\s+(?:-[as]\s+)?(v?\d[\w.-]*)(?=\s*(?:$|&&|;|\n|-m))")
_FIRST_CLAUSE = re.compile(r"[^,，.。!！;；\n]{1,16}(?=[,，.。!！;；\n]|$)")
# a yes in a reply's first clause, though not its negation: "不行. 別用固定秒數去等畫面" turns the plan down
_YES = re.compile(r"(?<![不没太])(?:可以|行)|没问题|(?<!不)同意|(?<!not )\b(?:ok|okay|sure|fine|yes|yeah|go ahead)\b")
# a paragraph of several lines under a sentence that points to it ("但是 ssh 报这个", "I get this:", "我贴一下：") is
# what the person pasted, though it reads as prose ("IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!")
_POINTED_PASTE = re.compile(
    r"((?:这个|如下|这样|这些|贴(?:一下|一段|过来|给你)|(?<![a-z])(?:this|these|following|below))[ \t]*[:：]?)"
    r"[ \t]*\n[ \t]*\n"
    r"(?![ \t]*(?:[-*+•]|\d+[.)])\s)(?:[^\n]*\S[^\n]*\n){2,}?(?=[ \t]*\n|\Z)",
    re.I,
)


def snapshot_session(turns: Sequence[Turn]) -> SessionSnapshot:
    """Condense a session's cleaned turns, oldest first, into its state now."""
    texts = [_readable(turn) for turn in turns]
    asks = [i for i, turn in enumerate(turns) if turn.role == "user" and not is_ack_or_command(texts[i])]
    goal_at, request = _opening_ask(turns, asks)
    if not request:  # a session no person opened (an /init command): the agent's first words
        spoken = (request_sentences(texts[i], opening=True) for i, t in enumerate(turns) if t.role == "assistant")
        request = next((sentences for sentences in spoken if sentences), [])
    found: dict[str, list[Kept]] = {DONE: [], DECISION: [], NEXT: []}
    asked = set(asks)
    files = MentionedFiles()
    # the next step is agreed at the end: in the last exchange, or the one before a closing "thanks"
    spoke = next((texts[i] for i in range(asks[-1] - 1, -1, -1) if turns[i].role == "assistant"), "") if asks else ""
    window = asks[-2] if len(asks) > 1 and _is_closing(texts[asks[-1]], spoke) else asks[-1] if asks else 0
    # …and once the person leaves ("行 先这样 明天再说 睡了 zzz"), the agent's goodbye ("还没 commit") agrees no step
    gone = asks[-1] if asks and is_leaving(fold(texts[asks[-1]]), spoke) else len(turns)
    reply, read = -1, 0  # the person's turn that answers the turns being read, newest first; their turns read so far
    acted = later_reply = False  # whether the agent went on working after that answer; whether it spoke after
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
            # the agent went on after the answer, though the person first sent another message ("同意你的方案",
            # then "金额一律用 int64 存分", then the agent's reply)
            reply, acted = index, later_reply or (acted and reply == index + 1)
        later_reply = role == "assistant" or (later_reply and role != "user")
        if (role == "user" and index not in asked) or role not in ("user", "assistant"):
            continue
        if files.has_enough() and all(_is_full(kind, kept, early=index < window) for kind, kept in found.items()):
            continue
        answer = texts[reply] if role == "assistant" and reply >= 0 else ""
        down, taken = turned_down(answer, text) if role == "assistant" else ((), False)  # "第一点可以。第二点不行，…"
        verdict = ACCEPTED if taken else _verdict(answer)
        # a day-long session's early turns are read for cues only: the statement finder costs more
        deep = role == "user" and (index == goal_at or (read := read + 1) <= _DEEP_ASKS)
        before = asked_before[index] if role == "assistant" else spoke_before[index]
        view = TurnView(
            role, round_end, index >= window, index == goal_at, verdict, answer, acted, _is_bare(answer), deep,
            texts[before] if before >= 0 else "", handed, edited.get(index, ()),
            role == "assistant" and text.rstrip().endswith(("?", "？")),
        )  # fmt: skip
        items = [i for i in read_items(text, view, files, index) if i.kind == DONE or not among(i.own, down)]
        # a turn's first telling report heads what it did: of too many, each turn's head outranks detail
        reports = (i for i in items if i.kind == DONE and text_weight(i.text) >= 3 and _rank_done(i.own) >= _TELLING)
        head = next(reports, None) if round_end else None
        for item in reversed(items):
            if item.kind == NEXT and (_is_covered(item.own, found[DONE]) or index > gone or a_standing_rule(item.own)):
                continue  # already done later in the session, said after the person left, or a way of working
            rank = (_HEADLINE if item is head else _rank_done(item.own)) if item.kind == DONE else item.rank
            _offer(found[item.kind], item.text, _ROOM[item.kind], rank)
    if goal_at >= 0:
        text = turns[goal_at].text
        goal = goal_with_error(_without_reminders(text), _unquoted(text), _quoted(text), request)
    else:
        goal = goal_of(request)
    if asks and _QUITS.search(quit := fold(texts[asks[-1]])) and not LATER_CUES.search(quit):
        found[NEXT] = []  # "算了，今天脑壳痛，不搞了": the person drops the work, so nothing said before is agreed
    if asks and not found[NEXT] and (plan := _closing_plan(turns, texts, asks[-1])):
        # the session ends on the agent's plan for the work just asked, before any of it was done: that is next,
        # and the steps it lists are not done ("2. 新建 `src/db/index.ts`" under "步骤是：")
        found[NEXT] = [Kept(plan, "", frozenset(), 0)]
        found[DONE] = [kept for kept in found[DONE] if fold(kept.item) not in fold(plan)]
    found[DONE] = _not_taken_out(found[DONE])
    found[DECISION] = standing(found[DECISION])
    newest = {kind: tuple(kept.item for kept in reversed(_best(found[kind], kind))) for kind in found}
    return SessionSnapshot(index_line(request), goal, newest[DONE], newest[DECISION], newest[NEXT], files.recent())


# tool calls that only look: reading, searching, listing (a shell's cat, rg, git status)
_LOOKS = re.compile(
    r"(?:\[tool\][ \t]*)?(?:read\w*|grep|glob|ls|list\w*|search\w*|web\w*|view|find\w*|read_many_files"
    r"|(?:bash|shell|run_shell_command)[ \t]*:[ \t]*"
    r"(?:cat|head|tail|sed -n|rg|grep|ls|find|git (?:status|diff|log|show)))\b",
    re.I,
)
# what the agent says it will do: "我先从第 1、2 步开始", "两边都做：…", "I'll start with the migration"
_WILL = re.compile(
    r"(?<![a-z])(?:i'll|i will|i'm going to|let me|next,? i|first,? i)(?![a-z])"
    r"|我(?:先|来|会|就|从|准备|打算|接下来)|两边都做|都做|先做|步骤是|计划[:：]",
    re.I,
)
_NOT_PLAN = re.compile(r"let me know|i'll be (?:here|around)|if you (?:want|need|like)|需要的话|有问题再|随时")
_LIST_ITEM = re.compile(r"^[ \t]*(?:\d{1,2}[.)、]|[-*•])[ \t]+(\S.*)$", re.M)
_GO_AHEAD = re.compile(
    r"(?<![a-z])(?:shall|should|can|may) i (?:start|begin|go ahead|proceed)|want me to (?:start|begin|go ahead|proceed)"
    r"|ok(?:ay)? to (?:start|proceed)|(?:要|可以|那)?我?(?:就)?(?:开始|动手)(?:了)?吗"
)


def _closing_plan(turns: Sequence[Turn], texts: list[str], ask: int) -> str:
    """Return the plan the agent's last turn lays out for the person's last ask, when nothing of it was done: the
    session ends on that turn, and after the ask the agent only looked (read, searched) and did not ask back. A
    listed plan gives its steps; otherwise the sentence that says what the agent will do."""
    last = len(turns) - 1
    if turns[last].role != "assistant" or last <= ask:
        return ""
    text = texts[last].rstrip()
    waits = text.endswith(("?", "？")) and _GO_AHEAD.search(fold(split_sentences(text)[-1].text)) is not None
    if text.endswith(("?", "？")) and not waits:
        return ""  # a question of its own; "Shall I start with step 1?" only waits for the go-ahead
    between = turns[ask + 1 : last]
    if any(t.role == "user" for t in between):
        return ""
    if any(t.role == "tool" and not _LOOKS.match(t.text.lstrip()) for t in between):
        return ""
    steps = [" ".join(step.split()) for step in _LIST_ITEM.findall(text)]
    # what it will do is said at the end ("我先从第 1、2 步开始。"), not in passing ("let me know if …")
    willing = [
        s.text for s in split_sentences(text)[-2:] if _WILL.search(fold(s.text)) and not _NOT_PLAN.search(fold(s.text))
    ]
    if not (willing or (waits and len(steps) >= 2)):
        return ""
    if len(steps) >= 2:
        return clip("; ".join(steps), ITEM_CHARS, clause=True)
    for sentence in willing:
        if text_weight(sentence) >= 4:
            return clip(" ".join(sentence.split()).rstrip("。."), ITEM_CHARS, clause=True)
    return ""


def _opening_ask(turns: Sequence[Turn], asks: list[int]) -> tuple[int, list[str]]:
    """Return the person's turn that opens the work and its request sentences. An opening that only gives context
    ("quick context: ledger is our billing API", "I prefer tabs") is not what a person calls the session's goal when
    a later turn asks for something: that ask is."""
    opening: tuple[int, list[str]] = (-1, [])
    broken = False  # the opening pastes what broke: the work is its fix
    for i in asks:
        text = _unquoted(turns[i].text)
        request = _own_ask(turns[i].text) or request_sentences(text)
        if not request:
            continue
        if opening[0] >= 0 and broken and _verdict(turns[i].text) == ACCEPTED:
            continue  # "行，改吧。rename 就行" to the agent's fix for the pasted traceback is a go-ahead, no new work
        if opening[0] < 0:
            broken = pasted_error(turns[i].text[:8000], text)[0] >= 0
            # "few things for the invoices api:" over "1. add pagination … 2. cursor based …" lists the work
            if any(ask_rank(sentence, at) >= 0 for at, sentence in enumerate(request)) or lists_numbered(text):
                return i, request
            if _carried_out(turns, i):
                return i, request  # "规则这样定：没有 DateTimeOriginal 的就 fall back 到 CreateDate", and "实现了"
            opening = (i, request)
        elif REQUEST.search(fold(text.lstrip()[:400])) or any(_asks_outright(sentence) for sentence in request):
            # only a sentence that asks outright: an opening's ask the statement finder misreads must not lose
            # to a later "eta 包别动，只做这个接口"
            return i, request
        elif _breakage(turns[i].text, text, request):
            return i, request  # "又挂了：" over a pasted traceback asks for it to be fixed
    return opening


def _carried_out(turns: Sequence[Turn], at: int) -> bool:
    """Tell whether the agent's answer to the person's turn opens by reporting the work done: the turn set work,
    however it was worded ("规则这样定：…" answered by "实现了，`meta.rs` 里新增 `resolve_date()`")."""
    answer = next((turn for turn in turns[at + 1 :] if turn.role != "tool"), None)
    if answer is None or answer.role != "assistant":
        return False
    first = next(iter(split_sentences(_prose(answer.text)[:600])), None)
    return first is not None and is_done(fold(first.text))


def _own_ask(raw: str) -> list[str]:
    """Return the request sentences of the person's own words around a quote, when they ask in so many words.

    "Email from Priya, pasting the whole thing: > From: … > Hi Jay, … For this branch: change "Book now" →
    "Book online"": the email is what the ask is about; the ask is the person's.
    """
    if not _QUOTED_LINE.search(raw):
        return []
    own = request_sentences(_prose(_QUOTED_LINE.sub("", _without_reminders(raw))))
    return own if any(ask_rank(sentence, at) >= 2 for at, sentence in enumerate(own)) else []


_QUOTED_LINE = re.compile(r"^[ \t]*>.*$", re.M)


def _breakage(raw: str, prose: str, request: list[str]) -> bool:
    """Tell whether a turn is a few words over a pasted error ("又挂了：" and a traceback): an ask to fix it."""
    return sum(text_weight(sentence) for sentence in request) <= 6 and pasted_error(raw[:8000], prose)[0] >= 0


def _asks_outright(sentence: str) -> bool:
    """Tell whether a sentence asks for work: from its start, or in a clause after what it says broke that
    asks in so many words ("跑测试挂了，帮我看看", "CI is red, can you check why")."""
    first, *rest = (fold(clause.strip()) for clause in _ASK_CLAUSES.split(sentence))
    return is_ask(first) or any(opens_ask(clause) and is_ask(clause) for clause in rest)


_ASK_CLAUSES = re.compile(r"[,;]\s+|[，；]\s*")


def _context(turns: Sequence[Turn], asked: set[int]) -> tuple[list[int], list[int], dict[int, tuple[str, ...]]]:
    """Return per turn the person's ask and the agent's turn before it, and the files each agent turn changed."""
    asked_before, spoke_before = [-1] * len(turns), [-1] * len(turns)
    edited: dict[int, tuple[str, ...]] = {}
    ask = spoke = owner = -1
    for index, turn in enumerate(turns):
        asked_before[index], spoke_before[index] = ask, spoke
        if turn.role == "user":
            # a bare "ok" asks nothing of its own, though a yes to the agent's question takes what it offered
            offered = index not in asked and spoke >= 0 and turns[spoke].text.rstrip().endswith(("?", "？"))
            ask, owner = (index if index in asked else spoke if offered else -1), -1
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
    if made := _COMMIT_MADE.match(marker):  # from the output, which names the commit: "Committed `3e8d1f0` on …"
        yield clip(f"Committed `{made.group(2)[:7]}` on {made.group(1)}: {made.group(3)}", ITEM_CHARS)
        return
    cut = _CUT_COMMIT.search(marker.split("\n", 1)[0].strip()) if "…" in marker else None
    branch = _NEW_BRANCH.search(marker)
    for message in files.see_marker(marker, at) or ([f"{cut.group(1)}…"] if cut else []):
        yield clip(f"Committed on {branch.group(1)}: {message}" if branch else f"Committed: {message}", ITEM_CHARS)
    if tagged := _TAG.search(marker):
        yield f"Tagged {tagged.group(1)}"
    if pushed := _PUSH.search(marker):
        yield f"Pushed {pushed.group(1)}"


def _without_reminders(text: str) -> str:
    # the session readers drop harness blocks already; a stray one must still not reach a summary
    head, *rest = text.split("<system-reminder")
    return head + "".join(part.partition("</system-reminder>")[2] for part in rest)


_QUITS = re.compile(  # the person drops the work for now: "算了，今天脑壳痛，不搞了", "forget it, not today"
    r"(?:算了|罢了)[，,。\s]*(?:[^，,。]{0,12}[，,]\s*)?(?:先)?不(?:搞|弄|做|想弄)了"
    r"|^(?:forget it|never ?mind)\b(?!,? (?:the|that|this))"
)
# a contraction typed without its apostrophe: "dont", "isnt", "cant", "wont"
_APOSTROPHE_DROPPED = re.compile(
    r"(?<![\w'-])(do|does|did|is|are|was|were|ca|wo|should|would|could|has|have|had)nt(?![\w'-])", re.I
)


def _readable(turn: Turn) -> str:
    """Return the words of a turn the state is read from: the person's own prose, the agent's reply."""
    if turn.role == "tool":
        return turn.text
    text = _without_reminders(turn.text)
    if turn.role == "user":  # a pasted log line is never a step, a decision or the goal
        return stop_chinese_lines(_APOSTROPHE_DROPPED.sub(r"\1n't", _prose(text)))  # "dont apply": "don't apply"
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
    return squash(" ".join(line for line in text.splitlines() if _QUOTE_MARK.match(line))) if ">" in text else ""


_DECLINED = re.compile(r"(?:no thanks?|no need|nope|nah|no)\b\W*|(?:不用|不要|不需要|没必要|算了)[了吧啊]?\W*")


def _is_closing(text: str, spoke: str = "") -> bool:
    """Tell whether the person's last words only close the session: "thanks, that's it for today".

    spoke: the agent's turn before them, which a plan said while leaving names if it is a step of the work.
    """
    folded = fold(text.strip())
    head = ACK.match(folded) or RESULT_ACK.match(folded)
    if spoke.rstrip().endswith(("?", "？")) and (no := _DECLINED.match(folded)):
        # "no, nobody uses brew on the jump hosts. thx" turns the agent's last offer down and asks nothing more
        rest = re.sub(r"(?:没有?人|谁都不|都不)用", " ", CLOSING_WORDS.sub(" ", folded[no.end() :]))  # no "用 X" asked
        return text_weight(rest) <= 10 and not (REQUEST.search(rest) or DIRECTIVE_CUES.search(rest))
    if head is None or (not LATIN_WORD.match(folded) and not CJK_RUN.match(folded)):
        return False
    # "好了，两个 pod 都 Running 了。谢谢，先这样" reports news, which opens an exchange of its own;
    # a what-if ("if it turns out slow we might …, but let's see") and the person's own plan as they
    # leave ("晚上还要背单词 先撤了") open none
    # …nor does who the person is, said on the way out: "搞掂，唔该。我广州长大的，打字偶尔会冒粤语…瞓觉了。"
    said = (s.text for s in split_sentences(folded[head.end() : head.end() + 400]))
    rest = " ".join(
        s
        for s in said
        if not (SUPPOSE_CUES.search(s) or is_leaving(s, spoke) or drops_side_matter(s))
        and not (IDENTITY.search(s) and not REQUEST.search(s))
    )
    return text_weight(ACK.sub(" ", CLOSING_WORDS.sub(" ", MORE_CLOSING_WORDS.sub(" ", rest)))) < 3


def _verdict(text: str) -> str | None:
    """Return how the person answered the agent: ACCEPTED ("ok 加 default"), OVERRULED ("不对，…") or None."""
    folded = fold(text.strip()[:400])
    head = _FIRST_CLAUSE.match(folded)
    # "sha2 可以加": a short first clause that says yes takes the proposal too
    accepted = ACCEPT_CUES.match(folded) is not None or (head is not None and _YES.search(head.group()) is not None)
    # …or takes back what it did: "and you edited an applied migration?? … put that file back exactly"
    turned = (
        overrules(folded) or PROHIBITION_CUES.search(folded) or REVERSE_CUES.match(folded) or UNDO_CUES.search(folded)
    )
    if turned and not accepted:
        return OVERRULED
    return ACCEPTED if accepted else None


def _is_covered(item: str, done: list[Kept]) -> bool:
    """Tell whether a next step is mostly the words of something done after it was said."""
    ours = words_of(item)
    return len(ours) >= 2 and any(len(ours & words_of(other.item)) >= 0.6 * len(ours) for other in done)


def _is_bare(answer: str) -> bool:
    """Tell whether a yes says no more than yes: "ok 加 default", "Sure.", "行。", "sha2 可以加"."""
    folded = fold(answer.strip()[:200])
    yes = ACCEPT_CUES.match(folded)
    return yes is None or text_weight(SENTENCE_END.split(folded[yes.end() :], maxsplit=1)[0]) < 3


_ROOM = {DONE: 2 * MAX_DONE, DECISION: 3 * MAX_DECISIONS, NEXT: MAX_ITEMS}
_LIMIT = {DONE: MAX_DONE, DECISION: MAX_DECISIONS, NEXT: MAX_ITEMS}
_TELLING = 1  # what was done says more than "all 12 tests pass", so checks alone give way first
_HEADLINE = 2  # a turn's first telling report, so a long last turn's detail leaves room for earlier work


def _is_full(kind: str, kept: list[Kept], *, early: bool) -> bool:
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


def _offer(kept: list[Kept], item: str, room: int, rank: int = 0) -> None:
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
        if key != other.key and _COMMITTED.match(item) and _COMMITTED.match(other.item):
            continue  # two commits are two pieces of work: "feat(staging): eks 1.30 …" and "feat(prod): eks 1.30 …"
        if _captions_apart(item, other.item):
            continue  # so are two files' changes: "`Appfile`: app_identifier(…)" and "`Matchfile`: app_identifier(…)"
        if key == other.key or len(tokens & other.tokens) >= 0.75 * min(len(tokens), len(other.tokens)):
            # of two near duplicates the one that names more stays: "已提交并开 PR #279：…" over "Committed on …";
            # it holds more tokens the other lacks than the other holds tokens it lacks
            if len(tokens) > len(other.tokens):
                ours, theirs = named_values(item), named_values(other.item)
                # or it goes on where the other stops: "回复还是用中文吧 我看得快一点, commit msg stay English"
                ours_key, theirs_key = _lead_free(key), _lead_free(other.key)  # "and don't …" goes on "Don't …"
                holds = ours_key.startswith(theirs_key) and len(ours_key) > len(theirs_key) + 4
                if holds or _weigh(ours, fold(other.item).casefold()) > _weigh(theirs, folded):
                    kept[at] = Kept(item, key, tokens, max(rank, other.rank))
            return
    kept.append(Kept(item, key, tokens, rank))


_COMMITTED = re.compile(r"Committed(?: on [^:]+)?: ")


# a report that takes a thing out again, and one that put it in: "limiter 拿掉了" after "加了 `ulule/limiter`"
_TAKEN_OUT = re.compile(r"拿掉|删掉|去掉|移除|撤掉|(?<![a-z])(?:removed|dropped|ripped out|took out)(?![a-z])")
_PUT_IN = re.compile(r"加了|装了|引入|接入|(?<![a-z])(?:added|installed|pulled in|brought in)(?![a-z])")


def _not_taken_out(done: list[Kept]) -> list[Kept]:
    """Drop a report of a thing put in that a later report of the session takes out again (``done`` is newest
    first): "加了 `github.com/ulule/limiter/v3`" once "limiter 拿掉了" follows is no work that stands."""
    kept: list[Kept] = []
    out: set[str] = set()
    for report in done:
        folded = fold(report.item).casefold()
        names, taken = _long_words(folded), _TAKEN_OUT.search(folded)
        if taken is None and _PUT_IN.search(folded) and names & out:
            continue
        kept.append(report)
        if taken is not None and len(names) <= 4:  # a report of that alone
            out |= _long_words(folded[: taken.end() + 40]) - {taken.group()}
    return kept


_BARE_FILE = re.compile(r"[A-Z][a-z]+file")  # "Appfile", "Makefile", "Dockerfile"
_FILE_HEAD = re.compile(r"`?([\w.-]+(?:/[\w.-]+)*)`?\s*[:：]\s*\S")


def _captions_apart(item: str, other: str) -> bool:
    """Tell whether two items open on the names of two different files ("`Appfile`: …", "`Matchfile`: …")."""
    mine, theirs = _FILE_HEAD.match(item), _FILE_HEAD.match(other)
    if mine is None or theirs is None or mine.group(1) == theirs.group(1):
        return False
    return _is_file_name(mine.group(1)) or _BARE_FILE.fullmatch(mine.group(1)) is not None


def _long_words(folded: str) -> set[str]:
    return {word for word in re.split(r"[^a-z0-9_]+", folded) if len(word) >= 4}


def _lead_free(key: str) -> str:
    """Drop the connectives a key opens with: "anddontcreate…" → "dontcreate…", "还有测试跑…" → "测试跑…"."""
    return CONNECTIVES.sub("", key)


def _weigh(values: list[str], other: str) -> int:
    """Weigh the values an item names that the other item (folded) does not."""
    return sum(value_weight(value) for value in values if value.strip("`").casefold() not in other)


def _best(kept: list[Kept], kind: str) -> list[Kept]:
    """Return the items to show, newest first: of too many, the person's own words and the telling reports win."""
    if len(kept) <= _LIMIT[kind]:
        return kept
    chosen = sorted(range(len(kept)), key=lambda i: (-kept[i].rank, i))[: _LIMIT[kind]]
    return [kept[i] for i in sorted(chosen)]
