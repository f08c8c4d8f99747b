"""The floor of W2 (issue 35): a bare aiohttp long-poll that waits on LISTEN and takes a row
with DELETE ... SKIP LOCKED, served as the gateway serves its waiting receives.

`python -m bench.longpoll_floor` is one process (the gateway's worker count on this
machine's `auto` with PostgreSQL on the host), on the event loop the gateway runs
(pgaq.aio.run), with an asyncpg pool sized like the gateway's and one listening
connection. A request waits until a row is there and answers it as `<RAW>hex</RAW>`:
first a look (DELETE of the oldest row, SKIP LOCKED), then, when there was none, it joins
the waiters; each NOTIFY wakes one waiter in arrival order, the one wake-up a message
needs. No SOAP, no authentication, no sessions, no AQ. Producers INSERT a row and NOTIFY
in one statement (bench/fanout_bench.py, row W2f). Prints "ready <pid>" once it listens.
"""

from __future__ import annotations

import asyncio
import collections
import os

import asyncpg
from aiohttp import web
from pgaq.aio import run as aio_run

from .http_floor import serve_until_stopped

CHANNEL = "lp_floor"
TAKE = ("DELETE FROM lp.floor_q WHERE id = (SELECT id FROM lp.floor_q ORDER BY id LIMIT 1"
        " FOR UPDATE SKIP LOCKED) RETURNING payload")
SEND = ("WITH i AS (INSERT INTO lp.floor_q (payload) VALUES ($1) RETURNING 1)"
        f" SELECT pg_notify('{CHANNEL}', '') FROM i")
SETUP = """CREATE SCHEMA IF NOT EXISTS lp;
DROP TABLE IF EXISTS lp.floor_q;
CREATE TABLE lp.floor_q (id bigserial PRIMARY KEY, payload bytea NOT NULL);"""
POOL_MAX = 60  # services/gateway/settings.py: pool_max


async def serve(dsn: str, port: int) -> None:
    pool = await asyncpg.create_pool(dsn, min_size=2, max_size=POOL_MAX)
    listener = await asyncpg.connect(dsn)
    waiting: collections.deque[asyncio.Future[None]] = collections.deque()

    def woken(*_: object) -> None:
        while waiting:
            f = waiting.popleft()
            if not f.done():
                f.set_result(None)
                return

    await listener.add_listener(CHANNEL, woken)

    async def receive(request: web.Request) -> web.Response:
        await request.read()
        while True:
            # a waiter before the look, so that a NOTIFY between the two is not lost
            f = asyncio.get_running_loop().create_future()
            waiting.append(f)
            used = False
            try:
                async with pool.acquire() as conn:
                    got = await conn.fetchval(TAKE)
                if got is not None:
                    return web.Response(text=f"<RAW>{bytes(got).hex()}</RAW>",
                                        content_type="text/xml")
                try:
                    async with asyncio.timeout(30.0):  # (not wait_for: it can swallow a cancel)
                        await f
                    used = True  # the next look is this wake-up's
                except TimeoutError:
                    pass
            finally:
                # a client gone (the request cancelled) or a message found: a wake-up this
                # waiter will not use is the next one's, and one not yet come is nobody's
                if not f.done():
                    waiting.remove(f)
                elif not used and not f.cancelled():
                    woken()

    app = web.Application()
    app.router.add_post("/{tail:.*}", receive)
    try:
        # (a client gone stops its request, as the gateway's waiting receives do: a request
        # left waiting would take a wake-up and a row for nobody)
        await serve_until_stopped(app, port, handler_cancellation=True)
    finally:
        await listener.close()
        await pool.close()


def main() -> None:
    aio_run(serve(os.environ["BENCH_FLOOR_DSN"], int(os.environ["BENCH_FLOOR_PORT"])))


if __name__ == "__main__":
    main()
