"""Oracle's administrative extensions to the JMS session (AQjmsSession's dbms_aqadm calls and
AQjmsDestination's start/stop/alter/drop/propagation methods), apart from messaging.

`Administration` is a mixin of `pgaq.jms.session.Session`, so `session.create_queue(...)`
works as before. Each call runs on a pool connection of its own, in autocommit, never in the
session's transaction (dbms_aqadm's calls commit in Oracle too); a dbms_aqadm call forgets
the session's cached destination info, which it may have just made stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import asyncpg

from . import errors as jerr
from ._support import INVALID_TOPIC, as_jms, fail
from .destination import AQjmsAgent, Destination, Queue, Topic

if TYPE_CHECKING:
    from .connection import Connection
    from .session import DestinationInfo

__all__ = ["Administration", "QueueTable", "split_qualified"]


@dataclass(frozen=True)
class QueueTable:
    """AQQueueTable: a handle on a queue table (`owner.name`)."""

    owner: str
    name: str

    @property
    def qualified(self) -> str:
        return f"{self.owner}.{self.name}"


class Administration:
    """AQjmsSession's administrative methods; the session provides what is declared below."""

    if TYPE_CHECKING:
        _connection: Connection
        _destinations: dict[str, DestinationInfo]

        def check_open(self) -> None: ...

        async def destination_info(self, dest: Destination) -> DestinationInfo: ...

    async def _admin(self, sql: str, *args: Any) -> None:
        self.check_open()
        try:
            async with self._connection.pool.acquire() as c:
                await c.execute(sql, *args)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            from ..errors import wrap_db_error

            raise as_jms(wrap_db_error(exc)) from exc
        self._destinations.clear()

    async def create_queue_table(self, owner: str, name: str, payload_type: str = "SYS.AQ$_JMS_MESSAGE",
                                 *, multiple_consumers: bool = False, sort_list: str | None = None,
                                 message_grouping: str = "NONE", comment: str | None = None) -> QueueTable:
        """AQjmsSession.createQueueTable (dbms_aqadm.create_queue_table); `payload_type`
        e.g. SYS.AQ$_JMS_TEXT_MESSAGE or an object type."""
        await self._admin(
            "CALL dbms_aqadm.create_queue_table(queue_table => $1, queue_payload_type => $2, "
            "sort_list => $3, multiple_consumers => $4, message_grouping => $5, comment => $6)",
            f"{owner}.{name}", payload_type, sort_list, multiple_consumers, message_grouping, comment)
        return QueueTable(owner, name)

    async def get_queue_table(self, owner: str, name: str) -> QueueTable:
        """AQjmsSession.getQueueTable: a handle on an existing queue table (ORA-24002 else)."""
        self.check_open()
        try:
            async with self._connection.pool.acquire() as c:
                await c.fetchval("SELECT (aq.resolve_queue_table($1)).id", f"{owner}.{name}")
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            from ..errors import wrap_db_error

            raise as_jms(wrap_db_error(exc)) from exc
        return QueueTable(owner, name)

    async def _create_destination(self, table: QueueTable, name: str, max_retries: int | None,
                                  retry_delay: float, retention_time: float,
                                  comment: str | None, start: bool) -> None:
        await self._admin(
            "CALL dbms_aqadm.create_queue(queue_name => $1, queue_table => $2, "
            "max_retries => $3, retry_delay => $4, retention_time => $5, comment => $6)",
            f"{table.owner}.{name}", table.qualified, 5 if max_retries is None else max_retries,
            retry_delay, retention_time, comment)
        if start:
            await self._admin("CALL dbms_aqadm.start_queue(queue_name => $1)", f"{table.owner}.{name}")

    async def create_queue(self, table: QueueTable | str, name: str | None = None, *,
                           max_retries: int | None = None, retry_delay: float = 0,
                           retention_time: float = 0, comment: str | None = None,
                           start: bool = True) -> Queue:
        """AQjmsSession.createQueue(table, name): a queue in a single-consumer queue table,
        started (AQjmsDestination.start) unless `start=False`; or JMS's
        Session.createQueue("owner.name"): the identity of an existing queue (nothing is
        created; InvalidDestinationException when there is no such queue)."""
        if isinstance(table, str):
            queue = Queue(*split_qualified(table)) if name is None else Queue(table, name)
            await self.destination_info(queue)
            return queue
        if name is None:
            fail(jerr.JMSException, 134, "Name must be specified")
        await self._create_destination(table, name, max_retries, retry_delay, retention_time,
                                       comment, start)
        return Queue(table.owner, name)

    async def create_topic(self, table: QueueTable | str, name: str | None = None, *,
                           max_retries: int | None = None, retry_delay: float = 0,
                           retention_time: float = 0, comment: str | None = None,
                           start: bool = True) -> Topic:
        """AQjmsSession.createTopic(table, name): a queue in a multi-consumer queue table;
        or JMS's Session.createTopic("owner.name"): an existing topic's identity."""
        if isinstance(table, str):
            topic = Topic(*split_qualified(table)) if name is None else Topic(table, name)
            info = await self.destination_info(topic)
            if not info.multiple_consumers:
                fail(jerr.InvalidDestinationException, INVALID_TOPIC,
                     f"Invalid Topic specified: {info.qualified} is a single-consumer queue")
            return topic
        if name is None:
            fail(jerr.JMSException, 134, "Name must be specified")
        await self._create_destination(table, name, max_retries, retry_delay, retention_time,
                                       comment, start)
        return Topic(table.owner, name)

    # AQjmsDestination's methods, here on the session that runs them
    async def start_destination(self, dest: Destination, enqueue: bool = True,
                                dequeue: bool = True) -> None:
        await self._admin("CALL dbms_aqadm.start_queue(queue_name => $1, enqueue => $2, dequeue => $3)",
                          dest.qualified, enqueue, dequeue)

    async def stop_destination(self, dest: Destination, enqueue: bool = True,
                               dequeue: bool = True, wait: bool = True) -> None:
        await self._admin("CALL dbms_aqadm.stop_queue(queue_name => $1, enqueue => $2, "
                          "dequeue => $3, wait => $4)", dest.qualified, enqueue, dequeue, wait)

    async def alter_destination(self, dest: Destination, *, max_retries: int | None = None,
                                retry_delay: float | None = None,
                                retention_time: float | None = None,
                                comment: str | None = None) -> None:
        await self._admin("CALL dbms_aqadm.alter_queue(queue_name => $1, max_retries => $2, "
                          "retry_delay => $3, retention_time => $4, comment => $5)",
                          dest.qualified, max_retries, retry_delay, retention_time, comment)

    async def drop_destination(self, dest: Destination) -> None:
        await self._admin("CALL dbms_aqadm.drop_queue(queue_name => $1)", dest.qualified)

    async def schedule_propagation(self, dest: Destination, destination: str | None = None, *,
                                   start_time: datetime | None = None,
                                   duration: float | None = None, next_time: str | None = None,
                                   latency: float = 60,
                                   destination_queue: str | None = None) -> None:
        """AQjmsDestination.schedulePropagation (dbms_aqadm.schedule_propagation)."""
        await self._admin(
            "CALL dbms_aqadm.schedule_propagation(queue_name => $1, destination => $2, "
            "start_time => $3, duration => $4, next_time => $5, latency => $6, "
            "destination_queue => $7)", dest.qualified, destination, start_time, duration,
            next_time, latency, destination_queue)

    async def unschedule_propagation(self, dest: Destination, destination: str | None = None,
                                     destination_queue: str | None = None) -> None:
        await self._admin("CALL dbms_aqadm.unschedule_propagation(queue_name => $1, "
                          "destination => $2, destination_queue => $3)",
                          dest.qualified, destination, destination_queue)

    async def enable_propagation_schedule(self, dest: Destination, destination: str | None = None,
                                          destination_queue: str | None = None) -> None:
        await self._admin("CALL dbms_aqadm.enable_propagation_schedule(queue_name => $1, "
                          "destination => $2, destination_queue => $3)",
                          dest.qualified, destination, destination_queue)

    async def disable_propagation_schedule(self, dest: Destination, destination: str | None = None,
                                           destination_queue: str | None = None) -> None:
        await self._admin("CALL dbms_aqadm.disable_propagation_schedule(queue_name => $1, "
                          "destination => $2, destination_queue => $3)",
                          dest.qualified, destination, destination_queue)

    async def create_remote_subscriber(self, topic: Topic, agent: AQjmsAgent,
                                       message_selector: str | None = None) -> None:
        """AQjmsSession.createRemoteSubscriber: an AQ subscriber with an address."""
        await self._admin("CALL dbms_aqadm.add_subscriber(queue_name => $1, "
                          "subscriber => sys.aq$_agent($2, $3, $4), rule => $5)",
                          topic.qualified, agent.name, agent.address, agent.protocol,
                          message_selector)


def split_qualified(qualified: str) -> tuple[str, str]:
    """("owner", "name") of "owner.name"; InvalidDestinationException (JMS-178) else."""
    owner, dot, name = qualified.partition(".")
    if not dot:
        fail(jerr.InvalidDestinationException, 178, f"Invalid Queue name {qualified!r}: owner.name")
    return owner, name
