"""Payloads between IDAP XML and the engine's values.

RAW queues carry bytes (hex in XML), JMS queues the sys.aq$_jms_* records as dicts (user
properties and map items keep their JMS types), object queues a composite value as the
dict `jsonb_populate_record` reads (names case-insensitive, nested objects, collections
written <X><X_ITEM>…</X_ITEM></X> as Oracle's servlet does). Values are checked here, so a
bad one is a client error naming its element, not a cast failure inside the enqueue.
Element names are matched without namespaces: Oracle's examples put payloads in the AQ
namespace, SOAP toolkits in none.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation, localcontext
from typing import Any

from lxml import etree

from ..errors import QueueError
from .typeinfo import Attr, TypeInfo
from .xmlsafe import children, local

JMS_ELEMENT = {
    "JMS_TEXT": "jms_text_message", "JMS_BYTES": "jms_bytes_message",
    "JMS_MAP": "jms_map_message", "JMS_OBJECT": "jms_object_message",
}
JMS_BODY = {"JMS_TEXT": "text_data", "JMS_BYTES": "bytes_data", "JMS_MAP": "map_data",
            "JMS_OBJECT": "ser_object_data"}
# SYS.AQ$_JMS_MESSAGE (payload kind JMS_MESSAGE, V0016) holds every body, message_type
# saying which (Oracle's DBMS_AQ JMS constants); IDAP has no element of its own for it: a
# message of such a queue crosses as the jms_*_message element of its body
GENERIC_TYPE = {"JMS_TEXT": 0, "JMS_BYTES": 1, "JMS_STREAM": 2, "JMS_MAP": 3, "JMS_OBJECT": 4}
KIND_OF_GENERIC = {v: k for k, v in GENERIC_TYPE.items()}
VALUE_TYPES = ("int", "string", "long", "double", "boolean", "float", "short", "byte")
INT_BITS = {"byte": 8, "short": 16, "int": 32, "long": 64}
# JMS types IDAP's schema has no <kind_value> element for (pgaq.jms map items; what SQL
# producers may write anywhere): written as <string_value>, see _no_element_text
NO_ELEMENT_TYPES = ("char", "bytes")
SQL_INT_BITS = {"int2": 16, "int4": 32, "int8": 64}
SQL_FLOAT = {"float4": "float", "float8": "double"}
SQL_DATES = ("date", "timestamp", "timestamptz")
# XML Schema's float is IEEE binary32: a text is in range when it rounds to a finite float,
# as Java's Float.parseFloat and PostgreSQL's float4 read it, Float.MAX_VALUE's own shortest
# text 3.4028235E38 (a little above the largest float) included; from 2**128 - 2**103,
# halfway between the largest float and 2**128, a text rounds to infinity
FLOAT_LIMIT = 2.0**128 - 2.0**103
# the producer's time to live in ms that a JMS sender keeps beside AQ's whole seconds
# (pgaq.jms.codec.TIME_TO_LIVE_PROPERTY, the Java provider's ToEngine): provider data, not a
# user property, which no JMS client sees and so no IDAP client either (its <expiration>
# is AQ's seconds)
TIME_TO_LIVE_PROPERTY = "JMS_OracleTimeToLive"
_WS = re.compile(r"\s+")
_INT = re.compile(r"^[+-]?[0-9]+$")
_NUM = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
_SPECIAL = {"inf": "INF", "+inf": "INF", "infinity": "INF", "+infinity": "INF",
            "-inf": "-INF", "-infinity": "-INF", "nan": "NaN"}
# Oracle's servlet writes "2000-08-23 0:0:0"; ISO 8601 and PostgreSQL's output are read too
_DATE = re.compile(
    r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:[ T]([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,2})(?:\.([0-9]{1,9}))?)?)?"
    r"\s*(Z|[+-][0-9]{2}(?::?[0-9]{2})?)?$")
MAX_ECHO = 60


class PayloadError(QueueError):
    """The payload does not fit the queue's type: a client error naming the element."""


