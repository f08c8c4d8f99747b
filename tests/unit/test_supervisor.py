"""Supervisor restart policy (pure, on a fake clock), the `pgaq up` service plan, logs."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import stat
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pgaq.aio import TaskGroup
from pgaq.cli import (
    SERVICES,
    Service,
    admin_token,
    announce,
    free_base_port,
    plan_services,
    running_port,
)
from pgaq.clock import FakeClock
from pgaq.core import http_status
from pgaq.errors import ConnectionLost, QueueError
from pgaq.logs import LineFormatter
from pgaq.supervisor import Backoff, ServiceSpec, Supervisor, describe_exit


def crash_after(b: Backoff, clock: FakeClock, uptime: float) -> float:
    b.started(clock.monotonic())
    clock.advance(uptime)
    return b.exited(clock.monotonic())


def test_backoff_grows_exponentially_and_caps() -> None:
    clock = FakeClock()
    b = Backoff(base=1, factor=2, maximum=5, reset_after=60)
    assert [crash_after(b, clock, 0.1) for _ in range(6)] == [0, 1, 2, 4, 5, 5]


def test_backoff_resets_after_a_long_healthy_run() -> None:
    clock = FakeClock()
    b = Backoff(base=1, factor=2, maximum=30, reset_after=60)
    for _ in range(4):
        crash_after(b, clock, 1)
    assert crash_after(b, clock, 59) == 8  # not long enough: the penalty keeps growing
    assert crash_after(b, clock, 60) == 0  # a long enough run wipes the slate
    assert crash_after(b, clock, 1) == 1


def test_backoff_time_spent_waiting_does_not_count_as_uptime() -> None:
    clock = FakeClock()
    b = Backoff(base=10, factor=2, maximum=100, reset_after=60)
    crash_after(b, clock, 1)
    delay = crash_after(b, clock, 1)
    clock.advance(delay * 10)  # a long wait before the restart ...
    assert crash_after(b, clock, 1) == 20  # ... is not a healthy run


@given(st.lists(st.floats(min_value=0, max_value=1000), max_size=50))
def test_backoff_delay_is_bounded(uptimes: list[float]) -> None:
    b = Backoff(base=0.5, factor=2, maximum=30, reset_after=60)
    for u in uptimes:
        d = b.next_delay(u)
        assert 0 <= d <= 30
        if u >= 60:
            assert d == 0


def test_describe_exit() -> None:
    assert describe_exit(3) == "exit 3"
    assert describe_exit(-9) == "signal SIGKILL"


def test_service_plan_ports_env_and_health() -> None:
    specs = plan_services(SERVICES, 9000, {})
    by_name = {s.name: s for s in specs}
    assert specs[0].name == "core"  # core applies migrations: it starts first
    assert by_name["core"].env == {"PGAQ_CORE_PORT": "9001"}
    assert by_name["core"].health_url == "http://127.0.0.1:9001/health"
    assert by_name["gateway"].env == {"PGAQ_PORT": "9000"}
    # the background services' /health and /metrics: base + 2..5
    for offset, name in enumerate(("monitor", "notifier", "propagator", "stats"), start=2):
        assert by_name[name].env == {f"PGAQ_{name.upper()}_PORT": str(9000 + offset)}
        assert by_name[name].health_url == f"http://127.0.0.1:{9000 + offset}/health"
    assert all(s.module == f"pgaq_services.{s.name}" for s in specs)
    assert announce(specs) == ["CORE=http://127.0.0.1:9001", "MONITOR=http://127.0.0.1:9002",
                               "NOTIFIER=http://127.0.0.1:9003", "PROPAGATOR=http://127.0.0.1:9004",
                               "STATS=http://127.0.0.1:9005", "GATEWAY=http://127.0.0.1:9000/aqserv/servlet"]


def test_service_plan_explicit_background_port_and_none() -> None:
    """A port set in the environment wins; 0 means no endpoint, so no health URL to wait on."""
    specs = plan_services(SERVICES, 9000, {"PGAQ_MONITOR_PORT": "7001", "PGAQ_STATS_PORT": "0"})
    by_name = {s.name: s for s in specs}
    assert by_name["monitor"].health_url == "http://127.0.0.1:7001/health"
    assert by_name["stats"].env == {"PGAQ_STATS_PORT": "0"}
    assert by_name["stats"].health_url is None


def test_service_plan_explicit_core_port_and_no_gateway() -> None:
    only_core = (Service("core", "PGAQ_CORE_PORT", 1),)
    specs = plan_services(only_core, 9000, {"PGAQ_CORE_PORT": "7777", "PGAQ_PORT": "1"})
    assert specs[0].env == {"PGAQ_CORE_PORT": "7777"}
    assert announce(specs) == ["CORE=http://127.0.0.1:7777"]  # no GATEWAY line without one


def test_admin_token_is_private_and_stable(tmp_path: Path) -> None:
    path = tmp_path / "d" / "admin.token"
    token = admin_token(path)
    assert len(token) >= 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert admin_token(path) == token


def test_running_port(tmp_path: Path) -> None:
    assert running_port(tmp_path) is None
    (tmp_path / "postmaster.pid").write_text(f"{os.getpid()}\n/x\n123\n5433\n")
    assert running_port(tmp_path) == 5433
    (tmp_path / "postmaster.pid").write_text("999999999\n/x\n123\n5433\n")
    assert running_port(tmp_path) is None  # a stale file after a crash


def test_log_lines_are_single_lines() -> None:
    try:
        raise ValueError("boom\nsecond line")
    except ValueError:
        record = logging.LogRecord("pgaq.x", logging.ERROR, __file__, 1, "failed: %s", ("a\nb",),
                                   sys.exc_info())
    line = LineFormatter().format(record)
    assert "\n" not in line
    assert "level=ERROR logger=pgaq.x" in line
    assert json.loads(line.split(" msg=", 1)[1].split(" exc=")[0]) == "failed: a\nb"


def test_a_lost_database_is_logged_as_one_error_without_a_traceback() -> None:
    # asyncpg's pool logs each failed reconnect with its exception during a failover
    try:
        raise ConnectionError("unexpected connection_lost() call")
    except ConnectionError:
        record = logging.LogRecord("asyncpg.pool", logging.WARNING, __file__, 1,
                                   "Failed to restore the pool connection floor; retrying", (),
                                   sys.exc_info())
    line = LineFormatter().format(record)
    assert "Traceback" not in line and " exc=" not in line
    assert json.loads(line.split(" error=", 1)[1]) == "ConnectionError('unexpected connection_lost() call')"


def test_http_status_mapping() -> None:
    assert http_status(QueueError("ORA-24010: no queue", 24010, "P0001")) == 400
    assert http_status(QueueError("bad value", None, "22P02")) == 400
    assert http_status(QueueError("ORA-01031: insufficient privileges", 1031, "42501")) == 403
    assert http_status(ConnectionLost("gone", None, "08006")) == 503
    assert http_status(QueueError("disk full", None, "53100")) == 500


async def test_supervisor_restarts_a_crashing_child_and_stops() -> None:
    group = TaskGroup("test")
    sup = Supervisor([ServiceSpec("bad", "pgaq_no_such_module_here")], {}, group,
                     backoff=Backoff(base=0.01, factor=1, maximum=0.01), stop_timeout=5)
    await sup.start()
    while sup.restarts["bad"] < 3:
        sup.died.clear()
        await asyncio.wait_for(sup.died.wait(), 30)
    assert sup.restarts["bad"] >= 3
    await sup.stop()
    assert not group.tasks
    assert not group.failed.done()


async def test_supervisor_stop_kills_a_child_that_ignores_sigterm(tmp_path: Path) -> None:
    pkg = tmp_path / "stubborn_child"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    fifo = tmp_path / "armed"
    os.mkfifo(fifo)
    (pkg / "__main__.py").write_text(
        "import signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        f"with open({str(fifo)!r}, 'w') as f:\n"
        "    f.write('armed')\n"
        "time.sleep(60)\n")
    group = TaskGroup("test")
    sup = Supervisor([ServiceSpec("stubborn", "stubborn_child")], {"PYTHONPATH": str(tmp_path)}, group,
                     stop_timeout=0.5)
    await sup.start()
    proc = sup.procs["stubborn"]

    def armed() -> str:
        with open(fifo) as f:  # returns once the child has ignored SIGTERM and written
            return f.read()

    assert await asyncio.wait_for(asyncio.to_thread(armed), 30) == "armed"
    await asyncio.wait_for(sup.stop(), 10)
    assert proc.returncode == -9
    assert sup.restarts["stubborn"] == 0


@pytest.mark.parametrize("code", [0, 1])
def test_describe_exit_codes(code: int) -> None:
    assert describe_exit(code) == f"exit {code}"


def test_free_base_port_leaves_room_for_core() -> None:
    base = free_base_port()
    for port in (base, base + 1):
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))
