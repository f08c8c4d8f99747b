"""The compose profile `ha` for real (issue 34), started as tests/e2e/test_compose_up.py
starts the default profile: podman, host networking (each member on ports of its own), the
images built here from debian:bookworm-slim. Three PostgreSQL 15 members under Patroni,
etcd, HAProxy with Patroni's REST checks, pgaq's services pointed at HAProxy; a user's round
trip through the gateway (IDAP in, propagated, notified over HTTP, IDAP out); then the
leader's container SIGKILLed (`podman kill`): Patroni promotes the synchronous standby,
HAProxy follows, and the same round trip works again, the message committed before the
kill still there; the killed member started again rejoins as a replica; `down -v`.

Runs and skips as test_compose_up.py does (PGAQ_COMPOSE_TEST=1: podman missing fails).
Timings go to stdout (pytest -s).
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import aiohttp
import asyncpg
import pytest
from aiohttp import web
from pgaq import Session
from pgaq.embedded import free_port

from tests.e2e import podman_stack as ps
from tests.e2e.test_compose_up import admin, idap, publish, receive, wait_healthy

pytestmark = pytest.mark.timeout(1800)

PROJECT = f"pgaqha{os.getpid()}"
MEMBERS = ("pg-m1", "pg-m2", "pg-m3")
PGAQ = ("ha-core", "ha-gateway", "ha-monitor", "ha-notifier", "ha-propagator", "ha-stats")
PROFILE = ("etcd", *MEMBERS, "haproxy", *PGAQ)
# what a user names (docker-compose.yml): the rest comes with them as their dependencies
ENTRY = ("ha-gateway", "ha-monitor", "ha-notifier", "ha-propagator", "ha-stats")
BACKGROUND = ("monitor", "notifier", "propagator", "stats")


@pytest.fixture(scope="module")
def podman() -> ps.Podman:
    reason = ps.unavailable()
    if reason is not None:
        if os.environ.get("PGAQ_COMPOSE_TEST") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return ps.Podman()


@pytest.fixture(scope="module")
def stack(podman: ps.Podman) -> Iterator[dict[str, Any]]:
    """The `ha` profile up: every container healthy; `down -v` afterwards, whatever happened."""
    t0 = time.monotonic()
    base_s = podman.ensure_base_image()
    subprocess.run([str(ps.ROOT / "deploy" / "make-secrets.sh")], check=True, capture_output=True)
    ports = {"PGAQ_HA_PORT": free_port(), "PGAQ_HA_ETCD_PORT": free_port(),
             "PGAQ_HA_ETCD_PEER_PORT": free_port(), "PGAQ_CORE_PORT": free_port(),
             "PGAQ_GATEWAY_PORT": free_port(), **{f"PGAQ_{s.upper()}_PORT": free_port() for s in BACKGROUND}}
    for i in (1, 2, 3):
        ports[f"PGAQ_HA_M{i}_PG_PORT"] = free_port()
        ports[f"PGAQ_HA_M{i}_REST_PORT"] = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PGAQ_", "POSTGRES_", "GRAFANA_"))}
    env.update({k: str(v) for k, v in ports.items()})
    env.update(PGAQ_LISTEN_HOST="127.0.0.1", POSTGRES_LISTEN_ADDRESSES="127.0.0.1", PGAQ_GATEWAY_WORKERS="2")
    users = ps.resolved_config(env)
    config = ps.host_network(users)
    assert ps.network_keys_only(users, config) == []
    build_s = podman.build(ps.builds_of(users))
    path = ps.write_compose(config, podman.state / f"{PROJECT}.yml")
    checker = ps.HealthChecker(podman, PROJECT)
    with podman.api() as docker_host:
        compose = ps.Compose(path, PROJECT, docker_host, env)
        compose("--profile", "ha", "down", "-v", "--remove-orphans", check=False)
        checker.start()
        try:
            t_up = time.monotonic()
            compose("--profile", "ha", "up", "-d", "--no-build", *ENTRY, timeout=900)
            names = wait_healthy(podman, PROFILE, deadline=300, since=t_up, project=PROJECT)
            up_s = time.monotonic() - t_up
            print(f"\nbase image {base_s:.1f} s (0: cached), build {build_s:.1f} s, "
                  f"up to every container healthy {up_s:.1f} s, total {time.monotonic() - t0:.1f} s")
            secrets = ps.ROOT / "deploy" / "secrets"
            password = (secrets / "postgres_password").read_text().strip()
            yield {"podman": podman, "names": names, "compose": compose,
                   "dsn": f"postgresql://pgaq:{password}@127.0.0.1:{ports['PGAQ_HA_PORT']}/pgaq",
                   "rest": {f"m{i}": f"http://127.0.0.1:{ports[f'PGAQ_HA_M{i}_REST_PORT']}" for i in (1, 2, 3)},
                   "core": f"http://127.0.0.1:{ports['PGAQ_CORE_PORT']}",
                   "gateway": f"http://127.0.0.1:{ports['PGAQ_GATEWAY_PORT']}",
                   "token": (secrets / "admin_token").read_text().strip()}
        finally:
            try:
                logs = compose("--profile", "ha", "logs", "--no-color", "--tail", "40", check=False).stdout
                (podman.state / f"{PROJECT}.log").write_text(logs)
                t_down = time.monotonic()
                compose("--profile", "ha", "down", "-v", timeout=300)
                (podman.state / f"{PROJECT}.yml").unlink()
                print(f"down -v {time.monotonic() - t_down:.1f} s")
                left = podman.run("ps", "-a", "--filter", f"label=com.docker.compose.project={PROJECT}",
                                  "--format", "{{.Names}}").stdout.split()
                assert left == [], left
                volumes = podman.run("volume", "ls", "--filter", f"label=com.docker.compose.project={PROJECT}",
                                     "--format", "{{.Name}}").stdout.split()
                assert volumes == [], volumes
            finally:
                checker.close()


async def cluster(http: aiohttp.ClientSession, rest: dict[str, str]) -> list[dict[str, Any]]:
    """Patroni's view (GET /cluster of the first member that answers)."""
    for base in rest.values():
        try:
            async with http.get(f"{base}/cluster", timeout=aiohttp.ClientTimeout(total=2)) as r:
                if r.status == 200:
                    members: list[dict[str, Any]] = (await r.json())["members"]
                    return members
        except (aiohttp.ClientError, TimeoutError):
            continue
    return []


