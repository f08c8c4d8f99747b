"""`pgaq up` as a user runs it: real processes, a private cluster, real HTTP."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import asyncpg
import pytest
from pgaq.embedded import Cluster, free_port


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
    port = free_port()
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
    finally:
        code = await stop(proc)
    assert code == 0
    assert not (tmp_path / "data" / "cluster" / "pg" / "postmaster.pid").exists()


async def test_up_with_external_database(tmp_path: Path, cluster: Cluster, db_dsn: str) -> None:
    port = free_port()
    proc, lines = await start_up(tmp_path / "data", port, {"PGAQ_DSN": db_dsn})
    try:
        assert lines["DSN"] == db_dsn
        assert not (tmp_path / "data" / "cluster").exists()
    finally:
        assert await stop(proc) == 0


@pytest.mark.parametrize("service", ["gateway", "monitor"])
async def test_a_killed_service_is_restarted(tmp_path: Path, db_dsn: str, service: str) -> None:
    port = free_port()
    proc, lines = await start_up(tmp_path / "data", port, {"PGAQ_DSN": db_dsn})
    try:
        async with aiohttp.ClientSession() as http:
            # find the gateway's pid through the OS: the child listening on our port
            out = await asyncio.create_subprocess_exec(
                "pgrep", "-f", f"pgaq_services.{service}", stdout=asyncio.subprocess.PIPE)
            pids = [int(p) for p in (await out.communicate())[0].split()]
            assert pids
            for pid in pids:
                os.kill(pid, signal.SIGKILL)
            # the supervisor starts a new process (a new pid) for the killed one
            for _ in range(600):
                out = await asyncio.create_subprocess_exec(
                    "pgrep", "-f", f"pgaq_services.{service}", stdout=asyncio.subprocess.PIPE)
                now = [int(p) for p in (await out.communicate())[0].split()]
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
    finally:
        assert await stop(proc) == 0
