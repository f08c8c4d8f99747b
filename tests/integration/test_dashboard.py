"""/dashboard and /dashboard/data on a gateway over real HTTP and a real database: the
data endpoint returns the statistics job's tables and the live tables as chart series for
the requested range, only AQ administrators (or the admin token) get in, and nothing the
client sends reaches SQL but a range from a fixed set."""

from __future__ import annotations

import base64
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import aiohttp
import asyncpg
import pytest

from .gateway_support import drop_roles, make_agent, running_gateway
from .helpers import make_queue

TOKEN = "dashboard-test-token"


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


@dataclass
class Seeded:
    """What `seed` wrote, for the assertions."""

    now: datetime  # the current minute (UTC); minute buckets are now - k minutes, k = 1..minutes
    minutes: int
    schedule_id: int
    dropped_id: int
    queue_ids: dict[str, int]
    schedule_label: str
    dropped_label: str
    dropped_minutes: int
    hours: int
    messages: dict[int, int] = field(default_factory=dict)  # minute bucket (epoch ms) -> messages
    failed_minutes: list[int] = field(default_factory=list)
    delivered_per_minute: int = 3
    pending: int = 2


def ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


async def seed(conn: asyncpg.Connection, minutes: int = 20) -> Seeded:
    """Realistic rows: two queues with a propagation schedule between them, the statistics
    job's series (per minute and per hour) and totals for it and for a schedule dropped
    since, one monitor snapshot per queue per minute, notifications delivered every minute,
    some failed, some pending, and a finished statistics run."""
    rnd = random.Random(11)
    await make_queue(conn, "dash.orders_q", "dash.orders_t", multiple=True, retention=3600)
    await make_queue(conn, "dash.in_q", "dash.in_t")
    await conn.execute("CALL dbms_aqadm.add_subscriber('dash.orders_q', sys.aq$_agent(NULL, 'dash.in_q', 0))")
    await conn.execute("CALL dbms_aqadm.schedule_propagation(queue_name => 'dash.orders_q', latency => 0)")
    sid = await conn.fetchval("SELECT id FROM aq.schedules")
    qids = {f"dash.{r['queue_name']}": r["id"] for r in await conn.fetch(
        "SELECT id, queue_name FROM aq.queues WHERE schema_name = 'dash' AND queue_name IN ('orders_q', 'in_q')")}
    now = await conn.fetchval("SELECT date_trunc('minute', now(), 'UTC')")
    dropped = sid + 1000
    s = Seeded(now=now, minutes=minutes, schedule_id=sid, dropped_id=dropped, queue_ids=qids,
               schedule_label=f"#{sid} dash.orders_q → dash.in_q",
               dropped_label=f"#{dropped} dash.old_q → old_q@remote", dropped_minutes=minutes // 2, hours=5)

    series: list[tuple[Any, ...]] = []

    def schedule_row(schedule: int, queue: str, dest: str, grain: str, bucket: datetime, scale: int) -> None:
        messages = rnd.randint(100, 2000) * scale
        failures = 1 if rnd.random() < 0.2 else 0
        undeliverable = 1 if rnd.random() < 0.05 else 0
        p50 = rnd.uniform(2, 20)
        lat = rnd.uniform(50, 400)
        series.append((schedule, grain, bucket, queue, dest, rnd.randint(1, 10) * scale, messages,
                       messages * rnd.randint(200, 800), messages * rnd.uniform(0.0005, 0.003), failures,
                       undeliverable, 0, failures + undeliverable, p50, p50 * 3, p50 * 5, messages // 3,
                       lat, lat * 2.5, lat * 4))
        if schedule == sid and grain == "minute":
            s.messages[ms(bucket)] = messages

    for k in range(1, minutes + 1):
        schedule_row(sid, "dash.orders_q", "dash.in_q", "minute", now - timedelta(minutes=k), 1)
    for k in range(1, s.dropped_minutes + 1):
        schedule_row(dropped, "dash.old_q", "old_q@remote", "minute", now - timedelta(minutes=k), 1)
    hour = now.replace(minute=0)
    for h in range(s.hours):
        schedule_row(sid, "dash.orders_q", "dash.in_q", "hour", hour - timedelta(hours=h), 60)
    await conn.executemany(
        "INSERT INTO aq_stats.schedule_series (schedule_id, grain, bucket, queue_name, destination, batches,"
        " messages, bytes, seconds, failures, undeliverable, disabled, errors, batch_p50_ms, batch_p95_ms,"
        " batch_p99_ms, latency_samples, latency_p50_ms, latency_p95_ms, latency_p99_ms)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)",
        series)
    await conn.executemany(
        "INSERT INTO aq_stats.schedule_totals (schedule_id, queue_name, destination, windows, batches,"
        " total_number, total_bytes, total_time, max_number, max_bytes, avg_number, avg_bytes, avg_size,"
        " avg_time, failures, undeliverable, disabled, first_at, last_at)"
        " VALUES ($1, $2, $3, 2, 40, $4::bigint, $5::bigint, $6::float8, $4, $5, $4 / 2.0, $5 / 2.0,"
        " $5::float8 / $4, $6 / $4, 3, 1, 0, $7, $8)",
        [(sid, "dash.orders_q", "dash.in_q", 24000, 9_600_000, 36.0, now - timedelta(hours=5), now),
         (dropped, "dash.old_q", "old_q@remote", 5000, 1_000_000, 9.5, now - timedelta(hours=2), now)])

    queue_rows = []
    snapshots = []
    for name, qid in qids.items():
        for k in range(1, minutes + 1):
            bucket = now - timedelta(minutes=k)
            enq = rnd.randint(500, 3000)
            deq = int(enq * rnd.uniform(0.7, 1.1))
            w50 = rnd.uniform(5, 80)
            queue_rows.append((qid, "minute", bucket, "dash", name.split(".")[1], enq, deq, deq,
                               w50, w50 * 3, w50 * 6, 1, rnd.uniform(0, 500), 600, 3, 0, rnd.uniform(0, 30)))
            snapshots.append((bucket + timedelta(seconds=1), qid, "dash", name.split(".")[1],
                              rnd.randint(0, 5000), rnd.randint(0, 40), rnd.randint(0, 3), rnd.uniform(0.5, 90)))
    await conn.executemany(
        "INSERT INTO aq_stats.queue_series (queue_id, grain, bucket, queue_schema, queue_name, enqueued,"
        " dequeued, wait_samples, wait_p50_ms, wait_p95_ms, wait_p99_ms, snapshots, ready_avg, ready_max,"
        " waiting_max, expired_max, oldest_ready_age_max)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)", queue_rows)
    await conn.executemany(
        "INSERT INTO aq.queue_snapshots (taken_at, queue_id, queue_schema, queue_name, ready, waiting, expired,"
        " processed, oldest_ready_age) VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8)", snapshots)

    notes = []
    for k in range(1, minutes + 1):
        finished = now - timedelta(minutes=k) + timedelta(seconds=5)
        for _ in range(s.delivered_per_minute):
            notes.append(("DELIVERED", 1, finished - timedelta(seconds=2), finished))
        if k % 4 == 0:
            s.failed_minutes.append(k)
            notes.append(("FAILED", 5, finished - timedelta(seconds=40), finished))
    for _ in range(s.pending):
        notes.append(("PENDING", 0, now, None))
    await conn.executemany(
        "INSERT INTO aq.notifications (queue_name, reg_name, url, dest_key, owner, state, attempts, created_at,"
        " due_at, finished_at) VALUES ('dash.orders_q', 'DASH.ORDERS_Q', 'http://127.0.0.1:9/n',"
        " 'http://127.0.0.1:9', 'postgres', $1, $2, $3, $3, $4)", notes)
    await conn.execute(
        "INSERT INTO aq_stats.runs (started_at, finished_at, low, high, log_rows, history_rows, snapshot_rows,"
        " written_rows, status) VALUES (now() - interval '70 seconds', now() - interval '60 seconds',"
        " now() - interval '6 minutes', now() - interval '90 seconds', 100, 200, 40, 300, 'DONE')")
    return s


async def make_admin_agent(conn: asyncpg.Connection, agent: str = "DASHADMIN",
                           password: str = "pw") -> list[str]:
    """An agent mapped to a role that is a member of aq_administrator_role."""
    roles = await make_agent(conn, agent, password, roles=("dash_admin",))
    await conn.execute(f'GRANT aq_administrator_role TO "{roles[0]}"')
    return roles


@pytest.fixture
async def site(conn: asyncpg.Connection, db_dsn: str) -> AsyncIterator[str]:
    """A gateway with an admin agent (DASHADMIN/pw), a plain one (PLAIN/pw) and the admin token."""
    roles = await make_admin_agent(conn)
    roles += await make_agent(conn, "PLAIN", "pw", roles=("dash_plain",))
    try:
        async with running_gateway(db_dsn, admin_token=TOKEN, validate=False) as url:
            yield url.rsplit("/aqserv", 1)[0]
    finally:
        await drop_roles(conn, roles)


async def get(base: str, path: str, headers: dict[str, str] | None = None
              ) -> tuple[int, dict[str, str], bytes]:
    async with aiohttp.ClientSession() as http, http.get(
            f"{base}{path}", headers=headers or {}, allow_redirects=False) as r:
        return r.status, dict(r.headers), await r.read()


async def data(base: str, rng: str = "1h") -> dict[str, Any]:
    async with aiohttp.ClientSession() as http, http.get(
            f"{base}/dashboard/data", params={"range": rng}, headers=basic("DASHADMIN", "pw")) as r:
        assert r.status == 200, await r.text()
        assert r.headers["Cache-Control"] == "no-store"
        body: dict[str, Any] = await r.json()
        return body


async def test_data_endpoint_serves_every_chart_from_the_tables(conn: asyncpg.Connection, site: str) -> None:
    s = await seed(conn)
    d = await data(site, "1h")
    assert d["range"] == "1h" and d["grain"] == "minute" and d["bucket_seconds"] == 60
    assert d["to"] - d["from"] >= 3600 * 1000

    prop = {p["id"]: p for p in d["propagation"]}
    assert set(prop) == {s.schedule_id, s.dropped_id}
    mine = prop[s.schedule_id]
    assert mine["label"] == s.schedule_label and prop[s.dropped_id]["label"] == s.dropped_label
    assert mine["t"] == sorted(s.messages)  # every minute bucket, oldest first
    assert mine["messages"] == [s.messages[t] for t in mine["t"]]
    assert mine["messages_per_s"] == pytest.approx([s.messages[t] / 60 for t in mine["t"]])
    for i, n in enumerate(mine["messages"]):
        assert mine["bytes_per_s"][i] == pytest.approx(mine["bytes"][i] / 60)
        assert mine["ms_per_message"][i] > 0 and n > 0
        assert mine["latency_p50_ms"][i] < mine["latency_p95_ms"][i] < mine["latency_p99_ms"][i]
    assert len(prop[s.dropped_id]["t"]) == s.dropped_minutes

    queues = {q["id"]: q for q in d["queues"]}
    depth = {q["id"]: q for q in d["depth"]}
    assert set(queues) == set(depth) == set(s.queue_ids.values())
    for name, qid in s.queue_ids.items():
        assert queues[qid]["label"] == depth[qid]["label"] == name
        assert len(queues[qid]["t"]) == len(depth[qid]["t"]) == s.minutes
        assert queues[qid]["enqueued_per_s"] == pytest.approx([n / 60 for n in queues[qid]["enqueued"]])
        assert all(a <= b for a, b in zip(queues[qid]["wait_p50_ms"], queues[qid]["wait_p99_ms"], strict=True))
        assert depth[qid]["snapshots"] == [1] * s.minutes
        assert all(isinstance(v, float) for v in depth[qid]["oldest_ready_age"])

    notes = {n["id"]: n for n in d["notifications"]}
    assert sum(notes["DELIVERED"]["notifications"]) == s.minutes * s.delivered_per_minute
    assert len(notes["DELIVERED"]["t"]) == s.minutes
    assert len(notes["FAILED"]["t"]) == len(s.failed_minutes)
    assert notes["PENDING"]["notifications"] == [s.pending]
    totals = {t["state"]: t for t in d["notification_totals"]}
    assert totals["DELIVERED"]["notifications"] == s.minutes * s.delivered_per_minute
    assert totals["FAILED"]["attempts"] == 5 * len(s.failed_minutes)
    assert totals["PENDING"]["oldest_pending_s"] >= 0

    schedules = {r["schedule_id"]: r for r in d["schedules"]}
    live, gone = schedules[s.schedule_id], schedules[s.dropped_id]
    assert live["live"] and live["queue_name"] == "dash.orders_q" and live["destination"] == "AQ$_LOCAL"
    assert live["stats_total_number"] == 24000 and live["stats_avg_time"] == pytest.approx(36.0 / 24000)
    assert not gone["live"] and gone["queue_name"] == "dash.old_q" and gone["stats_failures"] == 3
    assert [r["status"] for r in d["stats_runs"]] == ["DONE"]
    assert isinstance(d["stats_runs"][0]["high"], int)

    # what the empty charts' texts are made of: retention, exception queues, schedules
    info = {q["label"]: q for q in d["queue_info"]}
    assert info["dash.orders_q"] == {"queue_id": s.queue_ids["dash.orders_q"], "label": "dash.orders_q",
                                     "exception": False, "retention": 3600.0, "propagates": True}
    assert info["dash.in_q"]["retention"] == 0 and not info["dash.in_q"]["propagates"]
    assert info["dash.aq$_orders_t_e"]["exception"] and info["dash.aq$_in_t_e"]["exception"]


async def test_ranges_choose_the_grain_and_the_window(conn: asyncpg.Connection, site: str) -> None:
    s = await seed(conn)
    short = await data(site, "15m")
    mine = next(p for p in short["propagation"] if p["id"] == s.schedule_id)
    assert all(t >= short["from"] for t in mine["t"]) and 14 <= len(mine["t"]) <= 15
    day = await data(site, "24h")
    assert day["grain"] == "hour" and day["bucket_seconds"] == 3600
    hourly = next(p for p in day["propagation"] if p["id"] == s.schedule_id)
    assert len(hourly["t"]) == s.hours  # the hour buckets, not the minute ones
    assert all(t % 3_600_000 == 0 for t in hourly["t"])
    depth = day["depth"][0]  # snapshots folded into hours: at most two hour buckets
    assert sum(depth["snapshots"]) == s.minutes and len(depth["t"]) <= 2


@pytest.mark.parametrize("rng", ["2h", "", "1h' OR '1'='1", "minute", "1h;DROP TABLE aq.queues"])
async def test_a_range_outside_the_fixed_set_is_refused(site: str, rng: str) -> None:
    status, _, body = await get(site, f"/dashboard/data?range={rng}", basic("DASHADMIN", "pw"))
    assert status == 400 and b"range must be one of" in body


async def test_only_administrators_get_in(site: str) -> None:
    for path in ("/dashboard", "/dashboard/data", "/dashboard/static/dashboard.js"):
        status, headers, _ = await get(site, path)
        assert status == 401 and headers["WWW-Authenticate"].startswith("Basic realm="), path
        status, headers, _ = await get(site, path, basic("DASHADMIN", "wrong"))
        assert status == 401 and "WWW-Authenticate" in headers, path
        status, _, body = await get(site, path, basic("PLAIN", "pw"))
        assert status == 403 and b"aq_administrator_role" in body, path
        status, _, _ = await get(site, path, {"Authorization": "Bearer nope"})
        assert status == 401, path
        for ok in (basic("DASHADMIN", "pw"), basic("admin", TOKEN), {"Authorization": f"Bearer {TOKEN}"}):
            status, _, _ = await get(site, path, ok)
            assert status == 200, (path, ok)
    # the token is no password for another user name
    status, _, _ = await get(site, "/dashboard", basic("DASHADMIN", TOKEN))
    assert status == 401


async def test_the_token_is_off_without_a_token(conn: asyncpg.Connection, db_dsn: str) -> None:
    async with running_gateway(db_dsn, validate=False) as url:
        base = url.rsplit("/aqserv", 1)[0]
        for header in (basic("admin", ""), {"Authorization": "Bearer "}, {"Authorization": "Bearer None"}):
            status, _, _ = await get(base, "/dashboard", header)
            assert status == 401


async def test_the_page_and_its_files(site: str) -> None:
    auth = basic("DASHADMIN", "pw")
    status, headers, body = await get(site, "/dashboard", auth)
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert b'src="dashboard/static/dashboard.js"' in body and b"http" not in body.replace(b"http-equiv", b"")
    status, headers, body = await get(site, "/dashboard/static/dashboard.js", auth)
    assert status == 200 and headers["Content-Type"].startswith("text/javascript") and b"dashboard/data" in body
    status, headers, _ = await get(site, "/dashboard/static/dashboard.css", auth)
    assert status == 200 and headers["Content-Type"].startswith("text/css")
    for name in ("dashboard.html", "..%2f__init__.py", "nope.js"):
        status, _, _ = await get(site, f"/dashboard/static/{name}", auth)
        assert status == 404, name
    status, headers, _ = await get(site, "/dashboard/", auth)
    assert status == 301 and headers["Location"] == "/dashboard"


async def test_an_empty_database_gives_empty_series(site: str) -> None:
    d = await data(site, "6h")
    for key in ("propagation", "queues", "depth", "notifications", "notification_totals", "schedules",
                "stats_runs"):
        assert d[key] == [], key
