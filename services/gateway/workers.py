"""Several gateway worker processes on one port, and the hop that keeps a session's
requests on the worker holding its transaction.

One Python process saturates one core well before PostgreSQL does, so the gateway runs
N workers (SO_REUSEPORT spreads connections between them). A transactional session lives
in one worker, on a database connection that worker holds: its cookie names the worker
(`w2-<process>.<random>`, the process part new at each start), and a request carrying
it that lands elsewhere is passed on over the owner's private Unix socket; when the
owner has died, the session's store answers that its transaction is gone. Prometheus
metrics are shared through prometheus_client's multiprocess directory.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import re
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

import aiohttp
from pgaq.aio import TaskGroup
from pgaq.supervisor import ServiceSpec, Supervisor

from .exchange import Incoming, Reply

log = logging.getLogger("pgaq.gateway.workers")
FORWARDED = "X-Pgaq-Forwarded"
# the subject of the client certificate the forwarding worker verified: the owner cannot
# see the TLS connection, and trusts this header only on its private Unix socket (app.py)
CLIENT_SUBJECT = "X-Pgaq-Client-Subject"
_WORKER = re.compile(r"w[0-9]{1,4}-[a-z2-7]{8}\.")  # a worker's prefix (sessions.process_prefix)
_PASS_HEADERS = ("Authorization", "Content-Type", "Cookie", "SOAPAction", "SOAPMethodName")


def socket_path(run_dir: str, prefix: str) -> str:
    return str(Path(run_dir) / f"{prefix.rstrip('.')}.sock")


class Forwarder:
    """Passes a request to the worker that owns its session, over that worker's socket."""

    def __init__(self, run_dir: str) -> None:
        self.run_dir = run_dir
        self._clients: dict[str, aiohttp.ClientSession] = {}

    def _client(self, owner: str) -> aiohttp.ClientSession:
        client = self._clients.get(owner)
        if client is None or client.closed:
            client = aiohttp.ClientSession(
                connector=aiohttp.UnixConnector(path=socket_path(self.run_dir, owner)),
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=5),
                cookie_jar=aiohttp.DummyCookieJar(), auto_decompress=False)
            self._clients[owner] = client
        return client

    def has(self, owner: str) -> bool:
        """Whether `owner` is (or was) a worker of this group: its socket is here. A token
        of another instance names none."""
        if not self.run_dir or not _WORKER.fullmatch(owner):  # never a path the client chose
            return False
        return Path(socket_path(self.run_dir, owner)).exists()

    async def forward(self, owner: str, request: Incoming, body: bytes) -> Reply | None:
        """The owner's response, or None when the owner is gone (a crash took the
        session's transaction with it): the caller then tells the client so."""
        headers = {h: v for h in _PASS_HEADERS if (v := request.header(h)) is not None}
        headers[FORWARDED] = "1"
        subject = request.client_subject()
        if subject is not None:
            headers[CLIENT_SUBJECT] = subject
        try:
            async with self._client(owner).post(f"http://worker{request.path_qs}", data=body,
                                                headers=headers) as r:
                payload = await r.read()
                kept = [(name, r.headers[name]) for name in ("WWW-Authenticate", "Content-Type")
                        if name in r.headers]
                return Reply(r.status, kept, payload, list(r.headers.getall("Set-Cookie", [])))
        except (aiohttp.ClientConnectionError, OSError) as exc:
            log.warning("worker %s unreachable (%r): its sessions' transactions are gone", owner, exc)
            return None

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()


def die_with_parent(parent: int) -> None:
    """A worker must not outlive its group (a SIGKILLed parent would leave it serving the
    port): the kernel sends SIGTERM when the parent goes."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os.kill(os.getpid(), signal.SIGTERM)


async def run_group(workers: int, stop_timeout: float) -> None:
    """The parent of `workers` gateway processes: starts, restarts and stops them."""
    run_dir = tempfile.mkdtemp(prefix="pgaq-gateway-")
    metrics_dir = Path(run_dir) / "metrics"
    metrics_dir.mkdir()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    specs = [
        ServiceSpec(f"gateway-w{i}", "pgaq_services.gateway", env={
            "PGAQ_GATEWAY_WORKER": str(i), "PGAQ_GATEWAY_WORKERS": str(workers),
            "PGAQ_GATEWAY_RUN_DIR": run_dir, "PGAQ_GATEWAY_PARENT": str(os.getpid()),
            "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)})
        for i in range(workers)
    ]

    def exited(pid: int) -> None:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid, str(metrics_dir))  # type: ignore[no-untyped-call]

    group = TaskGroup("gateway-workers")
    supervisor = Supervisor(specs, {}, group, stop_timeout=stop_timeout, on_exit=exited)
    try:
        await supervisor.start()
        log.info("gateway: %d worker processes", workers)
        done: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
        waiters: list[asyncio.Future[Any]] = [done, group.failed]
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        done.cancel()
        await supervisor.stop()
        if group.failed.done():
            sys.exit(1)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
