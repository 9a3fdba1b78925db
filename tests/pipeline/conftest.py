"""Fixtures of the pipeline tests: the chat-model stand-in on 127.0.0.1, and a repository sessions run in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.chat_stub import ChatStub, serve_chat_stub


@pytest.fixture
def stub() -> Iterator[ChatStub]:
    """A scripted OpenAI-compatible chat server for one test."""
    with serve_chat_stub() as running:
        yield running


@pytest.fixture
def repository_named(private_home: Path, tmp_path: Path) -> Callable[[str], Path]:
    """Make a git repository folder named like its project, so the sessions run in it land in that project."""
    (private_home / ".claude").mkdir(exist_ok=True)

    def make(name: str) -> Path:
        folder = tmp_path / name
        (folder / ".git").mkdir(parents=True)
        return folder

    return make
