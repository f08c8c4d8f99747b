"""The statistics job's settings, from the environment, and the libpq-to-JDBC mapping.

One DSN configures everything: Spark reads and stages over JDBC, the job's own control
statements (watermark, merge) go through asyncpg, both with the same credentials.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

from ..errors import ConfigError
from ..settings import Environment

DEFAULT_JAR = "/usr/share/java/postgresql.jar"  # PGAQ_JDBC_JAR's default
JDBC_DRIVER = "org.postgresql.Driver"


@dataclass(frozen=True)
class JdbcTarget:
    url: str                      # jdbc:postgresql://host:port/db (no credentials in it)
    properties: dict[str, str]    # user, password, driver, ...

    def redacted(self) -> str:
        return f"{self.url} as {self.properties.get('user', '?')}"


def jdbc_target(dsn: str) -> JdbcTarget:
    """A libpq URL (postgresql://user:pw@host:port/db?sslmode=...) as a JDBC URL and
    properties. Unix-socket DSNs are refused: JDBC speaks TCP only."""
    parts = urlsplit(dsn)
    if parts.scheme not in ("postgresql", "postgres"):
        raise ConfigError(f"the statistics job needs a postgresql:// URL, not {parts.scheme or dsn!r}")
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    host = parts.hostname or query.pop("host", "")
    if not host or host.startswith("/"):
        raise ConfigError("the statistics job needs a TCP address (JDBC has no Unix sockets); "
                          "set PGAQ_TCP_DSN")
    port = parts.port or int(query.pop("port", "5432"))
    database = unquote(parts.path.lstrip("/")) or query.pop("dbname", "") or "postgres"
    props = {"driver": JDBC_DRIVER, "stringtype": "unspecified"}
    user = unquote(parts.username) if parts.username else query.pop("user", None)
    password = unquote(parts.password) if parts.password else query.pop("password", None)
    if user:
        props["user"] = user
    if password:
        props["password"] = password
    if "sslmode" in query:
        props["sslmode"] = query["sslmode"]
    host_part = f"[{host}]" if ":" in host else host
    return JdbcTarget(f"jdbc:postgresql://{host_part}:{port}/{database}", props)


@dataclass(frozen=True)
class StatsSettings:
    dsn: str                           # libpq URL over TCP
    jar: str = DEFAULT_JAR
    master: str = "local[2]"
    lag: float = 30.0                  # seconds: rows younger than this wait for the next run
    lookback: float = 300.0            # seconds: series recomputed from (watermark - lookback)'s hour
    interval: float = 5.0              # minutes between scheduled runs
    first_delay: float = 60.0          # seconds from the service's start to its first run
    run_timeout: float = 1800.0        # seconds a scheduled run may take before it is killed
    partitions: int = 4                # parallel JDBC reads of the log and snapshots, by time range
    partition_rows: int = 250_000      # log rows a run reads per parallel read (up to `partitions`)
    cds: str = "auto"                  # class-data archive folder for the JVM (cds.py): auto, off, a path
    spark_conf: dict[str, str] = field(default_factory=dict)

    @property
    def jdbc(self) -> JdbcTarget:
        return jdbc_target(self.dsn)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> StatsSettings:
        e = Environment(env)
        dsn = e.text("PGAQ_TCP_DSN") or e.text("PGAQ_DSN")
        if not dsn:
            raise ConfigError("PGAQ_DSN (or PGAQ_TCP_DSN) is required")
        # PGAQ_SPARK_CONF_spark__executor__memory=2g
        conf = {k.replace("__", "."): v for k, v in e.family("PGAQ_SPARK_CONF_").items()}
        return cls(
            dsn=dsn,
            jar=e.text_or("PGAQ_JDBC_JAR", DEFAULT_JAR),
            master=e.text_or("PGAQ_SPARK_MASTER", "local[2]"),
            lag=e.number("PGAQ_STATS_LAG"),
            lookback=e.number("PGAQ_STATS_LOOKBACK"),
            interval=e.number("PGAQ_STATS_INTERVAL"),
            first_delay=e.number("PGAQ_STATS_FIRST_DELAY"),
            run_timeout=e.number("PGAQ_STATS_RUN_TIMEOUT"),
            partitions=max(1, e.integer("PGAQ_STATS_PARTITIONS")),
            partition_rows=max(1, e.integer("PGAQ_STATS_PARTITION_ROWS")),
            cds=e.text_or("PGAQ_STATS_CDS", "auto"),
            spark_conf=conf,
        )
