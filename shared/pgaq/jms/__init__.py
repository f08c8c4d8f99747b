"""`pgaq.jms`: Oracle JMS (AQjms; Oracle Database Advanced Queuing User's Guide,
"Introduction to Oracle Java Message Service") for Python applications, name for name in
snake_case, over pgaq's engine and PostgreSQL.

    import pgaq.jms as jms
    factory = jms.ConnectionFactory(dsn)
    async with await factory.create_connection() as conn:
        session = conn.create_session(False, jms.AUTO_ACKNOWLEDGE)
        queue = session.get_queue("shop", "orders_q")
        await session.create_producer(queue).send(session.create_text_message("hello"))
        consumer = await session.create_consumer(queue)
        await conn.start()
        msg = await consumer.receive(5.0)

`pgaq.jms.blocking` has the same names as plain (synchronous) methods.
"""

from __future__ import annotations

from . import blocking
from ._support import (
    AUTO_ACKNOWLEDGE,
    CLIENT_ACKNOWLEDGE,
    DUPS_OK_ACKNOWLEDGE,
    NAVIGATION_FIRST_MESSAGE,
    NAVIGATION_NEXT_MESSAGE,
    NAVIGATION_NEXT_TRANSACTION,
    SESSION_TRANSACTED,
)
from .admin import QueueTable
from .browser import QueueBrowser, TopicBrowser
from .connection import Connection, ConnectionMetaData
from .consumer import MessageConsumer, QueueReceiver, TopicReceiver, TopicSubscriber
from .destination import AQjmsAgent, Destination, Queue, TemporaryQueue, TemporaryTopic, Topic
from .errors import (
    IllegalArgumentException,
    IllegalStateException,
    InvalidClientIDException,
    InvalidDestinationException,
    InvalidSelectorException,
    JMSException,
    JMSSecurityException,
    MessageEOFException,
    MessageFormatException,
    MessageNotReadableException,
    MessageNotWriteableException,
    NumberFormatException,
    ResourceAllocationException,
    TransactionInProgressException,
    TransactionRolledBackException,
    from_pgaq_error,
)
from .factory import ConnectionFactory, QueueConnectionFactory, TopicConnectionFactory
from .message import (
    DEFAULT_DELIVERY_MODE,
    DEFAULT_PRIORITY,
    DEFAULT_TIME_TO_LIVE,
    NON_PERSISTENT,
    PERSISTENT,
    AdtMessage,
    BytesMessage,
    MapMessage,
    Message,
    ObjectMessage,
    StreamMessage,
    TextMessage,
)
from .producer import MessageProducer, QueueSender, TopicPublisher
from .serializers import JsonSerializer, PickleSerializer, Serializer
from .session import DestinationInfo, Session

# Oracle's names for the same classes (AQjms*), so ported code keeps its imports' shape
AQjmsFactory = ConnectionFactory
AQjmsConnection = Connection
AQjmsSession = Session
AQjmsProducer = MessageProducer
AQjmsConsumer = MessageConsumer
AQjmsQueueBrowser = QueueBrowser
AQjmsException = JMSException
AQjmsMessage = Message
AQjmsTextMessage = TextMessage
AQjmsBytesMessage = BytesMessage
AQjmsMapMessage = MapMessage
AQjmsStreamMessage = StreamMessage
AQjmsObjectMessage = ObjectMessage
AQjmsAdtMessage = AdtMessage
QueueConnection = Connection
TopicConnection = Connection
QueueSession = Session
TopicSession = Session

__all__ = [
    "AUTO_ACKNOWLEDGE", "CLIENT_ACKNOWLEDGE", "DEFAULT_DELIVERY_MODE", "DEFAULT_PRIORITY",
    "DEFAULT_TIME_TO_LIVE", "DUPS_OK_ACKNOWLEDGE", "NAVIGATION_FIRST_MESSAGE",
    "NAVIGATION_NEXT_MESSAGE", "NAVIGATION_NEXT_TRANSACTION", "NON_PERSISTENT", "PERSISTENT",
    "SESSION_TRANSACTED",
    "AQjmsAdtMessage", "AQjmsAgent", "AQjmsBytesMessage", "AQjmsConnection", "AQjmsConsumer",
    "AQjmsException", "AQjmsFactory", "AQjmsMapMessage", "AQjmsMessage", "AQjmsObjectMessage",
    "AQjmsProducer", "AQjmsQueueBrowser", "AQjmsSession", "AQjmsStreamMessage",
    "AQjmsTextMessage",
    "AdtMessage", "BytesMessage", "Connection", "ConnectionFactory", "ConnectionMetaData",
    "Destination", "DestinationInfo", "IllegalArgumentException", "IllegalStateException",
    "InvalidClientIDException", "InvalidDestinationException", "InvalidSelectorException",
    "JMSException", "JMSSecurityException", "JsonSerializer", "MapMessage", "Message",
    "MessageConsumer", "MessageEOFException", "MessageFormatException",
    "MessageNotReadableException", "MessageNotWriteableException", "MessageProducer",
    "NumberFormatException", "ObjectMessage", "PickleSerializer", "Queue", "QueueBrowser",
    "QueueConnection", "QueueConnectionFactory", "QueueReceiver", "QueueSender",
    "QueueSession", "QueueTable", "ResourceAllocationException", "Serializer", "Session",
    "StreamMessage", "TemporaryQueue", "TemporaryTopic", "TextMessage", "Topic",
    "TopicBrowser", "TopicConnection",
    "TopicConnectionFactory", "TopicPublisher", "TopicReceiver", "TopicSession",
    "TopicSubscriber", "TransactionInProgressException", "TransactionRolledBackException",
    "blocking", "from_pgaq_error",
]
