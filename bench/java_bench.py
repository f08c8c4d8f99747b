"""The Java JMS provider `pgaq.jms` (java/) beside ActiveMQ 5.17 and beside the engine floor,
in the same run.

The peer: Debian's `activemq` package (5.17), a private broker started here from its own
activemq.xml in a temporary directory: KahaDB persistence with the journal synced on every
write (journalDiskSyncStrategy="always", the `enableJournalDiskSyncs` of older releases),
one OpenWire transport on 127.0.0.1 on a free port, no web console, no JMX, no other
transport; the JVM options of Debian's /usr/share/activemq/activemq-options (-Xms512M
-Xmx512M, UseDedicatedTaskRunner). It is run as `java -Dactivemq.home=... -jar
/usr/share/activemq/bin/activemq.jar start xbean:file:<tmp>/conf/activemq.xml` (the
broker's console Main in the foreground, so its PID is the broker's JVM), warmed up with
an unmeasured send and drain, and stopped with SIGTERM at the end.

Both providers are driven by the same Java program, java/bench/pgaq/bench/JmsBench.java
(`java/build bench`), each of its runs a JVM of its own: ActiveMQ through its OpenWire
client with the client's defaults (tcp://127.0.0.1:PORT), pgaq through
`AQjmsFactory.getConnectionFactory(jdbcURL, info)` against the bench's PostgreSQL over
loopback TCP. Every message is a PERSISTENT TextMessage of 100 characters with one string
property; pgaq's queues are single-consumer queue tables of SYS.AQ$_JMS_TEXT_MESSAGE.

Rows (pgaq's figure in the pgaq column, ActiveMQ's in the floor column):
- JV1 send, one message per transaction: `concurrency` producers, each on its own
  Connection and non-transacted AUTO_ACKNOWLEDGE Session (a send is one transaction).
- JV2 consume AUTO_ACKNOWLEDGE one at a time: `concurrency` consumers, each on its own
  Connection, `receive()` in a loop from a queue the driver pre-filled (transacted
  sends, 500 per commit, unmeasured; sized from the provider's last rate, at first from
  its send rate, at least BENCH_JAVA_FILL); the clock runs from the Connections' start
  (so a prefetch is inside it) to the last acknowledgement, at most the half's seconds
  (a queue drained sooner is said in the row). Context row JV2s: ActiveMQ's client with
  jms.sendAcksAsync=false, whose broker then syncs each removal before answering (by
  default the ack goes one-way and KahaDB writes the removal unsynced: strace counted 12
  fsyncs for 30,000 such receives, 4,977 for 4,974 sends), as pgaq commits each REMOVE.
- JV3 as JV2 with transacted Sessions committing every 10 messages.
- JV4 listener wake-up: a MessageListener on an empty queue, another Connection sends
  one message, ms from send() returning to onMessage; 10-20 ms between deliveries,
  BENCH_JAVA_ROUNDS (60) per provider, both providers' defaults (pgaq's safety poll of
  1 s included). Negative: the listener had the message before send() returned
  (ActiveMQ dispatches while it stores).
Each throughput figure runs A-B-B-A (ActiveMQ, pgaq, pgaq, ActiveMQ), each half
BENCH_SECONDS / 2 after a warm-up of BENCH_WARMUP in the same JVM; JV4 the same with half
the rounds each. Target: pgaq >= 1.0x ActiveMQ; JV4 p50 <= 5 ms.

Context rows, not targets: JVnf, the Java provider beside the engine floor measured
right after it (JV1: `Session.enqueue` of the payload pgaq.jms stores for that message,
1 msg/txn; JV2: REMOVE, autocommit; JV3: REMOVE ON_COMMIT x10 then COMMIT; JV4: the
library wait `Session.dequeue(wait=30)` woken by an enqueue), all on `concurrency`
asyncpg connections, with the Python pgaq.jms figure of the jms suite (J1, J2, J4, J5)
when it ran; JVnc, CPU per message over the measured windows: the client JVM's process
CPU, and the server's, ActiveMQ's broker JVM or PostgreSQL (the postmaster and all its
children, from /proc), beside the engine floor's (the bench process and PostgreSQL).
A pgaq provider that cannot connect (the factory throws) is reported as missing in its
rows, a scenario that fails as FAILED in its own; ActiveMQ's figures are still printed.
A row that misses its target says where the gap goes: the engine floor against ActiveMQ
(what PostgreSQL and the engine allow) and the provider against the floor, and the CPU
per message of each side. The machine's load average before the suite is in the facts
and, when it was busy, in JV1's note: the figures share its CPUs with whatever ran.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import random
import shutil
import signal
import socket
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import pgaq.jms as jms
from pgaq import DequeueOptions, MessageProperties, Payload, Session, waiting
from pgaq.embedded import free_port
from pgaq.jms import codec

from .core_bench import log
from .measure import Result, percentile, run_ops
from .report import Row
from .settings import Settings

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "java" / "build"
ACTIVEMQ_HOME = Path(os.environ.get("BENCH_ACTIVEMQ_HOME", "/usr/share/activemq"))
TEXT = "x" * 100
KIND = "SYS.AQ$_JMS_TEXT_MESSAGE"
QUEUES = ("send", "consume", "tx", "wake", "send_floor", "consume_floor", "tx_floor", "wake_floor")
SCHEMA = "CREATE SCHEMA javab;\n" + "".join(
    f"CALL dbms_aqadm.create_queue_table('javab.{q}_t', '{KIND}');\n"
    f"CALL dbms_aqadm.create_queue('javab.{q}', 'javab.{q}_t');\n"
    f"CALL dbms_aqadm.start_queue('javab.{q}');\n" for q in QUEUES)
CLK_TCK = os.sysconf("SC_CLK_TCK")
# what the driver's JVM may take, at most, for one run (a fill of a slow provider included)
DRIVER_TIMEOUT = 900.0

ACTIVEMQ_XML = """<beans xmlns="http://www.springframework.org/schema/beans"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.springframework.org/schema/beans
    http://www.springframework.org/schema/beans/spring-beans-2.0.xsd
    http://activemq.apache.org/schema/core http://activemq.apache.org/schema/core/activemq-core.xsd">
  <!-- pgaq's bench: persistent KahaDB, its journal synced on every write; OpenWire on
       loopback only; no JMX, no web console, no other transport -->
  <broker xmlns="http://activemq.apache.org/schema/core" brokerName="pgaq-bench"
          useJmx="false" persistent="true" dataDirectory="{data}">
    <persistenceAdapter>
      <kahaDB directory="{data}/kahadb" journalDiskSyncStrategy="always"/>
    </persistenceAdapter>
    <transportConnectors>
      <transportConnector name="openwire" uri="tcp://127.0.0.1:{port}"/>
    </transportConnectors>
  </broker>
