"""The environment every test runs in: a private home and cache, and none of the person's own settings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_AGENT_VARS = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "INCREMIND_CONFIG")


def make_private(monkeypatch: pytest.MonkeyPatch, home: Path, cache: Path) -> None:
    """Point HOME and INCREMIND_HOME at home, subprocesses included, and drop the agents' and incremind's settings.

    The agents' folders on this machine may be live; no test may read real
    transcripts or write into a real CLAUDE.md or AGENTS.md.
    """
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("INCREMIND_HOME", str(home / ".incremind"))
    # one cache for the session: the unpacked model is written once, not once per test
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    for name in _AGENT_VARS:
        monkeypatch.delenv(name, raising=False)
    for name in list(os.environ):
        if name.startswith("INCREMIND_") and name != "INCREMIND_HOME":
            monkeypatch.delenv(name)
    # keyword-only unless a test asks for vectors: loading the model in every test costs seconds
    monkeypatch.setenv("INCREMIND_EMBEDDING__BACKEND", "none")
