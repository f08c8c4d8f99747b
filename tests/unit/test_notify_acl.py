"""The delivery-time host check of IP literals, as pure rules."""

from __future__ import annotations

import pytest
from pgaq.notify.acl import HostRules

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
