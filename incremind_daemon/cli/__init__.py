"""The `incremind` command.

``main`` dispatches the agents' hook commands before anything heavy is
imported (a SessionStart hook must answer in well under 100 ms); every other
command goes to the full command line in ``app``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # argparse costs milliseconds the hook path does not have
    import argparse


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"]:
        from incremind_daemon.hook import main as hook_main

        return hook_main(args[1:])
    if args[:1] == ["mcp"] and not {"-h", "--help"} & set(args):
        from incremind_daemon.cli.mcp import serve_stdio  # agents start this per session: skip the rest

        return serve_stdio(args[1:])
    from incremind_daemon.cli.app import main as app_main

    return app_main(args)


def build_parser() -> argparse.ArgumentParser:
    """Return the full argument parser (for help and tests)."""
    from incremind_daemon.cli.app import build_parser as build

    return build()
