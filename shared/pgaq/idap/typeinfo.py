"""The shape of an object (composite) payload type, read from the catalog once.

IDAP maps XML elements onto a type's attributes by name; the gateway needs the attribute
tree (nested composites, collections) and each scalar's SQL type to convert and check
values before they reach PostgreSQL, so that a bad value is a clear client error naming
the element rather than a cast failure deep inside the enqueue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

import asyncpg

from ..errors import QueueError
from ..queries import load

_VARCHAR = re.compile(r"^(?:character varying|character|bpchar|varchar)\((\d+)\)")
_NUMERIC = re.compile(r"^numeric\((\d+)(?:,(-?\d+))?\)")


@dataclass(frozen=True)
class Attr:
    """One attribute: `sql_type` is format_type() text, e.g. "numeric(7,2)" or "text[]"."""

    name: str
    sql_type: str
    kind: Literal["scalar", "composite", "array"]
    element: TypeInfo | None = None  # composite attributes and arrays of composites
    scalar: str = ""  # pg_type.typname of a scalar (an array's element); "" for composites

    @property
    def max_length(self) -> int | None:
        """Declared character length of varchar(n)/char(n), None when unbounded."""
        m = _VARCHAR.match(self.sql_type)
        return int(m.group(1)) if m else None

    @property
    def precision_scale(self) -> tuple[int, int] | None:
        """Declared (precision, scale) of numeric(p,s), None for unconstrained numeric."""
        m = _NUMERIC.match(self.sql_type)
        if not m:
            return None
        return int(m.group(1)), int(m.group(2) or 0)


@dataclass(frozen=True)
class TypeInfo:
    """A composite type: `name` without schema, as IDAP names the payload element."""

    name: str
    attrs: tuple[Attr, ...]
    regtype: str = ""

    def attr(self, name: str) -> Attr | None:
        """The attribute called `name`, case-insensitively (Oracle names are upper-case)."""
        low = name.lower()
        for a in self.attrs:
            if a.name.lower() == low:
                return a
        return None


_cache: dict[tuple[Any, str], TypeInfo] = {}
_CACHE_MAX = 1000


def invalidate(regtype: str | None = None) -> None:
    """Forget cached shapes (all, or one type's) after ALTER TYPE / DROP TYPE."""
    if regtype is None:
        _cache.clear()
        return
    for key in [k for k in _cache if k[1] == regtype]:
        del _cache[key]


def _database(conn: asyncpg.Connection) -> Any:
    # Types are per database: one process may serve (or test) several databases whose
    # same-named types differ, so the cache key includes where the connection points.
    params = getattr(conn, "_params", None)
    return (getattr(conn, "_addr", None), getattr(params, "database", None))


async def load_type_info(conn: asyncpg.Connection, regtype: str) -> TypeInfo:
    """The attribute tree of `regtype` (cached: types rarely change; see invalidate())."""
    key = (_database(conn), regtype)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    rows = await conn.fetch(load("idap_type_attributes"), regtype)
    if not rows:
        raise QueueError(f"ORA-25215: {regtype[:100]} is not an object type with attributes", 25215)
    by_parent: dict[int, list[asyncpg.Record]] = {}
    names: dict[int, str] = {}
    for r in rows:
        by_parent.setdefault(r["parent"], []).append(r)
        names[r["parent"]] = r["parent_name"]
        if r["ref"] is not None:
            names.setdefault(r["ref"], r["ref_name"])  # a nested type may have no attributes
    built: dict[int, TypeInfo] = {}

    def build(oid: int) -> TypeInfo:
        # PostgreSQL forbids a composite containing itself, so this always ends
        if oid in built:
            return built[oid]
        attrs = tuple(
            Attr(r["attname"], r["sql_type"], r["kind"],
                 build(r["ref"]) if r["ref"] is not None else None, r["scalar"])
            for r in by_parent.get(oid, [])
        )
        info = TypeInfo(names[oid], attrs, regtype if oid == rows[0]["top"] else "")
        built[oid] = info
        return info

    info = build(rows[0]["top"])
    if len(_cache) >= _CACHE_MAX:
        _cache.clear()
    _cache[key] = info
    return info


@dataclass(frozen=True)
class Transformation:
    """A transformation an IDAP request applies (or a consumer's subscription carries): the
    gateway reads an enqueued payload as `from_type` and names a dequeued one after
    `to_type` (schema-qualified regtype text; kinds as aq.payload_kind: RAW, JMS_*, OBJECT)."""

    name: str
    from_type: str
    from_kind: str
    to_type: str
    to_kind: str


async def load_transformation(conn: asyncpg.Connection, name: str | None, queue_id: int, *,
                              enqueue: bool, role: str, consumer: str | None = None
                              ) -> Transformation | None:
    """The transformation `name` names, resolved and checked against the queue as the
    engine will (as `role`: an unqualified name is in its schema); with no name, on a
    dequeue, the consumer's subscription's. None when there is none. Not cached: a
    subscriber's transformation may change at any time, and a stale one would name a
    payload after a type it no longer has."""
    row = await conn.fetchrow(load("idap_transformation"), name, queue_id, enqueue, consumer, role)
    if row is None:
        return None
    return Transformation(row["name"], row["from_type"], row["from_kind"], row["to_type"],
                          row["to_kind"])


async def load_kind_info(conn: asyncpg.Connection, kind: str, regtype: str) -> TypeInfo | None:
    """The shape of an object type (None for RAW and JMS payloads, which have fixed shapes)."""
    if kind != "OBJECT":
        return None
    return await load_type_info(conn, regtype)
