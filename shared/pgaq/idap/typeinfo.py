"""The shape of an object (composite) payload type, read from the catalog once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import asyncpg

from ..queries import load


@dataclass(frozen=True)
class Attr:
    name: str
    sql_type: str          # format_type(), e.g. "numeric(7,2)", "character varying(10)"
    kind: Literal["scalar", "composite", "array"]
    base: str              # pg_type.typname of the value (or of the array's element)
    typmod: int
    element: TypeInfo | None = None   # composite attributes and arrays of composites


@dataclass(frozen=True)
class TypeInfo:
    regtype: str
    name: str              # the type's own name, as XML calls the payload element
    attrs: tuple[Attr, ...]

    def attr(self, name: str) -> Attr | None:
        low = name.lower()
        for a in self.attrs:
            if a.name.lower() == low:
                return a
        return None


_cache: dict[str, TypeInfo] = {}


def invalidate() -> None:
    _cache.clear()


async def load_type_info(conn: asyncpg.Connection, regtype: str) -> TypeInfo:
    hit = _cache.get(regtype)
    if hit is not None:
        return hit
    rows = await conn.fetch(load("idap_type_attributes"), regtype)
    by_parent: dict[str, list[asyncpg.Record]] = {}
    names: dict[str, str] = {}
    for r in rows:
        by_parent.setdefault(r["parent"], []).append(r)
        names[r["parent"]] = r["parent_name"]

    def build(parent: str, seen: tuple[str, ...]) -> TypeInfo:
        attrs = []
        for r in by_parent.get(parent, []):
            element = None
            if r["kind"] == "composite" and r["attr_regtype"] not in seen:
                element = build(r["attr_regtype"], (*seen, parent))
            elif r["kind"] == "array" and r["element_composite"]:
                element = build(r["element_type"], (*seen, parent))
            attrs.append(Attr(r["attname"], r["sql_type"], r["kind"], r["base_name"],
                              r["typmod"], element))
        return TypeInfo(parent, names.get(parent, parent.rsplit(".", 1)[-1]), tuple(attrs))

    top = rows[0]["top"] if rows else regtype
    info = build(top, ())
    _cache[regtype] = info
    return info
