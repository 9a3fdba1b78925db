"""The failures a user can act on; str(exc) is printed as-is."""

from __future__ import annotations


class IncremindError(Exception):
    """A failure the user can act on; write the message as a sentence with a fix."""


class ConfigError(IncremindError):
    """The configuration file or environment is wrong."""


class QueryError(IncremindError):
    """A search query could not be answered."""


class ExtractError(IncremindError):
    """A file could not be turned into text; the file is kept and reported."""


class NotFound(IncremindError):
    """An id or name that the store does not hold."""


class DaemonNotRunning(IncremindError):
    """The daemon is not running for this home."""
