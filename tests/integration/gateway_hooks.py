"""Before/after operation hooks for the gateway tests (loaded by entry point name)."""

from __future__ import annotations

import asyncpg

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
