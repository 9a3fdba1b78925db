"""Run a thin client's command inside the daemon and hand back what it printed.

The client (``client``) sends its argument list over the home's socket; the
daemon parses it with the same parser, runs the same handler on its own
settings with its writer and model lent (``runtime``), and returns the exit
code and the two output streams. What a command prints is caught per
thread, so two clients served at once never see each other's lines.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import io
import logging
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from incremind_daemon import __version__
from incremind_daemon.cli.runtime import Runtime, lent
from incremind_daemon.config import Settings
from incremind_daemon.serve.client import SERVED

log = logging.getLogger(__name__)
_local = threading.local()
_install = threading.Lock()


class _Routed(io.TextIOBase):
    """A standard stream that writes to the caller's buffer while one is set on this thread."""

    def __init__(self, real: TextIO, name: str) -> None:
        self._real = real
        self._name = name

    def _target(self) -> TextIO:
        caught: dict[str, io.StringIO] | None = getattr(_local, "caught", None)
        return caught[self._name] if caught is not None else self._real

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def isatty(self) -> bool:
        caught = getattr(_local, "caught", None)
        return bool(getattr(_local, "tty", False)) if caught is not None else self._real.isatty()

    def fileno(self) -> int:
        if getattr(_local, "caught", None) is not None:
            raise io.UnsupportedOperation("a served command's output has no file descriptor")
        return self._real.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"


@contextmanager
def _caught(tty: bool) -> Iterator[dict[str, io.StringIO]]:
    with _install:
        if not isinstance(sys.stdout, _Routed):
            sys.stdout = _Routed(sys.stdout, "stdout")
        if not isinstance(sys.stderr, _Routed):
            sys.stderr = _Routed(sys.stderr, "stderr")
    buffers = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    _local.caught, _local.tty = buffers, tty
    try:
        yield buffers
    finally:
        _local.caught = None


@functools.cache
def _parser() -> argparse.ArgumentParser:
    from incremind_daemon.cli.app import build_parser

    return build_parser()


def serve_command(request: dict[str, Any], settings: Settings, runtime: Runtime) -> dict[str, Any]:
    """Run one client's command; the reply says whether it was served, and what it printed and returned.

    Only the commands in ``SERVED`` (and help) run here; for any other the reply
    is ``{"served": False}`` and the client runs the command itself.
    """
    from incremind_daemon.cli.app import run_command

    argv = request.get("argv")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        return {"served": False, "reason": "argv must be a list of strings"}
    if request.get("version") != __version__:
        return {"served": False, "reason": f"the daemon is version {__version__}"}
    cwd = request.get("cwd")
    if isinstance(cwd, str) and os.path.isabs(cwd):
        runtime = dataclasses.replace(runtime, cwd=Path(cwd))
    with _caught(bool(request.get("tty"))) as out, lent(runtime):
        try:
            args = _parser().parse_args(argv)
        except SystemExit as exc:  # --help, or a usage error: argparse printed it
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        else:
            if args.command not in SERVED:
                return {"served": False, "reason": f"{args.command} runs in the client"}
            try:
                code = run_command(args, settings)
            except Exception as exc:  # a fault of the command: the client gets a line, the log the traceback
                log.exception("serving `incremind %s` failed", args.command)
                print(
                    f"incremind: {args.command} failed in the daemon: {exc} (the daemon's log has the details)",
                    file=sys.stderr,
                )
                code = 1
    return {"served": True, "code": code, "stdout": out["stdout"].getvalue(), "stderr": out["stderr"].getvalue()}
