"""Java's primitive values in Python: range checks, conversions and their text forms.

A JMS value is kept as (kind, value): kind one of KINDS (Java's boolean, byte, short, char,
int, long, float, double, String, byte[]), value a bool, int, float, str or bytes (None for
a null String or byte[]). A float is kept as the nearest binary32 value, so reading it back
as a double gives what Java's widening gives. Conversions follow the tables 11-1
(StreamMessage) and 11-2 (MapMessage) of Oracle Database Advanced Queuing User's Guide,
"Introduction to Oracle Java Message Service", which are the same table, and JMS 1.1 section
3.5.4 for properties (the same without char and byte[]); where the guide allows String to
char (JMS 1.1 does not), a string of exactly one character converts.
"""

from __future__ import annotations

import math
import re
import struct
from decimal import Decimal
from typing import Any

from .errors import MessageFormatException, NumberFormatException

KINDS = ("boolean", "byte", "short", "char", "int", "long", "float", "double", "string", "bytes")
PROPERTY_KINDS = ("boolean", "byte", "short", "int", "long", "float", "double", "string")
INT_BITS = {"byte": 8, "short": 16, "int": 32, "long": 64}
# row: the kind written; the set: the kinds it may be read as (tables 11-1 and 11-2)
ALLOWED: dict[str, frozenset[str]] = {
    "boolean": frozenset({"boolean", "string"}),
    "byte": frozenset({"byte", "short", "int", "long", "string"}),
    "short": frozenset({"short", "int", "long", "string"}),
    "char": frozenset({"char", "string"}),
    "int": frozenset({"int", "long", "string"}),
    "long": frozenset({"long", "string"}),
    "float": frozenset({"float", "double", "string"}),
    "double": frozenset({"double", "string"}),
    "string": frozenset({"boolean", "byte", "short", "char", "int", "long", "float", "double",
                         "string"}),
    "bytes": frozenset({"bytes"}),
}
JAVA_NAMES = {"boolean": "boolean", "byte": "byte", "short": "short", "char": "char",
              "int": "int", "long": "long", "float": "float", "double": "double",
              "string": "String", "bytes": "byte[]"}
_JAVA_INT = re.compile(r"^[+-]?[0-9]+$")
_JAVA_FLOAT = re.compile(
    r"^[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)$")


