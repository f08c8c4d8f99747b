"""The send/status answers written from templates are exactly what the tree writer makes."""

from __future__ import annotations

import pytest
from lxml import etree
from pgaq.idap import response

NAMES = ["gw.q", 'a<&"\'>b', "x\u00e9y\u4e2d", "q]]>z", "tab\there", "cr\rlf\n", "&amp;"]


@pytest.mark.parametrize("destination", NAMES)
@pytest.mark.parametrize("operation", ["AQXmlSend", "AQXmlPublish"])
@pytest.mark.parametrize("stylesheet", [None, 'style "x".xsl'])
def test_send_bytes_match_the_tree(operation: str, destination: str, stylesheet: str | None) -> None:
    for ids in ([], ["0123456789ABCDEF0123456789ABCDEF"], ["AB", "CD", "EF"]):
        tree = response.serialize(response.send_response(operation, destination, ids), stylesheet)
        assert response.send_bytes(operation, destination, ids, stylesheet) == tree


@pytest.mark.parametrize("operation", ["AQXmlCommit", "AQXmlRollback", "AQXmlRegister"])
def test_status_bytes_match_the_tree(operation: str) -> None:
    for stylesheet in (None, "s.xsl"):
        tree = response.serialize(response.status_only(operation), stylesheet)
        assert response.status_bytes(operation, stylesheet) == tree


def test_a_hostile_destination_stays_character_data() -> None:
    out = response.send_bytes("AQXmlSend", "</destination><x/>", ["AB"])
    doc = etree.fromstring(out.split(b"\n", 1)[1])
    dest = doc.find(".//{http://ns.oracle.com/AQ/schemas/access}destination")
    assert dest is not None and dest.text == "</destination><x/>"
    assert doc.find(".//x") is None
