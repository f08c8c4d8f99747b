"""Runs the statistics job every `interval` minutes (apscheduler), each run in a child
process: the JVM that Spark starts lives only as long as its run, and a run that dies
changes nothing (the job applies its results in one transaction)."""

from __future__ import annotations

import asyncio
import logging
import os
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
        self.runs: dict[str, int] = {"ok": 0, "failed": 0, "timeout": 0}
        self.last_run: dict[str, Any] | None = None  # started, seconds, exit code, outcome
        self.running = False  # the scheduler is started and not stopped

    async def run_job(self) -> None:
        """One run in a child process; its failure is logged and recorded, never fatal."""
        started, t0 = datetime.now(UTC), time.monotonic()
        timed_out = False
        proc = await asyncio.create_subprocess_exec(
            *self.command, stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "PGAQ_TCP_DSN": self.settings.dsn})
        self.current = proc
        try:
            out, _ = await asyncio.wait_for(proc.communicate(), self.settings.run_timeout)
        except TimeoutError:
            log.error("statistics run took over %.0f s: killed", self.settings.run_timeout)
            timed_out = True
            proc.kill()
            out, _ = await proc.communicate()
        finally:
            self.current = None
        text = out.decode(errors="replace").strip()
        code = proc.returncode if proc.returncode is not None else -1
        if code == 0:
            log.info("statistics run: %s", " ".join(text.splitlines()))
        else:
            log.error("statistics run failed (exit %d)", code)
        outcome = "timeout" if timed_out else "ok" if code == 0 else "failed"
        self.runs[outcome] += 1
        self.last_run = {"started": started.isoformat(timespec="seconds"),
                         "seconds": round(time.monotonic() - t0, 3), "exit": code, "outcome": outcome}
        if self.on_run is not None:
            self.on_run(code, text)

    async def _stop_current(self, timeout: float) -> None:
        proc = self.current
        if proc is None or proc.returncode is not None:
            return
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), timeout)
        except TimeoutError:
            proc.kill()
            await proc.wait()

    async def run(self, stop: asyncio.Event, *, shutdown_timeout: float = 10.0) -> None:
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
            scheduler.shutdown(wait=False)
            await self._stop_current(shutdown_timeout)
