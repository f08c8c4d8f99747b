"""The delivery-time host check of IP literals, as pure rules."""

from __future__ import annotations

import pytest
from pgaq.notify.acl import POLICY, HostRules

RULES = HostRules((("127.0.0.1", True), ("::1", True), ("10.0.0.0/8", True), ("10.9.0.0/16", False),
                   ("example.com", True)))


@pytest.mark.parametrize("host, refused", [
    ("127.0.0.1", False),
    ("::1", False),
    ("::ffff:127.0.0.1", False),  # the same address, mapped
    ("::ffff:7f00:1", False),
    ("10.1.2.3", False),
    ("10.9.1.1", True),  # a deny inside the allowed /8
    ("::ffff:10.9.1.1", True),
    ("127.0.0.2", True),
    ("::2", True),
    ("2130706433", True),  # 127.0.0.1 in other notations
    ("0x7f.1", True),
    ("127.1", True),
    ("0177.0.0.1", True),
    ("example.com", False),  # names: the resolver's business
    ("evil.example.org", False),
])
def test_literal_refusal(host: str, refused: bool) -> None:
    assert (RULES.literal_refusal(host) is not None) == refused


@pytest.mark.parametrize("host, refused", [
    ("example.com", False),
    ("EXAMPLE.com", False),
    ("evil.example.org", True),  # a name the list does not allow: refused before connecting
    ("127.0.0.1", False),
    ("10.9.1.1", True),
    ("::ffff:10.9.1.1", True),
])
def test_host_refusal_names_the_policy(host: str, refused: bool) -> None:
    """Every refusal by the list says so (the notifier retries those); a malformed host is
    no matter of the list and has a reason of its own (final)."""
    why = RULES.host_refusal(host)
    assert (why is not None) == refused
    assert why is None or (POLICY in why and host in why)
    assert RULES.malformed(host) is None


def test_malformed_hosts_are_not_a_policy_refusal() -> None:
    why = RULES.malformed("2130706433")
    assert why is not None and "dotted quads" in why and POLICY not in why
