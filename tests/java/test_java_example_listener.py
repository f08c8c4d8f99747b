"""pgaq.jms.ActiveMqExamplesTest's test of Debian's openwire/java example (Listener
receives the 10000 messages Publisher sends to a topic), its longest, in a file of its
own so that xdist runs it beside the others (test_java_examples.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import junit

assert (junit.LISTENER,) in junit.example_runs(), f"{junit.EXAMPLES} has no test {junit.LISTENER}"


@pytest.mark.timeout(900)
async def test_listener_receives_everything_publisher_sends(compiled: None, db_dsn: str,
                                                            tmp_path: Path) -> None:
    await junit.run_methods(junit.EXAMPLES, (junit.LISTENER,), db_dsn, tmp_path)
