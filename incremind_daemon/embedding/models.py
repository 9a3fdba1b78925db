"""Embedding models: install, list, verify and remove them under <home>/models/<name>/.

Every file of an installed model has its sha256 in `<folder>/hashes.json`. A hash
known in advance is "pinned"; an unknown one is "recorded" on the first install
(trust on first use) and checked from then on. Files are fetched into
`<target>.part` and moved into place with os.replace only after every file of the
install has been verified, so a failed install leaves an earlier one untouched.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import httpx

from incremind_daemon.config import Settings
from incremind_daemon.embedding.onnx import MANIFEST_FILE, MANIFEST_TYPES, MODEL_FILE, POOLINGS, TOKENIZER_FILE
from incremind_daemon.errors import IncremindError, NotFound
from incremind_daemon.private import file_sha256, make_private_folders, replace_file

log = logging.getLogger(__name__)

HashSource = Literal["pinned", "recorded"]
Progress = Callable[[str, int, int | None], None]  # (file name, bytes so far, total bytes or None)

HASHES_FILE = "hashes.json"
CHUNK_BYTES = 1 << 20
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class ModelFile:
    url: str  # absolute URL, pinned to a repository revision
    target: str  # file name inside the model folder
    sha256: str | None  # None: recorded on first install, verified from then on


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    repository: str
    revision: str
    files: tuple[ModelFile, ...]
    manifest: dict[str, object]  # written as manifest.json


@dataclass(frozen=True, slots=True)
class InstalledFile:
    target: str
    sha256: str
    source: HashSource
    url: str | None  # where the bytes came from; None for a manifest written from a preset
    size: int  # bytes on disk; 0 when the file is missing


@dataclass(frozen=True, slots=True)
class InstalledModel:
    name: str
    folder: Path
    files: tuple[InstalledFile, ...]

    @property
    def size(self) -> int:
        return sum(file.size for file in self.files)


@dataclass(frozen=True, slots=True)
class InstallResult:
    name: str
    folder: Path
    files: tuple[InstalledFile, ...]
    fetched: tuple[str, ...]  # the files written by this install; the others were already in place and intact


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 6  # per file, counted from the last attempt that received any bytes
    base_delay: float = 1.0  # seconds before the first retry, doubled for each next one
    max_delay: float = 30.0


DEFAULT_RETRY = RetryPolicy()


@dataclass(frozen=True, slots=True)
class _Record:
    sha256: str
    source: HashSource
    url: str | None


def _preset(repository: str, revision: str, model_sha256: str, tokenizer_sha256: str, **manifest: object) -> Preset:
    def url(path: str) -> str:
        return f"https://huggingface.co/{repository}/resolve/{revision}/{path}"

    files = (
        ModelFile(url("onnx/model_quantized.onnx"), MODEL_FILE, model_sha256),
        ModelFile(url("tokenizer.json"), TOKENIZER_FILE, tokenizer_sha256),
    )
    name = str(manifest["name"])
    return Preset(name, repository, revision, files, {**manifest, "normalize": True, "output": "last_hidden_state"})


# Xenova's ONNX exports at pinned commits. No download was possible while writing this;
# the hashes are the ones several unrelated public projects pin for these same revisions.
# A file re-pinned without a known hash gets sha256=None (recorded on first install).
PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        _preset(
            "Xenova/multilingual-e5-small",
            "761b726dd34fb83930e26aab4e9ac3899aa1fa78",
            "f80102d3f2a1229f387d3c81909990d8945513e347b0eab049f7de3c6f98c193",
            "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39",
            name="multilingual-e5-small",
            dimension=384,
            pooling="mean",
            query_prefix="query: ",
            passage_prefix="passage: ",
            max_tokens=512,
        ),
        _preset(
            "Xenova/bge-small-zh-v1.5",
            "75c43b069aac4d136ba6bc1122f995fedcfd2781",
            "15b717c382bcb518ba457b93ea6850ede7f4f1cd8937454aa06972366cd19bcc",
            "48cea5d44424912a6fd1ea647bf4fe50b55ab8b1e5879c3275f80e339e8fae26",
            name="bge-small-zh-v1.5",
            dimension=512,
            pooling="cls",
            query_prefix="为这个句子生成表示以用于检索相关文章：",
            passage_prefix="",
            max_tokens=512,
        ),
    )
}


def default_models_dir(settings: Settings) -> Path:
    """Return the folder that holds one sub-folder per installed model."""
    return settings.home_dir / "models"


def check_manifest(data: object, where: str) -> dict[str, object]:
    """Return data if it has the keys and types a manifest needs, else raise IncremindError."""
    if not isinstance(data, dict):
        raise IncremindError(f"{where}: the manifest must be a JSON object; see the keys in the README")
    for key, kind in MANIFEST_TYPES.items():
        value = data.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise IncremindError(f"{where}: manifest key '{key}' is missing or not of type {kind.__name__}")
        if kind is int and isinstance(value, int) and value <= 0:
            raise IncremindError(f"{where}: manifest key '{key}' must be a positive integer")
    if data["pooling"] not in POOLINGS:
        raise IncremindError(f"{where}: manifest key 'pooling' must be one of {', '.join(POOLINGS)}")
    return data


def install_preset(
    name: str,
    models_dir: Path,
    *,
    base_url: str | None = None,
    client: httpx.Client | None = None,
    progress: Progress | None = None,
    retry: RetryPolicy = DEFAULT_RETRY,
) -> InstallResult:
    """Download a named preset into models_dir/name; see install()."""
    if name not in PRESETS:
        raise NotFound(f"no preset named '{name}'; choose one of {', '.join(PRESETS)} or install a folder with --from")
    return install(PRESETS[name], models_dir, base_url=base_url, client=client, progress=progress, retry=retry)


def install(
    preset: Preset,
    models_dir: Path,
    *,
    base_url: str | None = None,
    client: httpx.Client | None = None,
    progress: Progress | None = None,
    retry: RetryPolicy = DEFAULT_RETRY,
) -> InstallResult:
    """Download, verify and move a preset's files into models_dir/preset.name.

    base_url replaces the scheme and host of every file URL (a mirror, or a test
    server); the path is kept and hashes.json records the preset's own URL.
    Files already in place and matching their hash are not fetched again.
    """
    targets = [file.target for file in preset.files]
    if len(set(targets)) != len(targets) or {MANIFEST_FILE, HASHES_FILE} & set(targets):
        raise IncremindError(f"preset {preset.name} lists a file twice or overwrites {MANIFEST_FILE}/{HASHES_FILE}")
    check_manifest(preset.manifest, f"preset {preset.name}")
    folder = models_dir / _checked_name(preset.name)
    records = _read_hashes(folder, preset.name)
    present = _check_existing(folder, preset.name, records, [*map(_checked_name, targets), MANIFEST_FILE])
    staged: dict[str, _Record] = {}
    with _staging(folder, staged), _http(client) as http:
        for file in preset.files:
            expected = _expected_sha256(file, records.get(file.target))
            if expected is None or present.get(file.target) != expected:
                url = _rebase(file.url, base_url)
                staged[file.target] = _fetch(http, file, url, folder, expected, progress, retry)
        staged.update(_stage_manifest(folder, preset.manifest, present))
    return _commit(preset.name, folder, records, staged)


def install_from(folder: Path, models_dir: Path, *, name: str | None = None) -> InstallResult:
    """Copy model.onnx, tokenizer.json and manifest.json from a folder the user has.

    Without a manifest.json in the folder, name must be a preset, whose manifest is
    used. A file whose hash equals the preset's pinned hash is marked "pinned".
    """
    name = _checked_name(name or folder.name)
    destination = models_dir / name
    if not folder.is_dir() or destination.resolve() == folder.resolve():
        raise IncremindError(f"{folder} is not a model folder to copy from; pass the folder that holds {MODEL_FILE}")
    for required in (MODEL_FILE, TOKENIZER_FILE):
        if not (folder / required).is_file():
            raise IncremindError(f"{folder} has no {required}; a model folder needs {MODEL_FILE} and {TOKENIZER_FILE}")
    preset = PRESETS.get(name)
    manifest_path = folder / MANIFEST_FILE
    if manifest_path.is_file():
        try:
            check_manifest(json.loads(manifest_path.read_text(encoding="utf-8")), str(manifest_path))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise IncremindError(f"{manifest_path} is not valid JSON ({exc}); fix it or remove it") from exc
    elif preset is None:
        raise IncremindError(
            f"{folder} has no {MANIFEST_FILE}; add one, or install it under a preset's name "
            f"({', '.join(PRESETS)}) to use that preset's manifest"
        )
    pinned = {file.target: file.sha256 for file in preset.files} if preset else {}
    records = _read_hashes(destination, name)
    present = _check_existing(destination, name, records, [MODEL_FILE, TOKENIZER_FILE, MANIFEST_FILE])
    staged: dict[str, _Record] = {}
    with _staging(destination, staged):
        for target in (MODEL_FILE, TOKENIZER_FILE, MANIFEST_FILE):
            source, part = folder / target, destination / f"{target}.part"
            if source.is_file():
                sha = _copy_to(source, part)
                origin: HashSource = "pinned" if pinned.get(target) == sha else "recorded"
                staged[target] = _Record(sha, origin, source.resolve().as_uri())
                if present.get(target) == sha:  # already in place
                    part.unlink()
                    del staged[target]
            elif preset is not None:  # no manifest.json: the preset's, as checked above
                staged.update(_stage_manifest(destination, preset.manifest, present))
    return _commit(name, destination, records, staged)


def list_models(models_dir: Path) -> list[InstalledModel]:
    """List installed models (folders with a hashes.json), sorted by name."""
    if not models_dir.is_dir():
        return []
    found: list[InstalledModel] = []
    for folder in sorted(models_dir.iterdir()):
        if not folder.is_dir() or folder.name.startswith(".") or not (folder / HASHES_FILE).is_file():
            continue
        records = _read_hashes(folder, folder.name)
        found.append(InstalledModel(folder.name, folder, _installed_files(folder, records)))
    return found


def remove_model(name: str, models_dir: Path) -> None:
    """Delete an installed model's folder, leftover .part files included."""
    folder = _model_folder(name, models_dir)
    # renamed first, so a removal cut short never leaves a folder that looks installed
    doomed = models_dir / f".removing-{name}"
    if doomed.exists():
        shutil.rmtree(doomed)
    os.replace(folder, doomed)
    shutil.rmtree(doomed)
    log.info("removed model %s from %s", name, models_dir)


