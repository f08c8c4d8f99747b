"""JMS messages (Oracle Database Advanced Queuing User's Guide, "Introduction to Oracle Java
Message Service", "Structured Payload/Message Types in JMS"), names in snake_case.

A message is a header (JMS 1.1 section 3.4, as Python properties: `jms_message_id`,
`jms_priority`...), typed properties (3.5, with 3.5.4's conversions) and a body of one of the
Oracle JMS guide's kinds: Text, Bytes, Map, Stream, Object, or Adt for object-typed queues.
`pgaq.jms.codec` maps them to and from what the engine stores (sys.aq$_jms_* values).

Java's null reads of a property or map item: get_boolean -> False, get_string/get_object ->
None, a numeric get -> NumberFormatException (a MessageFormatException and a ValueError: Java
raises java.lang.NumberFormatException, Integer.valueOf(null)). A received message's
properties and body are read-only until clear_properties()/clear_body().
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from . import _values as V
from .destination import AQjmsAgent, Destination
from .errors import (
    IllegalArgumentException,
    IllegalStateException,
    JMSException,
    MessageEOFException,
    MessageFormatException,
    MessageNotReadableException,
    MessageNotWriteableException,
)
from .serializers import JsonSerializer, PickleSerializer, Serializer

# the `x as x` re-exports: the wire functions lived here once, callers may import them here
from .wire import STRUCTS
from .wire import decode_modified_utf8 as decode_modified_utf8
from .wire import decode_stream as decode_stream
from .wire import encode_modified_utf8 as encode_modified_utf8
from .wire import encode_stream as encode_stream

if TYPE_CHECKING:
    from ..client import Message as EngineMessage

__all__ = [
    "DEFAULT_DELIVERY_MODE",
    "DEFAULT_PRIORITY",
    "DEFAULT_TIME_TO_LIVE",
    "NON_PERSISTENT",
    "PERSISTENT",
    "AdtMessage",
    "BytesMessage",
    "JsonSerializer",
    "MapMessage",
    "Message",
    "ObjectMessage",
    "PickleSerializer",
    "Serializer",
    "StreamMessage",
    "TextMessage",
]

# JMS's DeliveryMode values (Oracle JMS guide, table 11-3: Oracle JMS PERSISTENT := 2,
# NON_PERSISTENT := 1)
PERSISTENT = 2
NON_PERSISTENT = 1
DEFAULT_DELIVERY_MODE = PERSISTENT
DEFAULT_PRIORITY = 4
DEFAULT_TIME_TO_LIVE = 0

# JMSXState values (JMS 1.1 table 3-3; the Oracle JMS guide's "JMS Message Properties" names
# the states)
JMSX_STATE = {"WAITING": 1, "WAIT": 1, "READY": 2, "EXPIRED": 3, "PROCESSED": 4, "RETAINED": 4}

# Properties JMS or Oracle define: name -> (Java type, the client may set it on
# Text/Bytes/Map/Stream/Object messages, the client may set it on an AdtMessage), as the
# Oracle JMS guide's "Using Message Properties with Different Message Types" lists them; the
# others are the provider's, read-only to the client.
SPECIAL_PROPERTIES: dict[str, tuple[str, bool, bool]] = {
    "JMSXUserID": ("string", False, False),
    "JMSXAppID": ("string", True, False),
    "JMSXDeliveryCount": ("int", False, False),
    "JMSXGroupID": ("string", True, False),
    "JMSXGroupSeq": ("int", True, False),
    "JMSXRcvTimestamp": ("long", False, False),
    "JMSXState": ("int", False, False),
    "JMS_OracleExcpQ": ("string", True, True),
    "JMS_OracleDelay": ("int", True, True),
    "JMS_OracleOriginalMessageID": ("string", False, False),
}
# the Oracle JMS guide's other spellings of the same properties
ALIASES = {
    "JMSXGroupid": "JMSXGroupID", "JMSXuserID": "JMSXUserID",
    "JMSXRcvTimeStamp": "JMSXRcvTimestamp", "JMSXRecvTimeStamp": "JMSXRcvTimestamp",
    "JMSXRecvTimestamp": "JMSXRcvTimestamp",
    "JMS_OracleOriginalMessageId": "JMS_OracleOriginalMessageID",
}
# selector words a property name cannot be (JMS 1.1 3.8.1.1)
RESERVED = frozenset({"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN",
                      "IS", "ESCAPE"})
_PROPERTY_ALLOWED = {k: v - {"char", "bytes"} for k, v in V.ALLOWED.items()
                     if k in V.PROPERTY_KINDS}


def check_property_name(name: object) -> str:
    """The canonical name of a property name a client may use; IllegalArgumentException for
    one that is empty, not a Java identifier or a selector keyword."""
    if not isinstance(name, str) or not name:
        raise IllegalArgumentException("a property name must be a non-empty string")
    first, rest = name[0], name[1:]
    if not (first.isalpha() or first in "_$") or not all(c.isalnum() or c in "_$" for c in rest):
        raise IllegalArgumentException(f"property name {name[:60]!r} is not a Java identifier",
                                       "JMS-119")
    if name.upper() in RESERVED:
        raise IllegalArgumentException(f"property name {name!r} is a selector keyword", "JMS-119")
    return ALIASES.get(name, name)


def is_user_property(name: str) -> bool:
    """A name the application owns: not JMS*, except other providers' JMS_<vendor>_* names
    (the selector reads those as user properties too)."""
    return not name.startswith("JMS") or (name.startswith("JMS_") and not name.startswith("JMS_Oracle"))


class Message:
    """A JMS message with no body (Session.create_message), and the header and properties of
    every other kind."""

    body_kind: str | None = None  # the engine's payload kind of this body (codec)

    def __init__(self) -> None:
        self._message_id: str | None = None
        self._timestamp = 0
        self._correlation_id: str | None = None
        self._reply_to: Destination | AQjmsAgent | None = None
        self._type: str | None = None
        self._delivery_mode = PERSISTENT
        self._expiration = 0
        self._redelivered = False
        self._priority = DEFAULT_PRIORITY
        self._destination: Destination | None = None
        self._properties: dict[str, tuple[str, Any]] = {}
        self._properties_read_only = False
        self._body_read_only = False
        # set by the runtime: the session's acknowledgement, the engine message this was
        # read from
        self._acknowledger: Callable[[], Awaitable[None]] | None = None
        self._engine_message: EngineMessage | None = None
        self._sender: AQjmsAgent | None = None  # set_sender_id's

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._message_id or '(unsent)'}>"

    # -- header ---------------------------------------------------------------------------
    @property
    def jms_message_id(self) -> str | None:
        """"ID:" and the message id's 32 hex digits; None before the send."""
        return self._message_id

    @jms_message_id.setter
    def jms_message_id(self, value: str | None) -> None:
        self._message_id = _optional_str(value, "JMSMessageID")

    @property
    def jms_timestamp(self) -> int:
        """When the message was handed to the provider: ms since the epoch (the enqueue time)."""
        return self._timestamp

    @jms_timestamp.setter
    def jms_timestamp(self, value: int) -> None:
        self._timestamp = _int(value, "JMSTimestamp")

    @property
    def jms_correlation_id(self) -> str | None:
        return self._correlation_id

    @jms_correlation_id.setter
    def jms_correlation_id(self, value: str | None) -> None:
        self._correlation_id = _optional_str(value, "JMSCorrelationID")

    def get_jms_correlation_id_as_bytes(self) -> bytes | None:
        return None if self._correlation_id is None else self._correlation_id.encode("utf-8")

    def set_jms_correlation_id_as_bytes(self, value: bytes | None) -> None:
        self._correlation_id = None if value is None else bytes(value).decode("utf-8", "surrogateescape")

    @property
    def jms_reply_to(self) -> Destination | AQjmsAgent | None:
        """Where a reply goes: a Queue, a Topic or an AQjmsAgent (Oracle JMS guide, "JMSReplyTo")."""
        return self._reply_to

    @jms_reply_to.setter
    def jms_reply_to(self, value: Destination | AQjmsAgent | None) -> None:
        if value is not None and not isinstance(value, (Destination, AQjmsAgent)):
            raise JMSException("JMSReplyTo is a Queue, a Topic or an AQjmsAgent", "JMS-147")
        self._reply_to = value

    @property
    def jms_type(self) -> str | None:
        return self._type

    @jms_type.setter
    def jms_type(self, value: str | None) -> None:
        self._type = _optional_str(value, "JMSType")

    @property
    def jms_delivery_mode(self) -> int:
        """PERSISTENT (2) or NON_PERSISTENT (1, AQ's buffered messages)."""
        return self._delivery_mode

    @jms_delivery_mode.setter
    def jms_delivery_mode(self, value: int) -> None:
        if value not in (PERSISTENT, NON_PERSISTENT) or isinstance(value, bool):
            raise JMSException(f"invalid delivery mode {value!r}: PERSISTENT (2) or "
                               "NON_PERSISTENT (1)", "JMS-101")
        self._delivery_mode = value

    @property
    def jms_expiration(self) -> int:
        """When the message expires, ms since the epoch; 0: never."""
        return self._expiration

    @jms_expiration.setter
    def jms_expiration(self, value: int) -> None:
        self._expiration = _int(value, "JMSExpiration")

    @property
    def jms_redelivered(self) -> bool:
        return self._redelivered

    @jms_redelivered.setter
    def jms_redelivered(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise MessageFormatException("JMSRedelivered is a bool", "JMS-117")
        self._redelivered = value

    @property
    def jms_priority(self) -> int:
        """The JMS priority: in Oracle JMS's default, non-compliant mode AQ's priority as it
        is (smaller is more urgent); with j2ee_compliant, 0-9 with 9 the highest (stored
        as AQ priority 9 - p: pgaq.jms.compliance). JMSPriority in a selector is the
        stored AQ priority in both modes."""
        return self._priority

    @jms_priority.setter
    def jms_priority(self, value: int) -> None:
        self._priority = _int(value, "JMSPriority")

    @property
    def jms_destination(self) -> Destination | None:
        return self._destination

    @jms_destination.setter
    def jms_destination(self, value: Destination | None) -> None:
        if value is not None and not isinstance(value, Destination):
            raise JMSException("JMSDestination is a Queue or a Topic", "JMS-125")
        self._destination = value

    # -- Oracle's extensions --------------------------------------------------------------
    def get_sender_id(self) -> AQjmsAgent | None:
        """The sender agent (Oracle's AQjmsMessage.getSenderID): the one set with
        set_sender_id, else the one the database recorded on a received message."""
        if self._sender is not None:
            return self._sender
        got = self._engine_message.sender_id if self._engine_message is not None else None
        return None if got is None else AQjmsAgent.from_engine(got)

    def set_sender_id(self, sender: AQjmsAgent | None) -> None:
        """The sender agent a send records (Oracle's AQjmsMessage.setSenderID; AQ's
        sender_id). A received message sent on keeps only a sender set here: a forwarded
        message is the forwarder's."""
        if sender is not None and not isinstance(sender, AQjmsAgent):
            raise IllegalArgumentException("a sender id is an AQjmsAgent")
        self._sender = sender

    # -- properties -----------------------------------------------------------------------
    def _settable(self, name: str) -> str:
        canon = check_property_name(name)
        if self._properties_read_only:
            raise MessageNotWriteableException(
                "the properties of a received message are read-only until clear_properties()")
        special = SPECIAL_PROPERTIES.get(canon)
        if special is not None:
            if not (special[2] if isinstance(self, AdtMessage) else special[1]):
                raise MessageNotWriteableException(f"JMS-110: Property {canon} not writeable",
                                                   "JMS-110")
        elif not is_user_property(canon):
            raise IllegalArgumentException(
                f"{canon!r}: names starting with JMS are JMS's and Oracle's (not a property "
                "a client sets)", "JMS-150")
        elif isinstance(self, AdtMessage):
            raise JMSException(f"an AdtMessage carries no user properties ({canon!r}): only "
                               "JMS_OracleExcpQ and JMS_OracleDelay", "JMS-150")
        return canon

    def _set_property(self, name: str, kind: str, value: Any) -> None:
        canon = self._settable(name)
        value = V.check(kind, value)
        special = SPECIAL_PROPERTIES.get(canon)
        if special is not None and special[0] != kind:
            target = special[0]
            if kind in V.INT_BITS and target in V.INT_BITS:
                value = V.check(target, value)
            else:
                value = V.convert(kind, value, target, _PROPERTY_ALLOWED)
            kind = target
        self._properties.pop(canon, None)  # a set moves the property to the end, as IDAP's seq
        self._properties[canon] = (kind, value)

    def _provider_property(self, name: str, kind: str, value: Any) -> None:
        """Set a property only the provider sets (the codec's JMSXDeliveryCount...)."""
        self._properties[name] = (kind, value)

    def _get_property(self, name: str, target: str) -> Any:
        if not isinstance(name, str) or not name:
            raise IllegalArgumentException("a property name must be a non-empty string")
        kind, value = self._properties.get(ALIASES.get(name, name), ("string", None))
        return V.convert(kind, value, target, _PROPERTY_ALLOWED)

    def set_boolean_property(self, name: str, value: bool) -> None:
        self._set_property(name, "boolean", value)

    def set_byte_property(self, name: str, value: int) -> None:
        self._set_property(name, "byte", value)

    def set_short_property(self, name: str, value: int) -> None:
        self._set_property(name, "short", value)

    def set_int_property(self, name: str, value: int) -> None:
        self._set_property(name, "int", value)

    def set_long_property(self, name: str, value: int) -> None:
        self._set_property(name, "long", value)

    def set_float_property(self, name: str, value: float) -> None:
        self._set_property(name, "float", value)

    def set_double_property(self, name: str, value: float) -> None:
        self._set_property(name, "double", value)

    def set_string_property(self, name: str, value: str | None) -> None:
        self._set_property(name, "string", value)

    def set_object_property(self, name: str, value: bool | int | float | str) -> None:
        """bool -> boolean, int -> int (long beyond 32 bits), float -> double, str -> String;
        anything else (bytes, None, a list) is a MessageFormatException, as in JMS."""
        if value is None:
            raise MessageFormatException("a property value cannot be null", "JMS-118")
        kind = V.kind_of_object(value)
        if kind not in V.PROPERTY_KINDS:
            raise MessageFormatException(f"a {V.JAVA_NAMES[kind]} cannot be a property value",
                                         "JMS-117")
        self._set_property(name, kind, value)

    def get_boolean_property(self, name: str) -> bool:
        return bool(self._get_property(name, "boolean"))

    def get_byte_property(self, name: str) -> int:
        return int(self._get_property(name, "byte"))

    def get_short_property(self, name: str) -> int:
        return int(self._get_property(name, "short"))

    def get_int_property(self, name: str) -> int:
        return int(self._get_property(name, "int"))

    def get_long_property(self, name: str) -> int:
        return int(self._get_property(name, "long"))

    def get_float_property(self, name: str) -> float:
        return float(self._get_property(name, "float"))

    def get_double_property(self, name: str) -> float:
        return float(self._get_property(name, "double"))

    def get_string_property(self, name: str) -> str | None:
        value = self._get_property(name, "string")
        return None if value is None else str(value)

    def get_object_property(self, name: str) -> bool | int | float | str | None:
        """The value as it was set (bool, int, float or str); None when there is none."""
        if not isinstance(name, str) or not name:
            raise IllegalArgumentException("a property name must be a non-empty string")
        got = self._properties.get(ALIASES.get(name, name))
        return None if got is None else got[1]

    def get_property_type(self, name: str) -> str | None:
        """The Java type a property holds ("int", "String"...): what a port of
        `getObjectProperty(n) instanceof Integer` asks."""
        got = self._properties.get(ALIASES.get(name, name))
        return None if got is None else V.JAVA_NAMES[got[0]]

    def property_exists(self, name: str) -> bool:
        return ALIASES.get(name, name) in self._properties

    def get_property_names(self) -> list[str]:
        """User properties and the JMSX/JMS_Oracle ones that have a value, in the order set."""
        return list(self._properties)

    def clear_properties(self) -> None:
        """Remove every property; they become writable again (headers and body stay)."""
        self._properties.clear()
        self._properties_read_only = False

    # -- body -----------------------------------------------------------------------------
    def clear_body(self) -> None:
        """Empty the body and make it writable (a no-op on a header-only message)."""
        self._body_read_only = False

    def _writable(self) -> None:
        if self._body_read_only:
            raise MessageNotWriteableException(
                "the body is read-only (a received message, or reset() was called): "
                "clear_body() first")

    def _set_read_only(self) -> None:
        """As a received message: properties and body read-only (the codec calls this)."""
        self._properties_read_only = True
        self._body_read_only = True

    async def acknowledge(self) -> None:
        """Acknowledge this and every message the session consumed before it
        (CLIENT_ACKNOWLEDGE); what it does is the session's."""
        if self._acknowledger is None:
            raise IllegalStateException("this message was not received through a session that "
                                        "acknowledges (nothing to acknowledge)")
        await self._acknowledger()


def _optional_str(value: object, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise MessageFormatException(f"{what} is a str, not {type(value).__name__}", "JMS-117")
    return value


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MessageFormatException(f"{what} is an int, not {type(value).__name__}", "JMS-117")
    return value


class TextMessage(Message):
    """A string body (sys.aq$_jms_text_message)."""

    body_kind = "JMS_TEXT"

    def __init__(self, text: str | None = None) -> None:
        super().__init__()
        self._text = _optional_str(text, "the text")

    @property
    def text(self) -> str | None:
        return self._text

    @text.setter
    def text(self, value: str | None) -> None:
        self._writable()
        self._text = _optional_str(value, "the text")

    def get_text(self) -> str | None:
        return self._text

    def set_text(self, value: str | None) -> None:
        self.text = value

    def clear_body(self) -> None:
        super().clear_body()
        self._text = None


# -- BytesMessage: java.io.DataOutputStream's encoding (layouts in pgaq.jms.wire) -----------
class _ReadWriteBody(Message):
    """Bytes and Stream bodies: write-only until reset(), read-only after it (JMS 1.1 3.11.3)."""

    def _readable(self) -> None:
        if not self._body_read_only:
            raise MessageNotReadableException(
                "the body is write-only: call reset() before reading")

    def reset(self) -> None:
        """Make the body read-only and go back to its start."""
        self._body_read_only = True
        self._rewind()

    def _rewind(self) -> None:
        raise NotImplementedError


class BytesMessage(_ReadWriteBody):
    """A stream of bytes written and read as java.io.DataOutputStream/DataInputStream do
    (big-endian; write_utf in modified UTF-8 behind a 2-byte length)."""

    body_kind = "JMS_BYTES"

    def __init__(self, data: bytes | None = None) -> None:
        super().__init__()
        self._buf = bytearray(data or b"")
        self._pos = 0

    def _rewind(self) -> None:
        self._pos = 0

    def clear_body(self) -> None:
        super().clear_body()
        self._buf = bytearray()
        self._pos = 0

    def get_body_length(self) -> int:
        """The body's length in bytes (read-only mode only, as in JMS)."""
        self._readable()
        return len(self._buf)

    def _body(self) -> bytes:
        return bytes(self._buf)

    # writing
    def _put(self, fmt: str, kind: str, value: Any) -> None:
        self._writable()
        self._buf += STRUCTS[fmt].pack(V.check(kind, value))

    def write_boolean(self, value: bool) -> None:
        self._writable()
        self._buf.append(1 if V.check("boolean", value) else 0)

    def write_byte(self, value: int) -> None:
        self._put("byte", "byte", value)

    def write_short(self, value: int) -> None:
        self._put("short", "short", value)

    def write_char(self, value: str) -> None:
        self._writable()
        self._buf += STRUCTS["ushort"].pack(ord(V.check("char", value)))

    def write_int(self, value: int) -> None:
        self._put("int", "int", value)

    def write_long(self, value: int) -> None:
        self._put("long", "long", value)

    def write_float(self, value: float) -> None:
        self._put("float", "float", value)

    def write_double(self, value: float) -> None:
        self._put("double", "double", value)

    def write_utf(self, value: str) -> None:
        self._writable()
        if not isinstance(value, str):
            raise MessageFormatException("write_utf takes a str", "JMS-117")
        data = encode_modified_utf8(value)
        if len(data) > 0xFFFF:
            raise MessageFormatException(
                f"encoded string too long: {len(data)} bytes (write_utf holds 65535)", "JMS-161")
        self._buf += STRUCTS["ushort"].pack(len(data)) + data

    def write_bytes(self, value: bytes, offset: int = 0, length: int | None = None) -> None:
        self._writable()
        data = _slice(V.check("bytes", value), offset, length)
        self._buf += data

    def write_object(self, value: bool | int | float | str | bytes) -> None:
        """bool, int (int or long by size), float (double), str (write_utf), bytes."""
        if value is None:
            raise MessageFormatException("write_object(None): null is not a value here", "JMS-161")
        kind = V.kind_of_object(value)
        if kind == "boolean":
            self.write_boolean(bool(value))
        elif kind == "int":
            self.write_int(int(value))
        elif kind == "long":
            self.write_long(int(value))
        elif kind == "double":
            self.write_double(float(value))
        elif kind == "string":
            self.write_utf(str(value))
        else:
            self.write_bytes(bytes(value))  # type: ignore[arg-type]

    # reading
    def _take(self, n: int, what: str) -> bytes:
        self._readable()
        if self._pos + n > len(self._buf):
            raise MessageEOFException(f"end of message body reading a {what}")
        data = bytes(self._buf[self._pos:self._pos + n])
        self._pos += n
        return data

    def _get(self, fmt: str) -> Any:
        s = STRUCTS[fmt]
        return s.unpack(self._take(s.size, fmt))[0]

    def read_boolean(self) -> bool:
        return self._take(1, "boolean")[0] != 0

    def read_byte(self) -> int:
        return int(self._get("byte"))

    def read_unsigned_byte(self) -> int:
        return int(self._get("ubyte"))

    def read_short(self) -> int:
        return int(self._get("short"))

    def read_unsigned_short(self) -> int:
        return int(self._get("ushort"))

    def read_char(self) -> str:
        return chr(self._get("ushort"))

    def read_int(self) -> int:
        return int(self._get("int"))

    def read_long(self) -> int:
        return int(self._get("long"))

    def read_float(self) -> float:
        return float(self._get("float"))

    def read_double(self) -> float:
        return float(self._get("double"))

    def read_utf(self) -> str:
        self._readable()
        start = self._pos
        n = self.read_unsigned_short()
        try:
            return decode_modified_utf8(self._take(n, "UTF string"))
        except JMSException:
            self._pos = start  # a failed read leaves the position where it was
            raise

    def read_bytes(self, buffer: bytearray, length: int | None = None) -> int:
        """Read up to `length` (default len(buffer)) bytes into `buffer`; the count read,
        -1 at the end of the body (Java's readBytes(byte[], int))."""
        self._readable()
        n = len(buffer) if length is None else length
        if n < 0 or n > len(buffer):
            raise IllegalArgumentException(f"length {n} outside the buffer (0..{len(buffer)})")
        remaining = len(self._buf) - self._pos
        if n == 0:
            return 0
        if remaining == 0:
            return -1
        k = min(n, remaining)
        buffer[:k] = self._buf[self._pos:self._pos + k]
        self._pos += k
        return k


def _slice(data: bytes | None, offset: int, length: int | None) -> bytes:
    if data is None:
        raise MessageFormatException("null is not a byte[] value here", "JMS-161")
    end = len(data) if length is None else offset + length
    if offset < 0 or end < offset or end > len(data):
        raise IllegalArgumentException(f"offset {offset} and length {length} outside the "
                                       f"{len(data)} bytes")
    return data[offset:end]


# -- StreamMessage: stored in pgaq.jms.wire's tagged format ---------------------------------
class StreamMessage(_ReadWriteBody):
    """A sequence of typed values read back in order, with the Oracle JMS guide's table 11-1
    conversions; a read that fails (MessageFormatException, NumberFormatException) leaves
    the position where it was."""

    body_kind = "JMS_STREAM"

    def __init__(self) -> None:
        super().__init__()
        self._items: list[tuple[str, Any]] = []
        self._index = 0
        self._bytes_offset: int | None = None  # inside a byte[] field read in parts

    def _rewind(self) -> None:
        self._index = 0
        self._bytes_offset = None

    def clear_body(self) -> None:
        super().clear_body()
        self._items = []
        self._rewind()

    def _write(self, kind: str, value: Any) -> None:
        self._writable()
        self._items.append((kind, V.check(kind, value)))

    def write_boolean(self, value: bool) -> None:
        self._write("boolean", value)

    def write_byte(self, value: int) -> None:
        self._write("byte", value)

    def write_short(self, value: int) -> None:
        self._write("short", value)

    def write_char(self, value: str) -> None:
        self._write("char", value)

    def write_int(self, value: int) -> None:
        self._write("int", value)

    def write_long(self, value: int) -> None:
        self._write("long", value)

    def write_float(self, value: float) -> None:
        self._write("float", value)

    def write_double(self, value: float) -> None:
        self._write("double", value)

    def write_string(self, value: str | None) -> None:
        self._write("string", value)

    def write_bytes(self, value: bytes | None, offset: int = 0, length: int | None = None) -> None:
        """A byte[] field (its slice value[offset:offset+length]); None writes a null one."""
        self._writable()
        self._items.append(("bytes", None if value is None else
                            _slice(V.check("bytes", value), offset, length)))

    def write_object(self, value: bool | int | float | str | bytes | None) -> None:
        """bool, int (int or long by size), float (double), str (String), bytes, None (a
        null String)."""
        if value is None:
            self._write("string", None)
        else:
            self._write(V.kind_of_object(value), value)

    def _read(self, target: str) -> Any:
        self._readable()
        if self._bytes_offset is not None:
            raise MessageFormatException("a byte[] field is being read: read it to its end with "
                                         "read_bytes first", "JMS-161")
        if self._index >= len(self._items):
            raise MessageEOFException("end of the stream")
        kind, value = self._items[self._index]
        out = V.convert(kind, value, target)
        self._index += 1
        return out

    def read_boolean(self) -> bool:
        return bool(self._read("boolean"))

    def read_byte(self) -> int:
        return int(self._read("byte"))

    def read_short(self) -> int:
        return int(self._read("short"))

    def read_char(self) -> str:
        return str(self._read("char"))

    def read_int(self) -> int:
        return int(self._read("int"))

    def read_long(self) -> int:
        return int(self._read("long"))

    def read_float(self) -> float:
        return float(self._read("float"))

    def read_double(self) -> float:
        return float(self._read("double"))

    def read_string(self) -> str | None:
        value = self._read("string")
        return None if value is None else str(value)

    def get_next_item_type(self) -> str | None:
        """The Java type of the field the next read reads ("int", "long", "byte[]"...),
        None at the end of the stream; the position stays. What a port of `readObject()
        instanceof Long` asks: read_object gives a Python int for byte, short, int and long
        alike (as MapMessage.get_item_type for a map's items)."""
        self._readable()
        if self._index >= len(self._items):
            return None
        return V.JAVA_NAMES[self._items[self._index][0]]

    def read_object(self) -> bool | int | float | str | bytes | None:
        self._readable()
        if self._bytes_offset is not None:
            raise MessageFormatException("a byte[] field is being read: read it to its end with "
                                         "read_bytes first", "JMS-161")
        if self._index >= len(self._items):
            raise MessageEOFException("end of the stream")
        kind, value = self._items[self._index]
        self._index += 1
        return bytes(value) if kind == "bytes" and value is not None else value

    def read_bytes(self, buffer: bytearray) -> int:
        """JMS's readBytes(byte[]): fills `buffer` from a byte[] field and returns the count;
        a field longer than the buffer is read by calling again until the count is below
        len(buffer) (then -1 if it ended exactly at the buffer's end); a null field -> -1, an
        empty one -> 0. The next field can be read only once this one is read to its end."""
        self._readable()
        if self._index >= len(self._items):
            raise MessageEOFException("end of the stream")
        kind, value = self._items[self._index]
        if kind != "bytes":
            raise MessageFormatException(f"a {V.JAVA_NAMES[kind]} value cannot be read as byte[]",
                                         "JMS-117")
        if value is None:
            self._index += 1
            return -1
        offset = self._bytes_offset or 0
        remaining = len(value) - offset
        if not value:
            self._index += 1
            return 0
        if remaining == 0:  # the previous call filled the buffer exactly at the end
            self._bytes_offset = None
            self._index += 1
            return -1
        k = min(len(buffer), remaining)
        buffer[:k] = value[offset:offset + k]
        if k < len(buffer):
            self._bytes_offset = None
            self._index += 1
        else:
            self._bytes_offset = offset + k
        return k


# -- MapMessage ------------------------------------------------------------------------------
class MapMessage(Message):
    """Named typed values (sys.aq$_jms_map_message), read with the Oracle JMS guide's table 11-2
    conversions; a missing name reads as null (False, None, or NumberFormatException)."""

    body_kind = "JMS_MAP"

    def __init__(self) -> None:
        super().__init__()
        self._map: dict[str, tuple[str, Any]] = {}

    def clear_body(self) -> None:
        super().clear_body()
        self._map = {}

    @staticmethod
    def _name(name: object) -> str:
        if not isinstance(name, str) or not name:
            raise IllegalArgumentException("a map item name must be a non-empty string")
        return name

    def _set(self, name: str, kind: str, value: Any) -> None:
        self._writable()
        self._map[self._name(name)] = (kind, V.check(kind, value))

    def _get(self, name: str, target: str) -> Any:
        got = self._map.get(self._name(name))
        if got is None:
            if target == "bytes":
                return None  # getBytes of a missing name: null
            got = ("string", None)
        return V.convert(got[0], got[1], target)

    def set_boolean(self, name: str, value: bool) -> None:
        self._set(name, "boolean", value)

    def set_byte(self, name: str, value: int) -> None:
        self._set(name, "byte", value)

    def set_short(self, name: str, value: int) -> None:
        self._set(name, "short", value)

    def set_char(self, name: str, value: str) -> None:
        self._set(name, "char", value)

    def set_int(self, name: str, value: int) -> None:
        self._set(name, "int", value)

    def set_long(self, name: str, value: int) -> None:
        self._set(name, "long", value)

    def set_float(self, name: str, value: float) -> None:
        self._set(name, "float", value)

    def set_double(self, name: str, value: float) -> None:
        self._set(name, "double", value)

    def set_string(self, name: str, value: str | None) -> None:
        self._set(name, "string", value)

    def set_bytes(self, name: str, value: bytes | None, offset: int = 0,
                  length: int | None = None) -> None:
        self._writable()
        self._map[self._name(name)] = ("bytes", None if value is None else
                                       _slice(V.check("bytes", value), offset, length))

    def set_object(self, name: str, value: bool | int | float | str | bytes) -> None:
        """bool, int (int or long by size), float (double), str (String), bytes (byte[])."""
        if value is None:
            raise MessageFormatException("set_object(None): null is not a map value", "JMS-161")
        self._set(name, V.kind_of_object(value), value)

    def get_boolean(self, name: str) -> bool:
        return bool(self._get(name, "boolean"))

    def get_byte(self, name: str) -> int:
        return int(self._get(name, "byte"))

    def get_short(self, name: str) -> int:
        return int(self._get(name, "short"))

    def get_char(self, name: str) -> str:
        return str(self._get(name, "char"))

    def get_int(self, name: str) -> int:
        return int(self._get(name, "int"))

    def get_long(self, name: str) -> int:
        return int(self._get(name, "long"))

    def get_float(self, name: str) -> float:
        return float(self._get(name, "float"))

    def get_double(self, name: str) -> float:
        return float(self._get(name, "double"))

    def get_string(self, name: str) -> str | None:
        value = self._get(name, "string")
        return None if value is None else str(value)

    def get_bytes(self, name: str) -> bytes | None:
        value = self._get(name, "bytes")
        return None if value is None else bytes(value)

    def get_object(self, name: str) -> bool | int | float | str | bytes | None:
        got = self._map.get(self._name(name))
        if got is None:
            return None
        return bytes(got[1]) if got[0] == "bytes" and got[1] is not None else got[1]

    def get_item_type(self, name: str) -> str | None:
        """The Java type an item holds ("int", "char", "byte[]"...), None when missing."""
        got = self._map.get(self._name(name))
        return None if got is None else V.JAVA_NAMES[got[0]]

    def item_exists(self, name: str) -> bool:
        return self._name(name) in self._map

    def get_map_names(self) -> list[str]:
        return list(self._map)


# -- ObjectMessage (serializers in pgaq.jms.serializers) ------------------------------------
class ObjectMessage(Message):
    """One object, serialized when set (JMS copies it then) by `serializer`: JSON by default,
    never pickle unless a PickleSerializer is given. A received body stays bytes until
    get_object(), so a consumer can choose its serializer first (`message.serializer = ...`)."""

    body_kind = "JMS_OBJECT"

    def __init__(self, obj: Any = None, serializer: Serializer | None = None) -> None:
        super().__init__()
        self.serializer: Serializer = serializer if serializer is not None else JsonSerializer()
        self._data: bytes | None = None
        if obj is not None:
            self._data = self._dump(obj)

    def _dump(self, obj: Any) -> bytes:
        try:
            return bytes(self.serializer.dumps(obj))
        except (TypeError, ValueError, pickle.PicklingError, AttributeError) as exc:
            raise MessageFormatException(f"the object cannot be serialized: {exc}", "JMS-161",
                                         exc) from exc

    @property
    def object(self) -> Any:
        return self.get_object()

    @object.setter
    def object(self, value: Any) -> None:
        self.set_object(value)

    def set_object(self, obj: Any) -> None:
        self._writable()
        self._data = None if obj is None else self._dump(obj)

    def get_object(self) -> Any:
        if self._data is None:
            return None
        try:
            return self.serializer.loads(self._data)
        except JMSException:
            raise
        except Exception as exc:  # any decoder's failure: the body is not what it expects
            raise MessageFormatException(f"the body cannot be deserialized: {exc}", "JMS-161",
                                         exc) from exc

    def get_object_bytes(self) -> bytes | None:
        """The serialized body as stored."""
        return self._data

    def set_object_bytes(self, data: bytes | None) -> None:
        """Set the serialized body directly (bytes another serializer produced)."""
        self._writable()
        self._data = None if data is None else bytes(data)

    def clear_body(self) -> None:
        super().clear_body()
        self._data = None


# -- AdtMessage ------------------------------------------------------------------------------
class AdtMessage(Message):
    """A message for a queue whose payload is an object (composite) type: the payload is a
    dataclass instance or a mapping of the type's attributes (Oracle JMS guide, "AdtMessage"). Only
    JMS_OracleExcpQ and JMS_OracleDelay can be set as properties."""

    body_kind = "OBJECT"

    def __init__(self, payload: Any = None) -> None:
        super().__init__()
        self._payload: Any = None
        if payload is not None:
            self.set_adt_payload(payload)

    @property
    def adt_payload(self) -> Any:
        return self._payload

    @adt_payload.setter
    def adt_payload(self, value: Any) -> None:
        self.set_adt_payload(value)

    def set_adt_payload(self, payload: Any) -> None:
        self._writable()
        if payload is not None and not (
            isinstance(payload, Mapping)
            or (dataclasses.is_dataclass(payload) and not isinstance(payload, type))
        ):
            raise MessageFormatException("an AdtMessage payload is a dataclass instance or a "
                                         "mapping of attribute names to values", "JMS-195")
        self._payload = payload

    def get_adt_payload(self, factory: Callable[..., Any] | None = None) -> Any:
        """The payload; with `factory` (a dataclass, say), factory(**attributes) of it."""
        attributes = self.payload_dict()
        if factory is None or attributes is None:
            return self._payload
        return factory(**attributes)

    def payload_dict(self) -> dict[str, Any] | None:
        """The payload as the engine takes it: a dict of attribute values."""
        p = self._payload
        if p is None:
            return None
        if isinstance(p, Mapping):
            return dict(p)
        return dataclasses.asdict(p)

    def clear_body(self) -> None:
        super().clear_body()
        self._payload = None