def _err(msg: str, code: int = 25215) -> PayloadError:
    return PayloadError(f"ORA-{code:05d}: {msg}", code)


def _show(text: str | None) -> str:
    """User input quoted for an error message, never more than MAX_ECHO characters."""
    t = text or ""
    return repr(t[:MAX_ECHO] + ("…" if len(t) > MAX_ECHO else ""))


def _tag(name: str) -> str:
    """An element name for an error message (names come from the client too)."""
    return name[:MAX_ECHO] + ("…" if len(name) > MAX_ECHO else "")


# -- reading: scalars ---------------------------------------------------------------------
def _hex(text: str | None, what: str) -> bytes:
    """Hex digits, any case, whitespace and line breaks ignored (example 17-5 wraps them).

    An odd digit count is read as Oracle's HEXTORAW reads it, with a leading zero:
    example 17-5 itself has 139 digits.
    """
    if text:
        try:  # the common case: digit pairs, maybe whitespace between pairs
            return bytes.fromhex(text)
        except ValueError:
            pass  # an odd count, a space inside a pair, or not hex: the slow way says which
    clean = _WS.sub("", text or "")
    if len(clean) % 2:
        clean = "0" + clean
    try:
        return bytes.fromhex(clean)
    except ValueError as exc:
        raise _err(f"{what} is not hexadecimal: {_show(clean)}") from exc


def _decimal(t: str, what: str, type_name: str) -> Decimal:
    """Text already matching _NUM as a Decimal: an exponent past what decimal can hold
    (1e999999999999999999999) is out of range, not an internal error."""
    try:
        return Decimal(t)
    except InvalidOperation as exc:
        raise _err(f"{what}: {_show(t)} is out of range for {type_name}", 1438) from exc


def _integer(t: str, bits: int, what: str, type_name: str) -> int:
    if not _INT.match(t):
        # 1e3 or 10.0 are integers too, written differently
        if _NUM.match(t):
            d = _decimal(t, what, type_name)
            if d.adjusted() > 20:
                raise _err(f"{what}: {_show(t)} is out of range for {type_name}", 1438)
            if d == d.to_integral_value():
                return _integer(str(int(d)), bits, what, type_name)
        raise _err(f"{what}: {_show(t)} is not an integer", 1722)
    sign = "-" if t.startswith("-") else ""
    digits = t.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 20:  # never hand a huge digit string to int()
        raise _err(f"{what}: {_show(t)} is out of range for {type_name}", 1438)
    n = int(sign + digits)
    if not -(2 ** (bits - 1)) <= n < 2 ** (bits - 1):
        raise _err(f"{what}: {n} is out of range for {type_name}", 1438)
    return n


def _floating(t: str, what: str, single: bool) -> float | str:
    special = _SPECIAL.get(t.lower())
    if special is not None:
        return special  # JSON has no NaN or infinity: kept as XML Schema spells them
    if not _NUM.match(t):
        raise _err(f"{what}: {_show(t)} is not a number", 1722)
    f = float(t)
    if math.isinf(f) or (single and abs(f) >= FLOAT_LIMIT):
        raise _err(f"{what}: {_show(t)} is out of range for a {'float' if single else 'double'}", 1438)
    return f


def _boolean(t: str, what: str) -> bool:
    low = t.lower()
    if low in ("true", "1"):
        return True
    if low in ("false", "0"):
        return False
    raise _err(f"{what}: {_show(t)} is not a boolean (true, false, 1 or 0)")


def _jms_value(kind: str, text: str | None, what: str) -> Any:
    """A JMS property or map value, typed as its <kind_value> element says."""
    if kind == "string":
        return text or ""
    t = (text or "").strip()
    if kind in INT_BITS:
        return _integer(t, INT_BITS[kind], what, kind)
    if kind in ("double", "float"):
        f = _floating(t, what, kind == "float")
        # jsonb's numeric has no negative zero: kept as "-0.0", as the JMS codecs keep it
        # (pgaq.jms._values.to_json) and as _float_text writes it back
        return "-0.0" if isinstance(f, float) and f == 0 and math.copysign(1.0, f) < 0 else f
    return _boolean(t, what)


