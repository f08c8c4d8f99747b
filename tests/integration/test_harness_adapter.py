"""bench/harness/pgaq_adapter.py over the harness's JSONL protocol: a few hundred jobs paced
by `ENQUEUE <n>` lines on stdin, each acknowledged exactly once (as the adapter reports it
and as its audit tables record it), the samples and the descriptor as the harness reads
them, and a clean exit on SIGTERM."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import asyncpg

REPO = Path(__file__).resolve().parents[2]
REQUIRED = {"claim_p50_ms", "claim_p95_ms", "claim_p99_ms", "enqueue_rate",
            "completion_rate", "queue_depth"}
JOBS = 300


async def test_every_job_is_acknowledged_once(db_dsn: str) -> None:
    env = {**os.environ, "DATABASE_URL": db_dsn, "SCENARIO": "long_horizon",
           "PRODUCER_MODE": "fixed", "PRODUCER_PACING": "harness", "PRODUCER_RATE": "300",
           "PRODUCER_BATCH_MAX": "64", "WORKER_COUNT": "8", "JOB_WORK_MS": "1",
           "JOB_PAYLOAD_BYTES": "256", "SAMPLE_EVERY_S": "1", "BENCH_INSTANCE_ID": "0",
           "PGAQ_ADAPTER_TRACE": "1", "PGAQ_ADAPTER_AUDIT": "1",
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.harness.pgaq_adapter", cwd=REPO, env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    records: list[dict[str, Any]] = []
    enqueued: list[str] = []
    acked: list[str] = []

    async def read_until(done: Any, seconds: float) -> None:
        assert proc.stdout is not None
        deadline = time.monotonic() + seconds
        while not done():
            left = deadline - time.monotonic()
            assert left > 0, f"timed out: {len(enqueued)} enqueued, {len(acked)} acked"
            line = await asyncio.wait_for(proc.stdout.readline(), left)
            assert line, "the adapter closed its stdout"
            rec = json.loads(line)
            records.append(rec)
            if rec.get("kind") == "pgaq_enqueued":
                enqueued.extend(rec["ids"])
            elif rec.get("kind") == "pgaq_acked":
                acked.extend(rec["ids"])

    try:
        await read_until(lambda: any(r.get("kind") == "descriptor" for r in records), 60)
        # the pacer's tokens: 300 jobs in tokens of 100 (split at PRODUCER_BATCH_MAX)
        for _ in range(JOBS // 100):
            proc.stdin.write(b"ENQUEUE 100\n")
        proc.stdin.write(b"not a token\n")
        await proc.stdin.drain()
        await read_until(lambda: len(acked) >= JOBS, 60)
        # a late duplicate would show within a few samples
        samples_now = sum(r.get("kind") == "adapter" for r in records)
        await read_until(
            lambda: sum(r.get("kind") == "adapter" for r in records) >= samples_now + 14, 15)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        rest, _ = await asyncio.wait_for(proc.communicate(), 10)
    assert proc.returncode == 0
    for line in rest.splitlines():
        rec = json.loads(line)
        records.append(rec)
        if rec.get("kind") == "pgaq_acked":
            acked.extend(rec["ids"])

    descriptor = records[0]
    assert descriptor["kind"] == "descriptor" and descriptor["system"] == "pgaq"
    manifest = json.loads((REPO / "bench/harness/adapter.json").read_text())
    assert set(descriptor["event_tables"]) >= set(manifest["event_tables"])
    assert descriptor["db_name"] == db_dsn.rsplit("/", 1)[-1]

    assert len(enqueued) == JOBS and len(set(enqueued)) == JOBS
    counts = Counter(acked)
    assert set(counts) == set(enqueued), "a job enqueued was never acknowledged, or the reverse"
    assert [j for j, n in counts.items() if n != 1] == [], "a job acknowledged twice"

    samples = [r for r in records if r.get("kind") == "adapter"]
    assert REQUIRED <= {s["metric"] for s in samples}
    for s in samples:
        assert s["system"] == "pgaq" and s["subject_kind"] == "adapter"
        assert isinstance(s["value"], (int, float))
    assert sum(s["value"] for s in samples if s["metric"] == "completion_rate") > 0

    conn = await asyncpg.connect(db_dsn)
    try:
        assert await conn.fetchval("SELECT count(*) FROM pgaq_bench.jobs_qt") == 0
        # the audit the launcher counts: the same jobs, each recorded once on each side
        for table in ("audit_enqueued", "audit_acked"):
            jobs = [r["job"] for r in await conn.fetch(f"SELECT job FROM pgaq_bench.{table}")]
            assert sorted(jobs) == sorted(enqueued), table
    finally:
        await conn.close()
