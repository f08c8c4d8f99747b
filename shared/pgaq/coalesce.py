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
the first caller (the leader) has its statement run at once; calls arriving meanwhile
wait, and when the statement returns, the next statement for all of them runs with the
runner of its first call, its leader, in that call's context. When it starts depends on
the callers (`overlap`):
- callers that call again at once (the library's sessions, each in its loop): the
  finished statement's callers are told first and the next statement takes them too,
  as it is formed once they have gone round;
- callers with work of their own after each call (the gateway, answering and reading
  HTTP requests): the next statement is started before they are told, so the database
  works while they do (told first, they left the gateway's Publish statements idle a
  quarter of the time).
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
import contextvars
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
    told: asyncio.Future[None]  # done once the outcome below is the call's
    context: contextvars.Context  # the caller's: a statement it leads runs in it
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
                 on_idle: Callable[[Hashable], None] | None = None, overlap: bool = False) -> None:
        self.name = name
        self.max_size = max_size
        self.max_inflight = max(1, max_inflight)
        self.on_idle = on_idle  # told a key has no call waiting and no statement in flight
        self.overlap = overlap  # the next statement starts before the callers are told
        self._groups: dict[Hashable, _Group[T, R]] = {}
        self._writes: set[asyncio.Task[None]] = set()
        self._forming = 0  # next statements to be formed once the callers have gone round
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
        call: _Call[T, R] = _Call(work, size, run, asyncio.get_running_loop().create_future(),
                                  contextvars.copy_context())
        group.waiting.append(call)
        if group.writing < self.max_inflight:
            group.writing += 1
            self._next(key, group)
        try:
            await call.told
        except asyncio.CancelledError:
            if call in group.waiting:
                group.waiting.remove(call)  # left out; taken, its statement goes on regardless
            raise
        return self._outcome(call)

    def _outcome(self, call: _Call[T, R]) -> R:
        assert call.done
        if call.error is not None:
            raise call.error
        return call.result[0]

    def _next(self, key: Hashable, group: _Group[T, R]) -> None:
        """The next statement of `key` for the calls waiting, up to max_size, led by the
        first of them; none waiting: one statement fewer in flight (idle at none)."""
        batch: list[_Call[T, R]] = []
        size = 0
        waiting = group.waiting
        while waiting and (not batch or size + waiting[0].size <= self.max_size):
            call = waiting.pop(0)
            if call.told.done():
                continue  # cancelled, not yet gone from the list
            batch.append(call)
            size += call.size
        if not batch:
            group.writing -= 1
            if group.writing == 0 and self._groups.get(key) is group:
                del self._groups[key]
                if self.on_idle is not None:
                    self.on_idle(key)
            return
        task = asyncio.create_task(self._write(key, group, batch),
                                   name=f"{self.name}: statement", context=batch[0].context)
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _write(self, key: Hashable, group: _Group[T, R], batch: list[_Call[T, R]]) -> None:
        """One statement for the batch, its callers told, and the next statement: started
        first with `overlap` (its first step queues ahead of their wake-ups), else formed
        after their wake-ups (queued behind them)."""
        try:
            await self._run(batch)
        except BaseException as stop:
            self._settle([c for c in batch if not c.done], None, stop)
            raise
        finally:
            if self.overlap:
                self._next(key, group)
            for c in batch:
                if not c.told.done():
                    c.told.set_result(None)
            if not self.overlap:
                self._forming += 1
                asyncio.get_running_loop().call_soon(self._formed, key, group)

    def _formed(self, key: Hashable, group: _Group[T, R]) -> None:
        self._forming -= 1
        self._next(key, group)

    async def _run(self, batch: list[_Call[T, R]]) -> None:
        """One statement for the batch (its leader's runner); on failure, one per call."""
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
            return
        self.statements += 1
        self.calls += len(batch)
        self._settle(batch, results, None)

    def _settle(self, batch: list[_Call[T, R]], results: list[R] | None,
                error: BaseException | None) -> None:
        """Each call's outcome, kept until its caller is told (_write)."""
        for i, c in enumerate(batch):
            if results is not None:
                c.result = [results[i]]
            c.error = error
            c.done = True

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
        while self._writes or self._forming:
            if self._writes:
                await asyncio.gather(*self._writes, return_exceptions=True)
            else:
                await asyncio.sleep(0)  # a next statement being formed (_formed)
