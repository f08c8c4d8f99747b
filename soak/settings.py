"""The soak's knobs, from SOAK_* environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass
class Settings:
    rate: float = 20.0  # messages per second, half Send, half Publish
    seconds: float = 3600.0
    sample: float = 30.0  # seconds between samples
    retention: int = 60  # retention_time of every queue, seconds
    max_mib_per_hour: float = 10.0  # memory slope allowed per service
    tolerance: float = 0.25  # size and dead tuples: last quarter vs second quarter
    size_slack: float = 256 * 1024  # bytes: a table's size may wobble by a few pages
    dead_slack: float = 1000  # dead tuples: autovacuum's threshold is 50 + 20% of the table

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)
        d = cls()
        return cls(rate=float(e.get("SOAK_RATE", d.rate)), seconds=float(e.get("SOAK_SECONDS", d.seconds)),
                   sample=float(e.get("SOAK_SAMPLE", d.sample)),
                   retention=int(e.get("SOAK_RETENTION", d.retention)),
                   max_mib_per_hour=float(e.get("SOAK_MAX_MIB_PER_HOUR", d.max_mib_per_hour)),
                   tolerance=float(e.get("SOAK_TOLERANCE", d.tolerance)))
