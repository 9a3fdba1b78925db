"""Keep incremind's files to the person: folders 0700, files 0600, whatever the umask.

The home holds the memory, the kept originals (their unredacted bytes, by
design), the logs and the config, and no other user on the machine may read
them. A mode given to open or mkdir is narrowed by the umask and never widened,
and an odd umask (0o277) narrows it past use, so every path made here is also
chmodded to its mode. Homes from before, or made under a loose umask, are
narrowed on each start by ``make_home_private``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

log = logging.getLogger(__name__)

PRIVATE_FOLDER = 0o700
PRIVATE_FILE = 0o600
_OTHERS = 0o077  # the group and other bits


def make_private_folders(path: Path) -> None:
    """Create a folder and its missing parents as 0700; existing ones stay."""
    missing: list[Path] = []
    folder = path
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_FOLDER)
        except FileExistsError:
            continue  # made meanwhile by another process (the CLI beside the daemon): not ours to change
        os.chmod(folder, PRIVATE_FOLDER)
    if not path.is_dir():
        raise FileExistsError(f"{path} exists and is not a folder")


def open_private(path: Path, flags: int) -> int:
    """Open a file, creating it 0600 when missing; return the descriptor.

    An existing file of this user's that the group or others can reach is
    narrowed to 0600 as well: whoever opens it this way holds memory in it.
    """
    fd = os.open(path, flags | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE)
    try:
        info = os.fstat(fd)
        if stat.S_IMODE(info.st_mode) != PRIVATE_FILE and info.st_uid == os.geteuid():
            os.fchmod(fd, PRIVATE_FILE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_private(path: Path, data: bytes) -> None:
    """Write a file whole as 0600, replacing what it held."""
    with os.fdopen(open_private(path, os.O_WRONLY | os.O_TRUNC), "wb") as out:
        out.write(data)


@contextmanager
def replacing(
    path: Path, *, mode: int = PRIVATE_FILE, sync: bool = True, before_rename: Callable[[Path], None] | None = None
) -> Iterator[BinaryIO]:
    """Yield a new file beside path; once the block ends, fsync it, give it mode and rename it over path.

    The one way incremind replaces a file: a reader sees the old file or the
    new one whole, a crash leaves the old one, and a failure inside the block
    removes the temporary file and changes nothing. ``sync=False`` skips the
    fsync, for a file whose loss in a crash costs nothing (the heartbeat).
    ``before_rename(temp)`` runs last, on the finished temporary file; what it
    raises cancels the replacement.
    """
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, PRIVATE_FILE)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)  # exactly mode, whatever the umask
            yield handle
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        if before_rename is not None:
            before_rename(temp)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    if sync:
        _sync_folder(path.parent)  # the rename itself survives a crash


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a folder; the file itself is synced
    finally:
        os.close(fd)


def replace_file(path: Path, data: bytes, *, mode: int = PRIVATE_FILE, sync: bool = True) -> None:
    """Replace path with data atomically and durably (``replacing``), as a file of mode."""
    with replacing(path, mode=mode, sync=sync) as handle:
        handle.write(data)


def create_private(path: Path, data: bytes) -> bool:
    """Create path holding data, 0600, unless it exists; say whether this call made it.

    The file is written whole beside path and hard-linked into place, which
    fails when path exists: two processes making it at once agree on one
    content, and no reader ever sees it half written.
    """
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with replacing(temp) as handle:
            handle.write(data)
        try:
            os.link(temp, path)
        except FileExistsError:
            return False
    finally:
        temp.unlink(missing_ok=True)
    _sync_folder(path.parent)
    return True


def only_mine(info: os.stat_result) -> bool:
    """Tell whether a file is this user's and no one else may write it: safe to load a cache from."""
    return info.st_uid == os.geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def copy_private(source: Path, target: Path) -> None:
    """Copy a file's bytes into a 0600 file (the source's mode is not copied)."""
    with source.open("rb") as reader, os.fdopen(open_private(target, os.O_WRONLY | os.O_TRUNC), "wb") as writer:
        shutil.copyfileobj(reader, writer)


def make_private(path: Path) -> bool:
    """Take group and other access off a path of this user's; say if it changed.

    A missing path, a symlink, someone else's file or a file with other hard
    links (the same file outside the home) is left as it is.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(info.st_mode) or info.st_uid != os.geteuid() or not info.st_mode & _OTHERS:
        return False
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        return False
    os.chmod(path, stat.S_IMODE(info.st_mode) & ~_OTHERS)
    return True


def make_home_private(home: Path) -> int:
    """Take group and other access off everything in the home; count the changes.

    Symlinks are neither changed nor followed, so nothing outside the home is
    touched; neither is a file with more than one link (it is reachable from
    elsewhere, the person's own business) nor someone else's file. The home is
    narrowed first, so no other user can swap a path inside it meanwhile.
    Failures are logged and skipped: a start never fails over a mode.
    """
    top = home.resolve()  # a symlinked home (~/.incremind -> /data/incremind) is the folder it names
    changed = 0
    me = os.geteuid()
    for folder, _dirs, files, folder_fd in os.fwalk(top, follow_symlinks=False, onerror=_skipped):
        changed += _narrow(Path(folder), folder_fd, None, me)
        for name in files:
            changed += _narrow(Path(folder, name), folder_fd, name, me)
    return changed


def _skipped(exc: OSError) -> None:
    log.warning("could not make %s private: %s", exc.filename, exc.strerror or exc)


def _narrow(path: Path, folder_fd: int, name: str | None, me: int) -> int:
    """Narrow one entry: the folder behind folder_fd itself (name None), or its entry name."""
    try:
        info = os.fstat(folder_fd) if name is None else os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
        kind = stat.S_IFMT(info.st_mode)
        if kind in (stat.S_IFLNK, stat.S_IFBLK, stat.S_IFCHR) or info.st_uid != me or not info.st_mode & _OTHERS:
            return 0
        if name is not None and kind == stat.S_IFREG and info.st_nlink > 1:
            log.warning("left %s as it is: it has other hard links, outside the home perhaps", path)
            return 0
        mode = stat.S_IMODE(info.st_mode) & ~_OTHERS
        if name is None:
            os.fchmod(folder_fd, mode)
        else:
            os.chmod(name, mode, dir_fd=folder_fd)
    except FileNotFoundError:
        return 0  # gone since the folder was listed (a claimed inbox file, a rotated log)
    except OSError as exc:
        exc.filename = str(path)
        _skipped(exc)
        return 0
    return 1


def file_sha256(path: Path) -> str:
    """Return the SHA-256 of a file, read in blocks."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
