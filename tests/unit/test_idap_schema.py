"""The corrected schemas load, accept Oracle's examples and reject what is not IDAP."""

from __future__ import annotations

import pytest
from pgaq.idap.schema import SchemaError, load_fast_validator, load_schemas, validate
from pgaq.idap.xmlsafe import parse

from . import idap_examples as ex

REQUESTS = [f"EXAMPLE_17_{n}" for n in range(1, 16)]
# 17-19 prints message_state before sender_id, against the published schema's order;
# 17-21 is a Fault, which the IDAP schema does not describe
RESPONSES = ["EXAMPLE_17_16", "EXAMPLE_17_17", "EXAMPLE_17_18", "EXAMPLE_17_20"]
SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
AQ = "http://ns.oracle.com/AQ/schemas/access"


@pytest.fixture(params=["xmlschema-1.1", "libxml2-1.0"])
def validator(request: pytest.FixtureRequest) -> object:
    return load_schemas() if request.param == "xmlschema-1.1" else load_fast_validator()


@pytest.mark.parametrize("name", REQUESTS + RESPONSES)
def test_seed_examples_validate(name: str, validator: object) -> None:
    validate(parse(getattr(ex, name).strip().encode()), validator)


def test_prefixed_style_validates(validator: object) -> None:
    doc = (f'<soap-env:Envelope xmlns:soap-env="{SOAP}"><soap-env:Body>'
           f'<ns0:AQXmlSend xmlns:ns0="{AQ}"><ns0:producer_options><ns0:destination>q'
           "</ns0:destination></ns0:producer_options><ns0:message_set><ns0:message>"
           "<ns0:message_header><ns0:sender_id/></ns0:message_header><ns0:message_payload>"
           "<ORDER_TYP><ORDERNO>1</ORDERNO></ORDER_TYP></ns0:message_payload></ns0:message>"
           "</ns0:message_set><ns0:AQXmlCommit>\n </ns0:AQXmlCommit></ns0:AQXmlSend>"
           "</soap-env:Body></soap-env:Envelope>")
    validate(parse(doc.encode()), validator)


@pytest.mark.parametrize("body", [
    f'<AQXmlSend xmlns="{AQ}"><message_set/></AQXmlSend>',
    f'<AQXmlReceive xmlns="{AQ}"><consumer_options><destination>q</destination>'
    "<dequeue_mode>EAT</dequeue_mode></consumer_options></AQXmlReceive>",
    f'<AQXmlReceive xmlns="{AQ}"><consumer_options><destination>q</destination>'
    "<wait_time>soon</wait_time></consumer_options></AQXmlReceive>",
    f'<AQXmlFrobnicate xmlns="{AQ}"/>',
    '<AQXmlSend xmlns="urn:other"/>',
])
def test_invalid_documents(body: str, validator: object) -> None:
    with pytest.raises(SchemaError):
        validate(parse(f'<Envelope xmlns="{SOAP}"><Body>{body}</Body></Envelope>'.encode()), validator)


def test_other_envelope_namespace(validator: object) -> None:
    with pytest.raises(SchemaError):
        validate(parse(b'<Envelope xmlns="http://ns.oracle.com/AQ/schemas/envelope"><Body/></Envelope>'),
                 validator)
