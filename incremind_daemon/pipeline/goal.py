"""Read the goal of a session: the person's opening ask, in their words, shortened at whole sentences.

The opening turn is read sentence by sentence, greetings and polite openers left out; when it is too
long for the goal, the sentences that ask go first (an "1) … 2) …" item, an ask caption, an ask word),
then the rest in order, each whole or cut at its last clause, never mid-word. A line of a log or
traceback the ask points at goes beside the sentence that points at it (pastes.py).
"""

from __future__ import annotations

import logging
import re
from itertools import pairwise

from incremind_daemon.pipeline.at_hand import COMPLAINT
from incremind_daemon.pipeline.candidates import extract_candidates
from incremind_daemon.pipeline.cues import (
    ASK_CAPTION,
    ASK_CUES,
    OPENING,
    POLITE,
    REFINE,
    TASK_TIMES,
    fold,
)
from incremind_daemon.pipeline.dictation import dictated_parts
from incremind_daemon.pipeline.lasting import COMMUNICATION, IDENTITY, REQUEST
from incremind_daemon.pipeline.markdown import (
    CJK_RUN,
    as_item,
    clean_sentence,
    clip,
    join_sentences,
    named_values,
    split_blocks,
    text_weight,
)
from incremind_daemon.pipeline.openers import CONTEXT_OPENER, INTRO_CUES, INTRODUCTION, SCENE_CAPTION
from incremind_daemon.pipeline.organize import split_sentences
from incremind_daemon.pipeline.pastes import pasted_error, sentences_before
from incremind_daemon.pipeline.pieces import SPOKEN_PAUSE
from incremind_daemon.pipeline.prose import stop_chinese_lines
from incremind_daemon.pipeline.stance import switched_from
from incremind_daemon.pipeline.state_cues import CONTEXT_CAPTION, is_ack_or_command, strip_prefix
from incremind_daemon.pipeline.traditional import as_mandarin

log = logging.getLogger(__name__)

INDEX_LINE_CHARS = 80
GOAL_CHARS = 280
_SAID_ENOUGH = 100  # once what is wrong is said in this many characters, a rule said on the way ends the goal
_QUOTE_MARK = re.compile(r"^[ \t]*>[ \t]?", re.M)
# who wants it, before the ask: "I want proper flushing", "we need a replay script", "我想要…"
# who wants it, or who is to do it ("我们把测试库迁到 SQLite 吧": the Chinese "let's"), before the ask itself
_WANTER = re.compile(
    r"^(?:i|we)(?:'d| would)? (?=(?:want|need|like|have to|must)\b)|^我们?(?=想|要|需要|希望)"
    r"|^(?:我们|咱们|咱)(?:今天|现在|先|就|一起|来)*(?=把|帮|给|加|改|修|做|写|换|删|搞|整理|实现|支持|迁|升级|优化|看)"
)

# a short ask that leans on the sentence before it: "Can you find out why?", "帮我看看为什么"
_LEANING = re.compile(r"\b(?:why|it|this|that|these|those)\b|为什么|这个|这些|它")

_GOES_BACK = re.compile(r"改回|换回|切回|转回|(?<![a-z])(?:switch|go|move|change) (?:it |them )?back to(?![a-z])")
_DASHED = re.compile(r"\s[—–]\s+")  # "… so preemption goes back on in prod — remove the override …"
# a bare ask over a numbered list of asks: "Could you please:", "Specifically:", "请你："
_ASK_LEAD = re.compile(
    r"^(?:(?:so,? )?(?:could|can|would) you(?: please)?|please|specifically|i(?:'d| would) like you to"
    r"|(?:here'?s )?what i(?:'d like| want| need)(?: from you| today| tonight)?|请你?|麻烦你?|帮我)\s*[:：]$"
)
# where an ask stands among others: "First, …", "Then, if there's time, …"
_IN_TURN = re.compile(
    r"^(?:(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|finally|lastly|then|next|also|and)[,:]?\s+)+"
    r"(?:if (?:there's|there is|we have) time,?\s+)?"
)
_LIKED = re.compile(r"like (?:a|an|the|to|it|them|you to)\b")  # "I'd like an --enable-preemption flag"
_CAPTION = re.compile(
    r"^(?:today|task|goal|todo|ask|今天|任务|目标|for (?:this|the) (?:branch|pr|ticket|change|task)|"
    + TASK_TIMES
    + r"|(?:这个|这次的?)(?:分支|pr|需求|任务))\s*[:：]?\s*"
)

