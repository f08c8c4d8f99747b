"""pgaq.jms.ActiveMqExamplesTest (java/src/test/java): Debian's ActiveMQ example programs
run unchanged on pgaq but for their connection factory. Each of its tests runs here as a
test of its own (a JVM and a fresh pgaq database each, as test_java_provider.py runs a
class), since each runs example programs in JVMs of their own, some for the 20 s their
receive timeouts wait after the last message; so they spread over xdist's workers. The
examples that cannot run unchanged (skipped, giving the reason) run together.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import junit

EXAMPLES = junit.EXAMPLES
# the tests that only say why an example cannot run unchanged
CANNOT_RUN = ("compositeDestinations", "exclusiveConsumer", "wildcardConsumer")
RUNS = [[m] for m in junit.methods(EXAMPLES) if m not in CANNOT_RUN] + [list(CANNOT_RUN)]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("tests", RUNS, ids=lambda t: t[0] if len(t) == 1 else "cannotRunUnchanged")
async def test_activemq_example(tests: list[str], compiled: None, db_dsn: str, tmp_path: Path) -> None:
    ran = await junit.run([f"--select-method={EXAMPLES}#{m}" for m in tests], db_dsn, tmp_path)
    assert sorted(ran) == sorted(f"{EXAMPLES}.{m}" for m in tests)