def _numeric(t: str, attr: Attr, what: str) -> int | str:
    """A NUMBER: exact, checked against numeric(p,s); an int when whole, else its text."""
    if not _NUM.match(t):
        raise _err(f"{what}: {_show(t)} is not a number", 1722)
    d = _decimal(t, what, attr.sql_type)
    if d and not -16383 <= d.adjusted() <= 131071:  # PostgreSQL's numeric limits
        raise _err(f"{what}: {_show(t)} is out of range for {attr.sql_type}", 1438)
    ps = attr.precision_scale
    if ps is not None and d:
        precision, scale = ps
        if d.adjusted() >= precision - scale:
            raise _err(f"{what}: {_show(t)} is too large for {attr.sql_type}", 1438)
        with localcontext() as ctx:
            ctx.prec = precision + 2
            rounded = d.quantize(Decimal(1).scaleb(-scale))  # as PostgreSQL rounds
        if rounded and rounded.adjusted() >= precision - scale:
            raise _err(f"{what}: {_show(t)} is too large for {attr.sql_type}", 1438)
    if d == d.to_integral_value() and d.adjusted() < 18 and "." not in t and "e" not in t.lower():
        return int(d)
    return t.lstrip("+")


def _datetime(t: str, attr: Attr, what: str) -> str:
    m = _DATE.match(t)
    if not m:
        raise _err(f"{what}: {_show(t)} is not a date (YYYY-MM-DD H:M:S)", 1861)
    y, mo, d, h, mi, s, frac, tz = m.groups()
    try:
        value = datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0))
    except ValueError as exc:
        raise _err(f"{what}: {_show(t)} is not a valid date", 1861) from exc
    if attr.scalar == "date":
        return value.date().isoformat()  # PostgreSQL's date has no time of day
    iso = value.isoformat()
    if frac:
        iso += "." + frac
    if tz and attr.scalar == "timestamptz":
        iso += "+00:00" if tz == "Z" else tz
    return iso


def _scalar(attr: Attr, el: etree._Element, what: str) -> Any:
    if len(children(el)):
        raise _err(f"{what} is a {attr.sql_type}, not a structure")
    text = "".join(el.itertext())
    base = attr.scalar
    if base in ("varchar", "bpchar", "text", "name", "char", "citext", ""):
        if text == "":
            return None  # an empty element is NULL, as Oracle's '' is
        limit = attr.max_length
        if limit is not None and len(text) > limit:
            raise _err(f"{what}: value too large for {attr.sql_type} "
                       f"(actual: {len(text)}, maximum: {limit})", 12899)
        return text
    t = text.strip()
    if t == "":
        return None
    if base in SQL_INT_BITS:
        return _integer(t, SQL_INT_BITS[base], what, attr.sql_type)
    if base == "numeric":
        return _numeric(t, attr, what)
    if base in SQL_FLOAT:
        f = _floating(t, what, base == "float4")
        # PostgreSQL spells the special values its own way
        return {"INF": "Infinity", "-INF": "-Infinity"}.get(f, f) if isinstance(f, str) else f
    if base == "bool":
        return _boolean(t, what)
    if base in SQL_DATES:
        return _datetime(t, attr, what)
    if base == "bytea":
        return "\\x" + _hex(t, what).hex()
    return text  # other types (uuid, enums...) are checked by PostgreSQL itself


