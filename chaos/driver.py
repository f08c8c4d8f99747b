"""Builds the mesh, runs load and faults at once, drains, and accounts for every id.

Topology: a private PostgreSQL cluster with the source database (`src`: core, monitor,
notifier, two propagators, gateway A) and a remote one (`dst`: gateway B). The Send queue
CHAOS.INQ is a final destination itself; the topic CHAOS.TOPIC has three subscribers:
CHAOS.LOCAL_IN (local propagation), CHAOS.REMOTE_IN@eu (PostgreSQL, through the cutting
proxy) and CHAOS.WEB_IN@web (HTTP, to gateway B). CHAOS.INQ notifies the HTTP sink,
CHAOS.LOCAL_IN mails the SMTP sink.
"""

from __future__ import annotations

import asyncio
import base64
import os
import random
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import asyncpg
from pgaq.embedded import Cluster, free_port
from pgaq.engine import Session
from pgaq.migrate import migrate_dsn

from .consume import LEDGER, Consumer
from .load import Ledger, Load, envelope
from .proxy import LinkProxy
from .services import Service
from .sinks import HttpSink, SmtpSink

AGENT, PASSWORD = "CHAOS", "chaos-secret"
SERVLET = "/aqserv/servlet"

SRC_SETUP = """
CREATE SCHEMA chaos;
CALL dbms_aqadm.create_queue_table('chaos.inq_t', 'RAW');
CALL dbms_aqadm.create_queue('chaos.inq', 'chaos.inq_t'); CALL dbms_aqadm.start_queue('chaos.inq');
CALL dbms_aqadm.create_queue_table('chaos.wake_t', 'RAW');
CALL dbms_aqadm.create_queue('chaos.wake', 'chaos.wake_t'); CALL dbms_aqadm.start_queue('chaos.wake');
CALL dbms_aqadm.create_queue_table('chaos.local_t', 'RAW');
CALL dbms_aqadm.create_queue('chaos.local_in', 'chaos.local_t'); CALL dbms_aqadm.start_queue('chaos.local_in');
CALL dbms_aqadm.create_queue_table('chaos.topic_t', 'RAW', multiple_consumers => true);
CALL dbms_aqadm.create_queue('chaos.topic', 'chaos.topic_t'); CALL dbms_aqadm.start_queue('chaos.topic');
CALL dbms_aqadm.add_subscriber('chaos.topic', sys.aq$_agent(NULL, 'chaos.local_in', 0));
CALL dbms_aqadm.add_subscriber('chaos.topic', sys.aq$_agent(NULL, 'chaos.remote_in@eu', 0));
CALL dbms_aqadm.add_subscriber('chaos.topic', sys.aq$_agent(NULL, 'chaos.web_in@web', 0));
CALL aq.allow_notification_host('127.0.0.1');
CALL dbms_aqelm.set_mailhost('127.0.0.1');
CALL dbms_aqelm.set_sendfrom('aq@example.com');
"""
DST_SETUP = """
CREATE SCHEMA chaos;
CALL dbms_aqadm.create_queue_table('chaos.remote_t', 'RAW');
CALL dbms_aqadm.create_queue('chaos.remote_in', 'chaos.remote_t'); CALL dbms_aqadm.start_queue('chaos.remote_in');
CALL dbms_aqadm.create_queue_table('chaos.web_t', 'RAW');
CALL dbms_aqadm.create_queue('chaos.web_in', 'chaos.web_t'); CALL dbms_aqadm.start_queue('chaos.web_in');
"""
AGENT_SETUP = [
    ("CALL dbms_aqadm.create_aq_agent(agent_name => $1, enable_http => true, password => $2)",
     (AGENT, PASSWORD)),
    ("CALL dbms_aqadm.enable_db_access(agent_name => $1, db_username => 'postgres')", (AGENT,)),
]
# the final destinations: ledger name -> (database, queue, which load kind arrives there)
DESTINATIONS = {"inq": ("src", "chaos.inq", "send"), "local": ("src", "chaos.local_in", "publish"),
                "remote": ("dst", "chaos.remote_in", "publish"), "web": ("dst", "chaos.web_in", "publish")}
BACKLOG = {"src": ["SELECT count(*) FROM chaos.inq_t", "SELECT count(*) FROM chaos.local_t",
                   "SELECT count(*) FROM chaos.aq$_topic_t_r WHERE state = 0",
                   "SELECT count(*) FROM aq.notifications WHERE state IN ('PENDING', 'SENDING')"],
           "dst": ["SELECT count(*) FROM chaos.remote_t", "SELECT count(*) FROM chaos.web_t"]}


