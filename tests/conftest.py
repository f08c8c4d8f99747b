"""Shared fixtures: one throwaway PostgreSQL cluster per run, one database per test.

The template database holds the migrated schema; each test gets a fresh clone, so tests
never see each other's queues and never need cleaning up. A fixture whose queues many
tests start from can have them made once per worker, in a template of its own
(`prepared`): its tests still each get a fresh clone. Under pytest-xdist (`make
test`) each worker is a process with its own cluster and template, so workers share
nothing but the machine.

Tests whose pass rules time a whole stack against the clock are marked `alone` here, by
path: `make test` runs them after the parallel phase, one at a time, as their rules (an
HA run's throughput back to 90 % after a failover and pickup latencies within 2x of
before, a stop under Spark within 30 s) assume a machine of their own. The other
end-to-end files (services as processes on ports and folders of their own, generous
timeouts) run in the parallel phase: the Spark job's and the chaos run, which assert what
the job writes, that its runs happen and that every message is accounted for, never how
fast; the pressure cells, whose load runs at a fixed low rate and whose rates are reported,
not enforced (tests/e2e/test_pressure.py); and the compose files, one after the other on
one worker, as they share podman's image store (their ports are free ones). Under xdist
the scheduler below sends each test file to the next free worker, the long ones of few
tests first (the Java suite's files too: they compile once for all workers,
tests/java/conftest.py).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from pgaq.embedded import Cluster
from pgaq.migrate import migrate

TEMPLATE = "pgaq_template"
TESTS = Path(__file__).resolve().parent
# statistics jobs started by tests share one class-data archive, in the repository's
# .pgaq/ rather than the user's cache: the first run writes it, later runs (and later
# `make test`s) map it rather than load Spark's classes anew (pgaq/stats/cds.py;
# tests/e2e/test_stats_process.py checks the archive's making in a folder of its own)
os.environ.setdefault("PGAQ_STATS_CDS", str(TESTS.parent / ".pgaq" / "test-cds"))
_counter = itertools.count()
# what runs alone (docstring), by path under tests/: a directory or a file
ALONE = ("e2e/test_ha.py", "e2e/test_ha_net.py", "e2e/test_up_stop.py")
# make test's second phase collects tests/e2e alone (every module collected costs the
# phase its import: 7 CPU-s for all of tests/)
assert all(_p.startswith("e2e/") for _p in ALONE), "the Makefile's `alone` phase collects tests/e2e"
# files whose minutes of JVM work or of a whole stack (alone: 60-180 s each) would be the
# parallel phase's tail if sent out last, as the order by number of tests would: sent
# out first (the compose group as one unit, under its first file's name)
FIRST = ("e2e/test_compose_up.py", "e2e/test_stats_process.py", "e2e/test_stats_cluster.py",
         "e2e/test_pressure.py", "integration/test_stats.py")
# xdist groups: files that must share one worker (podman's image store and its builds)
GROUPS: dict[str, str] = {"e2e/test_compose_up.py": "e2e/test_compose_up.py",
                          "e2e/test_compose_ha.py": "e2e/test_compose_up.py"}


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
    FIRST's files first, then the units with the most tests. (xdist's own `--dist
    loadgroup` marks a group by rewriting the test's node id, which pytest 9's nodes no
    longer let it do; and a unit of one test each costs the worker a wait for the
    controller between tests.)"""
    from collections import OrderedDict

    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    under = TESTS.relative_to(config.rootpath).as_posix() + "/"
    first = {under + f for f in FIRST}

    class FirstAhead(OrderedDict[str, Any]):
        """The work queue xdist fills in its own order and takes from the front."""

        def __setitem__(self, key: str, value: Any) -> None:
            super().__setitem__(key, value)
            if key in first:
                self.move_to_end(key, last=False)

    class Groups(LoadScopeScheduling):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.workqueue = FirstAhead()

        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            group = group_of(path[len(under):]) if path.startswith(under) else None
            return path if group is None else under + group

    return Groups(config, log)


# Where the workers' clusters live: in memory (/dev/shm) when it is a tmpfs with room to
# spare, else the temporary folder. Each test's database is a copy of its template's
# ~1,400 files, made and removed again: on ext4 (a VM's disk) creating and dropping it
# cost the kernel ~0.3 s of CPU a test, on tmpfs ~0.03 s. The cluster is a throwaway
# (durable=False): nothing of it needs a disk. Set PGAQ_TEST_DIR to choose the folder.
SHM = Path("/dev/shm")
SHM_FREE = 2 << 30  # bytes free for it to be used: a few hundred MB a worker, with room


def cluster_parent() -> str | None:
    """The folder the test clusters go in (None: tempfile's default)."""
    chosen = os.environ.get("PGAQ_TEST_DIR")
    if chosen:
        return chosen
    try:
        st = os.statvfs(SHM)
    except OSError:
        return None
    if st.f_bavail * st.f_frsize >= SHM_FREE and os.access(SHM, os.W_OK):
        return str(SHM)
    return None


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    base = Path(tempfile.mkdtemp(prefix="pgaq-test-", dir=cluster_parent()))
    os.chmod(base, 0o755)
    c = Cluster(base / "cluster", durable=False, settings={"max_connections": "300"})
    c.init()
    c.start()
    try:
        yield c
    finally:
        c.destroy()
        # the folder too: in /dev/shm even an empty one stays until the machine restarts
        shutil.rmtree(base, ignore_errors=True)


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


