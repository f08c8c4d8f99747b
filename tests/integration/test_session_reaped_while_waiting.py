"""A request that waits for its session while the reaper rolls that session back is told
so (ORA-25402), as a request arriving after the reaper is: it must not run outside the
transaction it believes open, where its commit would succeed and commit nothing."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest
from pgaq.idap.sessions import SessionError, SessionStore


async def test_a_request_waiting_for_a_session_being_reaped_is_told_it_rolled_back(db_dsn: str) -> None:
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=2)
    store = SessionStore(pool, None, timeout=60)
    try:
        s = await store.claim(None, "JOHN")
        await store.engine_for(s, transactional=True)
        s.lock.release()
        assert s.in_transaction
        # tasks start in the order made: the reaper takes the session's lock and waits on
        # its ROLLBACK; the request then finds the session still open and waits for it
        reaping = asyncio.create_task(store.reap(time.monotonic() + 61))
        waiting = asyncio.create_task(store.claim(s.token, "JOHN"))
        assert await reaping == 1
        with pytest.raises(SessionError) as told:
            await waiting
        assert told.value.code == 25402 and "rolled back" in str(told.value)
        # told once: the next request starts a fresh session
        fresh = await store.claim(s.token, "JOHN")
        assert fresh is not s and not fresh.in_transaction
        fresh.lock.release()
    finally:
        await store.close()
        await pool.close()

