"""`pgaq up` as a user runs it: real processes, a private cluster, real HTTP."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import stat
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import asyncpg
import pytest
from pgaq.cli import free_base_port
from pgaq.embedded import Cluster

from tests.conftest import Admin, _create_db, _drop_db


async def start_up(data_dir: Path, port: int, env: dict[str, str] | None = None
                   ) -> tuple[asyncio.subprocess.Process, dict[str, str]]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq.cli", "up", "--data-dir", str(data_dir), "--port", str(port),
        stdout=asyncio.subprocess.PIPE, env={**os.environ, **(env or {})})
    lines: dict[str, str] = {}
    assert proc.stdout is not None
    while True:
        raw = await asyncio.wait_for(proc.stdout.readline(), 120)
        if not raw:
            raise AssertionError(f"pgaq up exited early with {await proc.wait()}")
        line = raw.decode().strip()
        if line == "READY":
            return proc, lines
        key, _, value = line.partition("=")
        lines[key] = value


async def children(parent: int, service: str) -> list[int]:
    """Pids of `parent`'s children running `pgaq_services.<service>` (never anyone else's)."""
    out = await asyncio.create_subprocess_exec(
        "pgrep", "-P", str(parent), "-f", f"pgaq_services.{service}", stdout=asyncio.subprocess.PIPE)
    return [int(p) for p in (await out.communicate())[0].split()]


async def cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run `pgaq <args>` to completion; its exit code and stdout."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq.cli", *args, stdout=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})})
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode()


async def stop(proc: asyncio.subprocess.Process) -> int:
    proc.send_signal(signal.SIGTERM)
    return await asyncio.wait_for(proc.wait(), 60)


@pytest.fixture
def public_tmp() -> Iterator[Path]:
    """A temporary folder the postgres system user can reach (pytest's is private)."""
    d = Path(tempfile.mkdtemp(prefix="pgaq-e2e-"))
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


async def test_up_embedded_default(public_tmp: Path) -> None:
    tmp_path = public_tmp
    port = free_base_port()
    proc, lines = await start_up(tmp_path / "data", port)
    try:
        assert lines["GATEWAY"] == f"http://127.0.0.1:{port}/aqserv/servlet"
        conn = await asyncpg.connect(lines["DSN"])
        try:
            assert await conn.fetchval("SELECT count(*) FROM aq.schema_migrations") > 0
        finally:
            await conn.close()
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{lines['CORE']}/health") as r:
                assert r.status == 200
            async with http.get(lines["GATEWAY"]) as r:
                assert r.status == 200
            async with http.get(f"{lines['CORE']}/metrics") as r:
                assert "pgaq_up 1.0" in await r.text()
            # every background service serves /health and /metrics on base + 2..5
            for offset, name in enumerate(("monitor", "notifier", "propagator", "stats"), start=2):
                assert lines[name.upper()] == f"http://127.0.0.1:{port + offset}"
                async with http.get(f"{lines[name.upper()]}/health") as r:
                    assert r.status == 200
                async with http.get(f"{lines[name.upper()]}/metrics") as r:
                    assert f'pgaq_service_up{{service="{name}"}} 1.0' in await r.text()
            # the admin API takes the token `pgaq up` made, private to this user
            token_file = tmp_path / "data" / "admin.token"
            assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
            auth = {"Authorization": f"Bearer {token_file.read_text().strip()}"}
            async with http.get(f"{lines['CORE']}/api/queues", headers=auth) as r:
                assert r.status == 200 and await r.json() == []
            async with http.get(f"{lines['CORE']}/api/queues") as r:
                assert r.status == 401
        # `pgaq sql` finds the running embedded cluster
        code, out = await cli("sql", "--data-dir", str(tmp_path / "data"), "-tAc",
                              "SELECT count(*) > 0 FROM aq.schema_migrations", env={"PGAQ_DSN": ""})
        assert (code, out.strip()) == (0, "t")
    finally:
        code = await stop(proc)
    assert code == 0
    assert not (tmp_path / "data" / "cluster" / "pg" / "postmaster.pid").exists()
    with pytest.raises(OSError):
        await asyncpg.connect(lines["DSN"], timeout=5)
    code, _ = await cli("sql", "--data-dir", str(tmp_path / "data"), env={"PGAQ_DSN": ""})
    assert code == 1  # nothing running there any more


async def test_sigterm_during_start_stops_everything(public_tmp: Path) -> None:
    """A stop that arrives before READY still stops the cluster and exits 0."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq.cli", "up", "--data-dir", str(public_tmp / "data"),
        "--port", str(free_base_port()), stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 120)
    assert line.startswith(b"DSN=")
    assert await stop(proc) == 0
    assert not (public_tmp / "data" / "cluster" / "pg" / "postmaster.pid").exists()


async def test_migrate_command(cluster: Cluster) -> None:
    admin = await asyncpg.connect(cluster.dsn())
    try:
        await admin.execute("DROP DATABASE IF EXISTS pgaq_migrate_cli")
        await admin.execute("CREATE DATABASE pgaq_migrate_cli")
    finally:
        await admin.close()
    dsn = cluster.dsn("pgaq_migrate_cli")
    code, out = await cli("migrate", env={"PGAQ_DSN": dsn})
    assert code == 0 and out.splitlines()[0] == "V0001__catalog.sql"
    assert await cli("migrate", env={"PGAQ_DSN": dsn}) == (0, "")  # nothing left to apply
    code, _ = await cli("migrate", env={"PGAQ_DSN": ""})
    assert code == 1


@dataclass(frozen=True)
class Up:
    proc: asyncio.subprocess.Process
    lines: dict[str, str]
    data_dir: Path
    dsn: str


@pytest.fixture(scope="module")
async def external_up(cluster: Cluster, cluster_admin: Admin, template_db: str) -> AsyncIterator[Up]:
    """One `pgaq up` on an external database, shared by the tests below: a start costs
    every service's process start (~3 CPU-s), and what a test kills comes back (each
    service restarts with a backoff of its own). Once all are done it must stop cleanly."""
    name = await _create_db(cluster, template_db, cluster_admin)
    tmp = Path(tempfile.mkdtemp(prefix="pgaq-e2e-"))
    try:
        dsn = cluster.dsn(name)
        proc, lines = await start_up(tmp / "data", free_base_port(), {"PGAQ_DSN": dsn})
        try:
            yield Up(proc, lines, tmp / "data", dsn)
        finally:
            assert await stop(proc) == 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        await _drop_db(cluster_admin, name)


async def test_up_with_external_database(external_up: Up) -> None:
    assert external_up.lines["DSN"] == external_up.dsn
    assert not (external_up.data_dir / "cluster").exists()


@pytest.mark.parametrize("service", ["gateway", "monitor", "notifier", "propagator"])
async def test_a_killed_service_is_restarted(external_up: Up, service: str) -> None:
    proc, lines = external_up.proc, external_up.lines
    async with aiohttp.ClientSession() as http:
        # find the service's pid through the OS: only our own `pgaq up`'s children
        pids = await children(proc.pid, service)
        assert pids
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        # the supervisor starts a new process (a new pid) for the killed one
        for _ in range(600):
            now = await children(proc.pid, service)
            if now and not set(now) & set(pids):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"the {service} was not restarted")
        if service == "gateway":
            for _ in range(600):
                try:
                    async with http.get(lines["GATEWAY"], timeout=aiohttp.ClientTimeout(total=1)) as r:
                        if r.status == 200:
                            break
                except (aiohttp.ClientError, OSError, TimeoutError):
                    await asyncio.sleep(0.1)
            else:
                raise AssertionError("the gateway did not come back")
