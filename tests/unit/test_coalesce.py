"""pgaq.coalesce: concurrent calls written together, each with exactly its own outcome.

A fake statement stands in for the database: it records each batch it was given and can be
told to fail for a batch holding a given item, to lose its connection, or to hang until a
test lets it go. Expected outcomes are what each call would have got alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pgaq.coalesce import Coalescer
from pgaq.errors import ConnectionLost, QueueError


class Statement:
    """Answers a batch with each item doubled; fails a batch containing a bad item."""

    def __init__(self, bad: frozenset[int] = frozenset(), lost: bool = False) -> None:
        self.batches: list[list[int]] = []
        self.bad = bad
        self.lost = lost
        self.gate: asyncio.Event | None = None
        self.started = asyncio.Event()

    async def run(self, items: Sequence[int]) -> list[int]:
        self.batches.append(list(items))
        self.started.set()
        if self.gate is not None:
            await self.gate.wait()
        else:
            await asyncio.sleep(0)  # a round trip: others arrive meanwhile
        if self.lost:
            raise ConnectionLost("the connection was lost")
        hit = [i for i in items if i in self.bad]
        if hit:
            raise QueueError(f"ORA-25215: bad item {hit[0]}", 25215)
        return [i * 2 for i in items]


async def test_an_idle_call_is_written_at_once_alone() -> None:
    c: Coalescer[int, int] = Coalescer("t")
    st_ = Statement()
    assert await c.submit("k", 3, 1, st_.run) == 6
    assert st_.batches == [[3]]


async def test_concurrent_calls_share_statements_each_gets_its_own_result() -> None:
    c: Coalescer[int, int] = Coalescer("t")
    st_ = Statement()
    got = await asyncio.gather(*(c.submit("k", i, 1, st_.run) for i in range(10)))
    assert got == [i * 2 for i in range(10)]
    # the first is written alone at once; the nine that arrived meanwhile go together
    assert st_.batches == [[0], list(range(1, 10))]
    assert c.statements == 2 and c.calls == 10


async def test_keys_are_never_mixed() -> None:
    c: Coalescer[int, int] = Coalescer("t")
    st_ = Statement()
    await asyncio.gather(*(c.submit(("k", i % 2), i, 1, st_.run) for i in range(6)))
    for batch in st_.batches:
        assert len({i % 2 for i in batch}) == 1


async def test_one_bad_call_fails_alone() -> None:
    c: Coalescer[int, int] = Coalescer("t")
    st_ = Statement(bad=frozenset({4}))
    got = await asyncio.gather(*(c.submit("k", i, 1, st_.run) for i in range(8)),
                               return_exceptions=True)
    for i, g in enumerate(got):
        if i == 4:
            assert isinstance(g, QueueError) and g.code == 25215
        else:
            assert g == i * 2
    # the combined batch failed and was retried one call at a time
    assert [1, 2, 3, 4, 5, 6, 7] in st_.batches and [4] in st_.batches


async def test_a_lost_connection_fails_the_whole_batch_without_retrying() -> None:
    c: Coalescer[int, int] = Coalescer("t")
    st_ = Statement(lost=True)
    got = await asyncio.gather(*(c.submit("k", i, 1, st_.run) for i in range(5)),
                               return_exceptions=True)
    assert all(isinstance(g, ConnectionLost) for g in got)
    assert len(st_.batches) == 2  # no one-by-one retries against a database that is away


async def test_the_leaders_cancellation_does_not_cancel_the_others_statement() -> None:
    c: Coalescer[int, int] = Coalescer("t")
    st_ = Statement()
    st_.gate = asyncio.Event()
    leader = asyncio.ensure_future(c.submit("k", 1, 1, st_.run))
    await st_.started.wait()
    st_.started.clear()
    followers = [asyncio.ensure_future(c.submit("k", i, 1, st_.run)) for i in (2, 3)]
    await asyncio.sleep(0)
    leader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await leader
    st_.gate.set()  # the leader's statement finishes on its own; the next one runs
    assert await asyncio.gather(*followers) == [4, 6]
    assert st_.batches == [[1], [2, 3]]


async def test_a_follower_cancelled_before_its_turn_is_left_out() -> None:
    c: Coalescer[int, int] = Coalescer("t")
    st_ = Statement()
    st_.gate = asyncio.Event()
    leader = asyncio.ensure_future(c.submit("k", 1, 1, st_.run))
    await st_.started.wait()
    gone = asyncio.ensure_future(c.submit("k", 2, 1, st_.run))
    kept = asyncio.ensure_future(c.submit("k", 3, 1, st_.run))
    await asyncio.sleep(0)
    gone.cancel()
    st_.gate.set()
    assert await leader == 2 and await kept == 6
    assert gone.cancelled()
    assert st_.batches == [[1], [3]]


async def test_with_overlap_the_next_statement_starts_before_the_callers_are_told() -> None:
    """The database gets the next statement before the finished one's callers go on: their
    own work (answering, reading the next requests) overlaps it instead of idling it."""
    c: Coalescer[int, int] = Coalescer("t", overlap=True)
    st_ = Statement()
    st_.gate = asyncio.Event()
    events: list[str] = []

    async def run(items: Sequence[int]) -> list[int]:
        events.append(f"statement {list(items)}")
        return await st_.run(items)

    async def call(i: int) -> None:
        await c.submit("k", i, 1, run)
        events.append(f"told {i}")

    first = asyncio.ensure_future(call(1))
    await st_.started.wait()
    queued = [asyncio.ensure_future(call(i)) for i in (2, 3)]
    await asyncio.sleep(0)
    st_.gate.set()
    await asyncio.gather(first, *queued)
    assert events == ["statement [1]", "statement [2, 3]", "told 1", "told 2", "told 3"]


async def test_without_overlap_callers_that_call_again_at_once_join_the_next_statement() -> None:
    """Told first, sessions calling in a loop go round before the next statement is formed:
    after the first call alone, all four go together each time."""
    c: Coalescer[int, int] = Coalescer("t")
    st_ = Statement()

    async def session(n: int) -> None:
        for i in range(5):
            await c.submit("k", n * 10 + i, 1, st_.run)

    await asyncio.gather(*(session(n) for n in range(4)))
    assert [len(b) for b in st_.batches] == [1, 4, 4, 4, 4, 3]


async def test_batches_keep_to_max_size() -> None:
    c: Coalescer[int, int] = Coalescer("t", max_size=3)
    st_ = Statement()
    await asyncio.gather(*(c.submit("k", i, 1, st_.run) for i in range(10)))
    assert max(len(b) for b in st_.batches) <= 3
    assert sorted(i for b in st_.batches for i in b) == list(range(10))


@settings(max_examples=60, deadline=None)
@given(items=st.lists(st.integers(0, 20), min_size=1, max_size=25),
       bad=st.frozensets(st.integers(0, 20), max_size=3),
       cancel=st.sets(st.integers(0, 24), max_size=4), overlap=st.booleans())
def test_every_call_gets_what_it_would_alone(items: list[int], bad: frozenset[int],
                                             cancel: set[int], overlap: bool) -> None:
    """Any mix of good, bad and cancelled calls: each uncancelled call gets its own answer
    or its own error, and every item reaches the database at least once in a batch that
    succeeded exactly when its answer is returned."""

    async def main() -> None:
        c: Coalescer[int, int] = Coalescer("t", max_size=4, overlap=overlap)
        st_ = Statement(bad=bad)
        tasks = [asyncio.ensure_future(c.submit("k", i, 1, st_.run)) for i in items]
        await asyncio.sleep(0)
        for n in cancel:
            if n < len(tasks) and n > 0:
                tasks[n].cancel()
        done = await asyncio.gather(*tasks, return_exceptions=True)
        for i, (item, outcome) in enumerate(zip(items, done, strict=True)):
            if isinstance(outcome, asyncio.CancelledError):
                assert i in cancel
            elif item in bad:
                assert isinstance(outcome, QueueError)
            else:
                assert outcome == item * 2
        assert c.stats()["keys"] == 0  # nothing left behind

    asyncio.run(main())
