"""The operator commands as an operator runs them: `python -m pgaq.cli ...` in a process of
its own against a real database (PGAQ_DSN), reading stdout, stderr and the exit code."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

import asyncpg
import pytest

SETUP = """
CREATE TYPE public.job AS (body text, n integer);
CALL dbms_aqadm.create_queue_table(queue_table => 'public.jobs_qt', queue_payload_type => 'public.job');
CALL dbms_aqadm.create_queue(queue_name => 'public.jobs', queue_table => 'public.jobs_qt', max_retries => 0);
CALL dbms_aqadm.start_queue(queue_name => 'public.jobs');
CALL dbms_aqadm.start_queue(queue_name => 'public.aq$_jobs_qt_e', enqueue => false);
"""
EXC = "public.aq$_jobs_qt_e"


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


async def pgaq(dsn: str, *argv: str) -> Run:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq.cli", *argv, env={**os.environ, "PGAQ_DSN": dsn},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await proc.communicate()
    assert proc.returncode is not None
    return Run(proc.returncode, out.decode(), err.decode())


@pytest.fixture
async def jobs(conn: asyncpg.Connection) -> asyncpg.Connection:
    await conn.execute(SETUP)
    return conn


async def enqueue(conn: asyncpg.Connection, *messages: tuple[int, int, str], delay: int = 0) -> list[bytes]:
    """(n, priority, correlation) each; returns the message ids."""
    props = [{"priority": p, "correlation": c, "delay": delay} for _, p, c in messages]
    payloads = [{"body": f"job {n}", "n": n} for n, _, _ in messages]
    ids: list[bytes] = await conn.fetchval("SELECT aq.enqueue_array('public.jobs', $1::jsonb, $2::jsonb)",
                                           json.dumps(props), json.dumps(payloads))
    return ids


async def fail(conn: asyncpg.Connection, ids: list[bytes]) -> None:
    """The attempts a consumer that rolled back reports: past max_retries 0 the messages go
    to the exception queue."""
    assert await conn.fetchval("SELECT aq.record_failed_attempts('public.jobs', NULL, $1)", ids) == len(ids)


async def depths(dsn: str) -> dict[str, dict[str, Any]]:
    run = await pgaq(dsn, "queues", "--json")
    assert run.code == 0, run.err
    return {f"{q['owner']}.{q['queue_name']}": q for q in run.json()}


@pytest.fixture
async def nobody(db_dsn: str, jobs: asyncpg.Connection) -> AsyncIterator[str]:
    """The DSN of a login role with no AQ privilege at all."""
    role = f"ops_nobody_{uuid.uuid4().hex[:8]}"
    await jobs.execute(f'CREATE ROLE "{role}" LOGIN')
    try:
        yield db_dsn.replace("://postgres@", f"://{role}@", 1)
    finally:
        with suppress(asyncpg.PostgresError):
            await jobs.execute(f'DROP OWNED BY "{role}"; DROP ROLE "{role}"')


async def test_queues_shows_depths_as_a_table_and_as_json(db_dsn: str, jobs: asyncpg.Connection) -> None:
    await enqueue(jobs, (1, 1, "a"), (2, 1, "b"))
    await enqueue(jobs, (3, 1, "c"), delay=3600)
    await fail(jobs, await enqueue(jobs, (4, 1, "d")))
    q = await depths(db_dsn)
    assert (q["public.jobs"]["ready"], q["public.jobs"]["waiting"]) == (2, 1)
    assert q["public.jobs"]["oldest_ready_age"] >= 0
    assert q["public.jobs"]["exception_queue"] == EXC
    assert q[EXC]["queue_type"] == "EXCEPTION_QUEUE" and q[EXC]["expired"] == 1
    table = await pgaq(db_dsn, "queues")
    assert table.code == 0
    head, *lines = table.out.splitlines()
    assert head.split()[:5] == ["QUEUE", "TYPE", "ENABLED", "READY", "WAITING"]
    jobs_line = next(line for line in lines if line.startswith("public.jobs "))
    assert jobs_line.split()[1:5] == ["NORMAL", "enq+deq", "2", "1"]


async def test_peek_browses_without_taking(db_dsn: str, jobs: asyncpg.Connection) -> None:
    await enqueue(jobs, (1, 5, "low"), (2, 1, "high"), (3, 1, "next"))
    run = await pgaq(db_dsn, "peek", "public.jobs", "-n", "2", "--json")
    assert run.code == 0, run.err
    # (the queue table's sort order is ENQ_TIME, the default)
    assert [(m["correlation"], m["payload"]["n"], m["attempts"]) for m in run.json()] == [
        ("low", 1, 0), ("high", 2, 0)]
    again = await pgaq(db_dsn, "peek", "public.jobs")
    assert again.code == 0 and "3 message(s) browsed, none taken" in again.out
    # nothing was taken, locked or counted: a consumer gets all three
    got = await jobs.fetch("SELECT correlation, attempts FROM aq.dequeue_array('public.jobs', p_batch => 10)")
    assert [(r["correlation"], r["attempts"]) for r in got] == [("low", 0), ("high", 0), ("next", 0)]


async def test_requeue_moves_each_message_once_with_its_properties(db_dsn: str, jobs: asyncpg.Connection) -> None:
    ids = await enqueue(jobs, *[(n, n, f"c{n}") for n in range(1, 6)])
    await fail(jobs, ids)

    dry = await pgaq(db_dsn, "requeue", EXC, "--dry-run", "--json")
    assert dry.code == 0, dry.err
    assert dry.json()["count"] == 5 and {m["new_msgid"] for m in dry.json()["messages"]} == {None}
    assert (await depths(db_dsn))[EXC]["expired"] == 5  # a dry run moves nothing

    run = await pgaq(db_dsn, "requeue", EXC, "--where", "tab.user_data.n > 2", "--batch", "1", "--json")
    assert run.code == 0, run.err
    moved = run.json()["messages"]
    assert sorted(m["msgid"] for m in moved) == sorted(i.hex().upper() for i in ids[2:])
    assert {m["to_queue"] for m in moved} == {"public.jobs"}
    rows = await jobs.fetch("SELECT priority, corrid, retry_count, original_msgid, (user_data).n AS n "
                            "FROM public.jobs_qt WHERE q_name = 'jobs' ORDER BY n")
    assert [(r["n"], r["priority"], r["corrid"], r["retry_count"]) for r in rows] == [
        (3, 3, "c3", 0), (4, 4, "c4", 0), (5, 5, "c5", 0)]
    assert [r["original_msgid"] for r in rows] == ids[2:]

    # nothing left that matches: nothing to do is a success with a count of 0
    again = await pgaq(db_dsn, "requeue", EXC, "--where", "tab.user_data.n > 2")
    assert again.code == 0 and "requeued 0 message(s)" in again.out

    # two operators at once, a message per transaction: each message moves once
    a, b = await asyncio.gather(pgaq(db_dsn, "requeue", EXC, "--batch", "1", "--json"),
                                pgaq(db_dsn, "requeue", EXC, "--batch", "1", "--json"))
    assert a.code == b.code == 0, a.err + b.err
    assert a.json()["count"] + b.json()["count"] == 2
    q = await depths(db_dsn)
    assert (q["public.jobs"]["ready"], q[EXC]["expired"]) == (5, 0)
    assert await jobs.fetchval("SELECT count(DISTINCT original_msgid) FROM public.jobs_qt") == 5


async def test_requeue_to_another_queue(db_dsn: str, jobs: asyncpg.Connection) -> None:
    await jobs.execute("CALL dbms_aqadm.create_queue(queue_name => 'public.retry', queue_table => 'public.jobs_qt');"
                       "CALL dbms_aqadm.start_queue(queue_name => 'public.retry')")
    await fail(jobs, await enqueue(jobs, (1, 1, "x")))
    run = await pgaq(db_dsn, "requeue", EXC, "--to", "public.retry")
    assert run.code == 0, run.err
    assert "requeued 1 message(s)" in run.out
    assert (await depths(db_dsn))["public.retry"]["ready"] == 1


async def test_a_user_without_privileges_is_refused(db_dsn: str, jobs: asyncpg.Connection, nobody: str) -> None:
    await fail(jobs, await enqueue(jobs, (1, 1, "x")))
    for argv in (["requeue", EXC], ["peek", "public.jobs"], ["stop", "public.jobs"],
                 ["purge", "public.jobs_qt", "--where", ""]):
        run = await pgaq(nobody, *argv)
        assert run.code == 1, (argv, run.out, run.err)
        assert "ORA-01031" in run.err and "Traceback" not in run.err, (argv, run.err)
        assert run.out == ""
    q = await depths(db_dsn)
    assert q[EXC]["expired"] == 1 and q["public.jobs"]["enqueue_enabled"]
    # it sees the catalog (as DBA_QUEUES), not the messages
    mine = await depths(nobody)
    assert mine["public.jobs"]["ready"] is None


async def test_bad_arguments_exit_2_with_usage(db_dsn: str, jobs: asyncpg.Connection) -> None:
    for argv in (["peek", "public.jobs", "-n", "0"], ["purge", "public.jobs_qt"], ["requeue"],
                 ["queues", "--bogus"], ["start", "q", "--enqueue-only", "--dequeue-only"]):
        run = await pgaq(db_dsn, *argv)
        assert run.code == 2, (argv, run.err)
        assert "usage: pgaq" in run.err and "Traceback" not in run.err
    missing = await pgaq(db_dsn, "subscribers", "public.no_such_queue")
    assert missing.code == 1 and "ORA-24010" in missing.err and "Traceback" not in missing.err
    not_exc = await pgaq(db_dsn, "requeue", "public.jobs")
    assert not_exc.code == 1 and "ORA-24031" in not_exc.err and "not an EXCEPTION_QUEUE" in not_exc.err


async def test_no_database_exits_3(db_dsn: str, tmp_path: Any) -> None:
    run = await pgaq("postgresql://postgres@127.0.0.1:9/none", "queues")
    assert run.code == 3 and "Traceback" not in run.err
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq.cli", "queues", "--data-dir", str(tmp_path),
        env={k: v for k, v in os.environ.items() if k != "PGAQ_DSN"},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _, err = await proc.communicate()
    assert proc.returncode == 3 and b"pgaq up" in err


async def test_purge_with_a_condition(db_dsn: str, jobs: asyncpg.Connection) -> None:
    await enqueue(jobs, (1, 1, "keep"), (2, 1, "drop"), (3, 1, "drop"))
    cond = "qtview.corr_id = 'drop'"
    dry = await pgaq(db_dsn, "purge", "public.jobs_qt", "--where", cond, "--dry-run", "--json")
    assert dry.code == 0, dry.err
    assert (dry.json()["selected"], dry.json()["purged"]) == (2, 0)
    assert (await depths(db_dsn))["public.jobs"]["ready"] == 3
    run = await pgaq(db_dsn, "purge", "public.jobs_qt", "--where", cond)
    assert run.code == 0, run.err
    assert "purged 2 of 2 selected row(s)" in run.out
    left = await jobs.fetch("SELECT corrid FROM public.jobs_qt")
    assert [r["corrid"] for r in left] == ["keep"]
    bad = await pgaq(db_dsn, "purge", "public.jobs_qt", "--where", "qtview.no_column = 1")
    assert bad.code == 1 and "ORA-00904" in bad.err


async def test_start_and_stop(db_dsn: str, jobs: asyncpg.Connection) -> None:
    run = await pgaq(db_dsn, "stop", "public.jobs", "--enqueue-only", "--json")
    assert run.code == 0, run.err
    assert (run.json()["enqueue"], run.json()["dequeue"]) == ("NO", "YES")
    with pytest.raises(asyncpg.PostgresError, match="ORA-25207"):
        await enqueue(jobs, (1, 1, "x"))
    run = await pgaq(db_dsn, "start", "public.jobs")
    assert run.code == 0 and run.out.strip() == "public.jobs: enqueue YES, dequeue YES"
    await enqueue(jobs, (1, 1, "x"))
    assert (await pgaq(db_dsn, "stop", "public.jobs")).code == 0
    with pytest.raises(asyncpg.PostgresError, match="ORA-25226"):
        await jobs.fetch("SELECT * FROM aq.dequeue_array('public.jobs')")
    # an exception queue starts for dequeue only, and says so
    exc = await pgaq(db_dsn, "start", EXC)
    assert exc.code == 0 and "dequeue only" in exc.err and "enqueue NO, dequeue YES" in exc.out


async def test_subscribers_and_schedules(db_dsn: str, conn: asyncpg.Connection) -> None:
    await conn.execute("""
      CREATE TYPE public.ev AS (kind text);
      CALL dbms_aqadm.create_queue_table(queue_table => 'public.ev_qt', queue_payload_type => 'public.ev',
                                         multiple_consumers => true);
      CALL dbms_aqadm.create_queue(queue_name => 'public.ev_q', queue_table => 'public.ev_qt');
      CALL dbms_aqadm.create_queue(queue_name => 'public.ev_copy', queue_table => 'public.ev_qt');
      CALL dbms_aqadm.start_queue(queue_name => 'public.ev_q');
      CALL dbms_aqadm.add_subscriber(queue_name => 'public.ev_q', subscriber => sys.aq$_agent('ALL', NULL, NULL));
      CALL dbms_aqadm.add_subscriber(queue_name => 'public.ev_q', subscriber => sys.aq$_agent('BIG', NULL, NULL),
                                     rule => 'tab.user_data.kind = ''big''');
    """)
    await conn.execute("SELECT aq.enqueue_array('public.ev_q', '[{}, {}]', '[{\"kind\": \"big\"}, {\"kind\": \"small\"}]')")
    run = await pgaq(db_dsn, "subscribers", "public.ev_q", "--json")
    assert run.code == 0, run.err
    assert {s["name"]: (s["ready"], s["rule"]) for s in run.json()} == {
        "ALL": (2, None), "BIG": (1, "tab.user_data.kind = 'big'")}
    peek = await pgaq(db_dsn, "peek", "public.ev_q", "--consumer", "BIG", "--json")
    assert [m["payload"] for m in peek.json()] == [{"kind": "big"}]

    await conn.execute("CALL dbms_aqadm.schedule_propagation('public.ev_q', destination_queue => 'public.ev_copy')")
    await conn.execute("CALL dbms_aqadm.disable_propagation_schedule('public.ev_q', destination_queue => 'public.ev_copy')")
    sched = await pgaq(db_dsn, "schedules", "--json")
    assert sched.code == 0, sched.err
    [s] = sched.json()
    assert (s["queue"], s["state"], s["failures"]) == ("public.ev_q", "DISABLED", 0)
    table = await pgaq(db_dsn, "schedules")
    assert "DISABLED" in table.out and table.out.startswith("QUEUE")


async def test_requeue_on_a_topic_goes_to_the_recipients_that_had_not_processed_it(
        db_dsn: str, conn: asyncpg.Connection) -> None:
    await conn.execute("""
      CREATE TYPE public.ev AS (kind text);
      CALL dbms_aqadm.create_queue_table(queue_table => 'public.ev_qt', queue_payload_type => 'public.ev',
                                         multiple_consumers => true);
      CALL dbms_aqadm.create_queue(queue_name => 'public.ev_q', queue_table => 'public.ev_qt', max_retries => 0);
      CALL dbms_aqadm.start_queue(queue_name => 'public.ev_q');
      CALL dbms_aqadm.start_queue(queue_name => 'public.aq$_ev_qt_e', enqueue => false);
      CALL dbms_aqadm.add_subscriber(queue_name => 'public.ev_q', subscriber => sys.aq$_agent('A', NULL, NULL));
      CALL dbms_aqadm.add_subscriber(queue_name => 'public.ev_q', subscriber => sys.aq$_agent('B', NULL, NULL));
    """)
    await conn.execute("""SELECT aq.enqueue_array('public.ev_q', '[{}]', '[{"kind": "k"}]')""")
    [a] = await conn.fetch("SELECT msgid FROM aq.dequeue_array('public.ev_q', 'A')")  # A is done
    # B took it and rolled back, past max_retries 0: what its client reports after the rollback
    await conn.execute("SELECT aq.record_failed_attempts('public.ev_q', 'B', $1)", [a["msgid"]])
    assert (await depths(db_dsn))["public.aq$_ev_qt_e"]["expired"] == 1

    run = await pgaq(db_dsn, "requeue", "public.aq$_ev_qt_e", "--json")
    assert run.code == 0 and run.json()["count"] == 1, run.err
    assert await conn.fetch("SELECT 1 FROM aq.dequeue_array('public.ev_q', 'A')") == []
    [again] = await conn.fetch("SELECT payload_json, attempts FROM aq.dequeue_array('public.ev_q', 'B')")
    assert (json.loads(again["payload_json"]), again["attempts"]) == ({"kind": "k"}, 0)
