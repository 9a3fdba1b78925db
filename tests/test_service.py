"""The user service's files, install/uninstall against a fake systemctl, and start/stop of real daemons.

No test talks to this machine's user manager: every test puts a fake
``systemctl`` first on PATH, which records its arguments (and, like the real
one, starts and stops the daemon for ``start``/``stop``).
"""

from __future__ import annotations

import json
import os
import plistlib
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from incremind_daemon import cli
from incremind_daemon.config import Settings
from incremind_daemon.ops.service import (
    ServiceSpec,
    _served_home,
    manual_steps,
    render_plist,
    render_unit,
    service_spec,
)
from incremind_daemon.serve.status import running_pid
from tests.daemon_process import REPO, daemon_env

FAKE_SYSTEMCTL = """#!{python}
import fcntl, json, os, signal, subprocess, sys
from pathlib import Path

args = sys.argv[1:]
with open({calls!r}, "a", encoding="utf-8") as record:
    record.write(json.dumps(args) + "\\n")
if os.environ.get("FAKE_SYSTEMCTL_FAIL"):
    sys.stderr.write("Failed to connect to bus: No medium found\\n")
    sys.exit(1)
verb = args[1] if len(args) > 1 else ""
if verb == "is-enabled":
    print("enabled")
elif verb == "is-active":
    print("active")
elif verb == "start":
    quiet = subprocess.DEVNULL
    subprocess.Popen([sys.executable, "-m", "incremind_daemon", "run"], start_new_session=True,
                     stdin=quiet, stdout=quiet, stderr=quiet)
elif verb == "stop":
    lock = Path(os.environ["INCREMIND_HOME"]) / "daemon.lock"
    text = lock.read_text().strip() if lock.exists() else ""
    if text.isdigit():
        os.kill(int(text), signal.SIGTERM)
        with open(lock) as held:
            fcntl.flock(held, fcntl.LOCK_EX)  # returns once the daemon has exited
"""


