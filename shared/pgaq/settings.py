"""Every `PGAQ_*` environment variable, declared once, and the one reader of them.

A setting's name, type, default, unit, the services that read it and one line of doc live in
`DECLARED`; each service builds its typed settings through `Environment`, so `pgaq settings`
and the table in docs/deployment.md (settings_doc.py) come from the same place as the
values. `DEFAULTS` reads the declared defaults, typed, for a settings dataclass's field
defaults (the gateway's and core's read theirs there; the other services' dataclasses still
repeat theirs, and tests/unit/test_settings.py checks that they agree). A `PGAQ_*` variable
that is not declared is most likely a typo that would be ignored silently: services warn
about it at start.
"""

from __future__ import annotations

import difflib
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .errors import ConfigError
from .redact import redact_url

PREFIX = "PGAQ_"
FILE_SUFFIX = "_FILE"  # PGAQ_<NAME>_FILE: the container entrypoint reads PGAQ_<NAME> from it

SERVICES = ("core", "gateway", "monitor", "notifier", "propagator", "stats")
# who else reads a variable: `pgaq up` and the other commands, the container entrypoint,
# docker-compose.yml's own substitutions, the test suite
READERS = (*SERVICES, "up", "entrypoint", "compose", "tests")

TRUE = ("1", "true", "yes", "y", "on")
FALSE = ("0", "false", "no", "n", "off")
TYPES = ("text", "url", "path", "integer", "number", "flag", "auto-flag", "list", "prefix")

log = logging.getLogger("pgaq.settings")


@dataclass(frozen=True)
class Setting:
    """One variable. `default` is as written in the environment (None: unset, or computed
    as `doc` says); `unit` is what a number counts; a prefix setting names a family
    (`PGAQ_SPARK_CONF_<key>`)."""

    name: str
    type: str
    default: str | None
    unit: str
    readers: tuple[str, ...]
    doc: str
    secret: bool = False

    def __post_init__(self) -> None:
        if self.type not in TYPES or not set(self.readers) <= set(READERS):
            raise ValueError(f"bad declaration of {self.name}")


def _s(name: str, type_: str, default: str | None, unit: str, readers: Iterable[str], doc: str,
       *, secret: bool = False) -> Setting:
    return Setting(name, type_, default, unit, tuple(readers), doc, secret)


LOOPS = ("gateway", "monitor", "notifier", "propagator")
RUNNERS = ("gateway", "monitor", "notifier", "propagator", "stats")  # on pgaq.aio.run
BACKGROUND = ("monitor", "notifier", "propagator", "stats")  # /health and /metrics by pgaq.service
WEEK = str(7 * 86400)

