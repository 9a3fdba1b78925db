"""jieba's dictionary cache lives in incremind's own cache folder, never in the shared temp folder."""

from __future__ import annotations

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
