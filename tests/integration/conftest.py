"""Fixtures of the integration tests beyond tests/conftest.py's."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pgaq.jms as jms
import pytest
from pgaq import waiting

from .waiting import connected


@pytest.fixture
async def waiter(db_dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """A connection of its own for the session that waits (a test's `conn` is the admin's)."""
    async with connected(db_dsn) as c:
        yield c


@pytest.fixture
async def producer(db_dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """A connection of its own for the session that enqueues while another waits."""
    async with connected(db_dsn) as c:
        yield c


@pytest.fixture(autouse=True)
async def _no_shared_listener_outlives_its_test() -> AsyncIterator[None]:
    """A library wait with no Listener wired starts the process's shared listening
    connection (pgaq.waiting); each test closes what it started, so the next begins with
    none."""
    yield
    await waiting.shutdown()


@pytest.fixture
async def connection(db_dsn: str) -> AsyncIterator[jms.Connection]:
    """A pgaq.jms Connection to the test's database, not started (its waits poll slowly:
    only a NOTIFY wakes them, so a test that relies on one is not rescued by the poll)."""
    c = await jms.ConnectionFactory(db_dsn, safety_poll=30.0).create_connection()
    try:
        yield c
    finally:
        await c.close()
