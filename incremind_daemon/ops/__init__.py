"""Operations on a home as a whole: the service, backups, export, doctor, logs and back-fill.

The constants the command line offers as choices and defaults live here, so
building its parser imports none of the operations.
"""

EXPORT_FORMATS = ("jsonl", "markdown")
STOP_TIMEOUT_SECONDS = 30.0  # SIGTERM, then this long before SIGKILL; the unit's TimeoutStopSec says the same
