"""Oracle JMS's two compliance modes: Java EE compliant (Oracle's Java property
oracle.jms.j2eeCompliant=TRUE) and Oracle's default, non-compliant mode; pgaq selects one
with `ConnectionFactory(..., j2ee_compliant=...)` (False by default, as Oracle's).

What differs (Oracle Database Advanced Queuing User's Guide, "JMS Message Headers",
"DurableSubscriber", "Java EE Compliance"; Oracle9i Application Developer's Guide -
Advanced Queuing, "J2EE Compliance"):

- JMSPriority. Non-compliant: AQ's priority itself, any Java int, a smaller number more
  urgent, 1 the default. Compliant: JMS 1.1's 0-9 (3.4.10), 9 the highest, 4 the default;
  it is stored as AQ priority 9 - p so that AQ's priority ordering (smaller first) delivers
  higher JMS priorities first, and an AQ priority outside 0-9 (a PL/SQL enqueue) reads as
  the nearest end of 0-9, keeping the order.
- JMSExpiration. Non-compliant: the enqueue time plus the time to live, as AQ keeps it
  (whole seconds, rounded up); compliant: JMSTimestamp (the enqueue time, ms) plus the
  time to live in ms, which the codec records when AQ's seconds would lose it
  (codec.expiration_ms).
- Durable subscribers. Non-compliant: one name may be active on two topics. Compliant:
  a name is one subscription; on another topic, the client that made it drops the old
  subscription and makes the new one, anyone else gets an error (`claim_durable_name`).

The priority mapping is also in SQL (aq.jms_priority_to_aq, aq.jms_priority_from_aq,
aq.jms_default_priority in R__52_jms_provider.sql) for any other client of the same queues;
tests/integration/jms_priority_vectors.json holds the vectors both are checked against.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import asyncpg

from . import errors as jerr
from ._support import UNSUBSCRIBE_ACTIVE, as_jms, fail

if TYPE_CHECKING:
    from .consumer import MessageConsumer
    from .session import DestinationInfo

JMS_MIN_PRIORITY = 0
JMS_MAX_PRIORITY = 9
COMPLIANT_DEFAULT_PRIORITY = 4  # JMS 1.1 Message.DEFAULT_PRIORITY
NONCOMPLIANT_DEFAULT_PRIORITY = 1  # AQ's default priority, Oracle JMS's non-compliant default
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1  # a Java int, AQ's priority column


def check_flag(value: object) -> bool:
    """The option itself: a bool, never a string that would read as True ("FALSE")."""
    if not isinstance(value, bool):
        fail(jerr.JMSException, 207, f"j2ee_compliant is True or False, not {value!r}")
    return value


def default_priority(compliant: bool) -> int:
    return COMPLIANT_DEFAULT_PRIORITY if compliant else NONCOMPLIANT_DEFAULT_PRIORITY


def check_priority(priority: object, compliant: bool) -> int:
    """The JMS priority a producer may send in this mode, else JMSException."""
    if isinstance(priority, bool) or not isinstance(priority, int):
        fail(jerr.JMSException, 207, f"Invalid priority {priority!r}: an int is expected")
    if compliant and not JMS_MIN_PRIORITY <= priority <= JMS_MAX_PRIORITY:
        fail(jerr.JMSException, 207,
             f"Invalid priority {priority}: 0 (lowest) to 9 (highest) in Java EE compliant "
             "mode (j2ee_compliant=True)")
    if not _INT_MIN <= priority <= _INT_MAX:
        fail(jerr.JMSException, 207,
             f"Invalid priority {priority}: a 32-bit int is expected (AQ's priority; "
             "smaller is more urgent in non-compliant mode)")
    return priority


def to_aq_priority(priority: object, compliant: bool) -> int:
    """The AQ priority to store for a JMS priority (checked)."""
    p = check_priority(priority, compliant)
    return JMS_MAX_PRIORITY - p if compliant else p


def from_aq_priority(aq_priority: int, compliant: bool) -> int:
    """The JMSPriority a consumer reads for a stored AQ priority."""
    if not compliant:
        return aq_priority
    return min(JMS_MAX_PRIORITY, max(JMS_MIN_PRIORITY, JMS_MAX_PRIORITY - aq_priority))


async def claim_durable_name(consumer: MessageConsumer, info: DestinationInfo) -> None:
    """Compliant mode, before the durable subscriber `consumer` subscribes to `info`'s
    topic: its name subscribed on any other topic is dropped there if this connection
    made it (refused while a consumer of it is open, as unsubscribe is), else refused."""
    from ..errors import wrap_db_error
    from ..queries import load

    session = consumer.session
    conn = session.connection
    name = consumer.consumer_name or ""
    here = info.qualified.lower()
    try:
        async with conn.pool.acquire() as c:
            rows = await c.fetch(load("jms_subscriptions"), name)
            for row in rows:
                there = f"{row['schema_name']}.{row['queue_name']}"
                if there.lower() == here:
                    continue
                if there.lower() not in conn.durable_made.get(name.upper(), set()):
                    fail(jerr.JMSException, 207,
                         f"durable subscriber name {name!r} is in use on {there}, not made "
                         "by this connection: in Java EE compliant mode a name is one "
                         "subscription (unsubscribe it there first)")
                for other in session._connection_consumers():
                    if (other is not consumer and other.durable and not other.closed
                            and (other.consumer_name or "").upper() == name.upper()):
                        fail(jerr.IllegalStateException, UNSUBSCRIBE_ACTIVE,
                             f"durable subscriber {name!r} is active on {there}: close it "
                             "before subscribing the name to another topic")
                await c.execute("CALL dbms_aqadm.remove_subscriber(queue_name => $1, "
                                "subscriber => sys.aq$_agent($2, NULL, NULL))", there, name)
                conn.durable_made[name.upper()].discard(there.lower())
    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
        raise as_jms(wrap_db_error(exc)) from exc


def durable_made(consumer: MessageConsumer, info: DestinationInfo) -> None:
    """Remember that this connection made (or took up) the durable name on this topic."""
    conn = consumer.session.connection
    conn.durable_made.setdefault((consumer.consumer_name or "").upper(), set()).add(
        info.qualified.lower())
