"""Run the daemon as a real process for end-to-end tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.waiting import wait_until

REPO = Path(__file__).resolve().parents[1]


def daemon_env(**extra: str) -> dict[str, str]:
    """The test's environment (private HOME and INCREMIND_HOME) with quick timings; ``extra`` wins."""
    env = dict(
        os.environ,
        INCREMIND_INBOX__SETTLE_SECONDS="0.3",
        INCREMIND_INBOX__RESCAN_SECONDS="1",
        INCREMIND_SESSIONS__RESCAN_SECONDS="1",
        INCREMIND_MCP__PORT="0",  # a free port: never the user's daemon's, never another test's
        PYTHONPATH=str(REPO),
    )
    env.update(extra)
    return env


class DaemonProcess:
    def __init__(self, home: Path, env: dict[str, str]) -> None:
        self.home = home
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        # stderr goes to a file: a pipe nobody reads fills at 64 KiB and blocks the daemon's next log line
        self.stderr_path = home.parent / f"daemon-stderr-{id(self)}.log"

    def start(self) -> None:
        status = self.home / "status.json"
        status.unlink(missing_ok=True)
        self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
        with self.stderr_path.open("ab") as sink:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "incremind_daemon", "run"],
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=sink,
            )

        def heartbeat_written() -> bool:
            """the daemon wrote its first heartbeat"""
            assert self.proc is not None and self.proc.poll() is None, self.stderr()
            return status.exists()

        wait_until(heartbeat_written, timeout=30)

    def stderr(self) -> str:
        if self.proc is None or self.proc.poll() is None or not self.stderr_path.exists():
            return ""
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=30)
