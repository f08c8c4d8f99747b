"""Several IDAP gateway instances behind one HAProxy, on free loopback ports: each
instance its own `python -m pgaq_services.gateway` process group (chaos.services.Service),
HAProxy configured from deploy/ha's files (haproxy-global.cfg and the rendered
haproxy-idap.cfg.in). An instance can be SIGKILLed and started again; HAProxy's view of
each instance (UP or DOWN) is read from its CSV stats page."""

from __future__ import annotations

import asyncio
import csv
import io
import os
import signal
import string
import sys
import tempfile
from pathlib import Path
from types import TracebackType
from typing import IO

import aiohttp
from pgaq.embedded import free_port

from chaos.services import Service

HAPROXY = "/usr/sbin/haproxy"
DEPLOY = Path(__file__).resolve().parent.parent / "deploy" / "ha"
SERVLET = "/aqserv/servlet"
# the harness's own listener: HAProxy's stats as CSV, to wait for a server's UP or DOWN
_STATS = """frontend harness_stats
    mode http
    bind 127.0.0.1:${port}
    stats enable
    stats uri /stats
    stats refresh 0
"""


class GatewayFarmError(RuntimeError):
    """The farm could not start, or a state it waited for did not come."""


class GatewayFarm:
    """`instances` gateways (each PGAQ_GATEWAY_WORKERS=`workers`) behind one HAProxy.
    Servers are named gw1, gw2, ...; HAProxy's cookie prefix names them too."""

    def __init__(self, dsn: str, instances: int = 2, *, workers: int = 1,
                 env: dict[str, str] | None = None, haproxy: str = HAPROXY,
                 directory: str | None = None, timeout: float = 60.0) -> None:
        self.dsn = dsn
        self.names = [f"gw{i + 1}" for i in range(instances)]
        self.ports = {name: free_port() for name in self.names}
        self.port = free_port()  # HAProxy's IDAP frontend
        self.stats_port = free_port()
        self.haproxy = haproxy
        self.timeout = timeout
        self._own_dir = directory is None
        self.dir = Path(directory or tempfile.mkdtemp(prefix="pgaq-gwfarm-"))
        self.services = {
            name: Service(name, "pgaq_services.gateway", {
                "PGAQ_DSN": dsn, "PGAQ_PORT": str(port), "PGAQ_GATEWAY_WORKERS": str(workers),
                "PGAQ_LOG_LEVEL": "WARNING", **(env or {})},
                health=f"http://127.0.0.1:{port}/health")
            for name, port in self.ports.items()}
        self.proxy: asyncio.subprocess.Process | None = None
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        """The servlet through HAProxy."""
        return f"http://127.0.0.1:{self.port}{SERVLET}"

    def direct(self, name: str) -> str:
        """An instance's own base URL (its /health, /metrics), bypassing HAProxy."""
        return f"http://127.0.0.1:{self.ports[name]}"

    def config_files(self) -> list[Path]:
        """The configuration HAProxy runs with: deploy/ha's global file, the IDAP section
        rendered for these instances, and the harness's stats listener."""
        servers = "\n".join(f"    server {name} 127.0.0.1:{port} check cookie {name}"
                            for name, port in self.ports.items())
        idap = string.Template((DEPLOY / "haproxy-idap.cfg.in").read_text()).substitute(
            idap_bind=f"127.0.0.1:{self.port}", idap_servers=servers)
        rendered = self.dir / "haproxy-idap.cfg"
        rendered.write_text(idap)
        stats = self.dir / "harness-stats.cfg"
        stats.write_text(string.Template(_STATS).substitute(port=self.stats_port))
        return [DEPLOY / "haproxy-global.cfg", rendered, stats]

    async def start(self) -> None:
        """Every gateway healthy, then HAProxy started and seeing each one UP."""
        try:
            await asyncio.gather(*(s.start() for s in self.services.values()))
            args = [a for f in self.config_files() for a in ("-f", str(f))]
            check = await asyncio.create_subprocess_exec(
                self.haproxy, "-c", *args, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT)
            out = (await check.communicate())[0].decode(errors="replace")
            if check.returncode != 0:
                raise GatewayFarmError(f"haproxy rejects the configuration: {out.strip()}")
            self._log = self._open_log()
            self.proxy = await asyncio.create_subprocess_exec(
                self.haproxy, *args, stdin=asyncio.subprocess.DEVNULL,
                stdout=self._log, stderr=asyncio.subprocess.STDOUT,
                start_new_session=True)
            for name in self.names:
                await self.wait_status(name, "UP")
        except BaseException:
            await self.stop()
            raise

    def _open_log(self) -> IO[bytes]:
        """HAProxy's stderr (its log: `log stderr` in haproxy-global.cfg); closed by stop()."""
        return (self.dir / "haproxy.log").open("ab")

    async def status(self) -> dict[str, str]:
        """HAProxy's view of each instance: UP, DOWN, or a transition (e.g. "DOWN 1/1")."""
        async with aiohttp.ClientSession() as http, \
                http.get(f"http://127.0.0.1:{self.stats_port}/stats;csv",
                         timeout=aiohttp.ClientTimeout(total=5)) as r:
            text = await r.text()
        rows = csv.DictReader(io.StringIO(text.lstrip("# ")))
        return {row["svname"]: row["status"] for row in rows
                if row["pxname"] == "idap_gateways" and row["svname"] in self.ports}

    async def wait_status(self, name: str, want: str) -> None:
        """Until HAProxy reports instance `name` as `want` (its health checks run every
        second: another process, so there is nothing to wait on but its answer)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        seen = None
        while loop.time() < deadline:
            if self.proxy is not None and self.proxy.returncode is not None:
                raise GatewayFarmError(f"haproxy exited ({self.proxy.returncode}); see "
                                       f"{self.dir / 'haproxy.log'}")
            try:
                seen = (await self.status()).get(name)
            except (aiohttp.ClientError, TimeoutError):
                seen = None
            if seen == want:
                return
            await asyncio.sleep(0.1)
        raise GatewayFarmError(f"HAProxy did not see {name} {want} in {self.timeout:g} s "
                               f"(last: {seen})")

    def pid(self, name: str) -> int:
        proc = self.services[name].proc
        assert proc is not None and proc.returncode is None, f"{name} is not running"
        return proc.pid

    async def kill(self, name: str, *, wait_down: bool = True) -> None:
        """SIGKILL instance `name` (its whole process group: its workers too), without
        starting it again; with `wait_down`, until HAProxy has marked it DOWN."""
        proc = self.services[name].proc
        assert proc is not None
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        await proc.wait()
        if wait_down:
            await self.wait_status(name, "DOWN")

    async def restart(self, name: str) -> None:
        """Start instance `name` again on its port (a new process: new session tokens),
        until it is healthy and HAProxy sees it UP."""
        await self.services[name].start()
        await self.wait_status(name, "UP")

    async def stop(self) -> None:
        """Everything stopped, each within bounded time (SIGTERM, then SIGKILL)."""
        await asyncio.gather(*(s.stop() for s in self.services.values()), return_exceptions=True)
        proxy, self.proxy = self.proxy, None
        if proxy is not None and proxy.returncode is None:
            try:
                os.killpg(proxy.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                await asyncio.wait_for(proxy.wait(), 10)
            except TimeoutError:
                os.killpg(proxy.pid, signal.SIGKILL)
                await proxy.wait()
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._own_dir:
            for f in self.dir.iterdir():
                f.unlink()
            self.dir.rmdir()

    async def __aenter__(self) -> GatewayFarm:
        await self.start()
        return self

    async def __aexit__(self, et: type[BaseException] | None, e: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.stop()


def available(haproxy: str = HAPROXY) -> bool:
    """Whether HAProxy is installed (deploy/system-deps.sh --test installs it)."""
    return os.access(haproxy, os.X_OK)


if __name__ == "__main__":  # python -m ha.gateways DSN: a farm of two, until Ctrl-C
    async def _main(dsn: str) -> None:
        async with GatewayFarm(dsn) as farm:
            print(f"IDAP through HAProxy: {farm.url}", flush=True)
            await asyncio.Event().wait()

    asyncio.run(_main(sys.argv[1]))