DECLARED: tuple[Setting, ...] = (
    # -- every service -------------------------------------------------------------------
    _s("PGAQ_DSN", "url", None, "", (*SERVICES, "up", "entrypoint"),
       "libpq URL of the database (required by the services; for `pgaq up`: use it instead "
       "of a private cluster)", secret=True),
    _s("PGAQ_TCP_DSN", "url", None, "", ("stats", "up", "entrypoint"),
       "the statistics job's database over TCP (JDBC has no Unix sockets); default PGAQ_DSN",
       secret=True),
    _s("PGAQ_DB_PASSWORD", "text", None, "", ("entrypoint",),
       "password the container entrypoint writes into PGAQ_DSN and PGAQ_TCP_DSN", secret=True),
    _s("PGAQ_ADMIN_TOKEN", "text", None, "", ("core", "gateway", "up"),
       "bearer token of the admin API and password of user `admin` on /dashboard (`pgaq up` "
       "makes one in `<data-dir>/admin.token`)", secret=True),
    _s("PGAQ_LOG_LEVEL", "text", "INFO", "", (*SERVICES, "up"), "log level (DEBUG, INFO, WARNING, ERROR)"),
    _s("PGAQ_EVENT_LOOP", "text", "uvloop", "", RUNNERS,
       "`asyncio`: the standard event loop instead of uvloop"),
    _s("PGAQ_SAFETY_POLL", "number", "5", "s", LOOPS, "a look at the database in case a NOTIFY was missed"),
    _s("PGAQ_SHUTDOWN_TIMEOUT", "number", "10", "s", (*SERVICES, "up"),
       "how long a stop may take before connections are closed"),
    # -- /health and /metrics of the background services ---------------------------------
    _s("PGAQ_METRICS_HOST", "text", "127.0.0.1", "", BACKGROUND,
       "address the /health and /metrics of monitor, notifier, propagator and stats listen on"),
    _s("PGAQ_MONITOR_PORT", "integer", "8082", "", ("monitor", "up", "compose"),
       "port of the monitor's /health and /metrics (0: none; `pgaq up`: --port + 2)"),
    _s("PGAQ_NOTIFIER_PORT", "integer", "8083", "", ("notifier", "up", "compose"),
       "port of the notifier's /health and /metrics (0: none; `pgaq up`: --port + 3)"),
    _s("PGAQ_PROPAGATOR_PORT", "integer", "8084", "", ("propagator", "up", "compose"),
       "port of the propagator's /health and /metrics (0: none; `pgaq up`: --port + 4)"),
    _s("PGAQ_STATS_PORT", "integer", "8085", "", ("stats", "up", "compose"),
       "port of the stats service's /health and /metrics (0: none; `pgaq up`: --port + 5)"),
    # -- pgaq up -------------------------------------------------------------------------
    _s("PGAQ_PG_BIN", "path", None, "", ("up", "tests"),
       "PostgreSQL's server binaries (default: pg_config --bindir, PATH, /usr/lib/postgresql/*/bin)"),
    _s("PGAQ_READY_TIMEOUT", "number", "120", "s", ("up",),
       "how long the services may take to answer /health"),
    _s("PGAQ_DATA_DIR", "path", None, "", ("up",), "set by `pgaq up` for its services: its --data-dir"),
    # -- core ----------------------------------------------------------------------------
    _s("PGAQ_CORE_HOST", "text", "127.0.0.1", "", ("core",),
       "address of the admin API (anything but loopback needs PGAQ_ADMIN_TOKEN)"),
    _s("PGAQ_CORE_PORT", "integer", "8081", "", ("core", "up"),
       "port of the admin API (`pgaq up`: --port + 1)"),
    _s("PGAQ_CORE_POOL_MAX", "integer", "5", "connections", ("core",), "core's database connections"),
    # -- gateway -------------------------------------------------------------------------
    _s("PGAQ_HTTP_HOST", "text", "127.0.0.1", "", ("gateway",), "address the gateway listens on"),
    _s("PGAQ_PORT", "integer", "8080", "", ("gateway", "up"),
       "the gateway's port (`pgaq up`: the default --port)"),
    _s("PGAQ_SERVLET_PATH", "text", "/aqserv/servlet", "", ("gateway",), "the IDAP servlet's path"),
    _s("PGAQ_SESSION_TIMEOUT", "number", "120", "s", ("gateway",),
       "an idle HTTP session's open transaction is rolled back after this"),
    _s("PGAQ_MAX_TRANSACTIONS", "integer", "50", "", ("gateway",),
       "HTTP sessions holding a transaction at once"),
    _s("PGAQ_MAX_WAIT", "number", "300", "s", ("gateway",), "longest wait_time a receive may ask for"),
    _s("PGAQ_BODY_LIMIT", "integer", str(10 * 1024 * 1024), "bytes", ("gateway",), "largest request body"),
    _s("PGAQ_MAX_DEPTH", "integer", "64", "elements", ("gateway",), "deepest XML nesting a request may have"),
    _s("PGAQ_GATEWAY_POOL_MAX", "integer", "60", "connections", ("gateway",),
       "database connections per worker"),
    _s("PGAQ_GATEWAY_WORKERS", "text", "auto", "processes", ("gateway",),
       "`auto` (one per CPU, at most 4; one per two CPUs when PostgreSQL is on the same host) or a number"),
    _s("PGAQ_GATEWAY_BATCH_INFLIGHT", "integer", "1", "batches", ("gateway",),
       "autocommit batches of one queue written at once"),
    _s("PGAQ_GATEWAY_FASTPATH", "flag", "1", "", ("gateway",), "serve plain servlet POSTs without aiohttp"),
    _s("PGAQ_GATEWAY_KEEPALIVE", "number", "75", "s", ("gateway",),
       "an idle keep-alive connection is closed after this"),
    _s("PGAQ_GATEWAY_HOOKS", "list", "", "", ("gateway",),
       "`module:function` hooks run around each operation, comma-separated"),
    _s("PGAQ_GC_GEN0", "integer", "20000", "allocations", ("gateway",),
       "young garbage collections every this many allocations (0: Python's default)"),
    _s("PGAQ_VALIDATE", "flag", "1", "", ("gateway",), "validate requests against the IDAP schemas"),
    _s("PGAQ_SCHEMAS_DIR", "path", None, "", ("gateway",),
       "the IDAP XML schemas (default: the repository's schemas/)"),
    _s("PGAQ_STYLESHEET", "text", None, "", ("gateway",),
       "href of an XSL stylesheet named in every response"),
    _s("PGAQ_TLS_CERT", "path", None, "", ("gateway",), "PEM certificate chain: the gateway speaks HTTPS"),
    _s("PGAQ_TLS_KEY", "path", None, "", ("gateway",),
       "PEM private key of PGAQ_TLS_CERT (default: in the same file)"),
    _s("PGAQ_TLS_CLIENT_CA", "path", None, "", ("gateway",),
       "CA bundle for client certificates (a certificate naming an agent logs in as it)"),
    _s("PGAQ_TLS_CLIENT_REQUIRED", "flag", "0", "", ("gateway",),
       "refuse a TLS handshake without a client certificate"),
    _s("PGAQ_GATEWAY_WORKER", "integer", None, "", ("gateway",),
       "internal: set by the gateway for its workers"),
    _s("PGAQ_GATEWAY_RUN_DIR", "path", None, "", ("gateway",),
       "internal: set by the gateway for its workers"),
    _s("PGAQ_GATEWAY_PARENT", "integer", None, "", ("gateway",),
       "internal: set by the gateway for its workers"),
    # -- monitor -------------------------------------------------------------------------
    _s("PGAQ_MONITOR_BATCH", "integer", "5000", "messages", ("monitor",), "messages per monitor step"),
    _s("PGAQ_MONITOR_BUSY_RETRY", "number", "0.5", "s", ("monitor",),
       "before the monitor looks again at due messages a transaction holds"),
    _s("PGAQ_SNAPSHOT_PERIOD", "number", "60", "s", ("monitor",),
       "between queue snapshots (depth and age charts)"),
    _s("PGAQ_HISTORY_KEEP", "number", WEEK, "s", ("monitor",),
       "how long the propagation log and queue snapshots are kept"),
    _s("PGAQ_PROPAGATED_KEEP", "number", WEEK, "s", ("monitor",),
       "how long a destination keeps propagation dedup keys"),
    _s("PGAQ_ATTEMPT_WAITERS", "integer", "1", "connections", ("monitor",),
       "connections waiting for SQL dequeuers' transactions to end"),
    _s("PGAQ_ATTEMPT_WAIT", "number", "60", "s", ("monitor",), "longest wait for one such transaction"),
    _s("PGAQ_SCAN_FLOOR_PERIOD", "number", "1", "s", ("monitor",),
       "between raises of the scan floors dequeues start at (0: never; docs/chaos.md, `idle`)"),
    # -- notifier ------------------------------------------------------------------------
    _s("PGAQ_NOTIFY_MAX_ATTEMPTS", "integer", "10", "", ("notifier",), "then the notification is FAILED"),
    _s("PGAQ_NOTIFY_BACKOFF_BASE", "number", "1", "s", ("notifier",),
       "before the second attempt; doubles each time"),
    _s("PGAQ_NOTIFY_BACKOFF_MAX", "number", "600", "s", ("notifier",), "longest wait between attempts"),
    _s("PGAQ_NOTIFY_HTTP_TIMEOUT", "number", "10", "s", ("notifier",),
       "one HTTP delivery: connect, send, answer"),
    _s("PGAQ_NOTIFY_SMTP_TIMEOUT", "number", "30", "s", ("notifier",), "one e-mail delivery"),
    _s("PGAQ_NOTIFY_PLSQL_TIMEOUT", "number", "30", "s", ("notifier",), "one PL/pgSQL callback"),
    _s("PGAQ_NOTIFY_PER_DESTINATION", "integer", "16", "deliveries", ("notifier",),
       "concurrent HTTP deliveries to one host:port"),
    _s("PGAQ_NOTIFY_SMTP_CONNECTIONS", "integer", "4", "connections", ("notifier",),
       "concurrent deliveries to the SMTP server"),
    _s("PGAQ_NOTIFY_PLSQL_PER_DESTINATION", "integer", "2", "calls", ("notifier",),
       "concurrent calls of one procedure"),
    _s("PGAQ_NOTIFY_PLSQL_CONNECTIONS", "integer", "8", "connections", ("notifier",),
       "the callback login's connections"),
    _s("PGAQ_NOTIFY_BATCH", "integer", "200", "notifications", ("notifier",),
       "notifications claimed at a time"),
    _s("PGAQ_NOTIFY_KEEP_DELIVERED", "number", "3600", "s", ("notifier",),
       "delivered notifications stay visible this long"),
    _s("PGAQ_NOTIFY_KEEP_FAILED", "number", WEEK, "s", ("notifier",),
       "failed notifications stay visible this long"),
    _s("PGAQ_NOTIFY_LEASE", "number", None, "s", ("notifier",),
       "how long a claim holds (default: 3 x the longest timeout + 30; at least 2 x it)"),
    _s("PGAQ_NOTIFY_CALLBACK_DSN", "url", None, "", ("notifier",),
       "login for PL/pgSQL callbacks (default: derived from PGAQ_DSN)", secret=True),
    _s("PGAQ_NOTIFIER_NAME", "text", None, "", ("notifier",),
       "recorded as the claimer (default: `notifier-<host>-<pid>`)"),
    _s("PGAQ_SMTP_STARTTLS", "auto-flag", "auto", "", ("notifier",),
       "`auto` (when offered), `1` (required), `0` (never)"),
    _s("PGAQ_SMTP_CAFILE", "path", None, "", ("notifier",),
       "CA bundle that signs the SMTP server's certificate"),
    _s("PGAQ_SMTP_USER", "text", None, "", ("notifier",), "SMTP login"),
    _s("PGAQ_SMTP_PASSWORD", "text", None, "", ("notifier",), "SMTP password", secret=True),
    # -- propagator ----------------------------------------------------------------------
    _s("PGAQ_PROPAGATION_BACKOFF_BASE", "number", "30", "s", ("propagator",),
       "before the first retry; doubles each time"),
    _s("PGAQ_PROPAGATION_LEASE", "number", "10", "s", ("propagator",),
       "a dead propagator's schedules are taken over after this"),
    _s("PGAQ_PROPAGATION_BATCH", "integer", "500", "messages", ("propagator",),
       "messages per batch (one transaction)"),
    _s("PGAQ_PROPAGATION_MAX_SCHEDULES", "integer", "1000", "schedules", ("propagator",),
       "schedules one propagator runs at once"),
    _s("PGAQ_PROPAGATION_TIMEOUT", "number", "30", "s", ("propagator",),
       "connect and statement timeout toward a destination"),
    _s("PGAQ_PROPAGATION_CA_FILE", "path", None, "", ("propagator",),
       "extra CA certificates trusted for https links"),
    _s("PGAQ_PROPAGATOR_NAME", "text", None, "", ("propagator",),
       "recorded as the lease holder (default: `propagator-<host>-<pid>`)"),
    # -- statistics ----------------------------------------------------------------------
    _s("PGAQ_STATS_INTERVAL", "number", "5", "min", ("stats",), "between scheduled runs"),
    _s("PGAQ_STATS_FIRST_DELAY", "number", "60", "s", ("stats",),
       "from the service's start to its first run"),
    _s("PGAQ_STATS_RUN_TIMEOUT", "number", "1800", "s", ("stats",), "a run taking longer is killed"),
    _s("PGAQ_STATS_LAG", "number", "30", "s", ("stats",), "rows younger than this wait for the next run"),
    _s("PGAQ_STATS_LOOKBACK", "number", "300", "s", ("stats",),
       "series are recomputed from (watermark - lookback)'s hour"),
    _s("PGAQ_STATS_PARTITIONS", "integer", "4", "reads", ("stats",),
       "parallel JDBC reads of the log and snapshots"),
    _s("PGAQ_STATS_PARTITION_ROWS", "integer", "250000", "rows", ("stats",),
       "log rows a run reads per parallel JDBC read, up to PGAQ_STATS_PARTITIONS"),
    _s("PGAQ_STATS_CDS", "text", "auto", "", ("stats", "tests"),
       "the JVM's class-data archive: `auto`, `off` or a folder"),
    _s("PGAQ_JDBC_JAR", "path", "/usr/share/java/postgresql.jar", "", ("stats",), "PostgreSQL's JDBC driver"),
    _s("PGAQ_SPARK_MASTER", "text", "local[2]", "", ("stats",), "Spark master URL"),
    _s("PGAQ_SPARK_CONF_", "prefix", None, "", ("stats",),
       "any Spark setting: `PGAQ_SPARK_CONF_spark__executor__memory=2g` sets spark.executor.memory"),
    # -- docker-compose.yml's own substitutions (not read by a service) ------------------
    _s("PGAQ_IMAGE", "text", "pgaq:latest", "", ("compose",), "image of the pgaq services"),
    _s("PGAQ_STATS_IMAGE", "text", "pgaq-stats:latest", "", ("compose",), "image of the statistics job"),
    _s("PGAQ_POSTGRES_IMAGE", "text", "pgaq-postgres:15", "", ("compose",), "image of PostgreSQL"),
    _s("PGAQ_HA_", "prefix", None, "", ("compose",),
       "the profile `ha`'s cluster: `PGAQ_HA_<FIELD>` (or `PGAQ_HA_<FIELD>_FILE`) fills a field of "
       "`deploy/ha/`'s templates (`deploy/ha/render.py`); `deploy/pgaq.env.example` lists them"),
    _s("PGAQ_CORE_PUBLISH", "text", "127.0.0.1:8081", "", ("compose",),
       "where the host publishes core's port"),
    _s("PGAQ_GATEWAY_PUBLISH", "text", "8080", "", ("compose",),
       "where the host publishes the gateway's port"),
    _s("PGAQ_MONITOR_PUBLISH", "text", "127.0.0.1:8082", "", ("compose",),
       "where the host publishes the monitor's /health and /metrics"),
    _s("PGAQ_NOTIFIER_PUBLISH", "text", "127.0.0.1:8083", "", ("compose",),
       "where the host publishes the notifier's /health and /metrics"),
    _s("PGAQ_PROPAGATOR_PUBLISH", "text", "127.0.0.1:8084", "", ("compose",),
       "where the host publishes the propagator's /health and /metrics"),
    _s("PGAQ_STATS_PUBLISH", "text", "127.0.0.1:8085", "", ("compose",),
       "where the host publishes the stats service's /health and /metrics"),
    _s("PGAQ_GATEWAY_PORT", "integer", "8080", "", ("compose",),
       "the gateway's port inside its container (PGAQ_PORT)"),
    _s("PGAQ_LISTEN_HOST", "text", "0.0.0.0", "", ("compose",),
       "PGAQ_HTTP_HOST, PGAQ_CORE_HOST and PGAQ_METRICS_HOST in the containers"),
    _s("PGAQ_SPARK_DRIVER_MEMORY", "text", "1g", "", ("compose",),
       "the statistics job's spark.driver.memory"),
    _s("PGAQ_SPARK_DRIVER_HOST", "text", "127.0.0.1", "", ("compose",),
       "where Spark executors reach the statistics job's driver (`stats` on the spark profile)"),
    _s("PGAQ_SPARK_DRIVER_BIND", "text", "127.0.0.1", "", ("compose",),
       "the address the statistics job's driver binds (`0.0.0.0` on the spark profile)"),
    _s("PGAQ_SPARK_MASTER_HOST", "text", "spark-master", "", ("compose",),
       "the spark profile's master host name"),
    _s("PGAQ_SPARK_MASTER_PORT", "integer", "7077", "", ("compose",), "the spark profile's master port"),
    _s("PGAQ_SPARK_MASTER_UI_PORT", "integer", "8090", "", ("compose",),
       "the spark profile's master status page (its health check)"),
    _s("PGAQ_SPARK_UI_PUBLISH", "text", "127.0.0.1:8090", "", ("compose",),
       "host address of the master's status page"),
    _s("PGAQ_SPARK_WORKER_CORES", "integer", "2", "", ("compose",),
       "cores the spark profile's worker offers"),
    _s("PGAQ_SPARK_WORKER_MEMORY", "text", "2g", "", ("compose",),
       "memory the spark profile's worker offers"),
    _s("PGAQ_SPARK_WORKER_UI_PORT", "integer", "8091", "", ("compose",),
       "the spark profile's worker status page (its health check)"),
    _s("PGAQ_GRAFANA_DB_USER", "text", "pgaq_grafana", "", ("compose",),
       "the read-only role Grafana logs in as"),
    _s("PGAQ_GRAFANA_DB_SSLMODE", "text", "disable", "", ("compose",), "sslmode of Grafana's datasource"),
    _s("PGAQ_GRAFANA_DB_HOST", "text", None, "", ("compose",), "host:port of Grafana's datasource"),
    _s("PGAQ_GRAFANA_DB_NAME", "text", None, "", ("compose",), "database of Grafana's datasource"),
    _s("PGAQ_GRAFANA_DB_PASSWORD_FILE", "path", "/run/secrets/grafana_db_password", "", ("compose",),
       "file holding the password of Grafana's role"),
    # -- the test suite ------------------------------------------------------------------
    _s("PGAQ_FUZZ_EXAMPLES", "integer", "0", "examples", ("tests",),
       "examples per fuzz property (`make fuzz`: 5000)"),
    _s("PGAQ_COMPOSE_TEST", "flag", "0", "", ("tests",),
       "`make compose-test`: fail rather than skip without podman"),
    _s("PGAQ_CHROMIUM", "path", "/usr/bin/chromium", "", ("tests",), "the browser of the dashboard test"),
)

