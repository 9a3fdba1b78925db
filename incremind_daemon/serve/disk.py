"""Room on the home's file system: how much is free, and whether writes have run out of it.

Status and doctor share one threshold. It is an amount, not a share of the
disk: 1 % of a 2 TB disk (20 GB) would warn for months, and 1 % of a 10 GB
VM disk (100 MB) is too late. Taking in the largest file the inbox accepts
needs its kept original plus its text in the database, the full-text index
and the WAL: about four times its size, and never less than 200 MB.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pydantic import BaseModel

from incremind_daemon.config import Settings
from incremind_daemon.store import clock

LOW_SPACE_FLOOR_BYTES = 200 * 1024 * 1024
ROOM_PER_LARGEST_FILE = 4  # kept original + extracted text + FTS5 rows + WAL frames, at worst


class DiskStatus(BaseModel):
    """Free space where memory lives, and the last write that found none."""

    path: str  # the folder measured: the home, or its nearest existing parent
    free_bytes: int
    total_bytes: int
    low_bytes: int  # below this much free space status warns and doctor fails
    low: bool
    full: bool  # a write failed for lack of space and none has succeeded since
    full_since: str | None = None  # when the first such write failed (UTC), if known
    full_part: str | None = None  # what hit it: the item, the step and the error


def low_space_bytes(settings: Settings) -> int:
    """Return the free space under which taking in files may soon fail."""
    return max(LOW_SPACE_FLOOR_BYTES, ROOM_PER_LARGEST_FILE * settings.max_file_bytes)


def existing_folder(path: Path) -> Path:
    """Return path, or its nearest parent that exists (a home not made yet)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def measure_disk(settings: Settings) -> DiskStatus:
    """Measure the free space on the home's file system (as an unprivileged writer sees it)."""
    where = existing_folder(settings.home_dir)
    usage = shutil.disk_usage(where)
    low = low_space_bytes(settings)
    return DiskStatus(
        path=str(where),
        free_bytes=usage.free,
        total_bytes=usage.total,
        low_bytes=low,
        low=usage.free < low,
        full=usage.free == 0,
        full_part=f"{where}: no space left on its file system" if usage.free == 0 else None,
    )


def format_size(size: int) -> str:
    """Render a byte count as MB below a gigabyte, else GB."""
    if size < 1024**3:
        return f"{size / 1024**2:.0f} MB"
    return f"{size / 1024**3:.1f} GB"


def format_disk(disk: DiskStatus, waiting: int) -> list[str]:
    """Say what a full or nearly full disk means for memory; nothing when there is room."""
    free = f"free space on {disk.path} ({format_size(disk.free_bytes)} free)"
    if disk.full:
        since = f" since {_clock(disk.full_since)}" if disk.full_since else ""
        if not waiting:
            return [f"disk full     writes failing{since}; {free}: the daemon resumes without a restart"]
        files = "1 file" if waiting == 1 else f"{waiting} files"
        return [f"disk full     {files} waiting{since}; {free}: they are taken in without a restart"]
    if disk.low:
        return [
            f"disk low      {format_size(disk.free_bytes)} free on {disk.path}, under "
            f"{format_size(disk.low_bytes)}: free some space before it fills and files wait in the inbox"
        ]
    return []


def _clock(stamp: str) -> str:
    """Show an ISO 8601 UTC time as HH:MM UTC, with the day when it is not today."""
    day, _, time = stamp.partition("T")
    if len(time) < 5:
        return stamp
    today = clock.now().date().isoformat()
    return f"{time[:5]} UTC" if day == today else f"{day} {time[:5]} UTC"
