"""Fixtures of the integration tests beyond tests/conftest.py's."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

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
