"""One wake-up per message, however many consumers wait (issue 35): waiters that compete
for the same messages pass a baton (pgaq.listener) instead of all being woken by each
NOTIFY. A committed message wakes one waiter; one that got something wakes the next (a
transaction may have committed more); one that found nothing keeps nothing; one that
leaves holding a wake-up passes it on. No message is stranded: every waiter here polls
only every 60 s (safety_poll), so a pickup within seconds is the wake-ups' doing.

Looks are counted on the waiters' own connections (asyncpg's query logger: every
statement a session runs), once every waiter is back in its wait (Listener.idle).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import pgaq.jms as jms
import pytest
from pgaq import DequeueOptions, Message, Session, waiting
from pgaq.listener import Listener

from .helpers import make_queue
from .test_library_wait import ENQ, registered
from .waiting import until


@pytest.fixture
async def many(db_dsn: str) -> AsyncIterator[tuple[list[asyncpg.Connection], Counter[int]]]:
    """64 waiters' connections, and how many statements each ran."""
    cs = [await asyncpg.connect(db_dsn) for _ in range(64)]
    looks: Counter[int] = Counter()
    for i, c in enumerate(cs):
        c.add_query_logger(lambda _q, i=i: looks.update([i]))
    try:
        yield cs, looks
    finally:
        for c in cs:
            await c.close()


async def _waiting(sessions: list[Session], queue: str) -> tuple[list[asyncio.Task[list[Message]]], Listener]:
    tasks = [asyncio.create_task(s.dequeue(queue, DequeueOptions(wait=30))) for s in sessions]
    await until(lambda: bool(waiting.listening()), "the shared listener")
    [listener] = waiting.listening()
    await until(lambda: listener.idle == len(sessions), "every waiter in its wait")
    return tasks, listener


async def test_one_message_wakes_one_of_64_waiters(
        conn: asyncpg.Connection, many: tuple[list[asyncpg.Connection], Counter[int]]) -> None:
    cs, looks = many
    await make_queue(conn)
    tasks, listener = await _waiting([Session(c, safety_poll=60) for c in cs], "s.q")
    await registered(conn, "s.q")
    looks.clear()
    t = time.monotonic()
    await conn.execute(ENQ, "s.q", b"\x01")
    done, pending = await asyncio.wait(tasks, timeout=10, return_when=asyncio.FIRST_COMPLETED)
    assert time.monotonic() - t < 2.0
    [m] = done.pop().result()
    assert m.payload == b"\x01"
    # the taker woke one more (there might have been another message), who found nothing
    await until(lambda: listener.idle == 63, "the others back in their wait")
    assert len(pending) == 63 and not any(t.done() for t in pending)
    assert len(looks) <= 2 and sum(looks.values()) <= 3, looks
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)


async def test_a_missed_notify_is_found_by_one_safety_look_per_period(
        conn: asyncpg.Connection, many: tuple[list[asyncpg.Connection], Counter[int]]) -> None:
    """A message no NOTIFY announces (the registration lost, as when a previous release
    enqueues) is found by the safety looks, and 64 waiters of one key make one look per
    period between them, not one each."""
    cs, looks = many
    await make_queue(conn)
    poll = 0.2
    tasks, listener = await _waiting([Session(c, safety_poll=poll) for c in cs], "s.q")
    await registered(conn, "s.q")
    await conn.execute("DELETE FROM aq.waiters")  # enqueuers now notify nobody
    looks.clear()
    t = time.monotonic()
    await until(lambda: sum(looks.values()) >= 10, "ten safety looks")
    # one look a period for the key: ten take nine periods at least (a timer per waiter
    # made 64 looks a period); a busy machine only makes them later
    assert time.monotonic() - t >= 9 * poll
    assert listener.idle == 64
    await conn.execute(ENQ, "s.q", b"\x02")
    # a later round's look finds it (no NOTIFY came; the waits last 30 s)
    done, pending = await asyncio.wait(tasks, timeout=10, return_when=asyncio.FIRST_COMPLETED)
    assert len(done) == 1
    [m] = done.pop().result()
    assert m.payload == b"\x02"
    assert len(pending) == 63 and not any(t.done() for t in pending)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)


