"""The gateway's natural batching of autocommit enqueues: concurrent requests share a
statement and a commit, yet each gets its own ids and its own outcome."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest
from pgaq import MessageProperties
from pgaq.errors import ConnectionLost, PgaqError
from pgaq.idap.batching import DequeueBatcher, EnqueueBatcher

from .helpers import make_queue, raw, subscribe
from .waiting import until


async def test_concurrent_requests_share_statements_and_keep_their_ids(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, "s.q")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=4)
    try:
        batcher = EnqueueBatcher(pool)
        requests = [[(f"{i}-{j}".encode(), MessageProperties(correlation=f"r{i}"))
                     for j in range(1 + i % 3)] for i in range(40)]
        results = await asyncio.gather(*(batcher.enqueue(None, "AGENT", "s.q", r) for r in requests))
        assert batcher.requests == 40 and batcher.batches < 40  # they were written together
        for i, ids in enumerate(results):
            rows = await conn.fetch("SELECT corrid, user_data, enq_agent FROM s.qt WHERE msgid = ANY($1)",
                                    [bytes.fromhex(m) for m in ids])
            assert len(ids) == 1 + i % 3
            assert {(r["corrid"], r["enq_agent"]) for r in rows} == {(f"r{i}", "AGENT")}
            assert sorted(r["user_data"] for r in rows) == [f"{i}-{j}".encode() for j in range(1 + i % 3)]
    finally:
        await pool.close()


async def test_a_bad_request_fails_alone(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, "s.t", "s.tt", multiple=True)
    await subscribe(conn, "s.t", "APP1")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=4)
    try:
        batcher = EnqueueBatcher(pool)
        good = [[(b"ok", MessageProperties(correlation=f"g{i}"))] for i in range(10)]
        bad = [(b"a", MessageProperties()), (b"b", MessageProperties(correlation="x" * 129))]
        outcomes = await asyncio.gather(
            *(batcher.enqueue(None, None, "s.t", r) for r in good[:5]),
            batcher.enqueue(None, None, "s.t", bad),
            *(batcher.enqueue(None, None, "s.t", r) for r in good[5:]),
            return_exceptions=True)
        failed = [o for o in outcomes if isinstance(o, BaseException)]
        assert len(failed) == 1 and isinstance(failed[0], PgaqError) and failed[0].code == 24005
        assert all(isinstance(o, list) and len(o) == 1 for o in outcomes if o is not failed[0])
        # the bad request left nothing behind: all or nothing per request
        corr = await conn.fetch("SELECT corrid FROM s.tt ORDER BY corrid")
        assert [r["corrid"] for r in corr] == sorted(f"g{i}" for i in range(10))
    finally:
        await pool.close()


async def test_a_privilege_error_reaches_only_its_request(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, "s.q")
    await conn.execute('CREATE ROLE "batch_nobody"')
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=4)
    try:
        batcher = EnqueueBatcher(pool)
        ok, refused = await asyncio.gather(
            batcher.enqueue(None, None, "s.q", [(b"1", None)]),
            batcher.enqueue("batch_nobody", None, "s.q", [(b"2", None)]),
            return_exceptions=True)
        assert isinstance(ok, list)
        assert isinstance(refused, PgaqError) and refused.code == 1031
        with pytest.raises(PgaqError):
            await batcher.enqueue("batch_nobody", None, "s.q", [(b"3", None)])
        assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1
    finally:
        await pool.close()
        await conn.execute('DROP ROLE "batch_nobody"')


async def test_concurrent_receives_share_a_dequeue_and_each_message_goes_once(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, "s.t", "s.tt", multiple=True)
    await subscribe(conn, "s.t", "APP1")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=4)
    try:
        enq = EnqueueBatcher(pool)
        await enq.enqueue(None, None, "s.t", [(f"m{i}".encode(), MessageProperties(priority=i % 3))
                                              for i in range(25)])
        receiver = DequeueBatcher(pool)
        wants = [1 + i % 2 for i in range(20)]  # 30 asked for, 25 there
        results = await asyncio.gather(*(receiver.dequeue(None, "AGENT", "s.t", "APP1", "REMOVE", n)
                                         for n in wants))
        assert receiver.requests == 20 and receiver.batches < 20
        assert all(len(r) <= n for r, n in zip(results, wants, strict=True))
        got = [raw(m.payload) for r in results for m in r]
        assert sorted(got) == sorted(f"m{i}".encode() for i in range(25))  # each exactly once
        assert got == [f"m{i}".encode() for i in range(25)]  # handed out in the queue's order
        rows = await conn.fetch("SELECT msg_state, deq_agent FROM s.aq$tt")
        assert rows == []  # removed and committed (retention 0)
        # a refused consumer is every waiting request's error, and nothing is taken
        with pytest.raises(PgaqError):
            await receiver.dequeue(None, None, "s.t", None, "REMOVE", 1)
    finally:
        await pool.close()


async def test_a_receive_cancelled_before_its_statement_takes_nothing(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    """A receive whose client went away while its statement waited for a connection (the
    leader's statement runs on without its caller) removes nothing for it: a message
    taken then would be answered to nobody. The next receive takes the first message."""
    await make_queue(conn, "s.q")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=1)
    try:
        await EnqueueBatcher(pool).enqueue(None, None, "s.q", [(b"one", None), (b"two", None)])
        receiver = DequeueBatcher(pool)
        held = await pool.acquire()  # the statement waits for the only connection
        leader = asyncio.create_task(receiver.dequeue(None, None, "s.q", None, "REMOVE", 1))
        await until(lambda: receiver.stats()["writers"] == 1, "the leader's statement")
        follower = asyncio.create_task(receiver.dequeue(None, None, "s.q", None, "REMOVE", 1))
        await until(lambda: receiver.stats()["waiting"] == 1, "the next receive waiting")
        leader.cancel()
        with pytest.raises(asyncio.CancelledError):
            await leader
        await pool.release(held)
        assert [m.payload for m in await follower] == [b"one"]
        await receiver.drain()
        assert await conn.fetchval("SELECT array_agg(user_data) FROM s.qt") == [b"two"]
    finally:
        await pool.close()


async def test_batches_of_one_queue_are_written_concurrently(
        conn: asyncpg.Connection, db_dsn: str, blocker: asyncpg.Connection) -> None:
    """Several writers per queue: while one batch's transaction is held open (a row lock
    blocks it), the next requests are written by another writer instead of queueing
    behind it; and the writer count returns to zero."""
    await make_queue(conn, "s.q")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=4)
    try:
        batcher = EnqueueBatcher(pool, max_inflight=2)
        first = await _blocked_behind(blocker, conn, batcher, b"1")
        assert batcher.stats()["writers"] == 1
        second = asyncio.ensure_future(batcher.enqueue(None, None, "s.q", [(b"2", None)]))
        await _until_blocked(conn, count=2)  # a second writer, its own statement
        await blocker.execute("ROLLBACK")
        ids = await asyncio.gather(first, second)
        assert batcher.batches == 2 and len({i for r in ids for i in r}) == 2
        await batcher.drain()  # each returns its connection, then ends
        assert batcher.stats()["writers"] == 0
        assert await conn.fetchval("SELECT count(*) FROM s.qt") == 2
    finally:
        await pool.close()


async def test_a_writer_replaces_a_lost_connection(
        conn: asyncpg.Connection, db_dsn: str, blocker: asyncpg.Connection) -> None:
    """When a writer's connection is lost, that batch fails as ConnectionLost and the
    requests queued behind it are written on a fresh connection."""
    await make_queue(conn, "s.q")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=4)
    try:
        batcher = EnqueueBatcher(pool)
        first = await _blocked_behind(blocker, conn, batcher, b"1")
        second = asyncio.ensure_future(batcher.enqueue(None, None, "s.q", [(b"2", None)]))
        third = asyncio.ensure_future(batcher.enqueue(None, None, "s.q", [(b"3", None)]))
        writer = await _blocked_pid(conn)
        assert await conn.fetchval("SELECT pg_terminate_backend($1)", writer)
        with pytest.raises(ConnectionLost):
            await first
        await _until_blocked(conn)  # the next batch waits on a new connection
        assert await _blocked_pid(conn) != writer
        await blocker.execute("ROLLBACK")
        assert len(await second) == 1 and len(await third) == 1
        assert batcher.batches == 1  # the two that waited went together
        await batcher.drain()
        assert batcher.stats()["writers"] == 0
        assert await conn.fetchval("SELECT array_agg(user_data ORDER BY enq_seq) FROM s.qt") == [b"2", b"3"]
    finally:
        await pool.close()


async def test_batches_that_follow_one_another_share_a_connection(
        conn: asyncpg.Connection, db_dsn: str, blocker: asyncpg.Connection) -> None:
    await make_queue(conn, "s.q")
    acquires = 0

    async def count(_c: asyncpg.Connection) -> None:  # asyncpg calls it on each acquire
        nonlocal acquires
        acquires += 1

    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=4, setup=count)
    try:
        batcher = EnqueueBatcher(pool)
        head = await _blocked_behind(blocker, conn, batcher, b"a")
        rest = [asyncio.ensure_future(batcher.enqueue(None, None, "s.q", [(b"b", None)]))
                for _ in range(5)]
        await conn.fetchval("SELECT 1")  # a round trip: the five have queued meanwhile
        assert batcher.stats()["waiting"] == 5
        await blocker.execute("ROLLBACK")
        await asyncio.gather(head, *rest)
        await batcher.drain()
        assert batcher.batches == 2 and batcher.requests == 6 and acquires == 1
    finally:
        await pool.close()


async def test_a_pool_that_fails_to_give_a_connection_fails_the_batch(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    """Whatever the pool's acquire raises, the requests of the batch get it: none waits."""
    await make_queue(conn, "s.q")

    async def broken(_c: asyncpg.Connection) -> None:
        raise RuntimeError("setup failed")

    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=2, setup=broken)
    try:
        batcher = EnqueueBatcher(pool)
        requests = [batcher.enqueue(None, None, "s.q", [(b"x", None)]) for _ in range(3)]
        outcomes = await asyncio.wait_for(asyncio.gather(*requests, return_exceptions=True), 10)
        assert all(isinstance(o, RuntimeError) for o in outcomes)
        await batcher.drain()
        assert batcher.stats()["writers"] == 0
        assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
    finally:
        pool.terminate()  # (close() would wait for a connection a failure left out)


