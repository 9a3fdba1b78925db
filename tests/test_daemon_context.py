"""The running daemon keeps the agents' context files current, never touching the user's own text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incremind_daemon import cli
from tests.daemon_process import DaemonProcess, daemon_env
from tests.waiting import wait_until

USER_TEXT = "# My rules\r\n\r\nAlways run the tests before committing.\r\n"


def test_a_confirmed_insight_reaches_claude_md_and_the_users_text_survives(
    private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = private_home / ".incremind"
    claude_md = private_home / ".claude" / "CLAUDE.md"
    claude_md.parent.mkdir(parents=True)
    claude_md.write_bytes(USER_TEXT.encode())
    process = DaemonProcess(home, daemon_env(INCREMIND_CONTEXT__MIN_INTERVAL_SECONDS="1"))
    process.start()
    try:
        (home / "inbox" / "web").mkdir(parents=True)
        (home / "inbox" / "web" / "tools.md").write_text(
            "I prefer pnpm over npm for every Node project.\n", encoding="utf-8"
        )

        def proposed() -> bool:
            """the note's preference waits for review"""
            capsys.readouterr()
            cli.main(["pending", "--json"])
            return bool(json.loads(capsys.readouterr().out or "[]"))

        wait_until(proposed, timeout=30)
        assert "[ins-1]" not in claude_md.read_text(encoding="utf-8")  # pending never reaches the context
        assert cli.main(["confirm", "--all"]) == 0
        # a dropped note stays in its project (web) until the person makes it global
        assert cli.main(["edit", "ins-1", "--scope", "global"]) == 0

        def written() -> bool:
            """the confirmed preference is in CLAUDE.md"""
            return "[ins-1]" in claude_md.read_bytes().decode()

        wait_until(written, timeout=20)
        text = claude_md.read_bytes().decode()
        assert text.startswith(USER_TEXT)  # byte for byte, CRLF kept
        assert "<!-- incremind:begin -->" in text and "<!-- incremind:end -->" in text
        [line] = [line for line in text.splitlines() if "[ins-1]" in line]
        assert "pnpm" in line
    finally:
        assert process.stop() == 0
