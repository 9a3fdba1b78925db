"""Run the daemon as a user service (systemd on Linux, launchd on macOS) or as a detached process.

``incremind start|stop|restart`` go through the service when one is installed
for this home, and otherwise start ``incremind run`` in its own session with
its output in the log file. Whether the daemon runs is always read from its
lock (``serve.status.running_pid``), never from the service manager alone, so
a daemon started one way can be stopped the other.

systemctl and launchctl are only ever called when a unit or agent file of
ours exists, or while installing one.
"""

from __future__ import annotations

import logging
import os
import plistlib
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from incremind_daemon.config import Settings
from incremind_daemon.errors import IncremindError
from incremind_daemon.locate import DEFAULT_HOME
from incremind_daemon.ops import STOP_TIMEOUT_SECONDS as STOP_TIMEOUT_SECONDS
from incremind_daemon.ops.logs import log_path, tail_lines
from incremind_daemon.private import make_private_folders, replace_file
from incremind_daemon.serve.agent_setup import incremind_command
from incremind_daemon.serve.status import read_heartbeat, running_pid

log = logging.getLogger(__name__)

UNIT_NAME = "incremind.service"
LAUNCHD_LABEL = "dev.incremind.daemon"
START_TIMEOUT_SECONDS = 60.0
KILL_WAIT_SECONDS = 10.0
MANAGER_TIMEOUT_SECONDS = 60.0

Kind = Literal["systemd", "launchd", "none"]


@dataclass(frozen=True, slots=True)
class ServiceSpec:
    """What the service runs: the incremind command, and the home and config it serves."""

    command: tuple[str, ...]  # absolute; "run" is appended
    home: Path | None  # INCREMIND_HOME for the service; None: the default home
    config: Path | None  # INCREMIND_CONFIG for the service; None: <home>/config.json
    log_file: Path


@dataclass(frozen=True, slots=True)
class ServiceState:
    """Where the service file is, and what the service manager says about it."""

    kind: Kind
    path: Path | None
    installed: bool
    current: bool  # the file says what install would write now
    enabled: str | None  # the manager's own words (enabled, disabled, ...), when installed
    active: str | None  # active, inactive, failed, ...
    daemon_pid: int | None


@dataclass(frozen=True, slots=True)
class Stopped:
    """How a daemon was stopped."""

    pid: int
    killed: bool  # it did not exit within the timeout after SIGTERM and got SIGKILL
    via_service: bool


def service_kind() -> Kind:
    """Return the service manager this machine offers the person."""
    if sys.platform == "darwin":
        return "launchd"
    if sys.platform.startswith("linux") and shutil.which("systemctl"):
        return "systemd"
    return "none"


def service_spec(settings: Settings, config: Path | None) -> ServiceSpec:
    """Describe the service for this home; the home is named unless it is the default."""
    home = settings.home_dir
    named = home if home != DEFAULT_HOME.expanduser() or os.environ.get("INCREMIND_HOME") else None
    return ServiceSpec(incremind_command(), named, config, log_path(settings))


def unit_path() -> Path:
    """Return where the systemd user unit goes ($XDG_CONFIG_HOME/systemd/user)."""
    base = os.environ.get("XDG_CONFIG_HOME") or "~/.config"
    return Path(base).expanduser() / "systemd" / "user" / UNIT_NAME


def plist_path() -> Path:
    """Return where the launchd agent goes."""
    return Path("~/Library/LaunchAgents").expanduser() / f"{LAUNCHD_LABEL}.plist"


def service_file(kind: Kind) -> Path | None:
    """Return the service file of a kind of manager (None when there is no manager)."""
    return {"systemd": unit_path(), "launchd": plist_path()}.get(kind)


# --- what the files say ----------------------------------------------------------------


UNIT_TEMPLATE = """\
# incremind: a systemd user unit, written by `incremind service install`.
# By hand: copy it to ~/.config/systemd/user/ and run
#   systemctl --user daemon-reload && systemctl --user enable --now incremind
[Unit]
Description=incremind: long-term memory for you and your coding agents
# a daemon that keeps failing at start is given up after five tries in ten minutes
StartLimitIntervalSec=600
StartLimitBurst=5

[Service]
Type=simple
ExecStart={exec_start}
{environment}# No ExecStop: stopping sends KillSignal to the daemon, which finishes or rolls
# back the item in hand and exits 0. After TimeoutStopSec it is killed, which
# loses nothing either: every step is a transaction.
KillSignal=SIGTERM
KillMode=mixed
TimeoutStopSec={stop_seconds}
Restart=on-failure
RestartSec=5
# bounded resources: memory is capped, CPU and disk yield to interactive work
MemoryHigh=1G
MemoryMax=2G
CPUQuota=200%
CPUWeight=20
IOWeight=20
Nice=10
TasksMax=256
NoNewPrivileges=yes

[Install]
WantedBy=default.target
"""


