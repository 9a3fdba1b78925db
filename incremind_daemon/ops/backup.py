"""Back up a home while the daemon writes, and restore a backup into an empty home.

A backup is a folder (or the same folder as a ``.tar.gz`` when DEST ends so)::

    manifest.json   what it holds: rows per table, SHA-256 of the database copy and of each original
    memory.db       the database at one moment (SQLite's online backup, in one read transaction)
    data/raw/...    the kept originals the database refers to, under their home-relative paths
    config.json     the config file in effect, when there is one

Originals are written before the rows that name them commit, so every
original the snapshot refers to already exists when it is copied after the
snapshot; they are content-addressed and never rewritten, so a plain copy is
consistent. Installed models are not included (reinstall them), nor are the
vectors' models: the vectors themselves are in the database.

A backup is a copy of the memory, so it is as private as the home: every file
in it (and the archive) is 0600 and every folder it makes 0700, whatever the
umask; a DEST folder that already exists keeps its own mode.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from incremind_daemon import __version__
from incremind_daemon.config import Settings
from incremind_daemon.errors import IncremindError
from incremind_daemon.locate import CONFIG_NAME, config_path
from incremind_daemon.private import (
    copy_private,
    file_sha256,
    make_private_folders,
    open_private,
    replacing,
    write_private,
)
from incremind_daemon.serve.status import running_pid
from incremind_daemon.store import clock, report
from incremind_daemon.store.db import copy_database, open_plain
from incremind_daemon.store.schema import schema_version, stored_version

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
FORMAT = "incremind-backup"
FORMAT_VERSION = 1
DATABASE = "memory.db"
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz")
_BLOCK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class BackupResult:
    """What a backup holds."""

    path: Path
    tables: dict[str, int]
    raw_files: int
    raw_bytes: int
    database_bytes: int
    missing: tuple[str, ...]  # originals the database names but the home lacks


@dataclass(frozen=True, slots=True)
class RestoreResult:
    """What a restore wrote."""

    home: Path
    tables: dict[str, int]
    raw_files: int
    config: Path | None


def is_archive(path: Path) -> bool:
    """Tell whether a backup path names a .tar.gz rather than a folder."""
    return path.name.endswith(ARCHIVE_SUFFIXES)


# --- backup -----------------------------------------------------------------------------


def take_backup(settings: Settings, dest: Path, *, config: Path | None = None) -> BackupResult:
    """Copy the database (online), the originals it names and the config into dest."""
    if not settings.database_path.exists():
        raise IncremindError(f"no memory at {settings.home_dir} yet: there is nothing to back up")
    dest = dest.expanduser().absolute()
    archive = is_archive(dest)
    if archive:
        if dest.exists():
            raise IncremindError(f"{dest} exists; name a new file (backups never overwrite one another)")
        dest.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".incremind-backup-", dir=dest.parent))
    else:
        if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
            raise IncremindError(f"{dest} is not an empty folder; name a new one (backups never overwrite)")
        dest.parent.mkdir(parents=True, exist_ok=True)  # the person's own path, made as any folder of theirs
        make_private_folders(dest)
        staging = dest
    try:
        result = _fill(settings, staging, config)
        if archive:
            _pack(staging, dest)
    except BaseException:
        _clear(staging)
        raise
    finally:
        if archive:
            shutil.rmtree(staging, ignore_errors=True)
    return BackupResult(dest, result.tables, result.raw_files, result.raw_bytes, result.database_bytes, result.missing)


def _fill(settings: Settings, folder: Path, config: Path | None) -> BackupResult:
    copy = folder / DATABASE
    copy_database(settings.database_path, copy)
    tables = count_tables(copy)
    raw: dict[str, str] = {}
    missing: list[str] = []
    raw_bytes = 0
    for relative, expected in referenced_originals(copy):
        source = _inside(settings.home_dir, relative)
        if not source.is_file():
            missing.append(relative)
            log.warning("the kept original %s is missing from %s", relative, settings.home_dir)
            continue
        digest, size = copy_hashed(source, folder / relative)
        if expected and digest != expected:
            raise IncremindError(f"{source} does not match its SHA-256 any more; the kept original is damaged")
        raw[relative] = digest
        raw_bytes += size
    conf = config_path(config, settings.home_dir)
    if conf.is_file():
        copy_private(conf, folder / CONFIG_NAME)
    conn = open_plain(copy)
    try:
        version = stored_version(conn)
    finally:
        conn.close()
    manifest = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "incremind": __version__,
        "created_at": clock.stamp(),
        "home": str(settings.home_dir),
        "schema_version": version,
        "database": {"file": DATABASE, "sha256": file_sha256(copy), "bytes": copy.stat().st_size},
        "tables": tables,
        "raw": raw,
        "raw_missing": missing,
        "config": CONFIG_NAME if conf.is_file() else None,
    }
    write_private(folder / MANIFEST, (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))
    return BackupResult(folder, tables, len(raw), raw_bytes, copy.stat().st_size, tuple(missing))


def count_tables(path: Path) -> dict[str, int]:
    """Count the rows of each ordinary table (not full-text or vector indexes, which are derived)."""
    conn = open_plain(path)
    try:
        return report.table_counts(conn)
    finally:
        conn.close()


def referenced_originals(path: Path) -> list[tuple[str, str | None]]:
    """Return (home-relative path, sha256) of every kept original the database names."""
    conn = open_plain(path)
    try:
        rows = report.kept_originals(conn)
    finally:
        conn.close()
    # a session's raw_path names the agent's own transcript (absolute); its messages are in the database
    return [(raw, sha) for raw, sha in rows if not Path(raw).is_absolute()]


def _inside(base: Path, relative: str) -> Path:
    """Resolve a stored relative path, refusing one that leaves base (a damaged or hostile row)."""
    target = (base / relative).resolve()
    if not target.is_relative_to(base.resolve()) or Path(relative).is_absolute():
        raise IncremindError(f"the path {relative!r} leaves {base}; refusing to copy it")
    return target


def copy_hashed(source: Path, target: Path) -> tuple[str, int]:
    """Copy a file as 0600 and return its SHA-256 and size, reading it once."""
    make_private_folders(target.parent)
    digest = hashlib.sha256()
    size = 0
    with source.open("rb") as reader, os.fdopen(open_private(target, os.O_WRONLY | os.O_TRUNC), "wb") as writer:
        while block := reader.read(_BLOCK):
            digest.update(block)
            writer.write(block)
            size += len(block)
    # the times only: the source's mode (0644 in an older home) or ACLs would open the copy to others
    info = source.stat()
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
    return digest.hexdigest(), size


def _pack(folder: Path, archive: Path) -> None:
    with replacing(archive) as out, tarfile.open(fileobj=out, mode="w:gz") as tar:
        for entry in sorted(folder.rglob("*")):
            tar.add(entry, arcname=str(entry.relative_to(folder)), recursive=False)


def _clear(folder: Path) -> None:
    for entry in folder.iterdir() if folder.exists() else ():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


# --- restore ----------------------------------------------------------------------------


def restore_backup(settings: Settings, source: Path) -> RestoreResult:
    """Verify a backup against its manifest, then write it into an empty home."""
    home = settings.home_dir
    if running_pid(settings) is not None:
        raise IncremindError(f"a daemon runs for {home}; restore only into an empty home that no daemon serves")
    held = [p for p in (settings.database_path, Path(f"{settings.database_path}-wal")) if p.exists()]
    if settings.raw_dir.is_dir() and any(p.is_file() for p in settings.raw_dir.rglob("*")):
        held.append(settings.raw_dir)
    if held:
        raise IncremindError(
            f"{home} already holds memory ({held[0]}); restore only into an empty home: "
            f"incremind --home NEW_FOLDER restore-backup {source}, or move {home} away first"
        )
    source = source.expanduser().absolute()
    with _opened(source) as folder:
        manifest = verify_backup(folder)
        make_private_folders(settings.raw_dir)
        raw: dict[str, str] = manifest["raw"]
        for relative in raw:  # originals first, as in the daemon: rows never name a missing file
            target = _inside(home, relative)
            copy_hashed(folder / relative, target)
        written_config: Path | None = None
        if manifest.get("config"):
            written_config = home / CONFIG_NAME
            if written_config.exists():
                written_config = home / f"{CONFIG_NAME}.from-backup"
            copy_private(folder / CONFIG_NAME, written_config)
        with (folder / DATABASE).open("rb") as reader, replacing(settings.database_path) as writer:
            shutil.copyfileobj(reader, writer)
    tables = count_tables(settings.database_path)
    if tables != manifest["tables"]:
        raise IncremindError(f"the restored database in {home} does not hold what the manifest counts; try again")
    return RestoreResult(home, tables, len(raw), written_config)


@contextmanager
def _opened(source: Path) -> Iterator[Path]:
    """Yield a backup's folder: the folder itself, or a .tar.gz unpacked into a temporary one."""
    if source.is_dir():
        yield source
        return
    if not source.is_file() or not is_archive(source):
        raise IncremindError(f"{source} is neither a backup folder nor a .tar.gz backup")
    with tempfile.TemporaryDirectory(prefix="incremind-restore-") as temp:
        try:
            with tarfile.open(source, "r:gz") as tar:
                tar.extractall(temp, filter="data")  # no absolute paths, links out of it, or devices
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise IncremindError(f"{source} cannot be unpacked: {exc}") from exc
        yield Path(temp)


def verify_backup(folder: Path) -> dict[str, Any]:
    """Check a backup folder against its manifest; return the manifest."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IncremindError(f"{folder} has no readable {MANIFEST}: is it an incremind backup? ({exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise IncremindError(f"{folder / MANIFEST} is not an incremind backup manifest")
    if int(manifest.get("version", 0)) > FORMAT_VERSION or int(manifest.get("schema_version", 0)) > schema_version():
        raise IncremindError(f"{folder} was made by a newer incremind; upgrade incremind to restore it")
    database = folder / DATABASE
    if not database.is_file() or file_sha256(database) != manifest["database"]["sha256"]:
        raise IncremindError(f"{database} does not match the SHA-256 in the manifest; the backup is damaged")
    for relative, digest in manifest["raw"].items():
        original = _inside(folder, relative)
        if not original.is_file() or file_sha256(original) != digest:
            raise IncremindError(f"the original {relative} in {folder} is missing or damaged; the backup is incomplete")
    if manifest.get("config") and not (folder / CONFIG_NAME).is_file():
        raise IncremindError(f"{folder} names a config.json in its manifest but holds none")
    return manifest