async def test_a_writer_gives_its_connection_back_when_others_wait_for_one(
        conn: asyncpg.Connection, db_dsn: str, blocker: asyncpg.Connection) -> None:
    """With the pool exhausted, a busy writer returns its connection between batches, so
    a metadata lookup or a session's transaction is not held up for as long as the queue
    stays busy."""
    await make_queue(conn, "s.q")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=1)
    try:
        batcher = EnqueueBatcher(pool)
        head = await _blocked_behind(blocker, conn, batcher, b"a")
        rest = [asyncio.ensure_future(batcher.enqueue(None, None, "s.q", [(b"b", None)]))
                for _ in range(3)]
        other = asyncio.ensure_future(pool.acquire())  # waits: the writer holds the only one
        await conn.fetchval("SELECT 1")  # a round trip: the three and the acquire are queued
        assert not other.done()
        await blocker.execute("ROLLBACK")
        await head
        theirs = await other  # given back after the first batch...
        assert batcher.batches == 1 and not any(r.done() for r in rest)
        await pool.release(theirs)
        await asyncio.gather(*rest)  # ...and taken again for the next
        assert batcher.batches == 2
        await batcher.drain()
        assert await conn.fetchval("SELECT count(*) FROM s.qt") == 4
    finally:
        pool.terminate()  # (close() would wait for a connection a failure left out)