def render_unit(spec: ServiceSpec) -> str:
    """Return the systemd user unit for a spec."""
    env = [("PYTHONUNBUFFERED", "1")]
    if spec.home is not None:
        env.append(("INCREMIND_HOME", str(spec.home)))
    if spec.config is not None:
        env.append(("INCREMIND_CONFIG", str(spec.config)))
    environment = "".join(f"Environment={_systemd_quote(f'{k}={v}', dollars=False)}\n" for k, v in env)
    return UNIT_TEMPLATE.format(
        exec_start=" ".join(_systemd_quote(word) for word in (*spec.command, "run")),
        environment=environment,
        stop_seconds=int(STOP_TIMEOUT_SECONDS),
    )


def _systemd_quote(word: str, *, dollars: bool = True) -> str:
    """Quote one word for a unit file: specifiers (%), variables ($), spaces and quotes."""
    if "\n" in word or "\r" in word:
        raise IncremindError(f"{word!r} holds a line break, which a unit file cannot; use a path without one")
    word = word.replace("%", "%%")
    if dollars:
        word = word.replace("$", "$$")
    if word and not re.search(r"[\s\"'\\;]", word):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_plist(spec: ServiceSpec) -> str:
    """Return the launchd agent for a spec."""
    env = {"PYTHONUNBUFFERED": "1"}
    if spec.home is not None:
        env["INCREMIND_HOME"] = str(spec.home)
    if spec.config is not None:
        env["INCREMIND_CONFIG"] = str(spec.config)
    agent = {
        "Label": LAUNCHD_LABEL,
        "ProgramArguments": [*spec.command, "run"],
        "EnvironmentVariables": env,
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},  # restart after a crash, not after a stop
        "ThrottleInterval": 5,
        "ExitTimeOut": int(STOP_TIMEOUT_SECONDS),
        "ProcessType": "Background",
        "Nice": 10,
        "LowPriorityIO": True,
        # the daemon sees its stderr is its log file and writes each record once
        "StandardOutPath": str(spec.log_file),
        "StandardErrorPath": str(spec.log_file),
    }
    return plistlib.dumps(agent).decode("utf-8")


def manual_steps(spec: ServiceSpec) -> str:
    """Say how to run the daemon at login where there is no service manager we know."""
    command = " ".join(f'"{w}"' if " " in w else w for w in (*spec.command, "run"))
    home = f"INCREMIND_HOME={spec.home} " if spec.home is not None else ""
    return (
        "no systemd user manager or launchd here, so nothing was installed.\n"
        f"Start the daemon now with: incremind start\n"
        f"To start it at login, add this to your system's autostart (or a login script):\n  {home}{command}\n"
        "It stops cleanly on SIGTERM."
    )


# --- install, uninstall, state --------------------------------------------------------------


def installed_for(settings: Settings, kind: Kind | None = None) -> bool:
    """Tell whether a service file of ours exists and serves this home."""
    kind = kind or service_kind()
    path = service_file(kind)
    if path is None or not path.exists():
        return False
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return False
    return _served_home(text, kind) == settings.home_dir


def _served_home(text: str, kind: Kind) -> Path:
    if kind == "launchd":
        env = plistlib.loads(text.encode("utf-8")).get("EnvironmentVariables", {})
        named = env.get("INCREMIND_HOME") if isinstance(env, dict) else None
    else:
        found = re.search(r'^Environment="?INCREMIND_HOME=(.*?)"?$', text, re.MULTILINE)
        named = found.group(1).replace('\\"', '"').replace("\\\\", "\\").replace("%%", "%") if found else None
    return Path(named).expanduser() if named else DEFAULT_HOME.expanduser()


