"""Agent hook commands (``incremind hook ...``): fast, standard library only.

A SessionStart hook runs before every agent session, so this module reads a
precompiled file and prints; it never imports the store, jieba or a model.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    """Run one hook command; return the exit code."""
    print(f"incremind hook: unknown hook {' '.join(argv)!r}", file=sys.stderr)
    return 2
