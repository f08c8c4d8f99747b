"""Running the Java provider's JUnit tests (java/src/test/java) from pytest: which test
classes and methods there are, read from their sources, and one run of a selection of
them against a fresh pgaq database, pgaq's queue monitor running beside it (time to live,
delays and retries need it, as Oracle's need its queue monitor process), in the worker's
JVM (java/build serve) that runs its selections one after another as the JUnit console
launcher runs one. The JUnit report says which method failed and why."""

from __future__ import annotations

import asyncio
import os
import queue
import re
import subprocess
import threading
import time
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


# what ends a run's output (pgaq.jms.JUnitRuns.DONE), then the run's number of failures
DONE = "\x01pgaq-junit-run-done "


class Jvm:
    """This worker's JVM (java/build serve, pgaq.jms.JUnitRuns) that runs the selections one
    after another, each against its own database, as the console launcher runs one: a JVM
    of its own per test class cost 1-2 s of CPU each to start and warm up again. A run that
    ends it (a crash) or times out (it is killed) fails; the next run starts another."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp  # its java.io.tmpdir
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()

    def _start(self) -> subprocess.Popen[bytes]:
        self.lines = queue.Queue()
        proc = subprocess.Popen([str(BUILD), "serve"], cwd=ROOT, env={**os.environ, "TMPDIR": str(self.tmp)},
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        threading.Thread(target=self._read, args=(proc, self.lines), daemon=True,
                         name="junit-jvm-output").start()
        self.proc = proc
        return proc

    @staticmethod
    def _read(proc: subprocess.Popen[bytes], lines: queue.Queue[str | None]) -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            lines.put(raw.decode(errors="replace"))
        lines.put(None)

    def run(self, url: str, reports: Path, selectors: list[str], timeout: float) -> tuple[int, str]:
        """One run (blocking): (0 when no test failed, else 1; its output)."""
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._start()
        assert proc.stdin is not None
        request = "\t".join([url, str(reports), *selectors])
        assert "\n" not in request
        out: list[str] = []
        try:
            proc.stdin.write(request.encode() + b"\n")
            proc.stdin.flush()
        except BrokenPipeError:
            pass  # it ended: its output says why, below
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.close(kill=True)
                return 1, "".join(out) + f"\n--- no end of the run within {timeout:.0f} s: killed\n"
            if line is None:
                rc = proc.wait()
                self.proc = None
                return 1, "".join(out) + f"\n--- the JVM ended during the run: exit {rc}\n"
            if line.startswith(DONE):
                return (0 if int(line[len(DONE):]) == 0 else 1), "".join(out)
            out.append(line)

    def close(self, kill: bool = False) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if kill:
            proc.kill()
        else:
            assert proc.stdin is not None
            proc.stdin.close()  # its input ends: it exits
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def _run_with_monitor(jvm: Jvm, url: str, reports: Path, selectors: list[str],
                            dsn: str) -> tuple[int, str]:
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
        return await asyncio.to_thread(jvm.run, url, reports, selectors, 880)
    finally:
        stop.set()
        await asyncio.wait_for(monitor, 30)
        await listener.close()
        await pool.close()


async def run(jvm: Jvm, selectors: list[str], db_dsn: str, tmp_path: Path) -> list[str]:
    """Runs the selected tests (class:C, method:C#m) in the worker's JVM, failing with the
    report's failures and the output's tail; the test cases that ran."""
    reports = tmp_path / "reports"
    rc, out = await _run_with_monitor(jvm, jdbc_url(db_dsn), reports, selectors, db_dsn)
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


async def run_methods(jvm: Jvm, test_class: str, tests: tuple[str, ...], db_dsn: str,
                      tmp_path: Path) -> None:
    """Runs the named tests of a class, checking the report that they, and only they, ran."""
    ran = await run(jvm, [f"method:{test_class}#{m}" for m in tests], db_dsn, tmp_path)
    assert sorted(ran) == sorted(f"{test_class}.{m}" for m in tests)