def verify_model(name: str, models_dir: Path) -> list[str]:
    """Return one line per file that is missing or differs from its recorded hash."""
    folder = _model_folder(name, models_dir)
    if not (folder / HASHES_FILE).is_file():
        return [f"{folder / HASHES_FILE} is missing; run `incremind model remove {name}` and install it again"]
    records = _read_hashes(folder, name)
    problems: list[str] = []
    for target in sorted({MODEL_FILE, TOKENIZER_FILE, MANIFEST_FILE} | set(records)):
        path = folder / target
        record = records.get(target)
        if not path.is_file():
            problems.append(f"{target}: missing")
        elif record is None:
            problems.append(f"{target}: no hash recorded in {HASHES_FILE}")
        elif (actual := file_sha256(path)) != record.sha256:
            problems.append(f"{target}: sha256 is {actual}, recorded {record.sha256} ({record.source})")
    return problems


def _fetch(
    http: httpx.Client,
    file: ModelFile,
    url: str,
    folder: Path,
    expected: str | None,
    progress: Progress | None,
    retry: RetryPolicy,
) -> _Record:
    part = folder / f"{file.target}.part"
    if expected is None:  # a .part left by an earlier run is resumed only when its hash can be checked
        part.unlink(missing_ok=True)
    try:
        _download(http, url, part, file.target, progress, retry)
        actual = file_sha256(part)
    except BaseException:
        if expected is None:
            part.unlink(missing_ok=True)
        raise
    if expected is not None and actual != expected:
        part.unlink()
        raise IncremindError(
            f"{file.target} downloaded from {url} has sha256 {actual} but {expected} was expected; "
            "nothing was installed: check the mirror or network and try again"
        )
    return _Record(actual, "pinned" if file.sha256 else "recorded", file.url)


