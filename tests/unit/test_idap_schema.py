"""The corrected schemas load, accept Oracle's examples in both namespace styles, reject
what is not IDAP with a clear message, and the WSDL works for a SOAP toolkit (zeep)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import xmlschema
from lxml import etree
from pgaq.idap.schema import (
    NS_AQ,
    NS_SOAP,
    OPERATIONS,
    FastValidator,
    SchemaError,
    load_fast_validator,
    load_schemas,
    schemas_dir,
    validate,
    xsd10_variant,
)
from pgaq.idap.wsdl import wsdl
from pgaq.idap.xmlsafe import parse

from . import idap_examples as ex

SOAP, AQ = NS_SOAP, NS_AQ
REQUESTS = [f"EXAMPLE_17_{n}" for n in range(1, 16)]
# Every response example but two validates:
# - 17-19 prints message_state before sender_id; the published message_header sequence
#   has sender_id first.
# - 17-21 (the Fault) qualifies faultcode/faultstring/detail with the SOAP namespace (the
#   envelope schema declares them unqualified), its faultcode "100" is not a QName, and
#   detail's status_response is in the SOAP namespace, where nothing declares it.
RESPONSES = ["EXAMPLE_17_16", "EXAMPLE_17_17", "EXAMPLE_17_18", "EXAMPLE_17_20"]
INVALID_EXAMPLES = {
    "EXAMPLE_17_19": ("aq:message_state", "aq:message_header/aq:message_state"),
    "EXAMPLE_17_21": ("faultcode", "soap:Fault/soap:faultcode"),
}
# the payload elements the IDAP schema names (they stay in the AQ namespace when prefixed)
NAMED_PAYLOADS = {"raw", "jms_text_message", "jms_map_message", "jms_bytes_message",
                  "jms_object_message"}


Validator = xmlschema.XMLSchemaBase | FastValidator


@pytest.fixture(params=["xmlschema-1.1", "libxml2-1.0"])
def validator(request: pytest.FixtureRequest) -> Validator:
    return load_schemas() if request.param == "xmlschema-1.1" else load_fast_validator()


def example(name: str) -> etree._Element:
    return parse(getattr(ex, name).strip().encode())


def envelope(body: str, header: str = "") -> etree._Element:
    return parse(f'<Envelope xmlns="{SOAP}">{header}<Body>{body}</Body></Envelope>'.encode())


def prefixed(doc: etree._Element) -> etree._Element:
    """A SOAP toolkit's rendering of an Oracle example: soap-env:/ns0: prefixes, and object
    payloads (ORDER_TYP...) in no namespace, as zeep sends `_value_1` elements."""

    def copy(el: etree._Element, parent: etree._Element | None, in_object: bool) -> etree._Element:
        name = etree.QName(el).localname
        tag = name if in_object else str(el.tag)
        if parent is None:
            new = etree.Element(tag, nsmap={"soap-env": SOAP})
        else:
            new = etree.SubElement(parent, tag, nsmap={"ns0": AQ} if parent.tag == f"{{{SOAP}}}Body" else None)
        new.attrib.update(el.attrib)
        new.text, new.tail = el.text, el.tail
        for c in el:
            if isinstance(c.tag, str):
                copy(c, new, in_object or (
                    name == "message_payload" and etree.QName(c).localname not in NAMED_PAYLOADS))
        return new

    text = etree.tostring(copy(doc, None, False))
    assert b"xmlns=" not in text  # no default namespace left: every name is prefixed or plain
    return parse(text)


# -- loading ----------------------------------------------------------------------------

def test_schemas_load_locally_as_xsd11() -> None:
    s = load_schemas()
    assert isinstance(s, xmlschema.XMLSchema11)
    assert s.target_namespace == AQ
    assert f"{{{SOAP}}}Envelope" in s.maps.elements  # the import resolved to soap_env.xsd
    assert f"{{{AQ}}}AQXmlNotification" in s.maps.elements  # the documented extension
    for other in s.maps.schemas:  # local files only: ours, or xmlschema's bundled meta-schemas
        assert str(other.url).startswith("file:///"), other.url
        if other.target_namespace in (AQ, SOAP):
            assert Path(str(other.url).removeprefix("file://")).parent == schemas_dir()


def test_printed_payload_choice_is_not_xsd10() -> None:
    # why the reference validator is XSD 1.1 (see schemas/README.md)
    with pytest.raises(xmlschema.XMLSchemaModelError):
        xmlschema.XMLSchema10(str(schemas_dir() / "aq_access.xsd"), allow="local", defuse="always")
    etree.XMLSchema(xsd10_variant())  # the derived 1.0 variant compiles with libxml2


def test_schemas_dir_env_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for f in ("aq_access.xsd", "soap_env.xsd"):
        shutil.copy(schemas_dir() / f, tmp_path / f)
    monkeypatch.setenv("PGAQ_SCHEMAS_DIR", str(tmp_path))
    assert schemas_dir() == tmp_path
    validate(example("EXAMPLE_17_1"), load_schemas(tmp_path))
    monkeypatch.setenv("PGAQ_SCHEMAS_DIR", str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError):
        schemas_dir()


# -- Oracle's examples --------------------------------------------------------------------

@pytest.mark.parametrize("name", REQUESTS + RESPONSES)
def test_seed_examples_validate(name: str, validator: Validator) -> None:
    validate(example(name), validator)


@pytest.mark.parametrize("name", REQUESTS + RESPONSES)
def test_prefixed_style_validates(name: str, validator: Validator) -> None:
    doc = prefixed(example(name))
    assert doc.tag == f"{{{SOAP}}}Envelope" and doc.prefix == "soap-env"
    validate(doc, validator)


def test_prefixed_payload_is_in_no_namespace() -> None:
    doc = prefixed(example("EXAMPLE_17_1"))
    assert doc.find(".//ORDER_TYP/CUSTOMER/CITY") is not None
    doc = prefixed(example("EXAMPLE_17_3"))
    assert doc.find(f".//{{{AQ}}}jms_text_message/{{{AQ}}}text_data") is not None


@pytest.mark.parametrize("name", sorted(INVALID_EXAMPLES))
def test_seed_examples_that_break_the_schema(name: str, validator: Validator) -> None:
    reason, where = INVALID_EXAMPLES[name]
    with pytest.raises(SchemaError) as info:
        validate(example(name), validator)
    assert reason in info.value.reason
    assert info.value.path.endswith(where)


def test_toolkit_prefixed_document(validator: Validator) -> None:
    doc = (f'<soap-env:Envelope xmlns:soap-env="{SOAP}"><soap-env:Body>'
           f'<ns0:AQXmlSend xmlns:ns0="{AQ}"><ns0:producer_options><ns0:destination>q'
           "</ns0:destination></ns0:producer_options><ns0:message_set><ns0:message>"
           "<ns0:message_header><ns0:sender_id/></ns0:message_header><ns0:message_payload>"
           "<ORDER_TYP><ORDERNO>1</ORDERNO></ORDER_TYP></ns0:message_payload></ns0:message>"
           "</ns0:message_set><ns0:AQXmlCommit>\n </ns0:AQXmlCommit></ns0:AQXmlSend>"
           "</soap-env:Body></soap-env:Envelope>")
    validate(parse(doc.encode()), validator)


def test_headers_and_notification(validator: Validator) -> None:
    header = (f'<Header><t:tx xmlns:t="urn:t" xmlns:s="{SOAP}" s:mustUnderstand="0">1</t:tx>'
              "</Header>")
    validate(envelope(f'<AQXmlRollback xmlns="{AQ}"/>', header), validator)
    notification = (
        f'<AQXmlNotification xmlns="{AQ}"><notification_options><destination>S.Q</destination>'
        "<consumer_name>APP1</consumer_name></notification_options><message_set>"
        "<message_count>1</message_count><message><message_number>1</message_number>"
        "<message_header><message_id>0A</message_id><sender_id/></message_header></message>"
        "</message_set></AQXmlNotification>")
    validate(envelope(notification), validator)


def test_fault_validates_against_the_envelope_fault_type(validator: Validator) -> None:
    fault = (f'<e:Envelope xmlns:e="{SOAP}"><e:Body><e:Fault><faultcode>e:Client</faultcode>'
             "<faultstring>Client Fault: no such queue</faultstring><detail>"
             f'<status_response xmlns="{AQ}"><status_code>-1</status_code>'
             "<error_code>24010</error_code><error_message>ORA-24010</error_message>"
             "</status_response></detail></e:Fault></e:Body></e:Envelope>")
    validate(parse(fault.encode()), validator)
    with pytest.raises(SchemaError, match="QName"):
        validate(parse(fault.replace("e:Client", "100").encode()), validator)


# -- rejections ---------------------------------------------------------------------------

PAYLOAD = (f'<AQXmlSend xmlns="{AQ}"><producer_options><destination>q</destination>'
           "</producer_options><message_set><message><message_header><sender_id/>"
           "</message_header><message_payload>{}</message_payload></message></message_set>"
           "</AQXmlSend>")
INVALID_BODIES = {
    "missing producer_options": (f'<AQXmlSend xmlns="{AQ}"><message_set/></AQXmlSend>',
                                 "producer_options", "/aq:AQXmlSend/aq:message_set"),
    "missing destination": (
        f'<AQXmlSend xmlns="{AQ}"><producer_options><visibility>IMMEDIATE</visibility>'
        "</producer_options><message_set/></AQXmlSend>",
        "destination", "/aq:AQXmlSend/aq:producer_options"),
    "missing message_set": (
        f'<AQXmlPublish xmlns="{AQ}"><producer_options><destination>q</destination>'
        "</producer_options></AQXmlPublish>", "message_set", "/aq:AQXmlPublish"),
    "bad dequeue_mode": (
        f'<AQXmlReceive xmlns="{AQ}"><consumer_options><destination>q</destination>'
        "<dequeue_mode>FOO</dequeue_mode></consumer_options></AQXmlReceive>",
        "BROWSE", "/aq:consumer_options/aq:dequeue_mode"),
    "bad visibility": (
        f'<AQXmlReceive xmlns="{AQ}"><consumer_options><destination>q</destination>'
        "<visibility>SOMETIMES</visibility></consumer_options></AQXmlReceive>",
        "IMMEDIATE", "/aq:consumer_options/aq:visibility"),
    "bad lookup_type": (
        f'<AQXmlReceive xmlns="{AQ}"><consumer_options><destination lookup_type="DNS">q'
        "</destination></consumer_options></AQXmlReceive>",
        "", "/aq:consumer_options/aq:destination"),
    "non-integer wait_time": (
        f'<AQXmlReceive xmlns="{AQ}"><consumer_options><destination>q</destination>'
        "<wait_time>soon</wait_time></consumer_options></AQXmlReceive>",
        "", "/aq:consumer_options/aq:wait_time"),
    "register without notify_url": (
        f'<AQXmlRegister xmlns="{AQ}"><register_options><destination>q</destination>'
        "</register_options></AQXmlRegister>", "notify_url", "/aq:register_options"),
    "unknown IDAP operation": (f'<AQXmlFrobnicate xmlns="{AQ}"/>', "not an IDAP operation",
                               "/aq:AQXmlFrobnicate"),
    "IDAP element that is not an operation": (
        f'<destination xmlns="{AQ}">q</destination>', "not an IDAP operation", "/aq:destination"),
    "operation in another namespace": ('<AQXmlSend xmlns="urn:other"/>', "not in the namespace",
                                       "/*[local-name()='AQXmlSend']"),
    "operation in no namespace": ('<AQXmlCommit xmlns=""/>', "not in the namespace", "/AQXmlCommit"),
    "two operations": (f'<AQXmlCommit xmlns="{AQ}"/><AQXmlRollback xmlns="{AQ}"/>',
                       "exactly one", "/soap:Body"),
    "empty body": ("", "exactly one", "/soap:Body"),
    "text in the body": (f'hello<AQXmlCommit xmlns="{AQ}"/>', "text", "/soap:Body"),
    "text in AQXmlCommit": (f'<AQXmlCommit xmlns="{AQ}">now</AQXmlCommit>', "", "/aq:AQXmlCommit"),
    "invalid jms payload": (
        PAYLOAD.format("<jms_text_message><text_data>x</text_data><extra/></jms_text_message>"),
        "extra", "/aq:message_payload/aq:jms_text_message/aq:extra"),
    "raw beside another element": (PAYLOAD.format("<raw>00</raw><ORDER_TYP/>"), "",
                                   "/aq:message_payload/aq:"),
    "second message's jms payload invalid": (
        PAYLOAD.replace("<message>", "<message><message_header><sender_id/></message_header>"
                        "<message_payload><raw>00</raw></message_payload></message><message>", 1)
        .format("<jms_bytes_message><text_data>x</text_data></jms_bytes_message>"),
        "", "/aq:message[2]/aq:message_payload/aq:jms_bytes_message"),
    "raw with children": (PAYLOAD.format("<raw><x/></raw>"), "", "/aq:message_payload/aq:raw"),
    "text in the payload": (PAYLOAD.format("00FF"), "", "/aq:message_payload"),
    "bad priority": (PAYLOAD.format("").replace(
        "<message_header>", "<message_header><priority>high</priority>"), "",
        "/aq:message_header/aq:priority"),
}


@pytest.mark.parametrize("case", sorted(INVALID_BODIES))
def test_invalid_documents(case: str, validator: Validator) -> None:
    body, reason, where = INVALID_BODIES[case]
    with pytest.raises(SchemaError) as info:
        validate(envelope(body), validator)
    err = info.value
    assert reason in err.reason
    assert where in err.path, err.path
    assert err.path.startswith("/soap:Envelope/soap:Body")
    assert str(err).endswith(f"(at {err.path})") and len(str(err)) < 600


@pytest.mark.parametrize("doc, reason", [
    (b'<Envelope xmlns="http://ns.oracle.com/AQ/schemas/envelope"><Body>'
     b'<AQXmlCommit xmlns="http://ns.oracle.com/AQ/schemas/access"/></Body></Envelope>', "SOAP 1.1"),
    (b'<Envelope><Body/></Envelope>', "SOAP 1.1"),
    (f'<AQXmlCommit xmlns="{AQ}"/>'.encode(), "not a SOAP Envelope"),
    (f'<Envelope xmlns="{SOAP}"><Header/></Envelope>'.encode(), "Body"),
    (f'<Envelope xmlns="{SOAP}"><Body><AQXmlCommit xmlns="{AQ}"/></Body><Header/></Envelope>'.encode(),
     "Body"),
    (f'<Envelope xmlns="{SOAP}"><Body><AQXmlCommit xmlns="{AQ}"/></Body><x xmlns=""/></Envelope>'.encode(),
     "namespace-qualified"),
    (f'<Envelope xmlns="{SOAP}"><Header><tx xmlns="">1</tx></Header><Body/></Envelope>'.encode(),
     "namespace-qualified"),
    (f'<Envelope xmlns="{SOAP}"><Header><t:tx xmlns:t="urn:t" mustUnderstand="2">1</t:tx></Header>'
     f'<Body><AQXmlCommit xmlns="{AQ}"/></Body></Envelope>'.encode().replace(
         b"mustUnderstand", b'xmlns:s="' + SOAP.encode() + b'" s:mustUnderstand'), "mustUnderstand"),
    (f'<Envelope xmlns="{SOAP}">x<Body><AQXmlCommit xmlns="{AQ}"/></Body></Envelope>'.encode(), "text"),
])
def test_invalid_envelopes(doc: bytes, reason: str, validator: Validator) -> None:
    with pytest.raises(SchemaError, match=reason):
        validate(parse(doc), validator)


def test_validators_agree() -> None:
    """The libxml2 hot path accepts exactly what the XSD 1.1 reference accepts."""
    docs = [example(n) for n in (*REQUESTS, *RESPONSES, *INVALID_EXAMPLES)]
    docs += [prefixed(example(n)) for n in REQUESTS]
    docs += [envelope(body) for body, _, _ in INVALID_BODIES.values()]
    docs += [envelope(PAYLOAD.format(p)) for p in (
        "", "<RAW>00</RAW>", "<raw>00</raw>", "<ORDER_TYP/><ORDER_TYP/>", "<x:y xmlns:x='urn:x'/>",
        "<raw>00</raw><raw>01</raw>", "<ORDER_TYP/><jms_bytes_message><bytes_data>0</bytes_data>"
        "</jms_bytes_message>", "<jms_map_message><map_data><item><name>a</name>"
        "<int_value>x</int_value></item></map_data></jms_map_message>")]

    def verdict(doc: etree._Element, v: Validator) -> bool:
        try:
            validate(doc, v)
        except SchemaError:
            return False
        return True

    ref, fast = load_schemas(), load_fast_validator()
    for doc in docs:
        assert verdict(doc, ref) == verdict(doc, fast), etree.tostring(doc)[:300]




def test_gateway_fault_document_validates() -> None:
    from pgaq.idap import response

    raw = response.serialize(response.fault(True, "no such queue", 24010), None)
    validate(parse(raw), load_schemas())


# -- WSDL ---------------------------------------------------------------------------------

W = "http://schemas.xmlsoap.org/wsdl/"
WS = "http://schemas.xmlsoap.org/wsdl/soap/"


def test_wsdl_structure() -> None:
    url = "http://gw.example:8080/aqxml?a=1&b=2"
    doc = etree.fromstring(wsdl(url))
    ops = doc.findall(f"{{{W}}}portType/{{{W}}}operation")
    assert sorted(o.get("name") for o in ops) == sorted(OPERATIONS)
    for op in ops:
        name = op.get("name")
        assert op.find(f"{{{W}}}input").get("message") == f"aq:{name}Request"
        assert op.find(f"{{{W}}}output").get("message") == f"aq:{name}Response"
    binding = doc.find(f"{{{W}}}binding")
    assert binding.find(f"{{{WS}}}binding").attrib == {
        "style": "document", "transport": "http://schemas.xmlsoap.org/soap/http"}
    for op in binding.findall(f"{{{W}}}operation"):
        assert op.find(f"{{{WS}}}operation").get("soapAction") == f"{AQ}#{op.get('name')}"
        assert op.find(f"{{{W}}}input/{{{WS}}}body").get("use") == "literal"
    assert doc.find(f".//{{{WS}}}address").get("location") == url
    parts = {p.get("element") for p in doc.iter(f"{{{W}}}part")}
    assert {f"aq:{o}" for o in OPERATIONS} | {f"aq:{o}Response" for o in OPERATIONS} <= parts
    # the embedded types are a self-contained XSD 1.0 schema (no import to fetch)
    types = doc.find(f"{{{W}}}types/{{http://www.w3.org/2001/XMLSchema}}schema")
    assert types.get("targetNamespace") == AQ
    assert types.find("{http://www.w3.org/2001/XMLSchema}import") is None
    etree.XMLSchema(types)


def test_wsdl_with_zeep(tmp_path: Path) -> None:
    zeep = pytest.importorskip("zeep")
    path = tmp_path / "aq.wsdl"
    path.write_bytes(wsdl("http://localhost:1/aqxml"))
    client = zeep.Client(str(path))
    ports = [p for s in client.wsdl.services.values() for p in s.ports.values()]
    operations = ports[0].binding.all()  # zeep's public read of a binding's operations
    assert sorted(operations) == sorted(OPERATIONS)
    assert {o.soapaction for o in operations.values()} == {f"{AQ}#{o}" for o in OPERATIONS}

    order = etree.fromstring("<ORDER_TYP><ORDERNO>100</ORDERNO><STATUS>NEW</STATUS></ORDER_TYP>")
    message = client.create_message(
        client.service, "AQXmlSend",
        producer_options={"destination": "QS.NEW_ORDERS_QUE", "visibility": "IMMEDIATE"},
        message_set={"message_count": 1, "message": [{
            "message_number": 1,
            "message_header": {"correlation": "ORDER1", "priority": 2,
                               "sender_id": {"agent_name": "scott"}},
            "message_payload": {"_value_1": [order]},
        }]},
    )
    doc = parse(etree.tostring(message))
    for v in (load_schemas(), load_fast_validator()):
        validate(doc, v)
    assert doc.find(f".//{{{AQ}}}message_payload/ORDER_TYP/ORDERNO").text == "100"

    commit = parse(etree.tostring(client.create_message(client.service, "AQXmlCommit")))
    validate(commit, load_schemas())

    # zeep reads Oracle's default-namespace response (example 17-16)
    result = operations["AQXmlSend"].output.deserialize(example("EXAMPLE_17_16"))
    assert result.status_response.status_code == "0"
    assert result.send_result.message_id == ["12341234123412341234"]