_OPENS = re.compile(r"[A-Z][a-z']*\b(?![./-]\w)")  # "Can you …", "I'd like …", not "CI is red", "README.md …"

_NUMBERED = re.compile(r"^[ \t]*\d{1,2}[.)、][ \t]+\S", re.M)

_NUMBER = re.compile(r"\d{1,2}\) ")

_ITEM_RANK = 8  # above any sentence's own rank

_PATH = re.compile(r"[\w.-]+/[\w./-]+\.\w+(?:\s*(?:\+|,|and)\s*[\w./-]+\.\w+)*\s*$")
_WANTS = re.compile(r"(?:so |and )?(?:i )?(?:want|need|would like|'d like) (?:a|an|the|to|it|them)\b")
_TYPED_END = re.compile(r"(?<=[a-z)`'\"][.!?])\s+(?=[a-z])|(?<=[。！？])")  # "… for a frame. see X.kt. we use …"

_CLAUSE_BREAK = re.compile(r"[,;:]\s+|[，；：]\s*")

# a turn from the way in to the ask: "Now the actual problem.", "Anyway, the real issue:", "说正事。", "言归正传"
_PIVOT = re.compile(
    r"^(?:(?:now|ok(?:ay)?|so|anyway|anyhow)[,\s]+)*(?:on to )?(?:the |my )?(?:actual|real)"
    r" (?:problem|issue|ask|question|task|thing)\s*[.:：!]?$"
    r"|^(?:now|on to|anyway)[,\s]+(?:the |my )?(?:problem|issue|ask|question|task)\s*[.:：!]?$"  # "Now the problem."
    r"|^(?:好了?|那么|ok)?[，,\s]*(?:说正事|言归正传|回到正题|聊正事|正事)(?:吧|了)?\s*[。.:：!！]?$"
)
# …or the pivot opens the sentence of the ask: "Actual problem: a bunch of pods in payments have been Pending"
_PIVOT_LEAD = re.compile(
    r"^(?:(?:now|ok(?:ay)?|so|anyway|anyhow)[,\s]+)*(?:the |my )?(?:actual|real) (?:problem|issue|ask|question|task)"
    r"\s*[:：—–-]\s*\S|^(?:好了?|那么)?[，,\s]*(?:说正事|正事|言归正传)\s*[:：—–]\s*\S"
)

_GREETING = re.compile(
    r"(?:(?:good )?(?:morning|afternoon|evening)|(?:hi|hey|hello)(?: again| there| all)?)"
    r"(?:,? (?:claude|gemini|codex))?[\s!.,]*|(?:claude|gemini|codex)[\s!.,]*"
    r"|(?:早上好|早安|早|下午好|晚上好|周末好|周末愉快)[\s!！。.,，]*"
)


def lists_numbered(text: str) -> bool:
    """Tell whether a turn lists two or more numbered items ("1. add pagination … 2. cursor based …")."""
    return len(_NUMBERED.findall(text[:4000])) >= 2


def _captioned(sentence: str) -> list[str]:
    """Cut a sentence typed in lower case where an ask caption opens the next: "… the reply to him is on me. what
    I want from you: make `lint` reject …" (a caption opens the ask, though no capital letter does)."""
    parts: list[str] = []
    start = 0
    for end in _TYPED_END.finditer(sentence):
        following = fold(sentence[end.end() : end.end() + 40])
        # …or where the next one asks: "tonight: the booking page. clients pick … want a grid of buttons instead"
        # …and before a sentence that only names the files: "… grouped by hour. lib/live/booking_live.ex + …"
        if end.start() > start and (ASK_CAPTION.match(following) or _WANTS.match(following) or _PATH.match(following)):
            parts.append(sentence[start : end.start()])
            start = end.end()
    return [*parts, sentence[start:]]


def squash(text: str) -> str:
    return " ".join(_QUOTE_MARK.sub("", text).split()).rstrip(" ,，:：")


