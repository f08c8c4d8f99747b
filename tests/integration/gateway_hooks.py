"""Before/after operation hooks for the gateway tests (loaded by entry point name)."""

from __future__ import annotations

import asyncpg
from pgaq.idap.hooks import HookCall

# what `record` saw: (phase, operation, agent, had a connection, the connection was in a
# transaction); the gateway runs in the test's process, so the test reads this list
CALLS: list[tuple[str, str, str, bool, bool]] = []
# (phase, operation) pairs on which `fail` raises
FAIL_ON: set[tuple[str, str]] = set()


async def audit(phase: str, operation: str, agent: str, conn: asyncpg.Connection | None) -> None:
    if conn is not None:
        await conn.execute("INSERT INTO public.audit VALUES ($1, $2, $3)", agent, operation, phase)


async def record(phase: str, operation: str, agent: str, conn: asyncpg.Connection | None) -> None:
    CALLS.append((phase, operation, agent, conn is not None,
                  conn is not None and conn.is_in_transaction()))


async def fail(phase: str, operation: str, agent: str, conn: asyncpg.Connection | None) -> None:
    if (phase, operation) in FAIL_ON:
        raise RuntimeError(f"refusing {phase} {operation}")


# what `context` saw of each call: (phase, operation, the request's destination as the
# hook parsed it, the User-Agent header, whether Authorization was visible)
CONTEXT: list[tuple[str, str, str | None, str | None, bool]] = []
STYLE: dict[tuple[str, str], tuple[str, str]] = {}  # (phase, operation) -> (href, type)


async def context(phase: str, operation: str, agent: str, conn: asyncpg.Connection | None,
                  *, call: HookCall) -> None:
    """A hook of the AQxmlCallbackContext kind (example 17-31): it reads the parsed request
    and sets the stylesheet for the response it is told to."""
    doc = call.request_document()
    dest = doc.findtext(".//{http://ns.oracle.com/AQ/schemas/access}destination")
    CONTEXT.append((phase, operation, dest, call.header("user-agent"),
                    call.header("Authorization") is not None))
    doc.getroot().clear()  # the hook's own copy: the request served is not affected
    if (phase, operation) in STYLE:
        href, kind = STYLE[(phase, operation)]
        call.set_stylesheet(href, kind)
