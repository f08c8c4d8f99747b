"""Runs each service as its own child process, restarts it when it dies, stops them all.

A crash in one service must not take the others down, and a crash loop must not spin the
CPU: the restart policy (`Backoff`) is pure arithmetic on clock readings, so tests drive it
with a fake clock while the supervisor feeds it the real one.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from .aio import TaskGroup, wait_any
from .clock import Clock, SystemClock

log = logging.getLogger("pgaq.supervisor")


@dataclass
class Backoff:
    """Exponential restart delay: 0, base, base*factor, ... capped at `maximum`.

    A child that stayed up `reset_after` seconds counts as healthy again, so one crash
    after a long run restarts at once instead of inheriting an old penalty.
    """

    base: float = 0.5
    factor: float = 2.0
    maximum: float = 30.0
    reset_after: float = 60.0
    failures: int = 0
    started_at: float | None = None

    def started(self, now: float) -> None:
        """Record a (re)start at clock reading `now`."""
        self.started_at = now

    def exited(self, now: float) -> float:
        """The child exited at `now`: how long to wait before starting it again."""
        uptime = now - self.started_at if self.started_at is not None else 0.0
        self.started_at = None
        return self.next_delay(uptime)

    def next_delay(self, uptime: float) -> float:
        """The delay after a run of `uptime` seconds; counts the failure."""
        if uptime >= self.reset_after:
            self.failures = 0
        delay = 0.0
        if self.failures:
            delay = min(self.maximum, self.base * self.factor ** (self.failures - 1))
        self.failures += 1
        return delay


@dataclass(frozen=True)
class ServiceSpec:
    """One child: `python -m <module>` with `env` on top of the supervisor's environment."""

    name: str
    module: str
    env: dict[str, str] = field(default_factory=dict)
    health_url: str | None = None


def describe_exit(code: int) -> str:
    """`exit 3` or `signal SIGKILL`, for the log line that reports a crash."""
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit {code}"


class Supervisor:
    """Starts the children, restarts any that die (with backoff), stops them in bounded time."""

    def __init__(self, specs: list[ServiceSpec], base_env: dict[str, str], group: TaskGroup, *,
                 clock: Clock | None = None, stop_timeout: float = 10.0,
                 backoff: Backoff | None = None,
                 on_exit: Callable[[int], None] | None = None) -> None:
        self.specs = specs
        self.base_env = base_env
        self.group = group
        self.clock = clock or SystemClock()
        self.stop_timeout = stop_timeout
        self.backoff_template = backoff or Backoff()
        self.procs: dict[str, asyncio.subprocess.Process] = {}
        self.restarts: dict[str, int] = {s.name: 0 for s in specs}
        self.died = asyncio.Event()  # set at every child death, for observers and tests
        self._stop = asyncio.Event()
        self._never = asyncio.Event()
        self._on_exit = on_exit  # called with the pid of every child that exited

    async def start(self) -> None:
        """Spawn every child in list order, each watched by a named task."""
        for spec in self.specs:
            backoff = Backoff(self.backoff_template.base, self.backoff_template.factor,
                              self.backoff_template.maximum, self.backoff_template.reset_after)
            await self._spawn(spec, backoff)
            self.group.spawn(f"watch:{spec.name}", self._watch(spec, backoff))

    async def _spawn(self, spec: ServiceSpec, backoff: Backoff) -> None:
        env = {**os.environ, **self.base_env, **spec.env}
        # children write to our stderr: our stdout carries only the machine-readable lines
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", spec.module, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=sys.stderr.fileno(), start_new_session=True)
        self.procs[spec.name] = proc
        backoff.started(self.clock.monotonic())
        log.info("started service %s (pid %s)", spec.name, proc.pid)
        if self._stop.is_set():  # a stop raced with this restart: do not leave it behind
            proc.send_signal(signal.SIGTERM)

    async def _watch(self, spec: ServiceSpec, backoff: Backoff) -> None:
        while not self._stop.is_set():
            proc = self.procs[spec.name]
            code = await proc.wait()
            if self._on_exit is not None:
                self._on_exit(proc.pid)
            if self._stop.is_set():
                return
            delay = backoff.exited(self.clock.monotonic())
            self.restarts[spec.name] += 1
            self.died.set()
            log.error("SERVICE DIED: %s (pid %s, %s); restart #%d in %.1fs", spec.name, proc.pid,
                      describe_exit(code), self.restarts[spec.name], delay)
            if delay > 0 and not await self._sleep(delay):
                return
            if self._stop.is_set():
                return
            await self._spawn(spec, backoff)

    async def _sleep(self, delay: float) -> bool:
        """Wait `delay` seconds; False when a stop came first."""
        await wait_any(self._never, delay, self._stop)
        return not self._stop.is_set()

    async def stop(self) -> None:
        """SIGTERM every child, wait `stop_timeout` at most, then SIGKILL what is left."""
        self._stop.set()
        await self._terminate()
        await self.group.close(timeout=self.stop_timeout)
        await self._terminate()  # a restart that raced with the stop

    async def _terminate(self) -> None:
        alive = [p for p in self.procs.values() if p.returncode is None]
        for p in alive:
            try:
                p.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
        if not alive:
            return
        await asyncio.wait([asyncio.ensure_future(p.wait()) for p in alive], timeout=self.stop_timeout)
        for p in alive:
            if p.returncode is None:
                log.warning("pid %s ignored SIGTERM for %.0fs: killing it", p.pid, self.stop_timeout)
                try:
                    p.kill()
                except ProcessLookupError:
                    pass
                await p.wait()
