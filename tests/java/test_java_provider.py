"""The Java JMS provider's own tests (java/src/test/java), run by `make test`.

The jar and the tests are compiled once (`java/build compile`); each JUnit test class then
runs in a JVM of its own on the JUnit console launcher against a fresh pgaq database
(tests/java/junit.py), so a failure names its class here and the JUnit report says which
method and why. The conformance classes also run the same tests on an embedded ActiveMQ
broker. ActiveMqExamplesTest, whose tests each run example programs for up to two
minutes, runs a test at a time in test_java_examples.py and test_java_example_listener.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import junit


@pytest.mark.timeout(900)
@pytest.mark.parametrize("test_class", [c for c in junit.classes() if c != junit.EXAMPLES])
async def test_java(test_class: str, compiled: None, db_dsn: str, tmp_path: Path) -> None:
    await junit.run(["--select-class", test_class], db_dsn, tmp_path)
