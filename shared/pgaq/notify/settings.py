"""The notifier's settings, from the environment (PGAQ_NOTIFY_*, PGAQ_SMTP_*)."""

from __future__ import annotations

import os
from dataclasses import dataclass


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
    def from_env(cls, env: dict[str, str] | None = None) -> NotifierSettings:
        e = dict(os.environ if env is None else env)
        return cls(
            max_attempts=int(e.get("PGAQ_NOTIFY_MAX_ATTEMPTS", "10")),
            backoff_base=float(e.get("PGAQ_NOTIFY_BACKOFF_BASE", "1")),
            backoff_max=float(e.get("PGAQ_NOTIFY_BACKOFF_MAX", "600")),
            http_timeout=float(e.get("PGAQ_NOTIFY_HTTP_TIMEOUT", "10")),
            smtp_timeout=float(e.get("PGAQ_NOTIFY_SMTP_TIMEOUT", "30")),
            plsql_timeout=float(e.get("PGAQ_NOTIFY_PLSQL_TIMEOUT", "30")),
            per_destination=int(e.get("PGAQ_NOTIFY_PER_DESTINATION", "16")),
            smtp_connections=int(e.get("PGAQ_NOTIFY_SMTP_CONNECTIONS", "4")),
            plsql_per_destination=int(e.get("PGAQ_NOTIFY_PLSQL_PER_DESTINATION", "2")),
            plsql_connections=int(e.get("PGAQ_NOTIFY_PLSQL_CONNECTIONS", "8")),
            batch=int(e.get("PGAQ_NOTIFY_BATCH", "200")),
            safety_poll=float(e.get("PGAQ_SAFETY_POLL", "5")),
            keep_delivered=float(e.get("PGAQ_NOTIFY_KEEP_DELIVERED", "3600")),
            keep_failed=float(e.get("PGAQ_NOTIFY_KEEP_FAILED", str(7 * 86400))),
            smtp_starttls=_tristate(e.get("PGAQ_SMTP_STARTTLS", "auto")),
            smtp_cafile=e.get("PGAQ_SMTP_CAFILE") or None,
            smtp_user=e.get("PGAQ_SMTP_USER") or None,
            smtp_password=e.get("PGAQ_SMTP_PASSWORD") or None,
            lease_seconds=float(e["PGAQ_NOTIFY_LEASE"]) if e.get("PGAQ_NOTIFY_LEASE") else None,
            dsn=e.get("PGAQ_DSN") or None,
            callback_dsn=e.get("PGAQ_NOTIFY_CALLBACK_DSN") or None,
            name=e.get("PGAQ_NOTIFIER_NAME") or f"notifier-{os.uname().nodename}-{os.getpid()}",
        )


def _tristate(value: str) -> bool | None:
    v = value.strip().lower()
    if v in ("", "auto"):
        return None
    return v in ("1", "true", "yes", "on")
