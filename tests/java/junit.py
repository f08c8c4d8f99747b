"""Running the Java provider's JUnit tests (java/src/test/java) from pytest: which test
classes and methods there are, read from their sources, and one run of a selection of
them on the JUnit console launcher (java/build run) in a JVM of its own against a fresh
pgaq database, pgaq's queue monitor running beside it (time to live, delays and retries
need it, as Oracle's need its queue monitor process). The JUnit report says which method
failed and why."""

from __future__ import annotations

import asyncio
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from .conftest import BUILD, ROOT, jdbc_url

SOURCES = ROOT / "java" / "src" / "test" / "java"
# the class whose tests run one at a time (test_java_examples.py): each runs example
# programs, for up to two minutes; but for the three that only say why an example cannot
# run unchanged, which run together
EXAMPLES = "pgaq.jms.ActiveMqExamplesTest"
CANNOT_RUN = ("compositeDestinations", "exclusiveConsumer", "wildcardConsumer")
# the longest of them (Debian's openwire/java example, 10000 messages) runs from
# test_java_provider.py: xdist sends a file to one worker, the files with the most tests
# first, so it starts early and beside the other examples
LISTENER = "listenerReceivesEverythingPublisherSendsThenShutdown"
# a JUnit Jupiter test method: @Test (perhaps with other annotations after it), then its
# declaration
_TEST_METHOD = re.compile(r"@Test\b(?:\s+@\w+(?:\([^)]*\))?)*\s+(?:public\s+)?void\s+(\w+)\s*\(")


def classes() -> list[str]:
    """Every concrete test class (a *Test.java), by its qualified name."""
    out = []
    for path in sorted(SOURCES.rglob("*Test.java")):
        if "abstract class" in path.read_text(encoding="utf-8"):
            continue
        out.append(".".join(path.relative_to(SOURCES).with_suffix("").parts))
    return out


def methods(test_class: str) -> list[str]:
    """The @Test methods of a test class, in source order; every @Test of the source is one
    of them, so a run per method leaves none out."""
    text = (SOURCES / (test_class.replace(".", "/") + ".java")).read_text(encoding="utf-8")
    found = _TEST_METHOD.findall(text)
    annotations = len(re.findall(r"@Test\b", text))
    if len(found) != annotations or len(set(found)) != len(found):
        raise ValueError(f"{test_class}: {annotations} @Test, methods read: {found}")
    return found


def example_runs() -> list[tuple[str, ...]]:
    """ActiveMqExamplesTest's tests as they run: one a run, the CANNOT_RUN ones together."""
    return [(m,) for m in methods(EXAMPLES) if m not in CANNOT_RUN] + [CANNOT_RUN]


def _results(report: Path) -> tuple[list[str], list[str]]:
    """The test cases a JUnit XML report holds (class.method, without the parameter list
    the report adds) and its failures."""
    if not report.exists():
        return [], []
    ran, failed = [], []
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}.{(case.get('name') or '').split('(')[0]}"
        ran.append(name)
        for bad in list(case.findall("failure")) + list(case.findall("error")):
            text = (bad.get("message") or bad.text or "").strip().splitlines()
            failed.append(f"{name}: {text[0] if text else ''}")
    return ran, failed


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


async def run(selectors: list[str], db_dsn: str, tmp_path: Path) -> list[str]:
    """Runs the selected tests (JUnit console selectors: --select-class C,
    --select-method C#m), failing with the report's failures and the output's tail; the
    test cases that ran."""
    reports = tmp_path / "reports"
    env = {**os.environ, "PGAQ_JDBC_URL": jdbc_url(db_dsn), "TMPDIR": str(tmp_path),
           "PGAQ_JUNIT_REPORTS": str(reports)}
    rc, out = await _run_with_monitor([str(BUILD), "run", *selectors], env, db_dsn)
    ran: list[str] = []
    failures: list[str] = []
    for engine in ("jupiter", "vintage"):
        r, f = _results(reports / f"TEST-junit-{engine}.xml")
        ran += r
        failures += f
    assert rc == 0 and not failures, (
        f"{' '.join(selectors)}: exit {rc}\n" + "\n".join(failures)
        + "\n--- output (tail) ---\n" + out[-8000:])
    return ran


async def run_methods(test_class: str, tests: tuple[str, ...], db_dsn: str, tmp_path: Path) -> None:
    """Runs the named tests of a class, checking the report that they, and only they, ran."""
    ran = await run([f"--select-method={test_class}#{m}" for m in tests], db_dsn, tmp_path)
    assert sorted(ran) == sorted(f"{test_class}.{m}" for m in tests)
