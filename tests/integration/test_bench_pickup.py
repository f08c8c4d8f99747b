"""`make bench`'s pickup-latency row (bench/pickup_bench.py) measures what it says: every
message a producer committed is taken by a waiting consumer exactly once, and each
latency runs from the producer's commit to the consumer's hold. Its figures are not
asserted here (the bench prints them beside their target)."""

from __future__ import annotations

import asyncpg
import pytest

from bench import pickup_bench
from bench.settings import Settings


async def _setup(db_dsn: str) -> None:
    admin = await asyncpg.connect(db_dsn)
    try:
        await admin.execute(pickup_bench.SETUP)
    finally:
        await admin.close()


async def test_a_stream_is_taken_whole_by_waiting_consumers(db_dsn: str) -> None:
    await _setup(db_dsn)
    out = await pickup_bench.stream(db_dsn, "pickup.q", 200.0, 1.0, 2, 2, 30)
    assert out["offered"] > 50  # 200 msg/s offered for a second
    assert out["missing"] == 0
    assert len(out["latencies"]) == out["offered"]
    assert all(x >= 0 for x in out["latencies"])
    admin = await asyncpg.connect(db_dsn)
    try:  # nothing left behind, nothing taken twice (a REMOVE cannot be)
        assert await admin.fetchval("SELECT count(*) FROM pickup.qt") == 0
    finally:
        await admin.close()


async def test_the_row_reports_its_target(db_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_PICKUP_RATE", "150")  # read once, by bench.settings
    monkeypatch.setenv("BENCH_SECONDS", "1")
    monkeypatch.setenv("BENCH_CONCURRENCY", "2")
    row = await pickup_bench.run(db_dsn, 10_000.0, Settings())
    assert row["benchmark"].startswith("8. pickup latency")
    assert row["target"] == "p50 <= 2, p99 <= 10"
    assert row["offered_rate"] > 50
    assert "NOT TAKEN" not in row["note"]
    assert row["pass"] == (row["pgaq"] <= 2 and row["pgaq_p99_ms"] <= 10)
