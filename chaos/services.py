"""The services as separate processes (each in its own process group, so a SIGKILL takes
its workers too), started again at once after each kill."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from dataclasses import dataclass, field

import aiohttp


@dataclass
class Service:
    """`python -m <module>` with `env`; `health` is polled after each start when set."""

    name: str
    module: str
    env: dict[str, str]
    health: str | None = None
    proc: asyncio.subprocess.Process | None = None
    kills: int = 0
    deaths: list[int] = field(default_factory=list)  # exit codes of deaths we did not cause
    _planned: bool = False
    _stopping: bool = False
    _restarted: asyncio.Event = field(default_factory=asyncio.Event)
    _watch: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", self.module, env={**os.environ, **self.env},
            stdin=asyncio.subprocess.DEVNULL, start_new_session=True)
        if self.health is not None:
            await wait_healthy(self.health, self.proc)

    async def launch(self) -> None:
        """Start it and watch it: whatever ends it, it is started again (as a supervisor
        would), and a death we did not cause is recorded."""
        await self.start()
        self._watch = asyncio.ensure_future(self._watching())

    async def _watching(self) -> None:
        while True:
            assert self.proc is not None
            code = await self.proc.wait()
            if self._stopping:
                return
            if not self._planned:
                self.deaths.append(code)
            self._planned = False
            while True:
                try:
                    await self.start()
                    break
                except RuntimeError:
                    await asyncio.sleep(0.5)  # e.g. the database is still down: try again
            self._restarted.set()

    async def kill(self) -> None:
        """SIGKILL the whole process group; returns once it is up (and healthy) again."""
        assert self.proc is not None
        self._planned = True
        self._restarted.clear()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.kills += 1
        await self._restarted.wait()

    async def stop(self) -> None:
        self._stopping = True
        if self._watch is not None:
            self._watch.cancel()
        if self.proc is None or self.proc.returncode is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            await asyncio.wait_for(self.proc.wait(), 15)
        except TimeoutError:
            os.killpg(self.proc.pid, signal.SIGKILL)
            await self.proc.wait()


async def wait_healthy(url: str, proc: asyncio.subprocess.Process, timeout: float = 60) -> None:
    """Until `url` answers 200 (another process: nothing to wait on but its port)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    async with aiohttp.ClientSession() as http:
        while loop.time() < deadline:
            if proc.returncode is not None:
                raise RuntimeError(f"{url}: the process exited ({proc.returncode})")
            try:
                async with http.get(url, timeout=aiohttp.ClientTimeout(total=2)) as r:
                    if r.status == 200:
                        return
            except (aiohttp.ClientError, TimeoutError):
                pass
            await asyncio.sleep(0.05)
    raise RuntimeError(f"{url} did not become healthy in {timeout:.0f} s")
