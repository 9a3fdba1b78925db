"""jieba's word counts in a small SQLite file, looked up word by word.

jieba keeps its dictionary as a marshal of about 500,000 words and their prefixes:
loading it takes half a second and some 80 MB, which a command that segments one
query (a search without the daemon, ``doctor``, a stdio MCP server) would pay before
it answers. Whoever loads the whole dictionary writes this file once, into the
person's private cache folder; a short-lived process then reads the counts it needs
from the file, a few dozen lookups of microseconds each. The words and counts are
jieba's own, so the segmentation is the same either way. The file names the jieba
release and dictionary it was made from, and one made from another is not used.
"""

from __future__ import annotations

import logging
import os
import re
import stat
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path

import apsw

from incremind_daemon.private import only_mine

log = logging.getLogger(__name__)

FILE_NAME = "jieba-words.sqlite"
FORMAT = "1"
STALE_SECONDS = 600  # a temporary file this old is no write in progress: writing one takes under a second
# what a write that was cut off leaves: this module's temporary counts file, or jieba's own ("tmp" and 8 more)
_TEMPORARY = re.compile(r"\.jieba-words-\w+\.tmp|tmp[a-z0-9_]{8}")


class WordCounts:
    """jieba's FREQ as the segmenter reads it (``in``, ``[]``, ``get``), answered from the file."""

    def __init__(self, conn: apsw.Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()  # one statement at a time on the connection, whichever thread asks
        self.lookups = 0  # how many words were looked up: a process that segments much loads the dictionary

    def get(self, word: str, default: int | None = None) -> int | None:
        with self._lock:
            self.lookups += 1
            for (count,) in self._conn.execute("SELECT n FROM words WHERE w = ?", (word,)):
                return int(count)
        return default

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.get(word) is not None

    def __getitem__(self, word: str) -> int:
        count = self.get(word)
        if count is None:
            raise KeyError(word)
        return count

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def dictionary_stamp() -> str:
    """Name jieba's default dictionary: the jieba release, and the dictionary file's size and modification time."""
    import jieba

    found = os.stat(Path(jieba.__file__).with_name("dict.txt"))
    return f"jieba {jieba.__version__}; {found.st_size} bytes; {found.st_mtime_ns}"


def is_current(folder: str, stamp: str) -> bool:
    """Tell whether ``folder`` holds a counts file of the person's own, made from this dictionary."""
    found = open_counts(folder, stamp)
    if found is None:
        return False
    found[0].close()
    return True


def open_counts(folder: str, stamp: str) -> tuple[WordCounts, int] | None:
    """Return the counts file of ``folder`` and its total, or None when it is missing, another's or stale."""
    path = Path(folder) / FILE_NAME
    try:
        own = path.lstat()
        if not stat.S_ISREG(own.st_mode) or not only_mine(own):
            return None  # not the person's own file: the dictionary is loaded instead
        conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        meta = {str(key): str(value) for key, value in conn.execute("SELECT key, value FROM meta")}
    except (OSError, apsw.Error):
        return None
    if meta.get("format") != FORMAT or meta.get("stamp") != stamp or not meta.get("total", "").isdigit():
        conn.close()
        return None
    return WordCounts(conn), int(meta["total"])


def sweep_stale(folder: str, *, now: float | None = None) -> int:
    """Remove what cut-off writes of the counts or of jieba's cache left in ``folder``; return how many.

    A process that ends while it writes (an agent closing its stdio MCP server
    early) leaves a temporary file of up to 9 MB; each later one could leave
    another. Only files of those names, only in ``folder`` itself, and only
    when older than ``STALE_SECONDS``, so a write in progress is never touched.
    """
    oldest = (time.time() if now is None else now) - STALE_SECONDS
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        try:
            named = _TEMPORARY.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)
            if named and entry.stat(follow_symlinks=False).st_mtime < oldest:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue  # gone already, or not ours to remove
    return removed


def write_counts(folder: str, stamp: str, counts: Mapping[str, int], total: int) -> None:
    """Write the counts file of ``folder`` whole, then put it in place; a failure leaves no file behind."""
    handle, temporary = tempfile.mkstemp(prefix=".jieba-words-", suffix=".tmp", dir=folder)
    os.close(handle)
    try:
        conn = apsw.Connection(temporary)
        try:
            conn.execute("CREATE TABLE words (w TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID")
            conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            with conn:
                conn.executemany("INSERT INTO words VALUES (?, ?)", sorted(counts.items()))
                meta = {"format": FORMAT, "stamp": stamp, "total": str(total)}
                conn.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        finally:
            conn.close()
        os.chmod(temporary, 0o600)
        os.replace(temporary, Path(folder) / FILE_NAME)
    except (OSError, apsw.Error) as exc:
        log.warning("could not keep jieba's word counts in %s: %s", folder, exc)
        Path(temporary).unlink(missing_ok=True)
