"""IDAP gateway figures over loopback (issue 3's targets), the gateway in its own process,
and IDAP Send+Commit beside the HTTP floor (issue 35): a bare aiohttp handler with the
gateway's worker count that reads the body and runs one INSERT (bench/http_floor.py),
driven by the same client, clients and document as the Send+Commit row."""

from __future__ import annotations

import asyncio
import base64
import functools
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import asyncpg
from pgaq import Session
from pgaq_services.gateway.settings import workers_for

from .measure import Result, run_for, start_gateway

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = int(os.environ.get("BENCH_HTTP_CLIENTS", "16"))
ROUNDS = max(1, int(os.environ.get("BENCH_GATEWAY_ROUNDS", "3")))  # floor/pgaq/floor rounds
WORKERS = os.environ.get("PGAQ_GATEWAY_WORKERS", "auto")  # as the gateway resolves it
SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
AQ = "http://ns.oracle.com/AQ/schemas/access"


def _doc(body: str) -> bytes:
    return f'<Envelope xmlns="{SOAP}"><Body><{body}</Body></Envelope>'.encode()


def _msg(i: int) -> str:
    return (f"<message><message_number>{i}</message_number><message_header><sender_id/>"
            "</message_header><message_payload><RAW>" + "78" * 100 + "</RAW></message_payload></message>")


SEND = _doc(f'AQXmlSend xmlns="{AQ}"><producer_options><destination>gw.q</destination>'
            f"</producer_options><message_set>{_msg(1)}</message_set><AQXmlCommit/></AQXmlSend>")
PUBLISH = _doc(f'AQXmlPublish xmlns="{AQ}"><producer_options><destination>gw.t</destination>'
               f"</producer_options><message_set>{''.join(_msg(i) for i in range(1, 101))}"
               "</message_set><AQXmlCommit/></AQXmlPublish>")
RECEIVE = _doc(f'AQXmlReceive xmlns="{AQ}"><consumer_options><destination>gw.q</destination>'
               "<wait_time>0</wait_time></consumer_options><AQXmlCommit/></AQXmlReceive>")
WAIT = _doc(f'AQXmlReceive xmlns="{AQ}"><consumer_options><destination>gw.w</destination>'
            "<wait_time>30</wait_time></consumer_options><AQXmlCommit/></AQXmlReceive>")
OPEN = _doc(f'AQXmlSend xmlns="{AQ}"><producer_options><destination>gw.q</destination>'
            f"</producer_options><message_set>{_msg(1)}</message_set></AQXmlSend>")


ROLE = "bench_gw"  # the agent's database user: an ordinary role, as in production
FLOOR_INSERT = "INSERT INTO gw.floor_ins (q_name, priority, payload) VALUES ($1, $2, $3)"
FLOOR_DELETE = """DELETE FROM gw.floor_deq WHERE id = (
    SELECT id FROM gw.floor_deq ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING *"""
PAYLOAD = b"x" * 100


async def _setup(dsn: str) -> None:
    c = await asyncpg.connect(dsn)
    try:
        await c.execute(f"""
            CREATE ROLE {ROLE} NOLOGIN;
            CREATE SCHEMA gw AUTHORIZATION {ROLE};
            CALL dbms_aqadm.create_queue_table('gw.qt', 'RAW');
            CALL dbms_aqadm.create_queue('gw.q', 'gw.qt'); CALL dbms_aqadm.start_queue('gw.q');
            CALL dbms_aqadm.create_queue('gw.w', 'gw.qt'); CALL dbms_aqadm.start_queue('gw.w');
            CALL dbms_aqadm.create_queue_table('gw.tt', 'RAW', multiple_consumers => true);
            CALL dbms_aqadm.create_queue('gw.t', 'gw.tt'); CALL dbms_aqadm.start_queue('gw.t');
            CALL dbms_aqadm.add_subscriber('gw.t', sys.aq$_agent('S', NULL, NULL));
            CALL dbms_aqadm.create_aq_agent(agent_name => 'BENCH', enable_http => true, password => 'pw');
            CALL dbms_aqadm.enable_db_access(agent_name => 'BENCH', db_username => '{ROLE}');
            -- the floors: plain tables with the columns a message needs, owned by the same role
            CREATE TABLE gw.floor_ins (id bigserial PRIMARY KEY, q_name text NOT NULL,
                priority int NOT NULL, enq_time timestamptz NOT NULL DEFAULT now(), payload bytea);
            CREATE TABLE gw.floor_deq (LIKE gw.floor_ins INCLUDING ALL);
            ALTER TABLE gw.floor_ins OWNER TO {ROLE};
            ALTER TABLE gw.floor_deq OWNER TO {ROLE};
        """)
    finally:
        await c.close()


