"""Ctrl-C on `pgaq up` while the first statistics run is going: the run's process group
(the job and Spark's JVM) ends before the private PostgreSQL, the run is logged as
interrupted, and nothing is printed after the cluster's "stopped" line."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest
from pgaq.cli import free_base_port

#: what must not reach an operator's terminal on a stop
NOISE = ("Traceback", "CancelledError", "Broken pipe", "Exception", "java.", "org.apache", "ERROR")
STOP_BOUND = 30.0  # seconds from SIGINT to exit (PGAQ_SHUTDOWN_TIMEOUT is 10)


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """A folder the postgres system user can reach (pytest's tmp_path is private)."""
    d = Path(tempfile.mkdtemp(prefix="pgaq-stop-"))
    os.chmod(d, 0o755)
    yield d / "data"
    shutil.rmtree(d, ignore_errors=True)


async def until(what: str, check: Any, timeout: float) -> Any:
    """Poll `check()` (another process's state: nothing to await on) until truthy."""
    deadline = time.monotonic() + timeout
    while not (got := await check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s")
        await asyncio.sleep(0.1)
    return got


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def group_alive(pgid: int) -> list[str]:
    """The live (not zombie) processes of group `pgid`, as `pid command`. A zombie has
    ended: it only waits for its reaper (an orphaned JVM's is init, which takes its time)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # gone meanwhile
        # pid (comm) state ppid pgrp ...: comm may hold spaces, so split after its ')'
        state, _ppid, pgrp = text[text.rindex(")") + 2:].split()[:3]
        if int(pgrp) == pgid and state != "Z":
            found.append(f"{stat.parent.name} {text[text.index('(') + 1:text.rindex(')')]}")
    return found


async def test_sigint_during_the_first_stats_run_stops_quietly(data_dir: Path) -> None:
    pytest.importorskip("pyspark")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq.cli", "up", "--data-dir", str(data_dir),
        "--port", str(free_base_port()), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PGAQ_DSN": "", "PGAQ_STATS_FIRST_DELAY": "0", "PGAQ_LOG_LEVEL": "INFO"})
    assert proc.stdout is not None and proc.stderr is not None
    err = asyncio.ensure_future(proc.stderr.read())  # drained all along: a full pipe would block
    lines: dict[str, str] = {}
    try:
        while (line := (await asyncio.wait_for(proc.stdout.readline(), 120)).decode().strip()) != "READY":
            assert line, "pgaq up exited before READY"
            key, _, value = line.partition("=")
            lines[key] = value
        conn = await asyncpg.connect(lines["DSN"])
        try:
            async def run_going() -> bool:  # the job holds its JVM by the time it records a run
                return bool(await conn.fetchval("SELECT count(*) FROM aq_stats.runs WHERE finished_at IS NULL"))
            await until("the first statistics run", run_going, 120)
        finally:
            await conn.close()
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http:
            async with http.get(f"{lines['STATS']}/health") as r:
                current = (await r.json())["current"]
        assert current is not None, "a run is recorded, so the service has its job running"
        job_group = int(current["pid"])
        assert group_alive(job_group)
    except BaseException:
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.wait(), 60)
        raise
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    code = await asyncio.wait_for(proc.wait(), STOP_BOUND)
    took = time.monotonic() - t0
    out = (await proc.stdout.read()).decode()
    # EOF on stderr: nothing (no JVM) still holds it after `pgaq up` exited
    text = (await asyncio.wait_for(err, 10)).decode()
    assert code == 0 and took < STOP_BOUND
    assert out == "", out
    for word in NOISE:
        assert word not in text, f"{word!r} in the output of a stop:\n{text}"
    tail = text[text.index('msg="stopping"'):].splitlines()
    assert any("statistics run interrupted" in line for line in tail), text
    assert "private PostgreSQL cluster stopped" in tail[-1], tail
    assert not group_alive(job_group), f"outlived pgaq up: {group_alive(job_group)}"
    for pid in map(int, re.findall(r"started service \w+ \(pid (\d+)\)", text)):
        assert not alive(pid), pid
    assert not (data_dir / "cluster" / "pg" / "postmaster.pid").exists()
