"""A document/literal WSDL 1.1 for the servlet, so SOAP toolkits (zeep, SoapUI) can call it.

The IDAP schema is embedded in <wsdl:types>: clients cannot fetch relative schema files
from the servlet URL. It is the XSD 1.0 variant (message_payload a plain wildcard), since
toolkits reject the printed choice of named elements beside a wildcard (UPA); the SOAP
envelope schema it imports is dropped, as it is the toolkit's own business.
"""

from __future__ import annotations

from functools import cache
from xml.sax.saxutils import quoteattr

from lxml import etree

from .schema import NS_AQ, NS_XSD, OPERATIONS, xsd10_variant

NS_WSDL = "http://schemas.xmlsoap.org/wsdl/"
NS_SOAPB = "http://schemas.xmlsoap.org/wsdl/soap/"
SOAP_HTTP = "http://schemas.xmlsoap.org/soap/http"


@cache
def _types() -> str:
    root = xsd10_variant()
    for imp in root.findall(f"{{{NS_XSD}}}import"):
        root.remove(imp)
    # comments (change log, banners) are noise inside a WSDL
    for comment in root.xpath("//comment()"):
        parent = comment.getparent()
        if parent is not None:
            parent.remove(comment)
    # mixed content (the printed schema's `mixed="true"`, there for whitespace) leaves
    # toolkits unable to bind responses to objects; the documents carry no text between
    # elements, so the WSDL's copy declares element-only content
    for el in root.xpath("//*[@mixed]"):
        del el.attrib["mixed"]
    # a choice holding only a wildcard is a sequence of it (zeep cannot read the former)
    for choice in root.iter(f"{{{NS_XSD}}}choice"):
        kids = [k for k in choice if isinstance(k.tag, str)]
        if len(kids) == 1 and kids[0].tag == f"{{{NS_XSD}}}any":
            choice.tag = f"{{{NS_XSD}}}sequence"
    text: str = etree.tostring(root, encoding="unicode")
    return text


@cache
def _body() -> str:
    """Everything but the service address, which depends on the URL the client used."""
    messages = "".join(
        f'<wsdl:message name="{op}Request"><wsdl:part name="body" element="aq:{op}"/></wsdl:message>'
        f'<wsdl:message name="{op}Response"><wsdl:part name="body" element="aq:{op}Response"/>'
        "</wsdl:message>"
        for op in OPERATIONS)
    # a Fault's detail carries status_response (example 17-21)
    messages += ('<wsdl:message name="AQXmlFault"><wsdl:part name="detail" '
                 'element="aq:status_response"/></wsdl:message>')
    port_ops = "".join(
        f'<wsdl:operation name="{op}"><wsdl:input message="aq:{op}Request"/>'
        f'<wsdl:output message="aq:{op}Response"/>'
        '<wsdl:fault name="AQXmlFault" message="aq:AQXmlFault"/></wsdl:operation>'
        for op in OPERATIONS)
    binding_ops = "".join(
        f'<wsdl:operation name="{op}"><soap:operation soapAction="{NS_AQ}#{op}" style="document"/>'
        '<wsdl:input><soap:body use="literal"/></wsdl:input>'
        '<wsdl:output><soap:body use="literal"/></wsdl:output>'
        '<wsdl:fault name="AQXmlFault"><soap:fault name="AQXmlFault" use="literal"/></wsdl:fault>'
        "</wsdl:operation>"
        for op in OPERATIONS)
    return (
        f"<wsdl:types>{_types()}</wsdl:types>"
        f"{messages}"
        f'<wsdl:portType name="AQxmlPortType">{port_ops}</wsdl:portType>'
        '<wsdl:binding name="AQxmlBinding" type="aq:AQxmlPortType">'
        f'<soap:binding style="document" transport="{SOAP_HTTP}"/>'
        f"{binding_ops}</wsdl:binding>"
    )


def wsdl(endpoint_url: str) -> bytes:
    """The WSDL served at `<endpoint>?wsdl`, with the endpoint as the service address."""
    doc = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<wsdl:definitions xmlns:wsdl="{NS_WSDL}" xmlns:soap="{NS_SOAPB}" '
        f'xmlns:aq="{NS_AQ}" targetNamespace="{NS_AQ}" name="AQxmlServlet">'
        f"{_body()}"
        '<wsdl:service name="AQxmlService"><wsdl:port name="AQxmlPort" binding="aq:AQxmlBinding">'
        f"<soap:address location={quoteattr(endpoint_url)}/></wsdl:port></wsdl:service>"
        "</wsdl:definitions>"
    )
    return doc.encode()