def request_sentences(text: str, *, opening: bool = False) -> list[str]:
    """Return the first sentences of a request, greetings and polite openers left out."""
    sentences: list[str] = []
    size = 0
    text = stop_chinese_lines(text)
    numbered = lists_numbered(text)  # "Two things today. 1) … 2) …": each item is asked
    items = 0
    asked, checked = False, 0  # whether a sentence read so far asks, and how many were looked at
    for block in split_blocks(text[:4000]):
        # a list under "Update these:" continues the sentence: "Update these: a, b"; a numbered one under "Could you
        # please:" is the asks, each its own
        asks_each = numbered and sentences and _ASK_LEAD.match(fold(sentences[-1]))
        if block.item and sentences and sentences[-1].endswith((":", "：", ",")) and not asks_each:
            sentences[-1] += ("" if sentences[-1].endswith("：") else " ") + as_item(block.text) + ","
            continue
        items += block.item and numbered
        said_in = (part for sentence in split_sentences(block.text) for part in _captioned(sentence.text))
        said_in = (said[a:b] for said in said_in for a, b in dictated_parts(said, 0, len(said)))  # talk with no stops
        for at, said in enumerate(said_in):
            cleaned = clean_sentence(said)
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
        # enough to find the ask behind an introduction; a longer one (who the person is, the repo, its stack,
        # then "Problem: …") is read on to its first ask, up to ten goals' worth
        if size > 3 * GOAL_CHARS:
            asked = asked or any(ask_rank(s, i) >= 2 for i, s in enumerate(sentences[checked:], start=checked))
            checked = len(sentences)
            if asked or size > 10 * GOAL_CHARS:
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


def index_line(request: list[str]) -> str:
    if not request:
        return ""
    # a title says what the session is about, not the greeting, mood or who the person is it opens with:
    # "早. 先講一件事: 以後不用英文回我了…", "tired, english today. reply in Chinese pls"
    request = request[next((i for i, s in enumerate(request) if not _leads_in(s)), 0) :]
    line = request[0] if len(request[0]) >= 24 else join_sentences(request[:2], INDEX_LINE_CHARS)
    # "…下面是 adb logcat 抓到的：" over a paste: the title ends on the words, not on the colon
    return clip(line, INDEX_LINE_CHARS, clause=True).rstrip(" ,，:：;；、—–-")


def _leads_in(sentence: str) -> bool:
    if _about_the_person(sentence):
        return True
    return text_weight(sentence) < 3 and not named_values(sentence) and not is_ask(fold(as_mandarin(sentence)))


def goal_with_error(raw: str, prose: str, quoted: str, request: list[str]) -> str:
    """Return the goal of the opening turn, with the error line of what it pasted after the sentence before it.

    raw: the turn's text; prose: the same with what was pasted blanked out; quoted: the lines it quotes.
    """
    at, error = pasted_error(raw[:8000], prose)
    if at < 0 or not request:
        return goal_of(request, quoted)
    # the error line takes the room the ask leaves; it takes the room of the ask's context only when the
    # person's words name no file, test or value of their own, so the paste is what says what broke
    goal = goal_of(request, quoted, GOAL_CHARS - len(error) - 3)
    if named_values(" ".join(request)) and goal != (roomy := goal_of(request, quoted)):
        return roomy
    said = request[max(1, sentences_before(request, raw[:at])) - 1]
    if said in goal:
        end = goal.index(said) + len(said.rstrip(",，:："))  # "CI is red (Error: …), runner-3 has no docker"
        return f"{goal[:end]} ({error}){goal[end:]}"
    return f"{goal} ({error})"


def goal_of(request: list[str], quoted: str = "", limit: int = GOAL_CHARS) -> str:
    """Return the ask in the person's words: whole sentences that fit, the asking ones first, "…" where cut.

    A goal ends on no comma or colon: "有几本书名拼音不对：" over a paste led into the next sentence, which did not fit.
    """
    return _goal_of(request, quoted, limit).rstrip(" ,，、;；:：")