# -- reading: structures ------------------------------------------------------------------
def _object(el: etree._Element, info: TypeInfo, path: str) -> dict[str, Any] | None:
    items = children(el)
    if not items:
        if "".join(el.itertext()).strip():
            raise _err(f"{path} is an object of type {info.name.upper()}, not a value")
        return None  # <CUSTOMER/>: a NULL object
    out: dict[str, Any] = {a.name: None for a in info.attrs}
    seen: set[str] = set()
    for c in items:
        name = local(c)
        attr = info.attr(name)
        if attr is None:
            raise _err(f"{info.name.upper()} has no attribute {_tag(name).upper()} (in {path})")
        if attr.name in seen:
            raise _err(f"{path}.{attr.name.upper()} is given twice")
        seen.add(attr.name)
        out[attr.name] = _value(attr, c, f"{path}.{attr.name.upper()}")
    return out


def _value(attr: Attr, el: etree._Element, path: str) -> Any:
    if attr.kind == "composite":
        assert attr.element is not None
        return _object(el, attr.element, path)
    if attr.kind == "array":
        if not children(el) and "".join(el.itertext()).strip():
            raise _err(f"{path} is a collection: write its items as <{attr.name.upper()}_ITEM>")
        out: list[Any] = []
        for i, item in enumerate(children(el), start=1):
            where = f"{path}[{i}]"
            if attr.element is not None:
                out.append(_object(item, attr.element, where))
            else:
                out.append(_scalar(attr, item, where))
        return out
    return _scalar(attr, el, path)


def _typed_values(el: etree._Element | None, item: str, what: str) -> dict[str, Any]:
    """<property>/<item> lists: {name: {"type": jms type, "value": json}} (last one wins).
    A user property also keeps its place, "seq" (1, 2, ...): jsonb keeps no key order, and
    properties come back in the order they were sent, as Oracle's property array does."""
    out: dict[str, Any] = {}
    if el is None:
        return out
    for p in children(el):
        if local(p) != item:
            raise _err(f"{what} holds an unexpected element <{_tag(local(p))}>")
        name: str | None = None
        typed: tuple[str, Any] | None = None
        for c in children(p):
            n = local(c)
            if n == "name" and name is None:
                name = "".join(c.itertext()).strip()
            elif n.endswith("_value") and n[:-6] in VALUE_TYPES and typed is None:
                kind = n[:-6]
                typed = (kind, _jms_value(kind, "".join(c.itertext()),
                                          f"{what} {_tag(name or '?')} <{n}>"))
            else:
                raise _err(f"{what} <{item}> holds an unexpected element <{_tag(n)}>")
        if not name or typed is None:
            raise _err(f"every <{item}> in {what} needs a <name> and one typed value")
        out.pop(name, None)  # a repeated name: the last one, at its own place
        out[name] = {"type": typed[0], "value": typed[1]}
    if item == "property":  # places counted after repeats collapse, so a re-read agrees
        for seq, spec in enumerate(out.values(), start=1):
            spec["seq"] = seq
    return out


def _text(el: etree._Element) -> str:
    return "".join(el.itertext()).strip()


def _reply_to(el: etree._Element) -> dict[str, Any] | None:
    """The JMS reply-to agent; an `agent_alias` is kept as {"alias": ...} for the gateway to
    resolve through the directory (see `unresolved_reply_to`) before anything is enqueued."""
    rt: dict[str, str] = {}
    for x in children(el):
        n = local(x)
        if n not in ("agent_name", "address", "protocol", "agent_alias"):
            raise _err(f"reply_to holds an unsupported element <{_tag(n)}>")
        rt[n] = _text(x)
    if "agent_alias" in rt:
        if len(rt) > 1 or not rt["agent_alias"]:
            raise _err("reply_to holds either an agent_alias or agent_name/address/protocol")
        return {"alias": rt["agent_alias"]}
    proto = rt.get("protocol")
    agent = {"name": rt.get("agent_name") or None, "address": rt.get("address") or None,
             "protocol": _integer(proto, 32, "reply_to protocol", "int") if proto else 0}
    # <reply_to/> or only empty parts: no agent at all, as it reads back
    return agent if agent["name"] or agent["address"] else None


