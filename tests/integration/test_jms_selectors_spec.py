"""JMS message selectors as JMS 1.1 section 3.8.1 and issue 18 (part 3) say, table-driven.

Every row is written from the specification, not from what the compiler returns:
(selector, the message's properties with their JMS types, True/False = delivered or not,
or the ORA error an invalid selector gets). Each row goes through the paths a client meets:
a JMS message is enqueued into a single-consumer queue and dequeued with the selector as
the dequeue condition, and enqueued into a multi-consumer queue where a subscriber's rule
is the selector. The rows on header fields go through both paths with messages of both
delivery modes: a NON_PERSISTENT (buffered) message is stored apart from persistent ones,
and a selector reads the same headers from it, its JMSDeliveryMode 'NON_PERSISTENT'. A message is delivered only when the selector is TRUE: FALSE and UNKNOWN
(NULL, a missing property, unlike types) both keep it back, and `NOT (x)` tells them apart.

The rules the rows check (issue 18 part 3, on top of JMS 1.1 3.8.1.1):
  * strings and booleans compare only with = and <>; < <= > >= on them is UNKNOWN, as is a
    comparison of a string with a number or a boolean, and BETWEEN over unlike types;
  * arithmetic is exact decimal, as Oracle's NUMBER: an int property 5 divided by 2 is 2.5;
  * white space is what Java's Character.isWhitespace accepts, between any tokens;
  * three-valued logic for NULL and missing properties everywhere.

The same compiler serves AQ rules and SQL dequeue conditions on non-JMS queues: the rows of
SQL_ROWS show those keep Oracle SQL's semantics (strings order with <, implicit conversion).
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from pgaq import DequeueOptions, MessageProperties, Session
from pgaq.errors import PgaqError

from tests.conftest import _create_db

Typed = tuple[str, Any]


def S(v: str | None) -> Typed:
    return ("string", v)


def B(v: bool | None) -> Typed:
    return ("boolean", v)


def I(v: int) -> Typed:  # noqa: E743 - the JMS type's initial, as the rows read best
    return ("int", v)


def L(v: int) -> Typed:
    return ("long", v)


def SH(v: int) -> Typed:
    return ("short", v)


def BY(v: int) -> Typed:
    return ("byte", v)


def F(v: float) -> Typed:
    return ("float", v)


def D(v: float | str) -> Typed:
    return ("double", v)


@dataclass(frozen=True)
class Msg:
    """A JMS text message: header fields and typed user properties."""

    props: dict[str, Typed] = field(default_factory=dict)
    priority: int = 4
    corrid: str | None = None
    jms_type: str | None = None
    userid: str | None = None
    appid: str | None = None
    groupid: str | None = None
    groupseq: int | None = None

    def payload(self) -> dict[str, Any]:
        return {
            "header": {
                "type": self.jms_type, "userid": self.userid, "appid": self.appid,
                "groupid": self.groupid, "groupseq": self.groupseq,
                "properties": {k: {"type": t, "value": v} for k, (t, v) in self.props.items()},
            },
            "text_len": 1, "text_vc": "x",
        }


def P(**props: Typed) -> Msg:
    return Msg(props=props)


Row = tuple[str, Msg, "bool | str"]

# the message most rows use: one property of each kind, and `m` is never set
STD = P(s=S("abc"), t=B(True), f=B(False), n=I(5), d=D(2.5))
NONE = Msg()

# --------------------------------------------------------------------------------------
# strings: = and <> only (case-sensitive); < <= > >= are UNKNOWN, so NOT of them is too
# --------------------------------------------------------------------------------------
STRING_ROWS: list[Row] = [
    ("s = 'abc'", STD, True),
    ("s = 'ABC'", STD, False),
    ("NOT (s = 'ABC')", STD, True),
    ("s <> 'abc'", STD, False),
    ("NOT (s <> 'abc')", STD, True),
    ("s <> 'abd'", STD, True),
    ("'abc' = s", STD, True),
    ("s = 'it''s'", P(s=S("it's")), True),
    ("s = ''", P(s=S("")), True),
    ("s = 'a\tb'", P(s=S("a\tb")), True),
    ("s = 'Ж€'", P(s=S("Ж€")), True),
    ("s = t2", P(s=S("x"), t2=S("x")), True),
    ("s <> t2", P(s=S("x"), t2=S("y")), True),
]
for _op in ("<", "<=", ">", ">="):
    STRING_ROWS += [
        (f"s {_op} 'b'", STD, False),
        (f"NOT (s {_op} 'b')", STD, False),
        (f"s {_op} 'abc'", STD, False),
        (f"NOT (s {_op} 'abc')", STD, False),
        (f"s {_op} t2", P(s=S("a"), t2=S("b")), False),
        (f"NOT (s {_op} t2)", P(s=S("a"), t2=S("b")), False),
        (f"'a' {_op} 'b'", STD, False),
        (f"NOT ('a' {_op} 'b')", STD, False),
        (f"JMSCorrelationID {_op} 'B'", Msg(corrid="A"), False),
        (f"NOT (JMSCorrelationID {_op} 'B')", Msg(corrid="A"), False),
        (f"NOT (JMSType {_op} 'a')", Msg(jms_type="b"), False),
        (f"NOT (JMSDeliveryMode {_op} 'A')", STD, False),
    ]

# --------------------------------------------------------------------------------------
# booleans: = and <> only
# --------------------------------------------------------------------------------------
BOOLEAN_ROWS: list[Row] = [
    ("t = TRUE", STD, True),
    ("t = true", STD, True),
    ("t = FALSE", STD, False),
    ("NOT (t = FALSE)", STD, True),
    ("t <> FALSE", STD, True),
    ("t <> TRUE", STD, False),
    ("f = FALSE", STD, True),
    ("t = f", STD, False),
    ("t <> f", STD, True),
    ("t", STD, True),
    ("NOT t", STD, False),
    ("f", STD, False),
    ("NOT f", STD, True),
    ("TRUE", STD, True),
    ("FALSE", STD, False),
    ("NOT FALSE", STD, True),
    ("TRUE = TRUE", STD, True),
    ("(n = 5) = TRUE", STD, True),
    ("(n = 5) <> t", STD, False),
    ("s", STD, False),  # a string property is no condition: UNKNOWN
    ("NOT s", STD, False),
    ("n", STD, False),
    ("NOT n", STD, False),
]
for _op in ("<", "<=", ">", ">="):
    BOOLEAN_ROWS += [
        (f"t {_op} TRUE", STD, False),
        (f"NOT (t {_op} TRUE)", STD, False),
        (f"f {_op} t", STD, False),
        (f"NOT (f {_op} t)", STD, False),
        (f"TRUE {_op} FALSE", STD, False),
        (f"NOT (TRUE {_op} FALSE)", STD, False),
    ]

# --------------------------------------------------------------------------------------
# numbers: exact (byte, short, int, long) and approximate (float, double) compare freely
# --------------------------------------------------------------------------------------
NUMERIC_ROWS: list[Row] = [
    ("n = 5", STD, True),
    ("n <> 5", STD, False),
    ("NOT (n <> 5)", STD, True),
    ("n < 6", STD, True),
    ("n < 5", STD, False),
    ("NOT (n < 5)", STD, True),
    ("n <= 5", STD, True),
    ("n > 4", STD, True),
    ("n > 5", STD, False),
    ("n >= 5", STD, True),
    ("n >= 6", STD, False),
    ("NOT (n >= 6)", STD, True),
    ("5 = n", STD, True),
    ("6 > n", STD, True),
    ("n = 5.0", STD, True),
    ("n = 5e0", STD, True),
    ("n = 0.5E1", STD, True),
    ("n < 5.5", STD, True),
    ("n > 4.99", STD, True),
    ("n = d", STD, False),
    ("n > d", STD, True),
    ("d < n", STD, True),
    ("d = 2.5", STD, True),
    ("d = 25E-1", STD, True),
    ("d > 2", STD, True),
    ("d < 3", STD, True),
    ("d <> 2.5", STD, False),
    ("x = -3", P(x=BY(-3)), True),
    ("x < 0", P(x=BY(-3)), True),
    ("x > 299", P(x=SH(300)), True),
    ("x = 300", P(x=SH(300)), True),
    ("x = 9223372036854775807", P(x=L(9223372036854775807)), True),
    ("x > 9223372036854775806", P(x=L(9223372036854775807)), True),
    ("x = -9223372036854775808", P(x=L(-9223372036854775808)), True),
    ("x = .25", P(x=F(0.25)), True),
    ("x > 0.24", P(x=F(0.25)), True),
    ("x = 2147483648", P(x=L(2147483648)), True),
    ("x = y", P(x=I(7), y=L(7)), True),
    ("x = y", P(x=I(7), y=D(7.0)), True),
    ("x < y", P(x=BY(1), y=F(1.5)), True),
    # literal syntax: 7. and 95.7 and -57.9E2 are approximate, +62 and -957 exact
    ("7. = 7", STD, True),
    ("n + 90.7 = 95.7", STD, True),
    ("-57.9E2 = -5790", STD, True),
    ("+62 = 62", STD, True),
    ("-957 < -956", STD, True),
    ("7E3 = 7000", STD, True),
    # a double may be NaN or infinite (JSON spells them as strings): Java's comparisons
    ("x = x", P(x=D("NaN")), False),
    ("x <> 1", P(x=D("NaN")), True),
    ("NOT (x = 1)", P(x=D("NaN")), True),
    ("x < 1 OR x >= 1", P(x=D("NaN")), False),
    ("x BETWEEN 0 AND 1", P(x=D("NaN")), False),
    ("x NOT BETWEEN 0 AND 1", P(x=D("NaN")), False),
    ("NOT (x NOT BETWEEN 0 AND 1)", P(x=D("NaN")), True),   # FALSE, not UNKNOWN
    ("NOT (x NOT BETWEEN m AND 1)", P(x=D("NaN")), False),  # with a NULL bound: UNKNOWN
    ("x > 1.7976931348623157E308", P(x=D("INF")), True),
    ("x < -1E308", P(x=D("-INF")), True),
    ("x - x = 0", P(x=D("INF")), False),
    ("x - x <> 0", P(x=D("INF")), True),
    ("x * 1E308 * 1E308 * 1E308 * 1E308 > 1E308", P(x=D(1.5e308)), True),
    ("x * x * x * x * x * x * x * x < 0", P(x=D(-1e308), y=I(1)), False),
]

# --------------------------------------------------------------------------------------
# unlike types: a string compared with a number or a boolean, a boolean with a number, is
# UNKNOWN (neither the comparison nor its NOT delivers)
# --------------------------------------------------------------------------------------
MIXED_ROWS: list[Row] = []
for _sel in [
    "s5 = 5", "s5 <> 5", "n = '5'", "n <> '5'", "'5' = n", "n = s5", "n <> s5",
    "st = TRUE", "st <> TRUE", "t = 'true'", "t <> 'x'", "t = st",
    "t = 1", "t <> 1", "n = TRUE", "n <> FALSE", "d = t", "d <> s5",
    "s5 < 6", "s5 >= 5", "n < 'x'", "n >= s5", "t < 1", "d > t",
    "'a' = 1", "'a' <> 1", "1 <> TRUE", "'true' = TRUE", "TRUE <> 'x'", "1.5 = '1.5'",
    "JMSPriority = '4'", "JMSPriority <> 'x'", "JMSCorrelationID = 1", "JMSCorrelationID <> 1",
    "JMSType = FALSE", "JMSDeliveryMode <> 1", "JMSXGroupSeq = '1'",
    "JMSPriority < 'x'", "JMSCorrelationID > 0",
]:
    _m = P(s5=S("5"), st=S("true"), n=I(4), t=B(True), d=D(4.0))
    _m = Msg(props=_m.props, priority=4, corrid="A", jms_type="b", groupseq=1)
    MIXED_ROWS += [(_sel, _m, False), (f"NOT ({_sel})", _m, False)]

# --------------------------------------------------------------------------------------
# BETWEEN: x BETWEEN a AND b is x >= a AND x <= b; NOT BETWEEN is x < a OR x > b; a
# non-numeric operand makes the whole of it UNKNOWN
# --------------------------------------------------------------------------------------
BETWEEN_ROWS: list[Row] = [
    ("n BETWEEN 1 AND 10", STD, True),
    ("n BETWEEN 5 AND 5", STD, True),
    ("n BETWEEN 6 AND 10", STD, False),
    ("n NOT BETWEEN 6 AND 10", STD, True),
    ("NOT (n BETWEEN 6 AND 10)", STD, True),
    ("n NOT BETWEEN 1 AND 10", STD, False),
    ("n BETWEEN 10 AND 1", STD, False),
    ("n NOT BETWEEN 10 AND 1", STD, True),
    ("n BETWEEN 4.5 AND 5.5", STD, True),
    ("n BETWEEN 2 + 2 AND 3 * 2", STD, True),
    ("n between d and 6", STD, True),
    ("d BETWEEN 2 AND 3", STD, True),
    ("d NOT BETWEEN 2 AND 3", STD, False),
    ("d BETWEEN 2.5 AND 2.5", STD, True),
    ("JMSPriority BETWEEN 3 AND 5", Msg(priority=4), True),
    ("JMSPriority NOT BETWEEN 3 AND 5", Msg(priority=4), False),
    ("JMSPriority NOT BETWEEN 5 AND 9", Msg(priority=4), True),
    # NULL and missing operands: the AND / OR expansion's three-valued logic
    ("m BETWEEN 1 AND 10", STD, False),
    ("m NOT BETWEEN 1 AND 10", STD, False),
    ("NOT (m BETWEEN 1 AND 10)", STD, False),
    ("n BETWEEN m AND 10", STD, False),       # UNKNOWN AND TRUE
    ("NOT (n BETWEEN m AND 10)", STD, False),
    ("n NOT BETWEEN m AND 10", STD, False),   # UNKNOWN OR FALSE
    ("n BETWEEN m AND 1", STD, False),        # UNKNOWN AND FALSE = FALSE
    ("NOT (n BETWEEN m AND 1)", STD, True),
    ("n NOT BETWEEN m AND 1", STD, True),     # UNKNOWN OR TRUE = TRUE
    ("n BETWEEN NULL AND 1", STD, False),
    ("n NOT BETWEEN NULL AND 1", STD, True),
    ("n NOT BETWEEN 9 AND NULL", STD, True),
    ("n BETWEEN 1 AND NULL", STD, False),
    ("NOT (n BETWEEN 1 AND NULL)", STD, False),
]
for _sel, _m in [
    ("s5 BETWEEN 1 AND 10", P(s5=S("5"))),
    ("n BETWEEN 'a' AND 10", STD),
    ("n BETWEEN 'a' AND 1", STD),          # mixed types: UNKNOWN, though 5 <= 1 is FALSE
    ("n BETWEEN 6 AND s5", P(n=I(5), s5=S("9"))),
    ("n BETWEEN 1 AND TRUE", STD),
    ("n BETWEEN f AND 10", STD),
    ("t BETWEEN FALSE AND TRUE", STD),
    ("s BETWEEN 'a' AND 'z'", STD),
    ("s BETWEEN s AND s", STD),
    ("'b' BETWEEN 'a' AND 'c'", STD),
    ("JMSCorrelationID BETWEEN 'A' AND 'Z'", Msg(corrid="B")),
    ("JMSPriority BETWEEN 'a' AND 'b'", Msg(priority=4)),
    ("JMSPriority BETWEEN 'a' AND 1", Msg(priority=4)),
    ("JMSPriority BETWEEN 5 AND JMSType", Msg(priority=4, jms_type="x")),
]:
    _neg = _sel.replace(" BETWEEN ", " NOT BETWEEN ", 1)
    BETWEEN_ROWS += [(_sel, _m, False), (f"NOT ({_sel})", _m, False),
                     (_neg, _m, False), (f"NOT ({_neg})", _m, False)]

# --------------------------------------------------------------------------------------
# IN / NOT IN: string literals only; a NULL or non-string subject is UNKNOWN
# --------------------------------------------------------------------------------------
RED = P(c=S("RED"), n=I(5), t=B(True), z=S(None))
IN_ROWS: list[Row] = [
    ("c IN ('RED', 'GREEN')", RED, True),
    ("c IN ('GREEN', 'RED')", RED, True),
    ("c IN ('RED')", RED, True),
    ("c IN ('red')", RED, False),
    ("NOT (c IN ('red'))", RED, True),
    ("c NOT IN ('RED')", RED, False),
    ("c NOT IN ('BLUE', 'GREEN')", RED, True),
    ("NOT (c NOT IN ('BLUE', 'GREEN'))", RED, False),
    ("c in ('it''s')", P(c=S("it's")), True),
    ("c IN ('')", P(c=S("")), True),
    ("c IN ('RED', 'BLUE', 'GREEN') AND n < 30000", RED, True),
    ("JMSCorrelationID IN ('A', 'B')", Msg(corrid="A"), True),
    ("JMSCorrelationID NOT IN ('A', 'B')", Msg(corrid="A"), False),
    ("JMSCorrelationID NOT IN ('B')", Msg(corrid="A"), True),
    ("JMSType IN ('book', 'news')", Msg(jms_type="news"), True),
]
for _sel, _m in [
    ("m IN ('a')", RED),             # missing property
    ("z IN ('a')", RED),             # property whose value is null
    ("n IN ('5')", RED),             # not a string
    ("t IN ('true')", RED),
    ("JMSCorrelationID IN ('A')", Msg()),
    ("JMSType IN ('A')", Msg()),
    ("JMSPriority IN ('4')", Msg(priority=4)),
]:
    _neg = _sel.replace(" IN ", " NOT IN ", 1)
    IN_ROWS += [(_sel, _m, False), (f"NOT ({_sel})", _m, False),
                (_neg, _m, False), (f"NOT ({_neg})", _m, False)]

# --------------------------------------------------------------------------------------
# LIKE / NOT LIKE: _ one character, % any sequence, ESCAPE one character; a NULL or
# non-string subject is UNKNOWN
# --------------------------------------------------------------------------------------
LIKE_ROWS: list[Row] = [
    # the specification's own examples
    ("phone LIKE '12%3'", P(phone=S("123")), True),
    ("phone LIKE '12%3'", P(phone=S("12993")), True),
    ("phone LIKE '12%3'", P(phone=S("1234")), False),
    ("word LIKE 'l_se'", P(word=S("lose")), True),
    ("word LIKE 'l_se'", P(word=S("loose")), False),
    ("underscored LIKE '\\_%' ESCAPE '\\'", P(underscored=S("_foo")), True),
    ("underscored LIKE '\\_%' ESCAPE '\\'", P(underscored=S("bar")), False),
    ("phone NOT LIKE '12%3'", P(phone=S("123")), False),
    ("phone NOT LIKE '12%3'", P(phone=S("12993")), False),
    ("phone NOT LIKE '12%3'", P(phone=S("1234")), True),
    # more
    ("s LIKE 'abc%'", P(s=S("abc_1%")), True),
    ("s LIKE 'a_c%'", P(s=S("abc_1%")), True),
    ("s LIKE '%'", P(s=S("")), True),
    ("s LIKE '_'", P(s=S("")), False),
    ("s LIKE 'abc'", P(s=S("abc_1%")), False),
    ("s NOT LIKE 'abc'", P(s=S("abc_1%")), True),
    ("s LIKE 'abc!_1!%' ESCAPE '!'", P(s=S("abc_1%")), True),
    ("s LIKE 'abc!_1!%' ESCAPE '!'", P(s=S("abcx1%")), False),
    ("s NOT LIKE 'abc!_%' ESCAPE '!'", P(s=S("abcx1")), True),
    ("s LIKE '%!%' ESCAPE '!'", P(s=S("100%")), True),
    ("s LIKE '%!%' ESCAPE '!'", P(s=S("100")), False),
    ("s LIKE 'a!!b' ESCAPE '!'", P(s=S("a!b")), True),
    ("s LIKE 'a\\b'", P(s=S("a\\b")), True),       # no ESCAPE: a backslash is itself
    ("s LIKE 'a\\_b'", P(s=S("a_b")), False),
    ("s LIKE 'a%'", P(s=S("ABC")), False),          # case-sensitive
    ("s LIKE '%''%'", P(s=S("it's")), True),
    ("JMSCorrelationID LIKE 'RE%'", Msg(corrid="RE: hello"), True),
    ("JMSCorrelationID NOT LIKE 'RE%'", Msg(corrid="RE: hello"), False),
    ("JMSCorrelationID NOT LIKE 'RE%'", Msg(corrid="FW: hello"), True),
    ("JMSType LIKE 'b%k'", Msg(jms_type="book"), True),
]
for _sel, _m in [
    ("m LIKE 'a%'", STD),
    ("z LIKE '%'", P(z=S(None))),
    ("n LIKE '5'", STD),
    ("t LIKE 'true'", STD),
    ("d LIKE '2.5'", STD),
    ("JMSCorrelationID LIKE '%'", Msg()),
    ("JMSPriority LIKE '4'", Msg(priority=4)),
    ("m LIKE 'a!%' ESCAPE '!'", STD),
]:
    _neg = _sel.replace(" LIKE ", " NOT LIKE ", 1)
    LIKE_ROWS += [(_sel, _m, False), (f"NOT ({_sel})", _m, False),
                  (_neg, _m, False), (f"NOT ({_neg})", _m, False)]

# --------------------------------------------------------------------------------------
# IS [NOT] NULL: never UNKNOWN
# --------------------------------------------------------------------------------------
NULL_ROWS: list[Row] = [
    ("m IS NULL", STD, True),
    ("m IS NOT NULL", STD, False),
    ("NOT (m IS NULL)", STD, False),
    ("NOT (m IS NOT NULL)", STD, True),
    ("s IS NULL", STD, False),
    ("s IS NOT NULL", STD, True),
    ("z IS NULL", P(z=S(None)), True),
    ("z IS NOT NULL", P(z=I(0)), True),
    ("f IS NOT NULL", STD, True),
    ("m + 1 IS NULL", STD, True),
    ("n + 1 IS NULL", STD, False),
    ("n / 0 IS NULL", STD, True),
    ("NULL IS NULL", STD, True),
    ("m IS NULL AND s IS NOT NULL", STD, True),
    ("m = NULL", STD, False),
    ("NOT (m = NULL)", STD, False),
    ("n = NULL", STD, False),
    ("NOT (n <> NULL)", STD, False),
    ("NULL", STD, False),
    ("NOT NULL", STD, False),
    ("JMSCorrelationID IS NULL", Msg(), True),
    ("JMSCorrelationID IS NOT NULL", Msg(corrid="x"), True),
    ("JMSType IS NULL", Msg(), True),
    ("JMSType IS NOT NULL", Msg(jms_type="t"), True),
    ("JMSPriority IS NULL", Msg(), False),
    ("JMSMessageID IS NULL", Msg(), False),
    ("JMSTimestamp IS NOT NULL", Msg(), True),
    ("JMSXUserID IS NULL", Msg(), False),  # set by the provider: the enqueuing user (R__52)
    ("JMSXGroupSeq IS NULL", Msg(), True),
    ("JMSXGroupSeq IS NOT NULL", Msg(groupseq=3), True),
    ("JMSCorrelationID = 'x'", Msg(), False),
    ("NOT (JMSCorrelationID = 'x')", Msg(), False),
    ("NOT (JMSCorrelationID <> 'x')", Msg(), False),
]

# --------------------------------------------------------------------------------------
# arithmetic: exact decimal as Oracle's NUMBER; unary minus; precedence; UNKNOWN on NULL,
# on a non-numeric property and on division by zero
# --------------------------------------------------------------------------------------
ARITH_ROWS: list[Row] = [
    ("n / 2 = 2.5", STD, True),
    ("n / 2 = 2", STD, False),
    ("NOT (n / 2 = 2)", STD, True),
    ("n / 2 > 2", STD, True),
    ("n / 2 * 2 = 5", STD, True),
    ("n / 4 = 1.25", STD, True),
    ("5 / 2 = 2.5", STD, True),
    ("7 / 2 * 2 = 7", STD, True),
    ("-7 / 2 = -3.5", STD, True),
    ("x / y = 3.5", P(x=L(7), y=I(2)), True),
    ("x / y = 3", P(x=L(7), y=I(2)), False),
    ("x / y = 0.5", P(x=BY(1), y=SH(2)), True),
    ("n * 2 = 10", STD, True),
    ("n - 7 = -2", STD, True),
    ("n + 0.5 = 5.5", STD, True),
    ("n + d = 7.5", STD, True),
    ("d * 2 = n", STD, True),
    ("d / n = 0.5", STD, True),
    ("a + b = 0.3", P(a=D(0.1), b=D(0.2)), True),
    ("a * 3 = 0.3", P(a=D(0.1)), True),
    ("0.1 + 0.2 = 0.3", STD, True),
    ("x + 1 > 9223372036854775807", P(x=L(9223372036854775807)), True),
    ("x * 2 > 9223372036854775807", P(x=L(9223372036854775807)), True),
    ("x * x > 0", P(x=L(-9223372036854775808)), True),
    ("-n = -5", STD, True),
    ("- n = -5", STD, True),
    ("-(-n) = 5", STD, True),
    ("- -n = 5", STD, True),
    ("+n = 5", STD, True),
    ("-n * 2 = -10", STD, True),
    ("-d = -2.5", STD, True),
    ("n - -1 = 6", STD, True),
    ("2 + 3 * n = 17", STD, True),
    ("(2 + 3) * n = 25", STD, True),
    ("n - 2 - 2 = 1", STD, True),
    ("20 / n / 2 = 2", STD, True),
    ("n * 2 + 1 = 11", STD, True),
    ("1 + n * -2 = -9", STD, True),
    ("JMSPriority / 2 = 2.5", Msg(priority=5), True),
    ("JMSPriority * 1.5 = 7.5", Msg(priority=5), True),
    ("JMSPriority + n = 9", P(n=I(5)), True),
    ("JMSTimestamp / 1000 > 1600000000", Msg(), True),
    ("JMSTimestamp > 1000000000000", Msg(), True),
    ("JMSTimestamp < 0", Msg(), False),
    ("JMSXGroupSeq / 4 = 0.5", Msg(groupseq=2), True),
]
for _sel, _m in [
    ("n / 0 = 1", STD),
    ("n / (n - 5) = 0", STD),
    ("d / 0 > 0", STD),
    ("m + 1 = 1", STD),
    ("m * 0 = 0", STD),
    ("-m = 0", STD),
    ("s5 + 1 = 6", P(s5=S("5"))),
    ("t + 1 = 2", STD),
    ("-s5 = -5", P(s5=S("5"))),
    ("n + NULL = 5", STD),
]:
    ARITH_ROWS += [(_sel, _m, False), (f"NOT ({_sel})", _m, False)]

# --------------------------------------------------------------------------------------
# three-valued logic: AND, OR, NOT over TRUE, FALSE and UNKNOWN, as the SQL92 tables
# --------------------------------------------------------------------------------------
TV: dict[str, bool | None] = {"T": True, "F": False, "U": None}
TV_EXPR = {  # each truth value three ways: a comparison, a boolean property, a literal
    "T": ["(n = 5)", "t", "TRUE"],
    "F": ["(n = 6)", "f", "FALSE"],
    "U": ["(m = 1)", "m", "(n < s)"],
}


def _and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


def _or(a: bool | None, b: bool | None) -> bool | None:
    if a is True or b is True:
        return True
    return None if a is None or b is None else False


def _not(a: bool | None) -> bool | None:
    return None if a is None else not a


LOGIC_ROWS: list[Row] = []
for _x, _y in itertools.product("TFU", repeat=2):
    # pairs (comparison, literal), (property, property), (literal, comparison)
    for _ex, _ey in zip(TV_EXPR[_x], TV_EXPR[_y][::-1], strict=True):
        _a, _o = _and(TV[_x], TV[_y]), _or(TV[_x], TV[_y])
        LOGIC_ROWS += [
            (f"{_ex} AND {_ey}", STD, _a is True),
            (f"NOT ({_ex} AND {_ey})", STD, _not(_a) is True),
            (f"{_ex} OR {_ey}", STD, _o is True),
            (f"NOT ({_ex} OR {_ey})", STD, _not(_o) is True),
        ]
for _x in "TFU":
    for _ex in TV_EXPR[_x]:
        LOGIC_ROWS += [(f"NOT {_ex}", STD, _not(TV[_x]) is True),
                       (f"NOT NOT {_ex}", STD, TV[_x] is True)]
LOGIC_ROWS += [
    # precedence: NOT over AND over OR, comparison over NOT
    ("n = 1 OR n = 5 AND s = 'x'", STD, False),
    ("(n = 1 OR n = 5) AND s = 'abc'", STD, True),
    ("n = 5 OR n = 1 AND s = 'x'", STD, True),
    ("NOT n = 1 AND n = 5", STD, True),
    ("NOT (n = 1 AND n = 5) AND NOT n = 5", STD, False),
    ("NOT n = 5 OR TRUE", STD, True),
    ("m = 1 OR NOT (m = 1)", STD, False),  # no excluded middle with UNKNOWN
    ("m = 1 OR m IS NULL", STD, True),
    ("((((n = 5))))", STD, True),
    # keywords are case-insensitive, identifiers are not
    ("s like 'a%' and n between 1 and 10 and m is null", STD, True),
    ("n Between 1 And 10 Or FaLsE", STD, True),
    ("s iS nOt NuLl", STD, True),
    ("S = 'abc'", STD, False),
    ("S IS NULL", STD, True),
    ("N IS NULL", STD, True),
    # identifiers start with a Java identifier start character ($ and _ count)
    ("$x = 1 AND _y = 2 AND a$_1 = 3", P(**{"$x": I(1), "_y": I(2), "a$_1": I(3)}), True),
]

# --------------------------------------------------------------------------------------
# white space: Java's Character.isWhitespace, between any two tokens and around them all
# --------------------------------------------------------------------------------------
JAVA_WHITESPACE = [
    " ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f",
    "\u1680", "\u2000", "\u2003", "\u2006", "\u2008", "\u200a", "\u2028", "\u2029", "\u205f",
    "\u3000", "\r\n", " \t\n",
]
WS_TOKENS = [
    "s", "=", "'a_c'", "AND", "n", "BETWEEN", "-", "1", "AND", "10", "AND", "NOT", "(", "m",
    "IS", "NOT", "NULL", ")", "AND", "s", "IN", "(", "'x'", ",", "'a_c'", ")", "AND", "s",
    "LIKE", "'a!_%'", "ESCAPE", "'!'", "OR", "n", "*", "2", "/", "4", "<>", "2.5", "AND", "d",
    "NOT", "IN", "(", "'q'", ")",
]
WS_ROWS: list[Row] = []
for _w in JAVA_WHITESPACE:
    _sel = _w + _w.join(WS_TOKENS) + _w
    WS_ROWS += [
        (_sel, P(s=S("a_c"), n=I(5), d=S("p")), True),
        (_sel, P(s=S("abc"), n=I(5), d=S("p")), False),  # 10 / 4 <> 2.5 is FALSE too
        (_sel, P(s=S("abc"), n=I(6), d=S("p")), True),   # 12 / 4 <> 2.5 AND 'p' NOT IN ('q')
        (_sel, P(s=S("abc"), n=I(6), d=D(1.0)), False),  # a double NOT IN (...) is UNKNOWN
        (f"n{_w}>={_w}5{_w}AND{_w}t", STD, True),
        (f"n{_w}<={_w}4{_w}OR{_w}f", STD, False),
        (f"NOT{_w}n{_w}<>{_w}5", STD, True),
    ]
WS_ROWS += [
    ("s = 'a b'", P(s=S("a b")), True),     # white space in a literal is its own
    ("s = 'a\u2028b'", P(s=S("a\u2028b")), True),
    ("s = 'ab'", P(s=S("a b")), False),
]
# not Java white space: no-break spaces, zero-width space, NEL; a selector holding them
# between tokens is invalid
NOT_WHITESPACE = ["\u00a0", "\u2007", "\u202f", "\u200b", "\u0085", "\ufeff"]
for _w in NOT_WHITESPACE:
    WS_ROWS.append((f"n{_w}= 5", STD, "ORA-00936"))

# --------------------------------------------------------------------------------------
# header fields and JMS-defined properties allowed in selectors (JMS 1.1 3.8.1.1; the
# Oracle JMS guide's JMS message headers and JMSX properties)
# --------------------------------------------------------------------------------------
HEADER_ROWS: list[Row] = [
    ("JMSPriority = 5", Msg(priority=5), True),
    ("JMSPriority < 3", Msg(priority=5), False),
    ("JMSPriority >= 5 AND JMSPriority <= 5", Msg(priority=5), True),
    ("JMSPriority < 3 AND JMSCorrelationID = 'Fiction'", Msg(priority=2, corrid="Fiction"), True),
    ("JMSPriority < 3 AND JMSCorrelationID = 'Fiction'", Msg(priority=3, corrid="Fiction"), False),
    ("JMSCorrelationID = 'Fiction'", Msg(corrid="fiction"), False),
    ("JMSMessageID = '{msgid}'", Msg(), True),
    ("'{msgid}' = JMSMessageID", Msg(), True),
    ("JMSMessageID <> '{msgid}'", Msg(), False),
    ("JMSMessageID IN ('ID:0', '{msgid}')", Msg(), True),
    ("JMSMessageID = 'ID:23452345'", Msg(), False),
    ("NOT (JMSMessageID = 'ID:23452345')", Msg(), True),
    ("JMSMessageID LIKE 'ID:%'", Msg(), True),
    ("JMSMessageID = 1", Msg(), False),
    ("NOT (JMSMessageID = 1)", Msg(), False),
    ("JMSTimestamp >= 0", Msg(), True),
    ("JMSTimestamp = 'x'", Msg(), False),
    # {timestamp}: the message's enqueue time in ms since the epoch (Oracle JMS guide, "JMS
    # Message Headers": JMSTimeStamp "maps to Oracle Database Advanced Queuing message enqueue
    # time")
    ("JMSTimestamp = {timestamp}", Msg(), True),
    ("JMSTimestamp > {timestamp}", Msg(), False),
    ("JMSTimestamp BETWEEN {timestamp} - 1 AND {timestamp} + 1", Msg(), True),
    ("JMSTimestamp <> {timestamp}", Msg(), False),
    ("JMSType = 'book'", Msg(jms_type="book"), True),
    ("JMSType = 'book'", Msg(jms_type="news"), False),
    ("JMSType <> 'book'", Msg(), False),
    # JMSXUserID is the provider's (Oracle JMS guide, "JMS Message Properties": the client gets
    # it, never sets it): a client's 'alice' is replaced by the enqueuing database user
    ("JMSXUserID = 'alice'", Msg(userid="alice"), False),
    ("JMSXAppID = 'app1'", Msg(appid="app1"), True),
    ("JMSXAppID IS NULL", Msg(), True),
    ("JMSXGroupID = 'g1' AND JMSXGroupSeq = 2", Msg(groupid="g1", groupseq=2), True),
    ("JMSXGroupSeq > 1", Msg(groupseq=1), False),
    ("JMSXDeliveryCount = 1", Msg(), True),    # the first delivery attempt
    ("JMSXDeliveryCount > 1", Msg(), False),
    ("JMS_OracleDelay IS NULL", Msg(), True),  # a provider property not set
    ("JMS_OracleDelay = 0", P(JMS_OracleDelay=I(0)), True),
    # the Oracle JMS guide's examples ("MessageSelector")
    ("color IN ('RED', 'BLUE', 'GREEN') AND price < 30000", P(color=S("RED"), price=I(100)), True),
    ("color IN ('RED', 'BLUE', 'GREEN') AND price < 30000", P(color=S("RED"), price=L(30000)),
     False),
    # header fields a selector may not name, and reserved JMS names
    ("JMSExpiration > 0", Msg(), "ORA-00904"),
    ("JMSDestination IS NULL", Msg(), "ORA-00904"),
    ("JMSReplyTo IS NULL", Msg(), "ORA-00904"),
    ("JMSFoo = 1", Msg(), "ORA-00904"),
]

# JMSDeliveryMode: 'PERSISTENT' or 'NON_PERSISTENT' as the message was sent (JMS 1.1
# 3.8.1.1); NON_PERSISTENT is Oracle JMS's buffered message. (selector, message, selected
# when PERSISTENT, selected when NON_PERSISTENT)
ModeRow = tuple[str, Msg, bool, bool]
DELIVERY_MODE_ROWS: list[ModeRow] = [
    ("JMSDeliveryMode = 'PERSISTENT'", Msg(), True, False),
    ("JMSDeliveryMode = 'NON_PERSISTENT'", Msg(), False, True),
    ("'NON_PERSISTENT' = JMSDeliveryMode", Msg(), False, True),
    ("JMSDeliveryMode <> 'NON_PERSISTENT'", Msg(), True, False),
    ("JMSDeliveryMode <> 'PERSISTENT'", Msg(), False, True),
    ("NOT (JMSDeliveryMode = 'PERSISTENT')", Msg(), False, True),
    ("JMSDeliveryMode IN ('PERSISTENT')", Msg(), True, False),
    ("JMSDeliveryMode IN ('NON_PERSISTENT', 'X')", Msg(), False, True),
    ("JMSDeliveryMode NOT IN ('NON_PERSISTENT')", Msg(), True, False),
    ("JMSDeliveryMode LIKE 'NON%'", Msg(), False, True),
    ("JMSDeliveryMode NOT LIKE 'NON%'", Msg(), True, False),
    ("JMSDeliveryMode LIKE '%PERSISTENT'", Msg(), True, True),
    ("JMSDeliveryMode IS NOT NULL", Msg(), True, True),
    ("JMSDeliveryMode IS NULL", Msg(), False, False),
    ("JMSDeliveryMode = 'BUFFERED'", Msg(), False, False),  # Oracle's word, not JMS's value
    ("JMSDeliveryMode = 'non_persistent'", Msg(), False, False),
    ("JMSDeliveryMode = 1", Msg(), False, False),            # a string: unlike types
    ("NOT (JMSDeliveryMode = 1)", Msg(), False, False),
    ("JMSDeliveryMode = JMSCorrelationID", Msg(corrid="NON_PERSISTENT"), False, True),
    ("JMSDeliveryMode = JMSType", Msg(jms_type="PERSISTENT"), True, False),
    ("JMSDeliveryMode = 'NON_PERSISTENT' AND JMSPriority = 4", Msg(), False, True),
    ("JMSDeliveryMode = 'NON_PERSISTENT' AND JMSPriority = 5", Msg(), False, False),
    ("JMSDeliveryMode = 'NON_PERSISTENT' OR JMSPriority = 4", Msg(), True, True),
    ("JMSDeliveryMode = 'PERSISTENT' AND color = 'RED'", P(color=S("RED")), True, False),
]

# --------------------------------------------------------------------------------------
# invalid selectors
# --------------------------------------------------------------------------------------
ERROR_ROWS: list[Row] = [
    ("n = 9223372036854775808", STD, "ORA-00936"),  # exact literal past a long
    ("n = 1e400", STD, "ORA-00936"),
    ("s = 'abc", STD, "ORA-00936"),
    ("s = \"abc\"", STD, "ORA-00904"),
    ("s IN (1, 2)", STD, "ORA-00936"),
    ("s IN ('a', s)", STD, "ORA-00936"),
    ("s IN ()", STD, "ORA-00936"),
    ("s IN 'a'", STD, "ORA-00936"),
    ("s LIKE 5", STD, "ORA-00936"),
    ("s LIKE s", STD, "ORA-00936"),
    ("s LIKE 'a%' ESCAPE 'ab'", STD, "ORA-00936"),
    ("s LIKE 'a%' ESCAPE ''", STD, "ORA-00936"),
    ("s LIKE 'a!' ESCAPE '!'", STD, "ORA-00936"),
    ("s LIKE 'a%' ESCAPE s", STD, "ORA-00936"),
    ("n BETWEEN 1", STD, "ORA-00936"),
    ("n BETWEEN 1 OR 2", STD, "ORA-00936"),
    ("n IS 5", STD, "ORA-00936"),
    ("n = 5 = TRUE", STD, "ORA-00936"),
    ("n == 5", STD, "ORA-00936"),
    ("n = ", STD, "ORA-00936"),
    ("AND = 1", STD, "ORA-00936"),
    ("(n = 5", STD, "ORA-00936"),
    ("n = 5)", STD, "ORA-00936"),
    ("upper(s) = 'ABC'", STD, "ORA-00936"),
    ("s || 'x' = 'abcx'", STD, "ORA-00936"),
    ("n = 5; DELETE", STD, "ORA-00936"),
    ("'a' + 1 = 2", STD, "ORA-00932"),
    ("JMSPriority", STD, "ORA-00932"),
    ("'abc'", STD, "ORA-00932"),
    ("TRUE AND 5", STD, "ORA-00932"),
]

JMS_ROWS: list[Row] = (
    STRING_ROWS + BOOLEAN_ROWS + NUMERIC_ROWS + MIXED_ROWS + BETWEEN_ROWS + IN_ROWS + LIKE_ROWS
    + NULL_ROWS + ARITH_ROWS + LOGIC_ROWS + WS_ROWS + HEADER_ROWS + ERROR_ROWS
)


def _ids(rows: list[Any]) -> list[str]:
    return [f"{i}:{r[0]!r}"[:90] for i, r in enumerate(rows)]


# --------------------------------------------------------------------------------------
# SQL conditions and AQ rules on a non-JMS queue keep Oracle SQL's semantics
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Car:
    carno: str = "c1"
    price: int | float | None = 100
    color: str | None = "RED"
    qty: int | None = 3
    corrid: str | None = None
    priority: int = 1


SqlRow = tuple[str, Car, "bool | str"]
SQL_ROWS: list[SqlRow] = [
    ("tab.user_data.price > 30000", Car(price=40000), True),
    ("tab.user_data.price > 30000", Car(price=100), False),
    ("tab.user_data.price > '30000'", Car(price=40000), True),     # implicit conversion
    ("tab.user_data.price = '100'", Car(price=100), True),
    ("priority = '1'", Car(priority=1), True),
    ("tab.corrid < 'B'", Car(corrid="A"), True),                   # strings order in SQL
    ("tab.corrid < 'B'", Car(corrid="C"), False),
    ("NOT (tab.corrid < 'B')", Car(corrid="C"), True),
    ("corrid >= 'ORD-1'", Car(corrid="ORD-2"), True),
    ("corrid BETWEEN 'A' AND 'C'", Car(corrid="B"), True),
    ("corrid NOT BETWEEN 'A' AND 'C'", Car(corrid="D"), True),
    ("tab.user_data.color > 'M'", Car(color="RED"), True),
    ("tab.user_data.color <= 'M'", Car(color="BLUE"), True),
    ("tab.user_data.qty / 2 = 1.5", Car(qty=3), True),
    ("tab.user_data.qty * 2 + 1 = 7", Car(qty=3), True),
    ("tab.user_data.price / 0 = 1", Car(price=100), False),
    ("tab.user_data.color IN ('RED', NULL)", Car(color="RED"), True),
    ("tab.user_data.color NOT IN ('BLUE', NULL)", Car(color="RED"), False),
    ("tab.user_data.color LIKE 'R%'", Car(color="RED"), True),
    ("tab.user_data.color IS NULL", Car(color=None), True),
    ("tab.user_data.color = 'RED' OR tab.user_data.price IS NULL", Car(color="BLUE", price=None),
     True),
    ("NOT (tab.user_data.price > 10)", Car(price=None), False),
    ("upper(tab.user_data.color) = 'RED'", Car(color="red"), True),
    ("tab.user_data.price\t>\n30000\r", Car(price=40000), True),
    # the Oracle JMS guide's selectors for AdtMessage payloads ("MessageSelector");
    # {hexid} is the message identifier without JMS's "ID:"
    ("priority < 3 AND corrid = 'Fiction'", Car(priority=2, corrid="Fiction"), True),
    ("priority < 3 AND corrid = 'Fiction'", Car(priority=3, corrid="Fiction"), False),
    ("tab.user_data.color = 'GREEN' AND tab.user_data.price < 30000",
     Car(color="GREEN", price=100), True),
    ("tab.user_data.color = 'GREEN' AND tab.user_data.price < 30000",
     Car(color="GREEN", price=30000), False),
    ("msgid = '{hexid}'", Car(), True),
    ("msgid = '23434556566767676'", Car(), False),
    ("priority = 'abc'", Car(), "ORA-00932"),
    ("JMSPriority = 1", Car(), "ORA-00904"),
    ("tab.user_data.nosuch = 1", Car(), "ORA-00904"),
]


# --------------------------------------------------------------------------------------
# fixtures: one database, four queues, reused by every row
# --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
async def qdb(cluster: Any, template_db: str) -> AsyncIterator[asyncpg.Connection]:
    name = await _create_db(cluster, template_db)  # the suite's own clone of the template
    conn = await asyncpg.connect(cluster.dsn(name))
    await conn.execute("CREATE SCHEMA s; CREATE TYPE s.car AS"
                       " (carno text, price numeric, color text, qty integer)")
    for qt, payload, multi in [("s.jq1t", "SYS.AQ$_JMS_TEXT_MESSAGE", False),
                               ("s.jqnt", "SYS.AQ$_JMS_TEXT_MESSAGE", True),
                               ("s.oq1t", "s.car", False), ("s.oqnt", "s.car", True)]:
        await conn.execute(
            "CALL dbms_aqadm.create_queue_table(queue_table => $1, queue_payload_type => $2,"
            " multiple_consumers => $3)", qt, payload, multi)
        q = qt[:-1]
        await conn.execute("CALL dbms_aqadm.create_queue(queue_name => $1, queue_table => $2)",
                           q, qt)
        await conn.execute("CALL dbms_aqadm.start_queue(queue_name => $1)", q)
        if multi:
            # both delivery modes, as a JMS durable subscriber takes them
            for sub, rule in [("ALL", None), ("SEL", "TRUE")]:
                await conn.execute(
                    "CALL dbms_aqadm.add_subscriber(queue_name => $1,"
                    " subscriber => sys.aq$_agent($2, NULL, NULL), rule => $3,"
                    " delivery_mode => 'PERSISTENT_OR_BUFFERED')", q, sub, rule)
    try:
        yield conn
    finally:
        await conn.close()
        admin = await asyncpg.connect(cluster.dsn())
        try:
            await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        finally:
            await admin.close()


MODES = ["PERSISTENT", "BUFFERED"]  # the engine's names of JMS's PERSISTENT, NON_PERSISTENT
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _visibility(mode: str) -> str:
    return "IMMEDIATE" if mode == "BUFFERED" else "ON_COMMIT"  # buffered messages need it


async def _single(conn: asyncpg.Connection, queue: str, payload: Any, props: MessageProperties,
                  condition: str, mode: str = "PERSISTENT") -> bool | str:
    """Enqueue, then dequeue with the condition: delivered, or the ORA code of the refusal."""
    s = Session(conn)
    vis = _visibility(mode)
    mid = await s.enqueue(queue, payload, props, delivery_mode=mode, visibility=vis)
    condition = condition.replace("{msgid}", f"ID:{mid}").replace("{hexid}", mid)
    if "{timestamp}" in condition:
        [seen] = await s.dequeue(queue, DequeueOptions(dequeue_mode="BROWSE", msgid=mid, wait=0,
                                                       delivery_mode=mode, visibility=vis))
        ms = (seen.enqueue_time - EPOCH) // timedelta(milliseconds=1)
        condition = condition.replace("{timestamp}", str(ms))
    result: bool | str
    try:
        got = await s.dequeue(queue, DequeueOptions(condition=condition, wait=0,
                                                    delivery_mode=mode, visibility=vis))
    except PgaqError as exc:
        assert exc.ora is not None, str(exc)
        result = exc.ora
    else:
        assert [m.msgid for m in got] in ([], [mid])
        result = bool(got)
    if result is not True:  # the message stays for the next row otherwise
        [left] = await s.dequeue(queue, DequeueOptions(wait=0, delivery_mode=mode, visibility=vis))
        assert left.msgid == mid
    return result


async def _rule(conn: asyncpg.Connection, queue: str, payload: Any, props: MessageProperties,
                rule: str, mode: str = "PERSISTENT") -> bool | str:
    """Make the rule subscriber SEL's, enqueue: delivered to SEL, or the ORA of the refusal."""
    try:
        await conn.execute(
            "CALL dbms_aqadm.alter_subscriber(queue_name => $1,"
            " subscriber => sys.aq$_agent('SEL', NULL, NULL), rule => $2)", queue, rule)
    except asyncpg.PostgresError as exc:
        assert str(exc).startswith("ORA-"), str(exc)
        return str(exc)[:9]
    s = Session(conn)
    vis = _visibility(mode)
    mid = await s.enqueue(queue, payload, props, delivery_mode=mode, visibility=vis)
    got = await s.dequeue(queue, DequeueOptions(consumer_name="SEL", wait=0, delivery_mode=mode,
                                                visibility=vis))
    assert [m.msgid for m in got] in ([], [mid])
    [everyone] = await s.dequeue(queue, DequeueOptions(consumer_name="ALL", wait=0,
                                                       delivery_mode=mode, visibility=vis))
    assert everyone.msgid == mid
    return bool(got)


