"""Reviewing candidate insights: pending, confirm, reject, edit, forget, restore, insights, history, receipts."""

from __future__ import annotations

import argparse

from incremind_daemon.cli.base import Commands


def register(commands: Commands, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    """Add this topic's subcommands."""
