"""What every command module shares: the handler type and how a subcommand is declared."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from incremind_daemon.config import Settings
from incremind_daemon.names import ProjectNameError, check_project

Handler = Callable[[argparse.Namespace, Settings], int]
Commands = argparse._SubParsersAction  # the parser's subcommand registry


def command(
    commands: Commands,  # type: ignore[type-arg]
    common: argparse.ArgumentParser,
    name: str,
    handler: Handler,
    help_text: str,
    example: str,
) -> argparse.ArgumentParser:
    """Declare one subcommand with the shared options, a description and an example."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name,
        help=help_text,
        description=help_text[0].upper() + help_text[1:] + ".",
        parents=[common],
        epilog=f"example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(handler=handler)
    return parser


def project_arg(value: str) -> str:
    """Check a ``--project`` value: argparse prints the reason for a name memory cannot hold."""
    try:
        return check_project(value)
    except ProjectNameError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
