"""The Java JMS provider's own tests (java/src/test/java), run by `make test`.

The jar and the tests are compiled once (`java/build compile`); each JUnit test class then
runs in a JVM of its own on the JUnit console launcher against a fresh pgaq database, so a
failure names its class here and the JUnit report beside it says which method and why.
The conformance classes also run the same tests on an embedded ActiveMQ broker. pgaq's
queue monitor runs beside each class (time to live, delays and retries need it, as Oracle's
need its queue monitor process).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "java" / "build"
TESTS = ROOT / "java" / "src" / "test" / "java"


def _classes() -> list[str]:
    out = []
    for path in sorted(TESTS.rglob("*Test.java")):
        text = path.read_text(encoding="utf-8")
        if "abstract class" in text:
            continue
        rel = path.relative_to(TESTS).with_suffix("")
        out.append(".".join(rel.parts))
    return out


def jdbc_url(dsn: str) -> str:
    """postgresql://user@host:port/db as pgjdbc's URL."""
    u = urlsplit(dsn)
    url = f"jdbc:postgresql://{u.hostname}:{u.port}{u.path}?user={u.username}"
    if u.password:
        url += f"&password={u.password}"
    return url


@pytest.fixture(scope="session")
def compiled() -> None:
    proc = subprocess.run([str(BUILD), "compile"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    if proc.returncode:
        pytest.fail(f"java/build compile failed:\n{proc.stdout[-4000:]}{proc.stderr[-8000:]}")


def _failures(report: Path) -> list[str]:
    if not report.exists():
        return []
    out = []
    for case in ET.parse(report).getroot().iter("testcase"):
        for bad in list(case.findall("failure")) + list(case.findall("error")):
            text = (bad.get("message") or bad.text or "").strip().splitlines()
            out.append(f"{case.get('classname')}.{case.get('name')}: {text[0] if text else ''}")
    return out


async def _run_with_monitor(args: list[str], env: dict[str, str], dsn: str) -> tuple[int, str]:
    """The JUnit run, pgaq's queue monitor running meanwhile; (exit status, output)."""
    import asyncpg
    from pgaq.listener import Listener
    from pgaq.monitor import Monitor, MonitorSettings

    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=2)
    listener = Listener(dsn)
    await listener.start()
    stop = asyncio.Event()
    monitor = asyncio.create_task(Monitor(pool, listener, MonitorSettings(safety_poll=1)).run(stop),
                                  name="java-tests-monitor")
    try:
        proc = await asyncio.create_subprocess_exec(
            *args, cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT)
        try:
            out, _ = await asyncio.wait_for(proc.communicate(), 880)
        except TimeoutError:
            proc.kill()
            out, _ = await proc.communicate()
        return proc.returncode or 0, out.decode(errors="replace")
    finally:
        stop.set()
        await asyncio.wait_for(monitor, 30)
        await listener.close()
        await pool.close()


@pytest.mark.timeout(900)
@pytest.mark.parametrize("test_class", _classes())
async def test_java(test_class: str, compiled: None, db_dsn: str, tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    env = {**os.environ, "PGAQ_JDBC_URL": jdbc_url(db_dsn), "TMPDIR": str(tmp_path),
           "PGAQ_JUNIT_REPORTS": str(reports)}
    rc, out = await _run_with_monitor([str(BUILD), "run", "--select-class", test_class], env,
                                      db_dsn)
    failures = _failures(reports / "TEST-junit-jupiter.xml") + _failures(
        reports / "TEST-junit-vintage.xml")
    assert rc == 0 and not failures, (
        f"{test_class}: exit {rc}\n" + "\n".join(failures)
        + "\n--- output (tail) ---\n" + out[-8000:])
