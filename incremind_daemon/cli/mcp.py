"""The MCP server and agent registration: mcp, setup AGENT."""

from __future__ import annotations

import argparse

from incremind_daemon.cli.base import Commands


def register(commands: Commands, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    """Add this topic's subcommands."""
