"""A disk that can be filled and freed at will, for tests that cannot mount a small file system.

The faults are injected at the lowest point a test can reach without
privileges: SQLite's own file writes (a VFS shim over the default one, so
SQLite raises SQLITE_FULL from its real write path and rolls back as it would)
and ``os.fsync`` for the files Python writes (the kept originals and the
context blocks), which reports ENOSPC as it does on a full disk.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable
from typing import Any

import apsw
import pytest


class _FullFile(apsw.VFSFile):
    def __init__(self, disk: FullDisk, name: Any, flags: list[int]) -> None:
        super().__init__("unix", name, flags)
        self._disk = disk

    def xWrite(self, data: bytes, offset: int) -> None:
        if self._disk.database_full:
            raise apsw.FullError("database or disk is full")
        super().xWrite(data, offset)


class _FullVfs(apsw.VFS):
    def __init__(self, disk: FullDisk) -> None:
        super().__init__("incremind-test-full", base="unix", makedefault=True)
        self._disk = disk

    def xOpen(self, name: Any, flags: list[int]) -> _FullFile:
        return _FullFile(self._disk, name, flags)


class FullDisk:
    """Switch the injected faults on and off; every connection opened meanwhile goes through them."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.database_full = False
        self.files_full = False
        self.free_bytes: int | None = None  # what shutil.disk_usage reports, when set
        self._vfs = _FullVfs(self)
        real_fsync: Callable[[int], None] = os.fsync
        real_usage = shutil.disk_usage

        def fsync(fd: int) -> None:
            if self.files_full:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            real_fsync(fd)

        def disk_usage(path: str | os.PathLike[str]) -> Any:
            usage = real_usage(path)
            if self.free_bytes is None:
                return usage
            return usage._replace(free=self.free_bytes, used=usage.total - self.free_bytes)

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(shutil, "disk_usage", disk_usage)

    def fill(self, *, database: bool = True, files: bool = True) -> None:
        self.database_full, self.files_full = database, files

    def free(self) -> None:
        self.database_full = self.files_full = False
        self.free_bytes = None

    def close(self) -> None:
        """Unregister the VFS (every connection through it must be closed by now)."""
        self.free()
        self._vfs.unregister()
