"""`docker compose up` for real (issue 19): the images built from debian:bookworm-slim, the
default profile of docker-compose.yml started on podman with host networking (the only
change to the file), then used as a user would: a queue and an agent made through the admin
API and SQL, a message sent over IDAP through the gateway's port, propagated, notified over
HTTP and received over IDAP; /metrics of every service; the propagator
SIGKILLed in the middle of a backlog and brought back by its restart policy with every
message delivered exactly once; the statistics container's first run; the `observability`
profile's grafana-db creating Grafana's role on the Debian PostgreSQL image; `down -v`.

Runs when podman, docker-compose and runc are installed (`deploy/system-deps.sh --test`
installs them, with debootstrap) and skips otherwise, unless PGAQ_COMPOSE_TEST=1 (`make
compose-test`), which makes their absence a failure. Timings go to stdout (pytest -s).
"""

from __future__ import annotations

import asyncio
import base64
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest
from aiohttp import web
from pgaq import Session
from pgaq.embedded import free_port

from tests.e2e import podman_stack as ps

pytestmark = pytest.mark.timeout(1800)  # a cold build downloads PySpark (~450 MB) and a JDK

PROJECT = f"pgaqe2e{os.getpid()}"  # its own containers and volumes, whatever else runs here
DEFAULT_PROFILE = ("postgres", "core", "gateway", "monitor", "notifier", "propagator", "stats")
BACKGROUND = ("monitor", "notifier", "propagator", "stats")  # /health and /metrics on PGAQ_<NAME>_PORT
SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
AQ = "http://ns.oracle.com/AQ/schemas/access"
AUTH = "Basic " + base64.b64encode(b"E2E:secret-pw").decode()
BACKLOG = 3000


@pytest.fixture(scope="module")
def podman() -> ps.Podman:
    reason = ps.unavailable()
    if reason is not None:
        if os.environ.get("PGAQ_COMPOSE_TEST") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return ps.Podman()


def doc(body: str) -> bytes:
    return f'<Envelope xmlns="{SOAP}"><Body>{body}</Body></Envelope>'.encode()


def publish(dest: str, payload_hex: str) -> bytes:
    """To a multi-consumer queue: its subscribers (here a remote one) get the message."""
    return doc(f'<AQXmlPublish xmlns="{AQ}"><producer_options><destination>{dest}</destination>'
               f"</producer_options><message_set><message><message_number>1</message_number>"
               f"<message_header><correlation>e2e</correlation><sender_id/></message_header>"
               f"<message_payload><RAW>{payload_hex}</RAW></message_payload></message></message_set>"
               f"<AQXmlCommit/></AQXmlPublish>")


def receive(dest: str) -> bytes:
    return doc(f'<AQXmlReceive xmlns="{AQ}"><consumer_options><destination>{dest}</destination>'
               f"<wait_time>0</wait_time><dequeue_mode>REMOVE</dequeue_mode></consumer_options>"
               f"<AQXmlCommit/></AQXmlReceive>")


async def idap(http: aiohttp.ClientSession, gateway: str, body: bytes) -> str:
    async with http.post(f"{gateway}/aqserv/servlet", data=body,
                         headers={"Content-Type": "text/xml", "Authorization": AUTH}) as r:
        text = await r.text()
        assert r.status == 200, text
        return text


async def admin(http: aiohttp.ClientSession, core: str, token: str, procedure: str, **args: Any) -> None:
    async with http.post(f"{core}/api/admin/{procedure}", json=args,
                         headers={"Authorization": f"Bearer {token}"}) as r:
        assert r.status == 200, await r.text()


