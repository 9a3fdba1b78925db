"""Mark where a query's words stand in a hit's text, in a window of it: the snippet search shows.

Matching is on the folded text (width, case, traditional characters), the
same folding the index uses. A Latin word is marked where it stands whole or
with an ending the stemmer takes off ("deploy" in "deploys"), never inside
another word ("use" in "user"); Chinese, written without spaces, is marked
wherever the segmenter's word stands.
"""

from __future__ import annotations

import re

from incremind_daemon.store.tokenizer import fold_text

MARK_OPEN = "«"
MARK_CLOSE = "»"
SNIPPET_WIDTH = 160


def mark_snippet(text: str, words: list[str], *, width: int = SNIPPET_WIDTH) -> str:
    """Cut a window of text around the first query word and mark every word in it «like this».

    Matching is on the folded text (width, case, traditional characters), the
    same folding the index uses, so what the index matched is what is marked.
    """
    folded, offsets = fold_text(text)
    spans: list[tuple[int, int]] = []
    for word in words:
        at = folded.find(word)
        while at != -1 and len(spans) < 64:
            if _whole_word(folded, word, at):
                spans.append((offsets[at], offsets[at + len(word)]))
            at = folded.find(word, at + len(word))
    spans.sort()
    first = spans[0][0] if spans else 0
    begin = max(0, first - width // 4)
    end = min(len(text), begin + width)
    out: list[str] = ["…" if begin else ""]
    cursor = begin
    for start, stop in spans:
        if start < cursor or stop > end:
            continue
        out += [text[cursor:start], MARK_OPEN, text[start:stop], MARK_CLOSE]
        cursor = stop
    out += [text[cursor:end], "…" if end < len(text) else ""]
    return " ".join("".join(out).split())


# what the index's stemmer takes off a Latin word: "deploy" marks "deploys", "use" does not mark "user"
_STEM_ENDING = re.compile(r"(?:s|es|e?d|ings?|ly|ers?|ments?|ness|(?:at)?ions?|al|ity)?(?![a-z0-9_])")


def _whole_word(folded: str, word: str, at: int) -> bool:
    """Tell whether a Latin word found at ``at`` is a word of the text (or it with an ending), not a piece of one."""
    if not word.isascii():
        return True  # Chinese has no spaces: the segmenter's words are marked where they stand
    before = folded[at - 1 : at]
    if before.isascii() and (before.isalnum() or before == "_"):
        return False
    return _STEM_ENDING.match(folded, at + len(word)) is not None
