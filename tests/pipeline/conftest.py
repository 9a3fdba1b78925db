"""Fixtures of the pipeline tests: the chat-model stand-in on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.chat_stub import ChatStub, serve_chat_stub


@pytest.fixture
def stub() -> Iterator[ChatStub]:
    """A scripted OpenAI-compatible chat server for one test."""
    with serve_chat_stub() as running:
        yield running
