"""Distinguished names as certificate login compares them (pgaq.idap.auth): what an agent's
certificate_location may look like, and the subject string a verified certificate gives."""

from __future__ import annotations

import pytest
from pgaq.idap.auth import certificate_subject, parse_dn

JOHN = ((("CN", "john"),), (("OU", "billing"),), (("O", "acme corp"),), (("C", "us"),))


@pytest.mark.parametrize("text", [
    "CN=john,OU=Billing,O=Acme Corp,C=US",
    "cn=John, ou=BILLING, o=ACME  Corp, c=us",  # case and spacing of types and values
    "CN = john ; OU = Billing ; O = Acme Corp ; C = US",  # RFC 1779 separators
    'commonName=john,organizationalUnitName=Billing,organizationName="Acme Corp",countryName=US',
    "2.5.4.3=john,OID.2.5.4.11=Billing,2.5.4.10=Acme Corp,2.5.4.6=US",
    "CN=j\\6Fhn,OU=Billing,O=Acme\\20Corp,C=US",  # hex escapes
])
def test_spellings_of_one_dn(text: str) -> None:
    assert parse_dn(text) == JOHN


def test_openssl_one_line_form_keeps_its_order() -> None:
    assert parse_dn("/C=US/O=Acme Corp/OU=Billing/CN=john") == JOHN[::-1]
    assert parse_dn("C = US, O = Acme Corp, OU = Billing, CN = john") == JOHN[::-1]


def test_escapes_quotes_and_multi_valued_rdns() -> None:
    assert parse_dn('CN=Smith\\, J+UID=js,O="Q; Inc"') == ((("CN", "smith, j"), ("UID", "js")), (("O", "q; inc"),))
    assert parse_dn("UID=js+CN=Smith\\, J,O=Q\\3B Inc") == parse_dn('CN=Smith\\, J+UID=js,O="Q; Inc"')
    assert parse_dn("CN=\\C3\\89lan") == ((("CN", "élan"),),)


@pytest.mark.parametrize("text", [None, "", "   ", "john", "CN=john,", "CN=\"open", "CN=x\\", "=x",
                                  "CN=\\FF", "CN=a\"b\"c,O=x\"", "/CN=a,b"])
def test_not_a_dn(text: str | None) -> None:
    assert parse_dn(text) is None


def test_certificate_subject_round_trips() -> None:
    cert = {"subject": ((("countryName", "US"),), (("organizationName", "Acme, Inc."),),
                        (("commonName", "Élan #1 "),), (("emailAddress", "e@x.org"),))}
    subject = certificate_subject(cert)
    assert subject == "EMAILADDRESS=e@x.org,CN=\\C3\\89lan #1\\ ,O=Acme\\, Inc.,C=US"
    assert subject.isascii()  # it may travel in a header between workers
    assert parse_dn(subject) == parse_dn('E=E@X.ORG,CN=élan #1,O="acme, inc.",C=us')


@pytest.mark.parametrize("cert", [None, {}, {"subject": ()}, "CN=x", {"subject": "CN=x"}])
def test_no_certificate_no_subject(cert: object) -> None:
    assert certificate_subject(cert) is None
