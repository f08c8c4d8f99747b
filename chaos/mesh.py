"""
Topology: a private PostgreSQL cluster with the source database (`src`: core, monitor,
notifier, two propagators, gateway A) and a remote one (`dst`: gateway B). The Send queue
CHAOS.INQ is a final destination itself; the topic CHAOS.TOPIC has three subscribers:
CHAOS.LOCAL_IN (local propagation), CHAOS.REMOTE_IN@eu (PostgreSQL, through the cutting
proxy) and CHAOS.WEB_IN@web (HTTP, to gateway B). CHAOS.INQ notifies the HTTP sink,
CHAOS.LOCAL_IN mails the SMTP sink.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

import asyncpg
from pgaq.embedded import Cluster, free_port
from pgaq.migrate import migrate_dsn

from .consume import LEDGER
from .proxy import LinkProxy
from .services import Service
from .settings import Settings
from .sinks import HttpSink, SmtpSink

AGENT, PASSWORD = "CHAOS", "chaos-secret"
SERVLET = "/aqserv/servlet"
SQL = Path(__file__).with_name("sql")
AGENT_SETUP = [
    ("CALL dbms_aqadm.create_aq_agent(agent_name => $1, enable_http => true, password => $2)",
     (AGENT, PASSWORD)),
    ("CALL dbms_aqadm.enable_db_access(agent_name => $1, db_username => 'postgres')", (AGENT,)),
]


class Mesh:
    """Everything the run starts, and stops again."""

    def __init__(self, s: Settings, env: dict[str, str] | None = None) -> None:
        self.s = s
        self.env = env or {}  # added to every service's environment (the soak's retention knobs)
        base = s.workdir or Path(tempfile.mkdtemp(prefix="pgaq-chaos-"))
        os.chmod(base, 0o755)
        self.cluster = Cluster(base / "cluster", durable=False, settings={"max_connections": "300"})
        self.proxy: LinkProxy | None = None
        self.http = HttpSink()
        self.smtp = SmtpSink()
        self.services: dict[str, Service] = {}
        self.pg_restarts = 0

    def dsn(self, db: str) -> str:
        return self.cluster.dsn(db)

    async def start(self) -> None:
        await asyncio.to_thread(self.cluster.init)
        await asyncio.to_thread(self.cluster.start)
        admin = await asyncpg.connect(self.dsn("postgres"))
        try:
            await admin.execute("CREATE DATABASE src")
            await admin.execute("CREATE DATABASE dst")
        finally:
            await admin.close()
        for db in ("src", "dst"):
            await migrate_dsn(self.dsn(db))
        self.proxy = LinkProxy(self.cluster.port)
        await self.proxy.start()
        await self.http.start()
        await self.smtp.start()
        gw_b = free_port()
        await self._setup(gw_b)
        common = {"PGAQ_LOG_LEVEL": "ERROR", "PGAQ_DSN": self.dsn("src"), **self.env}
        fast = {"PGAQ_PROPAGATION_LEASE": "2", "PGAQ_PROPAGATION_BACKOFF_BASE": "0.2",
                "PGAQ_PROPAGATION_BATCH": "100", "PGAQ_PROPAGATION_TIMEOUT": "10"}
        gw = {"PGAQ_GATEWAY_WORKERS": "1", "PGAQ_SAFETY_POLL": "1"}
        gw_a = free_port()
        specs = [
            Service("core", "pgaq_services.core", {**common, "PGAQ_CORE_PORT": str(free_port())}),
            Service("monitor", "pgaq_services.monitor", common),
            Service("notifier", "pgaq_services.notifier", {
                **common, "PGAQ_NOTIFY_LEASE": "2", "PGAQ_NOTIFY_BACKOFF_BASE": "0.2",
                "PGAQ_NOTIFY_BACKOFF_MAX": "2", "PGAQ_NOTIFY_MAX_ATTEMPTS": "1000",
                "PGAQ_NOTIFY_HTTP_TIMEOUT": "5", "PGAQ_NOTIFY_SMTP_TIMEOUT": "5",
                "PGAQ_NOTIFY_PLSQL_TIMEOUT": "5"}),  # the lease: twice the longest timeout
            *(Service(f"propagator{i}", "pgaq_services.propagator",
                      {**common, **fast, "PGAQ_PROPAGATOR_NAME": f"p{i}"}) for i in (1, 2)),
            Service("gateway_a", "pgaq_services.gateway", {**common, **gw, "PGAQ_PORT": str(gw_a)},
                    health=f"http://127.0.0.1:{gw_a}/health"),
            Service("gateway_b", "pgaq_services.gateway", {**common, **gw, "PGAQ_PORT": str(gw_b),
                                                           "PGAQ_DSN": self.dsn("dst")},
                    health=f"http://127.0.0.1:{gw_b}/health"),
        ]
        specs[0].health = f"http://127.0.0.1:{specs[0].env['PGAQ_CORE_PORT']}/health"
        for spec in specs:
            self.services[spec.name] = spec
            await spec.launch()
        self.url_a = f"http://127.0.0.1:{gw_a}{SERVLET}"

    async def _setup(self, gw_b: int) -> None:
        src = await asyncpg.connect(self.dsn("src"))
        dst = await asyncpg.connect(self.dsn("dst"))
        try:
            await dst.execute((SQL / "dst.sql").read_text())
            await src.execute((SQL / "src.sql").read_text())
            for c in (src, dst):
                await c.execute(LEDGER)
                for sql, args in AGENT_SETUP:
                    await c.execute(sql, *args)
            assert self.proxy is not None
            await src.execute("CALL dbms_aqelm.set_mailport($1)", self.smtp.port)
            await src.execute("CALL aq.create_database_link('eu', $1)",
                              f"postgresql://postgres@127.0.0.1:{self.proxy.port}/dst")
            await src.execute("CALL aq.create_database_link(link_name => 'web', url => $1, "
                              "username => $2, password => $3)",
                              f"http://127.0.0.1:{gw_b}{SERVLET}", AGENT, PASSWORD)
            for dest in (None, "eu", "web"):
                await src.execute("CALL dbms_aqadm.schedule_propagation('chaos.topic', $1, "
                                  "latency => 0)", dest)
            await src.execute("SELECT aq.register('chaos.inq', NULL, $1)", self.http.url)
            await src.execute("SELECT aq.register('chaos.local_in', NULL, 'mailto:ops@example.com')")
        finally:
            await src.close()
            await dst.close()

    async def restart_postgres(self) -> None:
        """An immediate stop (a crash, as far as the clients know), then start."""
        await asyncio.to_thread(self.cluster.stop, "immediate")
        await asyncio.to_thread(self.cluster.start)
        self.pg_restarts += 1

    async def stop(self) -> None:
        for svc in self.services.values():
            await svc.stop()
        if self.proxy is not None:
            await self.proxy.stop()
        await self.http.stop()
        await self.smtp.stop()
        await asyncio.to_thread(self.cluster.destroy)
