"""Named SQL queries kept in `pgaq/sql/queries/<name>.sql`, and the same statements run as
a role given with them (`load_as_role`)."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

_COMMENT = re.compile(r"--[^\n]*")
_PARAM = re.compile(r"\$(\d+)")
_FIRST_ARG = re.compile(r"\$1::[\w.]+(?:\[\])*")  # $1 with its cast: $1::text, $1::bigint[]


@cache
def load(name: str) -> str:
    return resources.files("pgaq.sql.queries").joinpath(f"{name}.sql").read_text()


@cache
def load_as_role(name: str) -> str:
    """The named statement run as the role given as one more, last, parameter (`as_role`)."""
    return as_role(load(name))


def as_role(sql: str) -> str:
    """`sql` run as the role given as one more, last, parameter, in one statement: its first
    `$1::type` (the first argument of the statement's call) becomes
    `CASE WHEN set_config('role', $<n+1>::text, true) IS NOT NULL THEN $1::type END`, n
    being its highest parameter number.

    Arguments are evaluated before the call they are passed to, in a SELECT list and in a
    FROM function scan alike, custom and generic plans alike (tests/integration/
    test_queries_as_role.py), so the volatile call runs as that role; the calls so wrapped
    are PL/pgSQL, never inlined, so the argument is evaluated once. set_config(..., true)
    is SET LOCAL ROLE: it ends with the statement's own transaction (an autocommit), and a
    login may take only a role it may SET. Comments are dropped: the derived statement
    is the plain one's SQL with that one change."""
    body = _COMMENT.sub("", sql).strip()
    first = _FIRST_ARG.search(body)
    if first is None:
        raise ValueError(f"no $1::type argument to set the role in: {sql!r}")
    role = max(int(n) for n in _PARAM.findall(body)) + 1
    wrapped = f"CASE WHEN set_config('role', ${role}::text, true) IS NOT NULL THEN {first.group()} END"
    return body[:first.start()] + wrapped + body[first.end():]
