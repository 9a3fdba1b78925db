"""The daemon's log file: rotation by size, the tail, following across rotations, one copy of each record."""

from __future__ import annotations

import logging
import os
import select
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from incremind_daemon import cli
from incremind_daemon.ops.logs import DaemonLogHandler, follow, tail_lines
from tests.daemon_process import REPO
from tests.waiting import wait_until


@pytest.fixture
def logger(tmp_path: Path) -> Iterator[tuple[logging.Logger, DaemonLogHandler]]:
    handler = DaemonLogHandler(tmp_path / "logs" / "incremind.log", max_bytes=2_000, backups=5)
    handler.setFormatter(logging.Formatter("%(message)s"))
    made = logging.getLogger(f"test-logs-{tmp_path.name}")
    made.propagate = False
    made.setLevel(logging.INFO)
    made.addHandler(handler)
    yield made, handler
    made.removeHandler(handler)
    handler.close()


def test_log_rotates_by_size_and_keeps_five_older_files(
    logger: tuple[logging.Logger, DaemonLogHandler], tmp_path: Path
) -> None:
    log, _handler = logger
    for n in range(1_000):
        log.info("line %04d %s", n, "x" * 40)
    names = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert names == ["incremind.log"] + [f"incremind.log.{i}" for i in range(1, 6)]
    assert all(p.stat().st_size <= 2_000 for p in (tmp_path / "logs").iterdir())
    assert tail_lines(tmp_path / "logs" / "incremind.log", 1)[0].startswith("line 0999")


def test_tail_reaches_into_the_newest_rotated_file(
    logger: tuple[logging.Logger, DaemonLogHandler], tmp_path: Path
) -> None:
    log, _handler = logger
    for n in range(60):
        log.info("line %04d %s", n, "y" * 40)
    current = tmp_path / "logs" / "incremind.log"
    held = len(current.read_text(encoding="utf-8").splitlines())
    wanted = held + 5
    assert tail_lines(current, wanted) == [f"line {n:04d} {'y' * 40}" for n in range(60 - wanted, 60)]


def test_follow_yields_every_line_across_rotations(
    logger: tuple[logging.Logger, DaemonLogHandler], tmp_path: Path
) -> None:
    log, _handler = logger
    path = tmp_path / "logs" / "incremind.log"
    seen: list[str] = []
    finished = threading.Event()

    def read() -> None:
        for line in follow(path, should_stop=finished.is_set, interval=0.01, offset=0):
            seen.append(line)

    reader = threading.Thread(target=read, name="test-follow")
    reader.start()
    try:
        sent = 0
        for _batch in range(12):  # each batch is smaller than a file, so every rotation happens between polls
            for _ in range(20):
                log.info("follow %04d %s", sent, "z" * 30)
                sent += 1

            def caught_up(expected: int = sent) -> bool:
                """the follower has read every line written so far"""
                return len(seen) >= expected

            wait_until(caught_up)
    finally:
        finished.set()
        reader.join(10)
    assert seen == [f"follow {n:04d} {'z' * 30}" for n in range(sent)]
    assert (tmp_path / "logs" / "incremind.log.3").exists(), "the log rotated meanwhile"


def test_follow_waits_for_a_line_to_be_complete(tmp_path: Path) -> None:
    path = tmp_path / "incremind.log"
    path.write_text("", encoding="utf-8")
    lines = follow(path, should_stop=lambda: True, interval=0.01, offset=0)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("half a ")
        handle.flush()
        handle.write("line\nnext")
    assert list(lines) == ["half a line"]


def _child(code: str, log_file: Path, *, stderr_to_log: bool) -> subprocess.CompletedProcess[str]:
    log_file.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    with log_file.open("ab") as out:
        return subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            stdout=out if stderr_to_log else subprocess.PIPE,
            stderr=out if stderr_to_log else subprocess.PIPE,
            text=True,
            timeout=60,
            check=True,
        )


CONFIGURE = """
import logging
from pathlib import Path
from incremind_daemon.cli.app import configure_logging
configure_logging(verbose=True, log_file=Path({path!r}))
logging.getLogger("incremind_daemon.test").info("hello from the daemon")
"""


@pytest.mark.parametrize("stderr_to_log", [True, False], ids=["detached", "terminal"])
def test_daemon_writes_each_record_once_to_its_log(tmp_path: Path, stderr_to_log: bool) -> None:
    path = tmp_path / "logs" / "incremind.log"
    done = _child(CONFIGURE.format(path=str(path)), path, stderr_to_log=stderr_to_log)
    assert path.read_text(encoding="utf-8").count("hello from the daemon") == 1
    if not stderr_to_log:
        assert "hello from the daemon" in done.stderr, "a terminal sees the records too"


ROTATE_WITH_STDERR = """
import logging, sys
from pathlib import Path
from incremind_daemon.ops.logs import DaemonLogHandler
handler = DaemonLogHandler(Path({path!r}), max_bytes=1_000, backups=2)
assert handler.carries_stderr
log = logging.getLogger("rotating")
log.addHandler(handler)
log.setLevel(logging.INFO)
for n in range(50):
    log.info("record %d %s", n, "w" * 40)
sys.stderr.write("a traceback after rotation\\n")
"""


def test_stderr_follows_the_log_across_a_rotation(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "incremind.log"
    _child(ROTATE_WITH_STDERR.format(path=str(path)), path, stderr_to_log=True)
    assert path.read_text(encoding="utf-8").endswith("a traceback after rotation\n")


def test_logs_command_prints_the_tail(settings_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log_file = settings_home / "logs" / "incremind.log"
    log_file.parent.mkdir(parents=True)
    log_file.write_text("".join(f"entry {n}\n" for n in range(10)), encoding="utf-8")
    assert cli.main(["logs", "-n", "3"]) == 0
    assert capsys.readouterr().out.splitlines() == ["entry 7", "entry 8", "entry 9"]


def test_logs_command_without_a_log_says_so(settings_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["logs"]) == 1
    assert "no log yet" in capsys.readouterr().err


def test_logs_follow_prints_new_lines_as_a_process(settings_home: Path) -> None:
    log_file = settings_home / "logs" / "incremind.log"
    log_file.parent.mkdir(parents=True)
    log_file.write_text("old line\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, "-m", "incremind_daemon", "logs", "-f", "-n", "1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    received = b""
    try:

        def printed(text: bytes) -> bool:
            nonlocal received
            if select.select([proc.stdout], [], [], 0.05)[0]:
                received += os.read(proc.stdout.fileno(), 4096)  # type: ignore[union-attr]
            return text in received

        wait_until(lambda: printed(b"old line\n"), timeout=30)
        with log_file.open("a", encoding="utf-8") as handle:
            handle.write("new line\n")
        wait_until(lambda: printed(b"new line\n"), timeout=10)
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()


@pytest.fixture
def settings_home(private_home: Path) -> Path:
    return private_home / ".incremind"
