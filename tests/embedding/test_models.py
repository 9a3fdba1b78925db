"""Model installer against a real local HTTP server that can fail, cut off and corrupt downloads."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from incremind_daemon.config import Settings
from incremind_daemon.embedding.models import (
    PRESETS,
    ModelFile,
    Preset,
    RetryPolicy,
    check_manifest,
    default_models_dir,
    install,
    install_from,
    install_preset,
    list_models,
    remove_model,
    verify_model,
)
from incremind_daemon.errors import IncremindError, NotFound

REVISION = "0123456789abcdef0123456789abcdef01234567"
MODEL_PATH = f"/test/tiny-embedder/resolve/{REVISION}/onnx/model_quantized.onnx"
TOKENIZER_PATH = f"/test/tiny-embedder/resolve/{REVISION}/tokenizer.json"
MODEL = bytes(range(256)) * 12_000  # about 3 MB: several reads, and room to cut a response short
TOKENIZER = json.dumps({"version": "1.0", "model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}}).encode()
MANIFEST: dict[str, object] = {
    "name": "tiny",
    "dimension": 8,
    "pooling": "mean",
    "normalize": True,
    "query_prefix": "query: ",
    "passage_prefix": "passage: ",
    "max_tokens": 64,
    "output": "last_hidden_state",
}
FAST = RetryPolicy(attempts=4, base_delay=0.01, max_delay=0.05)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def corrupted(data: bytes) -> bytes:
    return bytes([data[0] ^ 0xFF]) + data[1:]


Headers = dict[str, str] | None


@dataclass(frozen=True, slots=True)
class Cut:
    after: int  # body bytes sent before the connection is closed; Content-Length still says the full size


@dataclass
class Hub:
    """What the local server serves, what it should do next per path, and what it was asked."""

    files: dict[str, bytes] = field(default_factory=dict)
    plan: dict[str, list[int | Cut]] = field(default_factory=dict)  # per path: statuses to fail with, or cuts
    corrupt: set[str] = field(default_factory=set)
    redirects: dict[str, str] = field(default_factory=dict)
    seen: list[tuple[str, str | None]] = field(default_factory=list)  # (path, Range header)
    lock: threading.Lock = field(default_factory=threading.Lock)
    base_url: str = ""

    def gets(self, path: str) -> list[str | None]:
        with self.lock:
            return [ranged for seen, ranged in self.seen if seen == path]


def hub_handler(hub: Hub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            ranged = self.headers.get("Range")
            with hub.lock:
                hub.seen.append((self.path, ranged))
                steps = hub.plan.get(self.path, [])
                step = steps.pop(0) if steps else None
            if self.path in hub.redirects:
                self.reply(302, b"", {"Location": hub.redirects[self.path]})
                return
            if isinstance(step, int):
                self.reply(step, b"")
                return
            data = hub.files.get(self.path)
            if data is None:
                self.reply(404, b"")
                return
            if self.path in hub.corrupt:
                data = corrupted(data)
            start = 0
            headers = {"Accept-Ranges": "bytes"}
            match = re.fullmatch(r"bytes=(\d+)-", ranged or "")
            if match:
                start = int(match.group(1))
                if start >= len(data):
                    self.reply(416, b"", {"Content-Range": f"bytes */{len(data)}"})
                    return
                headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
            self.reply(206 if match else 200, data[start:], headers, cut=step)

        def reply(self, status: int, body: bytes, headers: Headers = None, cut: Cut | None = None) -> None:
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body if cut is None else body[: cut.after])
            if cut is not None:
                self.close_connection = True

    return Handler


@pytest.fixture
def hub() -> Iterator[Hub]:
    hub = Hub(files={MODEL_PATH: MODEL, TOKENIZER_PATH: TOKENIZER})
    server = ThreadingHTTPServer(("127.0.0.1", 0), hub_handler(hub))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="test-model-hub")
    thread.start()
    hub.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def models_dir(settings: Settings) -> Path:
    return default_models_dir(settings)


def tiny_preset(*, pinned: bool, revision: str = REVISION, model: bytes = MODEL) -> Preset:
    base = f"https://huggingface.co/test/tiny-embedder/resolve/{revision}"
    return Preset(
        name="tiny",
        repository="test/tiny-embedder",
        revision=revision,
        files=(
            ModelFile(f"{base}/onnx/model_quantized.onnx", "model.onnx", sha256(model) if pinned else None),
            ModelFile(f"{base}/tokenizer.json", "tokenizer.json", sha256(TOKENIZER) if pinned else None),
        ),
        manifest=MANIFEST,
    )


def install_tiny(hub: Hub, models_dir: Path, *, pinned: bool, retry: RetryPolicy = FAST) -> None:
    install(tiny_preset(pinned=pinned), models_dir, base_url=hub.base_url, retry=retry)


def hashes(folder: Path) -> dict[str, dict[str, object]]:
    data = json.loads((folder / "hashes.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize(("pinned", "source"), [(False, "recorded"), (True, "pinned")])
def test_install_writes_files_and_hashes_with_their_source(
    hub: Hub, models_dir: Path, pinned: bool, source: str
) -> None:
    result = install(tiny_preset(pinned=pinned), models_dir, base_url=hub.base_url, retry=FAST)

    folder = models_dir / "tiny"
    assert result.folder == folder
    assert (folder / "model.onnx").read_bytes() == MODEL
    assert (folder / "tokenizer.json").read_bytes() == TOKENIZER
    assert json.loads((folder / "manifest.json").read_text(encoding="utf-8")) == MANIFEST
    recorded = hashes(folder)
    assert recorded["model.onnx"] == {
        "sha256": sha256(MODEL),
        "source": source,
        "url": f"https://huggingface.co/test/tiny-embedder/resolve/{REVISION}/onnx/model_quantized.onnx",
    }
    assert recorded["tokenizer.json"]["source"] == source
    assert recorded["manifest.json"]["source"] == "pinned"
    assert sorted(result.fetched) == ["manifest.json", "model.onnx", "tokenizer.json"]
    assert not list(folder.glob("*.part"))


@pytest.mark.parametrize("bad_path", [MODEL_PATH, TOKENIZER_PATH], ids=["model", "tokenizer"])
def test_corrupted_download_is_rejected_and_nothing_is_installed(hub: Hub, models_dir: Path, bad_path: str) -> None:
    hub.corrupt.add(bad_path)
    target = "model.onnx" if bad_path == MODEL_PATH else "tokenizer.json"

    with pytest.raises(IncremindError) as failure:
        install_tiny(hub, models_dir, pinned=True)

    message = str(failure.value)
    assert target in message
    assert sha256(hub.files[bad_path]) in message
    assert sha256(corrupted(hub.files[bad_path])) in message
    assert list((models_dir / "tiny").iterdir()) == []


def test_failed_upgrade_leaves_the_earlier_install_untouched(hub: Hub, models_dir: Path) -> None:
    install_tiny(hub, models_dir, pinned=True)
    before = snapshot(models_dir / "tiny")
    newer_revision = "fedcba9876543210fedcba9876543210fedcba98"
    newer_model = MODEL[::-1]
    newer_path = MODEL_PATH.replace(REVISION, newer_revision)
    hub.files[newer_path] = newer_model
    hub.files[TOKENIZER_PATH.replace(REVISION, newer_revision)] = TOKENIZER
    hub.corrupt.add(newer_path)

    with pytest.raises(IncremindError, match=r"model\.onnx"):
        preset = tiny_preset(pinned=True, revision=newer_revision, model=newer_model)
        install(preset, models_dir, base_url=hub.base_url, retry=FAST)

    assert snapshot(models_dir / "tiny") == before
    assert verify_model("tiny", models_dir) == []


def test_interrupted_download_resumes_with_a_range_request(hub: Hub, models_dir: Path) -> None:
    hub.plan[MODEL_PATH] = [Cut(after=1_000_000)]

    install_tiny(hub, models_dir, pinned=True)

    assert hub.gets(MODEL_PATH) == [None, "bytes=1000000-"]
    assert (models_dir / "tiny" / "model.onnx").read_bytes() == MODEL


def test_failed_download_keeps_a_pinned_part_that_the_next_install_resumes(hub: Hub, models_dir: Path) -> None:
    hub.plan[MODEL_PATH] = [Cut(after=500_000), 503, 503]

    with pytest.raises(IncremindError, match="after 3 attempts"):
        install_tiny(hub, models_dir, pinned=True, retry=RetryPolicy(attempts=3, base_delay=0.01))
    assert (models_dir / "tiny" / "model.onnx.part").stat().st_size == 500_000

    install_tiny(hub, models_dir, pinned=True)

    assert hub.gets(MODEL_PATH)[-1] == "bytes=500000-"
    assert (models_dir / "tiny" / "model.onnx").read_bytes() == MODEL
    assert not list((models_dir / "tiny").glob("*.part"))


def test_download_keeps_resuming_while_each_attempt_brings_bytes(hub: Hub, models_dir: Path) -> None:
    hub.plan[MODEL_PATH] = [Cut(after=400_000)] * 5

    install_tiny(hub, models_dir, pinned=True, retry=RetryPolicy(attempts=2, base_delay=0.01))

    assert hub.gets(MODEL_PATH) == [None] + [f"bytes={400_000 * n}-" for n in range(1, 6)]
    assert (models_dir / "tiny" / "model.onnx").read_bytes() == MODEL


def test_download_retries_after_503_responses(hub: Hub, models_dir: Path) -> None:
    hub.plan[MODEL_PATH] = [503, 503]

    install_tiny(hub, models_dir, pinned=False)

    assert hub.gets(MODEL_PATH) == [None, None, None]
    assert (models_dir / "tiny" / "model.onnx").read_bytes() == MODEL


def test_download_gives_up_after_the_configured_attempts(hub: Hub, models_dir: Path) -> None:
    hub.plan[MODEL_PATH] = [503] * 10

    with pytest.raises(IncremindError, match="after 3 attempts"):
        install_tiny(hub, models_dir, pinned=False, retry=RetryPolicy(attempts=3, base_delay=0.01))

    assert len(hub.gets(MODEL_PATH)) == 3
    assert list((models_dir / "tiny").iterdir()) == []


def test_download_follows_redirects(hub: Hub, models_dir: Path) -> None:
    hub.redirects[MODEL_PATH] = "/blobs/model"
    hub.files["/blobs/model"] = MODEL

    install_tiny(hub, models_dir, pinned=True)

    assert hub.gets("/blobs/model") == [None]
    assert (models_dir / "tiny" / "model.onnx").read_bytes() == MODEL


def test_progress_reports_bytes_received_and_total(hub: Hub, models_dir: Path) -> None:
    calls: list[tuple[str, int, int | None]] = []

    install(tiny_preset(pinned=True), models_dir, base_url=hub.base_url, progress=lambda *call: calls.append(call))

    model_calls = [call for call in calls if call[0] == "model.onnx"]
    assert model_calls[-1] == ("model.onnx", len(MODEL), len(MODEL))
    assert [done for _, done, _ in model_calls] == sorted(done for _, done, _ in model_calls)


def test_reinstall_of_an_intact_model_fetches_nothing(hub: Hub, models_dir: Path) -> None:
    install_tiny(hub, models_dir, pinned=False)
    requests = len(hub.seen)

    result = install(tiny_preset(pinned=False), models_dir, base_url=hub.base_url, retry=FAST)

    assert result.fetched == ()
    assert len(hub.seen) == requests
    assert {file.target for file in result.files} == {"manifest.json", "model.onnx", "tokenizer.json"}


def test_reinstall_verifies_new_bytes_against_the_hash_recorded_on_first_use(hub: Hub, models_dir: Path) -> None:
    install_tiny(hub, models_dir, pinned=False)
    (models_dir / "tiny" / "model.onnx").unlink()
    hub.corrupt.add(MODEL_PATH)

    with pytest.raises(IncremindError, match=sha256(MODEL)):
        install_tiny(hub, models_dir, pinned=False)

    assert not (models_dir / "tiny" / "model.onnx").exists()
    assert hashes(models_dir / "tiny")["model.onnx"]["sha256"] == sha256(MODEL)


@pytest.fixture
def tampered(hub: Hub, models_dir: Path) -> Path:
    install_tiny(hub, models_dir, pinned=False)
    model = models_dir / "tiny" / "model.onnx"
    model.write_bytes(b"not the model")
    return model


def test_reinstall_refuses_to_replace_a_tampered_file(hub: Hub, models_dir: Path, tampered: Path) -> None:
    with pytest.raises(IncremindError, match="incremind model remove tiny"):
        install_tiny(hub, models_dir, pinned=False)

    assert tampered.read_bytes() == b"not the model"


def test_verify_model_reports_a_tampered_file(models_dir: Path, tampered: Path) -> None:
    problems = verify_model("tiny", models_dir)

    assert problems == [f"model.onnx: sha256 is {sha256(b'not the model')}, recorded {sha256(MODEL)} (recorded)"]


def test_verify_model_reports_a_missing_file(hub: Hub, models_dir: Path) -> None:
    install_tiny(hub, models_dir, pinned=True)
    (models_dir / "tiny" / "tokenizer.json").unlink()

    assert verify_model("tiny", models_dir) == ["tokenizer.json: missing"]


def test_remove_model_allows_a_clean_reinstall(hub: Hub, models_dir: Path, tampered: Path) -> None:
    remove_model("tiny", models_dir)
    assert not (models_dir / "tiny").exists()

    install_tiny(hub, models_dir, pinned=False)

    assert verify_model("tiny", models_dir) == []
    assert tampered.read_bytes() == MODEL


@pytest.mark.parametrize("call", [remove_model, verify_model])
def test_unknown_model_names_are_not_found(models_dir: Path, call: Callable[[str, Path], object]) -> None:
    with pytest.raises(NotFound, match="incremind model list"):
        call("nothing-here", models_dir)


def test_install_preset_rejects_an_unknown_name(models_dir: Path) -> None:
    with pytest.raises(NotFound, match="multilingual-e5-small"):
        install_preset("no-such-model", models_dir)


def test_install_preset_fetches_its_pinned_paths_from_base_url(hub: Hub, models_dir: Path) -> None:
    preset = PRESETS["multilingual-e5-small"]
    paths = [file.url.removeprefix("https://huggingface.co") for file in preset.files]
    for path in paths:
        hub.files[path] = b"not the real model"

    # the stand-in bytes cannot match the pinned hash, which proves it is checked
    with pytest.raises(IncremindError, match=preset.files[0].sha256 or "unpinned"):
        install_preset("multilingual-e5-small", models_dir, base_url=hub.base_url, retry=FAST)

    assert hub.gets(paths[0]) == [None]
    assert paths[0] == f"/Xenova/multilingual-e5-small/resolve/{preset.revision}/onnx/model_quantized.onnx"
    assert list((models_dir / "multilingual-e5-small").iterdir()) == []


@pytest.mark.parametrize("preset", PRESETS.values(), ids=list(PRESETS))
def test_presets_pin_a_revision_and_carry_a_valid_manifest(preset: Preset) -> None:
    assert re.fullmatch(r"[0-9a-f]{40}", preset.revision)
    assert {file.target for file in preset.files} == {"model.onnx", "tokenizer.json"}
    for file in preset.files:
        assert file.url.startswith(f"https://huggingface.co/{preset.repository}/resolve/{preset.revision}/")
    assert check_manifest(preset.manifest, preset.name)["name"] == preset.name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("multilingual-e5-small", {"pooling": "mean", "dimension": 384, "query_prefix": "query: "}),
        (
            "bge-small-zh-v1.5",
            {"pooling": "cls", "dimension": 512, "query_prefix": "为这个句子生成表示以用于检索相关文章："},
        ),
    ],
)
def test_preset_manifests_match_the_models(name: str, expected: dict[str, object]) -> None:
    manifest = PRESETS[name].manifest
    assert {key: manifest[key] for key in expected} == expected
    assert manifest["max_tokens"] == 512


def make_folder(root: Path, *, manifest: dict[str, object] | None = MANIFEST) -> Path:
    folder = root / "downloaded"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(MODEL)
    (folder / "tokenizer.json").write_bytes(TOKENIZER)
    if manifest is not None:
        (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def test_install_from_copies_the_folder_and_records_every_hash(tmp_path: Path, models_dir: Path) -> None:
    folder = make_folder(tmp_path)

    result = install_from(folder, models_dir, name="tiny")

    installed = models_dir / "tiny"
    assert (installed / "model.onnx").read_bytes() == MODEL
    assert (installed / "manifest.json").read_bytes() == (folder / "manifest.json").read_bytes()
    recorded = hashes(installed)
    assert recorded["model.onnx"] == {
        "sha256": sha256(MODEL),
        "source": "recorded",
        "url": (folder / "model.onnx").resolve().as_uri(),
    }
    assert sorted(result.fetched) == ["manifest.json", "model.onnx", "tokenizer.json"]
    assert verify_model("tiny", models_dir) == []
    assert install_from(folder, models_dir, name="tiny").fetched == ()


def test_install_from_takes_the_manifest_of_a_preset_name(tmp_path: Path, models_dir: Path) -> None:
    folder = make_folder(tmp_path, manifest=None)

    install_from(folder, models_dir, name="bge-small-zh-v1.5")

    installed = models_dir / "bge-small-zh-v1.5"
    manifest = json.loads((installed / "manifest.json").read_text(encoding="utf-8"))
    assert manifest == PRESETS["bge-small-zh-v1.5"].manifest
    sources = {target: entry["source"] for target, entry in hashes(installed).items()}
    assert sources == {"manifest.json": "pinned", "model.onnx": "recorded", "tokenizer.json": "recorded"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda folder: (folder / "model.onnx").unlink(), "has no model.onnx"),
        (lambda folder: (folder / "tokenizer.json").unlink(), "has no tokenizer.json"),
        (lambda folder: (folder / "manifest.json").unlink(), "has no manifest.json"),
        (lambda folder: (folder / "manifest.json").write_text("{oops", encoding="utf-8"), "not valid JSON"),
        (
            lambda folder: (folder / "manifest.json").write_text(json.dumps({**MANIFEST, "pooling": "max"})),
            "'pooling' must be one of mean, cls, none",
        ),
        (
            lambda folder: (folder / "manifest.json").write_text(json.dumps({**MANIFEST, "dimension": True})),
            "'dimension' is missing or not of type int",
        ),
    ],
    ids=["no-model", "no-tokenizer", "no-manifest", "bad-json", "bad-pooling", "bad-dimension"],
)
def test_install_from_rejects_an_incomplete_folder(
    tmp_path: Path, models_dir: Path, change: Callable[[Path], object], message: str
) -> None:
    folder = make_folder(tmp_path)
    change(folder)

    with pytest.raises(IncremindError, match=re.escape(message)):
        install_from(folder, models_dir, name="tiny")

    assert list_models(models_dir) == []


def test_list_models_shows_files_sources_and_sizes(hub: Hub, tmp_path: Path, models_dir: Path) -> None:
    install_tiny(hub, models_dir, pinned=True)
    install_from(make_folder(tmp_path), models_dir, name="copied")
    (models_dir / "half-done").mkdir()  # a folder with no hashes.json is not an installed model

    models = list_models(models_dir)

    assert [model.name for model in models] == ["copied", "tiny"]
    copied, tiny = models
    assert copied.folder == models_dir / "copied"
    assert {(f.target, f.source) for f in tiny.files} == {
        ("manifest.json", "pinned"),
        ("model.onnx", "pinned"),
        ("tokenizer.json", "pinned"),
    }
    assert {(f.target, f.source) for f in copied.files} == {
        ("manifest.json", "recorded"),
        ("model.onnx", "recorded"),
        ("tokenizer.json", "recorded"),
    }
    model_file = next(f for f in tiny.files if f.target == "model.onnx")
    assert (model_file.sha256, model_file.size) == (sha256(MODEL), len(MODEL))
    manifest_size = (models_dir / "tiny" / "manifest.json").stat().st_size
    assert tiny.size == len(MODEL) + len(TOKENIZER) + manifest_size