async def _floor(dsn: str, seconds: float, op: Any) -> Result:
    """The raw-SQL floor as the gateway runs: CLIENTS connections on the same DSN (the Unix
    socket), as the agent's ordinary role, one statement per transaction."""
    async def as_role(conn: asyncpg.Connection) -> None:
        await conn.execute(f"SET ROLE {ROLE}")

    pool = await asyncpg.create_pool(dsn, min_size=CLIENTS, max_size=CLIENTS, init=as_role)
    try:
        return await run_for(pool, CLIENTS, seconds, op)
    finally:
        await pool.close()


def _join(a: Result, b: Result) -> Result:
    return Result(a.ops + b.ops, a.seconds + b.seconds, a.latencies + b.latencies,
                  a.items_per_op, a.dry or b.dry)


@dataclass
class Paired:
    """A figure measured in rounds: the floor and pgaq summed over all rounds, and each
    round's ratio (its pgaq window against the floor windows around it)."""

    floor: Result
    ours: Result
    ratios: list[float]

    @property
    def ratio(self) -> float:
        """The median round's ratio."""
        return statistics.median(self.ratios) if self.ratios else 0.0


async def _around(dsn: str, seconds: float, warmup: float, floor_op: Any,
                  ours: Callable[[float], Awaitable[Result]],
                  checkpoint: Callable[[], Awaitable[object]]) -> Paired:
    """Warm both up, then ROUNDS rounds of floor, gateway, floor (a quarter, a half and a
    quarter of each round): both see the same machine state, whatever else shares the
    CPU. On a shared machine whose speed drifts over tens of seconds, one long window on
    each side let a slow spell fall on one of them; the median of interleaved rounds
    does not, and it can move the ratio either way. Each round starts with a CHECKPOINT (as
    the core suite's pairs do): no round writes out the dirty buffers of the one before, or
    of the suite before."""
    return await _paired(seconds, warmup, lambda t: _floor(dsn, t, floor_op), ours, checkpoint)


async def _prefill(dsn: str, n: int) -> None:
    """n messages in gw.q (and n rows in the DELETE floor's table), vacuumed alike."""
    c = await asyncpg.connect(dsn)
    try:
        for i in range(0, n, 10_000):
            k = min(10_000, n - i)
            await c.execute("SELECT aq.enqueue_array('gw.q', $1, NULL, $2)",
                            "[" + ",".join(["{}"] * k) + "]", [PAYLOAD] * k)
        await c.execute("INSERT INTO gw.floor_deq (q_name, priority, payload) "
                        "SELECT 'q', 1, $1 FROM generate_series(1, $2)", PAYLOAD, n)
        await c.execute("VACUUM ANALYZE gw.qt")
        await c.execute("VACUUM ANALYZE gw.floor_deq")
    finally:
        await c.close()