@pytest.fixture(autouse=True)
def systemctl_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put a recording fake systemctl first on PATH; return the file of its calls."""
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    calls = tmp_path / "systemctl-calls.jsonl"
    fake = folder / "systemctl"
    fake.write_text(FAKE_SYSTEMCTL.format(python=sys.executable, calls=str(calls)), encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return calls


def recorded(calls: Path) -> list[list[str]]:
    if not calls.exists():
        return []
    return [json.loads(line) for line in calls.read_text(encoding="utf-8").splitlines()]


def spec_for(settings: Settings) -> ServiceSpec:
    return service_spec(settings, None)


def directives(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith("#")]


# --- the files ------------------------------------------------------------------------------


def test_unit_runs_the_absolute_incremind_for_this_home_within_limits(settings: Settings) -> None:
    unit = render_unit(spec_for(settings))
    exec_start = re.search(r"^ExecStart=(.*)$", unit, re.MULTILINE)
    assert exec_start is not None
    assert exec_start.group(1).startswith("/") and exec_start.group(1).endswith(" run")
    assert f"Environment=INCREMIND_HOME={settings.home_dir}\n" in unit
    for wanted in ("Restart=on-failure", "KillSignal=SIGTERM", "TimeoutStopSec=30", "MemoryMax=2G", "Nice=10"):
        assert f"\n{wanted}\n" in unit
    assert "WantedBy=default.target" in unit


def test_unit_quotes_spaces_and_percent_and_names_its_home() -> None:
    spec = ServiceSpec(("/opt/my tools/incremind",), Path("/data/50% memory"), None, Path("/x.log"))
    unit = render_unit(spec)
    assert 'ExecStart="/opt/my tools/incremind" run\n' in unit
    assert 'Environment="INCREMIND_HOME=/data/50%% memory"\n' in unit
    assert _served_home(unit, "systemd") == Path("/data/50% memory")


def test_repository_unit_is_the_one_install_writes() -> None:
    shipped = (REPO / "systemd" / "incremind.service").read_text(encoding="utf-8")
    written = render_unit(ServiceSpec(("/usr/bin/incremind",), None, None, Path("/x.log")))
    expected = [
        "ExecStart=%h/.local/bin/incremind run" if line.startswith("ExecStart=") else line
        for line in directives(written)
    ]
    assert directives(shipped) == expected


def test_launchd_agent_runs_incremind_for_this_home(settings: Settings) -> None:
    spec = spec_for(settings)
    agent = plistlib.loads(render_plist(spec).encode("utf-8"))
    assert agent["ProgramArguments"] == [*spec.command, "run"]
    assert agent["EnvironmentVariables"]["INCREMIND_HOME"] == str(settings.home_dir)
    assert agent["KeepAlive"] == {"SuccessfulExit": False} and agent["RunAtLoad"] is True
    assert agent["StandardErrorPath"] == str(settings.home_dir / "logs" / "incremind.log")
    assert _served_home(render_plist(spec), "launchd") == settings.home_dir


# --- install, uninstall, status ------------------------------------------------------------------


@pytest.mark.parametrize("xdg", [False, True], ids=["default", "xdg-config-home"])
def test_install_writes_the_unit_then_reloads_and_enables_it(
    settings: Settings,
    private_home: Path,
    systemctl_calls: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    xdg: bool,
) -> None:
    base = private_home / ".config"
    if xdg:
        base = private_home / "elsewhere"
        monkeypatch.setenv("XDG_CONFIG_HOME", str(base))
    assert cli.main(["service", "install"]) == 0
    unit = base / "systemd" / "user" / "incremind.service"
    assert unit.read_text(encoding="utf-8") == render_unit(spec_for(settings))
    assert recorded(systemctl_calls) == [
        ["--user", "daemon-reload"],
        ["--user", "enable", "--now", "incremind.service"],
    ]
    assert f"wrote {unit}" in capsys.readouterr().out


def test_install_without_a_user_manager_keeps_the_unit_and_says_what_to_do(
    settings: Settings, private_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_SYSTEMCTL_FAIL", "1")
    assert cli.main(["service", "install"]) == 1
    err = capsys.readouterr().err
    assert "Failed to connect to bus" in err and "incremind start" in err
    assert (private_home / ".config" / "systemd" / "user" / "incremind.service").exists()


def test_uninstall_disables_and_removes_the_unit(
    settings: Settings, private_home: Path, systemctl_calls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["service", "install"]) == 0
    assert cli.main(["service", "uninstall"]) == 0
    assert not (private_home / ".config" / "systemd" / "user" / "incremind.service").exists()
    assert recorded(systemctl_calls)[2:] == [
        ["--user", "disable", "--now", "incremind.service"],
        ["--user", "daemon-reload"],
    ]
    assert "removed" in capsys.readouterr().out


def test_service_status_reads_the_unit_and_asks_the_manager(
    settings: Settings, systemctl_calls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["service", "install"]) == 0
    capsys.readouterr()
    assert cli.main(["service", "status", "--json"]) == 3  # the fake manager starts nothing on enable
    state = json.loads(capsys.readouterr().out)
    assert state["installed"] and state["current"] and state["kind"] == "systemd"
    assert (state["enabled"], state["active"]) == ("enabled", "active")


def test_without_a_unit_systemctl_is_never_called(
    settings: Settings, systemctl_calls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["service", "status"]) == 3
    assert cli.main(["stop"]) == 0
    assert cli.main(["service", "uninstall"]) == 0
    assert "not installed" in capsys.readouterr().out
    assert recorded(systemctl_calls) == []


def test_without_a_service_manager_install_prints_what_to_do(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "no-tools"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert cli.main(["service", "install"]) == 1
    out = capsys.readouterr().out
    assert out.strip() == manual_steps(spec_for(settings)).strip()
    assert "incremind start" in out and " run" in out


# --- real daemons ------------------------------------------------------------------------------


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "incremind_daemon", *args], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def env() -> dict[str, str]:
    return daemon_env(INCREMIND_MCP__PORT="0")


def test_detached_start_and_stop_a_real_daemon(
    settings: Settings, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    started = run_cli("start", env=env)
    assert started.returncode == 0, started.stderr
    pid = running_pid(settings)
    assert pid is not None and f"started (pid {pid})" in started.stdout
    assert os.getsid(pid) == pid, "the daemon leads a session of its own"
    assert "running for" in (settings.home_dir / "logs" / "incremind.log").read_text(encoding="utf-8")
    assert cli.main(["start"]) == 0
    assert f"already running (pid {pid})" in capsys.readouterr().out
    assert cli.main(["status", "--json"]) == 0
    daemon = json.loads(capsys.readouterr().out)["daemon"]
    assert daemon["pid"] == pid and daemon["process"]["rss_bytes"] > 10 * 1024 * 1024
    assert daemon["process"]["threads"] >= 2 and daemon["process"]["cpu_seconds"] > 0
    assert cli.main(["stop"]) == 0  # SIGTERM to the pid in the lock, then wait for the lock to be free
    assert f"stopped (pid {pid})" in capsys.readouterr().out
    assert running_pid(settings) is None
    assert "incremind stopped" in (settings.home_dir / "logs" / "incremind.log").read_text(encoding="utf-8")


def test_start_shows_the_log_when_the_daemon_cannot_start(settings: Settings, env: dict[str, str]) -> None:
    broken = dict(env, INCREMIND_EMBEDDING__BACKEND="onnx", INCREMIND_EMBEDDING__MODEL="not-installed")
    started = run_cli("start", env=broken)
    assert started.returncode == 1
    assert "exited with code 1 while starting" in started.stderr
    assert "not-installed" in started.stderr, "the daemon's own words are shown"
    assert running_pid(settings) is None


def test_stop_kills_a_daemon_that_ignores_sigterm(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    stubborn = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, signal, sys, time\n"
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "lock = open(sys.argv[1], 'a+')\n"
            "fcntl.flock(lock, fcntl.LOCK_EX)\n"
            "lock.seek(0); lock.truncate(); lock.write(str(os.getpid())); lock.flush()\n"
            "print('ready', flush=True)\n"
            "time.sleep(600)\n",
            str(settings.home_dir / "daemon.lock"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert stubborn.stdout is not None and stubborn.stdout.readline() == "ready\n"
        assert cli.main(["stop", "--timeout", "1"]) == 0
        assert "SIGKILL" in capsys.readouterr().out
        assert stubborn.wait(10) == -signal.SIGKILL
        assert running_pid(settings) is None
    finally:
        if stubborn.poll() is None:
            stubborn.kill()
            stubborn.wait(10)
        if stubborn.stdout is not None:
            stubborn.stdout.close()


def test_start_and_stop_go_through_an_installed_service(
    settings: Settings, systemctl_calls: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["service", "install"]) == 0
    started = run_cli("start", env=env)
    assert started.returncode == 0, started.stderr
    pid = running_pid(settings)
    assert pid is not None and f"started through the systemd service (pid {pid})" in started.stdout
    capsys.readouterr()
    assert cli.main(["stop"]) == 0
    assert "through the service" in capsys.readouterr().out
    assert running_pid(settings) is None
    assert ["--user", "start", "incremind.service"] in recorded(systemctl_calls)
    assert ["--user", "stop", "incremind.service"] in recorded(systemctl_calls)
