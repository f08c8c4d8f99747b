"""The propagator's settings, from the environment (PGAQ_PROPAGATION_*)."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class PropagatorSettings:
    backoff_base: float = 30.0  # seconds before the first retry (Oracle: 30 s, doubling)
    lease: float = 10.0  # a dead propagator's schedules are taken over after this
    batch: int = 500  # messages per batch (per transaction)
    max_schedules: int = 1000  # schedules one propagator runs at once
    remote_timeout: float = 30.0  # connect and statement timeout toward a destination
    safety_poll: float = 5.0
    name: str = "propagator"
    ca_file: str | None = None  # extra CA certificates to trust for https links (PEM)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> PropagatorSettings:
        e = dict(os.environ if env is None else env)
        return cls(
            backoff_base=float(e.get("PGAQ_PROPAGATION_BACKOFF_BASE", "30")),
            lease=float(e.get("PGAQ_PROPAGATION_LEASE", "10")),
            batch=int(e.get("PGAQ_PROPAGATION_BATCH", "500")),
            max_schedules=int(e.get("PGAQ_PROPAGATION_MAX_SCHEDULES", "1000")),
            remote_timeout=float(e.get("PGAQ_PROPAGATION_TIMEOUT", "30")),
            safety_poll=float(e.get("PGAQ_SAFETY_POLL", "5")),
            name=e.get("PGAQ_PROPAGATOR_NAME") or f"propagator-{os.uname().nodename}-{os.getpid()}",
            ca_file=e.get("PGAQ_PROPAGATION_CA_FILE") or None,
        )
