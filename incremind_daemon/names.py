"""Project names as they enter memory: from MCP arguments, the command line, inbox folders, sessions.

A project name is printed into agents' context blocks, hook files and file
names, so it is held to a plain shape wherever it comes in: letters and
digits of any script, single spaces and ``. _ - +``, starting with a letter,
digit or ``_``, at most 64 characters. A name someone types or an agent
sends is checked and refused with the reason (``check_project``); a name read off a folder (an
inbox sub-folder, a session's working directory) is made into one
(``project_from_folder``), since a folder cannot be asked to rename itself.

Standard library only: ``incremind hook`` names the project of its working
directory with the same rule as the session reader, and must stay fast.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

AGENTS = ("claude", "codex", "gemini")  # the coding agents whose sessions incremind reads and which it sets up
MAX_PROJECT_CHARS = 64
_PROJECT = re.compile(rf"\w(?:[\w.+-]| (?! )){{0,{MAX_PROJECT_CHARS - 1}}}")
_UNSAFE_RUN = re.compile(r"[^\w.+ -]+|\s{2,}")
RULE = "letters, digits, single spaces and . _ - +, starting with a letter, digit or _, at most 64 characters"


class ProjectNameError(ValueError):
    """A project name that cannot enter memory; str() says why and what is allowed."""


def check_project(raw: str) -> str:
    """Return ``raw`` as a project name (NFC, trimmed), or raise ProjectNameError saying why."""
    name = unicodedata.normalize("NFC", raw).strip()
    if not name:
        raise ProjectNameError("the project name is empty; leave it out for the default project")
    if len(name) > MAX_PROJECT_CHARS:
        raise ProjectNameError(f"the project name is {len(name)} characters long; the limit is {MAX_PROJECT_CHARS}")
    if _PROJECT.fullmatch(name) is None or name.endswith(" "):
        bad = sorted({c for c in name if not (c.isalnum() or c in "._-+ ")})
        shown = ", ".join(repr(c) for c in bad[:5]) if bad else "a double space, or how it starts or ends"
        raise ProjectNameError(f"the project name {_quote(name)} cannot be used ({shown}): use {RULE}")
    return name


def project_from_folder(folder_name: str) -> str | None:
    """Make a folder's name into a project name, or None when nothing usable is left."""
    name = unicodedata.normalize("NFC", folder_name)
    name = _UNSAFE_RUN.sub(lambda m: " " if m.group(0).isspace() else "-", name)
    name = name.strip(" .-+")[:MAX_PROJECT_CHARS].rstrip(" ")
    try:
        return check_project(name)
    except ProjectNameError:
        return None


def _quote(name: str) -> str:
    """Return a name shown safely in a message: printable, clipped."""
    shown = "".join(c if c.isprintable() else "?" for c in name[:40])
    return repr(shown + ("…" if len(name) > 40 else ""))


def project_for_cwd(cwd: str | None, overrides: dict[str, str], *, any_folder: bool = True) -> str | None:
    """Name a session's project: a configured prefix, else its git top folder, else its folder.

    A folder's name is made into a project name (``names.project_from_folder``):
    a working directory is text from outside, and it is printed into context blocks.
    ``any_folder=False``: None for a folder in no repository and under no configured prefix.
    """
    if not cwd:
        return None
    folder = Path(cwd).expanduser()
    for prefix, name in sorted(overrides.items(), key=lambda item: -len(item[0])):
        base = Path(prefix).expanduser()
        if folder == base or base in folder.parents:
            return name
    for candidate in (folder, *folder.parents):
        if candidate == candidate.parent:
            break
        try:
            if (candidate / ".git").exists():
                return project_from_folder(candidate.name)
        except OSError:
            break
    return project_from_folder(folder.name) if any_folder else None
