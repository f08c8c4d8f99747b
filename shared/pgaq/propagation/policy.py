"""Retries and windows as Oracle Streams Advanced Queuing User's Guide and Reference 10g
Release 2 (10.2), "Introducing Oracle Streams AQ", describes them for propagation: pure
arithmetic on times passed in.

A failing schedule retries after base, 2*base, 4*base, ... (30 s, 60 s, 120 s with
Oracle's base). A retry that would fall after the current window's end goes to the next
window's start instead, and from then on every retry follows the windows. The 16th
consecutive failure disables the schedule; a success resets the count.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

MAX_FAILURES = 16


@dataclass(frozen=True)
class Retry:
    failures: int
    next_run: datetime | None  # None: at once
    aligned: bool
    disable: bool


def after_failure(failures: int, now: datetime, window_end: datetime | None,
                  next_window: datetime | None, aligned: bool, base: float) -> Retry:
    """The schedule's state after one more failed attempt at `now`."""
    n = failures + 1
    if n >= MAX_FAILURES:
        return Retry(n, None, aligned, True)
    at = now + timedelta(seconds=base * 2 ** (n - 1))
    if aligned or (window_end is not None and at >= window_end):
        # the next window's start; with none ahead, not before this window closes (after
        # which nothing runs until an administrator changes the schedule)
        return Retry(n, next_window if next_window is not None else window_end, True, False)
    return Retry(n, at, False, False)


def window_end(start: datetime, duration: float | None) -> datetime | None:
    return None if duration is None else start + timedelta(seconds=duration)
