"""JMS destinations (Oracle Database Advanced Queuing User's Guide, "Introduction to Oracle
Java Message Service", "JMS Destination"): a Queue is a single-consumer queue, a Topic a
multi-consumer one, each `schema.queue` in the database; AQjmsAgent is Oracle's agent (name,
address, protocol) for recipient lists, remote subscribers and reply-to."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..client import Agent
from .errors import InvalidDestinationException

__all__ = ["AQjmsAgent", "Destination", "Queue", "TemporaryQueue", "TemporaryTopic", "Topic",
           "temporary_kind"]

# a temporary destination's queue name (aq.jms_temporary_kind, R__52_jms_provider.sql):
# its kind ("q" or "t") and the lease of the connection that made it
_TEMPORARY = re.compile(r"^aq\$_tmp([qt])_([0-9a-f]{8})_[0-9a-f]{16}$")


@dataclass(frozen=True)
class Destination:
    """A queue or topic: `owner.name`, as AQjmsSession.getQueue(owner, name) names it."""

    owner: str
    name: str

    def __post_init__(self) -> None:
        if not self.owner or not self.name or "." in self.name:
            raise InvalidDestinationException(
                f"invalid destination {self.owner!r}.{self.name!r}: give owner and name", "JMS-178")

    @property
    def qualified(self) -> str:
        """"owner.name": what the engine and the SQL procedures take."""
        return f"{self.owner}.{self.name}"

    def get_owner(self) -> str:
        return self.owner

    def get_complete_name(self) -> str:
        """AQjmsDestination.getCompleteName: "owner.name"."""
        return self.qualified

    def __str__(self) -> str:
        return self.qualified

    @classmethod
    def parse(cls, qualified: str) -> Destination:
        """A destination from "owner.name" (the class called on: Queue or Topic)."""
        owner, dot, name = qualified.partition(".")
        if not dot:
            raise InvalidDestinationException(
                f"invalid destination {qualified!r}: expected owner.name", "JMS-178")
        return cls(owner, name)


@dataclass(frozen=True)
class Queue(Destination):
    """A point-to-point destination: a single-consumer queue."""

    def get_queue_name(self) -> str:
        """The queue's name without its owner (AQjmsDestination.getQueueName)."""
        return self.name

    def get_queue_owner(self) -> str:
        return self.owner


@dataclass(frozen=True)
class Topic(Destination):
    """A publish/subscribe destination: a multi-consumer queue."""

    def get_topic_name(self) -> str:
        """The topic's name without its owner (AQjmsDestination.getTopicName)."""
        return self.name

    def get_topic_owner(self) -> str:
        return self.owner


def temporary_kind(name: str) -> str | None:
    """"q" or "t" for a temporary queue's or topic's queue name, None for any other."""
    m = _TEMPORARY.match(name)
    return m.group(1) if m else None


@dataclass(frozen=True)
class TemporaryQueue(Queue):
    """javax.jms.TemporaryQueue: a queue that lives as long as the connection that made it
    (Session.create_temporary_queue); only that connection may consume from it. The same
    destination read from a message's JMSReplyTo is equal to it but cannot delete it."""

    _owner: Any = field(default=None, compare=False, hash=False, repr=False)

    async def delete(self) -> None:
        """Drop it: JMSException while a consumer of its connection is open on it."""
        from .temporary import delete

        await delete(self)


@dataclass(frozen=True)
class TemporaryTopic(Topic):
    """javax.jms.TemporaryTopic: as TemporaryQueue, a topic."""

    _owner: Any = field(default=None, compare=False, hash=False, repr=False)

    async def delete(self) -> None:
        from .temporary import delete

        await delete(self)


@dataclass(frozen=True)
class AQjmsAgent:
    """Oracle's agent: `name` is a consumer (subscriber) name, `address` a queue or topic
    ("schema.queue[@dblink]"); the Oracle JMS guide uses it for remote subscribers,
    recipient lists and JMSReplyTo."""

    name: str | None
    address: str | None = None
    protocol: int = 0

    def get_name(self) -> str | None:
        return self.name

    def get_address(self) -> str | None:
        return self.address

    def get_protocol(self) -> int:
        return self.protocol

    def to_engine(self) -> Agent:
        """The engine's Agent (sys.aq$_agent)."""
        return Agent(self.name, self.address, self.protocol)

    @classmethod
    def from_engine(cls, agent: Agent) -> AQjmsAgent:
        return cls(agent.name, agent.address, agent.protocol)