def _jms_props(m: Msg) -> MessageProperties:
    return MessageProperties(priority=m.priority, correlation=m.corrid)


@pytest.mark.parametrize(("selector", "msg", "expected"), JMS_ROWS, ids=_ids(JMS_ROWS))
async def test_jms_selector_on_dequeue(qdb: asyncpg.Connection, selector: str, msg: Msg,
                                       expected: bool | str) -> None:
    """A single-consumer receiver with the selector gets the message only when it is TRUE."""
    got = await _single(qdb, "s.jq1", msg.payload(), _jms_props(msg), selector)
    assert got == expected, (selector, msg)


# rows naming what only the enqueue sets ({msgid}, {timestamp}) are no rule: it is made
# before the message exists
RULE_ROWS = [r for r in JMS_ROWS if "{" not in r[0]]


@pytest.mark.parametrize(("selector", "msg", "expected"), RULE_ROWS, ids=_ids(RULE_ROWS))
async def test_jms_selector_as_subscriber_rule(qdb: asyncpg.Connection, selector: str, msg: Msg,
                                               expected: bool | str) -> None:
    """A durable subscriber whose selector is TRUE for the message is one of its recipients."""
    got = await _rule(qdb, "s.jqn", msg.payload(), _jms_props(msg), selector)
    assert got == expected, (selector, msg)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("selector", "msg", "expected"), HEADER_ROWS, ids=_ids(HEADER_ROWS))
