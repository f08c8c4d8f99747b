"""Shared by the process tests: a gateway started as `make run` starts it."""

from __future__ import annotations

import asyncio
import os
import ssl
import sys
from collections.abc import Awaitable, Callable

import aiohttp
import asyncpg
from pgaq.embedded import free_port


async def start_gateway(db_dsn: str, *, ready: Callable[[asyncio.subprocess.Process], Awaitable[bool]] | None = None,
                        tls: ssl.SSLContext | None = None,
                        **env: str) -> tuple[asyncio.subprocess.Process, str]:
    """`python -m pgaq_services.gateway` with two workers; returns once /health answers
    (over HTTPS with the client context `tls`, when the gateway serves TLS) and
    `ready(proc)` holds. The caller stops the process."""
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq_services.gateway",
        env={**os.environ, "PGAQ_DSN": db_dsn, "PGAQ_PORT": str(port), "PGAQ_GATEWAY_WORKERS": "2",
             "PGAQ_LOG_LEVEL": "WARNING", **env})
    base = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=tls or True)) as http:
        for _ in range(600):  # another process: nothing of ours to wait on but its port
            try:
                async with http.get(f"{base}/health") as r:
                    if r.status == 200 and (ready is None or await ready(proc)):
                        return proc, base
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.05)
    proc.kill()
    await proc.wait()
    raise AssertionError("the gateway did not start")


async def propagation_link(c: asyncpg.Connection, r: asyncpg.Connection, remote_dsn: str) -> None:
    """oe.out_q (a topic whose one subscriber is oe.in_q@eu) here, oe.in_q in the remote
    database, and the database link eu between them; no schedule yet."""
    await c.execute("""
        CREATE SCHEMA oe;
        CALL dbms_aqadm.create_queue_table('oe.out_t', 'RAW', multiple_consumers => true);
        CALL dbms_aqadm.create_queue('oe.out_q', 'oe.out_t'); CALL dbms_aqadm.start_queue('oe.out_q');
        CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q@eu', 0));
    """)
    await r.execute("""
        CREATE SCHEMA oe;
        CALL dbms_aqadm.create_queue_table('oe.in_t', 'RAW');
        CALL dbms_aqadm.create_queue('oe.in_q', 'oe.in_t'); CALL dbms_aqadm.start_queue('oe.in_q');
    """)
    await c.execute("CALL aq.create_database_link('eu', $1)", remote_dsn)


async def driver_output(argv: list[str], env: dict[str, str], timeout: float,
                        cwd: str | os.PathLike[str] | None = None) -> tuple[int, str]:
    """Run a harness driver (`python -m ha`, `pressure`, `chaos`) to its end: its exit
    status and output. A driver still running when the test stops waiting (its timeout,
    or the test cancelled) gets SIGTERM, on which it takes its clusters and services
    down, then SIGKILL after a minute: nothing of it outlives the test."""
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env)
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(asyncio.shield(proc.wait()), 60)
            except TimeoutError:
                proc.kill()
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace")
