"""Polling without sleeps that guess: return the moment a condition holds."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll until condition() is true; fail with a clear message after timeout."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not true after {timeout}s: {condition.__doc__ or condition}")
        time.sleep(0.02)