async def test_header_selector_on_dequeue_both_modes(qdb: asyncpg.Connection, selector: str,
                                                     msg: Msg, expected: bool | str,
                                                     mode: str) -> None:
    """A selector on a header field reads the same value from a buffered (NON_PERSISTENT)
    message as from a persistent one."""
    got = await _single(qdb, "s.jq1", msg.payload(), _jms_props(msg), selector, mode)
    assert got == expected, (selector, msg, mode)


HEADER_RULE_ROWS = [r for r in HEADER_ROWS if "{" not in r[0]]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("selector", "msg", "expected"), HEADER_RULE_ROWS,
                         ids=_ids(HEADER_RULE_ROWS))
async def test_header_selector_as_subscriber_rule_both_modes(qdb: asyncpg.Connection,
                                                             selector: str, msg: Msg,
                                                             expected: bool | str,
                                                             mode: str) -> None:
    """A durable subscriber's rule on a header field, evaluated when a message of either
    delivery mode is enqueued."""
    got = await _rule(qdb, "s.jqn", msg.payload(), _jms_props(msg), selector, mode)
    assert got == expected, (selector, msg, mode)


def _mode_rows() -> list[tuple[str, Msg, str, bool]]:
    return [(sel, m, mode, persistent if mode == "PERSISTENT" else buffered)
            for sel, m, persistent, buffered in DELIVERY_MODE_ROWS for mode in MODES]


