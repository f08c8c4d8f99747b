"""Notification figures (issue 5's targets), the notifier in its own process as `pgaq up`
runs it: commit-to-arrival latency at 200/s, delivery throughput to a fast receiver, and
e-mail handed to SMTP; each beside a floor measured in the same run."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from email.message import EmailMessage
from typing import Any

import aiohttp
import aiosmtplib
import asyncpg
from aiohttp import web
from aiosmtpd.controller import Controller
from pgaq import Session
from pgaq.embedded import free_port

from .measure import percentile

MSGID = re.compile(rb"<message_id>([0-9A-F]{32})</message_id>")


class _Arrivals:
    """Message id -> arrival time, with a future per awaited id."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}
        self.count = 0
        self.all_in = asyncio.Event()
        self.expect = 0
        self.first = 0.0

    def arrived(self, body: bytes) -> None:
        now = time.perf_counter()
        self.count += 1
        if self.count == 1:
            self.first = now
        m = MSGID.search(body)
        if m:
            self.at.setdefault(m.group(1).decode(), now)
        if self.expect and self.count >= self.expect:
            self.all_in.set()


async def _receiver(arrivals: _Arrivals) -> tuple[web.AppRunner, int]:
    async def post(request: web.Request) -> web.Response:
        arrivals.arrived(await request.read())
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_post("/{tail:.*}", post)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, port


class _Mailbox:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.got: asyncio.Queue[float] = asyncio.Queue()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.loop.call_soon_threadsafe(self.got.put_nowait, time.perf_counter())
        return "250 OK"


async def _setup(dsn: str, http_port: int, smtp_port: int) -> None:
    c = await asyncpg.connect(dsn)
    try:
        await c.execute(f"""
            CREATE SCHEMA nt;
            CALL dbms_aqadm.create_queue_table('nt.qt', 'RAW');
            CALL dbms_aqadm.create_queue('nt.lat', 'nt.qt'); CALL dbms_aqadm.start_queue('nt.lat');
            CALL dbms_aqadm.create_queue('nt.bulk', 'nt.qt'); CALL dbms_aqadm.start_queue('nt.bulk');
            CALL dbms_aqadm.create_queue('nt.mail', 'nt.qt'); CALL dbms_aqadm.start_queue('nt.mail');
            CALL aq.allow_notification_host('127.0.0.1');
            CALL dbms_aqelm.set_mailhost('127.0.0.1');
            CALL dbms_aqelm.set_mailport({smtp_port});
            CALL dbms_aqelm.set_sendfrom('bench@example.com');
            CREATE TABLE nt.floor (id bigserial PRIMARY KEY, body bytea);
        """)
        await c.execute("SELECT aq.register('nt.lat', NULL, $1)", f"http://127.0.0.1:{http_port}/lat")
        await c.execute("SELECT aq.register('nt.bulk', NULL, $1)", f"http://127.0.0.1:{http_port}/bulk")
        await c.execute("SELECT aq.register('nt.mail', NULL, 'mailto:ops@example.com')")
    finally:
        await c.close()


async def _start_notifier(dsn: str) -> asyncio.subprocess.Process:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq_services.notifier",
        env={**os.environ, "PGAQ_DSN": dsn, "PGAQ_LOG_LEVEL": "WARNING"})
    return proc


async def _notify_floor(dsn: str, n: int) -> list[float]:
    """The floor for latency: a bare NOTIFY's trip from commit to a LISTENing client."""
    listener = await asyncpg.connect(dsn)
    sender = await asyncpg.connect(dsn)
    got: asyncio.Queue[float] = asyncio.Queue()
    await listener.add_listener("nt_floor", lambda *_: got.put_nowait(time.perf_counter()))
    out: list[float] = []
    try:
        for _ in range(n):
            t = time.perf_counter()
            await sender.execute("SELECT pg_notify('nt_floor', '')")
            out.append((await asyncio.wait_for(got.get(), 5) - t) * 1000)
    finally:
        await listener.close()
        await sender.close()
    return out


async def _http_floor(port: int, seconds: float, concurrency: int) -> float:
    """The floor for throughput: the same HTTP client stack POSTing straight at the receiver."""
    count = 0
    deadline = time.perf_counter() + seconds
    body = b"<x>" + b"0" * 600 + b"</x>"

    async with aiohttp.ClientSession() as http:
        async def worker() -> None:
            nonlocal count
            while time.perf_counter() < deadline:
                async with http.post(f"http://127.0.0.1:{port}/floor", data=body) as r:
                    await r.read()
                count += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return count / (time.perf_counter() - started)