def unresolved_reply_to(payload: bytes | dict[str, Any]) -> str | None:
    """The agent_alias a JMS payload's reply_to still names, if any."""
    if not isinstance(payload, dict):
        return None
    header = payload.get("header")
    rt = header.get("replyto") if isinstance(header, dict) else None
    if isinstance(rt, dict) and set(rt) == {"alias"}:
        return str(rt["alias"])
    return None


def _jms(kind: str, el: etree._Element) -> dict[str, Any]:
    header: dict[str, Any] = {"replyto": None, "type": None, "userid": None, "appid": None,
                              "groupid": None, "groupseq": None, "properties": {}}
    body_tag = JMS_BODY[kind]
    out: dict[str, Any] = {"header": header}
    if kind == "JMS_TEXT":
        out.update(text_len=0, text_vc=None)
    elif kind == "JMS_MAP":
        out["map"] = {}
    else:
        out.update(bytes_len=0, bytes_raw=None)
    for part in children(el):
        n = local(part)
        if n == "oracle_jms_properties":
            for c in children(part):
                p = local(c)
                if p == "reply_to":
                    header["replyto"] = _reply_to(c)
                elif p in ("type", "userid", "appid", "groupid"):
                    header[p] = _text(c) or None
                elif p == "group_sequence":
                    t = _text(c)
                    header["groupseq"] = _integer(t, 32, "group_sequence", "int") if t else None
                elif p in ("timestamp", "recv_timestamp"):
                    continue  # set by the queue at enqueue and dequeue, as in Oracle
                else:
                    raise _err(f"oracle_jms_properties holds an unexpected element <{_tag(p)}>")
        elif n == "user_properties":
            header["properties"] = _typed_values(part, "property", "user_properties")
        elif n == body_tag and kind == "JMS_TEXT":
            text = "".join(part.itertext())
            out.update(text_vc=text, text_len=len(text))
        elif n == body_tag and kind == "JMS_MAP":
            out["map"] = _typed_values(part, "item", "map_data")
        elif n == body_tag:  # bytes_data, ser_object_data
            raw = _hex(_text(part), n)
            out.update(bytes_raw="\\x" + raw.hex(), bytes_len=len(raw))
        else:
            raise _err(f"{JMS_ELEMENT[kind]} holds an unexpected element <{_tag(n)}>")
    return out


def xml_to_payload(kind: str, payload_elem: etree._Element, info: TypeInfo | None,
                   taker: str = "the queue") -> bytes | dict[str, Any]:
    """The engine's payload (bytes for RAW, else a dict) from a <message_payload> element.
    `taker` names what the payload's type comes from in errors: the queue, or the
    transformation the enqueue applies (whose source type it must be)."""
    items = children(payload_elem)
    if len(items) != 1:
        raise _err(f"message_payload must hold exactly one element, not {len(items)}")
    el = items[0]
    name = local(el)
    if kind == "RAW":
        if name.lower() != "raw":
            raise _err(f"{taker} takes RAW payloads, not <{_tag(name)}>")
        if not len(el):  # a leaf: its text is all of it
            return _hex(el.text, "RAW")
        if children(el):
            raise _err("RAW holds hexadecimal text, not elements")
        return _hex("".join(el.itertext()), "RAW")
    if kind == "JMS_STREAM":
        raise _err("JMS StreamMessage queues are not supported through IDAP")
    if kind == "JMS_MESSAGE":
        body = next((k for k, e in JMS_ELEMENT.items() if e == name), None)
        if body is None:
            raise _err(f"{taker} takes <{'>, <'.join(JMS_ELEMENT.values())}> payloads, "
                       f"not <{_tag(name)}>")
        generic: dict[str, Any] = {"message_type": GENERIC_TYPE[body], "text_len": 0,
                                   "text_vc": None, "bytes_len": 0, "bytes_raw": None,
                                   "map": None}
        generic.update(_jms(body, el))
        return generic
    if kind in JMS_ELEMENT:
        expected = JMS_ELEMENT[kind]
        if name != expected:
            raise _err(f"{taker} takes <{expected}> payloads, not <{_tag(name)}>")
        return _jms(kind, el)
    if kind != "OBJECT" or info is None:
        raise ValueError(f"no payload mapping for kind {kind!r} without type information")
    if name.lower() != info.name.lower():
        raise _err(f"{taker} takes {info.name.upper()} payloads, not <{_tag(name)}>")
    value = _object(el, info, info.name.upper())
    # <EMP_TYP/>: an object whose attributes are all NULL (a payload itself is never NULL)
    return value if value is not None else {a.name: None for a in info.attrs}