@pytest.mark.parametrize(("selector", "msg", "mode", "expected"), _mode_rows(),
                         ids=[f"{mode}:{sel}"[:90] for sel, _, mode, _ in _mode_rows()])
async def test_delivery_mode_selector_on_dequeue(qdb: asyncpg.Connection, selector: str,
                                                 msg: Msg, mode: str, expected: bool) -> None:
    """JMSDeliveryMode in a consumer's selector is the message's own mode."""
    got = await _single(qdb, "s.jq1", msg.payload(), _jms_props(msg), selector, mode)
    assert got == expected, (selector, mode)


@pytest.mark.parametrize(("selector", "msg", "mode", "expected"), _mode_rows(),
                         ids=[f"{mode}:{sel}"[:90] for sel, _, mode, _ in _mode_rows()])
async def test_delivery_mode_selector_as_subscriber_rule(qdb: asyncpg.Connection, selector: str,
                                                         msg: Msg, mode: str,
                                                         expected: bool) -> None:
    """JMSDeliveryMode in a durable subscriber's rule is the enqueued message's mode."""
    got = await _rule(qdb, "s.jqn", msg.payload(), _jms_props(msg), selector, mode)
    assert got == expected, (selector, mode)


def _car(c: Car) -> tuple[dict[str, Any], MessageProperties]:
    return ({"carno": c.carno, "price": c.price, "color": c.color, "qty": c.qty},
            MessageProperties(priority=c.priority, correlation=c.corrid))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("condition", "car", "expected"), SQL_ROWS, ids=_ids(SQL_ROWS))