class _Client(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection of the load generator, posting one document
    until the deadline: an asyncio Protocol, neither aiohttp's client nor asyncio streams.
    On two cores the load generator's CPU is taken from the gateway it measures (streams
    cost 24 us of CPU a request, this 17 us); the floor's client, asyncpg, is lean too.
    Keeps the session cookie it is given."""

    def __init__(self, run: _Run) -> None:
        self.run = run
        self.buf = bytearray()
        self.cookie = b""
        self.sent = 0.0
        self.transport: asyncio.Transport | None = None
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self._post()

    def _post(self) -> None:
        assert self.transport is not None
        self.sent = time.perf_counter()
        self.transport.write(self.run.head + self.cookie + b"\r\n" + self.run.doc)

    def data_received(self, data: bytes) -> None:
        self.buf += data
        while not self.done.done():
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            lines = bytes(self.buf[:end]).decode("latin-1").split("\r\n")
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(":")
                name = name.lower()
                if name == "content-length":
                    length = int(value)
                elif name == "set-cookie" and value.strip().startswith("JSESSIONID="):
                    token = value.strip()[len("JSESSIONID="):].split(";")[0]
                    self.cookie = f"Cookie: JSESSIONID={token}\r\n".encode() if token else b""
            if len(self.buf) < end + 4 + length:
                return
            body = bytes(self.buf[end + 4:end + 4 + length])
            del self.buf[:end + 4 + length]
            self._answer(int(lines[0].split()[1]), body)

    def _answer(self, status: int, body: bytes) -> None:
        run = self.run
        if status != 200:
            self._finish(RuntimeError(f"gateway answered {status}: {body[:300]!r}"))
            return
        if run.need is not None and run.need not in body:
            run.dry = True
            self._finish()
            return
        now = time.perf_counter()
        run.latencies.append(now - self.sent)
        if now >= run.deadline or run.dry:
            self._finish()
            return
        self._post()

    def _finish(self, exc: Exception | None = None) -> None:
        if not self.done.done():
            if exc is None:
                self.done.set_result(None)
            else:
                self.done.set_exception(exc)
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_exception(ConnectionError(f"the gateway closed the connection: {exc}"))


@dataclass
class _Run:
    head: bytes  # the request's head without its final blank line (a cookie may follow)
    doc: bytes
    deadline: float
    need: bytes | None
    latencies: list[float] = field(default_factory=list)
    dry: bool = False


async def http_loop(url: str, doc: bytes, seconds: float, clients: int,
                     need: bytes | None = None) -> Result:
    """`clients` keep-alive connections posting `doc` until the deadline; with `need`, an
    answer without it (an empty receive) ends the run as dry instead of counting."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    auth = "Basic " + base64.b64encode(b"BENCH:pw").decode()
    head = (f"POST {parts.path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: text/xml\r\n"
            f"Authorization: {auth}\r\nContent-Length: {len(doc)}\r\n").encode()
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    run = _Run(head, doc, started + seconds, need)
    conns: list[_Client] = []
    try:
        for _ in range(clients):
            _, client = await loop.create_connection(lambda: _Client(run), host, port)
            conns.append(client)
        outcomes = await asyncio.gather(*(c.done for c in conns), return_exceptions=True)
        errors = [o for o in outcomes if isinstance(o, BaseException)]
        if errors:
            raise errors[0]
    finally:
        for c in conns:
            c._finish()
    return Result(len(run.latencies), time.perf_counter() - started, run.latencies, dry=run.dry)


async def start_http_floor(dsn: str, workers: int
                           ) -> tuple[list[asyncio.subprocess.Process], str]:
    """`workers` processes of bench/http_floor.py sharing one port (SO_REUSEPORT), each
    returned once it printed that it listens; and their URL."""
    from pgaq.embedded import free_port

    port = free_port()
    env = {**os.environ, "BENCH_FLOOR_DSN": dsn, "BENCH_FLOOR_PORT": str(port),
           "BENCH_FLOOR_ROLE": ROLE}
    procs: list[asyncio.subprocess.Process] = []
    try:
        for _ in range(workers):
            p = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bench.http_floor", env=env,
                cwd=ROOT, stdout=asyncio.subprocess.PIPE)
            procs.append(p)
            assert p.stdout is not None
            line = await asyncio.wait_for(p.stdout.readline(), 60)
            if not line.startswith(b"ready"):
                raise RuntimeError(f"the HTTP floor's worker did not start (exit {p.returncode})")
    except BaseException:
        await stop_all(procs)
        raise
    return procs, f"http://127.0.0.1:{port}/aqserv/servlet"


async def stop_all(procs: list[asyncio.subprocess.Process]) -> None:
    for p in procs:
        if p.returncode is None:
            p.terminate()
    for p in procs:
        await p.wait()


