"""Where a rule holds, said in a remark of its own: "That goes for every project.", "这个所有项目都适用。"

A remark after a rule that says it holds everywhere makes the rule global and is no candidate itself;
one that says nothing but the reach ("thats every repo not just this one") makes the rules of its
paragraph before it global. Said right after a sentence on its line, such a remark also says that
sentence is a rule the person stands by (``widens_the_one_before``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from incremind_daemon.pipeline.cues import fold
from incremind_daemon.pipeline.scope import EVERY_PROJECT
from incremind_daemon.store.records import Candidate

# how far back a remark on reach widens the rules of its paragraph, in characters (one or two sentences)
REACH_BACK = 160


def with_reach(text: str, found: list[Candidate]) -> list[Candidate]:
    """Make global a rule followed by a remark that it holds everywhere; drop that remark as a candidate.

    "以后改动超过 5 个文件先列计划。这个所有项目都适用。", "…. Same for all my repos.", and a remark that
    says nothing but the reach ("thats every repo not just this one") after the rules of its paragraph.
    """
    out: list[Candidate] = []
    for candidate in found:
        if _only_reach(fold(candidate.quote).casefold()):
            before = text[: candidate.start]
            paragraph = before.rfind("\n\n")
            out = [
                replace(c, scope="global")
                if c.end > paragraph and candidate.start - c.end <= REACH_BACK and not c.reported
                else c
                for c in out
            ]
            continue
        scoped = _scoped_after(text, candidate)
        if out and out[-1].scope == "global" and _remarks(text, out[-1], scoped):
            continue
        out.append(scoped)
    return out


_NEXT_SENTENCE = re.compile(r"[ \t]*([^\n。！？!?]{1,60}?)(?:[。！？!?]|\.(?!\w)|$)", re.M)


def _scoped_after(text: str, candidate: Candidate) -> Candidate:
    after = _NEXT_SENTENCE.match(text, candidate.end)
    if candidate.scope == "global" or candidate.reported or after is None:
        return candidate
    return replace(candidate, scope="global") if _said_everywhere(fold(after.group(1)).casefold()) else candidate


def _remarks(text: str, rule: Candidate, candidate: Candidate) -> bool:
    after = _NEXT_SENTENCE.match(text, rule.end)
    return (
        after is not None and after.start(1) == candidate.start and _said_everywhere(fold(candidate.quote).casefold())
    )


def holds_everywhere(folded: str) -> bool:
    """Tell whether a sentence says what it sets holds in every project: "Commit messages in English, conventional
    commits style — that goes for all my repos", "这条所有项目都适用"."""
    return EVERY_PROJECT.search(folded) is not None and _HOLDS.search(folded) is not None


def _said_everywhere(folded: str) -> bool:
    return (
        len(folded) <= 60
        and EVERY_PROJECT.search(folded) is not None
        and (_HOLDS.search(folded) is not None or _only_reach(folded))
    )


# the words a remark on reach is made of, besides the reach itself: "that's for every repo, not just this one"
_REACH_WORDS = frozenset(
    {
        *("that", "that's", "thats", "this", "it", "it's", "its", "which", "goes", "go", "for", "applies", "apply"),
        *("to", "holds", "hold", "same", "is", "too", "also", "and", "btw", "ok", "okay", "here", "in", "the"),
        *("rule", "one", "ones", "all", "of", "them", "please", "pls", "no", "exceptions", "exception", "ever"),
    }
)
_REACH_CHARS = frozenset("这那个条规则也都适用一样同理通不只是里的了哦啊吧呢全部")
_NOT_JUST = re.compile(r"not (?:just|only) (?:in )?(?:this (?:one|repo|project)|here|[\w.-]+)|不只是?[^，。,]{0,8}")


def _only_reach(folded: str) -> bool:
    """Tell whether a short sentence says nothing but where a rule holds ("That's for every repo.")."""
    if len(folded) > 60 or EVERY_PROJECT.search(folded) is None:
        return False
    rest = _NOT_JUST.sub(" ", EVERY_PROJECT.sub(" ", folded))
    words = re.findall(r"[a-z']+|[\u4e00-\u9fff]", rest)
    return all(w in _REACH_WORDS if w.isascii() else w in _REACH_CHARS for w in words)


# what a remark on a rule's reach says of it: "…都适用", "…也一样", "same for …", "that goes for …"
_HOLDS = re.compile(
    r"(?<![a-z0-9_])(?:same|appl(?:y|ies)|goes for|holds?)(?![a-z0-9_])|适用|一样|都这样|也这样|同理|通用"
)


# a remark on the sentence before it: "Applies to all my repos, client or not", "that goes for anything you write
# for me", "same for all my repos" (not "Two rules that hold in every repo:", which introduces what follows, nor "Do
# it for all the existing partials now", an ask)
_WIDENS = re.compile(
    r"^\W*(?:(?:and|also|oh and) )?(?:(?:that|this|it|which)(?:'s| is)? )?(?:also )?(?:goes|applies|holds|counts)"
    r"(?: too| as well)? (?:for|to|in|across) (?:all|every|any|each)"
    r"|^[^.;:!?]{0,40}?, (?:that|this|which) (?:also )?(?:goes|applies|holds) (?:for|to|in|across)"
    r" (?:all|every|any|each)"
    r"|^\W*(?:the )?same (?:for|in|across|with) (?:all|every|any|each)"
)


def widens_the_one_before(whole: str) -> str | None:
    """Tell what a short sentence (folded) that only says where rules hold widens: "paragraph" when it says nothing
    but the reach ("thats every repo not just this one"), "sentence" when it points back at the one before it
    ("Applies to all my repos, client or not"), else None."""
    folded = whole.casefold()
    if len(folded) > 90:
        return None
    if _only_reach(folded):
        return "paragraph"
    return "sentence" if _WIDENS.search(folded) is not None else None
