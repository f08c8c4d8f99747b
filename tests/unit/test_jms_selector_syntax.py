"""A selector that does not parse is refused when the consumer, subscriber or browser is
created (JMS 1.1: createConsumer throws InvalidSelectorException), with JMS-159 and the
database parser's ORA-00936 linked, without the database: the session here has none (its
connection refuses any use of a pool). The check's agreement with the database's parser is
tests/fuzz/test_fuzz_selector_syntax.py's."""

from __future__ import annotations

from typing import Any

import pgaq.jms as jms
import pytest
from pgaq.jms import selector
from pgaq.jms.session import Session


class _NoPool:
    """A pool no session here takes from: closing one that never parked is no use of it."""

    def unpark(self, _session: object) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the database was used: pool.{name}")


class _NoDatabase:
    """A Connection stand-in: open, and any database use fails the test."""

    closed = False
    pool = _NoPool()

    def check_open(self) -> None:
        pass

    def forget(self, _session: object) -> None:  # a closed session leaves its connection
        pass

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the database was used: connection.{name}")


def _session() -> Session:
    return Session(_NoDatabase(), False, jms.AUTO_ACKNOWLEDGE)  # type: ignore[arg-type]


QUEUE = jms.Queue("shop", "orders_q")
TOPIC = jms.Topic("shop", "news_t")

GOOD = [
    "country = 'UK'", "JMSPriority > 3 AND color IN ('red', 'blue')", "NOT (a BETWEEN 1 AND 2)",
    "name LIKE 'a!_%' ESCAPE '!'", "x IS NOT NULL", "-1.5e3 < +price * 2", "it = 'it''s'",
    "a NOT LIKE 'x' OR b NOT IN ('y') OR c NOT BETWEEN 1 AND 2", '"Quoted" = 1',
    "tab.user_data.price > 5", "UPPER(tab.corrid) = 'X'",  # AQ dialect (object-typed queues)
    "flag", "TRUE", "(((x)))", "a=1and b=2", "$x_1# = .5",
]
BAD = {
    "country = ": 'ORA-00936: invalid condition at position 11: expected an operand, found end of condition',
    "country = 'UK": "ORA-00936: invalid condition at position 11: string literal not properly terminated",
    "a = 1 = 2": 'ORA-00936: invalid condition at position 7: unexpected "="',
    "a IS 5": 'ORA-00936: invalid condition at position 6: expected NULL, found "5"',
    "a BETWEEN 1 OR 2": 'ORA-00936: invalid condition at position 13: expected AND, found "OR"',
    "a IN 'x'": 'ORA-00936: invalid condition at position 6: expected "(", found string literal',
    "(a = 1": 'ORA-00936: invalid condition at position 7: expected ")", found end of condition',
    "a = 1)": 'ORA-00936: invalid condition at position 6: unexpected ")"',
    "a # 1": 'ORA-00936: invalid condition at position 3: unexpected "#"',
    '"" = 1': "ORA-00936: invalid condition at position 1: invalid quoted identifier",
    "a. = 1": 'ORA-00936: invalid condition at position 4: expected identifier, found "="',
    "a.b(1) = 1": 'ORA-00936: invalid condition at position 4: unexpected "("',
    "a = NOT b": 'ORA-00936: invalid condition at position 5: expected an operand, found "NOT"',
    "AND": 'ORA-00936: invalid condition at position 1: expected an operand, found "AND"',
    "(" * 200: "ORA-00936: invalid condition at position 102: condition is nested too deeply",
}


@pytest.mark.parametrize("text", GOOD)
def test_what_the_grammar_takes_passes(text: str) -> None:
    assert selector.syntax_error(text) is None
    selector.check_syntax(text)


@pytest.mark.parametrize(("text", "ora"), BAD.items())
def test_what_it_refuses_reads_as_the_database_parser_says(text: str, ora: str) -> None:
    assert selector.syntax_error(text) == ora
    with pytest.raises(jms.InvalidSelectorException) as e:
        selector.check_syntax(text)
    assert e.value.error_code == "JMS-159"
    linked = e.value.get_linked_exception()
    assert isinstance(linked, jms.InvalidSelectorException)
    assert linked.error_code == "ORA-00936" and linked.code == 936 and ora in str(e.value)


@pytest.mark.parametrize("text", [None, "", "   ", "\t\n"])
def test_no_selector_is_none(text: str | None) -> None:
    selector.check_syntax(text)


def test_a_selector_that_is_no_string_is_invalid() -> None:
    with pytest.raises(jms.InvalidSelectorException) as e:
        _session().create_consumer(QUEUE, message_selector=5)  # type: ignore[arg-type]
    assert e.value.error_code == "JMS-159"


def test_factories_refuse_a_bad_selector_before_any_database_use() -> None:
    s = _session()
    bad = "country = "
    for make in (lambda: s.create_consumer(QUEUE, message_selector=bad),
                 lambda: s.create_receiver(QUEUE, bad),
                 lambda: s.create_consumer(TOPIC, bad),
                 lambda: s.create_subscriber(TOPIC, bad),
                 lambda: s.create_durable_subscriber(TOPIC, "AUDIT", message_selector=bad),
                 lambda: s.create_topic_receiver(TOPIC, "BOB", bad),
                 lambda: s.create_browser(QUEUE, message_selector=bad),
                 lambda: s.create_browser(TOPIC, bad, "AUDIT")):
        with pytest.raises(jms.InvalidSelectorException) as e:
            make()  # raised by the call itself: nothing to await
        assert e.value.error_code == "JMS-159"
    # nothing was left behind (no durable subscription remembered either: the database
    # says so in tests/integration/test_jms_selector_at_create.py)
    assert s.consumers == ()


def test_factories_refuse_a_wrong_destination_at_once() -> None:
    s = _session()
    with pytest.raises(jms.InvalidDestinationException):
        s.create_consumer("shop.orders_q")  # type: ignore[arg-type]
    with pytest.raises(jms.InvalidDestinationException):
        s.create_durable_subscriber(QUEUE, "AUDIT")  # type: ignore[arg-type]
    with pytest.raises(jms.InvalidDestinationException):
        s.create_topic_receiver(QUEUE, "BOB")  # type: ignore[arg-type]
    with pytest.raises(jms.InvalidDestinationException):
        s.create_browser("shop.orders_q")  # type: ignore[arg-type]
    with pytest.raises(jms.JMSException):
        s.create_durable_subscriber(TOPIC, "")
    assert s.consumers == ()


async def test_a_closed_session_refuses_at_once() -> None:
    s = _session()
    await s.close()  # it never took a connection: nothing to give back
    for make in (lambda: s.create_consumer(QUEUE, "a = 1"),
                 lambda: s.create_durable_subscriber(TOPIC, "AUDIT"),
                 lambda: s.create_browser(QUEUE)):
        with pytest.raises(jms.IllegalStateException) as e:
            make()
        assert e.value.error_code == "JMS-131"


def test_a_good_selector_gives_a_consumer_without_the_database() -> None:
    s = _session()
    c = s.create_consumer(QUEUE, message_selector="country = 'UK'")
    assert c.get_message_selector() == "country = 'UK'" and s.consumers == (c,)