</beans>
"""
LOG4J = """log4j.rootLogger=WARN, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File={data}/activemq.log
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=%d %-5p [%t] %c - %m%n
"""
# Debian's /usr/share/activemq/activemq-options for its instances
BROKER_JVM = ["-Xms512M", "-Xmx512M", "-Dorg.apache.activemq.UseDedicatedTaskRunner=true"]


# -- CPU from /proc ---------------------------------------------------------------------

def _stat(pid: int | str) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def tree_cpu(root: int) -> float:
    """CPU seconds of `root` and its children: its utime+stime+cutime+cstime (the last two
    its reaped children's) plus utime+stime of each live child (the driver's measure)."""
    ticks = 0
    f = _stat(root)
    if f:
        ticks += sum(int(x) for x in f[11:15])
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            c = _stat(pid)
            if c and int(c[1]) == root:
                ticks += int(c[11]) + int(c[12])
    return ticks / CLK_TCK


def parent_pid(pid: int) -> int:
    f = _stat(pid)
    return int(f[1]) if f else 0


# -- the ActiveMQ broker ------------------------------------------------------------------

@dataclass
class Broker:
    url: str
    pid: int
    base: Path


def _port_open(port: int) -> bool:
    with contextlib.closing(socket.socket()) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextlib.asynccontextmanager
async def activemq_broker() -> AsyncIterator[Broker]:
    """A private ActiveMQ broker (see the module's docstring), stopped and removed after."""
    jar = ACTIVEMQ_HOME / "bin" / "activemq.jar"
    if not jar.is_file():
        raise FileNotFoundError(f"{jar} (Debian package activemq) is not installed")
    base = Path(tempfile.mkdtemp(prefix="pgaq-bench-activemq-"))
    conf, data = base / "conf", base / "data"
    conf.mkdir()
    data.mkdir()
    port = free_port()
    (conf / "activemq.xml").write_text(ACTIVEMQ_XML.format(data=data, port=port))
    (conf / "log4j.properties").write_text(LOG4J.format(data=data))
    out = os.open(base / "console.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    proc = await asyncio.create_subprocess_exec(
        "java", *BROKER_JVM, f"-Dactivemq.home={ACTIVEMQ_HOME}", f"-Dactivemq.base={base}",
        f"-Dactivemq.conf={conf}", f"-Dactivemq.data={data}",
        f"-Dlog4j.configuration=file:{conf / 'log4j.properties'}",
        "-jar", str(jar), "start", f"xbean:file:{conf / 'activemq.xml'}",
        stdout=out, stderr=asyncio.subprocess.STDOUT, cwd=base)
    try:
        deadline = time.monotonic() + 90
        while not await asyncio.to_thread(_port_open, port):
            if proc.returncode is not None or time.monotonic() > deadline:
                tail = (base / "console.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"ActiveMQ did not open port {port}: {tail}")
            await asyncio.sleep(0.2)  # the JVM is starting; nothing to wait on but the port
        yield Broker(f"tcp://127.0.0.1:{port}", proc.pid, base)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), 60)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        os.close(out)
        shutil.rmtree(base, ignore_errors=True)


