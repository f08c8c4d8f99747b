"""Connection pools and named queries, with driver errors turned into library errors.

Callers then handle one exception family (`PgaqError`) that carries the ORA code.
"""

from __future__ import annotations

from typing import Any

import asyncpg

from .errors import wrap_db_error
from .queries import load

# what the driver raises for a database that is down, refuses us, or rejects the SQL (a
# connection cut mid-operation can surface as InternalClientError when the pool resets it)
DB_ERRORS: tuple[type[BaseException], ...] = (
    asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError, OSError, TimeoutError)


async def create_pool(dsn: str, min_size: int = 1, max_size: int = 10, **kwargs: Any) -> asyncpg.Pool:
    """An asyncpg pool; a failure to connect surfaces as `ConnectionLost`/`PgaqError`."""
    try:
        return await asyncpg.create_pool(dsn, min_size=min_size, max_size=max_size, **kwargs)
    except DB_ERRORS as exc:
        raise wrap_db_error(exc) from exc


async def fetch(conn: asyncpg.Connection | asyncpg.Pool, name: str, *args: Any) -> list[asyncpg.Record]:
    """Run the named query `pgaq/sql/queries/<name>.sql` and return its rows."""
    try:
        rows: list[asyncpg.Record] = await conn.fetch(load(name), *args)
    except DB_ERRORS as exc:
        raise wrap_db_error(exc) from exc
    return rows


async def fetchval(conn: asyncpg.Connection | asyncpg.Pool, name: str, *args: Any) -> Any:
    """Run the named query and return the first column of its first row."""
    try:
        return await conn.fetchval(load(name), *args)
    except DB_ERRORS as exc:
        raise wrap_db_error(exc) from exc
