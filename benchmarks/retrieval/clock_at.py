"""Set the product's clock for a while: material saved "then", questions asked "now".

Both recall harnesses replay a year of material: each piece is stored at the
moment it was said, and the questions are asked the day after the last one,
so that "last month" or 今年 in a question means what the person meant.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

from incremind_daemon.store import clock


@contextmanager
def clock_at(moment: datetime) -> Iterator[None]:
    """Make the product's clock read ``moment`` (aware), so stamps and "last month" are read against it."""
    if moment.tzinfo is None:
        raise ValueError("clock_at needs an aware moment, as clock.now() returns")
    real = clock.now
    clock.now = lambda: moment  # every caller looks the function up in the module when it runs
    try:
        yield
    finally:
        clock.now = real
