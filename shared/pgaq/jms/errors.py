"""JMS exceptions, each carrying Oracle's error code as `error_code`.

Oracle JMS (AQjms) reports its own refusals as ``JMS-nnn`` and the database's as the
``ORA-nnnnn`` it raised; Oracle Database Advanced Queuing User's Guide, "Introduction to
Oracle Java Message Service", names no numbers, so the ``JMS-nnn`` values are those of
Oracle's AQjmsError class (for example JMS-108 "Messages of type X not allowed with
Destinations containing payload of type Y", JMS-117 "Conversion failed - invalid property
type", JMS-160 EOF, JMS-161 MessageFormat, JMS-162 not readable, JMS-163 not writeable).
Every JMS exception is a `pgaq.errors.PgaqError`, so code that catches the library's root
catches these too; `.code` holds the ORA number when the error came from the database.
"""

from __future__ import annotations

from ..errors import ConnectionLost, EndOfFetch, PgaqError, ora_code

__all__ = [
    "IllegalArgumentException", "IllegalStateException", "InvalidClientIDException",
    "InvalidDestinationException", "InvalidSelectorException", "JMSException",
    "JMSSecurityException", "MessageEOFException", "MessageFormatException",
    "MessageNotReadableException", "MessageNotWriteableException", "NumberFormatException",
    "ResourceAllocationException", "TransactionInProgressException",
    "TransactionRolledBackException", "from_pgaq_error",
]


class JMSException(PgaqError):
    """Root of the JMS exceptions: `error_code` ("JMS-nnn" or "ORA-nnnnn") and the
    `linked_exception` that caused it (JMS 1.1's getErrorCode/getLinkedException)."""

    default_code = "JMS-207"  # AQjmsError: "JMS Exception {0}"

    def __init__(self, reason: str, error_code: str | None = None,
                 linked_exception: BaseException | None = None) -> None:
        code = error_code or self.default_code
        text = reason if reason.startswith(code) else f"{code}: {reason}"
        ora = ora_code(code) if code.startswith("ORA-") else None
        sqlstate = getattr(linked_exception, "sqlstate", None)
        super().__init__(text, ora, sqlstate if isinstance(sqlstate, str) else None)
        self.reason = reason
        self.error_code = code
        self.linked_exception = linked_exception
        if linked_exception is not None:
            self.__cause__ = linked_exception

    def get_error_code(self) -> str:
        return self.error_code

    def get_linked_exception(self) -> BaseException | None:
        return self.linked_exception

    def set_linked_exception(self, exc: BaseException | None) -> None:
        self.linked_exception = exc
        self.__cause__ = exc


class IllegalStateException(JMSException):
    """A method called at a time or in a state that does not allow it (closed session,
    commit on a non-transacted session, acknowledge of a message no session delivered)."""

    default_code = "JMS-107"  # "Operation not allowed on {0}"


class InvalidSelectorException(JMSException):
    """A message selector with a syntax or type error."""

    default_code = "JMS-159"  # "Invalid selector {0}"


class InvalidDestinationException(JMSException):
    """A destination the provider does not know or cannot use."""

    default_code = "JMS-125"  # "Invalid Queue specified"


class InvalidClientIDException(JMSException):
    """A client id refused by the provider."""

    default_code = "JMS-207"


class MessageFormatException(JMSException):
    """A value of the wrong type: a conversion the tables forbid, a body type the
    destination's payload type cannot hold, a value outside its Java type's range."""

    default_code = "JMS-161"  # "MessageFormat Exception: {0}"


class NumberFormatException(MessageFormatException, ValueError):
    """Java's NumberFormatException: a string (or a missing value, read as null) that does
    not parse as the number asked for. JMS raises java.lang.NumberFormatException here, which
    is no JMSException; pgaq raises this, both a MessageFormatException (so JMS code catching
    conversion failures catches it) and a ValueError (as Python code expects)."""

    default_code = "JMS-117"  # "Conversion failed - invalid property type"


