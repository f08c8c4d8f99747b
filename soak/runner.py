"""The run: the chaos mesh (no faults) with consumers, propagation and notifications,
every queue retaining what it served for SOAK_RETENTION seconds, load at SOAK_RATE,
sampled every SOAK_SAMPLE seconds into soak/results/, then the verdict."""

from __future__ import annotations

import asyncio
import csv
import json
import time
from datetime import UTC, datetime
from pathlib import Path

import asyncpg

from chaos.account import DESTINATIONS
from chaos.consume import Consumer
from chaos.load import Load
from chaos.mesh import AGENT, PASSWORD, Mesh
from chaos.services import Service
from chaos.settings import Settings as ChaosSettings

from .checks import Check, Series, verdict
from .sample import group_rss, tables
from .settings import Settings

RESULTS = Path(__file__).with_name("results")
RETAINED = {"src": ["chaos.inq", "chaos.local_in", "chaos.topic"], "dst": ["chaos.remote_in", "chaos.web_in"]}


async def retain(mesh: Mesh, seconds: int) -> None:
    for db, queues in RETAINED.items():
        conn = await asyncpg.connect(mesh.dsn(db))
        try:
            for q in queues:
                await conn.execute("CALL dbms_aqadm.alter_queue(queue_name => $1, retention_time => $2)",
                                   q, seconds)
        finally:
            await conn.close()


async def run(s: Settings) -> tuple[list[Check], Path]:
    # what pgaq keeps after delivery (notifications, propagation dedup keys) kept as long
    # as the queues' retention, so an hour shows them bounded rather than filling
    keep = str(s.retention)
    mesh = Mesh(ChaosSettings(), env={"PGAQ_NOTIFY_KEEP_DELIVERED": keep, "PGAQ_PROPAGATED_KEEP": keep,
                                           "PGAQ_HISTORY_KEEP": keep})
    rows: list[dict[str, object]] = []
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    try:
        await mesh.start()
        # the destination database needs its own monitor, or its retained messages stay
        monitor_b = Service("monitor_b", "pgaq_services.monitor",
                            {"PGAQ_LOG_LEVEL": "ERROR", "PGAQ_DSN": mesh.dsn("dst"), **mesh.env})
        mesh.services[monitor_b.name] = monitor_b
        await monitor_b.launch()
        await retain(mesh, s.retention)
        consumers = [Consumer(mesh.dsn(db), q, d) for d, (db, q, _) in DESTINATIONS.items()]
        eating = [asyncio.ensure_future(c.run()) for c in consumers]
        t0 = time.monotonic()

        async def pace(done: float) -> None:  # steady: the share done by now, no sooner
            await asyncio.sleep(max(0.0, t0 + done * s.seconds - time.monotonic()))

        batch = max(1, min(50, int(s.rate)))
        load = Load(mesh.url_a, AGENT, PASSWORD, int(s.rate * s.seconds), batch=batch, workers=2, pace=pace)
        loading = asyncio.ensure_future(load.run())
        print(f"soak: {s.rate:g} msg/s for {s.seconds:g}s, sample every {s.sample:g}s, "
              f"retention {s.retention}s", flush=True)
        while True:
            t = time.monotonic() - t0
            at = round(t, 1)
            for name, svc in mesh.services.items():
                if svc.proc is not None:
                    rows.append({"t": at, "kind": "rss", "name": name, "value": group_rss(svc.proc.pid)})
            for db in ("src", "dst"):
                for r in await tables(mesh.dsn(db), db):
                    rows.append({"t": at, "kind": "bytes", "name": r["table"], "value": r["bytes"]})
                    rows.append({"t": at, "kind": "dead", "name": r["table"], "value": r["dead"]})
                    rows.append({"t": at, "kind": "live", "name": r["table"], "value": r["live"]})
                    rows.append({"t": at, "kind": "last_autovacuum", "name": r["table"],
                                 "value": r["last_autovacuum"]})
            sent = sum(len(v) for v in load.ledger.acked.values())
            print(f"  t={t:6.0f}s sent {sent} dequeued {sum(c.count for c in consumers)}", flush=True)
            if t >= s.seconds:
                break
            await asyncio.sleep(min(s.sample, max(0.0, s.seconds - t)))
        ledger = await loading
        if ledger.faults:
            print(f"soak: {len(ledger.faults)} requests refused, last {ledger.faults[-1]}", flush=True)
        for c in consumers:
            c.stop.set()
        await asyncio.gather(*eating)
    finally:
        await mesh.stop()
    out = write(rows, stamp)
    return judge(rows, s), out


def write(rows: list[dict[str, object]], stamp: str) -> Path:
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"{stamp}.csv"
    with out.open("w", newline="") as f:
        w = csv.DictWriter(f, ["t", "kind", "name", "value"])
        w.writeheader()
        w.writerows(rows)
    return out


def series(rows: list[dict[str, object]], kind: str) -> dict[str, Series]:
    out: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        if r["kind"] == kind and isinstance(r["value"], (int, float)) and isinstance(r["t"], float):
            out.setdefault(str(r["name"]), []).append((r["t"], float(r["value"])))
    return dict(out)


def judge(rows: list[dict[str, object]], s: Settings) -> list[Check]:
    return verdict(series(rows, "rss"), series(rows, "bytes"), series(rows, "dead"),
                   max_mib_per_hour=s.max_mib_per_hour, tolerance=s.tolerance,
                   size_slack=s.size_slack, dead_slack=s.dead_slack, live=series(rows, "live"))


def summary(checks: list[Check], rows_file: Path) -> dict[str, object]:
    return {"file": str(rows_file), "passed": all(c.ok for c in checks),
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in checks]}


def save_summary(checks: list[Check], rows_file: Path) -> None:
    rows_file.with_suffix(".json").write_text(json.dumps(summary(checks, rows_file), indent=1))