async def test_sql_condition_on_dequeue(qdb: asyncpg.Connection, condition: str, car: Car,
                                        expected: bool | str, mode: str) -> None:
    """A dequeue condition on an object queue is Oracle SQL: strings order, NULLs are SQL's;
    on persistent and buffered messages alike."""
    payload, props = _car(car)
    assert await _single(qdb, "s.oq1", payload, props, condition, mode) == expected


SQL_RULE_ROWS = [r for r in SQL_ROWS if "{" not in r[0]]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("condition", "car", "expected"), SQL_RULE_ROWS, ids=_ids(SQL_RULE_ROWS))
async def test_sql_condition_as_subscriber_rule(qdb: asyncpg.Connection, condition: str, car: Car,
                                                expected: bool | str, mode: str) -> None:
    """An AQ subscriber rule on an object queue is Oracle SQL too."""
    payload, props = _car(car)
    assert await _rule(qdb, "s.oqn", payload, props, condition, mode) == expected


async def test_row_tables_cover_every_comparison_operator(qdb: asyncpg.Connection) -> None:
    """The tables name every operator the brief asks for, on strings, booleans and numbers."""
    text = "\n".join(r[0] for r in JMS_ROWS)
    for op in ("=", "<>", "<", "<=", ">", ">=", " BETWEEN ", " NOT BETWEEN ", " IN ", " NOT IN ",
               " LIKE ", " NOT LIKE ", " ESCAPE ", " IS NULL", " IS NOT NULL", "/", "*", "-", "+"):
        assert op in text, op
    for ws in JAVA_WHITESPACE:
        assert any(ws in r[0] for r in WS_ROWS), repr(ws)


def test_header_rows_name_every_header_a_selector_may() -> None:
    """JMS 1.1 3.8.1.1: "Message header field references are restricted to JMSDeliveryMode,
    JMSPriority, JMSMessageID, JMSTimestamp, JMSCorrelationID, and JMSType"; each is in rows
    run on messages of both delivery modes, as are the JMSX properties Oracle sets."""
    both = "\n".join([r[0] for r in HEADER_ROWS] + [r[0] for r in DELIVERY_MODE_ROWS])
    for name in ("JMSDeliveryMode", "JMSPriority", "JMSMessageID", "JMSTimestamp",
                 "JMSCorrelationID", "JMSType", "JMSXUserID", "JMSXAppID", "JMSXGroupID",
                 "JMSXGroupSeq", "JMSXDeliveryCount"):
        assert name in both, name
