"""pgaq on the Patroni cluster: the database `ha` made through HAProxy, the queues of
`sql/setup.sql`, every service pointed at HAProxy through its ordinary settings
(PGAQ_DSN), and an HTTP receiver for the notifications."""

from __future__ import annotations

import asyncio
import os
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
from pgaq.embedded import free_port
from pgaq.migrate import migrate_dsn

from chaos.services import Service
from chaos.sinks import HttpSink

from .cluster import PatroniCluster
from .settings import Settings

SQL = Path(__file__).with_name("sql")
SERVLET = "/aqserv/servlet"
SERVICES = ("core", "monitor", "notifier", "propagator", "gateway")


class Mesh:
    def __init__(self, s: Settings, workdir: Path) -> None:
        self.s = s
        self.cluster = PatroniCluster(s, workdir)
        self.sink = HttpSink()
        self.services: dict[str, Service] = {}
        self.url = ""

    @property
    def dsn(self) -> str:
        return self.cluster.dsn("ha")

    async def start(self) -> None:
        await self.cluster.start()
        admin = await asyncpg.connect(self.cluster.dsn())
        try:
            await admin.execute("CREATE DATABASE ha")
        finally:
            await admin.close()
        await migrate_dsn(self.dsn)
        await self.sink.start()
        conn = await asyncpg.connect(self.dsn)
        try:
            await conn.execute((SQL / "setup.sql").read_text())
            await conn.execute("SELECT aq.register('ha.note_q', NULL, $1)", self.sink.url)
        finally:
            await conn.close()
        common = {"PGAQ_LOG_LEVEL": os.environ.get("PGAQ_LOG_LEVEL", "WARNING"), "PGAQ_DSN": self.dsn,
                  # a failover takes seconds: a lease or a notification must not wait a minute
                  "PGAQ_PROPAGATION_LEASE": "5", "PGAQ_PROPAGATION_BACKOFF_BASE": "0.2",
                  "PGAQ_NOTIFY_LEASE": "5", "PGAQ_NOTIFY_BACKOFF_BASE": "0.2",
                  "PGAQ_NOTIFY_BACKOFF_MAX": "2", "PGAQ_NOTIFY_MAX_ATTEMPTS": "1000",
                  "PGAQ_NOTIFY_HTTP_TIMEOUT": "5", "PGAQ_NOTIFY_SMTP_TIMEOUT": "5",
                  "PGAQ_NOTIFY_PLSQL_TIMEOUT": "5"}
        core, gw = free_port(), free_port()
        specs = [
            Service("core", "pgaq_services.core", {**common, "PGAQ_CORE_PORT": str(core)},
                    health=f"http://127.0.0.1:{core}/health"),
            Service("monitor", "pgaq_services.monitor", common),
            Service("notifier", "pgaq_services.notifier", common),
            Service("propagator", "pgaq_services.propagator", common),
            Service("gateway", "pgaq_services.gateway",
                    {**common, "PGAQ_PORT": str(gw), "PGAQ_GATEWAY_WORKERS": "1"},
                    health=f"http://127.0.0.1:{gw}/health"),
        ]
        if self.s.stats:
            port = free_port()
            # JDBC through HAProxy too (PGAQ_TCP_DSN); the first run at once, the next
            # every stats_interval minutes
            specs.append(Service("stats", "pgaq_services.stats", {
                **common, "PGAQ_TCP_DSN": self.dsn, "PGAQ_STATS_PORT": str(port),
                "PGAQ_STATS_FIRST_DELAY": "0", "PGAQ_STATS_INTERVAL": str(self.s.stats_interval)},
                health=f"http://127.0.0.1:{port}/health"))
        for spec in specs:
            self.services[spec.name] = spec
            await spec.launch()
        self.url = f"http://127.0.0.1:{gw}{SERVLET}"

    async def quiet(self, timeout: float = 300) -> None:
        """Until no statistics run is going (its /metrics gauge says): a Spark run takes both
        cores for a while here, and a pickup measured beside one is measuring Spark."""
        svc = self.services.get("stats")
        if svc is None or svc.health is None:
            return
        url = svc.health.replace("/health", "/metrics")
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as http:
            while time.monotonic() < deadline:
                try:
                    async with http.get(url, timeout=aiohttp.ClientTimeout(total=5)) as r:
                        text = await r.text()
                except (aiohttp.ClientError, TimeoutError):
                    text = ""
                if "\npgaq_stats_running 0.0" in text or "\npgaq_stats_running 0\n" in text:
                    return
                await asyncio.sleep(0.5)

    async def stats_run_after(self, since: datetime, timeout: float) -> dict[str, Any] | None:
        """The statistics service's first successful run that started after `since` (its
        /health says; nothing else to wait on but another process's schedule), or None."""
        svc = self.services["stats"]
        assert svc.health is not None
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as http:
            while time.monotonic() < deadline:
                try:
                    async with http.get(svc.health, timeout=aiohttp.ClientTimeout(total=5)) as r:
                        last = (await r.json()).get("last_run")
                except (aiohttp.ClientError, TimeoutError, ValueError):
                    last = None
                if (last and last.get("outcome") == "ok"
                        and datetime.fromisoformat(last["started"]) >= since.replace(microsecond=0)):
                    return dict(last)
                await asyncio.sleep(1)
        return None

    def deaths(self) -> dict[str, list[int]]:
        """Services that died on their own (each was started again, but none should have
        needed it)."""
        return {n: s.deaths for n, s in self.services.items() if s.deaths}

    async def stop(self) -> None:
        await asyncio.gather(*(svc.stop() for svc in self.services.values()))
        await self.sink.stop()
        await self.cluster.stop()