# -- the driver ---------------------------------------------------------------------------

async def _run(*cmd: str, timeout: float = 600) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE, cwd=ROOT)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return -1, "", f"timed out after {timeout:g} s: {' '.join(cmd[:3])}"
    return proc.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace")


async def build_driver() -> str:
    """`java/build bench` (the jar and the driver), then the driver's classpath."""
    if shutil.which("java") is None or shutil.which("javac") is None:
        raise FileNotFoundError("java and javac (Debian's default-jdk-headless) are not installed")
    rc, out, err = await _run(str(BUILD), "bench", timeout=600)
    if rc:
        raise RuntimeError(f"java/build bench failed ({rc}): {(err or out).strip()[-1500:]}")
    rc, out, err = await _run(str(BUILD), "bench-classpath", timeout=60)
    if rc:
        raise RuntimeError(f"java/build bench-classpath failed ({rc}): {err.strip()[-500:]}")
    return out.strip()


def _tail(text: str, n: int = 600) -> str:
    return " ".join(text.strip().split())[-n:]


async def drive(cp: str, provider: str, url: str, scenario: str, queue: str,
                **opts: Any) -> dict[str, Any]:
    """One run of JmsBench: its JSON line, or {"error": ...}."""
    import json

    cmd = ["java", "-cp", cp, "pgaq.bench.JmsBench", "--provider", provider, "--url", url,
           "--scenario", scenario, "--queue", queue, "--clk-tck", str(CLK_TCK)]
    for k, v in opts.items():
        for one in v if isinstance(v, list) else [v]:
            cmd += [f"--{k.replace('_', '-')}", str(one)]
    rc, out, err = await _run(*cmd, timeout=DRIVER_TIMEOUT)
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            got: dict[str, Any] = json.loads(line)
            if rc and "error" not in got:
                got["error"] = f"exit {rc}: {_tail(err)}"
            got["exit"] = rc
            return got
    return {"error": f"exit {rc}, no result: {_tail(err or out)}", "exit": rc}


