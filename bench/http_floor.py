"""The gateway's HTTP floor: a bare aiohttp handler that reads the request's body and runs
one INSERT, served as the gateway serves (issue 35).

`python -m bench.http_floor` is one worker process: aiohttp's own web.TCPSite with
SO_REUSEPORT on BENCH_FLOOR_PORT (the bench starts as many as the gateway has workers,
and the kernel spreads connections between them, as between the gateway's), the same
event loop (pgaq.aio.aio_run: uvloop unless PGAQ_EVENT_LOOP=asyncio), an asyncpg pool
sized like the gateway's (min 2, max PGAQ_GATEWAY_POOL_MAX's default 60, no reset round
trip), connected as the agent's ordinary role. The handler: read the body, acquire, one
INSERT of the SQL floor's row (autocommit: one transaction, committed with fsync and
synchronous_commit on), answer 200. No SOAP, no authentication, no sessions, no access
log: what is left of a request once everything pgaq does is taken away.
Prints "ready <pid>" on stdout once it listens, so the bench waits on that line.
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import asyncpg
from aiohttp import web
from pgaq.aio import run as aio_run

INSERT = "INSERT INTO gw.floor_ins (q_name, priority, payload) VALUES ($1, $2, $3)"
PAYLOAD = b"x" * 100  # the SQL floor's row (gateway_bench.PAYLOAD)
POOL_MAX = 60  # services/gateway/settings.py: pool_max


async def _reset(conn: asyncpg.Connection) -> None:
    """As the gateway's pool: nothing to undo, so no round trip on release."""
    if conn.is_in_transaction():
        await conn.execute("ROLLBACK")


async def serve(dsn: str, port: int, role: str) -> None:
    async def as_role(conn: asyncpg.Connection) -> None:
        await conn.execute(f"SET ROLE {role}")

    pool = await asyncpg.create_pool(dsn, min_size=2, max_size=POOL_MAX, init=as_role,
                                     reset=_reset)

    async def insert(request: web.Request) -> web.Response:
        body = await request.read()
        if not body:
            return web.Response(status=400, text="empty body")
        async with pool.acquire() as conn:
            await conn.execute(INSERT, "q", 1, PAYLOAD)
        return web.Response(text="ok", content_type="text/xml")

    app = web.Application()
    app.router.add_post("/{tail:.*}", insert)
    try:
        await serve_until_stopped(app, port, reuse_port=True)
    finally:
        await pool.close()


async def serve_until_stopped(app: web.Application, port: int, reuse_port: bool = False,
                              **runner: Any) -> None:
    """Serve `app` on 127.0.0.1:`port`, no access log, until SIGTERM or SIGINT; prints
    "ready <pid>" once it listens (the bench waits on that line). `runner`: AppRunner's
    options."""
    r = web.AppRunner(app, access_log=None, **runner)
    await r.setup()
    site = web.TCPSite(r, "127.0.0.1", port, reuse_port=reuse_port)
    await site.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"ready {os.getpid()}", flush=True)
    try:
        await stop.wait()
    finally:
        await r.cleanup()


def main() -> None:
    dsn, port, role = (os.environ["BENCH_FLOOR_DSN"], int(os.environ["BENCH_FLOOR_PORT"]),
                       os.environ["BENCH_FLOOR_ROLE"])
    aio_run(serve(dsn, port, role))


if __name__ == "__main__":
    main()