@pytest.fixture(scope="module")
def stack(podman: ps.Podman) -> Iterator[dict[str, Any]]:
    """The default profile up and healthy; `down -v` afterwards, whatever happened."""
    t0 = time.monotonic()
    base_s = podman.ensure_base_image()
    subprocess.run([str(ps.ROOT / "deploy" / "make-secrets.sh")], check=True, capture_output=True)
    ports = {"POSTGRES_PORT": free_port(), "PGAQ_CORE_PORT": free_port(), "PGAQ_GATEWAY_PORT": free_port(),
             **{f"PGAQ_{s.upper()}_PORT": free_port() for s in BACKGROUND}}
    # the file's own defaults, with the ports and listen addresses host networking needs
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PGAQ_", "POSTGRES_", "GRAFANA_"))}
    env.update({k: str(v) for k, v in ports.items()})
    env.update(PGAQ_LISTEN_HOST="127.0.0.1", POSTGRES_LISTEN_ADDRESSES="127.0.0.1",
               PGAQ_GATEWAY_WORKERS="2", PGAQ_STATS_FIRST_DELAY="5")
    users = ps.resolved_config(env)
    config = ps.host_network(users)
    assert ps.network_keys_only(users, config) == []
    build_s = podman.build(ps.builds_of(users))
    path = ps.write_compose(config, podman.state / f"{PROJECT}.yml")
    checker = ps.HealthChecker(podman, PROJECT)
    with podman.api() as docker_host:
        compose = ps.Compose(path, PROJECT, docker_host, env)
        compose("down", "-v", "--remove-orphans", check=False)
        checker.start()
        try:
            t_up = time.monotonic()
            compose("up", "-d", "--no-build", timeout=600)
            names = wait_healthy(podman, DEFAULT_PROFILE, deadline=240, since=t_up)
            up_s = time.monotonic() - t_up
            print(f"\nbase image {base_s:.1f} s (0: cached), build {build_s:.1f} s, "
                  f"up to every service healthy {up_s:.1f} s, total {time.monotonic() - t0:.1f} s")
            secrets = ps.ROOT / "deploy" / "secrets"
            password = (secrets / "postgres_password").read_text().strip()
            yield {"podman": podman, "names": names, "compose": compose, "checker": checker,
                   "dsn": f"postgresql://pgaq:{password}@127.0.0.1:{ports['POSTGRES_PORT']}/pgaq",
                   "core": f"http://127.0.0.1:{ports['PGAQ_CORE_PORT']}",
                   "gateway": f"http://127.0.0.1:{ports['PGAQ_GATEWAY_PORT']}",
                   **{s: f"http://127.0.0.1:{ports[f'PGAQ_{s.upper()}_PORT']}" for s in BACKGROUND},
                   "token": (secrets / "admin_token").read_text().strip()}
        finally:
            try:
                logs = compose("logs", "--no-color", "--tail", "30", check=False).stdout
                (podman.state / f"{PROJECT}.log").write_text(logs)
                t_down = time.monotonic()
                compose("--profile", "observability", "--profile", "mail", "down", "-v", timeout=300)
                (podman.state / f"{PROJECT}.yml").unlink()
                print(f"down -v {time.monotonic() - t_down:.1f} s")
                left = podman.run("ps", "-a", "--filter", f"label=com.docker.compose.project={PROJECT}",
                                  "--format", "{{.Names}}").stdout.split()
                assert left == [], left
            finally:
                checker.close()


def wait_healthy(podman: ps.Podman, services: tuple[str, ...], deadline: float,
                 since: float, project: str = PROJECT) -> dict[str, str]:
    """service -> container, once every one of them reports healthy (health checks run by
    `HealthChecker`: container health is only observable by polling)."""
    t0 = since  # when `up` started: it returns only once postgres and core are healthy
    end = time.monotonic() + deadline
    status: dict[str, str] = {}
    healthy_at: dict[str, float] = {}
    while True:
        found = podman.containers(project)
        names = {c.service: c.name for c in found}
        health = {c.service: c.health for c in found}
        status = {s: str(health.get(s, "absent")) for s in services}
        for s, v in status.items():
            if v == "healthy":
                healthy_at.setdefault(s, time.monotonic() - t0)
        if all(v == "healthy" for v in status.values()):
            print("\nhealthy after: " + ", ".join(f"{s} {healthy_at[s]:.1f} s" for s in services))
            return {s: names[s] for s in services}
        assert time.monotonic() < end, f"not healthy in {deadline} s: {status}"
        time.sleep(0.5)