# -- writing ------------------------------------------------------------------------------
def _sub(parent: etree._Element, ns: str | None, name: str, text: str | None = None
         ) -> etree._Element:
    el = etree.SubElement(parent, f"{{{ns}}}{name}" if ns else name)
    if text is not None:
        try:
            el.text = text
        except ValueError as exc:
            # PostgreSQL text may hold control characters that XML 1.0 cannot carry
            raise _err(f"the value of <{name}> holds characters XML cannot carry") from exc
    return el


def oracle_date(value: Any) -> str:
    """'1996-01-01T00:00:00' -> '1996-01-01 0:0:0', as Oracle's servlet writes dates."""
    if isinstance(value, datetime):
        d = value
    elif isinstance(value, date):
        d = datetime.combine(value, time())
    else:
        text = str(value)
        m = _DATE.match(text.strip())
        if not m:
            return text
        y, mo, dd, h, mi, s, frac, tz = m.groups()
        try:
            d = datetime(int(y), int(mo), int(dd), int(h or 0), int(mi or 0), int(s or 0))
        except ValueError:
            return text
        out = f"{d:%Y-%m-%d} {d.hour}:{d.minute}:{d.second}"
        if frac and frac.strip("0"):
            out += "." + frac.rstrip("0")
        return out + ("+00:00" if tz == "Z" else tz or "")
    out = f"{d:%Y-%m-%d} {d.hour}:{d.minute}:{d.second}"
    if d.microsecond:
        out += f".{d.microsecond:06d}".rstrip("0")
    offset = d.strftime("%z")
    return out + (f"{offset[:3]}:{offset[3:]}" if offset else "")


def oracle_number(value: Any) -> str:
    """A NUMBER as Oracle prints it: no exponent, no trailing fractional zeros."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return "NaN" if math.isnan(value) else ("INF" if value > 0 else "-INF")
        d = Decimal(repr(value))
    elif isinstance(value, Decimal):
        d = value
    else:
        text = str(value).strip()
        special = _SPECIAL.get(text.lower())
        if special is not None:
            return special
        if not _NUM.match(text):
            return text
        d = Decimal(text)
    if not d.is_finite():
        return "NaN" if d.is_nan() else ("INF" if d > 0 else "-INF")
    s = format(d, "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _float_text(value: Any) -> str:
    """A JMS float/double as XML Schema writes it (repr keeps every digit a float has)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        text = str(value)
        return _SPECIAL.get(text.lower(), text)
    f = float(value)
    if not math.isfinite(f):
        return "NaN" if math.isnan(f) else ("INF" if f > 0 else "-INF")
    if f.is_integer() and abs(f) < 1e15:
        return str(int(f))
    return repr(f)


def _write_scalar(attr: Attr, value: Any) -> str:
    base = attr.scalar
    if base in SQL_DATES:
        return oracle_date(value)
    if base == "bytea" and isinstance(value, str):
        return (value[2:] if value.startswith("\\x") else value).upper()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex().upper()
    if isinstance(value, bool):
        return "true" if value else "false"
    if base in SQL_FLOAT:
        return _float_text(value)
    if base == "numeric" or base in SQL_INT_BITS or isinstance(value, (int, float, Decimal)):
        return oracle_number(value)
    return str(value)


