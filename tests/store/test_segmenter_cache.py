"""jieba's dictionary cache lives in incremind's own cache folder, never in the shared temp folder."""

from __future__ import annotations

import functools
import marshal
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "from incremind_daemon.store.tokenizer import ensure_segmenter, query_words; "
    "ensure_segmenter(); print(' '.join(query_words('复习资料')))"
)


def segment(tmp_path: Path, cache: Path) -> str:
    temp = tmp_path / "shared-tmp"
    temp.mkdir(exist_ok=True)
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), TMPDIR=str(temp))
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout.strip()


def plant(path: Path) -> None:
    with path.open("wb") as out:
        # a dictionary in which 复习资料 is one word and 复习 none: Chinese search would miss 复习
        marshal.dump(({"复习资料": 100, "复习资": 0, "复习": 0, "复": 1, "习": 1, "资": 1, "料": 1}, 104), out)


def test_the_cache_is_private_and_a_planted_shared_cache_is_never_read(tmp_path: Path) -> None:
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    plant(shared / "jieba.cache")  # where jieba would look by default
    control = subprocess.run(
        [sys.executable, "-c", "import jieba; print(' '.join(jieba.cut('复习资料')))"],
        env=dict(os.environ, TMPDIR=str(shared)),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert control.stdout.strip() == "复习资料"  # jieba on its own takes the planted dictionary
    cache = tmp_path / "cache"

    assert segment(tmp_path, cache) == "复习 资料"
    own = cache / "incremind" / "jieba.cache"
    assert own.is_file() and own.stat().st_mode & 0o777 == 0o600
    assert (cache / "incremind").stat().st_mode & 0o777 == 0o700
    assert segment(tmp_path, cache) == "复习 资料"  # loaded from its own cache


def test_a_cache_others_may_write_is_rebuilt(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    segment(tmp_path, cache)
    own = cache / "incremind" / "jieba.cache"
    plant(own)
    os.chmod(own, 0o666)
    assert segment(tmp_path, cache) == "复习 资料"
    assert own.stat().st_mode & 0o777 == 0o600


def test_a_cache_folder_others_may_write_is_not_used(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (cache / "incremind").mkdir(parents=True)
    os.chmod(cache / "incremind", 0o777)
    plant(cache / "incremind" / "jieba.cache")
    assert segment(tmp_path, cache) == "复习 资料"
    assert list((tmp_path / "shared-tmp").iterdir()) == []  # the one-off dictionary cache was removed


def test_text_without_chinese_never_loads_the_dictionary(tmp_path: Path) -> None:
    probe = (
        "from incremind_daemon.store import tokenizer as t; "
        "words = t.query_words('deploy the billing service on Friday'); "
        "print(t._jieba.initialized, ' '.join(words)); "
        "t.query_words('周五部署'); print(t._jieba.initialized)"
    )
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split("\n")[:2] == ["False deploy billing service friday", "True"]


COUNTS_PROBE = """
import sys
from incremind_daemon.store import tokenizer as t
from incremind_daemon.store.tokenizer import ensure_segmenter, iter_tokens, query_words
if sys.argv[1] == "keep":
    ensure_segmenter(keep_counts=True)
words = query_words("两个孩子今年一共报了几种课外班？复习资料放在哪里")
if sys.argv[1] == "late":  # a query loaded the dictionary before the warm-up asked to keep the counts
    ensure_segmenter(keep_counts=True)
print(" ".join(words))
print("counts" if t._jieba.counts is not None else "dictionary")
if sys.argv[1] == "long":  # much text to cut: past the limit the dictionary loads
    list(iter_tokens("我们今天讨论了数据库的迁移方案和上线时间。" * 4000))
    print("counts" if t._jieba.counts is not None else "dictionary")
"""


def counted(tmp_path: Path, mode: str) -> list[str]:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, "-c", COUNTS_PROBE, mode], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_short_lived_process_reads_the_word_counts_the_daemon_kept_and_cuts_the_same(tmp_path: Path) -> None:
    words, how = counted(tmp_path, "plain")  # nothing kept yet: the dictionary loads
    assert how == "dictionary" and not (tmp_path / "cache" / "incremind" / "jieba-words.sqlite").exists()
    assert counted(tmp_path, "late") == [words, "dictionary"]  # a long-lived process keeps the counts,
    kept = tmp_path / "cache" / "incremind" / "jieba-words.sqlite"
    assert kept.is_file()  # however the dictionary came to be loaded
    kept.unlink()
    assert counted(tmp_path, "keep") == [words, "dictionary"]
    kept = tmp_path / "cache" / "incremind" / "jieba-words.sqlite"
    assert kept.is_file() and kept.stat().st_mode & 0o777 == 0o600
    assert counted(tmp_path, "plain") == [words, "counts"]  # the same words, from a few lookups
    assert counted(tmp_path, "long") == [words, "counts", "dictionary"]


def test_word_counts_of_another_dictionary_or_another_user_are_not_read(tmp_path: Path) -> None:
    from incremind_daemon.store.wordfreq import open_counts, write_counts

    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    write_counts(str(folder), "jieba 0.42.1; 1 bytes; 1", {"复习": 5, "复": 1, "习": 1}, 7)
    found = open_counts(str(folder), "jieba 0.42.1; 1 bytes; 1")
    assert found is not None and found[1] == 7 and found[0].get("复习") == 5 and "资料" not in found[0]
    found[0].close()
    assert open_counts(str(folder), "jieba 0.42.2; 1 bytes; 1") is None  # made from another dictionary
    os.chmod(folder / "jieba-words.sqlite", 0o666)
    assert open_counts(str(folder), "jieba 0.42.1; 1 bytes; 1") is None  # others may have written it


def test_an_ingest_without_the_daemon_keeps_the_word_counts_for_the_searches_after_it(tmp_path: Path) -> None:
    """Without a daemon every short command loaded jieba's whole dictionary (half a second); an ingest,
    which loads it anyway, now keeps the counts the next search reads."""
    note = tmp_path / "memo.md"
    note.write_text("# 备忘\n\n周会改到周三上午十点，地点不变。\n", encoding="utf-8")
    home = tmp_path / "home"
    env = dict(
        os.environ,
        HOME=str(home),
        INCREMIND_HOME=str(home / ".incremind"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        INCREMIND_EMBEDDING__BACKEND="none",
    )
    kept = tmp_path / "cache" / "incremind" / "jieba-words.sqlite"
    run = functools.partial(subprocess.run, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    done = run([sys.executable, "-m", "incremind_daemon", "ingest", str(note), "--project", "daily"])
    assert done.returncode == 0, done.stderr
    assert kept.is_file()
    assert counted(tmp_path, "plain")[1] == "counts"


def test_what_a_cut_off_write_left_is_swept_and_a_write_in_progress_is_not(tmp_path: Path) -> None:
    """A stdio MCP server an agent closes early may end mid-write; each such end left up to 9 MB behind."""
    folder = tmp_path / "cache" / "incremind"
    folder.mkdir(parents=True, mode=0o700)
    old, fresh = folder / ".jieba-words-k2x9q1.tmp", folder / ".jieba-words-p0w8e3.tmp"
    jieba_left = folder / "tmpa1b2c3d4"
    kept = [folder / "jieba-words.sqlite", folder / "notes-tmpa1b2c3d4", folder / ".model.ab12.tmp"]
    for path in (old, fresh, jieba_left, *kept):
        path.write_bytes(b"x" * 1024)
    hour_ago = os.stat(old).st_mtime - 3600
    for path in (old, jieba_left, *kept):
        os.utime(path, (hour_ago, hour_ago))
    (folder / "tmpsub0000").mkdir()  # a folder of that name is not a file it wrote
    assert segment(tmp_path, tmp_path / "cache") == "复习 资料"  # loading jieba sweeps its cache folder
    assert not old.exists() and not jieba_left.exists()
    assert fresh.exists() and all(path.exists() for path in kept) and (folder / "tmpsub0000").is_dir()