BY_NAME: dict[str, Setting] = {s.name: s for s in DECLARED}
FAMILIES = tuple(s.name for s in DECLARED if s.type == "prefix")


def declared(name: str) -> Setting | None:
    """The declaration `name` falls under: its own, its family's (PGAQ_SPARK_CONF_x), or
    that of the variable a `_FILE` variable carries for the entrypoint."""
    if name in BY_NAME:
        return BY_NAME[name]
    for family in FAMILIES:
        if name.startswith(family) and len(name) > len(family):
            return BY_NAME[family]
    if name.endswith(FILE_SUFFIX) and len(name) > len(PREFIX + FILE_SUFFIX):
        return BY_NAME.get(name.removesuffix(FILE_SUFFIX))
    return None


def unknown(env: Mapping[str, str] | None = None) -> list[tuple[str, str | None]]:
    """The `PGAQ_*` variables of `env` that nothing declares, each with the closest name."""
    e = os.environ if env is None else env
    names = [s.name for s in DECLARED if s.type != "prefix"]
    out = []
    for key in sorted(k for k in e if k.startswith(PREFIX)):
        if declared(key) is None:
            close = difflib.get_close_matches(key, names, n=1, cutoff=0.75)
            out.append((key, close[0] if close else None))
    return out


def warn_unknown(service: str, env: Mapping[str, str] | None = None) -> list[str]:
    """At a service's start: one WARNING per undeclared `PGAQ_*` variable (a typo would
    otherwise be ignored); the names."""
    found = unknown(env)
    for name, close in found:
        hint = f" (did you mean {close}?)" if close else ""
        log.warning("%s: unknown setting %s in the environment is ignored%s", service, name, hint)
    return [name for name, _ in found]


