"""Grouped calls: concurrent calls of one process with the same key, one statement.

The one grouping mechanism of pgaq, used for three kinds of call:
- the library's buffered REMOVEs (the route "grouped", pgaq.routes). A buffered REMOVE
  (delivery mode BUFFERED, IMMEDIATE visibility, outside any transaction) is not part of a
  transaction (Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2
  (10.2), "Introducing Oracle Streams AQ", "Buffered Messaging"): it takes effect when the
  call returns;
- the gateway's autocommit sends and its autocommit REMOVE receives (pgaq.idap.batching),
  each of which commits on its own.
So the calls that arrive while another one for the same key is running can be taken
together, as one statement of the sum of their sizes, the way PostgreSQL groups commits:
the first caller (the leader) runs its statement at once; calls arriving meanwhile wait,
and when the statement returns, the next waiter leads the next statement for all of them.
No timer: an idle key's call runs at once, and each statement carries what arrived during
the previous one. `max_inflight` statements of one key may run at once (default one:
concurrent statements of one queue contend for the same WAL flush and index pages).
(Buffered enqueues of the library are not grouped: measured, one statement per call was
as fast, bench rows 6 and 7c, docs/architecture.md "Buffered messages".)

Each call still gets exactly its own result: its own share, in order. If a combined
statement fails, its calls are run again one by one, so a call's own error stays its own;
a lost connection fails them all (the database is away). The leader's statement is
shielded from the leader's cancellation: the others' results do not depend on whether
their leader is still waiting.

Which connection a statement runs on is the runner's business: the library's runs on the
leader's session (so its key holds everything a statement runs as: the database and
login, the role, the agent, the queue and the consumer); the gateway's on a pool
connection it keeps while its key stays busy (`waiting` tells it, `on_idle` says when
nothing is left).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from .errors import ConnectionLost

T = TypeVar("T")  # what one call hands in (its messages, or its dequeue)
R = TypeVar("R")  # what one call gets back (its ids, or its messages)

# runs the calls of one group as one statement; returns each call's result, in order
Runner = Callable[[Sequence[T]], Awaitable[list[R]]]


@dataclass(eq=False)
class _Call(Generic[T, R]):
    work: T
    size: int
    run: Runner[T, R]  # the caller's own runner: its session, its connection
    turn: asyncio.Future[bool] | None = None  # True: lead the next statement
    result: list[R] = field(default_factory=list)
    error: BaseException | None = None
    done: bool = False


@dataclass(eq=False)
class _Group(Generic[T, R]):
    waiting: list[_Call[T, R]] = field(default_factory=list)
    writing: int = 0  # statements in flight


class Coalescer(Generic[T, R]):
    """Leader-follower grouping of concurrent calls per key (see the module docstring)."""

    def __init__(self, name: str, max_size: int = 1000, max_inflight: int = 1,
                 on_idle: Callable[[Hashable], None] | None = None) -> None:
        self.name = name
        self.max_size = max_size
        self.max_inflight = max(1, max_inflight)
        self.on_idle = on_idle  # told a key has no call waiting and no statement in flight
        self._groups: dict[Hashable, _Group[T, R]] = {}
        self._writes: set[asyncio.Task[None]] = set()
        self.statements = 0  # for tests and metrics
        self.calls = 0

    def waiting(self, key: Hashable) -> int:
        """Calls of `key` waiting for the next statement, now."""
        group = self._groups.get(key)
        return 0 if group is None else len(group.waiting)

    async def submit(self, key: Hashable, work: T, size: int, run: Runner[T, R]) -> R:
        """This call's result, written alone or with the calls that arrived meanwhile."""
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group()
        call: _Call[T, R] = _Call(work, size, run)
        if group.writing >= self.max_inflight:
            call.turn = asyncio.get_running_loop().create_future()
            group.waiting.append(call)
            try:
                lead = await call.turn
            except asyncio.CancelledError:
                if call in group.waiting:
                    group.waiting.remove(call)
                elif call.turn.done() and not call.turn.cancelled() and call.turn.result():
                    self._hand_over(key, group)  # it was our turn: pass it on
                raise
            if not lead:
                return self._outcome(call)
        else:
            group.writing += 1
        batch = [call]
        size = call.size
        while group.waiting and size + group.waiting[0].size <= self.max_size:
            other = group.waiting.pop(0)
            batch.append(other)
            size += other.size
        task = asyncio.create_task(self._write(batch), name=f"{self.name}: statement")
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)
        try:
            await asyncio.shield(task)
        finally:
            # the next statement's leader goes on once this one is written, even if this
            # leader was cancelled meanwhile (the shielded write finishes on its own)
            if task.done():
                self._hand_over(key, group)
            else:
                task.add_done_callback(lambda _t: self._hand_over(key, group))
        return self._outcome(call)

    def _outcome(self, call: _Call[T, R]) -> R:
        assert call.done
        if call.error is not None:
            raise call.error
        return call.result[0]

    def _hand_over(self, key: Hashable, group: _Group[T, R]) -> None:
        """The first live waiter leads next; none: the group is idle."""
        while group.waiting:
            nxt = group.waiting.pop(0)
            assert nxt.turn is not None
            if not nxt.turn.done():
                nxt.turn.set_result(True)
                return
        group.writing -= 1
        if group.writing == 0 and self._groups.get(key) is group:
            del self._groups[key]
            if self.on_idle is not None:
                self.on_idle(key)

    async def _write(self, batch: list[_Call[T, R]]) -> None:
        """One statement for the batch (the leader's runner); on failure, one per call."""
        leader = batch[0]
        try:
            results = await leader.run([c.work for c in batch])
        except Exception as exc:
            if len(batch) == 1 or isinstance(exc, ConnectionLost):
                self._settle(batch, None, exc)
                return
            for c in batch:  # each call's own outcome, on the leader's connection
                try:
                    self._settle([c], await leader.run([c.work]), None)
                except Exception as one:
                    self._settle([c], None, one)
                except BaseException as stop:
                    self._settle([x for x in batch if not x.done], None, stop)
                    raise
            return
        except BaseException as stop:
            self._settle(batch, None, stop)
            raise
        self.statements += 1
        self.calls += len(batch)
        self._settle(batch, results, None)

    def _settle(self, batch: list[_Call[T, R]], results: list[R] | None,
                error: BaseException | None) -> None:
        for i, c in enumerate(batch):
            if results is not None:
                c.result = [results[i]]
            c.error = error
            c.done = True
            if c.turn is not None and not c.turn.done():
                c.turn.set_result(False)

    def stats(self) -> dict[str, Any]:
        """Statements run and calls served; now: keys with calls waiting or a statement in
        flight, statements in flight, calls waiting (each zero when idle: a finished key
        is forgotten)."""
        groups = list(self._groups.values())
        return {"statements": self.statements, "calls": self.calls, "keys": len(groups),
                "writing": sum(g.writing for g in groups),
                "waiting": sum(len(g.waiting) for g in groups)}

    async def drain(self) -> None:
        """Until no statement is in flight (a leader's may outlive its cancelled caller)."""
        while self._writes:
            await asyncio.gather(*self._writes, return_exceptions=True)
