"""The fanout suite's Java waiters (bench/fanout_bench.py W4, java/bench/pgaq/bench/
WaitersBench.java) in a tiny configuration: each stream is taken whole and exactly once by
the JVM's listeners. The figures are not asserted here (the bench prints them beside their
targets)."""

from __future__ import annotations

import pytest

from bench import fanout_bench
from bench.settings import Settings


@pytest.mark.timeout(600)
async def test_the_java_waiter_stream_is_taken_whole(db_dsn: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"BENCH_FANOUT_SUBSCRIBERS": "", "BENCH_FANOUT_KINDS": "java",
                        "BENCH_FANOUT_WAITERS": "2,5", "BENCH_FANOUT_STREAM": "1",
                        "BENCH_FANOUT_RATE": "100", "BENCH_WARMUP": "0",
                        "BENCH_CONCURRENCY": "2"}.items():
        monkeypatch.setenv(name, value)  # read once, by bench.settings
    monkeypatch.setattr(fanout_bench, "JAVA_WARM", 20)
    rows = await fanout_bench.run(db_dsn, db_dsn, Settings())
    assert [r["benchmark"].split(": ")[0].split(", ")[-1] for r in rows] == ["2 waiting",
                                                                              "5 waiting"]
    assert all("Java pgaq.jms" in r["benchmark"] for r in rows)
    for r in rows:
        assert r["offered"] > 20  # 100 msg/s offered for a second
        assert r["missing"] == 0
        assert "TAKEN TWICE" not in r["note"]
        assert r["pgaq"] > 0
