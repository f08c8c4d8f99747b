"""Run the public harness's chaos scenarios and pressure cells against pgaq, without Docker.

The harness (postgresql-job-queue-benchmarking, checked out at PGAQ_HARNESS_DIR, default
../shared/harness) starts PostgreSQL with `docker compose` and its adapters with
`docker run`. This launcher drives the harness's own orchestrator in place
(`bench_harness.orchestrator.drive`: its phases, hooks, pacer, metrics daemon, wait-event
sampler, summary and chaos aggregates) with four things swapped:

- PostgreSQL: a private cluster started here with `pgaq.embedded.Cluster` (durable, the
  harness's postgres.conf settings), or an existing one (`--dsn`, a superuser DSN; the
  postgres-restart cell then needs `--pgdata` to stop and start it with pg_ctl);
- `postgres-restart`: `pg_ctl stop -m fast` for the first half of the phase, start for the
  second (the harness: `docker compose stop` / `start`);
- the adapter registry gains `pgaq`: bench/harness/adapter.json, launched natively as
  `python -m bench.harness.pgaq_adapter` (the harness's own env, `_base_env`);
- results go to --results (default bench/harness/results/<UTC stamp>/), and plots are
  skipped when matplotlib is not installed.

Cells (from the harness: chaos = `phases.SCENARIOS[...]` and the rates / replicas of
scripts/run_full_sweep.sh phase B; pressure = its phase C phase strings, rates and worker
counts). `--scale F` multiplies every phase's duration (warmup included; at least 10 s).

    .venv/bin/python -m bench.harness.run_harness --scale 0.5 --cells all
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_HARNESS = REPO.parent / "shared" / "harness"


@dataclass(frozen=True)
class Cell:
    name: str  # as in the published SUMMARY.md
    kind: str  # chaos | pressure
    phases: tuple[str, ...]  # the harness's phase specs, label=type:duration
    rate: int
    replicas: int = 1
    workers: int = 32


PRESSURE_PHASES = {
    # scripts/run_full_sweep.sh phase_c: idle_phases, hl_phases, rd_phases, burst_phases
    "idle_in_tx": ("warmup=warmup:30s", "clean_1=clean:60s", "idle_1=idle-in-tx:240s",
                   "recovery_1=clean:180s"),
    "sustained_high_load": ("warmup=warmup:30s", "clean_1=clean:60s",
                            "pressure_1=high-load:240s", "recovery_1=clean:120s"),
    "active_readers": ("warmup=warmup:30s", "clean_1=clean:60s",
                       "readers_1=active-readers:240s", "recovery_1=clean:120s"),
    "event_burst": ("warmup=warmup:30s", "clean_1=clean:60s", "pressure_1=high-load:300s",
                    "recovery_1=clean:240s"),
}


def cells(scenarios: dict[str, list[str]]) -> list[Cell]:
    out: list[Cell] = []
    # phase B: 1 replica at 600/s; 2 replicas at 300/s each (worker count: the default 32)
    for name in ("chaos_postgres_restart", "chaos_pg_backend_kill", "chaos_pool_exhaustion"):
        out.append(Cell(name.removeprefix("chaos_"), "chaos", tuple(scenarios[name]), 600))
    for name in ("chaos_crash_recovery", "chaos_repeated_kills"):
        out.append(Cell(name.removeprefix("chaos_"), "chaos", tuple(scenarios[name]), 300, 2))
    # phase C: 800/s with 32 workers, the burst 1,200/s with 64
    for name in ("idle_in_tx", "sustained_high_load", "active_readers"):
        out.append(Cell(name, "pressure", PRESSURE_PHASES[name], 800))
    out.append(Cell("event_burst", "pressure", PRESSURE_PHASES["event_burst"], 1200, 1, 64))
    return out


def scaled(spec: str, factor: float) -> str:
    head, duration = spec.rsplit(":", 1)
    unit = {"s": 1, "m": 60, "h": 3600}.get(duration[-1], 1)
    seconds = float(duration.rstrip("smh")) * unit
    # a repeated-kill period scales with its phase
    if "period=" in head:
        pre, _, rest = head.partition("period=")
        value, _, post = rest.partition(")")
        p_unit = {"s": 1, "m": 60}.get(value[-1], 1)
        period = max(5, round(float(value.rstrip("sm")) * p_unit * factor))
        head = f"{pre}period={period}s){post}"
    return f"{head}:{max(10, round(seconds * factor))}s"


def with_db(dsn: str, dbname: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit((parts.scheme, parts.netloc, "/" + dbname, parts.query, parts.fragment))


class LocalPostgres:
    """The cluster the harness believes is its compose service."""

    def __init__(self, dsn: str | None, pgdata: str | None, harness: Path) -> None:
        self.cluster: Any = None
        self._base: Path | None = None
        self.dsn = dsn or ""
        self.pgdata = pgdata
        self.harness = harness

    def settings(self) -> dict[str, str]:
        """The harness's postgres.conf, as given (listen_addresses excepted)."""
        out: dict[str, str] = {}
        for line in (self.harness / "postgres.conf").read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if "=" in line:
                k, v = (x.strip() for x in line.split("=", 1))
                if k != "listen_addresses":
                    plain = v.replace(".", "").isdigit() or v in ("on", "off")
                    out[k] = v if plain else f"'{v.strip(chr(39))}'"
        return out

    def start(self) -> None:
        if self.dsn:
            return
        from pgaq.embedded import Cluster

        self._base = Path(tempfile.mkdtemp(prefix="pgaq-harness-"))
        os.chmod(self._base, 0o755)  # as root the server runs as `postgres`
        self.cluster = Cluster(self._base / "cluster", durable=True, settings=self.settings())
        self.cluster.init()
        self.cluster.start()
        self.dsn = self.cluster.dsn("postgres")

    def stop_server(self) -> None:
        if self.cluster is not None:
            self.cluster.stop("fast")
        elif self.pgdata:
            subprocess.run(["pg_ctl", "-D", self.pgdata, "stop", "-m", "fast"], check=False)
        else:
            raise RuntimeError("postgres-restart needs the cluster started here or --pgdata")

    def start_server(self) -> None:
        if self.cluster is not None:
            self.cluster.start()
        elif self.pgdata:
            subprocess.run(["pg_ctl", "-D", self.pgdata, "start", "-w"], check=True)
        self.wait_ready()

    def wait_ready(self) -> None:
        import psycopg

        last: Exception | None = None
        for _ in range(60):
            try:
                with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.Error as exc:
                last = exc
                time.sleep(0.5)
        raise RuntimeError(f"PostgreSQL did not come back: {last}")

    def url(self, dbname: str, host: str = "localhost") -> str:
        return with_db(self.dsn, dbname)

    def destroy(self) -> None:
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.destroy()
        if self._base is not None:
            shutil.rmtree(self._base, ignore_errors=True)


