"""Hypothesis profiles for the fuzz suite.

`make test` runs the bounded profile (the whole directory in about a minute and a half on
two cores); `make fuzz` sets PGAQ_FUZZ_EXAMPLES high to run the same properties long.
A per-example deadline turns a slow path into a failure; pytest-timeout catches a real hang.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from datetime import timedelta
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("PGAQ_FUZZ_EXAMPLES", "0") or 0)

settings.register_profile(
    "pgaq-fuzz",
    max_examples=EXAMPLES or 100,
    deadline=timedelta(seconds=5),
    derandomize=not EXAMPLES,  # bounded runs are reproducible; long runs explore
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.data_too_large, HealthCheck.large_base_example],
    print_blob=True,
)


# pytest-timeout per property: a hang fails the bounded run; long runs get an hour
TIMEOUT = 3600 if EXAMPLES else 60


def fuzz(bounded: int) -> settings:
    """Settings for one property: its bounded share of examples in `make test`, the
    PGAQ_FUZZ_EXAMPLES knob when set (kept per test, so other suites' profiles stay as they are)."""
    return settings(settings.get_profile("pgaq-fuzz"), max_examples=EXAMPLES or bounded)


T = TypeVar("T")


class Bridge:
    """Hypothesis drives a state machine synchronously, in a worker thread; its rules run
    their coroutines on the test's event loop through `call`."""

    loop: asyncio.AbstractEventLoop

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(60)
