"""HTTP Basic authentication of AQ agents, with a short cache in front of the slow hash."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import time

import asyncpg

from ..listener import Listener
from ..queries import load

CHANNEL = "aq_agents"  # notified by aq.agents_changed() on any change to aq.agents


def parse_basic(header: str | None) -> tuple[str, str] | None:
    if not header or not header[:6].lower() == "basic ":
        return None
    try:
        raw = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    user, sep, password = raw.partition(":")
    if not sep or not user or len(user) > 128 or len(password) > 1024:
        return None
    if "\x00" in raw:  # no agent name or password holds NUL; PostgreSQL text cannot
        return None
    return user, password


class Authenticator:
    """Checks agent passwords in the database (a salted slow hash) and remembers recent
    successes for `ttl` seconds, keyed by a digest of the credentials (never stored)."""

    def __init__(self, pool: asyncpg.Pool, ttl: float = 30.0, max_entries: int = 10_000) -> None:
        self.pool = pool
        self.ttl = ttl
        self.max_entries = max_entries
        self._ok: dict[bytes, tuple[float, str]] = {}
        self._pending: dict[bytes, asyncio.Future[str | None]] = {}
        # digest of a verified Authorization header -> (expiry, agent): a client repeats
        # its header verbatim, so a hit skips the decoding (the header is never stored)
        self._headers: dict[bytes, tuple[float, str]] = {}
        self._generation = 0  # bumped by forget(): a check begun before it is not cached

    async def check_header(self, header: str | None) -> str | None:
        """check() for an HTTP Basic Authorization header; None when absent or wrong."""
        if header is None:
            return None
        # BLAKE2b is CPython's own: OpenSSL's sha256 looks its algorithm up on every call,
        # a cost every request pays here
        key = hashlib.blake2b(header.encode("utf-8", "surrogateescape"), digest_size=32).digest()
        hit = self._headers.get(key)
        if hit is not None and hit[0] > time.monotonic():
            return hit[1]
        creds = parse_basic(header)
        if creds is None:
            return None
        generation = self._generation
        agent = await self.check(*creds)
        if agent is not None and generation == self._generation:  # no forget() meanwhile
            if len(self._headers) >= self.max_entries:
                self._headers.clear()
            self._headers[key] = (time.monotonic() + self.ttl, agent)
        return agent

    async def check(self, user: str, password: str) -> str | None:
        """The agent's canonical name when the credentials are right, else None.

        Concurrent checks of the same credentials share one verification: a burst of
        requests (a client's first, or all of them when the cache entry expires) must not
        run the slow hash once per request."""
        key = hashlib.sha256(f"{user}\x00{password}".encode()).digest()
        now = time.monotonic()
        hit = self._ok.get(key)
        if hit and hit[0] > now:
            return hit[1]
        pending = self._pending.get(key)
        generation = self._generation
        if pending is None:
            pending = asyncio.ensure_future(self._verify(user, password))
            self._pending[key] = pending
            pending.add_done_callback(lambda _f: self._pending.pop(key, None))
        agent = await asyncio.shield(pending)
        if agent is not None and generation == self._generation:
            if len(self._ok) >= self.max_entries:
                self._ok.clear()
            self._ok[key] = (time.monotonic() + self.ttl, agent)
        return agent

    async def _verify(self, user: str, password: str) -> str | None:
        try:
            async with self.pool.acquire() as c:
                ok = await c.fetchval(load("idap_authenticate"), user, password)
                agent = await c.fetchval(load("idap_agent_name"), user) if ok else None
        except (asyncpg.DataError, asyncpg.RaiseError):
            return None  # credentials the database cannot even read are wrong ones
        return str(agent) if ok and agent is not None else None

    def forget(self) -> None:
        """Drop every cached success (and any check in flight from being cached)."""
        self._generation += 1
        self._pending.clear()
        self._ok.clear()
        self._headers.clear()

    async def follow(self, listener: Listener, ready: asyncio.Event) -> None:
        """Forget cached successes whenever an agent changes (and after the listener
        reconnects, when a change may have been missed), so a disabled agent, a dropped
        one or an old password stops working at once rather than when the cache expires."""
        async with listener.subscribe(CHANNEL) as changed:
            ready.set()
            while True:
                await changed.wait()
                changed.clear()
                self.forget()
