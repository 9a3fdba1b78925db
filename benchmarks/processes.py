"""Start, watch and stop the daemon as a subprocess: its environment, CPU time and memory.

Imports nothing of incremind: the daemon runs in its own process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.figures import MB
from benchmarks.isolation import AGENT_OVERRIDES

REPO = Path(__file__).resolve().parent.parent
SAMPLE_SECONDS = 0.1


def proc_status_kb(pid: int, key: str) -> int:
    """Return a kB figure (VmRSS, VmHWM) from /proc/<pid>/status."""
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise LookupError(f"{key} not in /proc/{pid}/status")


def cpu_seconds(pid: int) -> float:
    """Return the process's user plus system CPU time."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    # after "pid (comm)": field 3 is the state, so utime (14) and stime (15) sit at 11 and 12
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class RssSampler:
    """Sample a process's VmRSS every ``every`` seconds (0.1 s) on a thread until stopped."""

    def __init__(self, pid: int, *, every: float = SAMPLE_SECONDS) -> None:
        self._pid = pid
        self._every = every
        self._stop = threading.Event()
        self.samples_kb: list[int] = []
        self._thread = threading.Thread(target=self._loop, name="rss-sampler", daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.samples_kb.append(proc_status_kb(self._pid, "VmRSS"))
            except (OSError, LookupError):
                return  # the process is gone
            self._stop.wait(self._every)

    @property
    def peak_mb(self) -> float:
        return max(self.samples_kb, default=0) * 1024 / MB


def daemon_env(home: Path, *, user_home: Path | None = None, **extra: str) -> dict[str, str]:
    """The daemon's environment: isolated home, the repo importable, quick settling.

    user_home is the daemon's HOME (default: this process's, already isolated);
    extra adds INCREMIND_* settings.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("INCREMIND_") and k not in AGENT_OVERRIDES}
    env.update(
        HOME=str(user_home) if user_home else os.environ["HOME"], INCREMIND_HOME=str(home),
        INCREMIND_INBOX__SETTLE_SECONDS="0.2",
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
        **extra,
    )
    return env


def start_daemon(env: dict[str, str], log_path: Path, *args: str) -> subprocess.Popen[bytes]:
    """Start ``incremind run`` with env, its output going to log_path."""
    command = [sys.executable, "-m", "incremind_daemon", "run", *args]
    with open(log_path, "wb") as log:  # the child keeps its own descriptor
        return subprocess.Popen(command, env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)


def check_alive(process: subprocess.Popen[bytes], log_path: Path) -> None:
    """Raise with the last lines of the daemon's log if it has exited."""
    if process.poll() is not None:
        tail = log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
        raise RuntimeError(f"the daemon exited with {process.returncode}: {' | '.join(tail)}")


def wait_for(condition: Callable[[], bool], timeout: float, what: str, every: float = SAMPLE_SECONDS) -> float:
    """Poll condition every `every` s; return the seconds it took or raise after timeout."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"{what}: not done after {timeout:.0f} s")
        time.sleep(every)
    return time.monotonic() - started


def stop_daemon(process: subprocess.Popen[bytes]) -> int:
    """SIGTERM the daemon and return its exit code (killed after 120 s)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()
