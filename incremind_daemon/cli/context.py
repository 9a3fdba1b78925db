"""The preloaded context blocks: context show|write|enable|disable, setup claude --hook."""

from __future__ import annotations

import argparse

from incremind_daemon.cli.base import Commands


def register(commands: Commands, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    """Add this topic's subcommands."""
