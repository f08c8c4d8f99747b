"""The engine's core figures (enqueue, array enqueue, REMOVE dequeue, dequeue on a deep
queue), each beside a raw-SQL floor measured on the same database with the same number
of connections; and a blocked SQL dequeue's wake-up (sql_wait_bench).

Floor and pgaq alternate A-B-B-A (two halves each) after a joint warm-up, with a
CHECKPOINT before each pair, so slow drift (WAL, autovacuum, a shrinking table) is shared.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import asyncpg
from pgaq import DequeueOptions, Session

from . import pickup_bench, sql_wait_bench
from .measure import Op, Result, run_ops
from .report import Row, ratio_row
from .settings import Settings

PAYLOAD = b"x" * 100
X = TypeVar("X")

SCHEMA = """
CREATE SCHEMA bench;
-- the floors: plain tables with the columns a message needs (payload, priority, time)
CREATE TABLE bench.floor_ins (id bigserial PRIMARY KEY, q_name text NOT NULL,
    priority integer NOT NULL, enq_time timestamptz NOT NULL DEFAULT now(), payload bytea);
CREATE TABLE bench.floor_deq (LIKE bench.floor_ins INCLUDING ALL);
-- what UNLOGGED storage itself gains (buffered messages' ceiling)
CREATE UNLOGGED TABLE bench.floor_ins_u (LIKE bench.floor_ins INCLUDING ALL);
CREATE UNLOGGED TABLE bench.floor_deq_u (LIKE bench.floor_ins INCLUDING ALL);
-- RAW queues, single consumer, default sort (ENQ_TIME); one queue table each
CALL dbms_aqadm.create_queue_table('bench.qt', 'RAW');
CALL dbms_aqadm.create_queue('bench.q', 'bench.qt');
CALL dbms_aqadm.start_queue('bench.q');
CALL dbms_aqadm.create_queue_table('bench.dqt', 'RAW');
CALL dbms_aqadm.create_queue('bench.dq', 'bench.dqt');
CALL dbms_aqadm.start_queue('bench.dq');
CALL dbms_aqadm.create_queue_table('bench.small_qt', 'RAW');
CALL dbms_aqadm.create_queue('bench.small', 'bench.small_qt');
CALL dbms_aqadm.start_queue('bench.small');
-- the shape of a message row alone: raw INSERTs into a queue table of no queue (context rows
-- 1b and 3b: what pgaq's row and indexes cost before any of pgaq's work)
CALL dbms_aqadm.create_queue_table('bench.shape_qt', 'RAW');
CALL dbms_aqadm.create_queue_table('bench.big_qt', 'RAW');
CALL dbms_aqadm.create_queue('bench.big', 'bench.big_qt');
CALL dbms_aqadm.start_queue('bench.big');
"""

FLOOR_INSERT = "INSERT INTO bench.floor_ins (q_name, priority, payload) VALUES ($1, $2, $3)"
FLOOR_DELETE = """DELETE FROM bench.floor_deq WHERE id = (
    SELECT id FROM bench.floor_deq ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING *"""
FLOOR_INSERT_U = "INSERT INTO bench.floor_ins_u (q_name, priority, payload) VALUES ($1, $2, $3)"
FLOOR_DELETE_U = FLOOR_DELETE.replace("bench.floor_deq", "bench.floor_deq_u")
FLOOR_INSERT_100 = ("INSERT INTO bench.floor_ins (q_name, priority, payload) "
                    "SELECT 'q', 1, p FROM unnest($1::bytea[]) p")
# a message row as pgaq's enqueue writes it (the columns it sets, both indexes it feeds),
# written by a bare INSERT: no queue lookup, privilege check, id generation or wake-up
ENQUEUE_SHAPE_TARGET = 0.85  # row 1c: issue 35

SHAPE_INSERT = """INSERT INTO bench.shape_qt (q_name, msgid, priority, state, delay, ready_time, enq_seq,
    enq_time, enq_uid, enq_agent, enq_tid, txn_group, user_data)
  SELECT 'q', int8send(x.s) || '\\x0000000000000000'::bytea, 1, 0, 0, now(), x.s, now(), current_user,
         NULL, pg_current_xact_id()::text, pg_current_xact_id()::text::bigint, x.p
  FROM (SELECT p, nextval('aq.enq_seq') AS s FROM unnest($1::bytea[]) p) x"""

# row 1d: the row and the wake-up check (R__11_wakeups.sql) as the enqueue's statement has
# it: a look for waiters with the statement's snapshot in a constant column's expression
WAKE_CHECK = ("CASE WHEN NOT EXISTS (SELECT 1 FROM aq.waiters w WHERE w.queue_id = $2::integer) THEN 0"
              " WHEN pg_notify('aq_' || $2::integer, '') IS NULL THEN 0 ELSE 0 END")
SHAPE_INSERT_WAKE = SHAPE_INSERT.replace("1, 0, 0, now(), x.s", f"1, {WAKE_CHECK}, 0, now(), x.s")
assert SHAPE_INSERT_WAKE != SHAPE_INSERT

PROFILE = """
SELECT calls, plans, round(total_exec_time::numeric, 1) AS total_ms,
       round((total_exec_time / greatest(calls, 1))::numeric, 4) AS mean_ms,
       round((total_plan_time / greatest(plans, 1))::numeric, 4) AS plan_ms,
       regexp_replace(left(query, 160), '\\s+', ' ', 'g') AS query
FROM pg_stat_statements
WHERE query NOT ILIKE '%pg_stat_statements%'
ORDER BY total_exec_time DESC LIMIT 12
"""


def log(text: str) -> None:
    print(f"  [{time.strftime('%H:%M:%S')}] {text}", flush=True)


def _bind(fn: Callable[[X], Awaitable[object]], x: X) -> Op:
    return lambda: fn(x)


def _join(a: Result, b: Result) -> Result:
    return Result(a.ops + b.ops, a.seconds + b.seconds, a.latencies + b.latencies,
                  a.items_per_op, a.dry or b.dry, a.wal_bytes + b.wal_bytes)


class Core:
    def __init__(self, dsn: str, settings: Settings) -> None:
        self.dsn = dsn
        self.s = settings
        self.conns: list[asyncpg.Connection] = []
        self.sessions: list[Session] = []
        self.admin: asyncpg.Connection | None = None
        self.profiles: dict[str, list[dict[str, Any]]] = {}
        self.facts: dict[str, Any] = {}
        self.rows: list[Row] = []
        self.floors: dict[str, Result] = {}

    # -- plumbing -----------------------------------------------------------------------
    async def open(self) -> None:
        self.admin = await asyncpg.connect(self.dsn)
        await self.admin.execute(SCHEMA)
        self.conns = [await asyncpg.connect(self.dsn) for _ in range(self.s.concurrency)]
        # one library session per connection, kept as an application keeps it
        self.sessions = [Session(c) for c in self.conns]

    async def close(self) -> None:
        for c in [*self.conns, *([self.admin] if self.admin else [])]:
            await c.close()

    @property
    def a(self) -> asyncpg.Connection:
        assert self.admin is not None
        return self.admin

    def per_conn(self, fn: Callable[[asyncpg.Connection], Awaitable[object]]) -> list[Op]:
        return [_bind(fn, c) for c in self.conns]

    def per_session(self, fn: Callable[[Session], Awaitable[object]]) -> list[Op]:
        return [_bind(fn, s) for s in self.sessions]

    async def pair(self, label: str, floor: Sequence[Op], ours: Sequence[Op],
                   items_per_op: int = 1, floor_items: int = 1) -> tuple[Result, Result]:
        """Warm both up, then floor, pgaq, pgaq, floor: half the time each."""
        await self.a.execute("CHECKPOINT")
        if self.s.warmup > 0:
            await run_ops(floor, self.s.warmup / 2)
            await run_ops(ours, self.s.warmup / 2)
        if self.s.stats:
            await self.a.execute("SELECT pg_stat_statements_reset()")
        half = self.s.seconds / 2
        f1 = await self.timed(floor, half, floor_items)
        o1 = await self.timed(ours, half, items_per_op)
        o2 = await self.timed(ours, half, items_per_op)
        f2 = await self.timed(floor, half, floor_items)
        f, o = _join(f1, f2), _join(o1, o2)
        if self.s.stats:
            self.profiles[label] = [dict(r) for r in await self.a.fetch(PROFILE)]
        log(f"{label}: pgaq {o.rate:,.0f}/s, floor {f.rate:,.0f}/s")
        return f, o

    async def solo(self, label: str, ops: Sequence[Op]) -> Result:
        """A context figure with no floor of its own: warmed up, then timed as long as a pair."""
        await self.a.execute("CHECKPOINT")
        if self.s.warmup > 0:
            await run_ops(ops, self.s.warmup / 2)
        r = await self.timed(ops, self.s.seconds, 1)
        log(f"{label}: pgaq {r.rate:,.0f}/s")
        return r

    async def timed(self, ops: Sequence[Op], seconds: float, items_per_op: int) -> Result:
        """run_ops, noting the WAL written meanwhile (by the whole cluster)."""
        before = await self.a.fetchval("SELECT pg_current_wal_insert_lsn()")
        r = await run_ops(ops, seconds, items_per_op)
        r.wal_bytes = int(await self.a.fetchval(
            "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1)", before))
        return r

    async def fill_queue(self, queue: str, n: int, chunk: int, buffered: bool = False) -> float:
        """Pre-fill with enqueue_array, `chunk` messages per call, on every connection."""
        started = time.perf_counter()
        parts = [min(chunk, n - i) for i in range(0, n, chunk)]

        async def worker(s: Session) -> None:
            while parts:
                k = parts.pop()
                if buffered:
                    await s.enqueue_array(queue, [(PAYLOAD, None)] * k, visibility="IMMEDIATE",
                                          delivery_mode="BUFFERED")
                else:
                    await s.enqueue_array(queue, [(PAYLOAD, None)] * k)

        await asyncio.gather(*(worker(s) for s in self.sessions))
        return time.perf_counter() - started

    # -- the benchmarks -------------------------------------------------------------------
    async def shape(self, e_enq: Result, e_arr: Result) -> list[Row]:
        """Context rows 1b and 3b: bare INSERTs of pgaq's message row against the floors'
        INSERTs, interleaved: how much of rows 1 and 3's gap to their floors is the row and
        its two indexes (AQ's message model), and how much is pgaq's work around them."""
        one, hundred = [PAYLOAD], [PAYLOAD] * 100
        f1, s1 = await self.pair("raw INSERT of a message row, 1/txn",
                                 self.per_conn(lambda c: c.execute(FLOOR_INSERT, "q", 1, PAYLOAD)),
                                 self.per_conn(lambda c: c.execute(SHAPE_INSERT, one)))
        f100, s100 = await self.pair("raw INSERT of 100 message rows/stmt",
                                     self.per_conn(lambda c: c.execute(FLOOR_INSERT_100, hundred)),
                                     self.per_conn(lambda c: c.execute(SHAPE_INSERT, hundred)),
                                     items_per_op=100, floor_items=100)
        rows = []
        for name, shape, floor, ours, row in (("1b. raw INSERT of a message row, 1/txn", s1, f1, e_enq, "1"),
                                              ("3b. raw INSERT of 100 message rows/stmt", s100, f100,
                                               e_arr, "3")):
            r = ratio_row(name, shape, floor, 1.0, latency=row == "1",
                          note=f"context, not a pgaq target: a bare INSERT of the rows pgaq's "
                               f"enqueue writes (its columns and both indexes) into a queue table, "
                               f"no queue lookup, privilege check, id generation or wake-up, against "
                               f"row {row}'s floor; pgaq's enqueue (row {row}): "
                               f"{ours.rate / shape.rate if shape.rate else 0:.2f}x of it")
            r["context"] = True
            rows.append(r)
        rows += await self.enqueue_beside_its_row()
        await self.a.execute("TRUNCATE bench.shape_qt")
        return rows

    async def enqueue_beside_its_row(self) -> list[Row]:
        """Row 1c (issue 35's target): pgaq's enqueue against row 1b's bare INSERT of its
        row, interleaved in one pair rather than from two runs apart. Row 1d: the same enqueue
        against that INSERT plus the wake-up check every enqueue owes its waiters (a look
        at aq.waiters with the statement's snapshot, no lock: R__11_wakeups.sql): the
        ceiling once a wake-up is never lost."""
        one = [PAYLOAD]
        qid = await self.a.fetchval("SELECT (aq.resolve_queue('bench.q')).queue_id")
        enqueue = self.per_session(lambda x: x.enqueue("bench.q", PAYLOAD))
        f_row, e_row = await self.pair("enqueue beside a bare INSERT of its row",
                                       self.per_conn(lambda c: c.execute(SHAPE_INSERT, one)), enqueue)
        f_wake, e_wake = await self.pair(
            "enqueue beside its row's INSERT + the wake-up",
            self.per_conn(lambda c: c.execute(SHAPE_INSERT_WAKE, one, qid)), enqueue)
        target = ratio_row("1c. enqueue 1/txn vs a bare INSERT of its row", e_row, f_row,
                           ENQUEUE_SHAPE_TARGET, latency=True,
                           note="floor: row 1b's INSERT of pgaq's message row (its columns and "
                                "both indexes; no queue lookup, privilege check, id or wake-up), "
                                "1/txn, measured interleaved with the enqueue")
        ceiling = ratio_row("1d. enqueue 1/txn vs its row's INSERT + wake-up", e_wake, f_wake, 1.0,
                            latency=True,
                            note="context, not a pgaq target: floor: row 1c's INSERT with the "
                                 "wake-up check in it as the enqueue has it (an index probe of "
                                 "aq.waiters with the statement's snapshot, no lock: waiters "
                                 "follow in-flight writers when they register, R__11_wakeups), "
                                 "which no enqueue may skip without losing a waiter's wake-up; "
                                 "what is left is the queue lookup, the privilege check and the id")
        ceiling["context"] = True
        return [target, ceiling]

    async def buffered(self, f_ins: Result, n: int) -> list[Row]:
        """Buffered messages (delivery_mode BUFFERED, IMMEDIATE: each call its own
        transaction) against durable pgaq doing the same, measured interleaved."""
        # the backlog grows while only enqueues run: no flow control for the measurement
        for c in self.conns:
            await c.execute("SET pgaq.buffered_max_messages = 0")
        durable, buffered = await self.pair(
            "buffered enqueue 1 msg/call",
            self.per_session(lambda x: x.enqueue("bench.q", PAYLOAD)),
            self.per_session(lambda x: x.enqueue("bench.q", PAYLOAD, visibility="IMMEDIATE",
                                                  delivery_mode="BUFFERED")))
        f_logged, f_unlogged = await self.pair(
            "raw INSERT UNLOGGED vs logged",
            self.per_conn(lambda c: c.execute(FLOOR_INSERT, "q", 1, PAYLOAD)),
            self.per_conn(lambda c: c.execute(FLOOR_INSERT_U, "q", 1, PAYLOAD)))
        ceiling = ratio_row("6c. raw INSERT UNLOGGED vs logged", f_unlogged, f_logged, 1.0, latency=True,
                            note="context, not a pgaq target: what UNLOGGED storage itself gains here "
                                 f"(pgaq buffered enqueue: "
                                 f"{buffered.rate / f_unlogged.rate if f_unlogged.rate else 0:.2f}x "
                                 "the UNLOGGED INSERT)")
        ceiling["context"] = True
        alone_sessions = [Session(c, group_buffered=False) for c in self.conns]
        rows = [
            ratio_row("6a. buffered enqueue 1 msg/call vs durable", buffered, durable, 3.0, latency=True,
                      note="floor: durable pgaq enqueue 1 msg/txn, measured interleaved"),
            ratio_row("6b. buffered enqueue 1 msg/call vs INSERT", buffered, f_ins, 1.0,
                      note="floor: durable raw INSERT 1 row/txn (bench 1)"),
            ceiling,
        ]
        took = await self.fill_queue("bench.dq", n, 1000)
        took += await self.fill_queue("bench.dq", n, 1000, buffered=True)
        await self.a.execute("VACUUM ANALYZE bench.dqt")
        log(f"pre-filled {n:,} persistent and {n:,} buffered messages ({took:.1f} s)")

        async def durable_remove(x: Session) -> bool:
            return bool(await x.dequeue("bench.dq"))

        opts = DequeueOptions(visibility="IMMEDIATE", delivery_mode="BUFFERED")

        async def buffered_remove(x: Session) -> bool:
            return bool(await x.dequeue("bench.dq", opts))

        d_deq, b_deq = await self.pair("buffered dequeue REMOVE", self.per_session(durable_remove),
                                       self.per_session(buffered_remove))
        for table in ("bench.floor_deq", "bench.floor_deq_u"):
            await self.a.execute(f"INSERT INTO {table} (q_name, priority, payload) "
                                 "SELECT 'q', 1, $1 FROM generate_series(1, $2)", PAYLOAD, n)
            await self.a.execute(f"VACUUM ANALYZE {table}")

        async def logged_delete(c: asyncpg.Connection) -> bool:
            return await c.fetchrow(FLOOR_DELETE) is not None

        async def unlogged_delete(c: asyncpg.Connection) -> bool:
            return await c.fetchrow(FLOOR_DELETE_U) is not None

        f_ldel, f_udel = await self.pair("raw DELETE UNLOGGED vs logged", self.per_conn(logged_delete),
                                         self.per_conn(unlogged_delete))
        ceiling = ratio_row("7b. raw DELETE UNLOGGED vs logged", f_udel, f_ldel, 1.0, latency=True,
                            note="context, not a pgaq target: what UNLOGGED storage itself gains here "
                                 f"(pgaq buffered REMOVE: "
                                 f"{b_deq.rate / f_udel.rate if f_udel.rate else 0:.2f}x "
                                 "the UNLOGGED DELETE)")
        ceiling["context"] = True
        b_alone = await self.solo("buffered dequeue REMOVE, grouping off",
                                  [_bind(buffered_remove, s) for s in alone_sessions])
        grouping = ratio_row("7c. buffered REMOVE grouped vs one statement per call", b_deq, b_alone, 1.0,
                             latency=True,
                             note="context, not a target: the 4 sessions' concurrent REMOVEs taken as "
                                  "one dequeue (pgaq.coalesce) against Session(group_buffered=False)")
        grouping["context"] = True
        rows.append(ratio_row("7. buffered dequeue REMOVE vs durable", b_deq, d_deq, 2.0, latency=True,
                              note=f"floor: durable pgaq REMOVE + commit, measured interleaved; "
                                   f"{n:,} of each pre-filled; concurrent buffered REMOVEs are "
                                   f"grouped (7c)"))
        rows.append(grouping)
        rows.append(ceiling)
        return rows

    async def run(self) -> list[Row]:
        rows: list[Row] = []
        s = self.s
        log(f"core: {s.concurrency} connections, {s.seconds:g} s per figure "
            f"(+{s.warmup:g} s warm-up)")

        # 1. single-message enqueue, one per transaction
        f_ins, e_enq = await self.pair(
            "enqueue 1 msg/txn",
            self.per_conn(lambda c: c.execute(FLOOR_INSERT, "q", 1, PAYLOAD)),
            self.per_session(lambda x: x.enqueue("bench.q", PAYLOAD)))
        rows.append({**ratio_row("1. enqueue 1 msg/txn", e_enq, f_ins, 0.60, latency=True,
                                 note="floor: INSERT 1 row/txn"), "compare_as": "enqueue"})

        # 3. array enqueue, 100 messages per call, against the single-row INSERT floor
        batch = [(PAYLOAD, None)] * 100
        payloads = [PAYLOAD] * 100
        f_arr, e_arr = await self.pair(
            "array enqueue 100/call",
            self.per_conn(lambda c: c.execute(FLOOR_INSERT_100, payloads)),
            self.per_session(lambda x: x.enqueue_array("bench.q", batch)),
            items_per_op=100, floor_items=100)
        rows.append(ratio_row("3. array enqueue 100/call", e_arr, f_ins, 3.0,
                              note=f"floor: single-row INSERT rate (bench 1); raw INSERT of "
                                   f"100 rows/stmt: {f_arr.rate:,.0f} msg/s, pgaq "
                                   f"{e_arr.rate / f_arr.rate if f_arr.rate else 0:.2f}x of it"))
        rows.extend(await self.shape(e_enq, e_arr))

        # 2. REMOVE dequeue with commit, on pre-filled, vacuumed tables of equal size
        n = s.prefill or max(20_000, int(f_ins.rate * (s.warmup + s.seconds) * 2))
        took = await self.fill_queue("bench.dq", n, 1000)
        await self.a.execute(
            "INSERT INTO bench.floor_deq (q_name, priority, payload) "
            "SELECT 'q', 1, $1 FROM generate_series(1, $2)", PAYLOAD, n)
        await self.a.execute("VACUUM ANALYZE bench.dqt")
        await self.a.execute("VACUUM ANALYZE bench.floor_deq")
        log(f"pre-filled {n:,} messages for the REMOVE benchmark ({took:.1f} s)")

        async def floor_delete(c: asyncpg.Connection) -> bool:
            return await c.fetchrow(FLOOR_DELETE) is not None

        async def engine_dequeue(x: Session) -> bool:
            return bool(await x.dequeue("bench.dq"))

        f_del, e_deq = await self.pair("dequeue REMOVE + commit", self.per_conn(floor_delete),
                                       self.per_session(engine_dequeue))
        rows.append({**ratio_row("2. dequeue REMOVE + commit", e_deq, f_del, 0.60, latency=True,
                                 note=f"floor: DELETE .. SKIP LOCKED RETURNING; {n:,} pre-filled"),
                     "compare_as": "consume"})

        # 4. dequeue on a deep queue vs a shallow one (both pgaq), kept at depth by a refiller
        rows.extend(await self.depth())

        # 6. buffered messages (UNLOGGED): enqueue and REMOVE beside the durable pgaq figures
        rows.extend(await self.buffered(f_ins, n))

        # 5. a blocked SQL dequeue (dbms_aq.dequeue with a wait) woken by an enqueue's commit
        rows.append(await sql_wait_bench.run(self.dsn))
        log(f"SQL dequeue wait: woken p50 {rows[-1]['pgaq']} ms, p99 {rows[-1]['pgaq_p99_ms']} ms, "
            f"waiting CPU {rows[-1]['wait_cpu_percent']} % of a core")
        # 5b. the library's wait, no Listener wired, woken by the enqueue's NOTIFY
        rows.append(await sql_wait_bench.run_library(self.dsn))
        log(f"library dequeue wait: woken p50 {rows[-1]['pgaq']} ms, p99 {rows[-1]['pgaq_p99_ms']} ms")
        # 8. pickup latency while a steady stream flows (commit -> a waiting consumer holds it)
        rows.append(await pickup_bench.run(self.dsn, e_enq.rate, s))
        log(f"pickup under load: p50 {rows[-1]['pgaq']} ms, p99 {rows[-1]['pgaq_p99_ms']} ms at "
            f"{rows[-1]['offered_rate']:,.0f} msg/s")
        self.facts.update({"prefill": n, "prefill_seconds": round(took, 2)})
        self.floors = {"insert": f_ins, "delete": f_del}
        self.rows = sorted(rows, key=lambda r: str(r["benchmark"]))  # 1. 2. 3. 4. 5.
        return self.rows

    async def depth(self) -> list[Row]:
        s = self.s
        took_small = await self.fill_queue("bench.small", s.small, s.fill_chunk)
        log(f"filling {s.big:,} messages (enqueue_array, {s.fill_chunk:,} per call, "
            f"{s.concurrency} connections) ...")
        took = await self.fill_queue("bench.big", s.big, s.fill_chunk)
        for table, n in (("bench.floor_small", s.small), ("bench.floor_big", s.big)):
            await self.a.execute(f"CREATE TABLE {table} (LIKE bench.floor_ins INCLUDING ALL)")
            await self.a.execute(f"INSERT INTO {table} (q_name, priority, payload) "
                                 "SELECT 'q', 1, $1 FROM generate_series(1, $2)", PAYLOAD, n)
        t = time.perf_counter()
        for table in ("bench.small_qt", "bench.big_qt", "bench.floor_small", "bench.floor_big"):
            await self.a.execute(f"VACUUM ANALYZE {table}")
        vac = time.perf_counter() - t
        log(f"filled {s.big:,} in {took:.1f} s ({s.big / took:,.0f} msg/s), {s.small:,} in "
            f"{took_small:.1f} s; VACUUM ANALYZE {vac:.1f} s")
        self.facts.update({"big_fill_seconds": round(took, 2), "vacuum_seconds": round(vac, 2)})

        refill = await asyncpg.connect(self.dsn)
        refiller = Session(refill)
        targets = ("bench.small", "bench.big", "bench.floor_small", "bench.floor_big")
        consumed = dict.fromkeys(targets, 0)
        refilled = dict(consumed)
        stop = asyncio.Event()

        async def keep_depth() -> None:
            """Put back what was consumed, so each queue stays at its depth throughout."""
            while not stop.is_set():
                for q in targets:
                    k = min(consumed[q] - refilled[q], 1000)
                    if k > 0:
                        if q.startswith("bench.floor"):
                            await refill.execute(
                                f"INSERT INTO {q} (q_name, priority, payload) "
                                "SELECT 'q', 1, $1 FROM generate_series(1, $2)", PAYLOAD, k)
                        else:
                            await refiller.enqueue_array(q, [(PAYLOAD, None)] * k)
                        refilled[q] += k
                await asyncio.sleep(0.02)

        def deq(queue: str) -> list[Op]:
            async def op(x: Session) -> bool:
                got = await x.dequeue(queue)
                consumed[queue] += len(got)
                return bool(got)
            return self.per_session(op)

        def delete(table: str) -> list[Op]:
            sql = FLOOR_DELETE.replace("bench.floor_deq", table)

            async def op(c: asyncpg.Connection) -> bool:
                got = await c.fetchrow(sql) is not None
                consumed[table] += got
                return got
            return self.per_conn(op)

        task = asyncio.create_task(keep_depth())
        try:
            small, big = await self.pair("dequeue depth", deq("bench.small"), deq("bench.big"))
            f_small, f_big = await self.pair("raw DELETE depth", delete("bench.floor_small"),
                                             delete("bench.floor_big"))
        finally:
            stop.set()
            await task
            await refill.close()
        # the suites after this one run on a quiet database: no 1,000,000-row tables for
        # autovacuum to chew on, no dirty buffers from the fill left to write
        t = time.perf_counter()
        assert self.admin is not None
        await self.admin.execute("CALL dbms_aqadm.drop_queue_table('bench.big_qt', force => true)")
        await self.admin.execute("DROP TABLE bench.floor_big")
        await self.admin.execute("CHECKPOINT")
        log(f"dropped the {s.big:,}-message tables and checkpointed ({time.perf_counter() - t:.1f} s)")
        note = f"depth kept by a refiller; fill of {s.big:,} took {took:.0f} s"
        context = ratio_row(f"4b. raw DELETE at depth {s.big:,} vs {s.small:,}", f_big, f_small,
                            0.80, latency=True,
                            note="context, not a pgaq target: what PostgreSQL itself loses at depth")
        context["context"] = True
        return [ratio_row(f"4. dequeue at depth {s.big:,} vs {s.small:,}", big, small, 0.80,
                          latency=True, note=f"floor: pgaq dequeue at depth {s.small:,}; {note}"),
                context]


async def run(dsn: str, settings: Settings) -> Core:
    """Run the core suite; the returned object holds rows, facts, floors and profiles."""
    core = Core(dsn, settings)
    try:
        await core.open()
        await core.run()
    finally:
        await core.close()
    return core
