"""Where a memory home is, its config file, and the socket its daemon answers on.

Standard library only: the thin command-line client finds the daemon with
this before anything heavy is imported, and the settings use the same
definitions, so the two never disagree about which home is meant.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
from pathlib import Path

DEFAULT_HOME = Path("~/.incremind")
CONFIG_NAME = "config.json"
SOCKET_NAME = "daemon.sock"
# a Unix socket path must fit sun_path (108 bytes with its NUL); a longer home gets a short one elsewhere
_MAX_SOCKET_PATH = 100
_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)


def strip_comments(text: str) -> str:
    """Remove // and /* */ comments outside strings, keeping line numbers."""

    def keep(match: re.Match[str]) -> str:
        token = match.group()
        if token.startswith('"'):
            return token
        return "\n" * token.count("\n")

    return _COMMENT.sub(keep, text)


def config_path(explicit: Path | None = None, home: Path | None = None) -> Path:
    """Return the config file in effect: --config, INCREMIND_CONFIG, or <home>/config.json."""
    if explicit is not None:
        return explicit.expanduser()
    if env := os.environ.get("INCREMIND_CONFIG"):
        return Path(env).expanduser()
    base = home or Path(os.environ.get("INCREMIND_HOME") or DEFAULT_HOME)
    return base.expanduser() / CONFIG_NAME


def home_in_effect(home: Path | None, config: Path | None) -> Path | None:
    """Return the home the settings will use, as they choose it; None when the config file cannot say.

    Precedence as in the settings: --home, then INCREMIND_HOME, then the config
    file's ``home``, then ~/.incremind.
    """
    if home is not None:
        return home.expanduser()
    if env := os.environ.get("INCREMIND_HOME"):
        return Path(env).expanduser()
    path = config_path(config)
    try:
        data = json.loads(strip_comments(path.read_text(encoding="utf-8-sig")))
    except FileNotFoundError:
        return None if config is not None else DEFAULT_HOME.expanduser()
    except (OSError, UnicodeDecodeError, ValueError):
        return None  # the settings will report the broken file
    if not isinstance(data, dict):
        return None
    chosen = data.get("home", str(DEFAULT_HOME))
    return Path(chosen).expanduser() if isinstance(chosen, str) else None


def cache_dir() -> Path:
    """Return incremind's cache folder: ``$XDG_CACHE_HOME/incremind``, else ``~/.cache/incremind``.

    It holds what can be rebuilt (the unpacked embedding model), never memory.
    """
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path("~/.cache").expanduser()  # as the XDG spec says
    return root / "incremind"


def socket_path(home: Path) -> Path:
    """Return where the daemon of a home listens: ``<home>/daemon.sock``, or a short path for a deep home.

    The short path is ``<tmp>/incremind-<uid>/<hash of the home>.sock``, in a
    folder only this user may use (``private_socket_folder`` checks it).
    """
    home = Path(os.path.abspath(home))
    path = home / SOCKET_NAME
    if len(os.fsencode(path)) <= _MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(os.fsencode(home)).hexdigest()[:24]
    return Path(tempfile.gettempdir()) / f"incremind-{os.getuid()}" / f"{digest}.sock"


def is_own_socket(path: Path) -> bool:
    """Tell whether path is a socket this user made, in a folder no one else may write to."""
    try:
        found = path.lstat()
        folder = path.parent.lstat()
    except OSError:
        return False
    uid = os.getuid()
    return (
        stat.S_ISSOCK(found.st_mode)
        and found.st_uid == uid
        and folder.st_uid == uid
        and stat.S_ISDIR(folder.st_mode)
        and not folder.st_mode & 0o022
    )
