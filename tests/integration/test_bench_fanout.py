"""`make bench`'s fanout suite (bench/fanout_bench.py, issue 35) runs in a tiny
configuration and measures what it says: every subscriber count gets its publish, drain
and storage rows, every waiter stream is taken whole and exactly once by each kind of
waiter, and only the last point of each curve is scored. Its figures are not asserted
here (the bench prints them beside their targets)."""

from __future__ import annotations

import asyncpg
import pytest

from bench import fanout_bench
from bench.settings import Settings


def _tiny(monkeypatch: pytest.MonkeyPatch, **env: str) -> Settings:
    for name, value in {"BENCH_FANOUT_SUBSCRIBERS": "1,3", "BENCH_FANOUT_MESSAGES": "40",
                        "BENCH_FANOUT_RULES": "2", "BENCH_FANOUT_WAITERS": "2,5",
                        "BENCH_FANOUT_BACKLOG": "600",
                        "BENCH_FANOUT_STREAM": "1", "BENCH_FANOUT_SECONDS": "0.5",
                        "BENCH_FANOUT_RATE": "100", "BENCH_WARMUP": "0",
                        "BENCH_CONCURRENCY": "2", **env}.items():
        monkeypatch.setenv(name, value)  # read once, by bench.settings
    return Settings()


async def test_the_subscriber_curve(db_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    s = _tiny(monkeypatch, BENCH_FANOUT_WAITERS="")
    rows = await fanout_bench.run(db_dsn, db_dsn, s)
    names = [r["benchmark"] for r in rows]
    assert names == ["F1. publish 1/txn, 1 subscriber", "F1. publish 1/txn, 3 subscribers",
                     "F2. one subscriber drains (batch 100), 1 subscriber",
                     "F2. one subscriber drains (batch 100), 3 subscribers",
                     "F3. storage per message (B), 1 subscriber",
                     "F3. storage per message (B), 3 subscribers",
                     "F5. one subscriber drains a backlog of 600, 1 subscriber",
                     "F5. one subscriber drains a backlog of 600, 3 subscribers",
                     "F4. publish 1/txn, 2 subscribers with a rule each"]
    scored = [r for r in rows if not r.get("context")]
    assert [r["benchmark"][:3] for r in scored] == ["F1.", "F2.", "F3."]  # the last points
    for r in rows:
        assert r["pgaq"] > 0 and r["floor"] > 0
    drains = [r for r in rows if r["benchmark"].startswith("F2.")]
    assert all("all 40 messages" in r["note"] for r in drains)  # S1 took each message once
    backlogs = [r for r in rows if r["benchmark"].startswith("F5.")]
    assert all("(600 taken" in r["note"] for r in backlogs)
    f1 = scored[0]
    assert f1["pass"] == (f1["ratio"] >= fanout_bench.PUBLISH_TARGET)
    f3 = scored[2]
    assert f3["pass"] == (f3["ratio"] <= fanout_bench.STORAGE_TARGET)
    admin = await asyncpg.connect(db_dsn)
    try:  # every topic it made is gone again
        assert not await admin.fetchval(
            "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'fo\\_%'")
    finally:
        await admin.close()


@pytest.mark.parametrize("kind", ["library", "jms", "idap"])
async def test_each_waiter_stream_is_taken_whole(db_dsn: str, monkeypatch: pytest.MonkeyPatch,
                                                 kind: str) -> None:
    s = _tiny(monkeypatch, BENCH_FANOUT_SUBSCRIBERS="", BENCH_FANOUT_KINDS=kind)
    rows = await fanout_bench.run(db_dsn, db_dsn, s)
    # IDAP's curve is followed by its floor's (a bare long-poll), context only
    floors = [r for r in rows if r["benchmark"].startswith("W2f.")]
    assert len(floors) == (2 if kind == "idap" else 0)
    assert all(r.get("context") and r["pass"] for r in floors)
    rows = [r for r in rows if r not in floors]
    assert [r["benchmark"].split(": ")[0].split(", ")[-1] for r in rows] == ["2 waiting",
                                                                              "5 waiting"]
    for r in rows + floors:
        assert r["offered"] > 20  # 100 msg/s offered for a second
        assert r["missing"] == 0
        assert "TAKEN TWICE" not in r["note"]
        assert r["pgaq"] > 0  # PostgreSQL spent CPU on the messages
    last = rows[-1]
    assert not last.get("context") and rows[0].get("context")
    assert last["pass"] == (last["ratio"] <= fanout_bench.CPU_TARGET
                            and last["pgaq_p99_ms"] <= fanout_bench.P99_TARGET)