def _download(
    http: httpx.Client, url: str, part: Path, target: str, progress: Progress | None, retry: RetryPolicy
) -> None:
    """Stream url into part, resuming with Range requests across failed attempts."""
    failures = 0
    while True:
        have = _size(part)
        try:
            _download_once(http, url, part, have, target, progress)
            return
        except (httpx.TransportError, _RetryableStatus) as exc:
            failures = 1 if _size(part) > have else failures + 1
            if failures >= retry.attempts:
                raise IncremindError(
                    f"could not download {target} from {url} after {failures} attempts ({exc}); "
                    "check the network and run the install again: it resumes where it stopped"
                ) from exc
            delay = min(retry.max_delay, retry.base_delay * 2 ** (failures - 1))
            if isinstance(exc, _RetryableStatus) and exc.retry_after is not None:
                delay = min(retry.max_delay, max(delay, exc.retry_after))
            log.warning("download of %s failed (%s); retry %d in %.1fs", target, exc, failures, delay)
            time.sleep(delay)


class _RetryableStatus(Exception):
    def __init__(self, status: int, retry_after: float | None) -> None:
        super().__init__(f"HTTP {status}")
        self.retry_after = retry_after


def _download_once(http: httpx.Client, url: str, part: Path, have: int, target: str, progress: Progress | None) -> None:
    # identity: byte ranges must count the file's own bytes, not a compressed stream
    headers = {"Accept-Encoding": "identity"}
    if have:
        headers["Range"] = f"bytes={have}-"
    with http.stream("GET", url, headers=headers) as response:
        status = response.status_code
        if status == 416 and have:  # the .part is as long as the file, or longer: start over
            part.unlink()
            raise _RetryableStatus(status, 0.0)
        if status in _RETRY_STATUSES:
            raise _RetryableStatus(status, _retry_after(response))
        if status not in (200, 206):
            raise IncremindError(f"download of {target} from {url} failed with HTTP {status}; check the URL")
        total: int | None = None
        if status == 206:
            match = _CONTENT_RANGE.fullmatch(response.headers.get("content-range", ""))
            if match is None or int(match.group(1)) != have:
                part.unlink()
                raise _RetryableStatus(status, 0.0)  # a range we did not ask for: start over
            total = int(match.group(3)) if match.group(3) != "*" else None
        else:
            have = 0  # the server ignored Range and sent the whole file
            length = response.headers.get("content-length")
            total = int(length) if length and length.isdigit() else None
        received = 0
        with part.open("ab" if status == 206 else "wb") as out:
            # no chunk_size: httpx would hold back a partial chunk, which a cut connection loses
            for chunk in response.iter_bytes():
                out.write(chunk)
                received += len(chunk)
                if progress is not None:
                    progress(target, have + received, total)
            out.flush()
            os.fsync(out.fileno())


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "")
    return float(value) if value.isdigit() else None


