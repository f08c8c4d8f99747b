"""The notifier's settings, from the environment (PGAQ_NOTIFY_*, PGAQ_SMTP_*, declared in pgaq.settings)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from ..settings import Environment


@dataclass(frozen=True)
class NotifierSettings:
    max_attempts: int = 10  # then the notification is FAILED, with its last error
    backoff_base: float = 1.0  # seconds before the 2nd attempt; doubles each time
    backoff_max: float = 600.0
    http_timeout: float = 10.0  # per attempt: connect, send, answer
    smtp_timeout: float = 30.0
    plsql_timeout: float = 30.0
    per_destination: int = 16  # concurrent HTTP deliveries to one host:port
    smtp_connections: int = 4  # concurrent deliveries to the SMTP server
    plsql_per_destination: int = 2  # concurrent calls of one procedure
    plsql_connections: int = 8  # the callback login's connections, all procedures together
    batch: int = 200  # notifications claimed at a time
    safety_poll: float = 5.0  # a poll in case a NOTIFY was missed
    keep_delivered: float = 3600.0  # delivered rows stay visible this long (dba_aq_notifications)
    keep_failed: float = 7 * 86400.0  # and failed ones this long
    smtp_starttls: bool | None = None  # None: when the server offers it; True: required; False: never
    smtp_cafile: str | None = None  # CA bundle that signs the SMTP server's certificate
    smtp_user: str | None = None
    smtp_password: str | None = None
    name: str = "notifier"
    dsn: str | None = None  # the notifier's own database; callbacks log in there as aq.callback_login()
    callback_dsn: str | None = None  # or a login of the operator's (a member of aq_callback_runner)

    lease_seconds: float | None = None  # None: derived from the timeouts

    @property
    def lease(self) -> float:
        """How long a claim holds: longer than any delivery may take, so only a dead
        notifier's claims are taken over."""
        longest = max(self.http_timeout, self.smtp_timeout, self.plsql_timeout)
        if self.lease_seconds is not None:
            return max(self.lease_seconds, 2 * longest)
        return 3 * longest + 30.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> NotifierSettings:
        e = Environment(env)
        return cls(
            max_attempts=e.integer("PGAQ_NOTIFY_MAX_ATTEMPTS"),
            backoff_base=e.number("PGAQ_NOTIFY_BACKOFF_BASE"),
            backoff_max=e.number("PGAQ_NOTIFY_BACKOFF_MAX"),
            http_timeout=e.number("PGAQ_NOTIFY_HTTP_TIMEOUT"),
            smtp_timeout=e.number("PGAQ_NOTIFY_SMTP_TIMEOUT"),
            plsql_timeout=e.number("PGAQ_NOTIFY_PLSQL_TIMEOUT"),
            per_destination=e.integer("PGAQ_NOTIFY_PER_DESTINATION"),
            smtp_connections=e.integer("PGAQ_NOTIFY_SMTP_CONNECTIONS"),
            plsql_per_destination=e.integer("PGAQ_NOTIFY_PLSQL_PER_DESTINATION"),
            plsql_connections=e.integer("PGAQ_NOTIFY_PLSQL_CONNECTIONS"),
            batch=e.integer("PGAQ_NOTIFY_BATCH"),
            safety_poll=e.number("PGAQ_SAFETY_POLL"),
            keep_delivered=e.number("PGAQ_NOTIFY_KEEP_DELIVERED"),
            keep_failed=e.number("PGAQ_NOTIFY_KEEP_FAILED"),
            smtp_starttls=e.maybe_flag("PGAQ_SMTP_STARTTLS"),
            smtp_cafile=e.text("PGAQ_SMTP_CAFILE"),
            smtp_user=e.text("PGAQ_SMTP_USER"),
            smtp_password=e.text("PGAQ_SMTP_PASSWORD"),
            lease_seconds=e.maybe_number("PGAQ_NOTIFY_LEASE"),
            dsn=e.text("PGAQ_DSN"),
            callback_dsn=e.text("PGAQ_NOTIFY_CALLBACK_DSN"),
            name=e.text_or("PGAQ_NOTIFIER_NAME", f"notifier-{os.uname().nodename}-{os.getpid()}"),
        )