def install(harness: Path, pg: LocalPostgres, results: Path) -> Any:
    """Import the harness in place and point it at `pg`; returns its orchestrator."""
    sys.path.insert(0, str(harness))
    if importlib.util.find_spec("matplotlib") is None:
        # the plots only: stand their module in with one that draws nothing
        import types

        plots = types.ModuleType("bench_harness.plots")
        plots.render_all = lambda *a, **k: None  # type: ignore[attr-defined]
        sys.modules["bench_harness.plots"] = plots
    from bench_harness import adapters, orchestrator  # type: ignore[import-not-found]

    adapters.pg_url = pg.url
    orchestrator.pg_url = pg.url
    orchestrator.start_postgres = lambda image: pg.wait_ready()
    orchestrator.stop_postgres = lambda image: None
    orchestrator._compose_stop_postgres = lambda image: pg.stop_server()
    orchestrator._compose_start_postgres = lambda image: pg.start_server()

    def restart(image: str) -> None:
        pg.stop_server()
        pg.start_server()

    orchestrator._restart_postgres = restart
    orchestrator.RESULTS_ROOT = results

    def launch(manifest: Any, overrides: dict[str, str]) -> Any:
        env = adapters._base_env(manifest, overrides)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
        env.update({k: v for k, v in os.environ.items() if k.startswith("PGAQ_ADAPTER_")})
        return adapters.LaunchSpec(argv=[sys.executable, "-m", "bench.harness.pgaq_adapter"],
                                   env=env, cwd=str(REPO))

    adapters.ADAPTERS["pgaq"] = adapters.AdapterEntry(
        bench_dir=HERE, builder=lambda skip: None, launcher=launch)
    orchestrator.ADAPTERS["pgaq"] = adapters.ADAPTERS["pgaq"]
    return orchestrator


