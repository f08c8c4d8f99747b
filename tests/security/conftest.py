"""Fixtures of the security suite (see support.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from tests.integration.gateway_support import running_gateway

from .support import ADMIN_TOKEN, Site, drop_role, two_tenants


@pytest.fixture
async def site(conn: asyncpg.Connection, db_dsn: str) -> AsyncIterator[Site]:
    role_a, role_b = await two_tenants(conn)
    async with running_gateway(db_dsn, session_timeout=1.0, admin_token=ADMIN_TOKEN) as url:
        base = url.rsplit("/aqserv/servlet", 1)[0]
        yield Site(url, base, role_a, role_b)
    for role in (role_a, role_b):
        await drop_role(conn, role)
