"""HTTP pieces every service serves the same way."""

from __future__ import annotations

import json

import asyncpg
from aiohttp import web

from .queries import load


async def db_health(pool: asyncpg.Pool, *, features: str | None = None) -> web.Response:
    """200 when the database answers, 503 (with the reason) when it does not.

    `features` names a query returning one JSON object of optional capabilities the
    service reports beside the status (they degrade a feature, not the service).
    """
    body: dict[str, object] = {"status": "ok"}
    try:
        async with pool.acquire(timeout=5) as c:
            await c.fetchval(load("health"))
            if features is not None:
                body.update(json.loads(await c.fetchval(load(features))))
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
        return web.json_response({"status": "unavailable", "error": str(exc)[:200]}, status=503)
    return web.json_response(body)
