"""Point HOME and INCREMIND_HOME into a fresh temporary folder before incremind is imported.

Every benchmark script calls ``isolate_home`` above its other imports, so no
setting, path or agent folder of the real home can leak into a run, for the
script itself or for any daemon it starts.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

AGENT_OVERRIDES = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME")


def isolate_home(prefix: str) -> Path:
    """Create the run's folder and point HOME and INCREMIND_HOME into it; return the folder.

    Inherited INCREMIND_* variables and the agents' folder overrides are
    dropped. The home is ``<folder>/home`` and incremind's ``<folder>/home/.incremind``.
    """
    root = Path(tempfile.mkdtemp(prefix=prefix)).resolve()
    for name in [key for key in os.environ if key.startswith("INCREMIND_") or key in AGENT_OVERRIDES]:
        del os.environ[name]
    os.environ.pop("XDG_CACHE_HOME", None)  # the model cache goes under the run's HOME, not the person's
    os.environ["HOME"] = str(root / "home")
    os.environ["INCREMIND_HOME"] = str(root / "home" / ".incremind")
    (root / "home" / ".incremind").mkdir(parents=True)
    return root
