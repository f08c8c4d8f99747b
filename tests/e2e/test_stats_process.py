"""The statistics job as people run it: the stats service (apscheduler, runs in child
processes), `pgaq stats run`, and `spark-submit services/stats/job.py` in local mode."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import asyncpg
import pyspark
import pytest
from pgaq.stats.settings import DEFAULT_JAR

from tests.e2e.spark_cluster import DRIVER_C1

ROOT = Path(__file__).resolve().parents[2]
# two JVM runs a test, each bounded by its own wait (300 s, 450 s for the service's two
# runs, the first of which writes the class-data archive: 298 s measured under a load of
# 12 on two cores; the parallel phase shares them with three other workers): pytest's
# 120 s default cut them short
pytestmark = pytest.mark.timeout(1000)


async def wait_runs(conn: asyncpg.Connection, runs: asyncio.Queue[int], n: int, timeout: float) -> list[int]:
    got = [await asyncio.wait_for(runs.get(), timeout) for _ in range(n)]
    assert await conn.fetchval("SELECT count(*) FROM aq_stats.runs WHERE status = 'DONE'") >= n
    return got


async def listen_runs(conn: asyncpg.Connection) -> asyncio.Queue[int]:
    runs: asyncio.Queue[int] = asyncio.Queue()
    await conn.add_listener("aq_stats_run", lambda *a: runs.put_nowait(int(a[3])))
    return runs


async def test_the_service_runs_the_job_on_its_schedule_and_stops_on_sigterm(
        db_dsn: str, tmp_path: Path) -> None:
    """Two scheduled runs, each a child process with a JVM of its own, and a stop. With a
    class-data folder of its own (cds.py): the first run records what its JVM loaded and,
    after its commit, has the JVM write the archive (no .part left behind); the next run
    maps it and writes nothing. (The scheduler starts a run only once the one before has
    exited, so the archive is complete before the second run starts.)"""
    import shutil

    conn = await asyncpg.connect(db_dsn)
    runs = await listen_runs(conn)
    await conn.execute(
        "INSERT INTO aq.propagation_log (schedule_id, queue_name, destination, window_start, started_at,"
        " finished_at, messages, bytes) VALUES (1, 'oe.out_q', 'oe.in_q', now() - interval '1 hour',"
        " now() - interval '2 minutes', now() - interval '119 seconds', 10, 1000)")
    env = {**os.environ, "PGAQ_DSN": db_dsn, "PGAQ_STATS_INTERVAL": "0.05", "PGAQ_STATS_FIRST_DELAY": "0",
           "PGAQ_STATS_LAG": "0", "PGAQ_STATS_CDS": str(tmp_path)}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "pgaq_services.stats", env=env)
    try:
        first, second = await wait_runs(conn, runs, 2, 450)
        assert second == first + 1
        assert await conn.fetchval("SELECT total_number FROM aq_stats.schedule_totals") == 10
        second_started = await conn.fetchval("SELECT started_at FROM aq_stats.runs WHERE id = $1", second)
    finally:
        proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 60)
        await conn.close()
    assert code == 0
    if shutil.which("jcmd") is None:
        return  # the job runs without an archive
    made = _files(tmp_path)  # after the stop: no run (the second, nor any later) wrote again
    assert len(made) == 1, made
    name, size, written_at = made[0]
    assert name.startswith("spark-") and name.endswith(".jsa") and size > 1_000_000
    assert written_at < second_started.timestamp() * 1e9, "the archive was written again"


async def test_pgaq_stats_run_and_spark_submit(db_dsn: str) -> None:
    conn = await asyncpg.connect(db_dsn)
    try:
        env = {**os.environ, "PGAQ_DSN": db_dsn, "PGAQ_STATS_LAG": "0"}
        cli = await asyncio.create_subprocess_exec(
            str(Path(sys.executable).parent / "pgaq"), "stats", "run", env=env, stdout=asyncio.subprocess.PIPE)
        out, _ = await asyncio.wait_for(cli.communicate(), 300)
        assert cli.returncode == 0
        lines = dict(line.split("=", 1) for line in out.decode().split())
        assert lines["RUN"] and lines["LOW"] == ""

        submit = await asyncio.create_subprocess_exec(
            str(Path(sys.executable).parent / "spark-submit"), "--master", "local[1]",
            "--jars", DEFAULT_JAR, "--driver-class-path", DEFAULT_JAR,
            "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.ui.enabled=false", *DRIVER_C1,
            str(ROOT / "services" / "stats" / "job.py"),
            env={**env, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_HOME": str(Path(pyspark.__file__).parent),
                 "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable},
            stdout=asyncio.subprocess.PIPE)
        out, _ = await asyncio.wait_for(submit.communicate(), 300)
        assert submit.returncode == 0
        again = dict(line.split("=", 1) for line in out.decode().split() if "=" in line)
        assert int(again["RUN"]) == int(lines["RUN"]) + 1 and again["LOW"] == lines["HIGH"]
    finally:
        await conn.close()


async def test_an_unreachable_database_fails_clearly_and_the_next_run_catches_up(db_dsn: str) -> None:
    from pgaq.embedded import free_port

    env = {**os.environ, "PGAQ_DSN": f"postgresql://postgres@127.0.0.1:{free_port()}/nowhere",
           "PGAQ_STATS_LAG": "0"}
    job = await asyncio.create_subprocess_exec(sys.executable, "-m", "pgaq_services.stats.job", env=env,
                                               stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(job.communicate(), 300)
    assert job.returncode == 1 and out == b""
    assert b"Traceback" not in err and b"level=ERROR" in err
    assert b"127.0.0.1" in err  # which database it could not reach


def _files(folder: Path) -> list[tuple[str, int, int]]:
    return sorted((e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in os.scandir(folder))