class Admin:
    """This worker's connection to the cluster's `postgres` database, which creates and
    drops the tests' databases (a connection of its own each time cost the server and
    the client ~6 ms of CPU, twice per test). Tests that restart the cluster or end
    every backend end this connection too: it then connects again, once per statement."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.conn: asyncpg.Connection | None = None

    async def execute(self, sql: str) -> None:
        for attempt in (1, 2):
            if self.conn is None or self.conn.is_closed():
                self.conn = await asyncpg.connect(self.dsn)
            try:
                await self.conn.execute(sql)
                return
            except (asyncpg.InterfaceError, asyncpg.ConnectionDoesNotExistError,
                    asyncpg.AdminShutdownError):
                # ended by an earlier test before this statement reached it; the
                # second attempt's error is the test run's
                self.conn.terminate()
                self.conn = None
                if attempt == 2:
                    raise

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()


@pytest.fixture(scope="session")
async def cluster_admin(cluster: Cluster) -> AsyncIterator[Admin]:
    admin = Admin(cluster.dsn())
    try:
        yield admin
    finally:
        await admin.close()


async def _create_db(cluster: Cluster, template: str, admin: Admin | None = None) -> str:
    name = f"t{os.getpid()}_{next(_counter)}"
    conn = admin or Admin(cluster.dsn())
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
        if admin is None:
            await conn.close()
    return name


async def _drop_db(admin: Admin, name: str) -> None:
    await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


Build = Callable[[asyncpg.Connection], Awaitable[Any]]
# fixtures whose database work is made once per worker, in a template of its own: a test
# that uses one gets a clone of that template (see `prepared`), by fixture name; the
# remote ones are for remote_dsn
PREPARED: dict[str, Build] = {}
PREPARED_REMOTE: dict[str, Build] = {}
# this worker's prepared templates: fixture name -> (database, what its build returned)
_prepared: dict[str, tuple[str, Any]] = {}


def prepared(fixture: str, build: Build, *, remote: bool = False) -> None:
    """Declare that every test using `fixture` starts from a database `build` has made
    (its remote_dsn's database when `remote`, else its db_dsn's).

    `build` runs once per worker, on a database cloned from the migrated template, and
    that database becomes the template of each such test's database: the test still
    gets a fresh database of its own, identical to the others', without paying for the
    build again (creating one queue table costs the server ~0.1 s of CPU). `build` makes
    only what lives in the database, plus roles that nothing alters; the fixture reads
    what it returned through `prepared_value`."""
    known = (PREPARED_REMOTE if remote else PREPARED).setdefault(fixture, build)
    assert known.__qualname__ == build.__qualname__, f"two builds for fixture {fixture}"
    assert fixture not in (PREPARED if remote else PREPARED_REMOTE), fixture


async def _template_for(request: pytest.FixtureRequest, cluster: Cluster,
                        admin: Admin, template: str, remote: bool) -> str:
    fixture = _preparing(request, remote)
    if fixture is None:
        return template
    if fixture not in _prepared:
        name = await _create_db(cluster, template, admin)
        conn = await asyncpg.connect(cluster.dsn(name))
        try:
            value = await (PREPARED_REMOTE if remote else PREPARED)[fixture](conn)
        finally:
            await conn.close()
        _prepared[fixture] = (name, value)
    return _prepared[fixture][0]


def _preparing(request: pytest.FixtureRequest, remote: bool = False) -> str | None:
    builds = PREPARED_REMOTE if remote else PREPARED
    wanted = [f for f in request.fixturenames if f in builds]
    assert len(wanted) <= 1, f"a test can start from one prepared database, not {wanted}"
    return wanted[0] if wanted else None


@pytest.fixture
async def prepared_value(request: pytest.FixtureRequest, db_dsn: str) -> Any:
    """What the build of the test's prepared fixture returned (its roles, for example)."""
    fixture = _preparing(request)
    assert fixture is not None, "prepared_value is for a fixture declared with prepared()"
    return _prepared[fixture][1]


@pytest.fixture
async def db_dsn(request: pytest.FixtureRequest, cluster: Cluster,
                 cluster_admin: Admin, template_db: str) -> AsyncIterator[str]:
    template = await _template_for(request, cluster, cluster_admin, template_db, remote=False)
    name = await _create_db(cluster, template, cluster_admin)
    yield cluster.dsn(name)
    await _drop_db(cluster_admin, name)


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
async def remote_dsn(request: pytest.FixtureRequest, cluster: Cluster, cluster_admin: Admin,
                     template_db: str) -> AsyncIterator[str]:
    """A second pgaq database in the cluster: the far side of a database link."""
    template = await _template_for(request, cluster, cluster_admin, template_db, remote=True)
    name = await _create_db(cluster, template, cluster_admin)
    yield cluster.dsn(name)
    await _drop_db(cluster_admin, name)

