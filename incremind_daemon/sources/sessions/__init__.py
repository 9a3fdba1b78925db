"""Read coding-agent session logs into messages: Claude Code, Codex, Gemini CLI, Markdown chats."""

from __future__ import annotations

from incremind_daemon.sources.sessions.claude import ClaudeParser
from incremind_daemon.sources.sessions.codex import CodexParser, has_zstd_decoder, open_rollout
from incremind_daemon.sources.sessions.gemini import GeminiParser, parse_gemini_json
from incremind_daemon.sources.sessions.generic import parse_chat_markdown
from incremind_daemon.sources.sessions.records import (
    ROLE_ASSISTANT,
    ROLE_TOOL,
    ROLE_USER,
    Rewind,
    SessionItem,
    SessionMessage,
    SessionMeta,
    SessionParser,
)
from incremind_daemon.sources.sessions.tail import (
    FileIdentity,
    TailChunk,
    identify,
    needs_reread,
    read_complete_lines,
)

__all__ = [
    "ROLE_ASSISTANT",
    "ROLE_TOOL",
    "ROLE_USER",
    "ClaudeParser",
    "CodexParser",
    "FileIdentity",
    "GeminiParser",
    "Rewind",
    "SessionItem",
    "SessionMessage",
    "SessionMeta",
    "SessionParser",
    "TailChunk",
    "has_zstd_decoder",
    "identify",
    "needs_reread",
    "open_rollout",
    "parse_chat_markdown",
    "parse_gemini_json",
    "read_complete_lines",
]
