"""Shared fixtures: one throwaway PostgreSQL cluster per run, one database per test.

The template database holds the migrated schema; each test gets a fresh clone, so tests
never see each other's queues and never need cleaning up. Under pytest-xdist (`make
test`) each worker is a process with its own cluster and template, so workers share
nothing but the machine.

Tests that time a whole stack against the clock or share more than a database (podman's
image store and the host ports compose publishes, a Patroni cluster, Spark's JVMs, the
chaos and pressure loads) are marked `alone` here, by path: `make test` runs them after
the parallel phase, one at a time, as their pass rules (throughput back to 90 % after a
failover, pickup latencies) assume a machine of their own. Under xdist the scheduler
below sends each test file to the next free worker (the Java suite's files too: they
compile once for all workers, tests/java/conftest.py).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from pgaq.embedded import Cluster
from pgaq.migrate import migrate

TEMPLATE = "pgaq_template"
TESTS = Path(__file__).resolve().parent
# statistics jobs started by tests write no class-data archive into the user's cache
# (tests/e2e/test_stats_process.py checks the archive in a folder of its own)
os.environ.setdefault("PGAQ_STATS_CDS", "off")
_counter = itertools.count()
# what runs alone (docstring), by path under tests/: a directory or a file
ALONE = ("e2e", "integration/test_stats.py")
# xdist groups: files that must share one worker
GROUPS: dict[str, str] = {}


def _under(path: str, where: str) -> bool:
    return path == where or path.startswith(where + "/")


def group_of(path: str) -> str | None:
    """The xdist group of a test file (a path under tests/), if any."""
    return next((g for where, g in GROUPS.items() if _under(path, where)), None)


def pytest_itemcollected(item: pytest.Item) -> None:
    """`alone` as the item is collected, before `-m` selects."""
    try:
        path = item.path.relative_to(TESTS).as_posix()
    except ValueError:
        return
    if any(_under(path, where) for where in ALONE):
        item.add_marker(pytest.mark.alone)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Each test file to the next free worker, a group's files together to one worker,
    the units with the most tests first. (xdist's own `--dist loadgroup` marks a group
    by rewriting the test's node id, which pytest 9's nodes no longer let it do; and a
    unit of one test each costs the worker a wait for the controller between tests.)"""
    from xdist.scheduler import LoadScopeScheduling

    under = TESTS.relative_to(config.rootpath).as_posix() + "/"

    class Groups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            group = group_of(path[len(under):]) if path.startswith(under) else None
            return path if group is None else group

    return Groups(config, log)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    base = Path(tempfile.mkdtemp(prefix="pgaq-test-"))
    os.chmod(base, 0o755)
    c = Cluster(base / "cluster", durable=False, settings={"max_connections": "300"})
    c.init()
    c.start()
    try:
        yield c
    finally:
        c.destroy()


@pytest.fixture(scope="session")
async def template_db(cluster: Cluster) -> str:
    conn = await asyncpg.connect(cluster.dsn())
    try:
        await conn.execute(f"DROP DATABASE IF EXISTS {TEMPLATE}")
        await conn.execute(f"CREATE DATABASE {TEMPLATE}")
    finally:
        await conn.close()
    conn = await asyncpg.connect(cluster.dsn(TEMPLATE))
    try:
        await migrate(conn)
    finally:
        await conn.close()
    return TEMPLATE


async def _create_db(cluster: Cluster, template: str) -> str:
    name = f"t{os.getpid()}_{next(_counter)}"
    conn = await asyncpg.connect(cluster.dsn())
    try:
        for attempt in range(20):
            try:
                await conn.execute(
                    f"CREATE DATABASE {name} TEMPLATE {template} STRATEGY FILE_COPY"
                )
                break
            except asyncpg.ObjectInUseError:
                # another session still touches the template; it goes away quickly
                if attempt == 19:
                    raise
                await asyncio.sleep(0.05)
    finally:
        await conn.close()
    return name


@pytest.fixture
async def db_dsn(cluster: Cluster, template_db: str) -> AsyncIterator[str]:
    name = await _create_db(cluster, template_db)
    yield cluster.dsn(name)
    conn = await asyncpg.connect(cluster.dsn())
    try:
        await conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        await conn.close()


@pytest.fixture
async def whole_audience(db_dsn: str) -> None:
    """A topic publishes to its audience from its first plain subscriber (pgaq.audience_min
    1, for every session of the test's database; by default a publish writes rows below 16
    members): for tests of the audience itself. Request it before `conn`."""
    c = await asyncpg.connect(db_dsn)
    try:
        name = await c.fetchval("SELECT current_database()")
        await c.execute(f'ALTER DATABASE "{name}" SET pgaq.audience_min = 1')
    finally:
        await c.close()


@pytest.fixture
async def conn(db_dsn: str) -> AsyncIterator[asyncpg.Connection]:
    c = await asyncpg.connect(db_dsn)
    try:
        yield c
    finally:
        await c.close()


@pytest.fixture
async def remote_dsn(cluster: Cluster, template_db: str) -> AsyncIterator[str]:
    """A second pgaq database in the cluster: the far side of a database link."""
    name = await _create_db(cluster, template_db)
    yield cluster.dsn(name)
    admin = await asyncpg.connect(cluster.dsn())
    try:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        await admin.close()

