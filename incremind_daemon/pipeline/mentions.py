"""Collect the files a session touched or named, from tool markers and from prose."""

from __future__ import annotations

import logging
import re

from incremind_daemon.pipeline.cues import wordset

log = logging.getLogger(__name__)

MAX_FILES = 12

# Tool markers name files; prose mentions count when they carry a known extension.
_MARKER = re.compile(r"(?:\[tool\][ \t]*)?([\w.\-/]+)(?::[ \t]*|[ \t]+)(.*)")
_EDIT_TOOLS = wordset(
    "edit multiedit write notebookedit applypatch writefile replace editfile createfile strreplaceeditor create patch"
    " strreplacebasededittool deletefile writetofile insert appendfile"
)
_READ_TOOLS = wordset("read readfile view notebookread readmanyfiles openfile")
_SHELL_TOOLS = wordset("bash shell execcommand runshellcommand exec localshell terminal runcommand runterminalcmd")
_COMMIT = re.compile(r"\bgit\s+commit\b.*?\s-[a-z]*m\s*(?:\"([^\"]+)\"|'([^']+)')")
_BARE_NAMES = "Makefile|Dockerfile|Containerfile|Gemfile|Rakefile|Procfile|Justfile|Jenkinsfile|Vagrantfile|LICENSE"
_BARE_FILES = frozenset(_BARE_NAMES.split("|"))
_PATH_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_@+.~/:\\-])(?:[A-Za-z0-9_@+~.-]*/)*"
    rf"(?:[A-Za-z0-9_@+~-]*\.[A-Za-z0-9_@+~.-]*[A-Za-z0-9_]|{_BARE_NAMES})(?![A-Za-z0-9_@+~/-])"
)
_EXTENSIONS = wordset(
    "py pyi ipynb js mjs cjs jsx ts tsx vue svelte md mdx rst txt json jsonl yaml yml toml ini cfg conf lock mod sum rs"
    " go ex exs erl heex c h cc cpp hpp m swift kt kts java scala gradle clj rb erb rake php cs fs lua r jl dart zig hs"
    " ml sh bash zsh fish ps1 bat sql prisma graphql proto html htm css scss sass less xml svg csv tsv tf hcl nix cmake"
    " mk tex org adoc ejs hbs twig vim el patch diff plist gemspec csproj sln"
)
# "xterm.js" in prose names a library, not a file of this project
_JS_LIBRARIES = wordset("node next vue nuxt react three d3 chart express xterm moment p5 pdf jquery socket angular")
# most text names no file; this literal-led scan rules it out before the slower token pattern runs
_PATH_HINT = re.compile(
    rf"\.(?:{'|'.join(sorted(_EXTENSIONS, key=len, reverse=True))})(?![A-Za-z0-9_])|{_BARE_NAMES}|"
    + r"\.[a-z][a-z-]{2,}(?![\w.])"
)
_DOTFILE = re.compile(r"\.[a-z][a-z-]*[a-z]")  # .gitignore, .python-version
_SCRATCH_DIRS = ("/tmp/", "/private/tmp/", "/var/folders/", "/dev/", "/proc/")


class MentionedFiles:
    """Paths a session touched or named: when each was last seen, and whether a tool changed it."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[tuple[int, int], bool]] = {}  # path: ((turn, order), edited)
        self._order = 0

    def see(self, path: str, index: int, *, edited: bool) -> None:
        self._order += 1
        path = path.removeprefix("./")
        seen, was_edited = self._seen.get(path, ((-1, 0), False))
        self._seen[path] = (max(seen, (index, self._order)), edited or was_edited)

    def has_enough(self) -> bool:
        # prose names no edits, so older mentions can no longer reach the list
        return len(self._seen) >= 2 * MAX_FILES

    def see_marker(self, marker: str, index: int) -> list[str]:
        """Record the files a tool marker names; return the message of each commit it makes, in order."""
        match = _MARKER.fullmatch(marker.split("\n", 1)[0].strip())
        if match is None:
            return []
        tool, target = re.sub(r"[^a-z]", "", match.group(1).lower()), match.group(2).strip()
        if tool in _EDIT_TOOLS or tool in _READ_TOOLS:
            for path in target.split(", ") if "patch" in tool else [target]:
                if _is_marker_path(path):
                    self.see(path, index, edited=tool in _EDIT_TOOLS)
        elif tool in _SHELL_TOOLS:
            self.see_prose(target, index)
            # "git add live/staging && git commit -qm 'feat(staging): …' && … git commit -qm 'feat(prod): …'": two
            messages = ((commit.group(1) or commit.group(2)) for commit in _COMMIT.finditer(target))
            return [message for message in messages if not message.startswith("$(")]
        return []

    def see_prose(self, text: str, index: int) -> None:
        if _PATH_HINT.search(text) is None:
            return
        for match in _PATH_TOKEN.finditer(text):
            if _is_mentioned_path(path := match.group().rstrip(".-")):
                self.see(path, index, edited=False)

    def recent(self) -> tuple[str, ...]:
        """Return up to MAX_FILES paths, most recent first, changed files taking the slots first."""
        groups: list[tuple[str, tuple[int, int], bool]] = []
        for path, (seen, edited) in sorted(self._seen.items(), key=lambda entry: entry[1][0], reverse=True):
            same = next((n for n, group in enumerate(groups) if _same_file(path, group[0])), None)
            if same is None:
                groups.append((path, seen, edited))
            else:  # one file named twice: show the most specific relative form
                shown, last_seen, was_edited = groups[same]
                shown = min(shown, path, key=lambda p: (p.startswith(("/", "~")), -len(p)))
                groups[same] = (shown, last_seen, edited or was_edited)
            if len(groups) >= 4 * MAX_FILES:
                break
        chosen = [group for group in groups if group[2]][:MAX_FILES]
        chosen += [group for group in groups if not group[2]][: MAX_FILES - len(chosen)]
        return tuple(group[0] for group in sorted(chosen, key=lambda group: group[1], reverse=True))


def _same_file(a: str, b: str) -> bool:
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def _is_marker_path(path: str) -> bool:
    if not path or len(path) > 260 or path.endswith("…") or path.startswith(_SCRATCH_DIRS):
        return False
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return not any(c in path for c in "*?[]{}<>|\"'\n:") and ("." in name or name in _BARE_FILES or "/" in path)


def _is_mentioned_path(path: str) -> bool:
    if path.startswith(("//", "...")) or path.startswith(_SCRATCH_DIRS) or len(path) > 260:
        return False
    head, _, name = path.rpartition("/")
    if head and not head.startswith(".") and "." in head.split("/", 1)[0].strip("~"):
        return False  # github.com/owner/repo.py is a URL without its scheme
    if name in _BARE_FILES or (_DOTFILE.fullmatch(name) and name[1:] not in _EXTENSIONS):
        return True
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem.strip(".") or extension.lower() not in _EXTENSIONS:
        return False
    return bool(head) or extension != "js" or stem.lower() not in _JS_LIBRARIES
