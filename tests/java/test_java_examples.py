"""pgaq.jms.ActiveMqExamplesTest (java/src/test/java): Debian's ActiveMQ example programs
run unchanged on pgaq but for their connection factory. Each of its tests runs here as a
test of its own (a fresh pgaq database each, as test_java_provider.py runs a class), as
each runs example programs in JVMs of their own for up to two minutes, some for the 20 s
their receive timeouts wait after the last message. The examples that cannot run
unchanged (skipped, giving the reason) run together; the longest, the openwire/java
Listener and Publisher, in test_java_provider.py (which says why).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import junit


@pytest.mark.timeout(900)
@pytest.mark.parametrize("tests", [r for r in junit.example_runs() if r != (junit.LISTENER,)],
                         ids=lambda t: t[0] if len(t) == 1 else "cannotRunUnchanged")
async def test_activemq_example(tests: tuple[str, ...], junit_jvm: junit.Jvm, db_dsn: str,
                                tmp_path: Path) -> None:
    await junit.run_methods(junit_jvm, junit.EXAMPLES, tests, db_dsn, tmp_path)