def install_service(settings: Settings, spec: ServiceSpec) -> list[str]:
    """Write the service file, stop a daemon running outside it, and enable and start it."""
    kind = service_kind()
    path = service_file(kind)
    if path is None:
        return [manual_steps(spec)]
    said: list[str] = []
    if kind == "systemd" and path.exists():  # a reinstall, perhaps for another home: the old one stops first
        _manager(kind, "stop", UNIT_NAME, check=False)
    stopped = stop_daemon(settings, via_service=False)
    if stopped is not None:
        said.append(f"stopped the running daemon (pid {stopped.pid}) so the service can take over")
    text = render_unit(spec) if kind == "systemd" else render_plist(spec)
    _write_atomically(path, text)
    said.append(f"wrote {path}")
    if kind == "systemd":
        _manager(kind, "daemon-reload")
        _manager(kind, "enable", "--now", UNIT_NAME)
        said.append(f"enabled and started {UNIT_NAME}: it starts at login and restarts after a crash")
    else:
        domain = f"gui/{os.getuid()}"
        _manager(kind, "bootout", f"{domain}/{LAUNCHD_LABEL}", check=False)
        _manager(kind, "bootstrap", domain, str(path))
        said.append(f"loaded {LAUNCHD_LABEL}: it starts at login and restarts after a crash")
    said.append("check it with: incremind status (logs: incremind logs -f)")
    return said


def uninstall_service() -> list[str]:
    """Stop and disable the service and remove its file (a daemon started by hand keeps running)."""
    kind = service_kind()
    path = service_file(kind)
    if path is None or not path.exists():
        return [f"no service installed ({path or 'no service manager here'})"]
    said: list[str] = []
    if kind == "systemd":
        done = _manager(kind, "disable", "--now", UNIT_NAME, check=False)
        if done.returncode != 0:
            said.append(f"warning: systemctl --user disable failed: {_first_line(done)}")
    else:
        _manager(kind, "bootout", f"gui/{os.getuid()}/{LAUNCHD_LABEL}", check=False)
    path.unlink()
    said.append(f"removed {path}")
    if kind == "systemd":
        _manager(kind, "daemon-reload", check=False)
    return said


def service_state(settings: Settings, spec: ServiceSpec) -> ServiceState:
    """Read the service file and ask the manager about it (only when the file exists)."""
    kind = service_kind()
    path = service_file(kind)
    installed = path is not None and path.exists()
    current, enabled, active = False, None, None
    if installed and path is not None:
        text = path.read_text(encoding="utf-8", errors="replace")
        current = text == (render_unit(spec) if kind == "systemd" else render_plist(spec))
        if kind == "systemd":
            enabled = _first_line(_manager(kind, "is-enabled", UNIT_NAME, check=False))
            active = _first_line(_manager(kind, "is-active", UNIT_NAME, check=False))
        else:
            loaded = _manager(kind, "print", f"gui/{os.getuid()}/{LAUNCHD_LABEL}", check=False)
            enabled = "loaded" if loaded.returncode == 0 else "not loaded"
    return ServiceState(kind, path, installed, current, enabled, active, running_pid(settings))


# --- start, stop ---------------------------------------------------------------------------


def start_daemon(settings: Settings, *, config: Path | None, timeout: float = START_TIMEOUT_SECONDS) -> str:
    """Start the daemon through the service if installed, else detached; wait until it runs."""
    pid = running_pid(settings)
    if pid is not None:
        return f"already running (pid {pid})"
    log_file = log_path(settings)
    offset = log_file.stat().st_size if log_file.exists() else 0
    kind = service_kind()
    if installed_for(settings, kind):
        _manager(kind, *_start_args(kind))
        pid = wait_running(settings, timeout, exited=None, log_file=log_file, offset=offset)
        return f"started through the {kind} service (pid {pid})"
    proc = spawn_detached(settings, config=config)
    pid = wait_running(settings, timeout, exited=proc.poll, log_file=log_file, offset=offset)
    return f"started (pid {pid}); logs in {log_file}"


def _start_args(kind: Kind) -> tuple[str, ...]:
    if kind == "systemd":
        return ("start", UNIT_NAME)
    return ("kickstart", f"gui/{os.getuid()}/{LAUNCHD_LABEL}")


def spawn_detached(settings: Settings, *, config: Path | None) -> subprocess.Popen[bytes]:
    """Start `incremind run` in a session of its own, its output appended to the log file."""
    log_file = log_path(settings)
    make_private_folders(settings.home_dir)
    make_private_folders(log_file.parent)
    env = dict(os.environ, INCREMIND_HOME=str(settings.home_dir), PYTHONUNBUFFERED="1")
    if config is not None:
        env["INCREMIND_CONFIG"] = str(config)
    # this very interpreter and package, so the daemon runs the code that started it
    argv = [sys.executable, "-m", "incremind_daemon", "run"]
    with log_file.open("ab") as out:
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=settings.home_dir,
            env=env,
            start_new_session=True,  # a closed terminal or Ctrl-C in it does not reach the daemon
        )