@pytest.fixture
async def blocker(db_dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """A second connection, to hold a lock on the queue table while a batch waits on it."""
    holder = await asyncpg.connect(db_dsn)
    yield holder  # (pytest runs the rest as the teardown, whatever the test did)
    await holder.close()


async def _blocked_behind(blocker: asyncpg.Connection, conn: asyncpg.Connection,
                          batcher: EnqueueBatcher, payload: bytes) -> asyncio.Future[list[str]]:
    """A request whose batch waits on `blocker`'s lock of s.qt (released by its ROLLBACK)."""
    await blocker.execute("BEGIN")
    await blocker.execute("LOCK TABLE s.qt IN EXCLUSIVE MODE")
    request = asyncio.ensure_future(batcher.enqueue(None, None, "s.q", [(payload, None)]))
    await _until_blocked(conn)
    return request


async def _blocked_pid(conn: asyncpg.Connection) -> int:
    pid: int = await conn.fetchval("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                   "AND datname = current_database()")
    return pid


async def _until_blocked(conn: asyncpg.Connection, count: int = 1) -> None:
    """Until `count` sessions wait on a lock (pg_stat_activity is the event to watch)."""
    for _ in range(500):
        n = await conn.fetchval("SELECT count(*) FROM pg_stat_activity "
                                "WHERE wait_event_type = 'Lock' AND datname = current_database()")
        if n >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} blocked writers expected")


async def test_a_receive_cancelled_while_its_statement_runs_takes_nothing(
        conn: asyncpg.Connection, db_dsn: str, blocker: asyncpg.Connection) -> None:
    """A receive whose client goes away while its statement runs (held here by a lock on
    the queue table) removes nothing: the statement runs on for the others it serves, but
    what it took for nobody is not committed. The message stays; the next receive gets it."""
    await make_queue(conn, "s.q")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=2)
    try:
        await EnqueueBatcher(pool).enqueue(None, None, "s.q", [(b"one", None), (b"two", None)])
        receiver = DequeueBatcher(pool)
        await blocker.execute("BEGIN")
        await blocker.execute("LOCK TABLE s.qt IN EXCLUSIVE MODE")
        gone = asyncio.create_task(receiver.dequeue(None, None, "s.q", None, "REMOVE", 1))
        await _until_blocked(conn)  # its statement is on the server, waiting
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone
        await blocker.execute("ROLLBACK")  # the statement goes on, and returns
        await receiver.drain()
        assert await conn.fetchval("SELECT array_agg(user_data ORDER BY enq_seq) FROM s.qt") \
            == [b"one", b"two"]
        assert [m.payload for m in await receiver.dequeue(None, None, "s.q", None, "REMOVE", 1)] \
            == [b"one"]
    finally:
        await pool.close()