def join(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The halves of one provider's A-B-B-A: sums, rates and CPU per message of the sums."""
    msgs = sum(int(r["msgs"]) for r in runs)
    secs = sum(float(r["seconds"]) for r in runs)
    client = sum(float(r["client_cpu_s"]) for r in runs)
    server: dict[str, float] = {}
    for r in runs:
        for name, c in (r.get("cpu") or {}).items():
            server[name] = server.get(name, 0.0) + float(c["cpu_s"])
    j: dict[str, Any] = {
        "msgs": msgs, "seconds": round(secs, 3), "rate": msgs / secs if secs else 0.0,
        "client_us": client * 1e6 / msgs if msgs else 0.0,
        "server_us": {k: v * 1e6 / msgs if msgs else 0.0 for k, v in server.items()},
        "dry": any(r.get("dry") for r in runs), "halves": [r.get("msg_per_s") for r in runs]}
    wake = [x for r in runs for x in r.get("wake_ms") or []]
    if wake:
        j.update({"p50": statistics.median(wake), "p99": percentile(wake, 99),
                  "samples": len(wake), "early": sum(1 for x in wake if x < 0),
                  "p50_from_call": statistics.median(
                      [float(r["wake_from_send_call_p50_ms"]) for r in runs])})
    return j


# -- the suite ----------------------------------------------------------------------------

@dataclass
class Floor:
    """An engine floor's figure, with the bench process's and PostgreSQL's CPU per message."""
    result: Result
    client_us: float
    pg_us: float
    p50: float = 0.0
    p99: float = 0.0


@dataclass
class JavaBench:
    dsn: str
    s: Settings
    cp: str = ""
    broker: Broker | None = None
    postmaster: int = 0
    admin: asyncpg.Connection | None = None
    conns: list[asyncpg.Connection] = field(default_factory=list)
    sessions: list[Session] = field(default_factory=list)
    payload: Payload = None
    props: MessageProperties = field(default_factory=MessageProperties)
    pgaq_error: str = ""  # the provider cannot connect: every pgaq row says so
    amq_error: str = ""
    errors: dict[tuple[str, str], str] = field(default_factory=dict)  # a scenario's failure
    facts: dict[str, Any] = field(default_factory=dict)
    # the last consume rate of each provider and scenario: what the next fill is sized by
    rates: dict[tuple[str, str], float] = field(default_factory=dict)

    @property
    def a(self) -> asyncpg.Connection:
        assert self.admin is not None
        return self.admin

    @property
    def jdbc_url(self) -> str:
        from urllib.parse import urlsplit

        u = urlsplit(self.dsn)
        return f"jdbc:postgresql://{u.hostname}:{u.port}{u.path}"

    @property
    def user(self) -> str:
        from urllib.parse import urlsplit

        return urlsplit(self.dsn).username or "postgres"

    async def open(self) -> None:
        self.admin = await asyncpg.connect(self.dsn)
        await self.a.execute(SCHEMA)
        self.postmaster = parent_pid(int(await self.a.fetchval("SELECT pg_backend_pid()")))
        self.conns = [await asyncpg.connect(self.dsn) for _ in range(self.s.concurrency)]
        self.sessions = [Session(c) for c in self.conns]
        # what pgaq.jms (Python) stores for the benchmark's message: the floors enqueue it
        probe = await jms.ConnectionFactory(self.dsn).create_connection()
        try:
            m = probe.create_session().create_text_message(TEXT)
            m.set_string_property("region", "EU")
            m.jms_destination = jms.Queue("javab", "send_floor")
            m.jms_delivery_mode = jms.PERSISTENT
            m.jms_priority = jms.DEFAULT_PRIORITY
            m.jms_timestamp = int(time.time() * 1000)
            self.payload, self.props = codec.to_engine(m, "JMS_TEXT")
        finally:
            await probe.close()

    async def close(self) -> None:
        for c in [*self.conns, *([self.admin] if self.admin else [])]:
            await c.close()

    # -- one provider's run ----------------------------------------------------------------
    async def one(self, provider: str, scenario: str, queue: str, seconds: float,
                  url_options: str = "", **opts: Any) -> dict[str, Any] | None:
        """A driver run of `provider`, or None when that provider is missing/failed."""
        if provider == "pgaq":
            if self.pgaq_error:
                return None
            await self.a.execute("CHECKPOINT")
            r = await drive(self.cp, "pgaq", self.jdbc_url, scenario, f"javab.{queue}",
                            user=self.user, cpu=f"postgres={self.postmaster}",
                            threads=self.s.concurrency, seconds=seconds, warmup=self.s.warmup,
                            **opts)
        else:
            if self.amq_error or self.broker is None:
                return None
            r = await drive(self.cp, "activemq", self.broker.url + url_options, scenario,
                            f"bench.{queue}",
                            cpu=f"broker={self.broker.pid}", threads=self.s.concurrency,
                            seconds=seconds, warmup=self.s.warmup, **opts)
        self.facts.setdefault("runs", []).append(r)
        if "error" in r:
            log(f"java {scenario}: {provider} failed: {r['error'][:300]}")
            self.errors[(provider, scenario)] = str(r["error"])
            if r.get("exit") == 3:  # it cannot connect: no later run of it either
                if provider == "pgaq":
                    self.pgaq_error = str(r["error"])
                else:
                    self.amq_error = str(r["error"])
            return None
        return r

    def error(self, provider: str, scenario: str) -> str:
        """Why `provider` has no figure for `scenario` ("" when it has one)."""
        whole = self.pgaq_error if provider == "pgaq" else self.amq_error
        return whole or self.errors.get((provider, scenario), "")

    def fill_for(self, provider: str, scenario: str, seconds: float | None = None) -> int:
        """Messages to pre-fill for a consume half: its warm-up and half at the last rate
        of this provider and scenario, with a margin; before one was measured, ActiveMQ's
        the larger of its warm-up drain's and 10x its send rate (it receives 5-10x faster
        than it sends, and a fill costs it little), pgaq's 5x its send rate (what an
        earlier half left counts, and its fill goes at its own send speed)."""
        rate = self.rates.get((provider, scenario))
        if not rate:
            send = self.rates.get((provider, "send"), 3000.0)
            rate = (max(10 * send, self.rates.get(("activemq", "warm-up"), 0.0))
                    if provider == "activemq" else 5 * send)
        seconds = self.s.seconds / 2 if seconds is None else seconds
        return max(self.s.java_fill, int(rate * (self.s.warmup + seconds) * 1.3))

    async def abba(self, scenario: str, queue: str) -> dict[str, dict[str, Any] | None]:
        """ActiveMQ, pgaq, pgaq, ActiveMQ; each provider's halves joined (None: missing)."""
        half = self.s.seconds / 2
        runs: dict[str, list[dict[str, Any]]] = {"activemq": [], "pgaq": []}
        for provider in ("activemq", "pgaq", "pgaq", "activemq"):
            opts: dict[str, Any] = {}
            if scenario in ("consume", "transacted"):
                opts["fill"] = self.fill_for(provider, scenario)
                if provider == "pgaq":  # what an earlier half left counts
                    opts["fill"] = max(0, opts["fill"] - await self.left(f"javab.{queue}"))
            if scenario == "wakeup":
                opts["rounds"] = max(30, self.s.java_rounds // 2)
            r = await self.one(provider, scenario, queue, half, **opts)
            if r is not None:
                runs[provider].append(r)
                self.rates[(provider, scenario)] = float(r.get("msg_per_s") or 0)
        out = {p: join(rs) if rs and len(rs) == 2 else None for p, rs in runs.items()}
        amq, ours = out["activemq"], out["pgaq"]
        def said(j: dict[str, Any] | None) -> str:
            if j is None:
                return "missing"
            return f"p50 {j['p50']:.2f} ms" if scenario == "wakeup" else f"{j['rate']:,.0f}/s"

        log(f"java {scenario}: ActiveMQ {said(amq)}, pgaq {said(ours)}")
        return out

    async def synced_acks(self) -> dict[str, Any] | None:
        """ActiveMQ's AUTO_ACKNOWLEDGE receive loop with its acknowledgements sent
        synchronously (jms.sendAcksAsync=false): the broker then syncs each removal to its
        journal before answering, as pgaq commits each REMOVE. By default the client sends
        them one-way and KahaDB writes the removals without a sync of their own."""
        r = await self.one("activemq", "consume", "consume_synced", self.s.seconds,
                           url_options="?jms.sendAcksAsync=false",
                           fill=max(self.s.java_fill, int(2 * self.rates.get(
                               ("activemq", "send"), 6000) * (self.s.warmup + self.s.seconds))))
        return join([r]) if r else None

    # -- the engine floors -----------------------------------------------------------------
    async def floor(self, ops: list[Callable[[], Awaitable[object]]], items: int = 1) -> Floor:
        await self.a.execute("CHECKPOINT")
        if self.s.warmup > 0:
            await run_ops(ops, self.s.warmup)
        c0, p0 = time.process_time(), tree_cpu(self.postmaster)
        r = await run_ops(ops, self.s.seconds, items)
        c1, p1 = time.process_time(), tree_cpu(self.postmaster)
        n = r.ops * items
        lat = r.latencies
        r.latencies = []
        return Floor(r, (c1 - c0) * 1e6 / n if n else 0, (p1 - p0) * 1e6 / n if n else 0,
                     statistics.median(lat) * 1000 if lat else 0, percentile(lat, 99) * 1000)

    async def fill_floor(self, queue: str, n: int) -> None:
        parts = [min(1000, n - i) for i in range(0, n, 1000)]

        async def worker(x: Session) -> None:
            while parts:
                k = parts.pop()
                await x.enqueue_array(queue, [(self.payload, self.props)] * k)

        await asyncio.gather(*(worker(x) for x in self.sessions))
        await self.a.execute(f"VACUUM ANALYZE {queue}_t")

    async def send_floor(self) -> Floor:
        return await self.floor([functools.partial(x.enqueue, "javab.send_floor", self.payload, self.props)
                                 for x in self.sessions])

    async def remove_floor(self, enqueue_rate: float) -> Floor:
        n = max(20_000, int(enqueue_rate * (self.s.warmup + self.s.seconds) * 3))
        await self.fill_floor("javab.consume_floor", n)

        async def remove(x: Session) -> bool:
            return bool(await x.dequeue("javab.consume_floor"))

        f = await self.floor([functools.partial(remove, x) for x in self.sessions])
        f.result.dry = f.result.dry or await self.left("javab.consume_floor") == 0
        return f

    async def tx_floor(self, enqueue_rate: float) -> Floor:
        n = max(20_000, int(enqueue_rate * (self.s.warmup + self.s.seconds) * 3))
        await self.fill_floor("javab.tx_floor", n)
        conns = [await asyncpg.connect(self.dsn) for _ in range(self.s.concurrency)]
        try:
            sessions = [Session(c) for c in conns]
            opts = DequeueOptions(visibility="ON_COMMIT")

            async def ten(x: Session) -> bool:
                await x.begin()
                got = 0
                for _ in range(10):
                    got += bool(await x.dequeue("javab.tx_floor", opts))
                await x.commit()
                return got == 10

            return await self.floor([functools.partial(ten, x) for x in sessions], items=10)
        finally:
            for c in conns:
                await c.close()

    async def left(self, queue: str) -> int:
        return int(await self.a.fetchval(f"SELECT count(*) FROM {queue}_t"))

    async def wake_floor(self) -> Floor:
        """The library wait woken by an enqueue on another connection (jms_bench J5's floor)."""
        waiter = await asyncpg.connect(self.dsn)
        rounds = max(60, self.s.java_rounds)
        try:
            lib = Session(waiter, safety_poll=60)
            sender = self.sessions[0]
            woken: list[float] = []
            c0, p0 = time.process_time(), tree_cpu(self.postmaster)
            for i in range(rounds + 5):
                call = asyncio.create_task(lib.dequeue("javab.wake_floor", DequeueOptions(wait=30)))
                await asyncio.sleep(random.uniform(0.01, 0.02))
                await sender.enqueue("javab.wake_floor", self.payload, self.props)
                sent = time.perf_counter()
                assert await call
                if i >= 5:
                    woken.append((time.perf_counter() - sent) * 1000)
            c1, p1 = time.process_time(), tree_cpu(self.postmaster)
            await waiting.shutdown()
        finally:
            await waiter.close()
        n = rounds + 5
        return Floor(Result(rounds, 0, []), (c1 - c0) * 1e6 / n, (p1 - p0) * 1e6 / n,
                     statistics.median(woken), percentile(woken, 99))


# -- rows ---------------------------------------------------------------------------------

def _missing(error: str) -> str:
    """What a provider without a figure shows: "missing" when it is not there (not
    installed, or a factory that says "not yet"), else "FAILED"."""
    gone = ("not yet", "JMS-100", "not installed")
    return "missing" if any(g in error for g in gone) else "FAILED"


def _cpu_text(j: dict[str, Any], server: str) -> str:
    s = sum(j["server_us"].values())
    return f"client {j['client_us']:,.0f} + {server} {s:,.0f} = {j['client_us'] + s:,.0f} us/msg"


def throughput_rows(num: str, scenario: str, label: str, out: dict[str, dict[str, Any] | None],
                    fl: Floor, b: JavaBench, python_jms: str, how: str, floor_how: str
                    ) -> list[Row]:
    amq, ours = out["activemq"], out["pgaq"]
    perr, aerr = b.error("pgaq", scenario), b.error("activemq", scenario)
    c = b.s.concurrency
    row: Row = {"benchmark": f"{num}. Java JMS {label}, {c} conns, vs ActiveMQ", "unit": "msg/s",
                "target": 1.0}
    notes = [f"floor column: ActiveMQ 5.17 (KahaDB, journal synced); {how}"]
    if amq:
        row["floor"] = round(amq["rate"], 1)
        row["floor_ops"] = amq["msgs"]
        if amq["dry"]:
            notes.append("ActiveMQ drained its queue in a half: rate to the last ack")
    else:
        row["floor"] = _missing(aerr)
        row["target"] = ">= 1x"
        row["pass"] = False
        notes.append(f"ActiveMQ: {aerr[:160]}")
    if ours:
        row["pgaq"] = round(ours["rate"], 1)
        row["pgaq_ops"] = ours["msgs"]
        if ours["dry"]:
            notes.append("pgaq drained its queue in a half: rate to the last ack")
        if amq:
            row["ratio"] = round(ours["rate"] / amq["rate"], 3) if amq["rate"] else 0.0
            row["pass"] = row["ratio"] >= 1.0
            if not row["pass"]:
                notes.append("gap: " + gap(ours, amq, fl))
    else:
        row["pgaq"] = _missing(perr)
        row["pass"] = False
        row["target"] = ">= 1x"
        notes.append(f"pgaq: {perr[:160]}")
    row["note"] = "; ".join(notes)
    row["java"] = {"activemq": amq, "pgaq": ours}

    f = fl.result
    frow: Row = {"benchmark": f"{num}f. Java JMS {label} vs engine floor", "unit": "msg/s",
                 "floor": round(f.rate, 1), "target": "info", "context": True,
                 "floor_ops": f.ops * f.items_per_op}
    fnotes = [f"context: floor {floor_how}, {c} connections, {b.s.seconds:g} s"]
    if f.dry:
        fnotes.append("floor RAN DRY")
    if ours:
        frow["pgaq"] = round(ours["rate"], 1)
        frow["ratio"] = round(ours["rate"] / f.rate, 3) if f.rate else 0.0
    else:
        frow["pgaq"] = _missing(perr)
    if python_jms:
        fnotes.append(python_jms)
    frow["note"] = "; ".join(fnotes)
    return [row, frow, cpu_row(num, label, out, fl)]


def cpu_row(num: str, label: str, out: dict[str, dict[str, Any] | None], fl: Floor) -> Row:
    amq, ours = out["activemq"], out["pgaq"]

    def total(j: dict[str, Any]) -> float:
        return float(j["client_us"] + sum(j["server_us"].values()))

    row: Row = {"benchmark": f"{num}c. CPU us/msg, {label}", "unit": "us/msg", "target": "info",
                "context": True,
                "pgaq": round(total(ours), 1) if ours else "-",
                "floor": round(total(amq), 1) if amq else "-"}
    notes = ["context, lower is better: client + server CPU per message over the measured "
             "windows"]
    if ours:
        notes.append("pgaq " + _cpu_text(ours, "PostgreSQL"))
    if amq:
        notes.append("ActiveMQ " + _cpu_text(amq, "broker"))
    if ours and amq and total(amq):
        row["ratio"] = round(total(ours) / total(amq), 3)
    notes.append(f"engine floor: bench process {fl.client_us:,.0f} + PostgreSQL "
                 f"{fl.pg_us:,.0f} us/msg")
    row["note"] = "; ".join(notes)
    return row


def synced_row(ours: dict[str, Any] | None, synced: dict[str, Any] | None,
               b: JavaBench) -> Row:
    perr = b.error("pgaq", "consume")
    row: Row = {"benchmark": "JV2s. Java JMS receive AUTO_ACK vs ActiveMQ, acks synced",
                "unit": "msg/s", "target": "info", "context": True,
                "pgaq": round(ours["rate"], 1) if ours else _missing(perr),
                "floor": round(synced["rate"], 1) if synced else "-"}
    if ours and synced and synced["rate"]:
        row["ratio"] = round(ours["rate"] / synced["rate"], 3)
    notes = ["context: ActiveMQ's client with jms.sendAcksAsync=false, so each "
             "acknowledgement waits for the broker to sync the removal to its journal (by "
             f"default it is sent one-way and not synced), {b.s.seconds:g} s, one run; "
             "pgaq's figure is JV2's"]
    if synced:
        notes.append("ActiveMQ " + _cpu_text(synced, "broker"))
    row["note"] = "; ".join(notes)
    return row


def gap(ours: dict[str, Any], amq: dict[str, Any], fl: Floor) -> str:
    """Where a missed throughput target's gap goes: the engine floor against ActiveMQ (what
    PostgreSQL and the engine allow at all) and the provider against the floor (what the
    Java provider loses on top), with the CPU each side spends per message on 2 cores."""
    floor_vs_amq = fl.result.rate / amq["rate"] if amq["rate"] else 0.0
    ours_vs_floor = ours["rate"] / fl.result.rate if fl.result.rate else 0.0
    pg = sum(ours["server_us"].values())
    broker = sum(amq["server_us"].values())
    return (f"engine floor {floor_vs_amq:.2f}x of ActiveMQ, the provider {ours_vs_floor:.2f}x of "
            f"the floor; CPU: pgaq client {ours['client_us']:,.0f} vs ActiveMQ client "
            f"{amq['client_us']:,.0f} us/msg, PostgreSQL {pg:,.0f} (floor's {fl.pg_us:,.0f}) vs "
            f"broker {broker:,.0f} us/msg")


def wake_rows(out: dict[str, dict[str, Any] | None], fl: Floor, b: JavaBench,
              python_jms: str) -> list[Row]:
    amq, ours = out["activemq"], out["pgaq"]
    perr, aerr = b.error("pgaq", "wakeup"), b.error("activemq", "wakeup")
    row: Row = {"benchmark": "JV4. Java JMS listener woken (ms p50) vs ActiveMQ", "unit": "ms",
                "target": "p50 <= 5"}
    notes = ["floor column: ActiveMQ; send() returned -> onMessage, 10-20 ms apart, both "
             "providers' defaults"]
    if amq:
        row.update({"floor": round(amq["p50"], 2), "floor_p50_ms": round(amq["p50"], 3),
                    "floor_p99_ms": round(amq["p99"], 3)})
        notes.append(f"ActiveMQ: {amq['early']} of {amq['samples']} delivered before send() "
                     f"returned (dispatch concurrent with the store), p50 from the send() call "
                     f"{amq['p50_from_call']:.2f} ms")
    else:
        row["floor"] = _missing(aerr)
        notes.append(f"ActiveMQ: {aerr[:160]}")
    if ours:
        row.update({"pgaq": round(ours["p50"], 2), "pgaq_p50_ms": round(ours["p50"], 3),
                    "pgaq_p99_ms": round(ours["p99"], 3), "pass": ours["p50"] <= 5.0})
        if not amq:  # _cells shows p50/p99 only with both
            notes.append(f"pgaq p99 {ours['p99']:.2f} ms")
        notes.append(f"{ours['samples']} wake-ups each")
        if not row["pass"]:
            notes.append(f"gap: the engine's library wait p50 {fl.p50:.2f} ms; pgaq p50 from "
                         f"the send() call {ours['p50_from_call']:.2f} ms; the provider's "
                         "listener is woken by the enqueue's NOTIFY, else by its safety poll "
                         "(pgaq.safetyPollMillis, default 1000 ms): hundreds of ms is the poll")
    else:
        row["pgaq"] = _missing(perr)
        row["pass"] = False
        notes.append(f"pgaq: {perr[:160]}")
    row["note"] = "; ".join(notes)
    row["java"] = {"activemq": amq, "pgaq": ours}
    frow: Row = {"benchmark": "JV4f. Java JMS listener woken vs engine wait (ms p50)",
                 "unit": "ms", "floor": round(fl.p50, 2), "target": "info", "context": True,
                 "pgaq": round(ours["p50"], 2) if ours else _missing(perr),
                 "floor_p50_ms": round(fl.p50, 3), "floor_p99_ms": round(fl.p99, 3)}
    if ours:
        frow.update({"pgaq_p50_ms": round(ours["p50"], 3), "pgaq_p99_ms": round(ours["p99"], 3),
                     "ratio": round(ours["p50"] / fl.p50, 3) if fl.p50 else 0.0})
    fnotes = ["context: floor the engine's Session.dequeue(wait=30) woken by an enqueue on "
              "another connection; ratio: pgaq/floor ms"]
    if python_jms:
        fnotes.append(python_jms)
    frow["note"] = "; ".join(fnotes)
    return [row, frow]


def _python_jms(rows: list[Row], prefix: str) -> str:
    """The Python pgaq.jms figure of the jms suite's row `prefix` in this run, if it ran."""
    for r in rows:
        if str(r.get("benchmark", "")).startswith(prefix + ". ") and isinstance(
                r.get("pgaq"), int | float):
            unit = r.get("unit", "msg/s")
            return f"Python pgaq.jms {prefix} in this run: {r['pgaq']:,.2f} {unit}"
    return ""


def _unavailable(error: str) -> list[Row]:
    return [{"benchmark": f"{num}. Java JMS {what} vs ActiveMQ", "pgaq": "FAILED", "floor": "-",
             "unit": unit, "target": target, "pass": False, "note": error[:300]}
            for num, what, unit, target in (
                ("JV1", "send 1 msg/txn", "msg/s", ">= 1x"),
                ("JV2", "receive AUTO_ACK", "msg/s", ">= 1x"),
                ("JV3", "transacted receive, commit/10", "msg/s", ">= 1x"),
                ("JV4", "listener woken (ms p50)", "ms", "p50 <= 5"))]


async def run(dsn: str, settings: Settings, earlier: list[Row] | None = None
              ) -> tuple[list[Row], dict[str, Any]]:
    """The java suite's rows JV1-JV4 (with their context rows) and its facts; `earlier`:
    the rows of the suites that ran before it (the jms suite's Python figures)."""
    earlier = earlier or []
    b = JavaBench(dsn, settings)
    b.facts["loadavg_before"] = os.getloadavg()
    if os.getloadavg()[0] > 0.5 * (os.cpu_count() or 1):
        log(f"java: the machine is busy before the suite (load average {os.getloadavg()[0]:.1f} "
            f"on {os.cpu_count()} CPUs): its figures share the CPUs with that")
    try:
        b.cp = await build_driver()
    except (OSError, RuntimeError) as e:
        log(f"java: cannot build the driver: {e}")
        return _unavailable(f"java/build bench: {e}"), {"error": str(e)}
    rows: list[Row] = []
    async with contextlib.AsyncExitStack() as stack:
        try:
            b.broker = await stack.enter_async_context(activemq_broker())
            log(f"java: ActiveMQ broker pid {b.broker.pid} on {b.broker.url}")
        except (OSError, RuntimeError) as e:
            b.amq_error = str(e)
            log(f"java: ActiveMQ unavailable: {e}")
        await b.open()
        try:
            if b.broker:  # the broker's JIT warmed up as pgaq's PostgreSQL needs not be
                warm = await drive(b.cp, "activemq", b.broker.url, "consume", "bench.warm",
                                   fill=20_000, seconds=2, warmup=0, threads=settings.concurrency)
                b.rates[("activemq", "warm-up")] = float(warm.get("msg_per_s") or 0)
                await drive(b.cp, "activemq", b.broker.url, "send", "bench.warm",
                            seconds=1, warmup=0, threads=settings.concurrency)
            s1 = await b.abba("send", "send")
            f1 = await b.send_floor()
            rows += throughput_rows(
                "JV1", "send", "send 1 msg/txn", s1, f1, b, _python_jms(earlier, "J1"),
                "non-transacted AUTO_ACKNOWLEDGE sessions, PERSISTENT TextMessage of 100 chars",
                "engine Session.enqueue of the same payload, 1 msg/txn")
            load = b.facts["loadavg_before"][0]
            if load > 0.5 * (os.cpu_count() or 1):
                rows[0]["note"] += (f"; the machine was busy: load average {load:.1f} on "
                                    f"{os.cpu_count()} CPUs before the suite")
            s2 = await b.abba("consume", "consume")
            f2 = await b.remove_floor(f1.result.rate)
            rows += throughput_rows(
                "JV2", "consume", "receive AUTO_ACK", s2, f2, b, _python_jms(earlier, "J2"),
                "receive() one at a time from a pre-filled queue",
                "engine REMOVE (Session.dequeue), 1 msg/txn")
            rows.append(synced_row(s2["pgaq"], await b.synced_acks(), b))
            s3 = await b.abba("transacted", "tx")
            f3 = await b.tx_floor(f1.result.rate)
            rows += throughput_rows(
                "JV3", "transacted", "transacted receive, commit/10", s3, f3, b, _python_jms(earlier, "J4"),
                "transacted sessions, receive() and commit() every 10 messages",
                "engine REMOVE ON_COMMIT x10, then COMMIT")
            s4 = await b.abba("wakeup", "wake")
            f4 = await b.wake_floor()
            rows += wake_rows(s4, f4, b, _python_jms(earlier, "J5"))
        finally:
            await b.close()
    b.facts["loadavg_after"] = os.getloadavg()
    b.facts.update({"pgaq_error": b.pgaq_error, "activemq_error": b.amq_error,
                    "activemq_jvm": BROKER_JVM, "cpus": os.cpu_count()})
    return rows, b.facts
