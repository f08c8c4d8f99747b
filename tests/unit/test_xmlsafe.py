"""The untrusted-XML parser's limits: depth and element count, in every encoding."""

from __future__ import annotations

import pytest
from pgaq.idap.xmlsafe import XmlError, parse


def _nested(depth: int) -> str:
    return "<e>" * depth + "</e>" * depth


def _flat(n: int) -> str:
    return "<r>" + "<i/>" * (n - 1) + "</r>"


@pytest.mark.parametrize("encoding", ["utf-8", "iso-8859-1", "utf-16", "utf-16-le", "windows-1252"])
def test_depth_limit_holds_in_every_encoding(encoding: str) -> None:
    def doc(body: str) -> bytes:
        decl = f'<?xml version="1.0" encoding="{encoding.upper()}"?>'
        return (decl + body).encode(encoding)

    assert parse(doc(_nested(10)), max_depth=10) is not None
    with pytest.raises(XmlError, match="deeper than 10"):
        parse(doc(_nested(11)), max_depth=10)
    assert parse(doc(_flat(50)), max_elements=50) is not None
    with pytest.raises(XmlError, match="more than 50 elements"):
        parse(doc(_flat(51)), max_elements=50)


def test_limits_near_the_quick_bound() -> None:
    """A document whose '<' count is just over the limits still gets the exact checks."""
    wide = "<r>" + "<i>x</i>" * 40 + "</r>"  # 82 '<' bytes, 41 elements, depth 2
    assert parse(wide.encode(), max_depth=2, max_elements=41) is not None
    with pytest.raises(XmlError):
        parse(wide.encode(), max_depth=1)
    with pytest.raises(XmlError):
        parse(wide.encode(), max_elements=40)
