"""Fixtures shared by every test: a private home, real settings, no leaked threads, the default model."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from incremind_daemon.config import Settings, load_settings
from incremind_daemon.embedding.use_m3 import UseM3Embedder
from incremind_daemon.store.embedder import Embedder
from tests.private_env import make_private

REAL_HOME = Path(os.path.expanduser("~")).resolve()


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point HOME and INCREMIND_HOME at a temp folder for every test, subprocesses included."""
    home = tmp_path_factory.mktemp("home")
    make_private(monkeypatch, home, cache=tmp_path_factory.getbasetemp() / "cache")
    assert Path(os.path.expanduser("~")).resolve() != REAL_HOME
    yield home
    assert Path(os.path.expanduser("~")).resolve() == home.resolve(), "a test changed HOME back"


@pytest.fixture
def settings(private_home: Path) -> Settings:
    """Settings on a fresh home with a quick inbox."""
    return load_settings(home=private_home / ".incremind", inbox={"settle_seconds": 0.2, "rescan_seconds": 2})


@pytest.fixture(autouse=True)
def no_thread_leaks() -> Iterator[None]:
    """Fail a test that leaves a thread of ours running."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 2
    while True:
        leaked = [t.name for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not leaked, f"threads left running: {leaked}"


@pytest.fixture(scope="session")
def use_m3() -> Iterator[Embedder]:
    """The default embedding model, loaded once per run: each load costs about two seconds.

    No test closes it or changes it; a test that needs a fresh or closed embedder makes its own.
    """
    embedder = UseM3Embedder(threads=2)
    yield embedder
    embedder.close()
