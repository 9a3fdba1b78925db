"""Where each agent keeps its transcripts, and which project a session belongs to."""

from __future__ import annotations

import fnmatch
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from incremind_daemon.config import AGENT_RUNS, Settings
from incremind_daemon.names import AGENTS as AGENTS

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Transcript:
    """One transcript file and the agent that wrote it."""

    path: Path
    agent: str


@dataclass(frozen=True, slots=True)
class WatchRoot:
    """A folder to watch, the agent whose files appear under it, and how to pick them."""

    folder: Path
    agent: str
    patterns: tuple[str, ...]  # globs relative to folder


def watch_roots(settings: Settings, *, agents: tuple[str, ...] = AGENTS) -> list[WatchRoot]:
    """Return the transcript folders of every enabled source."""
    s = settings.sessions
    roots: list[WatchRoot] = []
    if "claude" in agents and s.claude.enabled and s.claude.dir is not None:
        patterns: tuple[str, ...] = ("*/*.jsonl", "*/*/subagents/*.jsonl") if s.claude.subagents else ("*/*.jsonl",)
        roots.append(WatchRoot(s.claude.dir / "projects", "claude", patterns))
    if "codex" in agents and s.codex.enabled and s.codex.dir is not None:
        patterns = ("**/rollout-*.jsonl", "**/rollout-*.jsonl.zst")
        roots.append(WatchRoot(s.codex.dir / "sessions", "codex", patterns))
        roots.append(WatchRoot(s.codex.dir / "archived_sessions", "codex", patterns))
    if "gemini" in agents and s.gemini.enabled and s.gemini.dir is not None:
        patterns = ("*/chats/*.jsonl", "*/chats/*.json", "*/chats/*/*.jsonl")
        roots.append(WatchRoot(s.gemini.dir / "tmp", "gemini", patterns))
    for log_source in s.chat_logs:
        if log_source.agent in agents or agents == AGENTS:
            roots.append(WatchRoot(log_source.dir.expanduser(), log_source.agent, (f"**/{log_source.pattern}",)))
    return roots


def matches(root: WatchRoot, path: Path) -> bool:
    """Tell whether a path under a root is one of its transcripts."""
    try:
        relative = path.relative_to(root.folder).as_posix()
    except ValueError:
        return False
    if any(part.startswith(".") and part not in {".", ".."} for part in relative.split("/")[:-1]):
        return False
    if root.agent == "codex" and path.name.endswith(".jsonl.zst") and path.with_suffix("").exists():
        return False  # a plain rollout takes precedence over its compressed twin
    if not any(_glob_match(relative, pattern) for pattern in root.patterns):
        return False
    return has_storable_name(path) and is_inside(root.folder, path)


def has_storable_name(path: Path) -> bool:
    """Tell whether a path is valid UTF-8, as every stored path must be (agents write no other)."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        log.debug("ignoring %r: its name is not UTF-8", path)
        return False
    return True


def is_inside(folder: Path, path: Path) -> bool:
    """Tell whether path, with every link resolved, still lies inside folder.

    A link in an agent's folder that points elsewhere (a linked project
    folder, say) is never followed; the folder itself may be a link.
    """
    try:
        real = path.resolve()
        base = folder.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a link loop
        return False
    if real == base or base in real.parents:
        return True
    log.debug("ignoring %s: it leads outside %s", path, folder)
    return False


def _glob_match(relative: str, pattern: str) -> bool:
    if pattern.startswith("**/"):
        return fnmatch.fnmatchcase(relative.rsplit("/", 1)[-1], pattern[3:])
    return relative.count("/") == pattern.count("/") and fnmatch.fnmatchcase(relative, pattern)


def find_transcripts(roots: list[WatchRoot], *, since: float | None = None) -> Iterator[Transcript]:
    """Yield every transcript under the roots, modified at or after ``since`` (epoch seconds)."""
    for root in roots:
        if not root.folder.is_dir():
            continue
        for folder, dirs, files in os.walk(root.folder, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                path = Path(folder) / name
                if not matches(root, path) or path.is_symlink():
                    continue
                if since is not None:
                    try:
                        if path.stat().st_mtime < since:
                            continue
                    except OSError:
                        continue
                yield Transcript(path, root.agent)


def is_excluded(cwd: str | None, transcript: Path, *, home: Path, patterns: list[str]) -> str | None:
    """Say why a session must not be read (the daemon's own, or excluded), else None.

    The daemon's own are its headless model runs (their working folder is
    ``<home>/agent-runs``) and anything else run inside its home.
    """
    if cwd:
        folder = Path(cwd).expanduser()
        own = home.expanduser().resolve()
        try:
            resolved = folder.resolve()
        except OSError:
            resolved = folder
        runs = own / AGENT_RUNS
        if resolved == runs or runs in resolved.parents:
            return f"a headless run of incremind's own insight step (in {runs})"
        if resolved == own or own in resolved.parents:
            return f"the session ran inside the incremind home {own}"
    for pattern in patterns:
        expanded = os.path.expanduser(pattern)
        for value in (cwd, str(transcript)):
            if value and fnmatch.fnmatch(value, expanded):
                return f"matches the exclude pattern {pattern!r}"
    return None
