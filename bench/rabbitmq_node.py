"""A private RabbitMQ node for the peers suite: Debian's rabbitmq-server started by the
bench on loopback, never the system service.

Everything is its own, under one temporary directory: node name, AMQP port, Erlang
distribution port and epmd port (all free ports on 127.0.0.1), Mnesia and log
directories, config file, enabled-plugins file (none), the Erlang cookie (HOME).
Start-up is synchronised with `rabbitmqctl wait` on the node's PID file; the node is stopped with
`rabbitmqctl stop`, its epmd with `epmd -kill`, and the directory removed.

Configuration is RabbitMQ 3.10's defaults but for the listener, the guest user allowed on
loopback (it is the only interface) and a disk-free alarm well below the bench's needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from pgaq.embedded import free_port

RABBITMQ_BIN = Path(os.environ.get("BENCH_RABBITMQ_BIN", "/usr/lib/rabbitmq/bin"))
START_TIMEOUT_S = 120

CONF = """listeners.tcp.default = 127.0.0.1:{port}
loopback_users = none
disk_free_limit.absolute = 200MB
"""


class NotInstalled(Exception):
    """rabbitmq-server is not installed here."""


@dataclass(frozen=True)
class Node:
    url: str  # amqp://guest:guest@127.0.0.1:port/
    version: str
    base: Path


def missing() -> str | None:
    """Why a node cannot start here, or None."""
    for tool in ("rabbitmq-server", "rabbitmqctl"):
        if not (RABBITMQ_BIN / tool).is_file():
            return (f"{RABBITMQ_BIN / tool} not found (Debian package rabbitmq-server; "
                    "deploy/system-deps.sh --bench installs it)")
    return None


def _epmd() -> str:
    found = shutil.which("epmd")
    return found or "epmd"


async def _run(env: dict[str, str], *cmd: str, timeout: float) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        *cmd, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return -1, f"timed out after {timeout:g} s"
    return proc.returncode or 0, out.decode(errors="replace")


@contextlib.asynccontextmanager
async def private_node() -> AsyncIterator[Node]:
    """Start a private node; yield it; stop it and remove its files."""
    why = missing()
    if why is not None:
        raise NotInstalled(why)
    base = Path(tempfile.mkdtemp(prefix="pgaq-bench-rabbitmq-"))
    port, dist, epmd = free_port(), free_port(), free_port()
    node = f"pgaqbench{os.getpid()}@localhost"
    (base / "rabbitmq.conf").write_text(CONF.format(port=port))
    (base / "enabled_plugins").write_text("[].\n")
    (base / "rabbitmq-env.conf").write_text("")
    env = {**os.environ,
           "HOME": str(base),  # the Erlang cookie the node and rabbitmqctl share
           "RABBITMQ_NODENAME": node,
           "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
           "RABBITMQ_NODE_PORT": str(port),
           "RABBITMQ_DIST_PORT": str(dist),
           "ERL_EPMD_PORT": str(epmd),
           "ERL_EPMD_ADDRESS": "127.0.0.1",
           "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "-kernel inet_dist_use_interface {127,0,0,1}",
           "RABBITMQ_CONF_ENV_FILE": str(base / "rabbitmq-env.conf"),
           "RABBITMQ_CONFIG_FILE": str(base / "rabbitmq.conf"),
           "RABBITMQ_ADVANCED_CONFIG_FILE": str(base / "advanced.config"),
           "RABBITMQ_ENABLED_PLUGINS_FILE": str(base / "enabled_plugins"),
           "RABBITMQ_MNESIA_BASE": str(base / "mnesia"),
           "RABBITMQ_LOG_BASE": str(base / "log"),
           "RABBITMQ_PID_FILE": str(base / "rabbitmq.pid")}
    out = os.open(base / "console.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    ctl = str(RABBITMQ_BIN / "rabbitmqctl")
    proc = await asyncio.create_subprocess_exec(
        str(RABBITMQ_BIN / "rabbitmq-server"), env=env, stdout=out,
        stderr=asyncio.subprocess.STDOUT, cwd=base, start_new_session=True)
    try:
        # `wait` waits for the node's PID file, then for the rabbit application to start
        # (await_startup alone gives up on a node whose VM is not up yet)
        rc, text = await _run(env, ctl, "-n", node, "wait", "--timeout", str(START_TIMEOUT_S),
                              str(base / "rabbitmq.pid"), timeout=START_TIMEOUT_S + 10)
        if rc != 0 or proc.returncode is not None:
            tail = (base / "console.log").read_text(errors="replace")[-1500:]
            raise RuntimeError(f"RabbitMQ node did not start ({text.strip()[-300:]}): {tail}")
        _, version = await _run(env, ctl, "-n", node, "eval",
                                "rabbit_misc:version().", timeout=60)
        yield Node(f"amqp://guest:guest@127.0.0.1:{port}/", version.strip().strip('"'), base)
    finally:
        if proc.returncode is None:
            await _run(env, ctl, "-n", node, "stop", timeout=60)
            try:
                await asyncio.wait_for(proc.wait(), 60)
            except TimeoutError:
                # the script and the Erlang VM it started: the session this node began
                os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()
        await _run(env, _epmd(), "-kill", timeout=30)  # the node's own epmd (ERL_EPMD_PORT)
        os.close(out)
        shutil.rmtree(base, ignore_errors=True)