async def test_waiters_cancelled_one_by_one_end_and_take_nothing(
        conn: asyncpg.Connection, many: tuple[list[asyncpg.Connection], Counter[int]]) -> None:
    """Waiters cancelled one after another all end, though each passes its wake-up to
    another that is leaving too, and none takes a later message. (On Python 3.11 asyncio.wait_for
    handed a cancelled caller the event's result: such a waiter stayed, and a gateway
    receive whose client had gone took the next message and answered nobody.)"""
    cs, _ = many
    await make_queue(conn)
    tasks, _listener = await _waiting([Session(c, safety_poll=60) for c in cs], "s.q")
    await registered(conn, "s.q")
    for i, task in enumerate(tasks):  # one by one, as a gateway's clients leave
        task.cancel()
        for _ in range(i % 4):
            await asyncio.sleep(0)  # a turn of the loop: the last one's wake-up passed on
    _, pending = await asyncio.wait(tasks, timeout=10)
    assert not pending and all(t.cancelled() for t in tasks)
    await conn.execute(ENQ, "s.q", b"\x03")
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1


async def test_k_messages_in_one_transaction_reach_k_waiters(
        conn: asyncpg.Connection, many: tuple[list[asyncpg.Connection], Counter[int]]) -> None:
    cs, looks = many
    await make_queue(conn)
    tasks, listener = await _waiting([Session(c, safety_poll=60) for c in cs], "s.q")
    await registered(conn, "s.q")
    looks.clear()
    k = 10
    async with conn.transaction():  # one NOTIFY (PostgreSQL folds the identical ones)
        for i in range(k):
            await conn.execute(ENQ, "s.q", bytes([i]))
    await until(lambda: sum(t.done() for t in tasks) == k, f"{k} waiters to take one each", 10)
    got = sorted(bytes(m.payload) for t in tasks if t.done() for m in t.result())  # type: ignore[arg-type]
    assert got == [bytes([i]) for i in range(k)]
    await until(lambda: listener.idle == 64 - k, "the others back in their wait")
    assert sum(looks.values()) <= k + 3, looks  # each taker's look, and the one that found none
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_waiters_of_different_consumers_are_each_woken(
        conn: asyncpg.Connection, many: tuple[list[asyncpg.Connection], Counter[int]]) -> None:
    """A message for two subscribers wakes a waiter of each: they do not compete."""
    cs, _looks = many
    await make_queue(conn, "s.m", "s.mt", multiple=True)
    for name in ("A", "B"):
        await conn.execute("CALL dbms_aqadm.add_subscriber($1, sys.aq$_agent($2, NULL, NULL))", "s.m", name)
    sessions = [Session(c, safety_poll=60) for c in cs[:8]]
    tasks = [asyncio.create_task(s.dequeue("s.m", DequeueOptions(consumer_name="AB"[i % 2], wait=30)))
             for i, s in enumerate(sessions)]
    await until(lambda: bool(waiting.listening()), "the shared listener")
    [listener] = waiting.listening()
    await until(lambda: listener.idle == 8, "every waiter in its wait")
    await conn.execute(ENQ, "s.m", b"\x05")
    await until(lambda: sum(t.done() for t in tasks) == 2, "one waiter of each subscriber", 10)
    assert sorted(i % 2 for i, t in enumerate(tasks) if t.done()) == [0, 1]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_the_baton_passes_on_as_waiters_leave(conn: asyncpg.Connection, db_dsn: str) -> None:
    """At the Listener: a NOTIFY sets one shared subscription, the one blocked in its wait
    that began to wait last; took() sets the next; leaving with it unused (set), or by an
    exception, sets another; a plain subscription is set on every NOTIFY."""
    listener = Listener(db_dsn)
    await listener.start()
    notify = "SELECT pg_notify('herd_test', '')"
    try:
        async with listener.subscribe("herd_test") as plain, \
                listener.subscribe("herd_test", share="k") as a, \
                listener.subscribe("herd_test", share="k") as b, \
                listener.subscribe("herd_test", share="k") as c:
            async def heard() -> None:  # the plain one is set by the same NOTIFY's callback
                await asyncio.wait_for(plain.wait(), 10)
                plain.clear()

            def woken() -> list[str]:
                return [n for n, e in zip("abc", (a, b, c), strict=True) if e.is_set()]

            waits = {n: asyncio.create_task(e.wait()) for n, e in zip("abc", (a, b, c), strict=True)}
            await until(lambda: listener.idle == 3, "a, b, c in their waits, in that order")
            await conn.execute(notify)
            await heard()
            assert woken() == ["c"]  # the last to begin its wait: the warmest
            c.clear()
            c.took()  # got something: the next one
            assert woken() == ["b"]
            b.clear()  # found nothing: keeps it
            await conn.execute(notify)
            await heard()
            assert woken() == ["a"]  # the only one still blocked in its wait
            await asyncio.gather(*waits.values())
            a.clear()
            with pytest.raises(RuntimeError):
                async with listener.subscribe("herd_test", share="k") as d:
                    wait_d = asyncio.create_task(d.wait())
                    await until(lambda: listener.idle == 1, "d in its wait")
                    await conn.execute(notify)
                    await heard()
                    await wait_d
                    assert woken() == []
                    raise RuntimeError("a waiter fails before it looks")  # passes it on
            assert len(woken()) == 1
    finally:
        await listener.close()