async def wait_cluster(rest: dict[str, str], members: int, timeout: float,
                       not_leader: str | None = None) -> tuple[str, str]:
    """(leader, sync standby) once a leader runs (not `not_leader`) with a synchronous
    standby and `members` members streaming or running; another process's state, so polled."""
    end = time.monotonic() + timeout
    rows: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < end:
            rows = await cluster(http, rest)
            leader = [r["name"] for r in rows if r.get("role") == "leader" and r.get("state") == "running"]
            sync = [r["name"] for r in rows if r.get("role") == "sync_standby"
                    and r.get("state") in ("streaming", "running")]
            up = [r for r in rows if r.get("state") in ("streaming", "running")]
            if leader and sync and len(up) == members and leader[0] != not_leader:
                return leader[0], sync[0]
            await asyncio.sleep(0.25)
    raise AssertionError(f"no leader with a sync standby and {members} members in {timeout} s: {rows}")


async def wait_leader_gone(rest: dict[str, str], old: str, timeout: float) -> float:
    """Until Patroni no longer names `old` leader (its leader key expired in etcd): when."""
    end = time.monotonic() + timeout
    async with aiohttp.ClientSession() as http:
        while any(r["name"] == old and r.get("role") == "leader" for r in await cluster(http, rest)):
            assert time.monotonic() < end, f"{old} still leads {timeout} s after its kill"
            await asyncio.sleep(0.1)
    return time.monotonic()


class Hooks:
    """The HTTP endpoint notifications are posted to."""

    def __init__(self) -> None:
        self.got: asyncio.Queue[str] = asyncio.Queue()
        self.port = free_port()

    async def hook(self, request: web.Request) -> web.Response:
        await self.got.put(await request.text())
        return web.Response(text="ok")


@pytest.fixture
async def hooks() -> AsyncIterator[Hooks]:
    h = Hooks()
    app = web.Application()
    app.router.add_post("/hook", h.hook)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", h.port).start()
    try:
        yield h
    finally:
        await runner.cleanup()


async def round_trip(http: aiohttp.ClientSession, gateway: str, hooks: Hooks, payload: str) -> None:
    """IDAP Publish through the gateway -> propagated -> notified -> IDAP Receive."""
    reply = await idap(http, gateway, publish("HA.SRC_Q", payload))
    assert "AQXmlPublishResponse" in reply and "<status_response>" in reply, reply
    note = await asyncio.wait_for(hooks.got.get(), 60)
    assert "AQXmlNotification" in note and "DST_Q" in note.upper(), note
    reply = await idap(http, gateway, receive("HA.DST_Q"))
    assert payload in reply.upper(), reply


async def retried(step: Callable[[], Awaitable[str]], deadline: float, errors: Counter[str]) -> str:
    """A request retried as a user retries after a failover; what failed is counted in
    `errors` (the ORA- code of a SOAP fault, or the exception's type)."""
    while True:
        try:
            return await asyncio.wait_for(step(), 30)
        except (AssertionError, aiohttp.ClientError, TimeoutError) as exc:
            code = re.search(r"ORA-\d{5}", str(exc))
            errors[code[0] if code else type(exc).__name__] += 1
            if time.monotonic() > deadline:
                raise AssertionError(f"still failing after the failover: {exc}") from exc
            await asyncio.sleep(0.5)


