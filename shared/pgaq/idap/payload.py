"""Payloads between IDAP XML and the engine's values.

RAW queues carry bytes (hex in XML), JMS queues the sys.aq$_jms_* records (typed
properties kept with their types), object queues a composite value mapped element by
element (names case-insensitive, nested objects, collections written <X><X_ITEM>…).
Element names are matched without namespaces: Oracle's examples put payloads in the AQ
namespace, SOAP toolkits in none.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from lxml import etree

from ..errors import QueueError
from .typeinfo import Attr, TypeInfo
from .xmlsafe import children, local

JMS_ELEMENT = {
    "JMS_TEXT": "jms_text_message", "JMS_BYTES": "jms_bytes_message",
    "JMS_MAP": "jms_map_message", "JMS_OBJECT": "jms_object_message",
    "JMS_STREAM": "jms_bytes_message",
}
VALUE_TYPES = ("int", "string", "long", "double", "boolean", "float", "short", "byte")
INT_RANGES = {"byte": 8, "short": 16, "int": 32, "long": 64}
SQL_INT = {"int2": 16, "int4": 32, "int8": 64}
_WS = re.compile(r"\s+")
_DATE = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(\.\d+)?)?)?([+-]\d{2}(?::?\d{2})?|Z)?$")


class PayloadError(QueueError):
    """The payload does not fit the queue's type (a client error)."""


def _err(msg: str, code: int = 25215) -> PayloadError:
    return PayloadError(f"ORA-{code:05d}: {msg}", code)


def _short(text: str | None) -> str:
    t = text or ""
    return repr(t[:60] + ("…" if len(t) > 60 else ""))


# -- reading ------------------------------------------------------------------------------
def _hex(text: str | None, what: str) -> bytes:
    clean = _WS.sub("", text or "")
    if len(clean) % 2:
        clean = "0" + clean  # as Oracle's HEXTORAW reads an odd number of digits
    try:
        return bytes.fromhex(clean)
    except ValueError as exc:
        raise _err(f"{what} is not hexadecimal: {_short(clean)}") from exc


def _typed(kind: str, text: str | None, what: str) -> Any:
    t = (text or "").strip()
    if kind in INT_RANGES:
        try:
            n = int(t)
        except ValueError as exc:
            raise _err(f"{what}: {_short(t)} is not an integer", 1722) from exc
        bits = INT_RANGES[kind]
        if not -(2 ** (bits - 1)) <= n < 2 ** (bits - 1):
            raise _err(f"{what}: {n} does not fit a {kind}", 1438)
        return n
    if kind in ("double", "float"):
        try:
            f = float(t)
        except ValueError as exc:
            raise _err(f"{what}: {_short(t)} is not a number", 1722) from exc
        if math.isnan(f) or math.isinf(f):
            return t  # kept as its text, as JSON has no NaN
        return f
    if kind == "boolean":
        low = t.lower()
        if low in ("true", "1"):
            return True
        if low in ("false", "0"):
            return False
        raise _err(f"{what}: {_short(t)} is not a boolean")
    return text or ""


