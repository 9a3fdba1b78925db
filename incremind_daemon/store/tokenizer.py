"""Mixed Chinese/English tokenizer, for FTS5 and for Python-side word work.

CJK runs are segmented with jieba. Each jieba word is one token position, with
its dictionary sub-words, its character bigrams and its characters as
*colocated* tokens, so a two-character word inside a longer one (复习 in
复习题) and a single character both match, while positions stay those of the
plain segmentation and phrase queries keep working. Latin text yields words,
numbers and identifiers whole (``snake_case``, ``v1.2``, ``127.0.0.1``) plus
their parts (``snake``, ``case``, ``camel``) as colocated tokens.

Before tokenizing, each character is folded on its own: NFKC (full width to
half width), case folding, and traditional to simplified Chinese for common
characters. Folding per character keeps a map back to the original offsets.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import stat
import tempfile
import threading
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import apsw
import apsw.fts5

from incremind_daemon.locate import cache_dir
from incremind_daemon.private import make_private_folders, only_mine
from incremind_daemon.store.charsets import HAN_BASIC, HANGUL, KANA
from incremind_daemon.store.hanzi import TRADITIONAL_TO_SIMPLIFIED
from incremind_daemon.store.wordfreq import (
    WordCounts,
    dictionary_stamp,
    is_current,
    open_counts,
    sweep_stale,
    write_counts,
)

log = logging.getLogger(__name__)

TOKENIZER_NAME = "incremind"

# the index has always been built with these ranges: a supplementary-plane ideograph (charsets.HAN)
# stays a letter here until a re-index, or stored documents and queries would disagree
_CJK = HAN_BASIC + KANA + HANGUL
_LETTER = rf"[^\W_{_CJK}]"
_RUN = re.compile(rf"[{_CJK}]+|_*{_LETTER}+(?:[._\-']{_LETTER}+)*_*")
_CJK_RUN = re.compile(rf"[{_CJK}]+")
_PART = re.compile(_LETTER + "+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

# Words dropped from queries (never from documents) when other words remain.
_STOPWORD_TEXT = """
the a an and or of to in on for is are was were be been it this that with as at by from
how what which who do does did can could should would i you we me my our your about into
的 了 是 在 和 与 及 吗 呢 吧 啊 呀 么 就 都 也 还 又 把 被 让 给 对 从 向 之 其 这 那
怎么 怎样 如何 什么 哪些 为什么 一个 一下 我 你 他 她 它 我们 你们 他们 有 没有 要 会 能 可以
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True, slots=True)
class Token:
    """One token position: offsets into the original text, the token, its colocated forms."""

    start: int
    end: int
    text: str
    colocated: tuple[str, ...] = ()


class _Segmenter:
    """jieba's tokenizer, imported on first use.

    jieba's import alone (it loads pkg_resources) costs a tenth of a second, which a command
    that reads the store and segments nothing (status, pending, insights) should not pay.
    """

    def __init__(self) -> None:
        self._tokenizer: Any = None
        self._made = threading.Lock()  # one tokenizer, however many threads ask first
        self.counts: WordCounts | None = None  # the words looked up in the counts file, until the dictionary loads

    @property
    def initialized(self) -> bool:
        """Whether the tokenizer can segment: its dictionary is loaded, or its counts file open."""
        return self._tokenizer is not None and bool(self._tokenizer.initialized)

    @property
    def tokenizer(self) -> Any:
        if self._tokenizer is None:
            with self._made:
                if self._tokenizer is None:
                    import jieba

                    jieba.setLogLevel(logging.WARNING)  # jieba logs its dictionary loading at DEBUG on stderr otherwise
                    self._tokenizer = jieba.Tokenizer()
        return self._tokenizer


_jieba = _Segmenter()
_jieba_lock = threading.Lock()


LOOKUP_LIMIT = 50_000  # words looked up in the counts file before loading the whole dictionary pays


def ensure_segmenter(*, keep_counts: bool = False) -> None:
    """Load jieba's whole dictionary now, so the first query does not pay for it (the daemon, a long job).

    ``keep_counts``: a long-lived process (the daemon, a stdio MCP server) also keeps the counts
    file current, for the short-lived commands that follow; writing it takes under half a second.
    """
    with _jieba_lock:
        tokenizer = _jieba.tokenizer
        folder = _private_cache_folder()
        if not _jieba.initialized or _jieba.counts is not None:
            tokenizer.tmp_dir = folder or tempfile.mkdtemp(prefix="incremind-jieba-")
            try:
                tokenizer.initialized = False  # from the counts file to the dictionary itself
                tokenizer.initialize()
            finally:
                if folder is None:  # a one-off cache: not left behind in the temp folder
                    shutil.rmtree(tokenizer.tmp_dir, ignore_errors=True)
            # the counts file is let go, not closed: a thread still cutting a run may read from it
            _jieba.counts = None
        # also when another thread loaded the dictionary first (a query before the warm-up got here)
        if keep_counts and folder is not None:
            _keep_counts(folder)