@dataclass
class Settings:
    messages: int = 10_000
    seed: int = 1
    kills: int = 3  # SIGKILLs per service
    gap: tuple[float, float] = (0.2, 1.5)  # seconds between faults
    outage: tuple[float, float] = (2.0, 5.0)  # seconds a link cut or a failing sink lasts
    receivers: int = 3  # blocked HTTP receivers that must all wake
    drain_timeout: float = 600.0
    workdir: Path | None = None

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)
        return cls(messages=int(e.get("CHAOS_MESSAGES", "10000")), seed=int(e.get("CHAOS_SEED", "1")),
                   kills=int(e.get("CHAOS_KILLS", "3")),
                   drain_timeout=float(e.get("CHAOS_DRAIN_TIMEOUT", "600")),
                   workdir=Path(e["CHAOS_DIR"]) if e.get("CHAOS_DIR") else None)


@dataclass
class Report:
    """The counts, and every violation found (empty: the run passed)."""

    lines: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)

    def say(self, line: str) -> None:
        self.lines.append(line)
        print(line, flush=True)

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.violations.append(what)
            print(f"VIOLATION: {what}", flush=True)


class Mesh:
    """Everything the run starts, and stops again."""

    def __init__(self, s: Settings) -> None:
        self.s = s
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
            for db in ("src", "dst"):
                await admin.execute(f"CREATE DATABASE {db}")
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
        common = {"PGAQ_LOG_LEVEL": "ERROR", "PGAQ_DSN": self.dsn("src")}
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
                "PGAQ_NOTIFY_HTTP_TIMEOUT": "5", "PGAQ_NOTIFY_SMTP_TIMEOUT": "5"}),
            Service("propagator1", "pgaq_services.propagator", {**common, **fast, "PGAQ_PROPAGATOR_NAME": "p1"}),
            Service("propagator2", "pgaq_services.propagator", {**common, **fast, "PGAQ_PROPAGATOR_NAME": "p2"}),
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
            await dst.execute(DST_SETUP)
            await src.execute(SRC_SETUP)
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
            for dest in ("NULL", "'eu'", "'web'"):
                await src.execute(f"CALL dbms_aqadm.schedule_propagation('chaos.topic', {dest}, latency => 0)")
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


async def _fail_for(flag_owner: HttpSink | SmtpSink, seconds: float) -> None:
    flag_owner.failing = True
    try:
        await asyncio.sleep(seconds)  # the fault's own duration
    finally:
        flag_owner.failing = False


async def fault_driver(mesh: Mesh, rng: random.Random, log: Callable[[str], None]) -> None:
    """Every service SIGKILLed `kills` times, PostgreSQL restarted once, the link cut and
    both sinks failing once each: in a seeded random order, at seeded random moments."""
    s = mesh.s
    faults: list[tuple[str, str]] = [("kill", n) for n in mesh.services for _ in range(s.kills)]
    faults += [("postgres", ""), ("cut", ""), ("http", ""), ("smtp", "")]
    rng.shuffle(faults)
    pending: list[asyncio.Task[None]] = []
    t0 = time.monotonic()
    for kind, name in faults:
        await asyncio.sleep(rng.uniform(*s.gap))  # the random moments are the point
        outage = rng.uniform(*s.outage)
        log(f"fault +{time.monotonic() - t0:6.1f}s {kind} {name}".rstrip())
        work: Awaitable[None]
        if kind == "kill":
            work = mesh.services[name].kill()
        elif kind == "postgres":
            work = mesh.restart_postgres()
        elif kind == "cut":
            assert mesh.proxy is not None
            work = mesh.proxy.cut(outage)
        elif kind == "http":
            work = _fail_for(mesh.http, outage)
        else:
            work = _fail_for(mesh.smtp, outage)
        if kind in ("cut", "http", "smtp"):
            pending.append(asyncio.ensure_future(work))  # lasts while the next faults come
        else:
            await work
    await asyncio.gather(*pending)


async def blocked_receiver(url: str, woke: asyncio.Queue[str]) -> None:
    """An HTTP AQXmlReceive blocked on CHAOS.WAKE, asked again whenever its answer is lost
    or empty, until it gets one message."""
    auth = "Basic " + base64.b64encode(f"{AGENT}:{PASSWORD}".encode()).decode()
    doc = envelope('<AQXmlReceive xmlns="http://ns.oracle.com/AQ/schemas/access"><consumer_options>'
                   "<destination>CHAOS.WAKE</destination><wait_time>20</wait_time></consumer_options>"
                   "<AQXmlCommit/></AQXmlReceive>")
    async with aiohttp.ClientSession() as http:
        while True:
            try:
                async with http.post(url, data=doc, headers={"Content-Type": "text/xml", "Authorization": auth},
                                     timeout=aiohttp.ClientTimeout(total=60)) as r:
                    body = await r.read()
                    if r.status == 200 and b"<RAW>" in body.replace(b"ns0:", b""):
                        await woke.put(body.split(b"RAW>")[1].split(b"<")[0].decode())
                        return
            except (aiohttp.ClientError, TimeoutError, OSError):
                pass
            await asyncio.sleep(0.05)  # a restarting gateway: don't spin on its port


