"""aq.compile_condition: AQ dequeue conditions / subscriber rules and JMS message selectors.

One database per module: two message tables (`jmsg` with a JMS text payload, `amsg` with a
composite test payload) are filled once; every case compiles a condition, runs the
generated SQL with EXECUTE ... USING params, and compares the selected row ids.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

import asyncpg
import pytest

TEMPLATE = "pgaq_template"

JMS_PAYLOAD = "sys.aq$_jms_text_message"
AQ_PAYLOAD = "condtest.payload"

# --------------------------------------------------------------------------------------
# test data
# --------------------------------------------------------------------------------------

# JMS rows: id -> (delivery mode when not PERSISTENT, priority, corrid, retry_count, header
# fields, properties)
# properties: name -> (type, value); None = properties column NULL
JMS_ROWS: dict[int, dict[str, Any]] = {
    1: dict(
        priority=1,
        corrid="Fiction",
        retry=0,
        type="book",
        userid="alice",
        appid="app1",
        groupid="g1",
        groupseq=1,
        props={
            "color": ("string", "RED"),
            "price": ("int", 100),
            "weight": ("double", 1.5),
            "flag": ("boolean", True),
            "name": ("string", "abc_1%"),
            "size": ("string", "10"),
        },
    ),
    2: dict(
        mode="BUFFERED",  # a NON_PERSISTENT message, in the buffered companion table
        priority=3,
        corrid="RE: hello",
        retry=0,
        type="news",
        userid="bob",
        appid=None,
        groupid="g1",
        groupseq=2,
        props={
            "color": ("string", "BLUE"),
            "price": ("long", 30000),
            "weight": ("double", 2.0),
            "flag": ("boolean", False),
            "name": ("string", "abcx1"),
        },
    ),
    3: dict(
        priority=5,
        corrid=None,
        retry=1,
        type=None,
        userid=None,
        appid=None,
        groupid=None,
        groupseq=None,
        props={
            "color": ("string", "GREEN"),
            "price": ("string", "50"),
            "weight": ("int", 2),
            "flag": ("string", "true"),
        },
    ),
    4: dict(
        priority=9,
        corrid="x",
        retry=0,
        type="book",
        userid=None,
        appid=None,
        groupid=None,
        groupseq=None,
        props={},
    ),
    5: dict(
        priority=0,
        corrid="Fiction",
        retry=2,
        type=None,
        userid=None,
        appid=None,
        groupid=None,
        groupseq=None,
        props={"color": ("string", None), "price": ("double", 29999.5), "flag": ("boolean", True)},
    ),
    6: dict(
        priority=4,
        corrid="RE%",
        retry=0,
        type=None,
        userid=None,
        appid=None,
        groupid=None,
        groupseq=None,
        props={"Color": ("string", "red"), "price": ("short", 7), "qty": ("byte", -3)},
    ),
    7: dict(
        mode="BUFFERED",
        priority=2,
        corrid="y",
        retry=0,
        type=None,
        userid=None,
        appid=None,
        groupid=None,
        groupseq=None,
        props=None,
    ),
    8: dict(
        priority=6,
        corrid="z",
        retry=0,
        type=None,
        userid=None,
        appid=None,
        groupid=None,
        groupseq=None,
        props={"price": ("int", 0), "weight": ("float", -0.5), "color": ("string", "a'b")},
    ),
}
ALL_J = sorted(JMS_ROWS)
BASE_MS = 1704067200000  # 2024-01-01T00:00:00Z in ms; row i is enqueued i seconds later


def hexid(i: int) -> str:
    return f"{i:032X}"


AQ_SETUP = """
CREATE SCHEMA condtest;
CREATE TYPE condtest.customer AS (name text, "Level" integer);
CREATE TYPE condtest.payload AS (color text, price numeric, qty integer, flag boolean,
                                 created timestamptz, customer condtest.customer, data bytea);
CREATE TABLE condtest.canary (x integer);
INSERT INTO condtest.canary VALUES (1);
"""

M_COLUMNS = """
    id integer PRIMARY KEY, msgid bytea, corrid text, priority integer, enq_time timestamptz,
    delay integer, expiration integer, retry_count integer, state integer, sender_name text,
    sender_address text, sender_protocol integer, original_msgid bytea, exception_queue text,
    enq_uid text, delivery_mode text NOT NULL DEFAULT 'PERSISTENT'
"""

EVAL_FN = """
CREATE FUNCTION condtest.sel(p_table text, p_cond text, p_dialect text, p_payload regtype,
                             p_param integer DEFAULT 1, p_offset integer DEFAULT 0)
RETURNS integer[] LANGUAGE plpgsql AS $$
DECLARE c aq.compiled_condition; r integer[]; pad text[];
BEGIN
  c := aq.compile_condition(p_cond, p_dialect, p_payload, p_param, p_offset);
  pad := array_fill('pad'::text, ARRAY[p_offset]);
  IF p_param = 1 THEN
    EXECUTE format('SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM condtest.%I m WHERE %s',
                   p_table, coalesce(c.sql, 'true'))
       INTO r USING coalesce(pad || c.params, pad);
  ELSE
    EXECUTE format('SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM condtest.%I m '
                   'WHERE $1 = ''x'' AND %s', p_table, coalesce(c.sql, 'true'))
       INTO r USING 'x'::text, coalesce(pad || c.params, pad);
  END IF;
  RETURN r;