async def test_a_timing_out_holder_strands_nothing(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    """A woken waiter that leaves before it looks (its wait ran out, it was cancelled)
    passes its wake-up on: the message still goes to a waiter at once."""
    await make_queue(conn)
    qid = await Session(conn).queue_id("s.q")
    listener = Listener(db_dsn)
    await listener.start()
    try:
        async with listener.subscribe(f"aq_{qid}", share="q") as other:
            async with listener.subscribe(f"aq_{qid}", share="q") as holder:
                await Session(conn).enqueue("s.q", b"x")
                await asyncio.wait_for(holder.wait(), 10)  # blocked in its wait: woken
                assert not other.is_set()
            # its wait ran out with the wake-up unused
            await asyncio.wait_for(other.wait(), 1)
    finally:
        await listener.close()


@pytest.mark.parametrize(("seed", "cancels"), [(1, False), (2, False), (3, True), (4, True)])
async def test_random_commits_and_rollbacks_against_many_waiters(
        conn: asyncpg.Connection, many: tuple[list[asyncpg.Connection], Counter[int]],
        db_dsn: str, seed: int, cancels: bool) -> None:
    """Every committed message is taken, once, promptly, while waiters come and go (short
    waits running out; with `cancels`, callers giving up mid-wait) and producers commit or
    roll back 1-5 messages. A call cancelled as its dequeue committed loses the message it
    took to its caller: there, every message leaves the queue."""
    cs, _looks = many
    rnd = random.Random(seed)
    await make_queue(conn)
    producers = [await asyncpg.connect(db_dsn) for _ in range(3)]
    committed: set[bytes] = set()
    taken: list[bytes] = []
    stop = asyncio.Event()
    numbers = iter(range(1 << 30))

    async def consume(s: Session, r: random.Random) -> None:
        while not stop.is_set():
            wait = r.choice([0.01, 0.05, 0.3, 30, 30])
            call = asyncio.create_task(s.dequeue("s.q", DequeueOptions(wait=wait)))
            if cancels and r.random() < 0.1:  # a caller that gives up mid-wait
                await asyncio.sleep(r.random() * 0.05)
                call.cancel()
            try:
                got = await call
            except asyncio.CancelledError:
                if not call.cancelled():
                    raise
                continue
            taken.extend(m.payload for m in got)  # type: ignore[misc]

    async def produce(c: asyncpg.Connection, r: random.Random) -> None:
        for _ in range(25):
            batch = [next(numbers).to_bytes(4, "big") for _ in range(r.randint(1, 5))]
            tx = c.transaction()
            await tx.start()
            for p in batch:
                await c.execute(ENQ, "s.q", p)
            if r.random() < 0.3:
                await tx.rollback()
            else:
                await tx.commit()
                committed.update(batch)
            await asyncio.sleep(r.random() * 0.03)

    consumers = [asyncio.create_task(consume(Session(c, safety_poll=60), random.Random(rnd.random())))
                 for c in cs[:32]]
    try:
        await until(lambda: bool(waiting.listening()), "the shared listener")
        await registered(conn, "s.q")
        await asyncio.gather(*(produce(p, random.Random(rnd.random())) for p in producers))
        if cancels:
            await until(lambda: conn.fetchval("SELECT NOT EXISTS (SELECT 1 FROM s.qt WHERE state = 0)"),
                        "no message left READY", 10)
        else:
            await until(lambda: len(taken) >= len(committed), "every committed message taken", 10)
    finally:
        stop.set()
        for t in consumers:
            t.cancel()
        await asyncio.gather(*consumers, return_exceptions=True)
        for p in producers:
            await p.close()
    assert len(taken) == len(set(taken)), "a message taken twice"
    assert set(taken) <= committed
    if not cancels:
        assert set(taken) == committed


@asynccontextmanager
async def _jms_pair(conn: asyncpg.Connection, db_dsn: str, safety_poll: float,
                    max_pool_size: int = 10
                    ) -> AsyncIterator[tuple[jms.Connection, jms.Connection]]:
    """Queue s.j of JMS text messages, and a receiving and a sending Connection of one
    factory (closed at the end)."""
    await make_queue(conn, "s.j", "s.jt", "SYS.AQ$_JMS_TEXT_MESSAGE")
    factory = jms.ConnectionFactory(db_dsn, safety_poll=safety_poll, max_pool_size=max_pool_size)
    receiving = await factory.create_connection()
    sending = await factory.create_connection()
    try:
        yield receiving, sending
    finally:
        await receiving.close()
        await sending.close()


async def _jms_listeners(receiving: jms.Connection, got: list[str], n: int = 32,
                         listener_of: Callable[[int], Callable[[jms.Message], Any]] | None = None
                         ) -> tuple[list[jms.MessageConsumer], Listener]:
    """n sessions of `receiving`, each with a listener on s.j (`listener_of(i)` for the
    i-th, else one appending the text to `got`), started and all in their wait; and the
    connection's listener."""
    def appending(_i: int) -> Callable[[jms.Message], Any]:
        return lambda m: got.append(m.text)  # type: ignore[attr-defined]

    consumers = []
    for i in range(n):
        s = receiving.create_session(False, jms.AUTO_ACKNOWLEDGE)
        c = await s.create_consumer(s.get_queue("s", "j"))
        c.set_message_listener((listener_of or appending)(i))
        consumers.append(c)
    await receiving.start()
    listener = await receiving.listening()
    assert listener is not None
    await until(lambda: listener.idle == n, "every listener in its wait")
    return consumers, listener


async def test_one_message_wakes_one_of_many_jms_listeners(db_dsn: str, conn: asyncpg.Connection) -> None:
    async with _jms_pair(conn, db_dsn, safety_poll=60.0, max_pool_size=40) as (receiving, sending):
        got: list[str] = []
        consumers, listener = await _jms_listeners(receiving, got)
        before = sum(c.looks for c in consumers)
        ps = sending.create_session(False, jms.AUTO_ACKNOWLEDGE)
        producer = ps.create_producer(ps.get_queue("s", "j"))
        await producer.send(ps.create_text_message("one"))
        await until(lambda: got == ["one"], "the message delivered")
        await until(lambda: listener.idle == 32, "every listener back in its wait")
        # the taker's look and the one it woke (who found nothing)
        assert sum(c.looks for c in consumers) - before <= 2
        tx = sending.create_session(True, jms.SESSION_TRANSACTED)
        tp = tx.create_producer(tx.get_queue("s", "j"))
        for i in range(6):
            await tp.send(tx.create_text_message(str(i)))
        await tx.commit()
        await until(lambda: len(got) == 7, "six more delivered", 10)
        assert sorted(got) == sorted(["one", *map(str, range(6))])


async def test_jms_listeners_share_their_safety_looks(db_dsn: str, conn: asyncpg.Connection) -> None:
    """32 message listeners of one queue make one safety look per period between them, and
    still find a message no NOTIFY announced."""
    poll = 0.2
    async with _jms_pair(conn, db_dsn, safety_poll=poll, max_pool_size=40) as (receiving, sending):
        got: list[str] = []
        consumers, _ = await _jms_listeners(receiving, got)
        await registered(conn, "s.j")
        await conn.execute("DELETE FROM aq.waiters")  # enqueuers now notify nobody
        before = sum(c.looks for c in consumers)
        t = time.monotonic()
        await until(lambda: sum(c.looks for c in consumers) - before >= 10, "ten safety looks")
        # one look a period (a timer per listener made 32 a period); load only delays them
        assert time.monotonic() - t >= 9 * poll
        ps = sending.create_session(False, jms.AUTO_ACKNOWLEDGE)
        await ps.create_producer(ps.get_queue("s", "j")).send(ps.create_text_message("quiet"))
        await until(lambda: got == ["quiet"], "the message found by a safety look")


async def test_a_jms_listener_that_woke_another_does_not_look_again(
        db_dsn: str, conn: asyncpg.Connection) -> None:
    """Messages sent one by one to 32 listeners cost two looks each: the taker's and the
    one of the listener it woke (who finds nothing). The taker, its message settled,
    waits for its turn rather than look again too: with 256 listeners that third look
    ran on a cold backend every message, 1.5-1.7x the PostgreSQL CPU of 4 (issue 35)."""
    async with _jms_pair(conn, db_dsn, safety_poll=60.0, max_pool_size=40) as (receiving, sending):
        got: list[str] = []
        consumers, listener = await _jms_listeners(receiving, got)
        ps = sending.create_session(False, jms.AUTO_ACKNOWLEDGE)
        producer = ps.create_producer(ps.get_queue("s", "j"))
        for i in range(5):
            before = [c.looks for c in consumers]
            await producer.send(ps.create_text_message(str(i)))
            def delivered(n: int = i + 1) -> bool:
                return len(got) == n

            await until(delivered, f"message {i} delivered")
            await until(lambda: listener.idle == 32, "every listener back in its wait")
            looked = [c.looks - b for c, b in zip(consumers, before, strict=True)]
            assert sum(looked) == 2 and max(looked) == 1, looked
        assert got == [str(i) for i in range(5)]
        assert await conn.fetchval("SELECT count(*) FROM s.jt") == 0


async def test_a_message_a_jms_listener_rolled_back_comes_again_among_many(
        db_dsn: str, conn: asyncpg.Connection) -> None:
    """A listener that raises rolls its message back, which no NOTIFY announces: its loop
    looks again itself though it had woken another listener, so the message comes again
    at once (the safety looks are a minute apart)."""
    async with _jms_pair(conn, db_dsn, safety_poll=60.0, max_pool_size=40) as (receiving, sending):
        seen: list[str] = []
        redelivered = asyncio.Event()

        def on_message(m: jms.Message) -> None:
            seen.append(m.text)  # type: ignore[attr-defined]
            if len(seen) == 1:
                raise RuntimeError("the application fails the first time")
            redelivered.set()

        await _jms_listeners(receiving, [], 32, lambda _i: on_message)
        ps = sending.create_session(False, jms.AUTO_ACKNOWLEDGE)
        await ps.create_producer(ps.get_queue("s", "j")).send(ps.create_text_message("again"))
        await asyncio.wait_for(redelivered.wait(), 10)
        assert seen == ["again", "again"]


async def test_one_jms_listener_takes_a_transaction_of_messages(
        db_dsn: str, conn: asyncpg.Connection) -> None:
    """With no other listener of its key to wake, the taker looks again itself: five
    messages of one transaction (one NOTIFY) all come at once."""
    async with _jms_pair(conn, db_dsn, safety_poll=60.0) as (receiving, sending):
        got: list[str] = []
        await _jms_listeners(receiving, got, 1)
        tx = sending.create_session(True, jms.SESSION_TRANSACTED)
        tp = tx.create_producer(tx.get_queue("s", "j"))
        for i in range(5):
            await tp.send(tx.create_text_message(str(i)))
        await tx.commit()
        await until(lambda: len(got) == 5, "the five delivered", 10)
        assert got == [str(i) for i in range(5)]


async def test_a_jms_listener_busy_with_a_slow_message_holds_up_no_other(
        db_dsn: str, conn: asyncpg.Connection) -> None:
    """Of two listeners, one is busy with a slow message. Two messages committed together
    wake the idle one, which takes the first and can only set the busy one's wake-up (it
    looks once its message is done): so it looks again itself, and the second message does
    not wait for the slow one."""
    release = asyncio.Event()
    async with _jms_pair(conn, db_dsn, safety_poll=60.0) as (receiving, sending):
        try:
            got: list[str] = []
            slow = asyncio.Event()

            async def on_message(m: jms.Message) -> None:
                text = m.text  # type: ignore[attr-defined]
                if text == "slow":
                    slow.set()
                    await release.wait()
                got.append(text)

            _, listener = await _jms_listeners(receiving, [], 2, lambda _i: on_message)
            ps = sending.create_session(False, jms.AUTO_ACKNOWLEDGE)
            await ps.create_producer(ps.get_queue("s", "j")).send(ps.create_text_message("slow"))
            await asyncio.wait_for(slow.wait(), 10)
            await until(lambda: listener.idle == 1, "the other listener back in its wait")
            tx = sending.create_session(True, jms.SESSION_TRANSACTED)
            tp = tx.create_producer(tx.get_queue("s", "j"))
            for text in ("a", "b"):
                await tp.send(tx.create_text_message(text))
            await tx.commit()
            await until(lambda: got == ["a", "b"], "both delivered while the slow one runs", 10)
            release.set()
            await until(lambda: got == ["a", "b", "slow"], "the slow one done")
        finally:
            release.set()


async def test_a_run_of_messages_committed_together_widens_to_every_listener(
        db_dsn: str, conn: asyncpg.Connection) -> None:
    """200 messages in one transaction (one NOTIFY) to 8 idle listeners: each taker wakes
    the next, and those woken by a take go on looking, so the run is taken by all 8 at
    once rather than passed between the two most recently idle."""
    async with _jms_pair(conn, db_dsn, safety_poll=60.0, max_pool_size=12) as (receiving, sending):
        got: list[tuple[int, str]] = []

        def noting(i: int) -> Callable[[jms.Message], None]:
            def on_message(m: jms.Message) -> None:
                assert isinstance(m, jms.TextMessage)
                got.append((i, str(m.text)))
            return on_message

        await _jms_listeners(receiving, [], 8, noting)
        tx = sending.create_session(True, jms.SESSION_TRANSACTED)
        tp = tx.create_producer(tx.get_queue("s", "j"))
        for n in range(200):
            await tp.send(tx.create_text_message(str(n)))
        await tx.commit()
        await until(lambda: len(got) == 200, "the run delivered", 30)
        assert sorted(int(text) for _, text in got) == list(range(200))
        assert {i for i, _ in got} == set(range(8))
