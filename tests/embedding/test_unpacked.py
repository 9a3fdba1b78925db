"""use-m3 kept unpacked in the cache folder: loaded from it only when it is the person's own and faithful."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from incremind_daemon.embedding import unpacked
from incremind_daemon.embedding.use_m3 import UseM3Embedder

TEXTS = ["数据库连接池的大小改成 20", "always use pnpm in this repo", "复习时按第 1、2、4、7 天的间隔"]


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    """The vectors use-m3 makes when loaded from the package itself."""
    embedder = UseM3Embedder()
    try:
        return embedder.embed_passages(TEXTS)
    finally:
        embedder.close()


def embed(cache: Path) -> np.ndarray:
    embedder = UseM3Embedder(cache=cache)
    try:
        return embedder.embed_passages(TEXTS)
    finally:
        embedder.close()


def forbid_package_load(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("loaded from the package, not from the cache")

    monkeypatch.setattr(unpacked, "UseTokenizer", refuse)


def test_the_second_load_comes_from_the_cache_and_embeds_the_same(
    tmp_path: Path, reference: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    assert np.array_equal(embed(cache), reference)
    folder = unpacked.cache_folder(cache)
    assert (folder / "meta.json").is_file() and (folder / "table.npy").is_file()
    assert all(path.stat().st_mode & 0o777 == 0o600 for path in folder.iterdir())
    assert folder.stat().st_mode & 0o777 == 0o700

    forbid_package_load(monkeypatch)
    assert np.allclose(embed(cache), reference, atol=1e-6)


def test_a_cache_others_may_write_is_not_loaded_and_is_rewritten(
    tmp_path: Path, reference: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    embed(cache)
    pickled = unpacked.cache_folder(cache) / "tokenizer.pickle"
    os.chmod(pickled, 0o666)  # anyone could have put code in it

    assert np.array_equal(embed(cache), reference)  # from the package
    assert pickled.stat().st_mode & 0o777 == 0o600  # and written again, as the person's own
    forbid_package_load(monkeypatch)
    assert np.allclose(embed(cache), reference, atol=1e-6)


def test_a_cache_that_embeds_differently_is_rebuilt(tmp_path: Path, reference: np.ndarray) -> None:
    cache = tmp_path / "cache"
    embed(cache)
    folder = unpacked.cache_folder(cache)
    table = np.load(folder / "table.npy")
    table[:] = 7  # damaged weights (the files are replaced, not changed in place, by the product)
    (folder / "table.npy").unlink()
    np.save(folder / "table.npy", table)
    os.chmod(folder / "table.npy", 0o600)

    assert np.array_equal(embed(cache), reference)
    assert not np.all(np.load(folder / "table.npy") == 7)


def test_an_unfinished_or_foreign_cache_is_rebuilt(tmp_path: Path, reference: np.ndarray) -> None:
    cache = tmp_path / "cache"
    embed(cache)
    folder = unpacked.cache_folder(cache)
    meta = json.loads((folder / "meta.json").read_text())
    meta["probe_ids"] = [1, 2]  # a tokenizer from another version
    (folder / "meta.json").write_text(json.dumps(meta))
    assert np.array_equal(embed(cache), reference)

    (folder / "meta.json").unlink()  # a writer that died before finishing
    assert np.array_equal(embed(cache), reference)
    assert (folder / "meta.json").is_file()


def test_an_unwritable_cache_only_costs_the_slow_load(tmp_path: Path, reference: np.ndarray) -> None:
    cache = tmp_path / "cache"
    cache.write_text("not a folder")
    assert np.array_equal(embed(cache), reference)
