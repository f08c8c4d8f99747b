"""Runs the statistics job every `interval` minutes (apscheduler), each run in a child
process: the JVM that Spark starts lives only as long as its run, and a run that dies
changes nothing (the job applies its results in one transaction).

Each run is its own process group (the job and the JVM it starts): a stop signals the
group and waits until the group has closed the job's stdout, so no JVM outlives the
service (nor the database `pgaq up` stops after it)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from .settings import StatsSettings

log = logging.getLogger("pgaq.stats")
JOB_COMMAND = (sys.executable, "-m", "pgaq_services.stats.job")


class StatsScheduler:
    def __init__(self, settings: StatsSettings, *, command: Sequence[str] = JOB_COMMAND,
                 on_run: Callable[[int, str], None] | None = None) -> None:
        self.settings = settings
        self.command = list(command)
        self.on_run = on_run            # (exit code, output) after each run, for tests
        self.current: asyncio.subprocess.Process | None = None
        # counters, for /metrics and /health: runs by outcome (ok, failed, timeout), the last one
        self.runs: dict[str, int] = {"ok": 0, "failed": 0, "timeout": 0, "interrupted": 0}
        self.last_run: dict[str, Any] | None = None  # started, seconds, exit code, outcome
        self.running = False  # the scheduler is started and not stopped
        self.stopping = False  # a stop has begun: a run that ends now was interrupted
        self._idle = asyncio.Event()  # no run in flight
        self._idle.set()

    async def run_job(self) -> None:
        """One run in a child process; its failure is logged and recorded, never fatal."""
        if self.stopping:
            return
        self._idle.clear()
        try:
            await self._run_job()
        finally:
            self._idle.set()

    async def _run_job(self) -> None:
        started, t0 = datetime.now(UTC), time.monotonic()
        timed_out = False
        proc = await asyncio.create_subprocess_exec(
            *self.command, stdout=asyncio.subprocess.PIPE, start_new_session=True,
            env={**os.environ, "PGAQ_TCP_DSN": self.settings.dsn})
        self.current = proc
        if self.stopping:  # the stop came while the run was starting
            signal_group(proc, signal.SIGTERM)
        try:
            # until the whole group has closed stdout: the JVM too, not only the job
            out, _ = await asyncio.wait_for(proc.communicate(), self.settings.run_timeout)
        except TimeoutError:
            log.error("statistics run took over %.0f s: killed", self.settings.run_timeout)
            timed_out = True
            signal_group(proc, signal.SIGKILL)
            out, _ = await proc.communicate()
        except asyncio.CancelledError:
            signal_group(proc, signal.SIGKILL)  # never leave the JVM behind
            raise
        finally:
            self.current = None
        text = out.decode(errors="replace").strip()
        code = proc.returncode if proc.returncode is not None else -1
        seconds = round(time.monotonic() - t0, 3)
        if code == 0:
            outcome = "ok"
            log.info("statistics run: %s", " ".join(text.splitlines()))
        elif self.stopping:
            outcome = "interrupted"
            log.warning("statistics run interrupted by the stop after %.1f s; "
                        "the next run starts from the last committed watermark", seconds)
        else:
            outcome = "timeout" if timed_out else "failed"
            log.error("statistics run failed (exit %d)", code)
        self.runs[outcome] += 1
        self.last_run = {"started": started.isoformat(timespec="seconds"),
                         "seconds": seconds, "exit": code, "outcome": outcome}
        if self.on_run is not None:
            self.on_run(code, text)

    async def _stop_current(self, timeout: float) -> None:
        """SIGTERM the run's process group, SIGKILL it after `timeout`; returns once the
        run is over (its group closed stdout and the job was reaped)."""
        self.stopping = True
        proc = self.current
        if proc is not None:
            signal_group(proc, signal.SIGTERM)
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            proc = self.current
            if proc is not None:
                log.warning("statistics run ignored SIGTERM for %.0f s: killing it", timeout)
                signal_group(proc, signal.SIGKILL)
            await self._idle.wait()

    async def run(self, stop: asyncio.Event, *, shutdown_timeout: float = 5.0) -> None:
        scheduler = AsyncIOScheduler(event_loop=asyncio.get_running_loop(), timezone=UTC)
        first = datetime.now(UTC) + timedelta(seconds=self.settings.first_delay)
        scheduler.add_job(self.run_job, IntervalTrigger(seconds=self.settings.interval * 60),
                          id="stats", name="statistics run", max_instances=1, coalesce=True,
                          misfire_grace_time=None, next_run_time=first)
        scheduler.start()
        self.running = True
        log.info("statistics every %g min (first at %s), JDBC %s", self.settings.interval,
                 first.isoformat(timespec="seconds"), self.settings.jdbc.redacted())
        try:
            await stop.wait()
        finally:
            self.running = False
            # the run first: apscheduler's shutdown cancels the run's task, which would
            # leave its process group to outlive us
            await self._stop_current(shutdown_timeout)
            scheduler.shutdown(wait=False)


def signal_group(proc: asyncio.subprocess.Process, sig: signal.Signals) -> None:
    """`sig` to the run's process group (the job and its JVM), gone or not."""
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass
