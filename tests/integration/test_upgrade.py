"""A rolling upgrade from the previous release: functions, not only tables (issue 20 part 4).

The database is built by the previous release's migrations (previous_release.PREVIOUS, the
commit the round started from), and that release's library creates queue tables and
enqueues. Then the current migrations run, and while services are restarted one by one
both versions work on the upgraded schema:
- messages enqueued before the upgrade dequeue with the current library, in order, for
  every subscriber that had not yet consumed them;
- the previous release's library still enqueues and dequeues on every route it takes
  (its generated one-message send and REMOVE, the batched send, the general functions),
  and its monitor's pass still runs: no repeatable migration dropped a signature it calls.

The previous release's code runs in a process of its own (its `pgaq` package taken from
git), exactly as an old service still running during the upgrade would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from pgaq import DequeueOptions, Session
from pgaq.embedded import Cluster
from pgaq.migrate import load_migrations, migrate

from . import previous_release as previous

OLD_CLIENT = r'''
import asyncio, json, sys
import asyncpg
from pgaq.engine import Agent, DequeueOptions, MessageProperties, Session
from pgaq.queries import load


async def main(dsn: str, step: str) -> None:
    conn = await asyncpg.connect(dsn)
    out = {}
    try:
        s = Session(conn)
        if step == "before":
            from pgaq.migrate import migrate
            await migrate(conn)
            await conn.execute("""
                CREATE SCHEMA up;
                CREATE TYPE up.obj AS (n integer, s text);
                CALL dbms_aqadm.create_queue_table('up.qt', 'RAW');
                CALL dbms_aqadm.create_queue('up.q', 'up.qt'); CALL dbms_aqadm.start_queue('up.q');
                CALL dbms_aqadm.create_queue_table('up.tt', 'RAW', multiple_consumers => true);
                CALL dbms_aqadm.create_queue('up.t', 'up.tt'); CALL dbms_aqadm.start_queue('up.t');
                CALL dbms_aqadm.add_subscriber('up.t', sys.aq$_agent('A', NULL, NULL));
                CALL dbms_aqadm.add_subscriber('up.t', sys.aq$_agent('B', NULL, NULL));
                CALL dbms_aqadm.create_queue_table('up.ot', 'up.obj');
                CALL dbms_aqadm.create_queue('up.o', 'up.ot'); CALL dbms_aqadm.start_queue('up.o');
            """)
            for i, pri in enumerate([3, 1, 2]):
                await s.enqueue("up.q", bytes([i]), MessageProperties(priority=pri), visibility="IMMEDIATE")
            await s.enqueue_array("up.t", [(b"t0", None), (b"t1", None), (b"t2", None)], visibility="IMMEDIATE")
            await s.enqueue("up.o", {"n": 1, "s": "one"}, visibility="IMMEDIATE")
            # A has consumed the first topic message, B has not
            got = await s.dequeue("up.t", DequeueOptions(consumer_name="A", visibility="IMMEDIATE"))
            out["a_took"] = [m.payload.decode() for m in got]
        else:  # "during": the old library on the upgraded schema, every route it takes
            await s.enqueue("up.q", b"old-1", visibility="IMMEDIATE")  # generated send1
            await s.enqueue_array("up.q", [(b"old-2", None), (b"old-3", None)], visibility="IMMEDIATE")  # send
            await s.enqueue("up.q", b"old-4", MessageProperties(sender_id=Agent("OLD")), visibility="IMMEDIATE")  # general
            await s.enqueue_array("up.t", [(b"old-t", None)], visibility="IMMEDIATE")  # publish
            await s.enqueue("up.o", {"n": 2, "s": "two"}, MessageProperties(correlation="x"), visibility="IMMEDIATE")
            taken = []
            taken += await s.dequeue("up.q", DequeueOptions(visibility="IMMEDIATE"))  # one-statement REMOVE
            taken += await s.dequeue("up.q", DequeueOptions(visibility="IMMEDIATE", batch_size=2))  # recv
            taken += await s.dequeue("up.q", DequeueOptions(visibility="IMMEDIATE", correlation=None,
                                                            condition="priority = 1"))  # general
            out["queue"] = [m.payload.decode() for m in taken]
            out["sender"] = [m.sender_id.name if m.sender_id else None for m in taken]
            out["topic_b"] = [m.payload.decode() for m in await s.dequeue(
                "up.t", DequeueOptions(consumer_name="B", visibility="IMMEDIATE", batch_size=10))]
            objs = await s.dequeue("up.o", DequeueOptions(visibility="IMMEDIATE", correlation="x"))
            out["object"] = [m.payload for m in objs]
            row = await conn.fetchrow(load("monitor_pass"), 100)
            out["monitor"] = row is not None
    finally:
        await conn.close()
    import pgaq
    out["package"] = pgaq.__file__  # the previous release's, not the current one's
    print(json.dumps(out))


asyncio.run(main(sys.argv[1], sys.argv[2]))
'''


@pytest.fixture(scope="module")
def previous_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The previous release's `pgaq` package, importable from the returned folder's `pkgs`."""
    root = tmp_path_factory.mktemp("previous")
    previous.extract(root)
    (root / "old_client.py").write_text(OLD_CLIENT)
    return root


@pytest.fixture
async def empty_dsn(cluster: Cluster) -> AsyncIterator[str]:
    async with previous.empty_database(cluster, f"upgrade_{os.getpid()}") as dsn:
        yield dsn


def _old(root: Path, dsn: str, step: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(root / "pkgs")}
    r = subprocess.run([sys.executable, str(root / "old_client.py"), dsn, step], env=env,
                       capture_output=True, text=True, timeout=120, cwd=root)
    assert r.returncode == 0, r.stderr[-3000:]
    out: dict[str, Any] = json.loads(r.stdout.strip().splitlines()[-1])
    assert Path(out["package"]).resolve().is_relative_to(root.resolve()), out["package"]
    return out


async def test_rolling_upgrade_from_the_previous_release(previous_release: Path, empty_dsn: str) -> None:
    before = _old(previous_release, empty_dsn, "before")
    assert before["a_took"] == ["t0"]
    conn = await asyncpg.connect(empty_dsn)
    try:
        applied = await migrate(conn)
        assert applied, "the current release applies its migrations"
        # the tables made before the upgrade have their generated functions regenerated
        # with named parameters (the previous release's _enq/_deq had p1, p2, ...)
        for fn in ("aq$_qt_enq", "aq$_qt_deq", "aq$_tt_enq", "aq$_tt_deq"):
            names = await conn.fetchval(
                "SELECT p.proargnames FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                " WHERE n.nspname = 'up' AND p.proname = $1", fn)
            assert names is not None and names[0] == "p_queue", (fn, names)
        # services of the previous release keep working while the others restart
        during = _old(previous_release, empty_dsn, "during")
        # the messages from before the upgrade first (the queue's enqueue-time order), then
        # the old client's own, each dequeue on another of its routes
        assert during["queue"] == ["\x00", "\x01", "\x02", "old-1"]
        assert during["sender"] == [None, None, None, None]
        assert during["topic_b"] == ["t0", "t1", "t2", "old-t"]
        assert during["object"] == [{"n": 2, "s": "two"}]
        assert during["monitor"]
        s = Session(conn)
        # what is left dequeues with the current library: the old client's messages, A's
        # topic deliveries it had not consumed, the object enqueued before the upgrade
        rest = await s.dequeue("up.q", DequeueOptions(visibility="IMMEDIATE", batch_size=10))
        assert [m.payload for m in rest] == [b"old-2", b"old-3", b"old-4"]
        assert rest[2].sender_id is not None and rest[2].sender_id.name == "OLD"
        got_a = await s.dequeue("up.t", DequeueOptions(consumer_name="A", visibility="IMMEDIATE",
                                                       batch_size=10))
        assert [m.payload for m in got_a] == [b"t1", b"t2", b"old-t"]
        objs = await s.dequeue("up.o", DequeueOptions(visibility="IMMEDIATE", batch_size=10))
        assert [m.payload for m in objs] == [{"n": 1, "s": "one"}]
        # and the current library works on what it now owns
        await s.enqueue("up.q", b"new", visibility="IMMEDIATE")
        [m] = await s.dequeue("up.q", DequeueOptions(visibility="IMMEDIATE"))
        assert m.payload == b"new"
        await conn.fetchrow("SELECT * FROM aq.monitor_pass(100)")
    finally:
        await conn.close()


async def test_a_release_leaves_a_database_a_newer_release_migrated(conn: asyncpg.Connection) -> None:
    """A service of the previous release restarting during the upgrade runs its migrations:
    they must not put its functions back over the newer release's."""
    await conn.execute("INSERT INTO aq.schema_migrations (name, version, checksum)"
                       " VALUES ('V9999__from_the_future.sql', 9999, 'x')")
    # this release's repeatable files look changed (as the older release's do to it)
    await conn.execute("UPDATE aq.schema_migrations SET checksum = 'old' WHERE version IS NULL")
    before = await conn.fetchval("SELECT count(*) FROM pg_proc WHERE pronamespace = 'aq'::regnamespace")
    assert await migrate(conn) == []
    assert await conn.fetchval("SELECT count(*) FROM aq.schema_migrations WHERE version IS NULL"
                               " AND checksum <> 'old'") == 0
    assert await conn.fetchval("SELECT count(*) FROM pg_proc WHERE pronamespace = 'aq'::regnamespace") == before
    # once the newer release's row is gone (it is this release's database again), it applies
    await conn.execute("DELETE FROM aq.schema_migrations WHERE version = 9999")
    assert "R__13_templates.sql" in await migrate(conn)


class _Rollback(Exception):
    pass


# what the previous release's library and services call, each run and rolled back
_WINDOW_CALLS = {
    "fast_path": "SELECT count(*) FROM aq.fast_path('up.q')",
    "dequeue after a position": "SELECT count(*) FROM aq.dequeue_array('up.q', NULL, 'BROWSE',"
                                " 'NEXT_MESSAGE', NULL, NULL, NULL, 1, ARRAY[0]::bigint[])",
    "dequeue with a condition": "SELECT count(*) FROM aq.dequeue_array('up.q', NULL, 'BROWSE',"
                                " 'NEXT_MESSAGE', NULL, NULL, 'priority = 1', 1)",
    "topic dequeue": "SELECT count(*) FROM aq.dequeue_array('up.t', 'B', 'BROWSE')",
    "enqueue": "SELECT aq.enqueue_array('up.q', '[{\"correlation\": \"x\"}]'::jsonb, NULL,"
               " ARRAY['\\x01'::bytea])",
    "publish": "SELECT aq.enqueue_array('up.t', '[{}]'::jsonb, NULL, ARRAY['\\x01'::bytea])",
    "monitor": "SELECT count(*) FROM aq.monitor_pass(10)",
}


async def test_every_step_of_the_upgrade_serves_the_previous_release(
        previous_release: Path, empty_dsn: str) -> None:
    """The repeatable files run one transaction each: between any two of them, the previous
    release's functions still in place (and the current ones already replaced) serve every
    call the previous release makes."""
    _old(previous_release, empty_dsn, "before")
    conn = await asyncpg.connect(empty_dsn)
    try:
        done = {r["name"] for r in await conn.fetch("SELECT name FROM aq.schema_migrations")}
        failed: list[str] = []
        for mig in load_migrations():
            if mig.version is not None and mig.name in done:
                continue
            async with conn.transaction():
                await conn.execute(mig.sql)
            for what, sql in _WINDOW_CALLS.items():
                try:
                    async with conn.transaction():
                        await conn.fetchval(sql)
                        raise _Rollback
                except _Rollback:
                    pass
                except asyncpg.PostgresError as exc:
                    failed.append(f"after {mig.name}, {what}: {exc}")
        assert failed == []
    finally:
        await conn.close()
