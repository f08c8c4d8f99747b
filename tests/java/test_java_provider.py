"""The Java JMS provider's own tests (java/src/test/java), run by `make test`.

The jar and the tests are compiled once (`java/build compile`); each JUnit test class then
runs against a fresh pgaq database, in the worker's JVM that runs them one after another
(tests/java/junit.py), so a failure names its class here and the JUnit report says which
method and why. The conformance classes also run the same tests on an embedded ActiveMQ
broker. ActiveMqExamplesTest, whose tests each run example programs for up to two
minutes, runs a test at a time in test_java_examples.py, but for its longest (Debian's
openwire/java Listener and Publisher, 10000 messages), here: xdist sends a file to one
worker, the files with the most tests first, so it starts early and beside the others.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import junit


@pytest.mark.timeout(900)
@pytest.mark.parametrize("test_class", [c for c in junit.classes() if c != junit.EXAMPLES])
async def test_java(test_class: str, junit_jvm: junit.Jvm, db_dsn: str, tmp_path: Path) -> None:
    await junit.run(junit_jvm, [f"class:{test_class}"], db_dsn, tmp_path)


@pytest.mark.timeout(900)
async def test_activemq_listener_example(junit_jvm: junit.Jvm, db_dsn: str, tmp_path: Path) -> None:
    await junit.run_methods(junit_jvm, junit.EXAMPLES, (junit.LISTENER,), db_dsn, tmp_path)
