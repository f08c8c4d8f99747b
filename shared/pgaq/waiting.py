"""The listening connection a process's library waits share when no Listener is wired.

A `Session` given no `Listener` that waits (`dequeue` with a wait, `listen`) asks `shared`
for this process's listener of its database: the first waiter starts one (a `Listener`
on a connection of its own, opened with the waiting session's connection parameters),
every later waiter of the same database and event loop subscribes to the same one, so a
process holds one LISTEN connection however many of its sessions wait. Nothing connects
at import time, nor before the first wait. The listener reconnects as `Listener` does
(and then wakes every waiter); waiters also poll slowly on their own (`Session.safety_poll`).
A listener with no waiter for `LINGER` seconds closes; `shutdown()` closes them all at
once (call it when the process stops; a service's own Listener is closed by the service).

When the listening connection cannot be opened, the wait goes on by polling every
`Session.safety_poll` seconds (logged once per failure), and the next wait tries again.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from .clock import Clock, SystemClock
from .db import DB_ERRORS
from .listener import Listener

log = logging.getLogger("pgaq.waiting")

LINGER = 60.0  # seconds a listener with no waiter stays open, ready for the next wait


@dataclass
class _Shared:
    listener: Listener
    loop: asyncio.AbstractEventLoop
    started: asyncio.Task[None]
    idle_since: float | None = None
    closer: asyncio.Task[None] | None = field(default=None, repr=False)


# (event loop, server address, database) -> its listener: connections belong to one loop
_shared: dict[tuple[int, str, str], _Shared] = {}


def connect_args(conn: Any) -> dict[str, Any]:
    """asyncpg.connect's arguments for another connection like `conn` (its server address,
    user, password, database and TLS), read from the connection asyncpg made."""
    addr = getattr(conn, "_addr", None)
    params = getattr(conn, "_params", None)
    if addr is None or params is None:
        raise TypeError(f"cannot tell how {conn!r} was connected")
    args: dict[str, Any] = {"user": params.user, "password": params.password,
                            "database": params.database}
    if isinstance(addr, str):  # a Unix socket: <directory>/.s.PGSQL.<port>
        directory, _, name = addr.rpartition("/")
        args["host"], args["port"] = directory, int(name.rsplit(".", 1)[1])
    else:
        args["host"], args["port"] = addr[0], addr[1]
    # TLS as the connection has it (with sslmode prefer, the parameters hold a context the
    # server may have declined): its context again (sslmode require), or none
    if getattr(getattr(conn, "_protocol", None), "is_ssl", False) and params.ssl is not None:
        args["ssl"] = params.ssl
        negotiation = getattr(params, "ssl_negotiation", None)
        args["direct_tls"] = getattr(negotiation, "name", "") == "direct"
    else:
        args["ssl"] = False
    return args


def _key(args: dict[str, Any]) -> tuple[int, str, str]:
    return (id(asyncio.get_running_loop()), f"{args['host']}:{args['port']}", str(args["database"]))


async def shared(conn: Any, *, clock: Clock | None = None) -> Listener | None:
    """The process's listener of `conn`'s database, started on first use; None when it
    cannot connect (the caller then polls)."""
    try:
        args = connect_args(conn)
    except (TypeError, AttributeError, IndexError, ValueError) as exc:
        log.warning("no shared listening connection for %r (%s); waiting by polling", conn, exc)
        return None
    key = _key(args)
    entry = _shared.get(key)
    if entry is None or entry.loop.is_closed():
        listener = Listener(connect=lambda: asyncpg.connect(**args))
        loop = asyncio.get_running_loop()
        entry = _Shared(listener, loop, loop.create_task(listener.start(), name="pgaq-waiting:start"))
        _shared[key] = entry
    try:
        await asyncio.shield(entry.started)
    except DB_ERRORS as exc:
        log.warning("the shared listening connection failed to open: %r; waiting by polling", exc)
        if _shared.get(key) is entry:
            del _shared[key]
            await entry.listener.close()
        return None
    entry.idle_since = None
    if entry.closer is None or entry.closer.done():
        entry.closer = entry.loop.create_task(_close_when_idle(key, entry, clock or SystemClock()),
                                              name="pgaq-waiting:idle")
    return entry.listener


async def _close_when_idle(key: tuple[int, str, str], entry: _Shared, clock: Clock) -> None:
    """Close the listener once it has had no waiter for LINGER seconds."""
    while _shared.get(key) is entry:
        if entry.listener.waiters:
            entry.idle_since = None
        elif entry.idle_since is None:
            entry.idle_since = clock.monotonic()
        elif clock.monotonic() - entry.idle_since >= LINGER:
            del _shared[key]
            await entry.listener.close()
            return
        await asyncio.sleep(min(1.0, LINGER))


def listening() -> list[Listener]:
    """The shared listeners of the running event loop (for tests and metrics)."""
    loop = id(asyncio.get_running_loop())
    return [e.listener for k, e in _shared.items() if k[0] == loop]


async def shutdown() -> None:
    """Close every shared listener of the running event loop."""
    loop = id(asyncio.get_running_loop())
    for key in [k for k in _shared if k[0] == loop]:
        entry = _shared.pop(key)
        if entry.closer is not None:
            entry.closer.cancel()
        if not entry.started.done():
            entry.started.cancel()
        await entry.listener.close()