def for_service(service: str) -> list[Setting]:
    return [s for s in DECLARED if service in s.readers]


class Environment:
    """Typed reads of the declared variables: an empty value is the default, a value
    that does not parse is a ConfigError naming the variable."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.env = os.environ if env is None else env

    def raw(self, name: str, *types: str) -> str | None:
        setting = BY_NAME[name]  # KeyError: a name nobody declared (a bug, caught by tests)
        if types and setting.type not in types:
            raise TypeError(f"{name} is declared as {setting.type}, not {'/'.join(types)}")
        return self.env.get(name) or setting.default

    def text(self, name: str) -> str | None:
        return self.raw(name, "text", "url", "path")

    def text_declared(self, name: str) -> str:
        """A text whose declaration has a default, so it is never None."""
        value = self.text(name)
        if value is None:
            raise TypeError(f"{name} has no default")
        return value

    def text_or(self, name: str, fallback: str) -> str:
        """A text whose default is computed (a name with the host and pid in it)."""
        return self.text(name) or fallback

    def required(self, name: str) -> str:
        value = self.text(name)
        if not value:
            raise SystemExit(f"{name} is required")
        return value

    def _parsed(self, name: str, types: tuple[str, ...],
                parse: type[int] | type[float]) -> int | float | None:
        raw = self.raw(name, *types)
        if raw is None:
            return None
        try:
            return parse(raw.strip())
        except ValueError:
            raise ConfigError(f"{name}={raw!r}: not {'an integer' if parse is int else 'a number'}") from None

    def integer(self, name: str) -> int:
        value = self._parsed(name, ("integer",), int)
        if value is None:
            raise TypeError(f"{name} has no default")
        return int(value)

    def maybe_integer(self, name: str) -> int | None:
        value = self._parsed(name, ("integer",), int)
        return None if value is None else int(value)

    def number(self, name: str) -> float:
        value = self._parsed(name, ("number",), float)
        if value is None:
            raise TypeError(f"{name} has no default")
        return float(value)

    def maybe_number(self, name: str) -> float | None:
        value = self._parsed(name, ("number",), float)
        return None if value is None else float(value)

    def maybe_flag(self, name: str) -> bool | None:
        """`auto` (or unset): None; otherwise a flag."""
        raw = (self.raw(name, "flag", "auto-flag") or "").strip().lower()
        if raw in ("", "auto"):
            return None
        if raw in TRUE:
            return True
        if raw in FALSE:
            return False
        raise ConfigError(f"{name}={raw!r}: not one of {', '.join(TRUE + FALSE)}")

    def flag(self, name: str) -> bool:
        return bool(self.maybe_flag(name))

    def words(self, name: str) -> list[str]:
        return [w.strip() for w in (self.raw(name, "list") or "").split(",") if w.strip()]

    def family(self, name: str) -> dict[str, str]:
        """`<name><key>=value` for every key: {key: value}."""
        self.raw(name, "prefix")
        return {k.removeprefix(name): v for k, v in self.env.items() if k.startswith(name) and k != name}


# An environment that sets nothing: every read is the declared default.
DEFAULTS = Environment({})


def shown(setting: Setting, value: str | None) -> str:
    """A value fit to print: secrets as ***, URLs without their credentials."""
    if value is None or value == "":
        return "(unset)"
    if setting.secret:
        return redact_url(value) if setting.type == "url" else "***"
    return value


def effective(service: str | None, env: Mapping[str, str] | None = None) -> list[str]:
    """`NAME=value` lines, secrets redacted, of what `service` (None: every reader) reads;
    `# default` marks a value nobody set, and a value that does not parse says why."""
    e = os.environ if env is None else env
    reader = Environment(e)
    lines = []
    for s in DECLARED if service is None else for_service(service):
        if s.type == "prefix":
            lines += [f"{s.name}{k}={shown(s, v)}" for k, v in sorted(reader.family(s.name).items())]
            continue
        value = reader.raw(s.name)
        note = "" if e.get(s.name) else "  # default"
        try:
            _check(reader, s)
        except ConfigError as exc:
            note = f"  # INVALID: {exc}"
        lines.append(f"{s.name}={shown(s, value)}{note}")
    for name, close in unknown(e):
        lines.append(f"# unknown: {name}" + (f" (did you mean {close}?)" if close else ""))
    return lines


def _check(reader: Environment, s: Setting) -> None:
    if s.type == "integer":
        reader.maybe_integer(s.name)
    elif s.type == "number":
        reader.maybe_number(s.name)
    elif s.type in ("flag", "auto-flag"):
        reader.maybe_flag(s.name)