KEEP = ("median_throughput_per_s", "median_enqueue_rate_per_s", "median_claim_p99_ms",
        "median_queue_depth", "peak_dead_tup", "jobs_enqueued", "jobs_completed", "jobs_lost",
        "chaos_recovery_time_s", "recovery_halflife_s", "recovery_to_baseline_s")


def phase_figures(summary: dict[str, Any]) -> dict[str, Any]:
    """Per phase, the harness's own summary figures (replicas summed)."""
    system = (summary.get("systems") or {}).get("pgaq") or {}
    out: dict[str, Any] = {}
    for label, phase in (system.get("phases") or {}).items():
        row = {"type": phase.get("phase_type")}
        row.update({k: phase[k] for k in KEEP if phase.get(k) is not None})
        depth = (phase.get("metrics") or {}).get("queue_depth") or {}
        if depth.get("peak") is not None:
            row["peak_queue_depth"] = depth["peak"]
        out[label] = row
    return out


def ratios(cell: Cell, figures: dict[str, Any]) -> dict[str, float | None]:
    """The published ratios: chaos, recovery / baseline completion rate; pressure, stress /
    clean completion rate (and recovery / clean beside it)."""
    def rate(label: str) -> float | None:
        v = (figures.get(label) or {}).get("median_throughput_per_s")
        return float(v) if v is not None else None

    def div(a: float | None, b: float | None) -> float | None:
        return None if a is None or not b else round(a / b, 3)

    if cell.kind == "chaos":
        return {"recovery_over_baseline": div(rate("recovery") or rate("restart"),
                                              rate("baseline"))}
    stress = next((lbl for lbl in ("idle_1", "pressure_1", "readers_1") if lbl in figures), None)
    return {"stress_over_clean": div(rate(stress) if stress else None, rate("clean_1")),
            "recovery_over_clean": div(rate("recovery_1"), rate("clean_1"))}


@contextlib.contextmanager
def env(values: dict[str, str]) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


AUDIT = """SELECT (SELECT count(*) FROM pgaq_bench.jobs_qt) AS left_in_queue,
  (SELECT count(DISTINCT job) FROM pgaq_bench.audit_enqueued) AS enqueued,
  (SELECT count(*) FROM pgaq_bench.audit_acked) AS acknowledgements,
  (SELECT count(*) FROM (SELECT job FROM pgaq_bench.audit_acked GROUP BY job
                         HAVING count(*) > 1) d) AS acknowledged_twice,
  (SELECT count(*) FROM pgaq_bench.audit_enqueued e WHERE NOT EXISTS
     (SELECT 1 FROM pgaq_bench.audit_acked a WHERE a.job = e.job)) AS not_acknowledged"""