def f32(x: float) -> float:
    """The binary32 value nearest x (Java's (float) cast): too large rounds to infinity."""
    try:
        return float(struct.unpack(">f", struct.pack(">f", x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


def shortest_f32(x: float) -> float:
    """The double with the fewest digits that is still the same float, x a binary32 value:
    what Java's Float.toString prints (1.1f is kept and shown as 1.1, not 1.100000023841858)."""
    if not math.isfinite(x) or x == 0:
        return x
    for p in range(1, 10):
        candidate = float(f"{x:.{p}g}")
        if f32(candidate) == x:
            return candidate
    return x


def _scientific(x: float, single: bool) -> str:
    d = Decimal(repr(shortest_f32(x) if single else x))
    sign, digit_tuple, exponent = d.as_tuple()
    assert isinstance(exponent, int)
    ds = "".join(map(str, digit_tuple))
    exp10 = len(ds) + exponent - 1  # the power of ten of the first digit
    ds = ds.rstrip("0") or "0"
    if 1e-3 <= abs(x) < 1e7:  # Java's plain range
        plain = format(abs(d), "f")
        if "." in plain:
            plain = plain.rstrip("0")
        else:
            plain += "."
        if plain.endswith("."):
            plain += "0"
        return ("-" if sign else "") + plain
    return f"{'-' if sign else ''}{ds[0]}.{ds[1:] or '0'}E{exp10}"


def java_float_text(x: float, single: bool) -> str:
    """Java's Float.toString / Double.toString: 1.0, 0.001, 1.0E7, 1.0E-4, NaN, Infinity."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    return _scientific(x, single)


def text_of(kind: str, value: Any) -> str | None:
    """The String a value reads as (String.valueOf of its Java value)."""
    if value is None:
        return None
    if kind == "boolean":
        return "true" if value else "false"
    if kind in ("float", "double"):
        return java_float_text(float(value), kind == "float")
    if kind == "bytes":
        raise MessageFormatException("a byte[] value cannot be read as a String", "JMS-117")
    return str(value)


def parse_int(text: str | None, kind: str) -> int:
    """Byte.valueOf / Short.valueOf / Integer.valueOf / Long.valueOf (null included)."""
    if text is None:
        raise NumberFormatException(f"null cannot be read as {kind}")
    if not _JAVA_INT.match(text):
        raise NumberFormatException(f"For input string: {text[:60]!r} (as {kind})")
    n = int(text)
    bits = INT_BITS[kind]
    if not -(2 ** (bits - 1)) <= n < 2 ** (bits - 1):
        raise NumberFormatException(f"Value out of range. Value:{text[:60]!r} (as {kind})")
    return n


def parse_float(text: str | None, single: bool) -> float:
    """Float.valueOf / Double.valueOf: surrounding whitespace trimmed, NaN, Infinity, an
    f or d suffix; too large is Infinity, as in Java."""
    what = "float" if single else "double"
    if text is None:
        raise NumberFormatException(f"null cannot be read as {what}")
    t = text.strip()
    if not _JAVA_FLOAT.match(t):
        raise NumberFormatException(f"For input string: {text[:60]!r} (as {what})")
    if t[-1] in "fFdD" and not t.endswith("Infinity"):
        t = t[:-1]
    x = float(t.replace("Infinity", "inf").replace("NaN", "nan"))
    return f32(x) if single else x


def convert(kind: str, value: Any, target: str, allowed: dict[str, frozenset[str]] = ALLOWED) -> Any:
    """`value`, written as `kind`, read as `target`; MessageFormatException for a
    conversion the table forbids, NumberFormatException for a string (or null) that does
    not parse."""
    if target not in allowed.get(kind, frozenset()):
        raise MessageFormatException(
            f"a {JAVA_NAMES.get(kind, kind)} value cannot be read as {JAVA_NAMES[target]}",
            "JMS-117")
    if kind == target:
        return bytes(value) if kind == "bytes" and value is not None else value
    if target == "string":
        return text_of(kind, value)
    if kind == "string":
        if target == "boolean":
            return value is not None and value.lower() == "true"  # Boolean.valueOf
        if target in INT_BITS:
            return parse_int(value, target)
        if target in ("float", "double"):
            return parse_float(value, target == "float")
        if target == "char":
            # a char is one UTF-16 code unit, as check() holds it: not a character beyond the BMP
            if value is None or len(value) != 1 or ord(value) > 0xFFFF:
                raise MessageFormatException(
                    f"a String of {'null' if value is None else len(value)} characters cannot "
                    "be read as char", "JMS-117")
            return value
    # widening: byte/short/int to larger integers, float to double
    if target == "double":
        return float(value)
    return int(value)


def check(kind: str, value: Any) -> Any:
    """A value given for `kind`, as Java's type would hold it; MessageFormatException when
    it cannot be one (a float for an int, 300 for a byte, a 2-character char)."""
    if kind == "string":
        if value is not None and not isinstance(value, str):
            raise MessageFormatException(f"a String value must be str, not {type(value).__name__}",
                                         "JMS-117")
        return value
    if kind == "bytes":
        if value is None:
            return None
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise MessageFormatException(f"a byte[] value must be bytes, not {type(value).__name__}",
                                         "JMS-117")
        return bytes(value)
    if value is None:
        raise MessageFormatException(f"a {kind} value cannot be null", "JMS-117")
    if kind == "boolean":
        if not isinstance(value, bool):
            raise MessageFormatException(f"a boolean value must be bool, not {type(value).__name__}",
                                         "JMS-117")
        return value
    if kind in INT_BITS:
        if isinstance(value, bool) or not isinstance(value, int):
            raise MessageFormatException(f"a {kind} value must be int, not {type(value).__name__}",
                                         "JMS-117")
        bits = INT_BITS[kind]
        if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
            raise MessageFormatException(f"{value} is out of range for {kind}", "JMS-117")
        return int(value)
    if kind in ("float", "double"):
        if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
            raise MessageFormatException(f"a {kind} value must be float, not {type(value).__name__}",
                                         "JMS-117")
        x = float(value)
        if kind == "float":
            y = f32(x)
            if math.isinf(y) and not math.isinf(x):
                raise MessageFormatException(f"{value} is out of range for float", "JMS-117")
            return y
        return x
    if kind == "char":
        if not isinstance(value, str) or len(value) != 1 or ord(value) > 0xFFFF:
            raise MessageFormatException("a char value is one UTF-16 code unit (a str of length 1)",
                                         "JMS-117")
        return value
    raise MessageFormatException(f"unknown value type {kind!r}", "JMS-117")


def kind_of_object(value: Any) -> str:
    """The Java type a Python value stands for in set_object/write_object: bool -> boolean,
    int -> int (long beyond 32 bits), float -> double, str -> String, bytes -> byte[]."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "int" if -(2 ** 31) <= value < 2 ** 31 else "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "bytes"
    raise MessageFormatException(
        f"{type(value).__name__} is not a JMS value type (bool, int, float, str, bytes)",
        "JMS-117")


# -- the engine's JSON form: {"type": kind, "value": json} ----------------------------------
_SPECIAL_OUT = {"nan": "NaN", "inf": "INF", "-inf": "-INF"}
_SPECIAL_IN = {"nan": math.nan, "inf": math.inf, "+inf": math.inf, "-inf": -math.inf,
               "infinity": math.inf, "+infinity": math.inf, "-infinity": -math.inf}


def to_json(kind: str, value: Any) -> Any:
    """A value as the engine's JSON keeps it (pgaq.idap.payload's convention): floats'
    special values as "NaN"/"INF"/"-INF" (and -0.0 as "-0.0"), a float as its shortest
    decimal, byte[] as hex."""
    if value is None:
        return None
    if kind in ("float", "double"):
        x = float(value)
        if not math.isfinite(x):
            return _SPECIAL_OUT[repr(x)]
        if x == 0 and math.copysign(1.0, x) < 0:
            return "-0.0"  # jsonb's numeric has no negative zero; Java's float and double do
        return shortest_f32(x) if kind == "float" else x
    if kind == "bytes":
        return bytes(value).hex().upper()
    return value


def from_json(kind: str, raw: Any) -> tuple[str, Any]:
    """(kind, value) from the engine's JSON, forgiving what SQL producers write: numbers as
    strings, Decimal, a plain scalar with no type (read as IDAP reads it)."""
    if kind not in KINDS:
        kind = ("boolean" if isinstance(raw, bool) else "long" if isinstance(raw, int)
                else "double" if isinstance(raw, (float, Decimal)) else "string")
    if raw is None:  # a null: only String and byte[] hold one
        return ("bytes", None) if kind == "bytes" else ("string", None)
    try:
        if kind == "boolean":
            return kind, raw if isinstance(raw, bool) else str(raw).lower() in ("true", "1")
        if kind in INT_BITS:
            return kind, check(kind, raw if isinstance(raw, int) and not isinstance(raw, bool)
                               else parse_int(str(raw).strip(), kind))
        if kind in ("float", "double"):
            if isinstance(raw, str):
                special = _SPECIAL_IN.get(raw.strip().lower())
                x = special if special is not None else float(raw)
            else:
                x = float(raw)
            return kind, f32(x) if kind == "float" else x
        if kind == "bytes":
            text = str(raw)
            return kind, bytes.fromhex(text[2:] if text.startswith("\\x") else text)
        if kind == "char":
            return kind, check("char", str(raw))
        return kind, str(raw)
    except (ValueError, MessageFormatException):
        return "string", str(raw)  # a value its type cannot hold: kept as the text it is
