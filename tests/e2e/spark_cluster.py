"""A standalone Spark cluster on loopback, as a user starts one beside pgaq: a master and
workers from the pyspark distribution's own `bin/spark-class`, every port on 127.0.0.1,
and `spark-submit --master spark://…` of the statistics job against it.

Readiness is the master's own word (its JSON status lists the workers ALIVE), not a
sleep. Used by tests/e2e/test_stats_cluster.py and bench/stats_modes.py."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pyspark
from pgaq.embedded import free_port
from pgaq.stats.settings import DEFAULT_JAR

ROOT = Path(__file__).resolve().parents[2]
SPARK_HOME = Path(pyspark.__file__).parent
JOB = ROOT / "services" / "stats" / "job.py"


def spark_env(**extra: str) -> dict[str, str]:
    """What every Spark process here runs with: this pyspark, this Python, loopback only."""
    return {**os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_NO_DAEMONIZE": "1", "PYSPARK_PYTHON": sys.executable,
            "PYSPARK_DRIVER_PYTHON": sys.executable, **extra}


@dataclass
class Cluster:
    url: str                # spark://127.0.0.1:port
    ui: str                 # the master's web UI (its /json/ status)
    workers: int
    cores_per_worker: int
    work: Path              # logs, and each worker's work folder (work0, work1, …)


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM to the process group the JVM leads (spark-class execs it), then SIGKILL."""
    if proc.returncode is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        await asyncio.wait_for(proc.wait(), 20)
    except TimeoutError:
        os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()


async def _alive_workers(http: aiohttp.ClientSession, ui: str) -> int:
    try:
        async with http.get(f"{ui}/json/") as r:
            if r.status != 200:
                return 0
            status = await r.json(content_type=None)
    except (aiohttp.ClientError, ValueError):
        return 0
    if status.get("status") != "ALIVE":
        return 0
    return sum(1 for w in status.get("workers", []) if w.get("state") == "ALIVE")


def _logs(work: Path) -> str:
    return "\n".join(f.read_text(errors="replace")[-2000:] for f in sorted(work.glob("*.log")))


@asynccontextmanager
async def standalone(workers: int = 2, cores_per_worker: int = 1, memory: str = "1g",
                     timeout: float = 90, daemon_java_options: str = "") -> AsyncIterator[Cluster]:
    """A master and `workers` workers on 127.0.0.1; yields once the master lists every
    worker ALIVE, and stops them all (their executors with them) on the way out.
    `daemon_java_options` are the master's and workers' JVM options (SPARK_DAEMON_JAVA_OPTS;
    their executors take the job's own)."""
    work = Path(tempfile.mkdtemp(prefix="pgaq-spark-"))
    port, ui_port = free_port(), free_port()
    env = spark_env(SPARK_LOG_DIR=str(work / "logs"), SPARK_WORKER_DIR=str(work / "work"))
    if daemon_java_options:
        env["SPARK_DAEMON_JAVA_OPTS"] = daemon_java_options
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    procs: list[asyncio.subprocess.Process] = []
    logs = []

    async def start(name: str, *args: str) -> None:
        log = await asyncio.to_thread(open, work / f"{name}.log", "wb")
        logs.append(log)
        procs.append(await asyncio.create_subprocess_exec(
            spark_class, *args, env=env, stdout=log, stderr=log, start_new_session=True))

    try:
        await start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                    "--port", str(port), "--webui-port", str(ui_port))
        url, ui = f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{ui_port}"
        for i in range(workers):
            await start(f"worker{i}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                        "--port", str(free_port()), "--webui-port", str(free_port()),
                        "--cores", str(cores_per_worker), "--memory", memory,
                        "--work-dir", str(work / f"work{i}"), url)
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as http:
            while await _alive_workers(http, ui) < workers:
                dead = [p for p in procs if p.returncode is not None]
                if dead or time.monotonic() > deadline:
                    raise AssertionError(f"the Spark cluster did not come up: {await asyncio.to_thread(_logs, work)}")
                await asyncio.sleep(0.2)
        yield Cluster(url, ui, workers, cores_per_worker, work)
    finally:
        for proc in reversed(procs):  # workers first: the master outlives its workers
            await _stop(proc)
        for log in logs:
            log.close()
        shutil.rmtree(work, ignore_errors=True)


#: the driver's JVM options docs/statistics.md gives spark-submit (C1 only): the tests pass
#: them through `conf`; bench/stats_modes.py's figures were taken without them
DRIVER_C1 = ("--driver-java-options", "-XX:TieredStopAtLevel=1")


def submit_command(master: str, *conf: str) -> list[str]:
    """`spark-submit` of the statistics job as docs/statistics.md gives it."""
    return [str(SPARK_HOME / "bin" / "spark-submit"), "--master", master,
            "--jars", DEFAULT_JAR, "--driver-class-path", DEFAULT_JAR,
            "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
            "--conf", "spark.ui.enabled=false", *conf, str(JOB)]


async def submit(dsn: str, master: str, *conf: str, timeout: float = 300,
                 **env: str) -> tuple[float, dict[str, str]]:
    """The job through spark-submit; its wall time and its RUN=… summary lines."""
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *submit_command(master, *conf), env=spark_env(PGAQ_DSN=dsn, **env),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        raise
    took = time.perf_counter() - started
    assert proc.returncode == 0, err.decode(errors="replace")[-4000:]
    return took, dict(line.split("=", 1) for line in out.decode().split() if "=" in line)


async def local_run(dsn: str, timeout: float = 300, **env: str) -> tuple[float, dict[str, str]]:
    """The job as the stats service runs it (local mode, a child process); time and summary."""
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq_services.stats.job", env={**os.environ, "PGAQ_DSN": dsn, **env},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    took = time.perf_counter() - started
    assert proc.returncode == 0, err.decode(errors="replace")[-4000:]
    return took, dict(line.split("=", 1) for line in out.decode().split() if "=" in line)
