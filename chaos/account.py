"""Afterwards: wait for the backlog to drain, then account for every id, notification
and schedule."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import asyncpg

from .load import Ledger
from .mesh import Mesh

# the final destinations: ledger name -> (database, queue, which load kind arrives there)
DESTINATIONS = {"inq": ("src", "chaos.inq", "send"), "local": ("src", "chaos.local_in", "publish"),
                "remote": ("dst", "chaos.remote_in", "publish"), "web": ("dst", "chaos.web_in", "publish")}
BACKLOG = {"src": ["SELECT count(*) FROM chaos.inq_t", "SELECT count(*) FROM chaos.local_t",
                   "SELECT count(*) FROM chaos.aq$_topic_t_r WHERE state = 0",
                   "SELECT count(*) FROM aq.notifications WHERE state IN ('PENDING', 'SENDING')"],
           "dst": ["SELECT count(*) FROM chaos.remote_t", "SELECT count(*) FROM chaos.web_t"]}
DISTINCT_IDS = "SELECT count(DISTINCT id) FROM chaos_ledger WHERE dest = $1"
# while draining: what the notifications still waiting are doing (a few of them)
WAITING = """
SELECT string_agg(format('%s %s attempt %s due %ss lease %ss by %s: %s', state, queue_name, attempts,
                         round(extract(epoch FROM due_at - now())::numeric, 1),
                         round(extract(epoch FROM lease_until - now())::numeric, 1),
                         claimed_by, left(last_error, 80)), '; ')
FROM (SELECT * FROM aq.notifications WHERE state IN ('PENDING', 'SENDING') ORDER BY seq LIMIT 3) n
"""
PER_ID = "SELECT id, count(*) AS n FROM chaos_ledger WHERE dest = $1 GROUP BY id"


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

async def drained(mesh: Mesh, ledger: Ledger, timeout: float, log: Callable[[str], None]) -> bool:
    """Until every acknowledged id reached its destinations and nothing is left to move
    (another process's progress: nothing to wait on but the databases)."""
    deadline = time.monotonic() + timeout
    need = {d: len(ledger.acked[kind]) for d, (_, _, kind) in DESTINATIONS.items()}
    said = time.monotonic()
    while time.monotonic() < deadline:
        left: list[str] = []
        try:
            for db, queries in BACKLOG.items():
                c = await asyncpg.connect(mesh.dsn(db))
                try:
                    for q in queries:
                        if n := await c.fetchval(q):
                            left.append(f"{n} from {q.split(' FROM ')[1]}")
                    for d, (ddb, _, _) in DESTINATIONS.items():
                        if ddb == db:
                            got = await c.fetchval(DISTINCT_IDS, d)
                            if got < need[d]:
                                left.append(f"{need[d] - got} not yet at {d}")
                finally:
                    await c.close()
            if not left:
                return True
            if any("notifications" in x for x in left):
                c = await asyncpg.connect(mesh.dsn("src"))
                try:
                    left.append(str(await c.fetchval(WAITING)))
                finally:
                    await c.close()
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            left.append(repr(exc))
        if time.monotonic() - said > 5:
            said = time.monotonic()
            log(f"draining: {'; '.join(left)}")
        await asyncio.sleep(0.5)
    return False


async def account(mesh: Mesh, ledger: Ledger, rep: Report) -> None:
    """Each committed id dequeued exactly once at each of its destinations, none lost,
    none duplicated, none invented; an unacknowledged set all or nothing."""
    rep.check(not ledger.faults, f"client faults during the load: {ledger.faults[:3]}")
    for dest, (db, queue, kind) in DESTINATIONS.items():
        c = await asyncpg.connect(mesh.dsn(db))
        try:
            rows = await c.fetch(PER_ID, dest)
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
                per[dest] = {r["id"] for r in await c.fetch(PER_ID, dest)}
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
        inq = await c.fetchval(DISTINCT_IDS, "inq")
        local = await c.fetchval(DISTINCT_IDS, "local")
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