END $$;
"""


async def _fill(conn: asyncpg.Connection) -> None:
    await conn.execute(AQ_SETUP)
    await conn.execute(f"CREATE TABLE condtest.jmsg ({M_COLUMNS}, user_data {JMS_PAYLOAD})")
    await conn.execute(f"CREATE TABLE condtest.amsg ({M_COLUMNS}, user_data {AQ_PAYLOAD})")
    await conn.execute(EVAL_FN)
    import json

    for i, r in JMS_ROWS.items():
        props = None
        if r["props"] is not None:
            props = json.dumps({k: {"type": t, "value": v} for k, (t, v) in r["props"].items()})
        await conn.execute(
            """INSERT INTO condtest.jmsg (id, msgid, corrid, priority, enq_time, delay, expiration,
                   retry_count, state, enq_uid, user_data, delivery_mode)
               VALUES ($1, decode($2, 'hex'), $3, $4,
                       '2024-01-01 00:00:00+00'::timestamptz
                         + make_interval(secs => $1::integer),
                       0, NULL, $5, 0, 'u',
                       ROW(ROW(NULL, $6, $7, $8, $9, $10, $11::jsonb)::sys.aq$_jms_header,
                           3, 'txt')::sys.aq$_jms_text_message, $12)""",
            i,
            hexid(i),
            r["corrid"],
            r["priority"],
            r["retry"],
            r["type"],
            r["userid"],
            r["appid"],
            r["groupid"],
            r["groupseq"],
            props,
            r.get("mode", "PERSISTENT"),
        )
    await conn.execute(
        """INSERT INTO condtest.amsg (id, msgid, corrid, priority, enq_time, delay, expiration,
               retry_count, state, sender_name, enq_uid, user_data) VALUES
         (1, decode(lpad('1', 32, '0'), 'hex'), 'ORD-1', 1, '2024-01-01 00:00:01+00',
          0, NULL, 0, 0, 'alice', 'u',
          ROW('RED', 10.5, 3, true, '2024-03-01 00:00:00+00', ROW('Acme', 1), '\\x01')),
         (2, decode(lpad('2', 32, '0'), 'hex'), 'ORD-2', 2, '2024-01-01 00:00:02+00',
          10, 60, 1, 0, 'bob', 'u',
          ROW('BLUE', 30000, 0, false, '2024-06-01 00:00:00+00', ROW('Bolt', 2), NULL)),
         (3, decode(lpad('3', 32, '0'), 'hex'), '42', 3, '2024-01-01 00:00:03+00', 0, NULL, 2, 1,
          NULL, 'u', ROW('GREEN', NULL, NULL, NULL, NULL, NULL, NULL)),
         (4, decode(lpad('4', 32, '0'), 'hex'), NULL, 5, '2024-01-01 00:00:04+00', 0, 3600, 0, 0,
          'carol', 'u', NULL),
         (5, decode(lpad('5', 32, '0'), 'hex'), 'ord_5', 9, '2024-01-01 00:00:05+00',
          0, NULL, 0, 0, 'dave', 'u',
          ROW('red', 99.99, -1, true, '2023-12-31 00:00:00+00', ROW('acme', NULL), NULL))
        """
    )


@pytest.fixture(scope="module")
async def cdb(cluster: Any, template_db: str) -> AsyncIterator[asyncpg.Connection]:
    name = f"cond{os.getpid()}"
    admin = await asyncpg.connect(cluster.dsn())
    try:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await admin.execute(f"CREATE DATABASE {name} TEMPLATE {template_db} STRATEGY FILE_COPY")
    finally:
        await admin.close()
    conn = await asyncpg.connect(cluster.dsn(name))
    await conn.execute("SET TIME ZONE 'UTC'")
    await _fill(conn)
    try:
        yield conn
    finally:
        await conn.close()
        admin = await asyncpg.connect(cluster.dsn())
        try:
            await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        finally:
            await admin.close()


_ALLOWED_CONSTANTS = re.compile(r"'hex'|'ID:'|''")


def _assert_hygienic(sql: str) -> None:
    """The generated SQL contains no user text: only compiler constants are quoted."""
    assert "'" not in _ALLOWED_CONSTANTS.sub("", sql), sql
    assert ";" not in sql and "--" not in sql and "/*" not in sql, sql


async def select(
    conn: asyncpg.Connection, table: str, cond: str | None, dialect: str, **kw: int
) -> list[int]:
    payload = JMS_PAYLOAD if table == "jmsg" else AQ_PAYLOAD
    c = await conn.fetchrow(
        "SELECT (c).sql, (c).params FROM (SELECT aq.compile_condition($1, $2, $3::regtype,"
        " $4, $5) AS c) s",
        cond,
        dialect,
        payload,
        kw.get("param", 1),
        kw.get("offset", 0),
    )
    if c["sql"] is not None:
        _assert_hygienic(c["sql"])
    ids = await conn.fetchval(
        "SELECT condtest.sel($1, $2, $3, $4::regtype, $5, $6)",
        table,
        cond,
        dialect,
        payload,
        kw.get("param", 1),
        kw.get("offset", 0),
    )
    return list(ids)


# --------------------------------------------------------------------------------------
# reference semantics for generated JMS comparisons
# --------------------------------------------------------------------------------------

EXACT = {"int", "long", "short", "byte"}
APPROX = {"float", "double"}


def kind(tv: tuple[str, Any] | None) -> str | None:
    if tv is None or tv[1] is None:
        return None
    t = tv[0]
    if t in EXACT:
        return "exact"
    if t in APPROX:
        return "approx"
    return t  # string / boolean


def jms_cmp(a: tuple[str, Any] | None, op: str, b: tuple[str, Any] | None) -> bool | None:
    """Numbers compare as exact decimals (Oracle's NUMBER); strings and booleans only with
    = and <>; NULL, unlike types and an ordering of strings or booleans are UNKNOWN."""
    ka, kb = kind(a), kind(b)
    if ka is None or kb is None:
        return None
    assert a is not None and b is not None
    num = ("exact", "approx")
    if ka in num and kb in num:
        x, y = Decimal(str(a[1])), Decimal(str(b[1]))
        res: bool = {"=": x == y, "<>": x != y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[
            op
        ]
        return res
    if op not in ("=", "<>") or ka != kb:
        return None
    return bool(a[1] == b[1]) if op == "=" else bool(a[1] != b[1])


def header(row: dict[str, Any], i: int, name: str) -> tuple[str, Any] | None:
    return {
        "JMSPriority": ("int", row["priority"]),
        "JMSCorrelationID": ("string", row["corrid"]),
        "JMSType": ("string", row["type"]),
        "JMSXGroupSeq": ("int", row["groupseq"]),
        "JMSXDeliveryCount": ("int", row["retry"] + 1),
        "JMSRedelivered": ("boolean", row["retry"] > 0),
        "JMSDeliveryMode": ("string", "NON_PERSISTENT" if row.get("mode") == "BUFFERED"
                            else "PERSISTENT"),
        "JMSXUserID": ("string", row["userid"]),
        "JMSTimestamp": ("long", BASE_MS + 1000 * i),
    }[name]


LITERALS: list[tuple[str, tuple[str, Any]]] = [
    ("'RED'", ("string", "RED")),
    ("'BLUE'", ("string", "BLUE")),
    ("'true'", ("string", "true")),
    ("'Fiction'", ("string", "Fiction")),
    ("'NON_PERSISTENT'", ("string", "NON_PERSISTENT")),
    ("100", ("long", 100)),
    ("30000", ("long", 30000)),
    ("29999.5", ("double", 29999.5)),
    ("1.5", ("double", 1.5)),
    ("2", ("long", 2)),
    ("-3", ("long", -3)),
    ("TRUE", ("boolean", True)),
    ("false", ("boolean", False)),
]
OPS = ["=", "<>", "<", ">", "<=", ">="]
PROPS = ["color", "price", "weight", "flag", "size", "qty", "Color", "nosuch", "name"]
HEADERS = [
    "JMSPriority",
    "JMSCorrelationID",
    "JMSType",
    "JMSXGroupSeq",
    "JMSXDeliveryCount",
    "JMSRedelivered",
    "JMSDeliveryMode",
    "JMSXUserID",
]


def _generated_cases() -> list[tuple[str, Any]]:
    cases: list[tuple[str, Any]] = []
    for ident in PROPS + HEADERS:
        for lit_sql, lit in LITERALS:
            for op in OPS:

                def val(i: int, ident: str = ident) -> tuple[str, Any] | None:
                    row = JMS_ROWS[i]
                    if ident.startswith("JMS"):
                        return header(row, i, ident)
                    return (row["props"] or {}).get(ident)

                res = {i: jms_cmp(val(i), op, lit) for i in ALL_J}
                cases.append((f"{ident} {op} {lit_sql}", [i for i in ALL_J if res[i] is True]))
                # three-valued logic: NOT selects exactly the FALSE rows
                cases.append(
                    (f"NOT ({ident} {op} {lit_sql})", [i for i in ALL_J if res[i] is False])
                )
                if ident in ("price", "color", "JMSPriority"):
                    flipped = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
                    cases.append(
                        (f"{lit_sql} {flipped} {ident}", [i for i in ALL_J if res[i] is True])
                    )
    return cases


GENERATED = _generated_cases()

JMS_CASES: list[tuple[str, Any]] = [
    # LIKE / ESCAPE
    ("name LIKE 'abc%'", [1, 2]),
    ("name LIKE 'abc_1%'", [1, 2]),
    ("name LIKE 'abc!_1%' ESCAPE '!'", [1]),
    ("name LIKE 'abc\\_1\\%' ESCAPE '\\'", [1]),
    ("name NOT LIKE 'abc!_%' ESCAPE '!'", [2]),
    ("name like '%!%' escape '!'", [1]),
    ("name LIKE '_bc%'", [1, 2]),
    ("name LIKE 'abc'", []),
    ("JMSCorrelationID LIKE 'RE%'", [2, 6]),
    ("JMSCorrelationID LIKE 'RE\\%' ESCAPE '\\'", [6]),
    ("JMSCorrelationID LIKE 'RE\\%'", []),
    ("JMSCorrelationID NOT LIKE 'RE%'", [1, 4, 5, 7, 8]),
    ("JMSCorrelationID LIKE '%'", [1, 2, 4, 5, 6, 7, 8]),
    ("JMSCorrelationID LIKE '_'", [4, 7, 8]),
    ("price LIKE '5%'", [3]),
    ("price NOT LIKE '5%'", []),
    ("color LIKE 'R%'", [1]),
    ("Color LIKE 'r%'", [6]),
    ("JMSType LIKE 'b%k'", [1, 4]),
    ("nosuch LIKE '%'", []),
    ("NOT nosuch LIKE '%'", []),
    ("color LIKE 'a''%'", [8]),
    # IN
    ("color IN ('RED', 'BLUE')", [1, 2]),
    ("color NOT IN ('RED', 'BLUE')", [3, 8]),
    ("color IN ('a''b')", [8]),
    ("color in ('red')", []),
    ("price IN ('50')", [3]),
    ("price NOT IN ('50')", []),
    ("JMSCorrelationID IN ('Fiction', 'x')", [1, 4, 5]),
    ("JMSCorrelationID NOT IN ('Fiction', 'x')", [2, 6, 7, 8]),
    ("JMSType IN ('book')", [1, 4]),
    ("JMSType NOT IN ('book')", [2]),
    ("nosuch IN ('a')", []),
    ("nosuch NOT IN ('a')", []),
    ("NOT (color IN ('RED'))", [2, 3, 8]),
    # BETWEEN
    ("price BETWEEN 100 AND 30000", [1, 2, 5]),
    ("price NOT BETWEEN 100 AND 30000", [6, 8]),
    ("JMSPriority BETWEEN 2 AND 5", [2, 3, 6, 7]),
    ("JMSPriority NOT BETWEEN 2 AND 5", [1, 4, 5, 8]),
    ("weight BETWEEN 1 AND 2", [1, 2, 3]),
    ("weight BETWEEN 1.6 AND 2.0", [2, 3]),
    ("weight not between -1 and 1.5", [2, 3]),
    ("JMSPriority BETWEEN 1 + 1 AND 2 * 2", [2, 6, 7]),
    ("price BETWEEN JMSPriority AND 100", [1, 6]),
    ("nosuch BETWEEN 1 AND 2", []),
    ("nosuch NOT BETWEEN 1 AND 2", []),
    ("JMSPriority BETWEEN 5 AND 2", []),
    # IS NULL
    ("color IS NULL", [4, 5, 6, 7]),
    ("color IS NOT NULL", [1, 2, 3, 8]),
    ("JMSCorrelationID IS NULL", [3]),
    ("JMSType IS NOT NULL", [1, 2, 4]),
    ("nosuch IS NULL", ALL_J),
    ("NOT nosuch IS NULL", []),
    ("JMSXGroupSeq IS NULL", [3, 4, 5, 6, 7, 8]),
    ("price + 1 IS NULL", [3, 4, 7]),
    ("NULL IS NULL", ALL_J),
    # arithmetic and numeric promotion
    ("price + 1 = 101", [1]),
    ("price - 1 = 99", [1]),
    ("price * 2 > 59000", [2, 5]),
    ("price / 7 = 4285", []),  # exact decimal, as Oracle's NUMBER: 4285.714...
    ("price / 8 = 3750", [2]),
    ("price / 7 = 1", [6]),
    ("price / 2 = 3.5", [6]),
    ("price / 8 = 3749.9375", [5]),
    ("price / 0 = 1", []),
    ("NOT (price / 0 = 1)", []),
    ("weight * 2 = 3", [1]),
    ("weight / 2 = 1", [2, 3]),
    ("weight + price = 101.5", [1]),
    ("- price = -7", [6]),
    ("-price < -29999", [2, 5]),
    ("+price = 7", [6]),
    ("-qty = 3", [6]),
    ("JMSPriority * 2 + 1 = 7", [2]),
    ("JMSPriority / 2 = 2", [6]),
    ("JMSPriority / 2 = 2.5", [3]),
    ("JMSPriority / 2.0 = 2.5", [3]),
    ("JMSPriority / 0 = 0", []),
    ("JMSPriority + price = 101", [1]),
    ("price + size = 110", []),
    ("price * 1.0 = 100", [1]),
    ("JMSXDeliveryCount = 2", [3]),
    ("JMSXDeliveryCount * 1.5 = 4.5", [5]),
    ("price = 100.0", [1]),
    ("price = 1e2", [1]),
    ("weight = 15E-1", [1]),
    ("weight = .5e1", []),
    ("price > 2.9999E4", [2, 5]),
    ("weight = 2", [2, 3]),
    ("price > -9223372036854775808", [1, 2, 5, 6, 8]),
    ("price = 9223372036854775807", []),
    ("price - -1 = 101", [1]),
    ("weight * 1e308 * 1e308 * 1e308 * 1e308 > 0", [1, 2, 3]),  # past 1e1000: an infinity
    ("weight * 1e308 * 1e308 * 1e308 * 1e308 < 0", [8]),
    ("price / 1e-300 / 1e-300 / 1e-300 / 1e-300 > 1e308", [1, 2, 5, 6]),
    # precedence
    ("JMSPriority = 1 OR JMSPriority = 3 AND color = 'GREEN'", [1]),
    ("(JMSPriority = 1 OR JMSPriority = 3) AND color = 'BLUE'", [2]),
    ("NOT JMSPriority = 1 AND JMSPriority < 3", [5, 7]),
    ("NOT (JMSPriority = 1 OR JMSPriority > 3)", [2, 5, 7]),
    ("JMSPriority = 2 + 1 * 2", [6]),
    ("JMSPriority = (2 + 1) * 2", [8]),
    ("2 + 3 * JMSPriority - 1 = 10", [2]),
    ("- JMSPriority * 2 = -18", [4]),
    ("JMSPriority - 1 - 1 = 1", [2]),
    ("JMSPriority = 8 / 2 / 2", [7]),
    ("JMSPriority = 1 OR JMSPriority = 2 OR JMSPriority = 3", [1, 2, 7]),
    ("NOT NOT JMSPriority = 1", [1]),
    ("((((JMSPriority = 1))))", [1]),
    ("JMSPriority > 1 AND JMSPriority < 5 OR JMSPriority = 9", [2, 4, 6, 7]),
    ("JMSPriority > 1 AND (JMSPriority < 5 OR JMSPriority = 9)", [2, 4, 6, 7]),
    # keywords are case-insensitive, identifiers are not
    ("color in ('RED') or JMSPriority between 8 and 9", [1, 4]),
    ("color Is Not Null aNd price > 100", [2]),
    ("color Is Null oR price > 100", [2, 4, 5, 6, 7]),
    ("not color is null", [1, 2, 3, 8]),
    ("flag = true", [1, 5]),
    ("flag = False", [2]),
    ("COLOR = 'RED'", []),
    ("Color = 'red'", [6]),
    ("jmspriority = 1", []),
    ("jmspriority IS NULL", ALL_J),
    # three-valued logic
    ("color = 'RED' OR nosuch = 1", [1]),
    ("NOT (nosuch = 1)", []),
    ("nosuch = 1 OR TRUE", ALL_J),
    ("nosuch = 1 AND FALSE", []),
    ("NOT (nosuch = 1 AND FALSE)", ALL_J),
    ("NOT (nosuch = 1 OR TRUE)", []),
    ("nosuch = 1 OR NOT (nosuch = 1)", []),
    ("JMSCorrelationID = 'x' OR JMSCorrelationID <> 'x'", [1, 2, 4, 5, 6, 7, 8]),
    ("JMSPriority = NULL", []),
    ("NOT (JMSPriority = NULL)", []),
    ("NULL", []),
    ("NOT NULL", []),
    # boolean identifiers as conditions
    ("flag", [1, 5]),
    ("NOT flag", [2]),
    ("flag AND JMSPriority > 0", [1]),
    ("color", []),
    ("NOT color", []),
    ("JMSRedelivered", [3, 5]),
    ("NOT JMSRedelivered", [1, 2, 4, 6, 7, 8]),
    ("TRUE", ALL_J),
    ("FALSE", []),
    ("TRUE = TRUE", ALL_J),
    ("(JMSPriority = 1) = TRUE", [1]),
    ("(JMSPriority = 1) <> TRUE", [2, 3, 4, 5, 6, 7, 8]),
    ("JMSRedelivered = flag", [2, 5]),
    # unlike types are UNKNOWN, not errors: neither x nor NOT (x) selects
    ("price = '50'", [3]),
    ("price <> 50", [1, 2, 5, 6, 8]),
    ("flag = 'true'", [3]),
    ("flag <> TRUE", [2]),
    ("price < 100", [6, 8]),
    ("size > 5", []),
    ("NOT (size > 5)", []),
    ("JMSPriority = 'x'", []),
    ("NOT (JMSPriority = 'x')", []),
    ("JMSPriority <> 'x'", []),
    ("JMSCorrelationID = 1", []),
    ("NOT (JMSCorrelationID = 1)", []),
    ("JMSRedelivered = 1", []),
    ("'a' = 1", []),
    ("NOT ('a' = 1)", []),
    # strings and booleans compare only with = and <>: an ordering of them is UNKNOWN, as
    # are IN, LIKE and BETWEEN on what is not a string / not a number
    ("JMSCorrelationID < 'a'", []),
    ("NOT (JMSCorrelationID < 'a')", []),
    ("'a' < 'b'", []),
    ("NOT ('a' < 'b')", []),
    ("TRUE > FALSE", []),
    ("NOT (TRUE > FALSE)", []),
    ("color < 'a'", []),
    ("NOT (color >= 'a')", []),
    ("JMSPriority LIKE 'a%'", []),
    ("NOT (JMSPriority NOT LIKE 'a%')", []),
    ("JMSRedelivered IN ('a')", []),
    ("NOT (JMSRedelivered NOT IN ('a'))", []),
    ("JMSPriority BETWEEN 'a' AND 'b'", []),
    ("JMSPriority NOT BETWEEN 'a' AND 'b'", []),
    ("price BETWEEN 'a' AND 1", []),
    ("price NOT BETWEEN 'a' AND 1", []),
    ("color = flag", []),
    ("price = weight", []),
    ("weight = JMSPriority", []),
    ("weight + 1 = JMSPriority", [2]),
    ("JMSCorrelationID = JMSType", []),
    # headers
    (f"JMSMessageID = 'ID:{hexid(2)}'", [2]),
    (f"JMSMessageID = 'ID:{hexid(2).lower()}'", [2]),
    (f"'ID:{hexid(3)}' = JMSMessageID", [3]),
    (f"JMSMessageID <> 'ID:{hexid(3)}'", [1, 2, 4, 5, 6, 7, 8]),
    ("JMSMessageID = 'ID:23452345'", []),
    ("JMSMessageID LIKE 'ID:%'", ALL_J),
    (f"JMSMessageID IN ('ID:{hexid(1)}', 'ID:{hexid(4)}')", [1, 4]),
    (f"JMSTimestamp = {BASE_MS + 2000}", [2]),
    (f"JMSTimestamp > {BASE_MS + 5000}", [6, 7, 8]),
    (f"JMSTimestamp BETWEEN {BASE_MS} AND {BASE_MS + 2000}", [1, 2]),
    ("JMSDeliveryMode = 'PERSISTENT'", [1, 3, 4, 5, 6, 8]),
    ("JMSDeliveryMode = 'NON_PERSISTENT'", [2, 7]),
    ("JMSDeliveryMode IN ('NON_PERSISTENT', 'x')", [2, 7]),
    ("JMSDeliveryMode NOT IN ('NON_PERSISTENT')", [1, 3, 4, 5, 6, 8]),
    ("JMSDeliveryMode LIKE 'NON!_%' ESCAPE '!'", [2, 7]),
    ("JMSDeliveryMode = 'BUFFERED'", []),
    ("JMSDeliveryMode IS NULL", []),
    ("JMSDeliveryMode = 'NON_PERSISTENT' AND JMSPriority < 3", [7]),
    ("JMSXGroupID = 'g1'", [1, 2]),
    ("JMSXGroupSeq = 2", [2]),
    ("JMSXUserID = 'alice'", [1]),
    ("JMSXAppID = 'app1'", [1]),
    ("JMSXAppID IS NULL", [2, 3, 4, 5, 6, 7, 8]),
    ("JMSType = 'book' AND JMSPriority > 5", [4]),
    # unlisted JMSX* / JMS_* identifiers are user properties
    ("JMSXRcvTimestamp IS NULL", ALL_J),
    ("JMS_OracleFoo IS NULL", ALL_J),
    # the example from the Oracle documentation
    ("JMSPriority < 3 AND JMSCorrelationID = 'Fiction'", [1, 5]),
    ("color IN ('RED', 'BLUE', 'GREEN') AND price < 30000", [1]),
    # strings carrying SQL are data
    ("color = 'RED'' OR ''1''=''1'", []),
    ("color = ''';DROP TABLE condtest.canary;--'", []),
    ("$x IS NULL", ALL_J),
    ("_x_1 IS NULL", ALL_J),
    ("  color = 'RED'  ", [1]),
    ("color='RED'AND(price=100)", [1]),
    ("color\n=\t'RED'", [1]),
]

JMS_ERRORS: list[tuple[str, str, str, int]] = [
    # text, ORA code, SQLSTATE, position
    ("JMSFoo = 1", "ORA-00904", "42703", 1),
    ("JMSPriority = 1 AND JMSExpiration > 0", "ORA-00904", "42703", 21),
    ("name LIKE 5", "ORA-00936", "42601", 11),
    ("name LIKE color", "ORA-00936", "42601", 11),
    ("color IN (1, 2)", "ORA-00936", "42601", 11),
    ("color IN ('a', color)", "ORA-00936", "42601", 16),
    ("upper(color) = 'RED'", "ORA-00936", "42601", 1),
    ("tab.user_data.x = 1", "ORA-00904", "42703", 1),
    ("color || 'x' = 'y'", "ORA-00936", "42601", 7),
    ("JMSPriority", "ORA-00932", "42804", 1),
    ("JMSPriority + 1", "ORA-00932", "42804", 13),
    ("'abc'", "ORA-00932", "42804", 1),
    ("price + 'a' = 1", "ORA-00932", "42804", 7),
    ("- 'a' = 1", "ORA-00932", "42804", 1),
    ("-JMSRedelivered = 1", "ORA-00932", "42804", 1),
    ("JMSPriority AND TRUE", "ORA-00932", "42804", 1),
    ("TRUE AND 'x'", "ORA-00932", "42804", 10),
    ("9223372036854775808 = price", "ORA-00936", "42601", 1),
    ("price = 1e400", "ORA-00936", "42601", 9),
    ("name LIKE 'a!' ESCAPE '!'", "ORA-00936", "42601", 23),
    ("name LIKE 'a!b' ESCAPE '!'", "ORA-00936", "42601", 24),
    ("name LIKE 'a%' ESCAPE 'ab'", "ORA-00936", "42601", 23),
    ("name LIKE 'a%' ESCAPE 1", "ORA-00936", "42601", 23),
    ("\"color\" = 'RED'", "ORA-00904", "42703", 1),
    ("JMSPriority = 1 = 1", "ORA-00936", "42601", 17),
]

SYNTAX_ERRORS: list[tuple[str, int]] = [
    ("priority =", 11),
    ("= 1", 1),
    ("priority = 1 AND", 17),
    ("priority = 1 AND OR priority = 2", 18),
    ("(priority = 1", 14),
    ("priority = 1)", 13),
    ("priority = 'abc", 12),
    ("priority = 'abc''", 12),
    ("priority = 1 = 1", 14),
    ("priority < 1 > 0", 14),
    ("priority BETWEEN 1 OR 2", 20),
    ("priority BETWEEN 1", 19),
    ("priority IS 1", 13),
    ("priority IS NOT", 16),
    ("priority IN 1", 13),
    ("priority IN ()", 14),
    ("priority IN (1,)", 16),
    ("priority IN (1 2)", 16),
    ("priority = 1; DROP TABLE condtest.canary", 13),
    ("priority = 1 /* x */", 15),
    ("a NOT b", 3),
    ("priority = NOT 1", 12),
    ("priority @ 1", 10),
    ("priority == 1", 11),
    ("priority = 1 priority = 2", 14),
    ("NOT", 4),
    ("()", 2),
    ("priority LIKE", 14),
    ("priority NOT = 1", 10),
    ("priority = 1 AND AND", 18),
    ("corrid = E'x'", 11),
    ("priority = 1 ESCAPE 'x'", 14),
    ("priority.", 10),
]

# --------------------------------------------------------------------------------------
# AQ dialect
# --------------------------------------------------------------------------------------

ALL_A = [1, 2, 3, 4, 5]

AQ_CASES: list[tuple[str, Any]] = [
    ("priority = 1", [1]),
    ("tab.priority > 2", [3, 4, 5]),
    ("TAB.PRIORITY >= 3", [3, 4, 5]),
    ("Priority <> 2", [1, 3, 4, 5]),
    ("priority != 2", [1, 3, 4, 5]),
    ("priority < 3", [1, 2]),
    ("priority <= 3", [1, 2, 3]),
    ("priority = '1'", [1]),
    ("priority = 1.0", [1]),
    ("priority = 1.5e0", []),
    ("priority > -1", ALL_A),
    ("priority = 9999999999999999999999", []),
    ("corrid = 'ORD-1'", [1]),
    ("corrid LIKE 'ORD%'", [1, 2]),
    ("corrid LIKE 'ord\\_%' ESCAPE '\\'", [5]),
    ("corrid LIKE 'ORD\\-%'", []),
    ("corrid like 'ord_%'", [5]),
    ("corrid NOT LIKE 'ORD%'", [3, 5]),
    ("upper(corrid) LIKE 'ORD%'", [1, 2, 5]),
    ("corrid = 42", [3]),
    ("corrid > 40", [3]),
    ("corrid IS NULL", [4]),
    ("corrid IS NOT NULL", [1, 2, 3, 5]),
    ("corrid IN ('ORD-1', 'ord_5')", [1, 5]),
    ("corrid NOT IN ('ORD-1', 'ord_5')", [2, 3]),
    ("corrid < 'ORD-2'", [1, 3]),
    ("tab.user_data.color = 'RED'", [1]),
    ("tab.user_data.COLOR = 'RED'", [1]),
    ("user_data.color = 'RED'", [1]),
    ("upper(tab.user_data.color) = 'RED'", [1, 5]),
    ("lower(tab.user_data.color) IN ('red', 'blue')", [1, 2, 5]),
    ("tab.user_data.price > 100", [2]),
    ("tab.user_data.price BETWEEN 10 AND 100", [1, 5]),
    ("tab.user_data.price NOT BETWEEN 10 AND 100", [2]),
    ("tab.user_data.price IS NULL", [3, 4]),
    ("tab.user_data.price > '50'", [2, 5]),
    ("tab.user_data.price = 10.5", [1]),
    ("tab.user_data.price > 100 OR tab.user_data.price <= 100", [1, 2, 5]),
    ("tab.user_data.qty * 2 + 1 = 7", [1]),
    ("abs(tab.user_data.qty) = 1", [5]),
    ("tab.user_data.qty / 2 = 1.5", [1]),
    ("tab.user_data.qty / 0 = 1", []),
    ("-tab.user_data.qty = 1", [5]),
    ("tab.user_data.qty - -1 = 0", [5]),
    ("tab.user_data.flag", [1, 5]),
    ("NOT tab.user_data.flag", [2]),
    ("tab.user_data.flag = TRUE", [1, 5]),
    ("tab.user_data.flag = 'false'", [2]),
    ("tab.user_data.created > '2024-01-01'", [1, 2]),
    ("tab.user_data.created < '2024-01-01 00:00:00+00'", [5]),
    ("enq_time > '2024-01-01 00:00:03+00'", [4, 5]),
    ("enq_time BETWEEN '2024-01-01 00:00:02+00' AND '2024-01-01 00:00:03+00'", [2, 3]),
    ("'2024-01-01 00:00:02+00' >= enq_time", [1, 2]),
    ("tab.user_data.customer.name = 'Acme'", [1]),
    ("lower(tab.user_data.customer.name) = 'acme'", [1, 5]),
    ("tab.user_data.customer.level = 2", [2]),
    ('tab.user_data.customer."Level" = 1', [1]),
    ("tab.user_data.customer IS NULL", [3, 4]),
    ("tab.user_data.customer IS NOT NULL", [1, 2, 5]),
    ("tab.user_data.customer.name IS NULL", [3, 4]),
    ("tab.user_data.customer.level IS NULL", [3, 4, 5]),
    ("tab.user_data IS NULL", [4]),
    ("tab.user_data.data IS NOT NULL", [1]),
    ("tab.user_data.data = '01'", [1]),
    (f"msgid = '{'0' * 31}2'", [2]),
    (f"tab.msgid = '{'0' * 31}2'", [2]),
    (f"msgid IN ('{'0' * 31}1', '{'0' * 31}3')", [1, 3]),
    (f"msgid <> '{'0' * 31}1'", [2, 3, 4, 5]),
    ("msgid LIKE '%02'", [2]),
    ("msgid = 'zz'", []),
    ("msgid <> 'zz'", ALL_A),
    ("original_msgid IS NULL", ALL_A),
    ("NVL(corrid, 'none') = 'none'", [4]),
    ("COALESCE(tab.user_data.price, 0) = 0", [3, 4]),
    ("nvl(sender_name, 'x') = 'x'", [3]),
    ("coalesce(NULL, sender_name) = 'bob'", [2]),
    ("substr(corrid, 1, 3) = 'ORD'", [1, 2]),
    ("substr(corrid, -1) = '2'", [2, 3]),
    ("substr(corrid, 0, 1) = 'O'", [1, 2]),
    ("length(corrid) = 2", [3]),
    ("length(sender_name) > 4", [1, 4]),
    ("trim('  ORD-1 ') = corrid", [1]),
    ("corrid || '!' = 'ORD-1!'", [1]),
    ("sender_name || corrid = 'aliceORD-1'", [1]),
    ("sender_name || corrid = 'carol'", [4]),
    ("retry_count > 0 AND (state = 1 OR delay = 10)", [2, 3]),
    ("retry_count > 0 AND state = 1 OR delay = 10", [2, 3]),
    ("expiration IS NULL", [1, 3, 5]),
    ("expiration > 60", [4]),
    ("delay + 5 = 15", [2]),
    ("NOT (sender_name = 'alice')", [2, 4, 5]),
    ("priority IN (1, NULL)", [1]),
    ("priority NOT IN (1, NULL)", []),
    ("priority NOT IN (1, 2)", [3, 4, 5]),
    ("priority IN (1, '2', 3.0)", [1, 2, 3]),
    ("priority = NULL", []),
    ("TRUE", ALL_A),
    ("1 = 1", ALL_A),
    ("'a' = 'a'", ALL_A),
    ("priority = 1 OR priority = 2 AND state = 1", [1]),
    ("priority * 2 = priority + 1", [1]),
    ("enq_uid = 'u' and sender_address IS NULL and exception_queue IS NULL", ALL_A),
    ("sender_protocol IS NULL", ALL_A),
    ("corrid = 'ORD-1'' OR ''x''=''x'", []),
]

AQ_ERRORS: list[tuple[str, str, str, int]] = [
    ("foo = 1", "ORA-00904", "42703", 1),
    ("priority = 1 AND tab.user_data.nosuch = 1", "ORA-00904", "42703", 18),
    ("tab.nosuch = 1", "ORA-00904", "42703", 1),
    ("tab.user_data.customer.nosuch = 1", "ORA-00904", "42703", 1),
    ('tab.user_data.customer."level" = 1', "ORA-00904", "42703", 1),
    ("tab.user_data.color.x = 1", "ORA-00904", "42703", 1),
    ("pg_sleep(1) IS NULL", "ORA-00904", "42703", 1),
    ("JMSPriority = 1", "ORA-00904", "42703", 1),
    ("priority LIKE 'a'", "ORA-00932", "42804", 1),
    ("corrid LIKE 5", "ORA-00932", "42804", 13),
    ("priority AND corrid = 'x'", "ORA-00932", "42804", 1),
    ("priority + 1", "ORA-00932", "42804", 1),
    ("tab.user_data.customer = 'x'", "ORA-00932", "42804", 24),
    ("priority = 'abc'", "ORA-00932", "42804", 10),
    ("enq_time > 5", "ORA-00932", "42804", 10),
    ("enq_time > 'notadate'", "ORA-00932", "42804", 10),
    ("tab.user_data.flag = 'maybe'", "ORA-00932", "42804", 20),
    ("upper(corrid, 1) = 'x'", "ORA-00909", "42601", 1),
    ("nvl(corrid) = 'x'", "ORA-00909", "42601", 1),
    ("corrid LIKE 'a%' ESCAPE 'xy'", "ORA-00936", "42601", 25),
    ("corrid LIKE 'a!' ESCAPE '!'", "ORA-00936", "42601", 25),
    ("tab.user_data.price = tab.user_data.created", "ORA-00932", "42804", 21),
]

HOSTILE: list[str] = [
    "priority = 1; DROP TABLE condtest.canary",
    "priority = 1 OR 1=1; DROP TABLE condtest.canary; --",
    "priority = 1 -- x",
    "priority = 1 /* */",
    "priority = $1",
    "priority = (SELECT 1)",
    "pg_sleep(10) IS NULL",
    "priority = pg_sleep(10)",
    "corrid = 'x' ; SELECT pg_sleep(10)",
    "corrid = E'\\x00'",
    '"; DROP TABLE condtest.canary; --" = 1',
    'tab.user_data."color""; DROP TABLE condtest.canary; --" = \'x\'',
    "U&'\\0041' = corrid",
    "corrid = 'a'); DROP TABLE condtest.canary; --",
    "1 = 1)) OR ((1 = 1",
    "corrid = $$x$$",
    "corrid::text = 'x'",
    "corrid = 'x' COLLATE \"C\"",
    "priority = 1 UNION SELECT 1",
    "\\! rm -rf /",
    "(" * 300 + "priority = 1" + ")" * 300,
]

HOSTILE_DATA: list[tuple[str, str]] = [
    ("AQ", "corrid = 'x'' OR ''1''=''1'"),
    ("AQ", "corrid = 'a''; DROP TABLE condtest.canary; --'"),
    ("AQ", "corrid = '$1'"),
    ("AQ", "corrid LIKE '%'';SELECT pg_sleep(10);--%'"),
    ("AQ", "tab.user_data.color IN ('x''); DROP TABLE condtest.canary; --')"),
    ("JMS", "color = 'x'' OR ''1''=''1'"),
    ("JMS", "color IN ('a''); DROP TABLE condtest.canary; --')"),
    ("JMS", "color LIKE '%'';SELECT pg_sleep(10);--%'"),
    ("JMS", "pg_sleep IS NULL AND color = 'RED'"),
]


# --------------------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("cond", "expected"), GENERATED, ids=[c for c, _ in GENERATED])
async def test_jms_generated(cdb: asyncpg.Connection, cond: str, expected: Any) -> None:
    await _check(cdb, "jmsg", "JMS", cond, expected)


@pytest.mark.parametrize(("cond", "expected"), JMS_CASES, ids=[c for c, _ in JMS_CASES])
async def test_jms_selector(cdb: asyncpg.Connection, cond: str, expected: Any) -> None:
    await _check(cdb, "jmsg", "JMS", cond, expected)


@pytest.mark.parametrize(("cond", "expected"), AQ_CASES, ids=[c for c, _ in AQ_CASES])
async def test_aq_condition(cdb: asyncpg.Connection, cond: str, expected: Any) -> None:
    await _check(cdb, "amsg", "AQ", cond, expected)


async def _check(
    conn: asyncpg.Connection, table: str, dialect: str, cond: str, expected: Any
) -> None:
    if isinstance(expected, str):
        with pytest.raises(asyncpg.PostgresError) as ei:
            await select(conn, table, cond, dialect)
        assert str(ei.value).startswith(expected), str(ei.value)
        return
    assert await select(conn, table, cond, dialect) == expected


@pytest.mark.parametrize(
    ("cond", "code", "state", "pos"), JMS_ERRORS, ids=[c[0] for c in JMS_ERRORS]
)
async def test_jms_errors(
    cdb: asyncpg.Connection, cond: str, code: str, state: str, pos: int
) -> None:
    await _check_error(cdb, cond, "JMS", JMS_PAYLOAD, code, state, pos)


@pytest.mark.parametrize(("cond", "code", "state", "pos"), AQ_ERRORS, ids=[c[0] for c in AQ_ERRORS])
async def test_aq_errors(
    cdb: asyncpg.Connection, cond: str, code: str, state: str, pos: int
) -> None:
    await _check_error(cdb, cond, "AQ", AQ_PAYLOAD, code, state, pos)


@pytest.mark.parametrize("dialect", ["AQ", "JMS"])
@pytest.mark.parametrize(("cond", "pos"), SYNTAX_ERRORS, ids=[c[0] for c in SYNTAX_ERRORS])
async def test_syntax_errors(cdb: asyncpg.Connection, cond: str, pos: int, dialect: str) -> None:
    payload = JMS_PAYLOAD if dialect == "JMS" else AQ_PAYLOAD
    await _check_error(cdb, cond, dialect, payload, "ORA-00936", "42601", pos)


async def _check_error(
    conn: asyncpg.Connection, cond: str, dialect: str, payload: str, code: str, state: str, pos: int
) -> None:
    with pytest.raises(asyncpg.PostgresError) as ei:
        await conn.fetchrow(
            "SELECT * FROM aq.compile_condition($1, $2, $3::regtype)", cond, dialect, payload
        )
    msg = str(ei.value)
    assert ei.value.sqlstate == state, msg
    assert msg.startswith(f"{code}:"), msg
    assert f"at position {pos}" in msg, msg


async def _canary(conn: asyncpg.Connection) -> int:
    return int(await conn.fetchval("SELECT count(*) FROM condtest.canary"))


@pytest.mark.parametrize("dialect", ["AQ", "JMS"])
@pytest.mark.parametrize("cond", HOSTILE)
async def test_hostile_input(cdb: asyncpg.Connection, cond: str, dialect: str) -> None:
    """Rejected with an ORA error, or (JMS: `$1`, `x` are legal property names) compiled into
    SQL that carries no user text; never executed, never slow."""
    table = "amsg" if dialect == "AQ" else "jmsg"
    t0 = time.monotonic()
    try:
        ids = await select(cdb, table, cond, dialect)
    except asyncpg.PostgresError as exc:
        assert exc.sqlstate in ("42601", "42703", "42804"), str(exc)
        assert str(exc).startswith("ORA-"), str(exc)
    else:
        assert dialect == "JMS", f"AQ accepted {cond!r}"
        assert ids == []
    assert time.monotonic() - t0 < 5.0  # a pg_sleep(10) that ran would take 10 s
    assert await _canary(cdb) == 1


@pytest.mark.parametrize(("dialect", "cond"), HOSTILE_DATA)
async def test_hostile_is_data(cdb: asyncpg.Connection, dialect: str, cond: str) -> None:
    table = "amsg" if dialect == "AQ" else "jmsg"
    t0 = time.monotonic()
    ids = await select(cdb, table, cond, dialect)
    assert time.monotonic() - t0 < 5.0  # a pg_sleep(10) that ran would take 10 s
    assert ids == ([1] if cond.startswith("pg_sleep") else [])
    assert await _canary(cdb) == 1


# --------------------------------------------------------------------------------------
# contract details
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("cond", [None, "", "   ", "\n\t "])
@pytest.mark.parametrize("dialect", ["AQ", "JMS"])
async def test_empty_condition_is_null(
    cdb: asyncpg.Connection, cond: str | None, dialect: str
) -> None:
    r = await cdb.fetchrow(
        "SELECT (c).sql, (c).params, c IS NULL AS isnull FROM"
        " (SELECT aq.compile_condition($1, $2, 'bytea') AS c) s",
        cond,
        dialect,
    )
    assert r["isnull"] and r["sql"] is None and r["params"] is None


async def test_params_and_placeholders(cdb: asyncpg.Connection) -> None:
    r = await cdb.fetchrow(
        "SELECT (c).sql, (c).params FROM (SELECT aq.compile_condition("
        "'corrid = ''ORD-1'' AND priority > 0 AND tab.user_data.color LIKE ''R%''', 'AQ',"
        " $1::regtype, 3, 5) AS c) s",
        AQ_PAYLOAD,
    )
    assert r["params"] == ["ORD-1", "0", "R%"]
    assert re.findall(r"\(\(\$\d+\)\[(\d+)\]\)", r["sql"]) == ["6", "7", "8"]
    assert "$1" not in r["sql"] and "$3" in r["sql"]
    assert "((m.user_data).color)" in r["sql"]


@pytest.mark.parametrize(
    ("table", "dialect", "cond", "expected"),
    [
        ("amsg", "AQ", "corrid LIKE 'ORD%' AND priority > 1", [2]),
        ("amsg", "AQ", "tab.user_data.customer.name IN ('Acme', 'Bolt')", [1, 2]),
        ("jmsg", "JMS", "color IN ('RED', 'BLUE') AND JMSPriority > 1", [2]),
        ("jmsg", "JMS", "name LIKE 'abc!_%' ESCAPE '!' OR price BETWEEN 0 AND 7", [1, 6, 8]),
    ],
)
@pytest.mark.parametrize(("param", "offset"), [(1, 0), (2, 0), (2, 3), (1, 7)])
async def test_param_offset(
    cdb: asyncpg.Connection,
    table: str,
    dialect: str,
    cond: str,
    expected: list[int],
    param: int,
    offset: int,
) -> None:
    assert await select(cdb, table, cond, dialect, param=param, offset=offset) == expected


async def test_concatenated_rules(cdb: asyncpg.Connection) -> None:
    """Two rules compiled with offsets share one parameter array."""
    a = await cdb.fetchrow(
        "SELECT * FROM aq.compile_condition('corrid = ''ORD-1''', 'AQ', $1::regtype)", AQ_PAYLOAD
    )
    b = await cdb.fetchrow(
        "SELECT * FROM aq.compile_condition('priority >= 5 AND corrid <> ''x''', 'AQ',"
        " $1::regtype, 1, $2)",
        AQ_PAYLOAD,
        len(a["params"]),
    )
    params = a["params"] + b["params"]
    await cdb.execute(
        "CREATE OR REPLACE FUNCTION pg_temp.two(s1 text, s2 text, p text[])"
        " RETURNS TABLE (id int, r1 bool, r2 bool)"
        " LANGUAGE plpgsql AS $$ BEGIN RETURN QUERY EXECUTE format("
        "'SELECT m.id, coalesce(%s, false), coalesce(%s, false)"
        " FROM condtest.amsg m ORDER BY m.id', s1, s2)"
        " USING p; END $$"
    )
    rows = await cdb.fetch("SELECT * FROM pg_temp.two($1, $2, $3)", a["sql"], b["sql"], params)
    assert [(r["id"], r["r1"], r["r2"]) for r in rows] == [
        (1, True, False),
        (2, False, False),
        (3, False, False),
        (4, False, False),
        (5, False, True),
    ]


async def test_raw_payload_attributes_rejected(cdb: asyncpg.Connection) -> None:
    with pytest.raises(asyncpg.PostgresError) as ei:
        await cdb.fetchrow(
            "SELECT * FROM aq.compile_condition('tab.user_data.x = 1', 'AQ', 'bytea')"
        )
    assert ei.value.sqlstate == "42703"
    assert 'ORA-00904: invalid identifier "tab.user_data.x" at position 1' in str(ei.value)
    r = await cdb.fetchrow(
        "SELECT * FROM aq.compile_condition('priority > 1 AND corrid = ''a''', 'AQ', 'bytea')"
    )
    assert r["params"] == ["1", "a"]


async def test_jms_headers_without_jms_payload(cdb: asyncpg.Connection) -> None:
    # message-level headers work for any payload, header/properties ones need a JMS payload
    r = await cdb.fetchrow("SELECT * FROM aq.compile_condition('JMSPriority > 1', 'JMS', 'bytea')")
    assert r["sql"] == "(m.priority > (($1)[1])::bigint)"
    with pytest.raises(asyncpg.PostgresError) as ei:
        await cdb.fetchrow("SELECT * FROM aq.compile_condition('color = ''x''', 'JMS', 'bytea')")
    assert ei.value.sqlstate == "42703"


async def test_bad_arguments(cdb: asyncpg.Connection) -> None:
    for args in [
        ("'x'", "'SQL'", "1", "0"),
        ("'x'", "NULL", "1", "0"),
        ("'x'", "'AQ'", "0", "0"),
        ("'x'", "'AQ'", "1", "-1"),
    ]:
        with pytest.raises(asyncpg.PostgresError) as ei:
            await cdb.fetchrow(
                f"SELECT * FROM aq.compile_condition({args[0]}, {args[1]}, 'bytea',"
                f" {args[2]}, {args[3]})"
            )
        assert ei.value.sqlstate == "22023"
    r = await cdb.fetchrow("SELECT * FROM aq.compile_condition('priority = 1', 'aq', 'bytea')")
    assert r["sql"] is not None


async def test_static_sql_is_index_friendly(cdb: asyncpg.Connection) -> None:
    r = await cdb.fetchrow(
        "SELECT * FROM aq.compile_condition($1, 'JMS', $2::regtype)",
        f"JMSMessageID = 'ID:{hexid(7)}' AND JMSCorrelationID = 'y'",
        JMS_PAYLOAD,
    )
    assert "m.msgid = decode(" in r["sql"] and "(m.corrid = (($1)[2])::text)" in r["sql"]
    r = await cdb.fetchrow(
        "SELECT * FROM aq.compile_condition($1, 'AQ', 'bytea')",
        f"msgid = '{hexid(7)}' AND priority > 3",
    )
    assert "m.msgid = decode(" in r["sql"] and "(m.priority > (($1)[2])::bigint)" in r["sql"]


@pytest.mark.parametrize(
    "cond",
    [
        "weight * 2 > 1 OR price / 2 > 1",
        "weight * 1e308 * 1e308 * 1e308 * 1e308 > 0 OR price BETWEEN weight AND 1e308",
        "JMSPriority / 2 > 1 AND -weight < 0",
        "JMSDeliveryMode = 'NON_PERSISTENT' OR JMSPriority > 100",
    ],
)
async def test_jms_arithmetic_runs_in_a_parallel_scan(cdb: asyncpg.Connection, cond: str) -> None:
    """The runtime helpers are PARALLEL SAFE: they must start no subtransaction (an
    EXCEPTION block), which a parallel worker cannot; overflow becomes an infinity instead."""
    c = await cdb.fetchrow(
        "SELECT * FROM aq.compile_condition($1, 'JMS', $2::regtype)", cond, JMS_PAYLOAD
    )
    async with cdb.transaction():
        await cdb.execute(
            "SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0;"
            " SET LOCAL min_parallel_table_scan_size = 0; SET LOCAL max_parallel_workers_per_gather = 2;"
            " SELECT set_config(name, 'on', true) FROM pg_settings"
            "  WHERE name IN ('force_parallel_mode', 'debug_parallel_query')"
        )
        n = await cdb.fetchval(
            f"SELECT count(*) FROM condtest.jmsg m WHERE $1::text[] IS NOT NULL AND {c['sql']}",
            c["params"],
        )
    assert n > 0


async def test_delivery_mode_is_read_inline_from_the_row(cdb: asyncpg.Connection) -> None:
    """JMSDeliveryMode is the row's delivery_mode column, through a helper the planner
    inlines: no function call per row, so a selector on it costs a comparison."""
    c = await cdb.fetchrow(
        "SELECT * FROM aq.compile_condition($1, 'JMS', $2::regtype)",
        "JMSDeliveryMode = 'NON_PERSISTENT'", JMS_PAYLOAD,
    )
    plan = "\n".join(r[0] for r in await cdb.fetch(
        "EXPLAIN (VERBOSE) SELECT id FROM condtest.jmsg m WHERE $1::text[] IS NOT NULL"
        f" AND {c['sql']}", c["params"]))
    assert "m.delivery_mode" in plan and "jms_delivery_mode" not in plan, plan


async def test_jms_long_products_are_bounded(cdb: asyncpg.Connection) -> None:
    """Past 1e1000 a product is an infinity (a double's overflow): 450 factors of 1e308,
    static or on a property, never reach numeric's limit at dequeue time."""
    factors = " * 1e308" * 450
    assert await select(cdb, "jmsg", f"JMSPriority{factors} > 0", "JMS") == [1, 2, 3, 4, 6, 7, 8]
    assert await select(cdb, "jmsg", f"weight{factors} < 0", "JMS") == [8]
    assert await select(cdb, "jmsg", f"-1{factors} / JMSPriority < 0", "JMS") == [1, 2, 3, 4, 6, 7, 8]


async def test_compile_speed(cdb: asyncpg.Connection) -> None:
    t0 = time.perf_counter()
    n = await cdb.fetchval(
        "SELECT count(aq.compile_condition('JMSPriority < 3 AND JMSCorrelationID = ''Fiction'' AND"
        " color IN (''RED'', ''BLUE'') AND price < 30000', 'JMS', $1::regtype, 1, g))"
        " FROM generate_series(1, 200) g",
        JMS_PAYLOAD,
    )
    per_call_ms = (time.perf_counter() - t0) * 1000 / 200
    assert n == 200
    assert per_call_ms < 5, per_call_ms  # typically ~0.5 ms


async def test_repeatable_migration_reruns(cdb: asyncpg.Connection) -> None:
    from importlib import resources

    root = resources.files("pgaq.sql.migrations")
    parts = sorted(f.name for f in root.iterdir() if f.name.startswith("R__20_conditions_"))
    assert len(parts) > 1
    async with cdb.transaction():
        for name in parts:
            await cdb.execute((root / name).read_text())
    assert await select(cdb, "amsg", "priority = 1", "AQ") == [1]