def _goal_of(request: list[str], quoted: str, limit: int) -> str:
    if not request:
        return ""
    # after "Now the actual problem." or "说正事。" comes the ask; what came before was the way in
    pivot = next((i for i, s in enumerate(request[:-1]) if text_weight(s) <= 8 and _PIVOT.match(fold(s))), -1)
    lead = next((i for i, s in enumerate(request) if i > 0 and _PIVOT_LEAD.match(fold(s))), None)
    request = request[pivot + 1 :] if lead is None or pivot >= 0 else request[lead:]
    # who the person is and how to talk to them are no part of the ask, however much room there is
    request = [s for s in request if not _about_the_person(s)] or request
    # …nor is an opener that only says what follows: "A few things today, sorry in advance for the long message."
    request = request[next((i for i, s in enumerate(request) if not CONTEXT_OPENER.match(fold(s))), 0) :]
    request = [s for s in request if not is_ack_or_command(s)] or request  # "Thank you!" after the ask
    whole = " ".join(join_sentences(request, len(" ".join(request))).split())
    if len(whole) <= limit:
        return whole
    # what the person quotes ("> I must ask whether the penalty can be waived") is someone else's ask, not theirs
    others = {i for i, sentence in enumerate(request) if quoted and squash(sentence) in quoted}
    ranks = [min(ask_rank(s, i), 0) if i in others else ask_rank(s, i) for i, s in enumerate(request)]
    _pass_captions(request, ranks)
    ranked = sorted(range(len(request)), key=lambda i: (-ranks[i], i))
    request, cut = list(request), set()
    chosen: list[int] = []
    size = 0
    if ranks[ranked[0]] < 2:
        # no sentence asks in so many words: what the person opens with says what is wrong ("photos in the
        # carousel flicker when you scroll …, see TrailPhotoCarousel.kt"), read in order (who the person is was
        # left out above), not a shorter aside after it ("screen recording from the A14 if it helps: …"), and past
        # the way into the project, to what went wrong: "evening, side project time. tidy-photos is my little Rust
        # CLI: walks a photo dir, … I bumped deps over the weekend and now it doesn't build"
        wrong = next((i for i, sentence in enumerate(request) if _goes_wrong(fold(as_mandarin(sentence)))), 0)
        start = wrong if all(_way_in(s) or ranks[i] < 0 for i, s in enumerate(request[:wrong])) else 0
        opening = " ".join(join_sentences(request[start:], len(whole)).split())
        # up to a rule said on the way, once half the room says what is wrong ("… for a frame. see X.kt. we use
        # Glide for images here, dont pull in another library"): the rule is an insight of its own, and may be
        # retired later
        said = _TYPED_END.split(opening)
        kept = next(
            (
                i
                for i, part in enumerate(said)
                if len(" ".join(said[:i])) >= min(limit // 2, _SAID_ENOUGH)
                and extract_candidates(part, limit=1, conversational=True)
            ),
            0,
        )
        return clip(" ".join(said[:kept] if kept else said), limit, clause=True)
    for i in ranked:
        if ranks[i] < 2 and _about_the_person(request[i]):
            continue  # who the person is and how to talk to them, said on the way in, are no part of the ask
        if size + len(request[i]) + 2 > limit and ranks[i] >= 2 and len(request) > 1:
            # a long sentence of the ask keeps its last clause, where the ask is: "…, so add a Holm correction"
            tail, number = _last_clause(request[i]), _NUMBER.match(request[i])
            tail = f"{number.group()}… {tail}" if tail and number else tail
            if tail and size + len(tail) + 4 <= limit:
                request[i] = tail
                cut.add(i)
            elif not any(ranks[c] >= 2 for c in chosen) and limit - size >= limit // 2:
                request[i] = clip(request[i], limit - size - 2, clause=True)  # the ask, cut, before any aside
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
    return goal if chosen[-1] == len(request) - 1 or goal.endswith("…") else clip(goal + " …", limit)


def _last_clause(sentence: str) -> str:
    """Return a sentence's last clause if it says something: "…, so add a Holm correction on top"."""
    clauses = _CLAUSE_BREAK.split(sentence)
    return clauses[-1].strip() if len(clauses) > 1 and text_weight(clauses[-1]) >= 4 else ""


# what happened since the last session, told before the ask
_NEWS = re.compile(
    r"(?<![a-z])(?:went (?:fine|well|smoothly|out|live)|approved|got (?:a )?(?:review|approval)|merged|shipped|landed"
    r"|(?:is|are) (?:out|live)|finished|succeeded)(?![a-z])|上线了|合了|合并了|批了|通过了|发布了|顺利"
)


_DECIDED = re.compile(r"^(?:decision|decided|we (?:agreed|decided)|决定|定了|我们决定)\s*[:：]")
_DIES = re.compile(
    r"(?<![a-z])(?:dies|died|dying|crashing|(?:won't|doesn't|does not|can't|no longer) (?:start|build|compile|launch))"
    r"(?![a-z])|闪退|起不来"
)


# what the project introduced just before does, said on the way in: "It talks to B2 through kurin/blazer, …"
_GOES_ON = re.compile(r"^it (?:talks|runs|uses|reads|keeps|walks)\b")


def _way_in(sentence: str) -> bool:
    """Tell whether each part of a sentence only sets the scene or says what the project is: "ok different repo,
    side project time. photoark is my Go CLI that backs up …", "It talks to B2 through kurin/blazer, …"."""
    for part in _TYPED_END.split(sentence):
        folded = fold(part.strip())
        scene = text_weight(part) <= 6 and not named_values(part) and not is_ask(folded)
        if not (scene or INTRODUCTION.match(folded) or _GOES_ON.match(folded)):
            return False
    return True


def _goes_wrong(folded: str) -> bool:
    """Tell whether a sentence, folded as Mandarin, says what goes wrong: "now the app dies on launch"."""
    return bool(COMPLAINT.search(folded) or _DIES.search(folded))


def ask_rank(sentence: str, position: int) -> int:
    """Rank a sentence of the opening request by how much of the ask it carries."""
    if _NUMBER.match(sentence):  # each numbered item is asked, though it opens with a rule, so each goes first
        return _ITEM_RANK
    sentence = as_mandarin(sentence)  # "睇下点解" asks as "看下为什么" does
    folded = fold(sentence)
    if _introduces(sentence):
        return -1
    if _DECIDED.match(folded) and not _about_the_person(sentence):
        return 2  # a decision the session opens on is the work ("Decision: switch to bf16 autocast from now on")
    # …or after a dash: "Good news: Priya signed off, so preemption goes back on in prod — remove the override from …"
    # (not a change of mind: "actually let's go with plotly, i want tooltips — write html instead of png" refines)
    first, *after = _DASHED.split(folded)
    asks = is_ask(folded) or (not REFINE.search(first) and any(is_ask(part) for part in after))
    # …or after a space typed for a stop: "成绩单的接口 文档…在 docs/api/report-card.md 你先看下 今天要把列表…写出来"
    asks = asks or any(is_ask(part) for part in SPOKEN_PAUSE.split(folded)[1:])
    # "Bug: … chart labels are an hour off. src/lib/charts/OrdersPerHour.svelte" is asked by its caption
    if not asks and not ASK_CAPTION.match(folded) and extract_candidates(sentence, limit=1, conversational=True):
        # how to work, said on the way in ("answer in English", "poetry, not pip"): not the ask; a switch of what is
        # used is work to do ("we're switching the scheduler from SM-2 to FSRS"), though no ask says so
        # …and so is going back to what was used before ("front matter 算了 还是改回 YAML 吧 …")
        return 2 if switched_from(sentence) or _GOES_BACK.search(folded) else -1
    if not asks and not ASK_CAPTION.match(folded) and _NEWS.search(folded):
        return 0  # "prod upgrade went fine this morning", "Oskar approved !151, merged": news before the ask
    rank = 2 if asks else 0
    rank += 3 if ASK_CAPTION.match(folded) else 0
    rank += (1 if position == 0 else 0) + (1 if ASK_CUES.search(folded) else 0)
    # what goes wrong says what the ask is about before other context ("now the app dies on launch on my phone")
    return max(rank, 1) if _goes_wrong(folded) else rank


def is_ask(folded: str) -> bool:
    # "Then, if there's time, let's prepare v0.4.0", "First, I'd like an --enable-preemption flag"
    wanted = _WANTER.sub("", _CAPTION.sub("", _IN_TURN.sub("", folded)))
    return bool(REQUEST.search(folded) or ASK_CUES.match(wanted) or _LIKED.match(wanted))


def _about_the_person(sentence: str) -> bool:
    """Tell whether a sentence says who the person is or how to talk to them (not "背景：…", the task's setting)."""
    folded = fold(as_mandarin(sentence))
    introduces = INTRO_CUES.match(folded) and not folded.startswith(("背景", "补充"))
    return bool(introduces or IDENTITY.search(folded) or COMMUNICATION.search(folded))


def introduces_only(folded: str) -> bool:
    """Tell whether a folded sentence introduces the person or only says context follows: it settles nothing."""
    return INTRO_CUES.match(folded) is not None or CONTEXT_OPENER.match(folded) is not None


def _introduces(sentence: str) -> bool:
    folded = fold(as_mandarin(sentence))
    return bool(
        SCENE_CAPTION.match(folded)
        or INTRO_CUES.match(folded)
        or CONTEXT_CAPTION.match(folded)
        or CONTEXT_OPENER.match(folded)  # "A few things today, sorry in advance for the long message."
    )


def _pass_captions(request: list[str], ranks: list[int]) -> None:
    """Move an ask caption's weight to the ask it leads into: "Task: the runs finished. I want a table: …"."""
    for i in range(len(request) - 1):
        folded, after = fold(request[i]), fold(request[i + 1])
        if ranks[i] >= 3 and ASK_CAPTION.match(folded) and not is_ask(folded) and is_ask(after):
            ranks[i], ranks[i + 1] = ranks[i] - 3, ranks[i + 1] + 3
            # what the caption says leads into the ask, before other context: "tonight: the booking page. clients
            # pick a slot from a plain <select> …" over "want a grid of buttons instead"
            ranks[i] = max(ranks[i], 1)
