"""Natural batching of the gateway's autocommit enqueues.

Requests that commit on their own (AQXmlSend/Publish with AQXmlCommit and no open
transaction, or IMMEDIATE visibility) for the same queue, role and agent, arriving while
an earlier batch is being written, are written together: one statement and one commit for
all of them. Each request still gets exactly its own message ids, all of its messages or
none: if a combined batch fails, its requests are retried one by one, so one bad request
cannot fail the others. Idle, a request is written at once (no timer, no added latency).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from ..engine import FastPath, MessageProperties, Payload, Session
from ..errors import PgaqError

Batch = Sequence[tuple[Payload, MessageProperties | None]]
Key = tuple[str | None, str | None, str, str | None]  # role, agent, queue, transformation


@dataclass
class _Item:
    messages: Batch
    done: asyncio.Future[list[str]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())


class EnqueueBatcher:
    def __init__(self, pool: asyncpg.Pool, *, max_messages: int = 1000,
                 fast_cache: dict[tuple[str | None, str], FastPath] | None = None) -> None:
        self.pool = pool
        self.max_messages = max_messages
        self._fast = fast_cache if fast_cache is not None else {}
        self._pending: dict[Key, list[_Item]] = {}
        self._writers: dict[Key, asyncio.Task[None]] = {}
        self.batches = 0  # statements written, for tests and metrics
        self.requests = 0

    async def enqueue(self, role: str | None, agent: str | None, queue: str, messages: Batch,
                      transformation: str | None = None) -> list[str]:
        key = (role, agent, queue, transformation)
        item = _Item(messages)
        self._pending.setdefault(key, []).append(item)
        if key not in self._writers:
            self._writers[key] = asyncio.create_task(self._write(key), name=f"enqueue-batch:{queue}")
        return await item.done

    def _take(self, key: Key) -> list[_Item]:
        items = self._pending.get(key, [])
        taken: list[_Item] = []
        count = 0
        while items and (not taken or count + len(items[0].messages) <= self.max_messages):
            item = items.pop(0)
            count += len(item.messages)
            taken.append(item)
        if not items:
            self._pending.pop(key, None)
        return taken

    async def _write(self, key: Key) -> None:
        try:
            while True:
                items = [i for i in self._take(key) if not i.done.done()]  # drop cancelled ones
                if not items:
                    if key not in self._pending:
                        return
                    continue
                await self._flush(key, items)
        finally:
            self._writers.pop(key, None)

    async def _flush(self, key: Key, items: list[_Item]) -> None:
        role, agent, queue, transformation = key
        session = Session(None, pool=self.pool, role=role, agent=agent, fast_cache=self._fast)
        messages = [m for item in items for m in item.messages]
        try:
            ids = await session.enqueue_array(queue, messages, visibility="IMMEDIATE",
                                              transformation=transformation)
        except PgaqError as exc:
            if len(items) == 1:
                _fail(items[0], exc)
                return
            for item in items:  # one by one: each request's own outcome
                await self._flush(key, [item])
            return
        except BaseException as exc:  # cancelled or a bug: nobody may wait forever
            for item in items:
                _fail(item, exc if isinstance(exc, Exception) else PgaqError("enqueue cancelled"))
            raise
        self.batches += 1
        self.requests += len(items)
        at = 0
        for item in items:
            n = len(item.messages)
            if not item.done.done():
                item.done.set_result(ids[at:at + n])
            at += n

    def stats(self) -> dict[str, Any]:
        return {"batches": self.batches, "requests": self.requests}


def _fail(item: _Item, exc: BaseException) -> None:
    if not item.done.done():
        item.done.set_exception(exc)
