"""A statement run as a role is made from the plain one by one rule (pgaq.queries.as_role):
its first `$1::type` becomes `CASE WHEN set_config('role', $<n+1>::text, true) IS NOT NULL
THEN $1::type END`, n its highest parameter number. Each statement that once had a
hand-written `*_role.sql` twin is checked against what the rule says, written out."""

from __future__ import annotations

import re

import pytest
from pgaq.queries import as_role, load, load_as_role

# statement -> (the role's parameter, the first argument's cast): as the twins had them
FORMER_TWINS = {
    "engine_dequeue": (15, "text"),
    "engine_enqueue": (7, "text"),
    "engine_recv_fast": (8, "name"),
    "engine_send1_fast": (9, "name"),
    "engine_send_fast": (6, "name"),
    "engine_sendn_fast": (9, "name"),
    "idap_receive_propagated": (8, "text"),
}


def _sql(text: str) -> str:
    """The statement without comments, whitespace runs as one space."""
    return " ".join(re.sub(r"--[^\n]*", "", text).split())


@pytest.mark.parametrize("name", sorted(FORMER_TWINS))
def test_the_role_variant_sets_the_role_in_the_first_argument(name: str) -> None:
    role, cast = FORMER_TWINS[name]
    plain = _sql(load(name))
    first = f"$1::{cast}"
    assert plain.count(first) == 1
    expected = plain.replace(
        first, f"CASE WHEN set_config('role', ${role}::text, true) IS NOT NULL THEN {first} END")
    assert _sql(load_as_role(name)) == expected
    # one parameter more than the plain statement: the role, last
    params = {int(n) for n in re.findall(r"\$(\d+)", plain)}
    assert params == set(range(1, role))


def test_a_role_variant_written_by_hand_is_what_the_rule_makes() -> None:
    # the REMOVE for an acting role has no plain twin to be made from, but has the same form
    assert _sql(as_role("SELECT * FROM {fn}($1::name, $2::bigint[])")) == _sql(load("engine_remove_fast_role"))


def test_parameters_in_comments_and_ones_that_start_with_1_are_not_taken_for_1() -> None:
    sql = "-- $1 queue, $99 nothing\nSELECT f($10::text, $1::bigint[], $2::int)"
    assert as_role(sql) == ("SELECT f($10::text, CASE WHEN set_config('role', $11::text, true)"
                            " IS NOT NULL THEN $1::bigint[] END, $2::int)")


def test_a_statement_without_a_first_argument_is_refused() -> None:
    with pytest.raises(ValueError, match="no \\$1::type"):
        as_role("SELECT now()")