def wait_running(
    settings: Settings,
    timeout: float,
    *,
    exited: Callable[[], int | None] | None,
    log_file: Path,
    offset: int,
) -> int:
    """Wait until the daemon holds the lock and has published a heartbeat; return its pid."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pid = running_pid(settings)
        beat = read_heartbeat(settings.status_path) if pid is not None else None
        if pid is not None and beat is not None and beat.pid == pid:
            return pid
        code = exited() if exited is not None else None
        if code is not None:
            raise IncremindError(f"the daemon exited with code {code} while starting:\n{_log_since(log_file, offset)}")
        time.sleep(0.1)
    raise IncremindError(
        f"the daemon did not report running within {timeout:.0f} s; its log says:\n{_log_since(log_file, offset)}"
    )


def _log_since(path: Path, offset: int, lines: int = 20) -> str:
    try:
        with path.open("rb") as handle:
            if handle.seek(0, os.SEEK_END) >= offset:
                handle.seek(offset)
                fresh = handle.read().decode("utf-8", errors="replace").splitlines()
            else:  # rotated meanwhile
                fresh = tail_lines(path, lines)
    except OSError:
        fresh = []
    shown = fresh[-lines:] or ["(nothing was logged)"]
    return "\n".join(f"  {line}" for line in shown)


def stop_daemon(
    settings: Settings, *, timeout: float = STOP_TIMEOUT_SECONDS, via_service: bool = True
) -> Stopped | None:
    """Stop the daemon of this home; return how, or None when none was running.

    Through the service when installed (so the manager does not restart it),
    then by SIGTERM to the pid in the lock, and SIGKILL if it has not exited
    within the timeout.
    """
    pid = running_pid(settings)
    if pid is None:
        return None
    kind = service_kind()
    if via_service and installed_for(settings, kind):
        if kind == "systemd":
            _manager(kind, "stop", UNIT_NAME, check=False)
        else:
            _manager(kind, "kill", "SIGTERM", f"gui/{os.getuid()}/{LAUNCHD_LABEL}", check=False)
        if _wait_stopped(settings, timeout):
            return Stopped(pid, killed=False, via_service=True)
        pid = running_pid(settings) or pid
    if pid <= 0:
        raise IncremindError(
            f"{settings.home_dir / 'daemon.lock'} is held but names no pid; find the process with: "
            f"fuser {settings.home_dir / 'daemon.lock'}"
        )
    _signal(pid, signal.SIGTERM)
    if _wait_stopped(settings, timeout):
        return Stopped(pid, killed=False, via_service=False)
    log.warning("daemon pid %d did not stop within %.0f s; sending SIGKILL", pid, timeout)
    _signal(pid, signal.SIGKILL)
    if _wait_stopped(settings, KILL_WAIT_SECONDS):
        return Stopped(pid, killed=True, via_service=False)
    raise IncremindError(f"the daemon (pid {pid}) is still running after SIGKILL; is it stuck in the kernel (D state)?")


def _signal(pid: int, sig: signal.Signals) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass  # it exited on its own meanwhile
    except PermissionError as exc:
        raise IncremindError(f"not allowed to signal the daemon (pid {pid}): it runs as another user") from exc


def _wait_stopped(settings: Settings, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while running_pid(settings) is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


# --- the service manager ------------------------------------------------------------------


def _manager(kind: Kind, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run systemctl --user or launchctl; with check, a failure becomes an IncremindError."""
    program = "systemctl" if kind == "systemd" else "launchctl"
    found = shutil.which(program)
    if found is None:
        raise IncremindError(f"{program} is not on PATH; start the daemon with: incremind start")
    argv = [found, "--user", *args] if kind == "systemd" else [found, *args]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=MANAGER_TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired as exc:
        raise IncremindError(f"{' '.join([program, *argv[1:]])} did not answer within 60 s") from exc
    if check and done.returncode != 0:
        shown = " ".join([program, *argv[1:]])
        raise IncremindError(
            f"{shown} failed: {_first_line(done)}. The service file is in place; "
            "without a user service manager, run the daemon with: incremind start"
        )
    return done


def _first_line(done: subprocess.CompletedProcess[str]) -> str:
    text = (done.stdout or "").strip() or (done.stderr or "").strip() or f"exit code {done.returncode}"
    return text.splitlines()[0]


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, text.encode("utf-8"), mode=0o644)  # a unit file, which the service manager reads
