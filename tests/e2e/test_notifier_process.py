"""The notifier as a process: SIGKILLed in the middle of a delivery, nothing is lost and
the notification comes again under the same id once the dead claim's lease runs out."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import asyncpg
from aiohttp import web
from pgaq import Session
from pgaq.embedded import free_port


async def test_killed_mid_delivery_resends_with_the_same_id(db_dsn: str) -> None:
    hits: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    first = True

    async def post(request: web.Request) -> web.Response:
        nonlocal first
        await request.read()
        await hits.put((request.headers["X-Pgaq-Notification-Id"], request.headers["X-Pgaq-Attempt"]))
        if first:  # the first attempt never gets its answer: the notifier dies meanwhile
            first = False
            await asyncio.Event().wait()
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_post("/hook", post)
    runner = web.AppRunner(app, handler_cancellation=True)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    c = await asyncpg.connect(db_dsn)
    env = {**os.environ, "PGAQ_DSN": db_dsn, "PGAQ_LOG_LEVEL": "WARNING", "PGAQ_NOTIFY_LEASE": "2",
           "PGAQ_NOTIFY_HTTP_TIMEOUT": "3", "PGAQ_NOTIFY_SMTP_TIMEOUT": "1", "PGAQ_NOTIFY_PLSQL_TIMEOUT": "1"}
    procs: list[asyncio.subprocess.Process] = []
    try:
        await c.execute("""
            CREATE SCHEMA k;
            CALL dbms_aqadm.create_queue_table('k.qt', 'RAW');
            CALL dbms_aqadm.create_queue('k.q', 'k.qt'); CALL dbms_aqadm.start_queue('k.q');
            CALL aq.allow_notification_host('127.0.0.1');
        """)
        await c.execute("SELECT aq.register('k.q', NULL, $1)", f"http://127.0.0.1:{port}/hook")
        procs.append(await asyncio.create_subprocess_exec(
            sys.executable, "-m", "pgaq_services.notifier", env=env))
        await Session(c).enqueue("k.q", b"x")
        nid, attempt = await asyncio.wait_for(hits.get(), 30)
        assert attempt == "1"
        procs[0].send_signal(signal.SIGKILL)
        await procs[0].wait()
        assert await c.fetchval("SELECT state FROM aq.notifications") == "SENDING"
        procs.append(await asyncio.create_subprocess_exec(
            sys.executable, "-m", "pgaq_services.notifier", env=env))
        again, attempt = await asyncio.wait_for(hits.get(), 30)
        assert (again, attempt) == (nid, "2")
        for _ in range(300):  # the new notifier records the delivery just after the answer
            if await c.fetchval("SELECT state FROM aq.notifications") == "DELIVERED":
                break
            await asyncio.sleep(0.05)
        assert await c.fetchval("SELECT state || ' ' || attempts FROM aq.notifications") == "DELIVERED 2"
    finally:
        for p in procs:
            if p.returncode is None:
                p.send_signal(signal.SIGTERM)
                await asyncio.wait_for(p.wait(), 30)
        await c.close()
        await runner.cleanup()


async def test_plsql_callback_from_the_service_runs_as_the_owner(db_dsn: str) -> None:
    """The service derives the callback login from PGAQ_DSN by itself; the procedure runs as
    the registration's owner on that login, and says so with a NOTIFY at its commit."""
    owner = f"own_{os.getpid()}"
    c = await asyncpg.connect(db_dsn)
    done: asyncio.Queue[str] = asyncio.Queue()
    await c.add_listener("cb_done", lambda *a: done.put_nowait(a[3]))
    env = {**os.environ, "PGAQ_DSN": db_dsn, "PGAQ_LOG_LEVEL": "WARNING"}
    proc = None
    try:
        await c.execute(f'CREATE ROLE "{owner}"')
        await c.execute(f"""
            CREATE SCHEMA cb AUTHORIZATION "{owner}";
            CREATE SCHEMA k;
            CALL dbms_aqadm.create_queue_table('k.qt', 'RAW');
            CALL dbms_aqadm.create_queue('k.q', 'k.qt'); CALL dbms_aqadm.start_queue('k.q');
            CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 'k.q', '{owner}');
            SET ROLE "{owner}";
            CREATE PROCEDURE cb.note(context bytea, reginfo sys.aq$_reg_info, descr sys.aq$_descriptor,
                                     payload bytea, payloadl integer)
            LANGUAGE plpgsql AS $$
            BEGIN
              PERFORM pg_notify('cb_done', current_user || ' ' || session_user);
            END $$;
            SELECT aq.register('k.q', NULL, 'plsql://cb.note');
            RESET ROLE;
        """)
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "pgaq_services.notifier", env=env)
        await Session(c).enqueue("k.q", b"x")
        who, login = (await asyncio.wait_for(done.get(), 30)).split()
        assert who == owner and login.startswith("aq_cb_")
    finally:
        if proc is not None and proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 30)
        await c.execute("RESET ROLE")
        await c.execute(f'DROP OWNED BY "{owner}" CASCADE')
        await c.execute(f'DROP ROLE "{owner}"')
        await c.close()