async def test_receives_cancelled_mid_statement_leave_their_messages_to_the_others(
        conn: asyncpg.Connection, db_dsn: str, blocker: asyncpg.Connection) -> None:
    """Twenty receives taken in one statement, a third of them cancelled while it runs:
    each message goes exactly once, to a receive still there, in queue order; those of the
    cancelled stay in the queue."""
    await make_queue(conn, "s.q")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=1)
    second = await asyncpg.connect(db_dsn)
    try:
        receiver = DequeueBatcher(pool)
        # the statements of one and of many prepared first: a statement's first run is a
        # prepare then an execute, and the second lock could take the table in between
        await EnqueueBatcher(pool).enqueue(None, None, "s.q", [(b"w", None)] * 3)
        assert len(await receiver.dequeue(None, None, "s.q", None, "REMOVE", 1)) == 1
        assert len(await receiver.dequeue(None, None, "s.q", None, "REMOVE", 2)) == 2
        sent = [f"m{i:02}".encode() for i in range(30)]
        await EnqueueBatcher(pool).enqueue(None, None, "s.q", [(p, None) for p in sent])
        await blocker.execute("BEGIN")
        await blocker.execute("LOCK TABLE s.qt IN EXCLUSIVE MODE")
        leader = asyncio.create_task(receiver.dequeue(None, None, "s.q", None, "REMOVE", 1))
        await _until_blocked(conn)
        # a second lock, queued behind the leader's statement: the next statement, which
        # takes the twenty below together, waits for it (PostgreSQL's lock queue)
        await second.execute("BEGIN")
        locked = asyncio.create_task(second.execute("LOCK TABLE s.qt IN EXCLUSIVE MODE"))
        await _until_blocked(conn, count=2)
        followers = [asyncio.create_task(receiver.dequeue(None, None, "s.q", None, "REMOVE", 1))
                     for _ in range(20)]
        await until(lambda: receiver.stats()["waiting"] == 20, "the twenty waiting")
        await blocker.execute("ROLLBACK")
        assert [m.payload for m in await leader] == [b"m00"]
        await locked
        await _until_blocked(conn)  # the twenty's statement, on the server
        assert receiver.stats()["writers"] == 1 and receiver.stats()["waiting"] == 0
        cancelled = followers[::3]
        for f in cancelled:
            f.cancel()
        await asyncio.gather(*cancelled, return_exceptions=True)
        assert all(f.cancelled() for f in cancelled)
        await second.execute("ROLLBACK")
        live = [f for f in followers if f not in cancelled]
        got = [m.payload for f in live for m in await f]
        await receiver.drain()
        assert got == sent[1:1 + len(live)]  # one each, the first ones, in queue order
        left = await conn.fetchval("SELECT array_agg(user_data ORDER BY enq_seq) FROM s.qt")
        assert left == sent[1 + len(live):]  # nothing lost, nothing twice
    finally:
        await second.close()
        await pool.close()


