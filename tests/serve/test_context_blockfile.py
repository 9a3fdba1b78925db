"""The managed block in a user's file: nothing outside the markers ever changes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from incremind_daemon.serve.context.blockfile import BEGIN, END, block_lines, remove_block, write_block

CLAUDE_MD = """# Working with me

I am a backend engineer. Prefer small, reviewable diffs.

## Commands
- `make check` runs ruff, mypy and pytest
- never run `make deploy` yourself

```bash
# a fenced example with a comment that looks like HTML
echo "<!-- not a marker -->"
```

@docs/architecture.md"""  # hand-written, no trailing newline, an import of its own

AGENTS_MD = (
    "\ufeff# AGENTS.md\r\n\r\n"
    "## Setup\r\n"
    "- Install with `uv sync`.\r\n"
    "- Tests: `uv run pytest -q`.\r\n\r\n"
    "## Style\r\n"
    "- 中文注释可以，但标识符用英文。\r\n"
    "- Line length 120.\r\n"
)  # CRLF and a BOM, as an editor on Windows leaves it


def block(n: int) -> str:
    return f"> header {n}\nNow: {n}\n\n## Confirmed memory\n- [ins-{n}] 第 {n} 条 statement"


def outside(data: bytes) -> bytes:
    start = data.index(BEGIN.encode())
    end = data.index(END.encode()) + len(END)
    return data[:start] + data[end:]


@pytest.mark.parametrize(
    ("name", "original"),
    [("CLAUDE.md", CLAUDE_MD.encode("utf-8")), ("AGENTS.md", AGENTS_MD.encode("utf-8"))],
)
def test_user_text_survives_many_regenerations_byte_for_byte(tmp_path: Path, name: str, original: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(original)
    first = write_block(path, block(0))
    assert first.changed and first.problem is None
    after_first = outside(path.read_bytes())
    assert after_first.startswith(original)  # appended after the user's text
    for n in range(1, 40):
        assert write_block(path, block(n)).changed
        data = path.read_bytes()
        assert outside(data) == after_first
        assert block_lines(data.decode("utf-8-sig")) == block(n).split("\n")
    assert remove_block(path).changed
    assert path.read_bytes() == original  # enable then disable gives the file back as it was


def test_crlf_bom_and_missing_trailing_newline_are_kept(tmp_path: Path) -> None:
    agents = tmp_path / "AGENTS.md"
    agents.write_bytes(AGENTS_MD.encode("utf-8"))
    write_block(agents, block(1))
    data = agents.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data.count(b"\n") == data.count(b"\r\n") and data.endswith(b"\r\n")
    claude = tmp_path / "CLAUDE.md"
    claude.write_text(CLAUDE_MD, encoding="utf-8")
    write_block(claude, block(1))
    text = claude.read_bytes()
    assert b"\r" not in text and not text.endswith(b"\n") and text.endswith(END.encode())


def test_block_between_existing_markers_is_replaced_in_place(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    head, tail = "# Top\n\n", "\n\n## After the block\nkeep me\n"
    path.write_text(f"{head}{BEGIN}\nold text the user edited\n{END}{tail}", encoding="utf-8")
    write_block(path, block(2))
    assert path.read_text(encoding="utf-8") == f"{head}{BEGIN}\n{block(2)}\n{END}{tail}"


def test_missing_file_is_created_with_the_block(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.local.md"
    result = write_block(path, block(3))
    assert result.created and path.read_text(encoding="utf-8") == f"{BEGIN}\n{block(3)}\n{END}\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it holds memory: the person's alone


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (f"# Mine\n{BEGIN}\nhalf a block\n", "without an end marker"),
        (f"# Mine\nhalf a block\n{END}\n", "without a begin marker"),
        (f"{BEGIN}\na\n{END}\n\n{BEGIN}\nb\n{END}\n", "2 incremind begin and 2 end markers"),
        (f"{END}\nswapped\n{BEGIN}\n", "end marker comes before the begin marker"),
        (f"{BEGIN}\n{BEGIN}\nnested\n{END}\n", "2 incremind begin and 1 end markers"),
    ],
)
def test_broken_markers_leave_the_file_alone_and_say_why(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text(text, encoding="utf-8")
    before = path.stat().st_mtime_ns
    result = write_block(path, block(4))
    assert not result.changed and result.problem and why in result.problem
    assert path.read_text(encoding="utf-8") == text and path.stat().st_mtime_ns == before
    assert remove_block(path).problem


def test_unchanged_block_does_not_touch_the_file(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    write_block(path, block(5), head_lines=2)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    later = block(5).replace("> header 5", "> header later").replace("Now: 5", "Now: later")
    result = write_block(path, later, head_lines=2)
    assert not result.changed and result.problem is None
    assert path.stat().st_mtime_ns == 1_000_000_000


def test_user_edit_inside_the_block_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    write_block(path, block(6), head_lines=2)
    path.write_text(path.read_text(encoding="utf-8").replace("statement", "my own edit"), encoding="utf-8")
    assert write_block(path, block(6), head_lines=2).changed
    assert "my own edit" not in path.read_text(encoding="utf-8")


def test_permissions_are_kept_and_symlinks_followed(tmp_path: Path) -> None:
    real = tmp_path / "AGENTS.md"
    real.write_text("# shared rules\n", encoding="utf-8")
    real.chmod(0o600)
    link = tmp_path / "CLAUDE.md"
    link.symlink_to("AGENTS.md")  # the bridge the Claude docs recommend
    write_block(link, block(7))
    assert link.is_symlink() and stat.S_IMODE(real.stat().st_mode) == 0o600
    assert block_lines(real.read_text(encoding="utf-8")) == block(7).split("\n")


def test_file_that_is_not_utf8_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_bytes("# 规则\n".encode("gb18030"))
    result = write_block(path, block(8))
    assert result.problem and "not UTF-8" in result.problem
    assert path.read_bytes() == "# 规则\n".encode("gb18030")


def test_no_temp_files_are_left_behind(tmp_path: Path) -> None:
    path = tmp_path / "GEMINI.md"
    for n in range(5):
        write_block(path, block(n))
    assert [p.name for p in tmp_path.iterdir()] == ["GEMINI.md"]
