"""Runs each service as its own child process, restarts it when it dies, stops them all.

The restart policy is pure (`Backoff`), so tests drive it with a fake clock.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from dataclasses import dataclass, field

from .clock import Clock, SystemClock

log = logging.getLogger("pgaq.supervisor")


@dataclass
class Backoff:
    """Exponential restart delay; a service that stayed up `reset_after` seconds is healthy
    again and restarts at once next time."""

    base: float = 0.5
    factor: float = 2.0
    maximum: float = 30.0
    reset_after: float = 60.0
    failures: int = 0

    def next_delay(self, uptime: float) -> float:
        if uptime >= self.reset_after:
            self.failures = 0
        delay = 0.0
        if self.failures:
            delay = min(self.maximum, self.base * self.factor ** (self.failures - 1))
        self.failures += 1
        return delay


@dataclass
class ServiceSpec:
    name: str
    module: str
    env: dict[str, str] = field(default_factory=dict)


class Supervisor:
    def __init__(self, specs: list[ServiceSpec], base_env: dict[str, str], *,
                 clock: Clock | None = None, stop_timeout: float = 10.0) -> None:
        self.specs = specs
        self.base_env = base_env
        self.clock = clock or SystemClock()
        self.stop_timeout = stop_timeout
        self.procs: dict[str, asyncio.subprocess.Process] = {}
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        for spec in self.specs:
            await self._spawn(spec)
            self._tasks.append(asyncio.create_task(self._watch(spec), name=f"watch:{spec.name}"))

    async def _spawn(self, spec: ServiceSpec) -> None:
        env = {**os.environ, **self.base_env, **spec.env}
        self.procs[spec.name] = await asyncio.create_subprocess_exec(
            sys.executable, "-m", spec.module, env=env, stdin=asyncio.subprocess.DEVNULL,
            start_new_session=True)
        log.info("started %s (pid %s)", spec.name, self.procs[spec.name].pid)

    async def _watch(self, spec: ServiceSpec) -> None:
        backoff = Backoff()
        while not self._stop.is_set():
            started = self.clock.monotonic()
            code = await self.procs[spec.name].wait()
            if self._stop.is_set():
                return
            delay = backoff.next_delay(self.clock.monotonic() - started)
            log.error("service %s exited with %s; restarting in %.1fs", spec.name, code, delay)
            try:
                await asyncio.wait_for(self._stop.wait(), delay)
                return
            except TimeoutError:
                pass
            await self._spawn(spec)

    async def stop(self) -> None:
        """SIGTERM every child, wait a bounded time, then SIGKILL what is left."""
        self._stop.set()
        for t in self._tasks:
            t.cancel()
        for p in self.procs.values():
            if p.returncode is None:
                try:
                    p.send_signal(signal.SIGTERM)
                except ProcessLookupError:
                    pass
        waits = [p.wait() for p in self.procs.values() if p.returncode is None]
        if waits:
            await asyncio.wait(
                [asyncio.ensure_future(w) for w in waits], timeout=self.stop_timeout)
            for p in self.procs.values():
                if p.returncode is None:
                    log.warning("killing pid %s after %.0fs", p.pid, self.stop_timeout)
                    try:
                        p.kill()
                    except ProcessLookupError:
                        pass
                    await p.wait()
