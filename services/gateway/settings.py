"""The gateway's settings: one dataclass, read from the environment through pgaq.settings
(the one declaration of every PGAQ_* variable). Kept apart from app.py (the wiring) so
the modules app.py wires (servlet.py, fastpath.py) can name its types without a cycle."""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field

from pgaq.idap.sessions import process_prefix
from pgaq.settings import DEFAULTS as D
from pgaq.settings import Environment


# Each default is the declaration's (pgaq.settings), read once at import, not written again.
@dataclass
class Settings:
    dsn: str
    host: str = D.text_declared("PGAQ_HTTP_HOST")
    port: int = D.integer("PGAQ_PORT")
    path: str = D.text_declared("PGAQ_SERVLET_PATH")
    session_timeout: float = D.number("PGAQ_SESSION_TIMEOUT")
    max_transactions: int = D.integer("PGAQ_MAX_TRANSACTIONS")
    max_wait: float = D.number("PGAQ_MAX_WAIT")
    safety_poll: float = D.number("PGAQ_SAFETY_POLL")
    body_limit: int = D.integer("PGAQ_BODY_LIMIT")
    max_depth: int = D.integer("PGAQ_MAX_DEPTH")
    pool_max: int = D.integer("PGAQ_GATEWAY_POOL_MAX")
    tls_cert: str | None = None
    tls_key: str | None = None
    # PEM CA bundle: TLS asks for a client certificate chaining to it, and one whose subject
    # is an agent's certificate_location logs in as that agent (docs/gateway.md)
    tls_client_ca: str | None = None
    tls_client_required: bool = D.flag("PGAQ_TLS_CLIENT_REQUIRED")  # no client certificate: no handshake
    stylesheet: str | None = None
    hooks: list[str] = field(default_factory=list)
    validate: bool = D.flag("PGAQ_VALIDATE")
    shutdown_timeout: float = D.number("PGAQ_SHUTDOWN_TIMEOUT")
    # processes serving the port (see workers.py); the declared `auto` depends on the DSN,
    # so a Settings made in code serves with one
    workers: int = 1
    worker: int | None = None  # this process's index when it is one of several
    run_dir: str | None = None  # where the workers' private sockets live
    admin_token: str | None = None  # also opens /dashboard (user `admin`)
    # autocommit batches of one queue written at once (batching.py)
    batch_inflight: int = D.integer("PGAQ_GATEWAY_BATCH_INFLIGHT")
    # serve the servlet's plain POSTs without aiohttp (fastpath.py)
    fastpath: bool = D.flag("PGAQ_GATEWAY_FASTPATH")
    # an idle keep-alive connection is closed after this
    keepalive_timeout: float = D.number("PGAQ_GATEWAY_KEEPALIVE")
    # young collections every this many allocations (gctune.py); 0: Python's defaults
    gc_gen0: int = D.integer("PGAQ_GC_GEN0")
    _prefix: str = field(default="", repr=False)

    @property
    def prefix(self) -> str:
        """What this process's session tokens start with: new at each start (see
        pgaq.idap.sessions.process_prefix), and naming the worker within its group."""
        if not self._prefix:
            self._prefix = process_prefix("g" if self.worker is None else f"w{self.worker}")
        return self._prefix

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        e = Environment(env)
        dsn = e.required("PGAQ_DSN")
        if e.text("PGAQ_TLS_CLIENT_CA") and not e.text("PGAQ_TLS_CERT"):
            raise SystemExit("PGAQ_TLS_CLIENT_CA needs PGAQ_TLS_CERT (client certificates need TLS)")
        return cls(
            dsn=dsn,
            host=e.text_declared("PGAQ_HTTP_HOST"),
            port=e.integer("PGAQ_PORT"),
            path=e.text_declared("PGAQ_SERVLET_PATH"),
            session_timeout=e.number("PGAQ_SESSION_TIMEOUT"),
            max_transactions=e.integer("PGAQ_MAX_TRANSACTIONS"),
            max_wait=e.number("PGAQ_MAX_WAIT"),
            safety_poll=e.number("PGAQ_SAFETY_POLL"),
            body_limit=e.integer("PGAQ_BODY_LIMIT"),
            max_depth=e.integer("PGAQ_MAX_DEPTH"),
            pool_max=e.integer("PGAQ_GATEWAY_POOL_MAX"),
            tls_cert=e.text("PGAQ_TLS_CERT"),
            tls_key=e.text("PGAQ_TLS_KEY"),
            tls_client_ca=e.text("PGAQ_TLS_CLIENT_CA"),
            tls_client_required=e.flag("PGAQ_TLS_CLIENT_REQUIRED"),
            stylesheet=e.text("PGAQ_STYLESHEET"),
            hooks=e.words("PGAQ_GATEWAY_HOOKS"),
            validate=e.flag("PGAQ_VALIDATE"),
            workers=workers_for(e.text_declared("PGAQ_GATEWAY_WORKERS"), dsn),
            worker=e.maybe_integer("PGAQ_GATEWAY_WORKER"),
            run_dir=e.text("PGAQ_GATEWAY_RUN_DIR"),
            admin_token=e.text("PGAQ_ADMIN_TOKEN"),
            batch_inflight=e.integer("PGAQ_GATEWAY_BATCH_INFLIGHT"),
            fastpath=e.flag("PGAQ_GATEWAY_FASTPATH"),
            keepalive_timeout=e.number("PGAQ_GATEWAY_KEEPALIVE"),
            gc_gen0=e.integer("PGAQ_GC_GEN0"),
            shutdown_timeout=e.number("PGAQ_SHUTDOWN_TIMEOUT"),
        )


def database_is_local(dsn: str) -> bool:
    """Whether PostgreSQL runs on this host (a Unix socket or a loopback address), in
    either DSN form (URL or key=value)."""
    hosts: list[str] = []
    if "://" in dsn:
        parts = urllib.parse.urlsplit(dsn)
        netloc = parts.netloc.rsplit("@", 1)[-1]
        hosts += [h.rsplit(":", 1)[0] if not h.startswith("[") else h.split("]")[0] + "]"
                  for h in netloc.split(",") if h]
        hosts += urllib.parse.parse_qs(parts.query).get("host", [])
    else:
        hosts += [m.split("=", 1)[1] for m in dsn.split() if m.startswith("host=")]
    hosts = [urllib.parse.unquote(h).strip("[]").lower() for h in hosts]
    if not hosts:
        return True  # libpq's default: the local socket
    return all(h.startswith("/") or h in ("localhost", "::1") or h.startswith("127.") for h in hosts)


def workers_for(value: str, dsn: str, cpus: int | None = None) -> int:
    """`auto`: one per CPU, at most 4; one per two CPUs when PostgreSQL shares the host, as
    under `pgaq up`, where more workers take the cores PostgreSQL needs (docs/gateway.md,
    "Measurements behind the defaults")."""
    if value.strip().lower() == "auto":
        n = cpus or os.cpu_count() or 1
        if database_is_local(dsn):
            n //= 2
        return max(1, min(n, 4))
    n = int(value)
    if n < 1:
        raise SystemExit("PGAQ_GATEWAY_WORKERS must be at least 1")
    return n
