"""A document/literal WSDL 1.1 for the servlet, so SOAP toolkits (zeep, SoapUI) can call it.

The IDAP schema is embedded in <wsdl:types> (clients cannot fetch relative schema files
from the servlet URL); the SOAP envelope schema it imports is left to the toolkit.
"""

from __future__ import annotations

from functools import cache
from xml.sax.saxutils import quoteattr

from lxml import etree

from .request import NS_AQ
from .schema import schemas_dir

OPERATIONS = ("AQXmlSend", "AQXmlPublish", "AQXmlReceive", "AQXmlRegister", "AQXmlCommit",
              "AQXmlRollback")
NS_WSDL = "http://schemas.xmlsoap.org/wsdl/"
NS_SOAPB = "http://schemas.xmlsoap.org/wsdl/soap/"
NS_XSD = "http://www.w3.org/2001/XMLSchema"


@cache
def _types() -> bytes:
    tree = etree.parse(str(schemas_dir() / "aq_access.xsd"),
                       etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False))
    root = tree.getroot()
    for imp in root.findall(f"{{{NS_XSD}}}import"):
        root.remove(imp)  # the envelope schema is the toolkit's own business
    # XSD 1.0 toolkits reject a named element beside a wildcard in one choice (UPA); inside
    # the WSDL the payload is a wildcard only, which accepts the same documents
    for choice in root.iter(f"{{{NS_XSD}}}choice"):
        if any(c.tag == f"{{{NS_XSD}}}any" for c in choice):
            for c in list(choice):
                if c.tag != f"{{{NS_XSD}}}any":
                    choice.remove(c)
    out: bytes = etree.tostring(root)
    return out


def wsdl(endpoint_url: str) -> bytes:
    messages = "".join(
        f'<wsdl:message name="{op}Request"><wsdl:part name="body" element="aq:{op}"/></wsdl:message>'
        f'<wsdl:message name="{op}Response"><wsdl:part name="body" element="aq:{op}Response"/>'
        "</wsdl:message>"
        for op in OPERATIONS)
    port_ops = "".join(
        f'<wsdl:operation name="{op}"><wsdl:input message="aq:{op}Request"/>'
        f'<wsdl:output message="aq:{op}Response"/></wsdl:operation>' for op in OPERATIONS)
    binding_ops = "".join(
        f'<wsdl:operation name="{op}"><soap:operation soapAction="{NS_AQ}#{op}" style="document"/>'
        '<wsdl:input><soap:body use="literal"/></wsdl:input>'
        '<wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>'
        for op in OPERATIONS)
    doc = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<wsdl:definitions xmlns:wsdl="{NS_WSDL}" xmlns:soap="{NS_SOAPB}" '
        f'xmlns:aq="{NS_AQ}" targetNamespace="{NS_AQ}" name="AQxmlServlet">'
        f"<wsdl:types>{_types().decode()}</wsdl:types>"
        f"{messages}"
        f'<wsdl:portType name="AQxmlPortType">{port_ops}</wsdl:portType>'
        '<wsdl:binding name="AQxmlBinding" type="aq:AQxmlPortType">'
        '<soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>'
        f"{binding_ops}</wsdl:binding>"
        '<wsdl:service name="AQxmlService"><wsdl:port name="AQxmlPort" binding="aq:AQxmlBinding">'
        f"<soap:address location={quoteattr(endpoint_url)}/></wsdl:port></wsdl:service>"
        "</wsdl:definitions>"
    )
    return doc.encode()