def _typed_values(el: etree._Element | None, item: str, what: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if el is None:
        return out
    for p in children(el):
        if local(p) != item:
            raise _err(f"{what} holds an unexpected element <{local(p)}>")
        name = None
        value = None
        kind = None
        for c in children(p):
            n = local(c)
            if n == "name":
                name = (c.text or "").strip()
            elif n.endswith("_value") and n[:-6] in VALUE_TYPES:
                kind = n[:-6]
                value = _typed(kind, c.text, f"{what} {name or ''}".strip())
            else:
                raise _err(f"{what} item holds an unexpected element <{n}>")
        if not name or kind is None:
            raise _err(f"every {item} in {what} needs a name and a typed value")
        out[name] = {"type": kind, "value": value}
    return out


def _first(el: etree._Element, name: str) -> etree._Element | None:
    for c in children(el):
        if local(c) == name:
            return c
    return None


def _jms(kind: str, el: etree._Element) -> dict[str, Any]:
    props = _first(el, "oracle_jms_properties")
    header: dict[str, Any] = {"replyto": None, "type": None, "userid": None, "appid": None,
                              "groupid": None, "groupseq": None}
    if props is not None:
        for c in children(props):
            n = local(c)
            if n == "reply_to":
                rt = {local(x): (x.text or "").strip() for x in children(c)}
                proto = rt.get("protocol")
                header["replyto"] = {"name": rt.get("agent_name"), "address": rt.get("address"),
                                     "protocol": _typed("int", proto, "reply_to protocol") if proto else 0}
            elif n in ("type", "userid", "appid", "groupid"):
                header[n] = (c.text or "").strip()
            elif n == "group_sequence":
                header["groupseq"] = _typed("int", c.text, "group_sequence")
            elif n in ("timestamp", "recv_timestamp"):
                continue  # set by the queue (enqueue time), as in Oracle
            else:
                raise _err(f"oracle_jms_properties holds an unexpected element <{n}>")
    header["properties"] = _typed_values(_first(el, "user_properties"), "property", "user_properties")
    out: dict[str, Any] = {"header": header}
    if kind == "JMS_TEXT":
        body = _first(el, "text_data")
        text = "" if body is None else "".join(body.itertext())
        out.update(text_vc=text, text_len=len(text))
    elif kind == "JMS_MAP":
        out["map"] = _typed_values(_first(el, "map_data"), "item", "map_data")
    else:
        tag = "ser_object_data" if kind == "JMS_OBJECT" else "bytes_data"
        body = _first(el, tag)
        raw = _hex(None if body is None else body.text, tag)
        out.update(bytes_raw="\\x" + raw.hex(), bytes_len=len(raw))
    return out


def _scalar(attr: Attr, el: etree._Element) -> Any:
    if len(children(el)):
        raise _err(f"{attr.name.upper()} is a {attr.sql_type}, not a structure")
    text = el.text
    if text is None or text.strip() == "":
        return None
    t = text.strip()
    base = attr.base
    what = attr.name.upper()
    if base in SQL_INT:
        n = _typed("long", t, what)
        bits = SQL_INT[base]
        if not -(2 ** (bits - 1)) <= n < 2 ** (bits - 1):
            raise _err(f"{what}: {n} is out of range for {attr.sql_type}", 1438)
        return n
    if base == "numeric":
        try:
            d = Decimal(t)
        except InvalidOperation as exc:
            raise _err(f"{what}: {_short(t)} is not a number", 1722) from exc
        if not d.is_finite():
            raise _err(f"{what}: {_short(t)} is not a finite number", 1722)
        if attr.typmod >= 4:
            precision = ((attr.typmod - 4) >> 16) & 0xFFFF
            scale = (attr.typmod - 4) & 0xFFFF
            int_digits = max(0, d.adjusted() + 1) if d else 0
            if int_digits > precision - scale:
                raise _err(f"{what}: {t} is too large for {attr.sql_type}", 1438)
        return str(d)
    if base in ("float4", "float8"):
        return _typed("double", t, what)
    if base == "bool":
        return _typed("boolean", t, what)
    if base in ("varchar", "bpchar") and attr.typmod > 4 and len(text) > attr.typmod - 4:
        raise _err(f"{what}: value too large for {attr.sql_type} "
                   f"(actual {len(text)}, maximum {attr.typmod - 4})", 12899)
    if base in ("date", "timestamp", "timestamptz"):
        m = _DATE.match(t)
        if not m:
            raise _err(f"{what}: {_short(t)} is not a date (YYYY-MM-DD H:M:S)", 1861)
        y, mo, d_, h, mi, s, frac, tz = m.groups()
        try:
            datetime(int(y), int(mo), int(d_), int(h or 0), int(mi or 0), int(s or 0))
        except ValueError as exc:
            raise _err(f"{what}: {_short(t)} is not a valid date", 1861) from exc
        iso = f"{int(y):04d}-{int(mo):02d}-{int(d_):02d}"
        if base != "date":
            iso += f" {int(h or 0):02d}:{int(mi or 0):02d}:{int(s or 0):02d}{frac or ''}{tz or ''}"
        return iso
    if base == "bytea":
        return "\\x" + _hex(t, what).hex()
    return text


def _object(el: etree._Element, info: TypeInfo) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c in children(el):
        attr = info.attr(local(c))
        if attr is None:
            raise _err(f"{info.name.upper()} has no attribute {local(c).upper()[:60]}")
        if attr.name in out:
            raise _err(f"{attr.name.upper()} given twice")
        out[attr.name] = _value(attr, c)
    return out


def _value(attr: Attr, el: etree._Element) -> Any:
    if attr.kind == "composite":
        assert attr.element is not None
        if not len(children(el)) and not (el.text or "").strip():
            return None
        return _object(el, attr.element)
    if attr.kind == "array":
        items = children(el)
        if attr.element is not None:
            return [_object(i, attr.element) for i in items]
        scalar = Attr(attr.name, attr.sql_type, "scalar", attr.base, -1)
        return [_scalar(scalar, i) for i in items]
    return _scalar(attr, el)


def xml_to_payload(kind: str, payload_elem: etree._Element, info: TypeInfo | None) -> Any:
    """The engine's payload (bytes or a dict) from a <message_payload> element."""
    items = children(payload_elem)
    if len(items) != 1:
        raise _err("message_payload must hold exactly one element")
    el = items[0]
    name = local(el)
    if kind == "RAW":
        if name.lower() != "raw":
            raise _err(f"the queue takes RAW payloads, not <{name[:60]}>")
        return _hex(el.text, "RAW")
    if kind in JMS_ELEMENT:
        expected = JMS_ELEMENT[kind]
        if name != expected:
            raise _err(f"the queue takes {expected} payloads, not <{name[:60]}>")
        return _jms(kind, el)
    assert info is not None
    if name.lower() != info.name.lower():
        raise _err(f"the queue takes {info.name.upper()} payloads, not <{name[:60]}>")
    return _object(el, info)


# -- writing ------------------------------------------------------------------------------
def _sub(parent: etree._Element, ns: str | None, name: str, text: Any = None) -> etree._Element:
    el = etree.SubElement(parent, f"{{{ns}}}{name}" if ns else name)
    if text is not None:
        el.text = text if isinstance(text, str) else str(text)
    return el


def oracle_date(value: str) -> str:
    """'1996-01-01T00:00:00' -> '1996-01-01 0:0:0', as Oracle's servlet writes dates."""
    try:
        d = datetime.fromisoformat(value)
    except ValueError:
        try:
            d0 = date.fromisoformat(value)
        except ValueError:
            return value
        return f"{d0:%Y-%m-%d} 0:0:0"
    frac = f".{d.microsecond:06d}".rstrip("0") if d.microsecond else ""
    return f"{d:%Y-%m-%d} {d.hour}:{d.minute}:{d.second}{frac}"


def _write_scalar(attr: Attr, value: Any) -> str:
    if attr.base in ("date", "timestamp", "timestamptz") and isinstance(value, str):
        return oracle_date(value)
    if attr.base == "bytea" and isinstance(value, str) and value.startswith("\\x"):
        return value[2:].upper()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _write_object(parent: etree._Element, ns: str | None, name: str, value: dict[str, Any],
                  info: TypeInfo) -> None:
    el = _sub(parent, ns, name.upper())
    for attr in info.attrs:
        v = value.get(attr.name)
        if v is None:
            continue
        if attr.kind == "composite" and attr.element is not None:
            _write_object(el, ns, attr.name, v, attr.element)
        elif attr.kind == "array":
            coll = _sub(el, ns, attr.name.upper())
            for item in v:
                if item is None:
                    continue
                if attr.element is not None:
                    _write_object(coll, ns, f"{attr.name}_ITEM", item, attr.element)
                else:
                    _sub(coll, ns, f"{attr.name.upper()}_ITEM", _write_scalar(attr, item))
        else:
            _sub(el, ns, attr.name.upper(), _write_scalar(attr, v))


def _write_typed(parent: etree._Element, ns: str | None, item: str, values: dict[str, Any]) -> None:
    for key, spec in values.items():
        it = _sub(parent, ns, item)
        _sub(it, ns, "name", key)
        if isinstance(spec, dict) and "type" in spec:
            kind, value = spec["type"], spec.get("value")
        else:  # a plain JSON scalar (written by SQL users)
            kind = ("boolean" if isinstance(spec, bool) else "long" if isinstance(spec, int)
                    else "double" if isinstance(spec, float) else "string")
            value = spec
        if isinstance(value, bool):
            value = "true" if value else "false"
        _sub(it, ns, f"{kind}_value", "" if value is None else value)


def payload_to_xml(kind: str, payload: Any, info: TypeInfo | None, parent: etree._Element,
                   ns: str | None) -> None:
    """Append the payload's XML to `parent` (a <message_payload> element)."""
    if payload is None:
        return
    if kind == "RAW":
        _sub(parent, ns, "RAW", bytes(payload).hex().upper())
        return
    if kind in JMS_ELEMENT:
        el = _sub(parent, ns, JMS_ELEMENT[kind])
        header = payload.get("header") or {}
        props = _sub(el, ns, "oracle_jms_properties")
        if header.get("type") is not None:
            _sub(props, ns, "type", header["type"])
        rt = header.get("replyto")
        if rt and rt.get("name"):
            r = _sub(props, ns, "reply_to")
            _sub(r, ns, "agent_name", rt["name"])
            if rt.get("address"):
                _sub(r, ns, "address", rt["address"])
            if rt.get("protocol"):
                _sub(r, ns, "protocol", rt["protocol"])
        for key, tag in (("userid", "userid"), ("appid", "appid"), ("groupid", "groupid"),
                         ("groupseq", "group_sequence")):
            if header.get(key) is not None:
                _sub(props, ns, tag, header[key])
        up = header.get("properties") or {}
        if up:
            _write_typed(_sub(el, ns, "user_properties"), ns, "property", up)
        if kind == "JMS_TEXT":
            _sub(el, ns, "text_data", payload.get("text_vc") or "")
        elif kind == "JMS_MAP":
            _write_typed(_sub(el, ns, "map_data"), ns, "item", payload.get("map") or {})
        else:
            raw = payload.get("bytes_raw") or "\\x"
            tag = "ser_object_data" if kind == "JMS_OBJECT" else "bytes_data"
            _sub(el, ns, tag, raw[2:].upper())
        return
    assert info is not None
    _write_object(parent, ns, info.name, payload, info)