async def run(dsn: str, service_dsn: str, seconds: float) -> list[dict[str, Any]]:
    arrivals = _Arrivals()
    runner, http_port = await _receiver(arrivals)
    box = _Mailbox(asyncio.get_running_loop())
    smtp_port = free_port()
    smtp = Controller(box, hostname="127.0.0.1", port=smtp_port)
    await asyncio.to_thread(smtp.start)
    rows: list[dict[str, Any]] = []
    proc: asyncio.subprocess.Process | None = None
    pool = await asyncpg.create_pool(dsn, min_size=2, max_size=4)
    try:
        await _setup(dsn, http_port, smtp_port)

        # 1. throughput: a backlog enqueued while no notifier runs, then drained
        bulk = int(max(2000, 2000 * seconds))
        async with pool.acquire() as c:
            s = Session(c)
            for i in range(0, bulk, 500):
                await s.enqueue_array("nt.bulk", [(b"b", None)] * min(500, bulk - i))
        arrivals.expect = bulk
        proc = await _start_notifier(service_dsn)
        await asyncio.wait_for(arrivals.all_in.wait(), 120)
        rate = (bulk - 1) / (time.perf_counter() - arrivals.first)  # first to last arrival
        floor_rate = await _http_floor(http_port, min(seconds, 3.0), 8)
        rows.append({"benchmark": f"notifications delivered/s ({bulk:,} backlog)", "pgaq": round(rate, 1),
                     "floor": round(floor_rate, 1), "unit": "notif/s", "ratio": round(rate / floor_rate, 3),
                     "target": ">= 1,000/s", "pass": rate >= 1000,
                     "note": "first to last arrival; floor: aiohttp POSTs straight to the "
                             "receiver, 8 at a time"})

        # 2. latency at 200 notifications/s: enqueue commit -> arrival
        arrivals.at.clear()
        commits: dict[str, float] = {}
        n = int(200 * seconds)
        async with pool.acquire() as c:
            s = Session(c)
            t0 = time.perf_counter()
            for i in range(n):
                due = t0 + i / 200
                pause = due - time.perf_counter()
                if pause > 0:
                    await asyncio.sleep(pause)  # pacing the load, not synchronising a test
                mid = await s.enqueue("nt.lat", b"l")
                commits[mid] = time.perf_counter()
        for _ in range(200):
            if all(m in arrivals.at for m in commits):
                break
            await asyncio.sleep(0.05)
        lat = [(arrivals.at[m] - t) * 1000 for m, t in commits.items() if m in arrivals.at]
        floor = await _notify_floor(dsn, 200)
        p50, p99 = percentile(lat, 50), percentile(lat, 99)
        rows.append({"benchmark": "notification commit -> HTTP arrival at 200/s (ms p50)",
                     "pgaq": round(p50, 2), "floor": round(percentile(floor, 50), 2), "unit": "ms",
                     "target": "p50 <= 20, p99 <= 100", "pass": p50 <= 20 and p99 <= 100 and len(lat) == n,
                     "pgaq_p99_ms": round(p99, 2),
                     "note": f"p99 {p99:.1f} ms; {len(lat)}/{n} arrived; floor: a bare NOTIFY to a listener"})

        # 3. e-mail: commit -> handed to the SMTP server
        mail: list[float] = []
        async with pool.acquire() as c:
            s = Session(c)
            for _ in range(50):
                await s.enqueue("nt.mail", b"m")
                t = time.perf_counter()
                mail.append((await asyncio.wait_for(box.got.get(), 10) - t) * 1000)
        direct: list[float] = []
        for _ in range(50):
            msg = EmailMessage()
            msg["From"], msg["To"], msg["Subject"] = "bench@example.com", "ops@example.com", "floor"
            msg.set_content("<x/>")
            t = time.perf_counter()
            await aiosmtplib.send(msg, hostname="127.0.0.1", port=smtp_port)
            direct.append((await asyncio.wait_for(box.got.get(), 10) - t) * 1000)
        p50 = percentile(mail, 50)
        rows.append({"benchmark": "e-mail notification handed to SMTP (ms p50)", "pgaq": round(p50, 2),
                     "floor": round(percentile(direct, 50), 2), "unit": "ms", "target": "p50 <= 100",
                     "pass": p50 <= 100, "pgaq_p99_ms": round(percentile(mail, 99), 2),
                     "note": "floor: aiosmtplib sending the same way directly"})
    finally:
        if proc is not None and proc.returncode is None:
            proc.terminate()
            await proc.wait()
        await pool.close()
        await asyncio.to_thread(smtp.stop)
        await runner.cleanup()
    return rows
