"""Property: any interleaving of enqueues (with priorities) and dequeues follows the sort order."""

from __future__ import annotations

import asyncio
import itertools

import asyncpg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pgaq import DequeueOptions, MessageProperties, Session

_names = itertools.count()

SORTS = ["ENQ_TIME", "PRIORITY", "PRIORITY,ENQ_TIME", "ENQ_TIME,PRIORITY"]
ops_strategy = st.lists(
    st.one_of(
        st.tuples(st.just("enq"), st.integers(min_value=-3, max_value=3)),
        st.tuples(st.just("deq"), st.integers(min_value=1, max_value=3)),
    ),
    max_size=30,
)


async def _check(dsn: str, ops: list[tuple[str, int]], sort: str) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        n = next(_names)
        await conn.execute("CREATE SCHEMA IF NOT EXISTS h")
        await conn.execute(
            "CALL dbms_aqadm.create_queue_table($1, 'RAW', sort_list => $2)", f"h.t{n}", sort
        )
        await conn.execute("CALL dbms_aqadm.create_queue($1, $2)", f"h.q{n}", f"h.t{n}")
        await conn.execute("CALL dbms_aqadm.start_queue($1)", f"h.q{n}")
        s = Session(conn)
        model: list[tuple[int, int]] = []  # (priority, sequence) of READY messages
        seq = 0
        for op, arg in ops:
            if op == "enq":
                seq += 1
                await s.enqueue(f"h.q{n}", seq.to_bytes(4, "big"), MessageProperties(priority=arg))
                model.append((arg, seq))
            else:
                got = await s.dequeue(
                    f"h.q{n}", DequeueOptions(batch_size=arg, navigation="FIRST_MESSAGE")
                )
                key = (lambda m: (m[0], m[1])) if sort.startswith("PRIORITY") else (lambda m: m[1])
                model.sort(key=key)
                expected, model = model[:arg], model[arg:]
                assert [int.from_bytes(m.payload, "big") for m in got] == [e[1] for e in expected]  # type: ignore[arg-type]
    finally:
        await conn.close()


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=ops_strategy, sort=st.sampled_from(SORTS))
def test_any_interleaving_dequeues_in_sort_order(
    db_dsn: str, ops: list[tuple[str, int]], sort: str
) -> None:
    asyncio.run(_check(db_dsn, ops, sort))
