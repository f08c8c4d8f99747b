"""Settings from the environment, read once at start-up and passed down."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    return float(raw) if raw not in (None, "") else default


@dataclass(frozen=True)
class Settings:
    dsn: str | None = None
    pg_bin: str | None = None
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    core_port: int = 0
    pool_min: int = 1
    pool_max: int = 10
    safety_poll: float = 5.0
    shutdown_timeout: float = 10.0
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = os.environ if env is None else env
        return cls(
            dsn=e.get("PGAQ_DSN") or None,
            pg_bin=e.get("PGAQ_PG_BIN") or None,
            http_host=e.get("PGAQ_HTTP_HOST", "127.0.0.1"),
            http_port=int(e.get("PGAQ_PORT", "8080")),
            core_port=int(e.get("PGAQ_CORE_PORT", "0")),
            pool_min=int(e.get("PGAQ_POOL_MIN", "1")),
            pool_max=int(e.get("PGAQ_POOL_MAX", "10")),
            safety_poll=float(e.get("PGAQ_SAFETY_POLL", "5")),
            shutdown_timeout=float(e.get("PGAQ_SHUTDOWN_TIMEOUT", "10")),
        )
