"""HTTP pieces every service serves the same way."""

from __future__ import annotations

import asyncpg
from aiohttp import web

from .queries import load


async def db_health(pool: asyncpg.Pool) -> web.Response:
    """200 when the database answers, 503 (with the reason) when it does not."""
    try:
        async with pool.acquire(timeout=5) as c:
            await c.fetchval(load("health"))
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
        return web.json_response({"status": "unavailable", "error": str(exc)[:200]}, status=503)
    return web.json_response({"status": "ok"})
