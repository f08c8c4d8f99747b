"""The propagator's settings, from the environment (PGAQ_PROPAGATION_*, declared in pgaq.settings)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from ..settings import Environment


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
    def from_env(cls, env: Mapping[str, str] | None = None) -> PropagatorSettings:
        e = Environment(env)
        return cls(
            backoff_base=e.number("PGAQ_PROPAGATION_BACKOFF_BASE"),
            lease=e.number("PGAQ_PROPAGATION_LEASE"),
            batch=e.integer("PGAQ_PROPAGATION_BATCH"),
            max_schedules=e.integer("PGAQ_PROPAGATION_MAX_SCHEDULES"),
            remote_timeout=e.number("PGAQ_PROPAGATION_TIMEOUT"),
            safety_poll=e.number("PGAQ_SAFETY_POLL"),
            name=e.text_or("PGAQ_PROPAGATOR_NAME", f"propagator-{os.uname().nodename}-{os.getpid()}"),
            ca_file=e.text("PGAQ_PROPAGATION_CA_FILE"),
        )