async def drained(mesh: Mesh, ledger: Ledger, timeout: float) -> bool:
    """Until every acknowledged id reached its destinations and nothing is left to move
    (another process's progress: nothing to wait on but the databases)."""
    deadline = time.monotonic() + timeout
    need = {d: len(ledger.acked[kind]) for d, (_, _, kind) in DESTINATIONS.items()}
    while time.monotonic() < deadline:
        try:
            done = True
            for db, queries in BACKLOG.items():
                c = await asyncpg.connect(mesh.dsn(db))
                try:
                    for q in queries:
                        done = done and await c.fetchval(q) == 0
                    for d, (ddb, _, _) in DESTINATIONS.items():
                        if ddb == db:
                            got = await c.fetchval("SELECT count(DISTINCT id) FROM chaos_ledger WHERE dest = $1", d)
                            done = done and got >= need[d]
                finally:
                    await c.close()
            if done:
                return True
        except (OSError, asyncpg.PostgresError):
            pass
        await asyncio.sleep(0.5)
    return False


async def account(mesh: Mesh, ledger: Ledger, rep: Report) -> None:
    """Each committed id dequeued exactly once at each of its destinations, none lost,
    none duplicated, none invented; an unacknowledged set all or nothing."""
    rep.check(not ledger.faults, f"client faults during the load: {ledger.faults[:3]}")
    for dest, (db, queue, kind) in DESTINATIONS.items():
        c = await asyncpg.connect(mesh.dsn(db))
        try:
            rows = await c.fetch("SELECT id, count(*) AS n FROM chaos_ledger WHERE dest = $1 GROUP BY id", dest)
        finally:
            await c.close()
        got = {r["id"]: r["n"] for r in rows}
        acked, sent = ledger.acked[kind], ledger.sent(kind)
        lost = acked - got.keys()
        dup = {i: n for i, n in got.items() if n > 1}
        invented = got.keys() - sent
        partial = [s for s in ledger.unsure[kind] if 0 < len(got.keys() & set(s)) < len(s)]
        unsure_in = sum(1 for s in ledger.unsure[kind] if got.keys() >= set(s))
        rep.say(f"{dest:>7} {queue:<16} acked {len(acked):6} dequeued {len(got):6} "
                f"(unacked sets committed {unsure_in}/{len(ledger.unsure[kind])}) "
                f"lost {len(lost)} duplicated {len(dup)} unknown {len(invented)} partial sets {len(partial)}")
        rep.check(not lost, f"{dest}: {len(lost)} acknowledged ids never dequeued, e.g. {sorted(lost)[:5]}")
        rep.check(not dup, f"{dest}: {len(dup)} ids dequeued more than once, e.g. {sorted(dup.items())[:5]}")
        rep.check(not invented, f"{dest}: ids nobody sent: {sorted(invented)[:5]}")
        rep.check(not partial, f"{dest}: {len(partial)} message sets only partly committed")
    # a topic message reaches all three destinations or (uncommitted) none
    per = {}
    for dest, (db, _, kind) in DESTINATIONS.items():
        if kind == "publish":
            c = await asyncpg.connect(mesh.dsn(db))
            try:
                per[dest] = {r["id"] for r in await c.fetch("SELECT id FROM chaos_ledger WHERE dest = $1", dest)}
            finally:
                await c.close()
    sets = list(per.values())
    rep.check(all(x == sets[0] for x in sets), "the topic's destinations did not all get the same ids")
    await _notifications(mesh, rep)
    await _schedules(mesh, rep)


