"""What the runtime modules share: Oracle's JMS error codes, the mapping of library errors
to JMS exceptions, and the constants of acknowledge modes.

The codes are those of Oracle's `AQjmsError` (`JMS-131: Session is closed`, ...), so an
application that logs or matches them keeps doing so after the port.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, NoReturn, TypeVar

from ..errors import ConnectionLost, PgaqError
from . import errors as jerr

T = TypeVar("T")

# javax.jms.Session's acknowledge modes (the same numbers as Java's)
SESSION_TRANSACTED = 0
AUTO_ACKNOWLEDGE = 1
CLIENT_ACKNOWLEDGE = 2
DUPS_OK_ACKNOWLEDGE = 3
ACK_MODES = (AUTO_ACKNOWLEDGE, CLIENT_ACKNOWLEDGE, DUPS_OK_ACKNOWLEDGE)

# Oracle's navigation modes (AQjmsConstants.NAVIGATION_*, the numbers of OCI's
# OCI_DEQ_FIRST_MSG, OCI_DEQ_NEXT_TRANSACTION, OCI_DEQ_NEXT_MSG)
NAVIGATION_FIRST_MESSAGE = 1
NAVIGATION_NEXT_TRANSACTION = 2
NAVIGATION_NEXT_MESSAGE = 3
NAVIGATION_NAMES: dict[int | None, str] = {
    NAVIGATION_FIRST_MESSAGE: "FIRST_MESSAGE",
    NAVIGATION_NEXT_TRANSACTION: "NEXT_TRANSACTION",
    NAVIGATION_NEXT_MESSAGE: "NEXT_MESSAGE",
}

# Oracle's AQjmsError numbers used by the runtime
CONNECTION_STOPPED = 113
CONNECTION_CLOSED = 114
CONSUMER_CLOSED = 115
SUBSCRIBER_NAME_REQUIRED = 116
INVALID_TOPIC = 126
INVALID_DESTINATION = 127
INVALID_QUEUE = 125
SESSION_CLOSED = 131
PRODUCER_CLOSED = 138
INVALID_RECIPIENTS = 145
INVALID_SELECTOR = 159
WRONG_PAYLOAD = 108
DESTINATION_REQUIRED = 200
CONNECTION_UNAVAILABLE = 220
COMMIT_NOT_TRANSACTED = 227
ROLLBACK_NOT_TRANSACTED = 228
UNSUBSCRIBE_ACTIVE = 230
WRONG_DOMAIN = 234
UNSUBSCRIBE_UNKNOWN = 235
RECOVER_TRANSACTED = 238
CLIENT_ID_LATE = 240
LISTENER_SET = 198
NOT_SUBSCRIBED = 107  # "Operation not allowed on {0}": a topic subscriber never awaited


def make(cls: type[jerr.JMSException], code: int, text: str,
         linked: BaseException | None = None) -> jerr.JMSException:
    """A JMS exception carrying Oracle's `JMS-nnn` code as `error_code`."""
    return cls(text, f"JMS-{code}", linked)


def lost_connection(exc: jerr.JMSException) -> bool:
    """Whether `exc` reports a lost database connection (JMS-220), which a wait outlives."""
    return exc.error_code == f"JMS-{CONNECTION_UNAVAILABLE}" or isinstance(
        exc.linked_exception, ConnectionLost)


def fail(cls: type[jerr.JMSException], code: int, text: str) -> NoReturn:
    raise make(cls, code, text)


def as_jms(exc: BaseException) -> jerr.JMSException:
    """A library error as the JMS exception an application expects (ORA code kept)."""
    if isinstance(exc, jerr.JMSException):
        return exc
    if isinstance(exc, PgaqError):
        return jerr.from_pgaq_error(exc)
    return make(jerr.JMSException, 122, f"internal error: {exc!r}", exc)


@asynccontextmanager
async def translated() -> AsyncIterator[None]:
    """Library errors leave the JMS API as JMS exceptions, their cause kept."""
    try:
        yield
    except jerr.JMSException:
        raise
    except PgaqError as exc:
        raise as_jms(exc) from exc


async def call(fn: Callable[..., Any], *args: Any) -> None:
    """Call a listener that may be a plain function or a coroutine function."""
    result = fn(*args)
    if isinstance(result, Awaitable):
        await result
