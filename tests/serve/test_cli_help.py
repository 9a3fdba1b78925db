from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from incremind_daemon.cli import build_parser

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def help_of(name: str) -> str:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return next(str(choice.help) for choice in action._choices_actions if choice.dest == name)


@pytest.mark.parametrize("name", sorted(subcommands()))
def test_subcommand_has_help_and_example(name: str) -> None:
    text = help_of(name)
    assert text and text[0].islower() and not text.endswith(".")
    assert "example:" in (subcommands()[name].epilog or "")


@pytest.mark.parametrize("name", sorted(subcommands()))
def test_subcommand_is_documented_in_readme(name: str) -> None:
    assert f"### `incremind {name}" in README


def test_readme_quick_start_has_the_two_commands() -> None:
    assert "pip install . && incremind run" in README
    assert "pip install '.[test]' && python -m pytest" in README


def test_help_runs_as_a_process() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "incremind_daemon", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and "search" in result.stdout


def test_usage_error_exits_2() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "incremind_daemon", "search"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2



def test_a_closed_pipe_ends_quietly() -> None:
    """`incremind status | head -1`: the reader closes the pipe; no traceback, exit 0."""
    from incremind_daemon import cli

    read_end, write_end = os.pipe()
    os.close(read_end)
    closed = os.fdopen(write_end, "w", buffering=1)
    real, sys.stdout = sys.stdout, closed
    try:
        assert cli.main(["status"]) == 0
    finally:
        sys.stdout = real
        closed.close()
