"""The pressure cells of `make pressure`, short (docs/chaos.md, "Pressure cells"): every
cell runs its load and its fault (backends terminated, every connection of the role
taken, xmin pinned, REPEATABLE READ readers, a surge and a burst), prints its figures and
verdict, and accounts for every message id: none lost, none duplicated. The throughput and
latency rules are reported, not enforced (PRESSURE_STRICT=0: two shared cores are too
noisy for them); recovery is enforced: every client back, the backlog drained, the dead
rows reclaimed. The kill and idle cells carry a topic (200 subscribers here, 1,000 in
`make pressure`) whose accounting is enforced the same way."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from tests.e2e.support import driver_output

ROOT = Path(__file__).resolve().parents[2]
CELLS = ("kill", "exhaust", "idle", "readers", "surge")
# a low rate: the surge (1.5x) and the burst must drain on two cores other tests share
SHORT = {
    "PRESSURE_RATE": "60", "PRESSURE_WARMUP": "2", "PRESSURE_CLEAN": "5",
    "PRESSURE_KILL_SECONDS": "6", "PRESSURE_HOLD": "5", "PRESSURE_CONNECT_TIMEOUT": "3",
    "PRESSURE_IDLE_SECONDS": "15", "PRESSURE_VACUUM_WAIT": "20", "PRESSURE_READERS_SECONDS": "8",
    "PRESSURE_SURGE_SECONDS": "6", "PRESSURE_BURST": "3000", "PRESSURE_DRAIN_TIMEOUT": "120",
    "PRESSURE_STRICT": "0", "PRESSURE_TOPIC_SUBSCRIBERS": "200", "PRESSURE_TOPIC_RATE": "10",
}


@pytest.mark.slow
@pytest.mark.timeout(420)
async def test_every_pressure_cell_reports_and_accounts_for_every_message() -> None:
    status, text = await driver_output([sys.executable, "-m", "pressure"], {**os.environ, **SHORT},
                                       400, cwd=ROOT)
    print(text)
    assert status == 0, text[-4000:]
    assert "pressure: PASS" in text
    for cell in CELLS:
        assert f"pressure {cell}: PASS" in text, cell
        assert re.search(rf"pressure {cell}: accounting: [1-9]\d* acknowledged.*; lost 0, duplicated 0, "
                         r"unknown 0, left in the queue 0", text), cell
        assert re.search(rf"pressure {cell}: clean \d+\.\d msg/s", text), cell  # the figure held against
        assert re.search(rf"^pressure: {cell} +PASS +clean_rate=", text, re.M), cell  # the summary row
        assert f"pressure {cell}: rule" in text and f"pressure {cell}: rule 0 messages lost: ok" in text
    # recovery, enforced in every cell
    assert "pressure kill: rule recovered at all (≥ 95 % of clean, every client connected): ok" in text
    assert re.search(r"pressure kill: \d+ backends terminated", text)
    assert "pressure exhaust: rule the load's clients were refused, each with an ORA code: ok" in text
    assert "pressure exhaust: rule new pgaq clients refused with an ORA code within the timeout, none hung: ok" in text
    assert "pressure exhaust: rule every client back after the release: ok" in text
    assert re.search(r"pressure idle: growth while pinned: table [\d.]+ -> [\d.]+ MiB", text)
    assert "pressure idle: rule recovered: throughput back, dead rows reclaimed, the table grows no more: ok" in text
    assert "pressure readers: rule recovered at all: ok" in text
    assert "pressure surge: rule the backlog drained: ok" in text
    # the topic beside the kill and idle cells: every consuming subscriber got every message once,
    # every other subscriber still holds them all
    for cell in ("kill", "idle"):
        assert re.search(rf"pressure {cell}: topic clean: published \d+\.\d msg/s", text), cell
        assert re.search(rf"pressure {cell}: topic accounting: [1-9]\d* acknowledged.*; 4 consuming "
                         r"subscribers: lost 0, duplicated 0, unknown 0, left 0; 196 of 196 other "
                         r"subscribers hold all \d+ committed messages READY", text), cell
        for rule in ("0 messages lost by any consuming subscriber", "0 messages duplicated",
                     "the consuming subscribers drained", "every other subscriber holds every committed message"):
            assert f"pressure {cell}: rule topic: {rule}: ok" in text, (cell, rule)
    assert "pressure kill: rule topic: recovered at all (≥ 95 % of clean, every client connected): ok" in text
    assert re.search(r"pressure idle: topic storage while pinned: [\d.]+ -> [\d.]+ MiB", text)
