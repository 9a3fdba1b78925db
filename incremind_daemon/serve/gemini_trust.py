"""Tell whether Gemini CLI will load incremind's tools: it loads MCP servers only in folders the person trusts.

Read from Gemini CLI 0.61.0's own code (packages/core/src/utils/trust.ts):
folder trust is on unless ``security.folderTrust.enabled`` is false in
``~/.gemini/settings.json``, or ``GEMINI_CLI_TRUST_WORKSPACE=true`` trusts every
folder. The trusted folders are ``trustedFolders.json`` in the Gemini folder
(``GEMINI_CLI_TRUSTED_FOLDERS_PATH`` overrides it): a JSON object of path to
``TRUST_FOLDER`` (that folder and below), ``TRUST_PARENT`` (its parent and
below) or ``DO_NOT_TRUST``, the longest matching path deciding. In a folder no
rule trusts, Gemini lists the server as disabled and offers none of its tools.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from incremind_daemon.config import read_jsonc
from incremind_daemon.errors import ConfigError

TRUSTING = ("TRUST_FOLDER", "TRUST_PARENT")


@dataclass(frozen=True, slots=True)
class GeminiTrust:
    """Where Gemini CLI will load the tools: everywhere, or only under the trusted folders."""

    everywhere: bool
    trusted: tuple[Path, ...]  # the folders (and their subfolders) where the tools load, when not everywhere
    rules: Path  # trustedFolders.json

    def notice(self) -> str | None:
        """Return what the person should know, or None when the tools load in every folder."""
        if self.everywhere:
            return None
        how = (
            f'start gemini in a project folder and choose "Trust folder" (or add "<folder>": "TRUST_FOLDER" '
            f"to {self.rules})"
        )
        if not self.trusted:
            return f"Gemini CLI loads MCP servers only in folders you trust, and you trust none yet: {how}"
        shown = ", ".join(str(path) for path in self.trusted[:3]) + (" …" if len(self.trusted) > 3 else "")
        return (
            f"Gemini CLI loads incremind's tools only under the folders you trust ({shown}); "
            f"elsewhere it lists the server as disabled: {how}"
        )


def gemini_trust(gemini_home: Path) -> GeminiTrust:
    """Read Gemini CLI's folder-trust settings from its folder (``~/.gemini`` or the configured one)."""
    rules_path = Path(os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or gemini_home / "trustedFolders.json")
    if os.environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "true" or not _folder_trust_on(gemini_home / "settings.json"):
        return GeminiTrust(True, (), rules_path)
    rules = _read_object(rules_path)
    trusted = []
    for path, level in rules.items():
        if level in TRUSTING:
            folder = Path(path).expanduser()
            trusted.append(folder.parent if level == "TRUST_PARENT" else folder)
    return GeminiTrust(False, tuple(trusted), rules_path)


def _folder_trust_on(settings_path: Path) -> bool:
    security = _read_object(settings_path).get("security")
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    enabled = folder_trust.get("enabled", True) if isinstance(folder_trust, dict) else True
    return enabled is not False


def _read_object(path: Path) -> dict[str, object]:
    try:
        return read_jsonc(path)
    except ConfigError:  # missing or broken: Gemini's defaults (it reports a broken file itself)
        return {}
