"""A before/after operation hook for the gateway tests (loaded by entry point name)."""

from __future__ import annotations

import asyncpg


async def audit(phase: str, operation: str, agent: str, conn: asyncpg.Connection | None) -> None:
    if conn is not None:
        await conn.execute("INSERT INTO public.audit VALUES ($1, $2, $3)", agent, operation, phase)