async def _paired(seconds: float, warmup: float, floor: Callable[[float], Awaitable[Result]],
                  ours: Callable[[float], Awaitable[Result]],
                  checkpoint: Callable[[], Awaitable[object]]) -> Paired:
    """ROUNDS rounds of `floor`, pgaq, `floor` (see _around), the median round's ratio;
    `floor(seconds)` measures the floor (the SQL floor on its pool, or the HTTP floor)."""
    if warmup > 0:
        await floor(warmup / 2)
        await ours(warmup / 2)
    share = seconds / ROUNDS
    floors: list[Result] = []
    mine: list[Result] = []
    ratios: list[float] = []
    for _ in range(ROUNDS):
        await checkpoint()
        before = await floor(share / 2)
        run = await ours(share)
        after = await floor(share / 2)
        both = _join(before, after)
        ratios.append(run.rate / both.rate if both.rate else 0.0)
        floors.append(both)
        mine.append(run)
    return Paired(functools.reduce(_join, floors), functools.reduce(_join, mine), ratios)


def _rss_kib(pid: int) -> int:
    """Resident memory of the gateway: the process and its worker processes."""
    total = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            for child in f.read().split():
                try:
                    total += _rss_kib(int(child))
                except FileNotFoundError:
                    pass
    return total


async def run(dsn: str, service_dsn: str, seconds: float, warmup: float = 1.0
              ) -> list[dict[str, Any]]:
    """The gateway runs as `pgaq up` runs it: its own worker processes (PGAQ_GATEWAY_WORKERS,
    default `auto`: with PostgreSQL on this host, one per two CPUs), on PostgreSQL's Unix
    socket. Each figure's floor is measured around it like for like: CLIENTS connections
    on that same socket, as the agent's ordinary (non-superuser) role."""
    await _setup(dsn)
    workers = workers_for(WORKERS, service_dsn)
    proc, url = await start_gateway(service_dsn, PGAQ_MAX_TRANSACTIONS="100", PGAQ_GATEWAY_WORKERS=WORKERS)
    floor_procs: list[asyncio.subprocess.Process] = []
    rows: list[dict[str, Any]] = []

    async def checkpoint() -> None:
        c = await asyncpg.connect(dsn)  # the bench's superuser: the agent's role may not
        try:
            await c.execute("CHECKPOINT")
        finally:
            await c.close()

    async def floor_insert(c: asyncpg.Connection) -> None:
        await c.execute(FLOOR_INSERT, "q", 1, PAYLOAD)

    async def floor_delete(c: asyncpg.Connection) -> bool:
        return await c.fetchrow(FLOOR_DELETE) is not None

    def http(doc: bytes, items: int = 1, need: bytes | None = None, to: str | None = None
             ) -> Callable[[float], Awaitable[Result]]:
        async def go(secs: float) -> Result:
            r = await http_loop(to or url, doc, secs, CLIENTS, need)
            r.items_per_op = items
            return r
        return go

    try:
        send = await _around(service_dsn, seconds, warmup, floor_insert, http(SEND), checkpoint)
        # the HTTP floor: both servers up (the idle one takes no CPU), rounds interleaved
        floor_procs, floor_url = await start_http_floor(service_dsn, workers)
        beside_http = await _paired(seconds, warmup, http(SEND, to=floor_url), http(SEND),
                                    checkpoint)
        await stop_all(floor_procs)
        publish = await _around(service_dsn, seconds, warmup, floor_insert, http(PUBLISH, 100), checkpoint)
        n = max(20_000, int(send.floor.rate * (seconds + warmup) * 1.5))
        await _prefill(dsn, n)
        receive = await _around(service_dsn, seconds, warmup, floor_delete,
                                http(RECEIVE, need=b"message_id>"), checkpoint)

        # blocking receive: woken how long after the enqueue commits?
        wake: list[float] = []
        pool = await asyncpg.create_pool(dsn, min_size=1, max_size=2)
        try:
            for _ in range(30):
                waiter = asyncio.create_task(http_loop(url, WAIT, 0.001, 1))
                await asyncio.sleep(0.05)  # let the receive reach its wait (no event over HTTP)
                async with pool.acquire() as c:
                    await Session(c).enqueue("gw.w", b"w")
                committed = time.perf_counter()
                await waiter
                wake.append((time.perf_counter() - committed) * 1000)
        finally:
            await pool.close()

        # memory with 50 open transactional sessions
        before = _rss_kib(proc.pid)
        sessions = [aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) for _ in range(50)]
        auth = "Basic " + base64.b64encode(b"BENCH:pw").decode()
        try:
            headers = {"Content-Type": "text/xml", "Authorization": auth}
            for s in sessions:
                async with s.post(url, data=OPEN, headers=headers) as r:
                    await r.read()
                    if r.status != 200:
                        raise RuntimeError(f"opening a session: {r.status}")
            with_sessions = _rss_kib(proc.pid)
        finally:
            for s in sessions:
                await s.close()
    finally:
        await stop_all(floor_procs)
        proc.terminate()
        await proc.wait()

    def row(name: str, paired: Paired, target: float, note: str) -> None:
        ours, floor, ratio = paired.ours, paired.floor, paired.ratio
        rounds = ", ".join(f"{r:.2f}" for r in paired.ratios)
        note += f"; ratio: the median of {len(paired.ratios)} interleaved rounds ({rounds})"
        rows.append({"benchmark": name, "pgaq": round(ours.rate, 1), "floor": round(floor.rate, 1),
                     "unit": "msg/s", "ratio": round(ratio, 3), "target": target, "pass": ratio >= target,
                     "pgaq_p50_ms": round(ours.p50, 3), "pgaq_p99_ms": round(ours.pct(99), 3),
                     "floor_p50_ms": round(floor.p50, 3), "floor_p99_ms": round(floor.pct(99), 3),
                     "note": note})

    how = (f"{CLIENTS} HTTP clients, {workers} gateway workers; floor: {CLIENTS} connections; "
           f"both on PostgreSQL's Unix socket as role {ROLE} (not a superuser)")
    row(f"IDAP Send+Commit ({CLIENTS} clients)", send, 0.40, f"floor: INSERT rate; {how}")
    http_floor = beside_http.floor.rate
    sql_floor = send.floor.rate
    row(f"IDAP Send+Commit vs HTTP floor ({CLIENTS} clients)", beside_http, 0.8,
        f"floor: a bare aiohttp handler (bench/http_floor.py), {workers} worker process(es) "
        "on one port (SO_REUSEPORT), reads the body, one INSERT of the SQL floor's row on an "
        f"asyncpg pool as role {ROLE}, autocommit; same client, clients and document as "
        f"Send+Commit; HTTP floor / SQL INSERT floor of the row above: "
        f"{http_floor / sql_floor if sql_floor else 0.0:.2f}x")
    row("IDAP Publish 100/request", publish, 1.5, f"floor: single-row INSERT rate; {how}")
    row("IDAP Receive REMOVE+Commit", receive, 0.30,
        f"floor: DELETE SKIP LOCKED rate; {n:,} pre-filled; {how}"
        + ("; RAN DRY: raise the pre-fill" if receive.ours.dry or receive.floor.dry else ""))
    p50 = statistics.median(wake)
    p99 = sorted(wake)[min(len(wake) - 1, int(0.99 * len(wake)))]
    rows.append({"benchmark": "IDAP blocking receive woken (ms p50)", "pgaq": round(p50, 2),
                 "floor": "-", "unit": "ms", "target": "p50 <= 5, p99 <= 25",
                 "pass": p50 <= 5 and p99 <= 25, "pgaq_p99_ms": round(p99, 2),
                 "note": f"p99 {p99:.1f} ms after the enqueue commits"})
    rows.append({"benchmark": "gateway RSS with 50 sessions (MiB)", "pgaq": round(with_sessions / 1024, 1),
                 "floor": round(before / 1024, 1), "unit": "MiB", "target": "-",
                 "context": True, "note": "context, not a target; floor: RSS before opening them"})
    return rows
