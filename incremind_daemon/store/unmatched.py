"""Cut a name out of a Chinese query word the segmenter glued to it.

jieba guesses words it does not know (its HMM step), and in a question a
name often gets glued to the character after it: "晓雨学古筝" cuts as 晓雨学 /
古筝, "苏婷会喜欢吗" as 苏婷会 / 喜欢 / 吗. The passages say "晓雨" on its own
("**晓雨:** …", "晓雨的外婆"), so the glued word matches nothing: it fails the
all-words query, adds nothing to the any-word one, and lowers the share of the
question's words the best hit holds, which is what ``gated`` fusion reads.
A word of three to five Chinese characters that matches no passage is cut in
two where one part (a name: two characters or more) matches: one or two
characters off its end, else off its start; the other part stays a word unless
it is a stopword (会, 在). A word no such cut helps stays as it is: it is then a
word the memory does not use, not a glued one.
"""

from __future__ import annotations

import logging

import apsw

from incremind_daemon.store.charsets import CJK_CHAR
from incremind_daemon.store.db import fetch_row
from incremind_daemon.store.tokenizer import STOPWORDS, quote_words

log = logging.getLogger(__name__)

MIN_GLUED_CHARS = 3  # a two-character word split would leave single characters only
MAX_GLUED_CHARS = 5  # a name of two or three characters and what got glued to it
MIN_NAME_CHARS = 2
MAX_SPLIT_WORDS = 3  # so a query costs at most 3 x 5 FTS5 lookups (about 0.4 ms each on 2 loaded cores)
# passages hold every source's text (summaries pick from it; messages answer only when asked for)
_TABLES = ("chunks_fts",)


def split_unmatched(conn: apsw.Connection, words: list[str]) -> list[str]:
    """Replace each glued Chinese word that matches nothing by its name and the rest; keep the order."""
    split: list[str] = []
    probed = 0
    for word in words:
        glued = MIN_GLUED_CHARS <= len(word) <= MAX_GLUED_CHARS and all(CJK_CHAR.match(char) for char in word)
        if not glued or probed >= MAX_SPLIT_WORDS:
            split.append(word)
            continue
        probed += 1
        split.extend(_matched_pieces(conn, word) if not _is_indexed(conn, word) else [word])
    return list(dict.fromkeys(split))


def _matched_pieces(conn: apsw.Connection, word: str) -> list[str]:
    """Cut one or two characters off either end so that the rest is indexed; [word] when no cut does.

    A glued word is a name with what follows it (晓雨学, 苏婷会) or what precedes it (月晓雨), so
    these four cuts are all that is tried: each is one lookup, where every split would cost dozens.
    """
    for glued in (1, 2):
        for at, name_first in ((len(word) - glued, True), (glued, False)):
            head, tail = word[:at], word[at:]
            name = head if name_first else tail
            if len(name) >= MIN_NAME_CHARS and _is_indexed(conn, name):
                return [piece for piece in (head, tail) if piece == name or piece not in STOPWORDS]
    return [word]


def _is_indexed(conn: apsw.Connection, word: str) -> bool:
    """Tell whether a word matches at least one passage (one FTS5 lookup)."""
    quoted = quote_words([word])
    for table in _TABLES:
        try:
            if fetch_row(conn, f"SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT 1", (quoted,)) is not None:
                return True
        except apsw.SQLError as exc:  # a store without that table: nothing of it can match
            log.debug("could not probe %s for %r: %s", table, word, exc)
    return False