def keep_loaded_counts() -> None:
    """Write the counts file when this process loaded the whole dictionary and no current one is kept.

    A long command without the daemon (``ingest``, ``backfill``) loads jieba anyway; keeping its
    counts lets every short command after it (a search, ``pending``) skip the half-second load.
    """
    with _jieba_lock:
        if not _jieba.initialized or _jieba.counts is not None:
            return  # never loaded, or read from a counts file that is current
        folder = _private_cache_folder()
        if folder is not None:
            _keep_counts(folder)


def _keep_counts(folder: str) -> None:
    """Write the loaded dictionary's counts file into folder unless a current one is there (lock held)."""
    if not is_current(folder, stamp := dictionary_stamp()):
        write_counts(folder, stamp, _jieba.tokenizer.FREQ, _jieba.tokenizer.total)


def ready_segmenter(*, keep_counts: bool = False) -> None:
    """Make jieba ready for a few words: from the counts file when there is a current one, else load it all."""
    with _jieba_lock:
        if not _jieba.initialized:
            folder = _private_cache_folder()
            found = open_counts(folder, dictionary_stamp()) if folder is not None else None
            if found is not None:
                tokenizer = _jieba.tokenizer
                _jieba.counts, total = found
                tokenizer.FREQ, tokenizer.total = _jieba.counts, total
                tokenizer.initialized = True
                return
    ensure_segmenter(keep_counts=keep_counts)


def _private_cache_folder() -> str | None:
    """Return where jieba may keep its dictionary cache: incremind's own cache folder.

    jieba's default is ``jieba.cache`` in the shared temp folder, which it
    loads without a look at who wrote it: another user of the machine could
    plant a dictionary that hides words from every search. The cache folder is
    the person's (0700). None when it is not theirs, or others may write it:
    the dictionary is then built in a private temp folder (a second or two).
    """
    folder = cache_dir()
    try:
        make_private_folders(folder)
        if not only_mine(folder.stat()):
            log.warning("%s is not only yours; building jieba's dictionary without a cache", folder)
            return None
        sweep_stale(str(folder))  # what a process that ended mid-write left behind
        cache = folder / "jieba.cache"
        if os.path.lexists(cache):
            own = cache.lstat()
            if not stat.S_ISREG(own.st_mode) or not only_mine(own):
                cache.unlink()  # not the person's own: built again rather than trusted
    except OSError as exc:
        log.warning("jieba's cache cannot live in %s (%s); building the dictionary without it", folder, exc)
        return None
    return str(folder)


def fold_text(text: str) -> tuple[str, list[int]]:
    """Fold text per character; return it with each folded char's original offset.

    The list has one entry per folded character plus a final entry equal to
    ``len(text)``, so ``offsets[i]`` maps a folded offset back to the original.
    """
    if text.isascii():
        return text.lower(), list(range(len(text) + 1))
    folded = text.translate(_FOLDED)
    if len(folded) == len(text):  # the common case: every character folds to one
        return folded, list(range(len(text) + 1))
    offsets: list[int] = []
    for i, ch in enumerate(text):
        offsets.extend([i] * len(_FOLDED[ord(ch)]))
    offsets.append(len(text))
    return folded, offsets


class _FoldTable(dict[int, str]):
    """Each character's folded form, computed on first sight (str.translate reads it in C).

    Folding one character costs a Unicode normalisation; texts reuse a few
    thousand characters, so the table stays small; past its limit, new
    characters are folded each time and not kept.
    """

    limit = 100_000

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        folded = unicodedata.normalize("NFKC", ch).casefold()
        folded = "".join(TRADITIONAL_TO_SIMPLIFIED.get(c, c) for c in folded) or ch
        if len(self) < self.limit:
            self[code] = folded
        return folded


_FOLDED = _FoldTable()


def fold(text: str) -> str:
    """Fold text the way the index does (width, case, traditional characters)."""
    return fold_text(text)[0]