async def test_the_default_profile_serves_a_user(stack: dict[str, Any]) -> None:
    hooks: asyncio.Queue[tuple[str, str]] = asyncio.Queue()

    async def hook(request: web.Request) -> web.Response:
        await hooks.put((request.headers.get("X-Pgaq-Notification-Id", ""), await request.text()))
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_post("/hook", hook)
    runner = web.AppRunner(app)
    await runner.setup()
    hook_port = free_port()
    await web.TCPSite(runner, "127.0.0.1", hook_port).start()
    c = await asyncpg.connect(stack["dsn"])  # what `pgaq sql` would open
    core, gateway, token = stack["core"], stack["gateway"], stack["token"]
    try:
        async with aiohttp.ClientSession() as http:
            # a schema in SQL, then queues, subscribers and an agent through the admin API
            await c.execute("CREATE SCHEMA e2e")
            for q, multiple in (("src", True), ("dst", False), ("bulk_src", True), ("bulk_dst", False)):
                await admin(http, core, token, "create_queue_table", queue_table=f"e2e.{q}_t",
                            queue_payload_type="RAW", multiple_consumers=multiple)
                await admin(http, core, token, "create_queue", queue_name=f"e2e.{q}_q", queue_table=f"e2e.{q}_t")
                await admin(http, core, token, "start_queue", queue_name=f"e2e.{q}_q")
            await admin(http, core, token, "create_aq_agent", agent_name="E2E", enable_http=True,
                        password="secret-pw")
            await admin(http, core, token, "enable_db_access", agent_name="E2E", db_username="pgaq")
            await c.execute("""
                CALL dbms_aqadm.add_subscriber('e2e.src_q', sys.aq$_agent(NULL, 'e2e.dst_q', 0));
                CALL dbms_aqadm.add_subscriber('e2e.bulk_src_q', sys.aq$_agent(NULL, 'e2e.bulk_dst_q', 0));
                CALL dbms_aqadm.schedule_propagation('e2e.src_q', latency => 0);
                CALL dbms_aqadm.schedule_propagation('e2e.bulk_src_q', latency => 0);
                CALL aq.allow_notification_host('127.0.0.1');
            """)
            await c.execute("SELECT aq.register('e2e.dst_q', NULL, $1)", f"http://127.0.0.1:{hook_port}/hook")
            async with http.get(f"{core}/api/queues/e2e.dst_q",
                                headers={"Authorization": f"Bearer {token}"}) as r:
                assert r.status == 200, await r.text()

            # IDAP in through the gateway's port -> propagated -> notified -> IDAP out
            reply = await idap(http, gateway, publish("E2E.SRC_Q", "C0FFEE"))
            assert "AQXmlPublishResponse" in reply and "<status_response>" in reply, reply
            nid, note = await asyncio.wait_for(hooks.get(), 60)
            assert nid and "AQXmlNotification" in note and "DST_Q" in note.upper(), note
            reply = await idap(http, gateway, receive("E2E.DST_Q"))
            assert "C0FFEE" in reply.upper(), reply
            assert await c.fetchval("SELECT count(*) FROM e2e.dst_t") == 0  # removed and committed

            # /metrics of every service: core, the gateway, and the background services (their
            # counters moved: the monitor passed, the notifier delivered, the propagator propagated)
            for base, family in ((core, "pgaq_"), (gateway, "pgaq_gateway_requests_total")):
                async with http.get(f"{base}/metrics") as r:
                    text = await r.text()
                    assert r.status == 200 and family in text, (base, text[:500])
            for service, family, labels in (
                    ("monitor", "pgaq_monitor_passes_total", ""),
                    ("notifier", "pgaq_notifier_deliveries_total", '{outcome="delivered"}'),
                    ("propagator", "pgaq_propagator_messages_total", ""),
                    ("stats", "pgaq_stats_runs_total", '{outcome="ok"}')):
                least = 0 if service == "stats" else 1  # its first run may still be going (see below)
                end = time.monotonic() + 15  # a delivery is counted once its answer is back
                while True:
                    async with http.get(f"{stack[service]}/metrics") as r:
                        text = await r.text()
                    assert r.status == 200 and f'pgaq_service_up{{service="{service}"}} 1.0' in text, text[:500]
                    value = next((float(ln.rsplit(" ", 1)[1]) for ln in text.splitlines()
                                  if ln.startswith(family + labels + " ")), None)
                    assert value is not None, (service, family, text[:800])
                    if value >= least:
                        break
                    assert time.monotonic() < end, (service, family, value)
                    await asyncio.sleep(0.2)
            async with http.get(f"{gateway}/metrics") as r:
                text = await r.text()
            sends = [ln for ln in text.splitlines() if ln.startswith("pgaq_gateway_requests_total{")
                     and 'operation="AQXmlPublish"' in ln and 'outcome="ok"' in ln]
            assert sum(float(ln.rsplit(" ", 1)[1]) for ln in sends) >= 1, text

        # SIGKILL the propagator in the middle of a backlog; its restart policy brings it back
        podman: ps.Podman = stack["podman"]
        name = stack["names"]["propagator"]
        before = podman.inspect(name)
        s = Session(c)
        ids: list[str] = []
        ids += await s.enqueue_array("e2e.bulk_src_q", [(b"%d" % i, None) for i in range(BACKLOG // 2)])
        await poll(c, "SELECT count(*) > 0 FROM e2e.bulk_dst_t", 60)
        os.kill(before["State"]["Pid"], signal.SIGKILL)
        t_kill = time.monotonic()
        ids += await s.enqueue_array("e2e.bulk_src_q", [(b"%d" % i, None) for i in range(BACKLOG // 2, BACKLOG)])
        await asyncio.to_thread(wait_restarted, podman, name, before, 120)
        back_s = time.monotonic() - t_kill
        await poll(c, f"SELECT count(*) >= {len(ids)} FROM e2e.bulk_dst_t", 120)
        got = await c.fetch("SELECT original_msgid FROM e2e.aq$bulk_dst_t")
        assert sorted(r["original_msgid"] for r in got) == sorted(ids)  # each exactly once
        await poll(c, "SELECT count(*) = 0 FROM e2e.aq$_bulk_src_t_r WHERE state = 0", 60)
        print(f"propagator SIGKILLed: running again and healthy after {back_s:.1f} s, "
              f"{len(ids)} messages propagated exactly once")
    finally:
        await c.close()
        await runner.cleanup()


async def poll(conn: asyncpg.Connection, sql: str, timeout: float) -> None:
    """Until the query is true (other processes: the database is all there is to watch)."""
    end = time.monotonic() + timeout
    while not await conn.fetchval(sql):
        assert time.monotonic() < end, sql
        await asyncio.sleep(0.1)


def wait_restarted(podman: ps.Podman, name: str, before: dict[str, Any], timeout: float) -> None:
    """Until the container runs again (a new process, one more restart) and is healthy."""
    end = time.monotonic() + timeout
    while True:
        info = podman.inspect(name)
        state = info["State"]
        if (state.get("Running") and state.get("Pid") not in (0, before["State"]["Pid"])
                and info.get("RestartCount", 0) > before.get("RestartCount", 0)
                and state.get("Health", {}).get("Status") == "healthy"):
            return
        assert time.monotonic() < end, f"{name} not back: {state}"
        time.sleep(0.5)


async def test_the_statistics_job_runs_in_its_image(stack: dict[str, Any]) -> None:
    """The stats container's first run (PGAQ_STATS_FIRST_DELAY=5): PySpark, the JDK and
    Debian's JDBC driver reach PostgreSQL by the service name and write aq_stats.runs."""
    c = await asyncpg.connect(stack["dsn"])
    try:
        await poll(c, "SELECT count(*) > 0 FROM aq_stats.runs WHERE finished_at IS NOT NULL", 300)
        run = await c.fetchrow("SELECT status, error, log_rows, finished_at - started_at AS took"
                               " FROM aq_stats.runs WHERE finished_at IS NOT NULL ORDER BY id LIMIT 1")
        assert run["status"] == "DONE", run["error"]
        print(f"first statistics run: {run['took'].total_seconds():.1f} s, {run['log_rows']} log rows")
    finally:
        await c.close()


async def test_grafana_reader_role_from_the_postgres_image(stack: dict[str, Any]) -> None:
    """The `observability` profile's one-shot grafana-db, on the Debian PostgreSQL image
    (its entrypoint runs any command as it is), creates Grafana's read-only role with the
    password of its secret file; Grafana itself needs Docker Hub and is not started."""
    podman: ps.Podman = stack["podman"]
    stack["compose"]("--profile", "observability", "up", "-d", "--no-build", "grafana-db", timeout=300)
    name = stack["compose"]("ps", "-q", "grafana-db").stdout.split()
    assert len(name) == 1
    end = time.monotonic() + 120
    while (state := podman.inspect(name[0])["State"])["Status"] != "exited" or state["ExitCode"] != 0:
        assert time.monotonic() < end, state  # a one-shot container: its state is all there is
        await asyncio.sleep(0.5)
    password = (ps.ROOT / "deploy" / "secrets" / "grafana_db_password").read_text().strip()
    dsn = stack["dsn"].replace(stack["dsn"].split("//")[1].split("@")[0], f"pgaq_grafana:{password}")
    ro = await asyncpg.connect(dsn)
    try:
        assert await ro.fetchval("SHOW default_transaction_read_only") == "on"
        states = await ro.fetch("SELECT * FROM pgaq_grafana.notification_states()")
        assert {r["state"] for r in states} <= {"PENDING", "SENDING", "DELIVERED", "FAILED"}
    finally:
        await ro.close()
    stack["compose"]("--profile", "observability", "rm", "-f", "-s", "grafana-db")


def test_the_compose_file_started_is_the_users(stack: dict[str, Any]) -> None:
    """Only networking and ports differ from docker-compose.yml (checked when building it);
    the profiles keep Grafana and mailpit, which need registry images, out of a plain up."""
    out = stack["compose"]("ps", "--services", "--filter", "status=running").stdout.split()
    assert sorted(out) == sorted(DEFAULT_PROFILE)
    assert Path(stack["compose"].path).parent == stack["podman"].state