def accounting(pg: LocalPostgres) -> dict[str, Any]:
    """What is left in the queue; with PGAQ_ADAPTER_AUDIT=1, the exact count of jobs
    enqueued, acknowledged twice, and neither acknowledged nor left (lost)."""
    import psycopg

    out: dict[str, Any] = {}
    try:
        with psycopg.connect(pg.url("pgaq_bench"), autocommit=True) as conn:
            row = conn.execute("SELECT count(*) FROM pgaq_bench.jobs_qt").fetchone()
            out["left_in_queue"] = int(row[0]) if row else None
            if conn.execute("SELECT to_regclass('pgaq_bench.audit_acked')").fetchone() != (None,):
                cur = conn.execute(AUDIT)
                names = [d.name for d in cur.description or []]
                values = cur.fetchone() or ()
                audit = dict(zip(names, (int(v) for v in values), strict=True))
                # a job neither acknowledged nor still queued is lost
                audit["lost"] = audit["not_acknowledged"] - audit["left_in_queue"]
                out["audit"] = audit
    except psycopg.Error as exc:
        out["accounting_error"] = str(exc)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--harness", default=os.environ.get("PGAQ_HARNESS_DIR", str(DEFAULT_HARNESS)))
    ap.add_argument("--cells", default="all", help="comma-separated cell names, chaos, pressure or all")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every phase duration")
    ap.add_argument("--rate-scale", type=float, default=1.0, help="multiply every producer rate")
    ap.add_argument("--dsn", default=None, help="an existing cluster (superuser), instead of a private one")
    ap.add_argument("--pgdata", default=None, help="its data directory (for the postgres-restart cell)")
    ap.add_argument("--results", default=None)
    args = ap.parse_args(argv)
    # SIGTERM unwinds like Ctrl-C: the adapter is stopped and the private cluster removed
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))

    harness = Path(args.harness).resolve()
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    results = Path(args.results) if args.results else HERE / "results" / stamp
    results.mkdir(parents=True, exist_ok=True)
    pg = LocalPostgres(args.dsn, args.pgdata, harness)
    pg.start()
    try:
        orch = install(harness, pg, results)
        from bench_harness.phases import SCENARIOS, parse_phase_spec  # type: ignore[import-not-found]

        wanted = set(args.cells.split(","))
        todo = [c for c in cells(SCENARIOS)
                if "all" in wanted or c.name in wanted or c.kind in wanted]
        report: list[dict[str, Any]] = []
        out_file = results / "pgaq_cells.json"
        for cell in todo:
            specs = [scaled(s, args.scale) for s in cell.phases]
            phases = [parse_phase_spec(s) for s in specs]
            rate = max(1, round(cell.rate * args.rate_scale))
            print(f"[pgaq-harness] {cell.name}: {' '.join(specs)} rate={rate} "
                  f"replicas={cell.replicas} workers={cell.workers}", file=sys.stderr, flush=True)
            started = time.time()
            entry: dict[str, Any] = {"cell": cell.name, "kind": cell.kind, "phases": specs,
                                     "rate": rate, "replicas": cell.replicas,
                                     "workers": cell.workers}
            try:
                with env({"PRODUCER_BATCH_MAX": os.environ.get("PRODUCER_BATCH_MAX", "128")}):
                    run_dir = orch.drive(
                        systems=["pgaq"], scenario=f"pgaq_{cell.name}", phases=phases,
                        pg_image="local", fast=True, skip_build=True, sample_every_s=5,
                        producer_rate=rate, producer_mode="fixed", target_depth=1000,
                        worker_count=cell.workers, high_load_multiplier=1.5,
                        awa_completion_batch_size=None, replicas=cell.replicas,
                        cli_args=list(sys.argv))
                summary = json.loads((Path(run_dir) / "summary.json").read_text())
                figures = phase_figures(summary)
                entry.update(rc=0, run_dir=str(run_dir), ratios=ratios(cell, figures),
                             phases_summary=figures)
            except Exception as exc:  # a cell that fails is reported, the next one runs
                entry.update(rc=1, error=f"{type(exc).__name__}: {exc}")
                print(f"[pgaq-harness] {cell.name} failed: {exc}", file=sys.stderr, flush=True)
            entry.update(accounting(pg))
            entry["seconds"] = round(time.time() - started, 1)
            report.append(entry)
            out_file.write_text(json.dumps(report, indent=2, default=str))
        print(json.dumps(report, indent=2, default=str))
    finally:
        pg.destroy()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