def _latin_parts(original: str, folded: str) -> tuple[str, ...]:
    plain_word = original.isalpha() and (original.islower() or original.isupper() or original[1:].islower())
    if plain_word or original.isdigit():
        return ()  # no parts to index (most tokens take this path)
    parts: list[str] = []
    for piece in _PART.findall(original):
        camel = _CAMEL.findall(piece)
        if len(camel) > 1:
            parts.extend(p.lower() for p in camel)
        parts.append(fold(piece))
    return tuple(dict.fromkeys(p for p in parts if p and p != folded))


def _cjk_colocated(word: str) -> tuple[str, ...]:
    forms: list[str] = []
    if len(word) > 2:
        forms.extend(_jieba_subwords(word))
        forms.extend(word[i : i + 2] for i in range(len(word) - 1))
    if len(word) > 1:
        forms.extend(word)
    return tuple(dict.fromkeys(f for f in forms if f != word))


def _jieba_subwords(word: str) -> list[str]:
    freq = _jieba.tokenizer.FREQ
    subs: list[str] = []
    for n in (2, 3):
        for i in range(len(word) - n + 1):
            gram = word[i : i + n]
            if freq.get(gram) and gram != word:
                subs.append(gram)
    return subs


def iter_tokens(text: str, *, for_query: bool = False) -> Iterator[Token]:
    """Yield tokens of text with offsets into the original string.

    Documents get colocated sub-forms; queries (``for_query=True``) get only the
    plain tokens, which the colocated forms in the index will match.
    """
    if not text:
        return
    folded, offsets = fold_text(text)
    for match in _RUN.finditer(folded):
        run = match.group()
        base = match.start()
        if _CJK_RUN.fullmatch(run):
            if not _jieba.initialized:  # only text with Chinese (or Japanese, Korean) in it waits for the dictionary
                ready_segmenter()
            elif (counts := _jieba.counts) is not None and counts.lookups > LOOKUP_LIMIT:
                ensure_segmenter()  # much text to cut: the dictionary in memory is faster from here on
            for word, start, end in _jieba.tokenizer.tokenize(run, HMM=True):
                begin, finish = offsets[base + start], offsets[base + end]
                extra = () if for_query else _cjk_colocated(word)
                yield Token(begin, finish, word, extra)
        else:
            begin, finish = offsets[base], offsets[match.end()]
            token = run.strip("_") or run
            extra = () if for_query else _latin_parts(text[begin:finish], token)
            yield Token(begin, finish, token, extra)


def _query_pieces(word: str) -> list[str]:
    """Split a long CJK query word into the dictionary words that cover it.

    The index holds those words colocated with every longer word, so
    复习方法 as two pieces also finds 复习的方法.
    """
    if len(word) < 3 or not _CJK_RUN.fullmatch(word):
        return [word]
    pieces: list[str] = []
    i = 0
    while i < len(word):
        for n in (3, 2, 1):
            gram = word[i : i + n]
            if n == 1 or (gram != word and _jieba.tokenizer.FREQ.get(gram)):
                pieces.append(gram)
                i += n
                break
    return pieces if sum(len(p) > 1 for p in pieces) >= 1 and len(pieces) > 1 else [word]


def quote_words(words: list[str], *, any_word: bool = False) -> str:
    """Join already-cut query words into an FTS5 expression, each quoted."""
    quoted = ['"' + word.replace('"', '""') + '"' for word in words]
    return (" OR " if any_word else " AND ").join(quoted)


def query_words(text: str) -> list[str]:
    """Return the distinct searchable words of a query, stopwords removed when others remain."""
    words: list[str] = []
    for token in iter_tokens(text, for_query=True):
        words.extend(_query_pieces(token.text))
    unique = list(dict.fromkeys(words))
    content = [w for w in unique if w not in STOPWORDS]
    return content or unique


_StringTokenize = Callable[[str, int, str | None], Iterator[tuple[int | str, ...]]]


def _fts5_tokenizer(_connection: apsw.Connection, _args: list[str]) -> _StringTokenize:
    def tokenize(text: str, flags: int, _locale: str | None) -> Iterator[tuple[int | str, ...]]:
        for_query = bool(flags & apsw.FTS5_TOKENIZE_QUERY)
        for token in iter_tokens(text, for_query=for_query):
            yield (token.start, token.end, token.text, *token.colocated)

    return tokenize


def register_tokenizer(connection: apsw.Connection) -> None:
    """Register the ``incremind`` FTS5 tokenizer on a connection."""
    # apsw's stubs type StringTokenizer's argument as a bytes tokenizer; it takes str ones
    factory = apsw.fts5.StringTokenizer(_fts5_tokenizer)  # type: ignore[arg-type]
    connection.register_fts5_tokenizer(TOKENIZER_NAME, factory)  # type: ignore[arg-type]