async def round_trip_until_ok(http: aiohttp.ClientSession, gateway: str, hooks: Hooks, payload: str,
                              timeout: float, errors: Counter[str]) -> float:
    """The round trip, each request retried until it works: when the publish was first
    acknowledged (time.monotonic())."""
    deadline = time.monotonic() + timeout
    reply = await retried(lambda: idap(http, gateway, publish("HA.SRC_Q", payload)), deadline, errors)
    published = time.monotonic()
    assert "AQXmlPublishResponse" in reply and "<status_response>" in reply, reply
    note = await asyncio.wait_for(hooks.got.get(), max(1.0, deadline - time.monotonic()))
    assert "AQXmlNotification" in note and "DST_Q" in note.upper(), note
    reply = await retried(lambda: idap(http, gateway, receive("HA.DST_Q")), deadline, errors)
    assert payload in reply.upper(), reply
    return published


async def test_ha_profile_fails_over_under_a_user(stack: dict[str, Any], hooks: Hooks) -> None:
    podman: ps.Podman = stack["podman"]
    rest: dict[str, str] = stack["rest"]
    core, gateway, token = stack["core"], stack["gateway"], stack["token"]
    t = time.monotonic()
    leader, sync = await wait_cluster(rest, 3, 120)
    print(f"Patroni: leader {leader}, sync standby {sync} ({time.monotonic() - t:.1f} s after healthy)")

    c = await asyncpg.connect(stack["dsn"])  # through HAProxy, as every client
    try:
        assert not await c.fetchval("SELECT pg_is_in_recovery()")
        async with aiohttp.ClientSession() as http:
            await c.execute("CREATE SCHEMA ha")
            for q, multiple in (("src", True), ("dst", False), ("kept", False)):
                await admin(http, core, token, "create_queue_table", queue_table=f"ha.{q}_t",
                            queue_payload_type="RAW", multiple_consumers=multiple)
                await admin(http, core, token, "create_queue", queue_name=f"ha.{q}_q", queue_table=f"ha.{q}_t")
                await admin(http, core, token, "start_queue", queue_name=f"ha.{q}_q")
            await admin(http, core, token, "create_aq_agent", agent_name="E2E", enable_http=True,
                        password="secret-pw")
            await admin(http, core, token, "enable_db_access", agent_name="E2E", db_username="pgaq")
            await c.execute("""
                CALL dbms_aqadm.add_subscriber('ha.src_q', sys.aq$_agent(NULL, 'ha.dst_q', 0));
                CALL dbms_aqadm.schedule_propagation('ha.src_q', latency => 0);
                CALL aq.allow_notification_host('127.0.0.1');
            """)
            await c.execute("SELECT aq.register('ha.dst_q', NULL, $1)", f"http://127.0.0.1:{hooks.port}/hook")
            await round_trip(http, gateway, hooks, "C0FFEE")
            # committed before the kill (synchronous replication: it is on the standby too)
            await Session(c).enqueue_array("ha.kept_q", [(bytes.fromhex("DECADE"), None)])
    finally:
        await c.close()

    # the leader's container SIGKILLed: no clean hand-over, its leader key expires (ttl). The
    # user retries from the kill on, as a client would.
    name = stack["names"][f"pg-{leader}"]
    others = {k: v for k, v in rest.items() if k != leader}
    podman.run("kill", name)
    t_kill = time.monotonic()
    gone = asyncio.create_task(wait_leader_gone(others, leader, 120))
    async with aiohttp.ClientSession() as http:
        errors: Counter[str] = Counter()
        published = await round_trip_until_ok(http, gateway, hooks, "BEEF01", 180, errors)
        trip_s = time.monotonic() - t_kill
        reply = await idap(http, gateway, receive("HA.KEPT_Q"))
        assert "DECADE" in reply.upper(), reply  # nothing acknowledged was lost
    expired_s = await gone - t_kill
    new_leader, new_sync = await wait_cluster(others, 2, 120, not_leader=leader)
    synced_s = time.monotonic() - t_kill
    assert new_leader == sync, (new_leader, sync)  # only the synchronous standby may be promoted
    print(f"leader {leader} killed: its leader key gone after {expired_s:.1f} s; first publish "
          f"acknowledged through the gateway {published - t_kill:.1f} s after the kill (requests "
          f"failed before: {dict(errors)}), the round trip done {trip_s:.1f} s after; {new_leader} leads "
          f"with {new_sync} as sync standby {synced_s:.1f} s after")

    # the old leader back: it rejoins as a replica (pg_rewind), the cluster whole again
    podman.run("start", name)
    t_start = time.monotonic()
    back_leader, _ = await wait_cluster(rest, 3, 180)
    assert back_leader == new_leader
    async with aiohttp.ClientSession() as http:
        rows = {r["name"]: r["role"] for r in await cluster(http, rest)}
    assert rows[leader] in ("replica", "sync_standby"), rows
    print(f"{leader} started again: {rows[leader]} after {time.monotonic() - t_start:.1f} s")
    c = await asyncpg.connect(stack["dsn"])
    try:
        assert await c.fetchval("SELECT count(*) FROM ha.dst_t") == 0  # both trips received
    finally:
        await c.close()
