"""`make bench`'s java suite end to end on small work: the private ActiveMQ broker starts
from its own configuration and stops, the Java driver runs a scenario against it and
against pgaq, and a provider that cannot connect comes back as an error line (exit 3), not
a crash. Figures are not asserted (the bench prints them beside their targets)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import java_bench as jb

pytestmark = pytest.mark.skipif(
    not (jb.ACTIVEMQ_HOME / "bin" / "activemq.jar").is_file() or shutil.which("javac") is None,
    reason="needs Debian's activemq and a JDK (deploy/system-deps.sh --bench)")


@pytest.fixture(scope="module")
def cp() -> Iterator[str]:
    yield asyncio.run(jb.build_driver())  # `java/build bench`: once for the module


async def test_the_broker_and_the_driver_round_trip(cp: str) -> None:
    async with jb.activemq_broker() as broker:
        base = broker.base
        assert (base / "conf" / "activemq.xml").is_file()
        out = await jb.drive(cp, "activemq", broker.url, "send", "t.send", threads=1,
                             seconds=0.3, warmup=0, cpu=f"broker={broker.pid}")
        assert "error" not in out, out
        assert out["msgs"] > 0 and "broker" in out["cpu"]
        wake = await jb.drive(cp, "activemq", broker.url, "wakeup", "t.wake", rounds=3)
        assert wake["wake_samples"] == 3 and len(wake["wake_ms"]) == 3
    assert not await asyncio.to_thread(Path(base).exists)  # stopped and removed
    assert not await asyncio.to_thread(Path(f"/proc/{broker.pid}").exists)  # and reaped (a zombie keeps its entry)


async def test_a_provider_that_cannot_connect_is_an_error_line(cp: str) -> None:
    out = await jb.drive(cp, "pgaq", "jdbc:postgresql://127.0.0.1:1/none", "send", "a.b",
                         user="postgres", seconds=0.1, warmup=0)
    assert out["exit"] == 3 and out["error"]