class IllegalArgumentException(JMSException, ValueError):
    """Java's IllegalArgumentException: a property or map name that is null, empty, not an
    identifier or a selector keyword, a byte range outside the array. Also a ValueError."""

    default_code = "JMS-139"  # "Property name must be specified"


class MessageNotReadableException(JMSException):
    """A read of a message body that is write-only."""

    default_code = "JMS-162"  # "Message not Readable"


class MessageNotWriteableException(JMSException):
    """A write to a body or properties that are read-only (a received message before
    clear_body/clear_properties), or to a property only the provider sets."""

    default_code = "JMS-163"  # "Message not Writeable"


class MessageEOFException(JMSException):
    """A read past the end of a BytesMessage or StreamMessage body."""

    default_code = "JMS-160"  # "EOF Exception {0}"


class TransactionRolledBackException(JMSException):
    """The transaction could not commit and was rolled back (serialization failure,
    deadlock, a lost connection during commit)."""

    default_code = "JMS-207"


class TransactionInProgressException(JMSException):
    """An operation not allowed while a transaction is in progress."""

    default_code = "JMS-207"


class JMSSecurityException(JMSException):
    """Authentication or authorisation refused (ORA-01031, a bad user or password)."""

    default_code = "JMS-232"  # "An invalid user/password was specified for the JMS connection"


class ResourceAllocationException(JMSException):
    """The provider could not allocate a resource (pool exhausted, flow control)."""

    default_code = "JMS-221"  # "Free physical database connection unavailable in connection pool"


# ORA numbers (docs/errors.md) and the JMS exception each becomes
_BY_ORA: dict[int, type[JMSException]] = {
    24010: InvalidDestinationException,   # the queue does not exist
    24002: InvalidDestinationException,   # the queue table does not exist
    25200: InvalidDestinationException,   # not a [schema.]name
    1918: InvalidDestinationException,    # the schema does not exist
    936: InvalidSelectorException,        # syntax error in a selector
    904: InvalidSelectorException,        # unknown identifier in a selector
    909: InvalidSelectorException,
    932: InvalidSelectorException,        # type error in a selector
    1031: JMSSecurityException,           # insufficient privileges
    25215: MessageFormatException,        # payload does not match the queue's type
    1482: MessageFormatException,         # a string PostgreSQL text cannot hold
    25307: ResourceAllocationException,   # flow control
    24951: ResourceAllocationException,   # too many registrations
    25293: IllegalStateException,         # buffered message inside a transaction
    25401: ResourceAllocationException,
    25402: ResourceAllocationException,
}
# PostgreSQL SQLSTATEs that mean the transaction was rolled back
_ROLLED_BACK = ("40001", "40P01", "40000", "40002", "40003")


def from_pgaq_error(exc: BaseException) -> JMSException:
    """The JMS exception for a library (or driver) error, the error kept as its
    linked exception and cause; a JMSException is returned as it is."""
    if isinstance(exc, JMSException):
        return exc
    if isinstance(exc, PgaqError):
        code = exc.code if exc.code is not None else ora_code(exc.message)
        message = exc.message
        sqlstate = exc.sqlstate
    else:
        message = str(exc) or type(exc).__name__
        code = ora_code(message)
        raw_state = getattr(exc, "sqlstate", None)
        sqlstate = raw_state if isinstance(raw_state, str) else None
    error_code = f"ORA-{code:05d}" if code is not None else None
    cls: type[JMSException]
    if sqlstate in _ROLLED_BACK:
        cls = TransactionRolledBackException
    elif isinstance(exc, ConnectionLost):
        cls, error_code = JMSException, error_code or "JMS-220"  # "Connection no longer available"
    elif isinstance(exc, EndOfFetch):
        cls = JMSException
    elif code is not None and code in _BY_ORA:
        cls = _BY_ORA[code]
    elif sqlstate == "42501":
        cls = JMSSecurityException
    else:
        cls = JMSException
    return cls(message, error_code, exc)
