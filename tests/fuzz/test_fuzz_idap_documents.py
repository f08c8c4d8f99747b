"""Fuzzing the IDAP request path without a database: safe XML parse, schema check, request
parse and payload mapping. Every document is either read or refused with one of the
documented client errors (each of which the gateway turns into a Client fault with an
error_code); anything else would be a traceback and a Server fault (ORA-00600)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pgaq.idap.gateway import Fault, to_fault
from pgaq.idap.payload import PayloadError, xml_to_payload
from pgaq.idap.request import RequestError, SendRequest, parse_request
from pgaq.idap.schema import SchemaError, load_fast_validator, validate
from pgaq.idap.typeinfo import TypeInfo
from pgaq.idap.xmlsafe import XmlError, parse

from ..unit.test_idap_payload import EMP_TYP, ORDER_TYP
from .conftest import TIMEOUT, fuzz
from .strategies import SEEDS, documents, envelopes, mutate_bytes

CLIENT_ERRORS = (XmlError, SchemaError, RequestError, PayloadError)
VALIDATOR = load_fast_validator()
KINDS: list[tuple[str, TypeInfo | None]] = [
    ("RAW", None), ("JMS_TEXT", None), ("JMS_BYTES", None), ("JMS_MAP", None),
    ("JMS_OBJECT", None), ("OBJECT", ORDER_TYP), ("OBJECT", EMP_TYP),
]


def read(document: bytes) -> None:
    """The gateway's reading of a document, up to the engine call."""
    env = parse(document)
    validate(env, VALIDATOR)
    req = parse_request(env)
    if isinstance(req, SendRequest):
        for m in req.messages:
            if m.payload is None:
                continue
            for kind, info in KINDS:
                try:
                    xml_to_payload(kind, m.payload, info)
                except PayloadError as exc:
                    assert_client_fault(exc)


def assert_client_fault(exc: Exception) -> None:
    fault = to_fault(exc)
    assert isinstance(fault, Fault)
    assert fault.client, (exc, fault.message)
    assert fault.code is not None, exc
    assert fault.message.startswith("ORA-"), fault.message


def check(document: bytes) -> None:
    try:
        read(document)
    except CLIENT_ERRORS as exc:
        assert_client_fault(exc)


@pytest.mark.parametrize("seed", range(len(SEEDS)))
def test_seed_examples_read_or_refused_cleanly(seed: int) -> None:
    check(SEEDS[seed])


@pytest.mark.timeout(TIMEOUT)
@fuzz(600)
@given(documents())
def test_mutated_documents_never_crash(document: bytes) -> None:
    check(document)


@pytest.mark.timeout(TIMEOUT)
@fuzz(150)
@given(envelopes())
def test_generated_envelopes_never_crash(document: bytes) -> None:
    check(document)


@pytest.mark.timeout(TIMEOUT)
@fuzz(150)
@given(st.sampled_from(SEEDS).flatmap(mutate_bytes))
def test_byte_mutations_never_crash(document: bytes) -> None:
    check(document)


@pytest.mark.timeout(TIMEOUT)
@fuzz(100)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_crash(document: bytes) -> None:
    check(document)


SQLSTATES = st.one_of(st.none(), st.sampled_from([
    "22001", "22003", "22007", "22008", "22P02", "22012", "22023", "23502", "23505", "23514",
    "42501", "42601", "42P01", "0A000", "P0001", "08006", "53300", "57014", "40001", "XX000",
]), st.text("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=5, max_size=5))


@fuzz(100)
@example(sqlstate=None, text="\x1f", code=None)  # was a ValueError while writing the fault
@example(sqlstate="22P02", text="bad \ud800 \x00", code=None)
@given(SQLSTATES, st.text(max_size=30), st.none() | st.integers(1, 99999))
def test_every_database_error_maps_to_a_fault_with_an_error_code(
        sqlstate: str | None, text: str, code: int | None) -> None:
    """Whatever PostgreSQL raised, the fault has a code, and its message leads with it."""
    from pgaq.errors import QueueError
    from pgaq.idap.response import fault, serialize

    f = to_fault(QueueError(text, code, sqlstate))
    assert f.code is not None
    doc = serialize(fault(f.client, f.message, f.code), None)
    assert b"<error_code>" in doc and b"<error_message>ORA-" in doc, doc