async def test_a_receive_from_a_queue_made_again_is_served(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    """The receiver's cached statements name the queue's old table: the route that fails
    on them is followed by the next (pgaq.routes), which meets the dequeue's transaction
    aborted by the failure and is run again in a new one, as an autocommit would have."""
    await make_queue(conn, "s.q")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=2)
    try:
        await EnqueueBatcher(pool).enqueue(None, None, "s.q", [(b"a", None)])
        receiver = DequeueBatcher(pool)
        assert len(await receiver.dequeue(None, None, "s.q", None, "REMOVE", 1)) == 1
        await conn.execute("CALL dbms_aqadm.stop_queue('s.q'); CALL dbms_aqadm.drop_queue('s.q');"
                           "CALL dbms_aqadm.drop_queue_table('s.qt')")
        await make_queue(conn, "s.q", "s.qt2")
        await EnqueueBatcher(pool).enqueue(None, None, "s.q", [(b"b", None)])
        got = await receiver.dequeue(None, None, "s.q", None, "REMOVE", 1)
        assert [m.payload for m in got] == [b"b"]
    finally:
        await pool.close()


async def test_a_receive_cancelled_during_its_commit_is_logged_with_its_messages(
        conn: asyncpg.Connection, db_dsn: str, blocker: asyncpg.Connection,
        caplog: pytest.LogCaptureFixture) -> None:
    """The window left: a caller cancelled once its COMMIT is on its way (held here by a
    deferred trigger waiting on a lock the test holds) loses what was committed for it,
    as any request and response would; the gateway says which messages went to nobody."""
    await make_queue(conn, "s.q")
    await conn.execute("""
        CREATE FUNCTION s.hold() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NULL; END $$;
        CREATE CONSTRAINT TRIGGER hold AFTER DELETE ON s.qt DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW EXECUTE FUNCTION s.hold()""")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=1)
    try:
        [sent] = await EnqueueBatcher(pool).enqueue(None, None, "s.q", [(b"one", None)])
        receiver = DequeueBatcher(pool)
        await blocker.execute("BEGIN")
        await blocker.execute("SELECT pg_advisory_xact_lock(4242)")
        gone = asyncio.create_task(receiver.dequeue(None, None, "s.q", None, "REMOVE", 1))
        await until(lambda: conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE query = 'COMMIT;' "
            "AND wait_event_type = 'Lock' AND datname = current_database()"), "the COMMIT held")
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone
        await blocker.execute("ROLLBACK")
        await receiver.drain()
        assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
        [warning] = [r for r in caplog.records if r.levelname == "WARNING"
                     and "delivered to nobody" in r.getMessage()]
        assert sent in warning.getMessage()
    finally:
        await pool.close()


async def test_receives_that_follow_one_another_leave_no_transaction_open(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    """Grouped receives one after another (a key keeps its connection, and a statement
    begins the next one's transaction with its COMMIT): each message goes once, in queue
    order, and once the receives stop no connection is left in a transaction."""
    await make_queue(conn, "s.q")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=3)
    try:
        sent = [f"m{i:03}".encode() for i in range(400)]
        await EnqueueBatcher(pool).enqueue(None, None, "s.q", [(p, None) for p in sent])
        receiver = DequeueBatcher(pool)

        async def client() -> list[bytes]:
            got: list[bytes] = []
            while batch := await receiver.dequeue(None, None, "s.q", None, "REMOVE", 3):
                got += [raw(m.payload) for m in batch]
            return got

        takes = await asyncio.gather(*(client() for _ in range(12)))
        await receiver.drain()
        assert sorted(p for got in takes for p in got) == sent
        assert all(got == sorted(got) for got in takes)  # each client's in queue order
        assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
        open_ = await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND state LIKE 'idle in transaction%'")
        assert open_ == 0
    finally:
        await pool.close()
