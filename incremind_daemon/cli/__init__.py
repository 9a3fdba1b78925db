"""The `incremind` command.

``main`` dispatches the agents' hook commands before anything heavy is
imported (a SessionStart hook must answer in well under 100 ms). A command the
running daemon serves goes to it through ``client``, which imports only the
standard library; every other command, and every command when no daemon
answers, goes to the full command line in ``app``.
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
        from incremind_daemon.serve.context.hook import main as hook_main

        return hook_main(args[1:])
    from incremind_daemon.serve.client import forward, relay_mcp  # the standard library only

    if args[:1] == ["mcp"] and not {"-h", "--help"} & set(args):
        relayed = relay_mcp(args[1:])  # agents start this per session: the daemon answers, if it runs
        if relayed is not None:
            return relayed
        from incremind_daemon.cli.mcp import serve_stdio  # none runs: serve here, skipping the rest

        return serve_stdio(args[1:])
    answered = forward(args)
    if answered is not None:
        return answered
    from incremind_daemon.cli.app import main as app_main

    return app_main(args)


def build_parser() -> argparse.ArgumentParser:
    """Return the full argument parser (for help and tests)."""
    from incremind_daemon.cli.app import build_parser as build

    return build()
