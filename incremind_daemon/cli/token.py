"""The MCP endpoint's token: token show [--path], token rotate."""

from __future__ import annotations

import argparse
import sys

from incremind_daemon.cli.base import Commands, command
from incremind_daemon.config import Settings
from incremind_daemon.errors import IncremindError


def register(commands: Commands, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    """Add this topic's subcommands."""
    token = command(
        commands,
        common,
        "token",
        cmd_token,
        "print the token agents send to the daemon's HTTP endpoint, or replace it (rotate)",
        "incremind token rotate",
    )
    token.add_argument(
        "action", choices=("show", "rotate"), help="show: print the token; rotate: make a new one and update agents"
    )
    token.add_argument("--path", action="store_true", help="with show: print only where the token is kept")


def cmd_token(args: argparse.Namespace, settings: Settings) -> int:
    """Print the endpoint's token or its file, or rotate it and update the agents set up over HTTP."""
    from incremind_daemon.serve.mcp_auth import read_home_token, token_path

    name = settings.mcp.token_env
    if name:
        raise IncremindError(
            f"the endpoint's token is the value of ${name} (mcp.token_env), not a file: to change it, set a new "
            "value there for the daemon and the agents, and restart the daemon"
        )
    if args.action == "rotate":
        return _rotate(settings)
    path = token_path(settings.home_dir)
    if args.path:
        print(path)
        if not path.exists():
            print("note: not made yet; the daemon makes it when it starts (or incremind init)", file=sys.stderr)
        return 0
    token = read_home_token(settings.home_dir)
    if token is None:
        raise IncremindError(f"{path} does not exist yet: start the daemon (incremind start) or run incremind init")
    print(token)
    return 0


def _rotate(settings: Settings) -> int:
    """Write a new token, give it to every agent set up over HTTP for this home, and check the daemon takes it.

    The daemon reads the token file again whenever it changes, so the new
    token opens the endpoint from the next request on, with no restart.
    """
    from incremind_daemon.serve import agent_setup
    from incremind_daemon.serve.mcp_auth import rotate_home_token, token_path

    token = rotate_home_token(settings.home_dir)
    print(f"wrote a new token to {token_path(settings.home_dir)}; the old one no longer opens the endpoint")
    ours = agent_setup.http_registration(settings, token)
    updated = 0
    for agent in agent_setup.AGENTS:
        try:
            url = agent_setup.http_url_of(agent, agent_setup.registered_entry(agent, settings))
        except IncremindError as exc:
            print(f"{agent}: {exc}; left as it was", file=sys.stderr)
            continue
        if url is None:
            continue  # not set up, or over stdio: no token to change
        if url.rstrip("/") != ours.url:
            print(f"{agent}: left as it was: its HTTP entry points at {url}, not at this home's {ours.url}")
            continue
        print(agent_setup.describe(agent_setup.register_server(agent, ours, settings)))
        updated += 1
    if not updated:
        print("no agent is set up over HTTP for this home; nothing else to update")
    return _daemon_takes(settings, token)


def _daemon_takes(settings: Settings, token: str) -> int:
    from incremind_daemon.serve.mcp_probe import probe_endpoint
    from incremind_daemon.serve.status import read_heartbeat, running_pid

    pid = running_pid(settings)
    beat = read_heartbeat(settings.status_path)
    url = beat.mcp_url if pid is not None and beat is not None and beat.pid == pid else None
    if pid is None:
        print("the daemon is not running; it uses the new token when it starts")
        return 0
    if url is None:
        print(f"the daemon (pid {pid}) does not serve MCP over HTTP; it uses the new token when it does")
        return 0
    probe = probe_endpoint(url, token, settings.home_dir)
    if probe.verdict != "ours":
        print(f"incremind: {probe.explain()}", file=sys.stderr)
        return 1
    print(f"the running daemon (pid {pid}) accepts the new token")
    return 0
