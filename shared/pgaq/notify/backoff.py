"""When to try a failed notification again: pure arithmetic, so tests pass numbers in."""

from __future__ import annotations


def retry_delay(attempts: int, base: float, cap: float) -> float:
    """Seconds to wait after the `attempts`-th failed attempt: base, 2*base, 4*base, ...
    never more than `cap`."""
    if attempts < 1:
        return 0.0
    return float(min(cap, base * 2 ** min(attempts - 1, 62)))
