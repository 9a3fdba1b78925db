"""What the three recall harnesses (evaluate.py, evidence.py, assistant/evaluate_assistant.py) share.

A comma-separated list of modes as an argparse type, and a main that runs
the harness in its temporary folder, writes the figures as JSON when asked,
and removes the folder afterwards (unless --keep), on a usage error too.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from incremind_daemon.errors import IncremindError


def mode_list(allowed: Sequence[str]) -> Callable[[str], list[str]]:
    """Return an argparse type reading "keyword,hybrid": distinct modes, in order, each one of ``allowed``."""

    def parse(text: str) -> list[str]:
        modes = list(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))
        unknown = [m for m in modes if m not in allowed]
        if unknown or not modes:
            raise argparse.ArgumentTypeError(
                f"unknown mode {', '.join(unknown) or '(none)'}; choose from {', '.join(allowed)}, separated by commas"
            )
        return modes

    return parse


def run_harness(
    name: str,
    argv: list[str] | None,
    parser: Callable[[], argparse.ArgumentParser],
    evaluate: Callable[[argparse.Namespace, Path], dict[str, object]],
    root: Path,
    *,
    json_indent: int = 2,
) -> int:
    """Parse the arguments, evaluate in ``root``, write --json; 1 on an IncremindError, 130 on Ctrl-C."""
    args = argparse.Namespace(keep=False)
    try:  # parse inside: --help and usage errors exit here, and the run's folder goes with them
        args = parser().parse_args(argv)
        figures = evaluate(args, root)
        if args.json is not None:
            text = json.dumps(figures, ensure_ascii=False, indent=json_indent) + "\n"
            args.json.write_text(text, encoding="utf-8")
    except IncremindError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        if args.keep:
            print(f"kept {root}", file=sys.stderr, flush=True)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0
