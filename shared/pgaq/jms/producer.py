"""javax.jms.MessageProducer (QueueSender, TopicPublisher): send/publish with the
producer's defaults for delivery mode, priority and time to live.

The message's headers are set as JMS says ("set by JMS after the Send method has completed",
Oracle Database Advanced Queuing User's Guide, "Introduction to Oracle Java Message
Service", "JMS Message Headers"): JMSDestination, JMSDeliveryMode, JMSPriority before the
codec turns it into AQ's payload and properties; JMSMessageID ("ID:" + AQ's msgid),
JMSTimestamp (the enqueue time, read from that id) and JMSExpiration (absolute, ms; 0 =
never) after the enqueue. A body the queue's payload type cannot hold is refused before
anything is enqueued (MessageFormatException).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..client import Agent
from . import codec, compliance
from . import errors as jerr
from . import message as jmsg
from ._support import (
    DESTINATION_REQUIRED,
    INVALID_RECIPIENTS,
    PRODUCER_CLOSED,
    WRONG_PAYLOAD,
    fail,
)
from .destination import AQjmsAgent, Destination, Topic

if TYPE_CHECKING:
    from .session import Session

PERSISTENT = jmsg.PERSISTENT
NON_PERSISTENT = jmsg.NON_PERSISTENT


class MessageProducer:
    """Made by Session.create_producer / create_sender / create_publisher."""

    def __init__(self, session: Session, destination: Destination | None) -> None:
        self.session = session
        self.destination = destination
        self.delivery_mode = PERSISTENT
        # Oracle's default, non-compliant mode: AQ's 1; Java EE compliant: JMS's 4
        self.priority = compliance.default_priority(session.connection.j2ee_compliant)
        self.time_to_live = float(jmsg.DEFAULT_TIME_TO_LIVE)  # seconds; 0 = never expires
        self.disable_message_id = False
        self.disable_message_timestamp = False
        self.closed = False

    # -- JMS's getters and setters --------------------------------------------------------
    def _check_open(self) -> None:
        if self.closed:
            fail(jerr.IllegalStateException, PRODUCER_CLOSED, "Producer is closed")
        self.session.check_open()

    def get_destination(self) -> Destination | None:
        return self.destination

    get_queue = get_destination
    get_topic = get_destination

    def set_delivery_mode(self, mode: int) -> None:
        self._check_open()
        if mode not in (PERSISTENT, NON_PERSISTENT):
            fail(jerr.JMSException, 101, f"Invalid delivery mode {mode!r}")
        self.delivery_mode = mode

    def get_delivery_mode(self) -> int:
        return self.delivery_mode

    def set_priority(self, priority: int) -> None:
        """0-9, 9 the highest, in Java EE compliant mode; else AQ's priority (any 32-bit
        int, smaller is more urgent). Out of range: JMSException."""
        self._check_open()
        self.priority = compliance.check_priority(priority, self.session.connection.j2ee_compliant)

    def get_priority(self) -> int:
        return self.priority

    def set_time_to_live(self, seconds: float) -> None:
        """Seconds (a float; JMS's milliseconds / 1000); 0 never expires."""
        self._check_open()
        self.time_to_live = seconds

    def get_time_to_live(self) -> float:
        return self.time_to_live

    def set_disable_message_id(self, value: bool) -> None:
        self.disable_message_id = value  # a hint JMS lets a provider ignore: AQ always has ids

    def get_disable_message_id(self) -> bool:
        return self.disable_message_id

    def set_disable_message_timestamp(self, value: bool) -> None:
        self.disable_message_timestamp = value

    def get_disable_message_timestamp(self) -> bool:
        return self.disable_message_timestamp

    # -- sending --------------------------------------------------------------------------
    async def send(self, message: jmsg.Message | Destination, *args: Any,
                   delivery_mode: int | None = None, priority: int | None = None,
                   time_to_live: float | None = None, destination: Destination | None = None,
                   recipient_list: Sequence[AQjmsAgent] | None = None,
                   message_body: jmsg.Message | None = None) -> None:
        """JMS's four forms, positionally as in Java: send(message), send(message,
        delivery_mode, priority, time_to_live), send(destination, message) and
        send(destination, message, delivery_mode, priority, time_to_live) (the destination
        form for a producer made without one); or by keyword. `recipient_list` (topics)
        overrides the subscribers."""
        rest = list(args)
        if isinstance(message, Destination):  # JMS's send(Destination, Message, ...)
            destination = message
            if message_body is None and rest and isinstance(rest[0], jmsg.Message):
                message_body = rest.pop(0)
            if message_body is None:
                fail(jerr.JMSException, 133, "Message must be specified")
            message = message_body
        if len(rest) > 3:
            fail(jerr.JMSException, 207, f"send() takes at most a delivery mode, a priority and a "
                 f"time to live after the message, not {len(rest)} values")
        named: list[Any] = [delivery_mode, priority, time_to_live]
        for i, v in enumerate(rest):
            if named[i] is not None:
                fail(jerr.JMSException, 207, "send() got "
                     f"{('delivery_mode', 'priority', 'time_to_live')[i]} by position and by name")
            named[i] = v
        await self._send(message, destination, named[0], named[1], named[2], recipient_list)

    async def publish(self, message: jmsg.Message | Destination, delivery_mode: int | None = None,
                      priority: int | None = None, time_to_live: float | None = None, *,
                      topic: Topic | None = None,
                      recipient_list: Sequence[AQjmsAgent] | None = None) -> None:
        """TopicPublisher.publish (the same as send)."""
        await self.send(message, delivery_mode=delivery_mode, priority=priority,
                        time_to_live=time_to_live, destination=topic, recipient_list=recipient_list)

    async def _send(self, message: jmsg.Message, destination: Destination | None,
                    delivery_mode: int | None, priority: int | None,
                    time_to_live: float | None,
                    recipient_list: Sequence[AQjmsAgent] | None) -> None:
        self._check_open()
        if not isinstance(message, jmsg.Message):
            fail(jerr.MessageFormatException, 133, f"not a JMS message: {type(message).__name__}")
        if destination is not None and self.destination is not None and destination != self.destination:
            fail(jerr.InvalidDestinationException, DESTINATION_REQUIRED,
                 "this producer has a destination: send to it, or make a producer without one")
        dest = destination or self.destination
        if dest is None:
            fail(jerr.InvalidDestinationException, DESTINATION_REQUIRED,
                 "Destination must be specified")
        mode = self.delivery_mode if delivery_mode is None else delivery_mode
        if mode not in (PERSISTENT, NON_PERSISTENT):
            fail(jerr.JMSException, 101, f"Invalid delivery mode {mode!r}")
        compliant = self.session.connection.j2ee_compliant
        prio = compliance.check_priority(self.priority if priority is None else priority, compliant)
        ttl = self.time_to_live if time_to_live is None else time_to_live
        if recipient_list is not None and not recipient_list:
            fail(jerr.JMSException, INVALID_RECIPIENTS, "Invalid recipient list: empty")
        info = await self.session.destination_info(dest)
        if not codec.payload_type_accepts(info.payload_kind, message):
            fail(jerr.MessageFormatException, WRONG_PAYLOAD,
                 f"Messages of type {type(message).__name__} not allowed with Destinations "
                 f"containing payload of type {info.payload_kind}")
        life = round(ttl * 1000) if ttl and ttl > 0 else 0
        message.jms_destination = dest
        message.jms_delivery_mode = mode
        message.jms_priority = prio
        payload, props = codec.to_engine(message, info.payload_kind, time_to_live=life,
                                         recipients=recipient_list)
        props.priority = compliance.to_aq_priority(prio, compliant)
        conn = self.session.connection
        if props.sender_id is None and info.qualified.lower() in conn.no_local_topics:
            props.sender_id = Agent(conn.local_name)  # no_local consumers skip these
        mid = await self.session.send_engine(info.qualified, payload, props,
                                             persistent=mode == PERSISTENT)
        message.jms_message_id = "ID:" + mid
        # JMSTimestamp is the enqueue time (JMS 1.1 3.4.4; Oracle's "JMS Message Headers"),
        # as receivers and selectors read it, not this client's clock; JMSExpiration
        # follows it as this mode's receivers read it
        stamp = codec.enqueue_ms(mid)
        message.jms_timestamp = stamp
        message.jms_expiration = codec.expiration_ms(
            stamp, props.expiration, life, compliant) if life else 0

    async def close(self) -> None:
        self.closed = True
        self.session.forget(self)


QueueSender = MessageProducer
TopicPublisher = MessageProducer
