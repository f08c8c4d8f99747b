"""Fixtures of the security suite (see support.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest

from tests.integration.gateway_support import running_gateway

from .support import ADMIN_TOKEN, Site, drop_role, two_tenants


@asynccontextmanager
async def _site(conn: asyncpg.Connection, db_dsn: str, session_timeout: float) -> AsyncIterator[Site]:
    role_a, role_b = await two_tenants(conn)
    async with running_gateway(db_dsn, session_timeout=session_timeout, admin_token=ADMIN_TOKEN) as url:
        base = url.rsplit("/aqserv/servlet", 1)[0]
        yield Site(url, base, role_a, role_b)
    for role in (role_a, role_b):
        await drop_role(conn, role)


@pytest.fixture
async def site(conn: asyncpg.Connection, db_dsn: str) -> AsyncIterator[Site]:
    """A gateway whose sessions outlive any stall of a loaded machine between requests."""
    async with _site(conn, db_dsn, session_timeout=30.0) as s:
        yield s


@pytest.fixture
async def idle_site(conn: asyncpg.Connection, db_dsn: str) -> AsyncIterator[Site]:
    """A gateway that ends a session after 2 s of inactivity."""
    async with _site(conn, db_dsn, session_timeout=2.0) as s:
        yield s
