"""Write ``incremind_daemon/serve/mcp_listing.json``: the SDK's answers that `incremind mcp` gives at once.

    PYTHONPATH=. python benchmarks/mcp_listing.py          # after changing a tool, its description or the SDK

The front of the stdio server (``serve/mcp_front.py``) answers ``initialize``,
``tools/list`` and ``ping`` itself, without importing the MCP SDK; this asks
the SDK's server the same questions, in a temporary home, for every protocol
version opened by ``initialize``, and keeps its answers. The test
``tests/serve/test_mcp_front.py`` fails while the file and the SDK disagree.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.isolation import isolate_home

ROOT = isolate_home("incremind-listing-")

import functools  # noqa: E402
import json  # noqa: E402
from typing import Any  # noqa: E402

from incremind_daemon.cli.mcp import serve_sdk  # noqa: E402
from incremind_daemon.config import load_settings  # noqa: E402
from incremind_daemon.serve.mcp_front import LISTING, capture_listing  # noqa: E402

REVIEW_TOOLS = ["confirm_insight", "reject_insight"]


def sdk_listing() -> dict[str, Any]:
    """Return what the SDK's server answers, every tool listed (a home of its own, no embedding model)."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    settings = load_settings(
        home=ROOT / "home" / ".incremind", mcp={"allow_review": True}, embedding={"backend": "none"}
    )
    backend = functools.partial(serve_sdk, settings)
    return capture_listing(backend, list(HANDSHAKE_PROTOCOL_VERSIONS), REVIEW_TOOLS)


def main() -> None:
    LISTING.write_text(json.dumps(sdk_listing(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {LISTING}")


if __name__ == "__main__":
    main()
