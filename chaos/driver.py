"""The run: the mesh up, load and faults at once, the blocked receivers woken, the
backlog drained, every id accounted for."""

from __future__ import annotations

import asyncio
import base64
import random
import time

import aiohttp
import asyncpg
from pgaq import Session

from .account import DESTINATIONS, Report, account, drained
from .consume import Consumer
from .faults import Progress, fault_driver
from .load import Load, envelope
from .mesh import AGENT, PASSWORD, Mesh
from .settings import Settings

__all__ = ["Settings", "run"]


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
                headers = {"Content-Type": "text/xml", "Authorization": auth}
                async with http.post(url, data=doc, headers=headers,
                                     timeout=aiohttp.ClientTimeout(total=60)) as r:
                    body = await r.read()
                    if r.status == 200 and b"<RAW>" in body.replace(b"ns0:", b""):
                        await woke.put(body.split(b"RAW>")[1].split(b"<")[0].decode())
                        return
            except (aiohttp.ClientError, TimeoutError, OSError):
                pass
            await asyncio.sleep(0.05)  # a restarting gateway: don't spin on its port

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
        progress = Progress()
        load = Load(mesh.url_a, AGENT, PASSWORD, s.messages, pace=progress.reached)
        t1 = time.monotonic()
        loading = asyncio.ensure_future(load.run())
        await fault_driver(mesh, rng, rep.say, progress)
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
        ok = await drained(mesh, ledger, s.drain_timeout, rep.say)
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
            rep.say(f"service {svc.name:<12} SIGKILLed {svc.kills} "
                    f"died on its own {len(svc.deaths)} {svc.deaths}")
        assert mesh.proxy is not None
        rep.say(f"postgres restarts {mesh.pg_restarts}; link cuts {mesh.proxy.cuts}; "
                f"http sink refused {mesh.http.refused}; smtp sink refused {mesh.smtp.refused} "
                f"(and was down {mesh.smtp.refused_connections}x); "
                f"consumer reconnects {sum(c.reconnects for c in consumers)}")
        for r in receivers:
            r.cancel()
    finally:
        await mesh.stop()
    rep.say(f"chaos: {'PASS' if not rep.violations else f'FAIL ({len(rep.violations)} violations)'} "
            f"in {time.monotonic() - t0:.1f}s")
    return rep