async def _notifications(mesh: Mesh, rep: Report) -> None:
    c = await asyncpg.connect(mesh.dsn("src"))
    try:
        rows = await c.fetch("SELECT id::text AS id, queue_name, state, attempts FROM aq.notifications")
        inq = await c.fetchval("SELECT count(DISTINCT id) FROM chaos_ledger WHERE dest = 'inq'")
        local = await c.fetchval("SELECT count(DISTINCT id) FROM chaos_ledger WHERE dest = 'local'")
    finally:
        await c.close()
    for queue, sink, enqueued, what in (("CHAOS.INQ", mesh.http.seen, inq, "http"),
                                        ("CHAOS.LOCAL_IN", mesh.smtp.seen, local, "mailto")):
        mine = [r for r in rows if r["queue_name"].upper() == queue]
        delivered = {r["id"] for r in mine if r["state"] == "DELIVERED"}
        undelivered = [r for r in mine if r["state"] != "DELIVERED"]
        seen = {k.lower() for k in sink}
        dups = sum(n - 1 for n in sink.values())
        rep.say(f"{what:>7} notifications {len(mine):6} delivered {len(delivered):6} "
                f"received ids {len(seen):6} duplicate deliveries {dups} (same id)")
        rep.check(len(mine) == enqueued, f"{what}: {len(mine)} notifications for {enqueued} messages")
        rep.check(not undelivered, f"{what}: {len(undelivered)} notifications not delivered, "
                                   f"e.g. {[dict(r) for r in undelivered[:3]]}")
        rep.check(delivered <= seen, f"{what}: {len(delivered - seen)} delivered notifications never arrived")
        rep.check(seen <= {r["id"] for r in mine}, f"{what}: notification ids the database does not know")


async def _schedules(mesh: Mesh, rep: Report) -> None:
    c = await asyncpg.connect(mesh.dsn("src"))
    try:
        rows = await c.fetch("SELECT destination, total_number, failures, schedule_disabled "
                             "FROM dba_queue_schedules ORDER BY destination NULLS FIRST")
    finally:
        await c.close()
    for r in rows:
        rep.say(f"schedule {r['destination'] or 'local':>6} moved {r['total_number']:6} "
                f"failures now {r['failures']} disabled {r['schedule_disabled']}")
        rep.check(r["schedule_disabled"] == "N", f"schedule to {r['destination']} left disabled")


async def run(s: Settings) -> Report:
    rep = Report()
    rng = random.Random(s.seed)
    mesh = Mesh(s)
    t0 = time.monotonic()
    try:
        await mesh.start()
        rep.say(f"chaos: {s.messages} messages, seed {s.seed}, {s.kills} kills per service; "
                f"mesh up in {time.monotonic() - t0:.1f}s")
        consumers = [Consumer(mesh.dsn(db), q, d) for d, (db, q, _) in DESTINATIONS.items()]
        eating = [asyncio.ensure_future(c.run()) for c in consumers]
        woke: asyncio.Queue[str] = asyncio.Queue()
        receivers = [asyncio.ensure_future(blocked_receiver(mesh.url_a, woke)) for _ in range(s.receivers)]
        load = Load(mesh.url_a, AGENT, PASSWORD, s.messages)
        t1 = time.monotonic()
        loading = asyncio.ensure_future(load.run())
        await fault_driver(mesh, rng, rep.say)
        ledger = await loading
        rep.say(f"load and faults done in {time.monotonic() - t1:.1f}s; {ledger.retries} sets sent again")
        # the receivers have been blocked through all of it: wake them
        src = await asyncpg.connect(mesh.dsn("src"))
        try:
            sess = Session(src)
            for i in range(s.receivers):
                await sess.enqueue("chaos.wake", f"wake{i}".encode())
        finally:
            await src.close()
        t2 = time.monotonic()
        ok = await drained(mesh, ledger, s.drain_timeout)
        rep.say(f"drained in {time.monotonic() - t2:.1f}s" if ok else "NOT drained before the timeout")
        rep.check(ok, "the backlog did not drain")
        try:
            await asyncio.wait_for(asyncio.gather(*receivers), 60)
        except TimeoutError:
            pass
        rep.say(f"blocked receivers woke: {woke.qsize()}/{s.receivers}")
        rep.check(woke.qsize() == s.receivers, "a blocked receiver never woke")
        for c in consumers:
            c.stop.set()
        await asyncio.gather(*eating)
        await account(mesh, ledger, rep)
        for svc in mesh.services.values():
            rep.say(f"service {svc.name:<12} SIGKILLed {svc.kills} died on its own {len(svc.deaths)} {svc.deaths}")
        assert mesh.proxy is not None
        rep.say(f"postgres restarts {mesh.pg_restarts}; link cuts {mesh.proxy.cuts}; "
                f"http sink refused {mesh.http.refused}; smtp sink refused {mesh.smtp.refused}; "
                f"consumer reconnects {sum(c.reconnects for c in consumers)}")
        for r in receivers:
            r.cancel()
    finally:
        await mesh.stop()
    rep.say(f"chaos: {'PASS' if not rep.violations else f'FAIL ({len(rep.violations)} violations)'} "
            f"in {time.monotonic() - t0:.1f}s")
    return rep
