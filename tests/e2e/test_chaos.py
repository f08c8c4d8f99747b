"""The chaos run of `make chaos`, small: 1,000 messages through Send, Publish and the three
propagation paths and both notification kinds while every service is SIGKILLed twice,
PostgreSQL restarted, the remote link cut and both sinks failing; the driver accounts for
every id and exits non-zero on any violation."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.e2e.support import driver_output

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
# run beside the parallel phase's other workers: its rules are the accounts, not the clock
@pytest.mark.timeout(600)
async def test_chaos_accounts_for_every_message() -> None:
    status, text = await driver_output(
        [sys.executable, "-m", "chaos"],
        {**os.environ, "CHAOS_MESSAGES": "1000", "CHAOS_KILLS": "2", "CHAOS_SEED": "8",
         "CHAOS_DRAIN_TIMEOUT": "300"}, 580, cwd=ROOT)
    print(text)
    assert status == 0, text[-4000:]
    assert "VIOLATION" not in text
    assert "chaos: PASS" in text
    assert "blocked receivers woke: 3/3" in text