@contextmanager
def _staging(folder: Path, staged: dict[str, _Record]) -> Iterator[None]:
    """Create folder (0700); on failure delete the .part files staged so far."""
    make_private_folders(folder)
    try:
        yield
    except BaseException as exc:
        for target in staged:  # a file that failed half-way has already dealt with its own .part
            (folder / f"{target}.part").unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise IncremindError(
                f"could not write the model into {folder} ({exc}); check free space and permissions"
            ) from exc
        raise


def _stage_manifest(folder: Path, manifest: dict[str, object], present: dict[str, str]) -> dict[str, _Record]:
    """Write a preset's manifest to manifest.json.part unless the same one is in place."""
    data = (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    sha = hashlib.sha256(data).hexdigest()
    if present.get(MANIFEST_FILE) == sha:
        return {}
    (folder / f"{MANIFEST_FILE}.part").write_bytes(data)
    return {MANIFEST_FILE: _Record(sha, "pinned", None)}  # the bytes come from the preset itself


def _commit(name: str, folder: Path, records: dict[str, _Record], staged: dict[str, _Record]) -> InstallResult:
    for target in staged:
        os.replace(folder / f"{target}.part", folder / target)
    merged = {**records, **staged}
    if staged:
        _write_hashes(folder, merged)
    log.info("installed model %s in %s (%d files written)", name, folder, len(staged))
    return InstallResult(name, folder, _installed_files(folder, merged), tuple(staged))


def _check_existing(folder: Path, name: str, records: dict[str, _Record], targets: list[str]) -> dict[str, str]:
    """Return the hash of each installed file that is intact; refuse any that changed."""
    intact: dict[str, str] = {}
    for target in targets:
        path = folder / target
        if not path.is_file():
            continue
        record = records.get(target)
        actual = file_sha256(path)
        if record is None:
            raise IncremindError(f"{path} exists but no install recorded it; run `incremind model remove {name}` first")
        if actual != record.sha256:
            raise IncremindError(
                f"{path} has sha256 {actual} but {record.sha256} was recorded at install, so it was changed; "
                f"run `incremind model remove {name}` first, then install again"
            )
        intact[target] = actual
    return intact


def _expected_sha256(file: ModelFile, record: _Record | None) -> str | None:
    if file.sha256 is not None:
        return file.sha256
    # trust on first use: the same pinned URL must give the same bytes every time after
    if record is not None and record.source == "recorded" and record.url == file.url:
        return record.sha256
    return None


def _read_hashes(folder: Path, name: str) -> dict[str, _Record]:
    path = folder / HASHES_FILE
    if not path.is_file():
        return {}
    broken = IncremindError(f"{path} is damaged; run `incremind model remove {name}` and install it again")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise broken from exc
    if not isinstance(data, dict):
        raise broken
    records: dict[str, _Record] = {}
    for target, entry in data.items():
        if not isinstance(entry, dict):
            raise broken
        sha, source, url = entry.get("sha256"), entry.get("source"), entry.get("url")
        if not isinstance(sha, str) or not _SHA256.fullmatch(sha) or not isinstance(url, str | None):
            raise broken
        if source not in ("pinned", "recorded"):
            raise broken
        records[target] = _Record(sha, source, url)
    return records


def _write_hashes(folder: Path, records: dict[str, _Record]) -> None:
    data = {target: {"sha256": r.sha256, "source": r.source, "url": r.url} for target, r in sorted(records.items())}
    replace_file(folder / HASHES_FILE, (json.dumps(data, indent=2) + "\n").encode("utf-8"))


def _installed_files(folder: Path, records: dict[str, _Record]) -> tuple[InstalledFile, ...]:
    files = []
    for target, record in sorted(records.items()):
        path = folder / target
        size = path.stat().st_size if path.is_file() else 0
        files.append(InstalledFile(target, record.sha256, record.source, record.url, size))
    return tuple(files)


def _model_folder(name: str, models_dir: Path) -> Path:
    folder = models_dir / _checked_name(name)
    if not folder.is_dir():
        raise NotFound(f"no model named '{name}' in {models_dir}; `incremind model list` shows the installed ones")
    return folder


def _checked_name(name: str) -> str:
    if not _SAFE_NAME.fullmatch(name) or name.endswith(".part"):
        raise IncremindError(f"'{name}' cannot name a model or file; use letters, digits, '.', '_' and '-'")
    return name


def _copy_to(source: Path, part: Path) -> str:
    digest = hashlib.sha256()
    try:
        with source.open("rb") as reader, part.open("wb") as writer:
            while chunk := reader.read(CHUNK_BYTES):
                digest.update(chunk)
                writer.write(chunk)
            writer.flush()
            os.fsync(writer.fileno())
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return digest.hexdigest()


def _rebase(url: str, base_url: str | None) -> str:
    if base_url is None:
        return url
    parts = urlsplit(url)
    return base_url.rstrip("/") + parts.path + (f"?{parts.query}" if parts.query else "")


@contextmanager
def _http(client: httpx.Client | None) -> Iterator[httpx.Client]:
    """Use the caller's client as is, or a new one closed afterwards."""
    if client is not None:
        yield client
        return
    # Hugging Face answers /resolve/ with a redirect to its file store
    timeout = httpx.Timeout(30.0)
    with httpx.Client(follow_redirects=True, timeout=timeout, headers={"User-Agent": "incremind-daemon"}) as own:
        yield own