def _write_object(parent: etree._Element, ns: str | None, tag: str, value: dict[str, Any],
                  info: TypeInfo) -> None:
    el = _sub(parent, ns, tag)
    low = {k.lower(): v for k, v in value.items()}
    for attr in info.attrs:
        v = low.get(attr.name.lower())
        if v is None:
            continue  # NULL attributes are left out, as Oracle's servlet does
        name = attr.name.upper()
        if attr.kind == "composite" and attr.element is not None:
            _write_object(el, ns, name, v, attr.element)
        elif attr.kind == "array":
            coll = _sub(el, ns, name)
            for item in v:
                if item is None:
                    _sub(coll, ns, f"{name}_ITEM")
                elif attr.element is not None:
                    _write_object(coll, ns, f"{name}_ITEM", item, attr.element)
                else:
                    _sub(coll, ns, f"{name}_ITEM", _write_scalar(attr, item))
        else:
            _sub(el, ns, name, _write_scalar(attr, v))


def _stored_object(value: Any, what: str) -> dict[str, Any]:
    """A jsonb part of a stored JMS payload that must be an object: SQL producers fill these
    freely, and one that is not (an array, a string) is a clear error, not a traceback."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _err(f"the message's {what} is a JSON {type(value).__name__}, not an object; "
                   "IDAP cannot carry it")
    return value


def _place(entry: tuple[str, Any]) -> tuple[int, int, str]:
    spec = entry[1]
    seq = spec.get("seq") if isinstance(spec, dict) else None
    if isinstance(seq, int) and not isinstance(seq, bool):
        return 0, seq, entry[0]
    return 1, 0, entry[0]


def _no_element_text(kind: str, value: Any) -> str | None:
    """A char or byte[] value as the <string_value> that carries it (docs/gateway.md, "JMS
    payloads and IDAP"): aq_access.xsd's <property> and <item> choose among eight typed
    elements and none is char or byte[], so the type cannot cross. A Fault instead would
    come after the REMOVE and lose the message; the value crosses whole: a char as its one
    character (what JMS's getString reads of a char), a byte[] as upper-case hex, as IDAP
    writes every binary value (<raw>, <bytes_data>)."""
    if value is None:
        return None
    if kind == "char":
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex().upper()
    text = str(value)
    return (text[2:] if text.startswith("\\x") else text).upper()


def _write_typed(parent: etree._Element, ns: str | None, item: str, values: Any) -> None:
    # user properties in the order they were sent (their "seq"); map items, which have no
    # order of their own, and entries SQL producers wrote without a seq, by name after them
    for key, spec in sorted(_stored_object(values, item).items(), key=_place):
        if isinstance(spec, dict) and spec.get("type") in VALUE_TYPES:
            kind, value = str(spec["type"]), spec.get("value")
        elif isinstance(spec, dict) and spec.get("type") in NO_ELEMENT_TYPES:
            kind, value = "string", _no_element_text(str(spec["type"]), spec.get("value"))
        else:  # a plain JSON scalar, as SQL users may write one
            value = spec
            kind = ("boolean" if isinstance(value, bool) else "long" if isinstance(value, int)
                    else "double" if isinstance(value, float) else "string")
        it = _sub(parent, ns, item)
        _sub(it, ns, "name", str(key))
        if value is None:
            text = ""
        elif kind == "boolean":
            text = "true" if value in (True, "true", 1) else "false"
        elif kind in ("float", "double"):
            text = _float_text(value)
        else:
            text = str(value)
        _sub(it, ns, f"{kind}_value", text)


def _write_jms(kind: str, payload: dict[str, Any], parent: etree._Element, ns: str | None,
               times: tuple[date, date] | None = None) -> None:
    el = _sub(parent, ns, JMS_ELEMENT[kind])
    header = _stored_object(payload.get("header"), "header")
    props = _sub(el, ns, "oracle_jms_properties")
    if header.get("type") is not None:
        _sub(props, ns, "type", str(header["type"]))
    rt = _stored_object(header.get("replyto"), "reply_to")
    if rt.get("name") or rt.get("address"):
        # aq_access.xsd: <agent_name> comes first and is required; an agent that is a bare
        # address (a JMS Queue or Topic as reply-to: aq$_agent(NULL, 'owner.queue', 0)) has
        # it empty, the NULL name, as the reader reads an empty <agent_name> back
        r = _sub(props, ns, "reply_to")
        _sub(r, ns, "agent_name", str(rt["name"]) if rt.get("name") else "")
        if rt.get("address"):
            _sub(r, ns, "address", str(rt["address"]))
        if rt.get("protocol"):
            _sub(r, ns, "protocol", str(rt["protocol"]))
    for key, tag in (("userid", "userid"), ("appid", "appid"), ("groupid", "groupid"),
                     ("groupseq", "group_sequence")):
        if header.get(key) is not None:
            _sub(props, ns, tag, str(header[key]))
    if times is not None:  # JMS timestamps: the enqueue's and the receipt's (xsd:date)
        _sub(props, ns, "timestamp", times[0].isoformat())
        _sub(props, ns, "recv_timestamp", times[1].isoformat())
    user = {k: v for k, v in _stored_object(header.get("properties"), "property").items()
            if k != TIME_TO_LIVE_PROPERTY}
    if user:
        _write_typed(_sub(el, ns, "user_properties"), ns, "property", user)
    if kind == "JMS_TEXT":
        _sub(el, ns, "text_data", payload.get("text_vc") or "")
    elif kind == "JMS_MAP":
        _write_typed(_sub(el, ns, "map_data"), ns, "item", payload.get("map") or {})
    else:
        raw = payload.get("bytes_raw") or ""
        if isinstance(raw, (bytes, bytearray, memoryview)):
            hexed = bytes(raw).hex()
        else:
            hexed = raw[2:] if raw.startswith("\\x") else raw
        _sub(el, ns, JMS_BODY[kind], hexed.upper())


def payload_to_xml(kind: str, payload: bytes | dict[str, Any] | None, info: TypeInfo | None,
                   parent: etree._Element, ns: str | None,
                   times: tuple[date, date] | None = None) -> None:
    """Append the payload's XML to `parent` (a <message_payload>) in namespace `ns`."""
    if payload is None:
        return
    if kind == "RAW":
        if isinstance(payload, dict):
            raise ValueError("a RAW payload is bytes")
        _sub(parent, ns, "RAW", bytes(payload).hex().upper())
        return
    if not isinstance(payload, dict):
        raise ValueError(f"a {kind} payload is a dict")
    if kind == "JMS_STREAM":
        raise _err("JMS StreamMessage queues are not supported through IDAP")
    if kind == "JMS_MESSAGE":
        # the body's element, as pgaq.jms reads message_type (a value it does not know is
        # text). The message is taken before this is written, so nothing here refuses it: a
        # StreamMessage, which IDAP has no element for (Oracle Streams Advanced Queuing
        # User's Guide and Reference 10g Release 2 (10.2), "Internet Access to Oracle Streams
        # AQ": "not supported through IDAP"), crosses whole as the
        # bytes of its stream body in a <jms_bytes_message>, its type lost
        mt = payload.get("message_type")
        body = KIND_OF_GENERIC.get(mt if isinstance(mt, int) else 0, "JMS_TEXT")
        _write_jms("JMS_BYTES" if body == "JMS_STREAM" else body, payload, parent, ns, times)
        return
    if kind in JMS_ELEMENT:
        _write_jms(kind, payload, parent, ns, times)
        return
    if kind != "OBJECT" or info is None:
        raise ValueError(f"no payload mapping for kind {kind!r} without type information")
    _write_object(parent, ns, info.name.upper(), payload, info)
