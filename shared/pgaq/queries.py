"""Named SQL queries kept in `pgaq/sql/queries/<name>.sql`."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load(name: str) -> str:
    return resources.files("pgaq.sql.queries").joinpath(f"{name}.sql").read_text()
