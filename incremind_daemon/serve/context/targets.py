"""Which files get a context block, and the agents' rules about those files.

Global targets are the instruction files of the agents that are installed
(their home folder exists) and enabled in settings: ``CLAUDE.md`` in Claude
Code's home, ``AGENTS.md`` in Codex's (``AGENTS.override.md`` when that one is
non-empty, since Codex then reads only it), ``GEMINI.md`` in Gemini CLI's. A
``context_targets`` row with ``enabled = 0`` is the person saying no to one.

Project targets exist only after ``incremind context enable PATH``.

Agents' limits: Codex stops reading instructions at ``codex_limit_bytes``
(32 KiB) for the files of a repository together, so a Codex file's block is
shrunk until the whole file fits. Claude Code follows ``@`` imports four hops
deep; the import mode adds exactly one hop and the imported file holds no
imports of its own (``render.defuse`` puts any ``@path`` in a code span).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from incremind_daemon.config import Settings
from incremind_daemon.serve.context.blockfile import BEGIN, END, cut_block, read_text_file
from incremind_daemon.store.recall import ContextTargetRow

log = logging.getLogger(__name__)

AGENT_FILES = {"claude": "CLAUDE.md", "codex": "AGENTS.md", "gemini": "GEMINI.md"}
IMPORT_AGENTS = frozenset({"claude", "gemini"})  # agents that follow @path imports
# which agent reads a project file; AGENTS.md is read by Codex and many others
FILE_AGENTS = {"AGENTS.md": "codex", "CLAUDE.local.md": "claude", "CLAUDE.md": "claude", "GEMINI.md": "gemini"}
CODEX_FILES = ("AGENTS.override.md", "AGENTS.md")
EXCLUDE_NOTE = "# added by incremind (context enable)"


@dataclass(frozen=True, slots=True)
class Target:
    """One file to keep a block in."""

    path: Path
    kind: str  # global, project (an enabled file), hook (a precompiled hook block) or full (both parts)
    agent: str | None  # the agent that reads it (project AGENTS.md: codex)
    project: str | None  # project targets: whose block; global targets: None
    mode: str  # inline or import

    @property
    def is_codex(self) -> bool:
        """Tell whether Codex reads this file, so its byte limit applies."""
        return self.path.name in CODEX_FILES


def global_targets(settings: Settings, rows: dict[str, ContextTargetRow]) -> list[Target]:
    """Return the global files of the installed, enabled agents not disabled by the person."""
    found: list[Target] = []
    for agent, file_name in AGENT_FILES.items():
        wanted = getattr(settings.context, agent)
        home: Path | None = getattr(settings.sessions, agent).dir
        if not wanted.enabled or home is None or not home.expanduser().is_dir():
            continue
        path = home.expanduser() / file_name
        override = path.with_name("AGENTS.override.md")
        if agent == "codex" and _is_non_empty(override):
            path = override
        row = rows.get(str(path))
        if row is not None and not row.enabled:
            continue
        mode = wanted.mode if agent in IMPORT_AGENTS else "inline"
        found.append(Target(path, "global", agent, None, mode))
    return found


def project_targets(rows: dict[str, ContextTargetRow]) -> list[Target]:
    """Return the enabled project targets recorded by ``context enable``."""
    return [
        Target(Path(row.path), "project", row.agent, row.project, row.mode)
        for row in rows.values()
        if row.kind == "project" and row.enabled and row.project
    ]


def _is_non_empty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def import_file(settings: Settings, target: Target) -> Path:
    """Return the file an import-mode target's block lives in, under the context folder."""
    if target.kind == "global" and target.agent:
        return settings.context_dir / f"{target.agent}.md"
    return settings.context_dir / f"project-{file_slug(target.project or 'default')}.md"


def import_line(path: Path) -> str:
    """Return the import line for a file: ``@~/...`` under the home folder, else absolute."""
    home = Path(os.path.expanduser("~"))
    try:
        return "@~/" + path.relative_to(home).as_posix()
    except ValueError:
        return "@" + path.as_posix()


def file_slug(name: str) -> str:
    """Return a file name for a project: readable, and unique by a short hash."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:48] or "project"
    return f"{readable}-{hashlib.sha1(name.encode('utf-8')).hexdigest()[:8]}"


def codex_room(target: Target, limit: int) -> int:
    """Return the bytes a Codex file's framed block may use: the limit less everything else Codex reads.

    Counts the file's own text outside the block and the other AGENTS files
    from the repository root down to the file's folder.
    """
    used = 0
    try:
        current = read_text_file(target.path.resolve())
        used += len(current.encode(cut_block(current.text, current.newline)))
    except (OSError, UnicodeDecodeError, ValueError):
        used += _size(target.path)
    if target.kind == "project":
        folder = target.path.parent
        for parent in folder.parents:
            if (parent / ".git").exists() or parent == parent.parent:
                break
            used += next((_size(parent / n) for n in CODEX_FILES if _size(parent / n)), 0)
    overhead = len(BEGIN) + len(END) + 8  # markers and the newlines around them
    return limit - used - overhead


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def git_dir(repo: Path) -> Path | None:
    """Return the repository's git folder (following a worktree's ``.git`` file), or None."""
    dot_git = repo / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        first = dot_git.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    linked = (repo / first.removeprefix("gitdir:").strip()).resolve()
    common = linked / "commondir"
    try:
        return (linked / common.read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return linked


def _exclude_entry(repo: Path, file: Path) -> tuple[Path, str] | None:
    """Return the repository's exclude file and file's line in it, or None if not a repo."""
    folder = git_dir(repo)
    if folder is None:
        return None
    return folder / "info" / "exclude", "/" + file.relative_to(repo).as_posix()


def add_git_exclude(repo: Path, file: Path) -> bool:
    """List a file incremind created in the repository's ``.git/info/exclude``; False if not a repo."""
    found = _exclude_entry(repo, file)
    if found is None:
        return False
    exclude, entry = found
    try:
        lines = exclude.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    if entry in lines:
        return True
    exclude.parent.mkdir(parents=True, exist_ok=True)
    with open(exclude, "a", encoding="utf-8") as handle:
        lead = "\n" if lines and exclude.read_bytes()[-1:] != b"\n" else ""
        handle.write(f"{lead}{EXCLUDE_NOTE}\n{entry}\n")
    return True


def remove_git_exclude(repo: Path, file: Path) -> bool:
    """Take out an exclude entry incremind added (with its note line); True if there was one."""
    found = _exclude_entry(repo, file)
    if found is None:
        return False
    exclude, entry = found
    try:
        lines = exclude.read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        return False
    kept: list[str] = []
    removed = False
    for line in lines:
        if line == entry and kept and kept[-1] == EXCLUDE_NOTE:
            kept.pop()
            removed = True
            continue
        kept.append(line)
    if removed:
        exclude.write_text("\n".join(kept), encoding="utf-8")
    return removed
