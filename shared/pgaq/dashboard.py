"""The built-in dashboard: `GET /dashboard`, a page whose plain JavaScript draws SVG line
charts (no library, no network beyond this server), and `GET /dashboard/data?range=1h`,
the JSON it polls.

The data are the statistics job's tables (schema `aq_stats`: propagation per schedule,
enqueue/dequeue rates and waits per queue) and live tables (the monitor's queue
snapshots, the notification outbox, DBA_QUEUE_SCHEDULES). Every query is a named `.sql`
file (`dashboard_*`); the range is one of a fixed set and reaches SQL as parameters.

Only AQ administrators see it: HTTP Basic credentials of an agent mapped
(`enable_db_access`) to a database role that is a member of `aq_administrator_role`, or
the admin token (`PGAQ_ADMIN_TOKEN`) as the password of user `admin` (or as a bearer
token). The gateway wires it (`add_routes`, and a `Dashboard` under `DASHBOARD` once the
pool exists).
"""

from __future__ import annotations

import hmac
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import cache
from importlib import resources
from typing import Any

import asyncpg
from aiohttp import web

from .idap.auth import Authenticator, parse_basic
from .queries import load

ADMIN_USER = "admin"
REALM = 'Basic realm="pgaq dashboard", charset="UTF-8"'
PREFIX = "/dashboard"


@dataclass(frozen=True)
class Range:
    span: timedelta
    grain: str  # 'minute' | 'hour': the statistics job's buckets

    @property
    def bucket_seconds(self) -> int:
        return 60 if self.grain == "minute" else 3600


RANGES: dict[str, Range] = {
    "15m": Range(timedelta(minutes=15), "minute"),
    "1h": Range(timedelta(hours=1), "minute"),
    "6h": Range(timedelta(hours=6), "minute"),
    "24h": Range(timedelta(hours=24), "hour"),
    "7d": Range(timedelta(days=7), "hour"),
    "30d": Range(timedelta(days=30), "hour"),
}
DEFAULT_RANGE = "1h"

# the page's files (package data in pgaq/web_static), by the name the page asks for
ASSETS: dict[str, str] = {
    "dashboard.js": "text/javascript",
    "dashboard.css": "text/css",
}
_SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
_NO_STORE = {"Cache-Control": "no-store", **_SECURITY_HEADERS}
_REVALIDATE = {"Cache-Control": "no-cache", **_SECURITY_HEADERS}


@cache
def asset(name: str) -> bytes:
    return resources.files("pgaq").joinpath("web_static", name).read_bytes()


def _ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def _value(v: Any) -> Any:
    """A database value as JSON: times as epoch milliseconds, numerics as floats, and no
    NaN or infinity (which JSON has not)."""
    if isinstance(v, datetime):
        return _ms(v)
    if isinstance(v, Decimal):
        v = float(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _row(r: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _value(v) for k, v in r.items()}


def series(rows: Iterable[Mapping[str, Any]], key: str, label: Callable[[Mapping[str, Any]], str],
           fields: Sequence[str]) -> list[dict[str, Any]]:
    """Rows ordered by (key, bucket) as one column-wise series per key:
    {"id", "label", "t": [epoch ms...], field: [values...]}."""
    out: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for r in rows:
        if current is None or current["id"] != r[key]:
            current = {"id": r[key], "label": label(r), "t": [], **{f: [] for f in fields}}
            out.append(current)
        current["t"].append(_ms(r["bucket"]))
        for f in fields:
            current[f].append(_value(r[f]))
    return out


def _schedule_label(r: Mapping[str, Any]) -> str:
    return f"#{r['schedule_id']} {r['queue_name']} → {r['destination'] or 'AQ$_LOCAL'}"


def _queue_label(r: Mapping[str, Any]) -> str:
    return f"{r['queue_schema']}.{r['queue_name']}"


PROPAGATION_FIELDS = (
    "messages", "bytes", "batches", "failures", "undeliverable", "disabled", "errors",
    "messages_per_s", "bytes_per_s", "ms_per_message", "batch_p50_ms", "batch_p95_ms",
    "batch_p99_ms", "latency_samples", "latency_p50_ms", "latency_p95_ms", "latency_p99_ms",
)
QUEUE_FIELDS = (
    "enqueued", "dequeued", "enqueued_per_s", "dequeued_per_s", "wait_samples",
    "wait_p50_ms", "wait_p95_ms", "wait_p99_ms",
)
DEPTH_FIELDS = ("snapshots", "ready", "ready_max", "waiting", "expired", "oldest_ready_age")


class Dashboard:
    """Authorisation and data for the dashboard of one gateway process."""

    def __init__(self, pool: asyncpg.Pool, auth: Authenticator, admin_token: str | None = None,
                 ttl: float = 30.0) -> None:
        self.pool = pool
        self.auth = auth
        self.admin_token = admin_token or None
        self.ttl = ttl
        self._admins: dict[str, tuple[float, bool]] = {}

    # -- who may look -----------------------------------------------------------------
    def _token_ok(self, presented: str) -> bool:
        return self.admin_token is not None and hmac.compare_digest(
            presented.encode(), self.admin_token.encode())

    async def is_admin(self, agent: str) -> bool:
        """Whether one of the agent's database users is an AQ administrator (cached for
        `ttl` seconds, like the password check)."""
        now = time.monotonic()
        hit = self._admins.get(agent)
        if hit and hit[0] > now:
            return hit[1]
        async with self.pool.acquire() as c:
            ok = bool(await c.fetchval(load("dashboard_is_admin"), agent))
        if len(self._admins) >= 10_000:
            self._admins.clear()
        self._admins[agent] = (now + self.ttl, ok)
        return ok

    async def refuse(self, request: web.Request) -> web.Response | None:
        """None when the request may see the dashboard, else the 401 or 403 to send."""
        header = request.headers.get("Authorization")
        if header and header[:7].lower() == "bearer ":
            if self._token_ok(header[7:].strip()):
                return None
            return _challenge()
        creds = parse_basic(header)
        if creds is None:
            return _challenge()
        user, password = creds
        if user == ADMIN_USER and self._token_ok(password):
            return None
        agent = await self.auth.check(user, password)
        if agent is None:
            return _challenge()
        if not await self.is_admin(agent):
            return web.Response(status=403, text=f"agent {agent} is not an AQ administrator: "
                                "map it (enable_db_access) to a member of aq_administrator_role\n",
                                headers=_NO_STORE)
        return None

    # -- what it shows ----------------------------------------------------------------
    async def collect(self, name: str, rng: Range, now: datetime | None = None) -> dict[str, Any]:
        now = now or datetime.now(UTC)
        step = rng.bucket_seconds
        start = datetime.fromtimestamp((now - rng.span).timestamp() // step * step, UTC)
        args = (rng.grain, rng.span)
        async with self.pool.acquire() as c, c.transaction(isolation="repeatable_read",
                                                           readonly=True):
            prop = await c.fetch(load("dashboard_schedule_series"), *args, float(step))
            queues = await c.fetch(load("dashboard_queue_series"), *args, float(step))
            depth = await c.fetch(load("dashboard_snapshots"), *args)
            notes = await c.fetch(load("dashboard_notification_series"), *args)
            totals = await c.fetch(load("dashboard_notification_totals"))
            schedules = await c.fetch(load("dashboard_schedules"))
            runs = await c.fetch(load("dashboard_last_run"))
            catalog = await c.fetch(load("dashboard_queues"))
        return {
            "range": name,
            "ranges": list(RANGES),
            "grain": rng.grain,
            "bucket_seconds": step,
            "from": _ms(start),
            "to": _ms(now),
            "propagation": series(prop, "schedule_id", _schedule_label, PROPAGATION_FIELDS),
            "queues": series(queues, "queue_id", _queue_label, QUEUE_FIELDS),
            "depth": series(depth, "queue_id", _queue_label, DEPTH_FIELDS),
            "notifications": series(notes, "state", lambda r: r["state"], ("notifications",)),
            "notification_totals": [_row(r) for r in totals],
            "schedules": [_row(r) for r in schedules],
            "stats_runs": [_row(r) for r in runs],
            # what an empty chart needs: retention for history, a schedule for propagation
            "queue_info": [_row(r) for r in catalog],
        }


DASHBOARD = web.AppKey("dashboard", Dashboard)


def _challenge() -> web.Response:
    return web.Response(status=401, text="authentication required\n",
                        headers={"WWW-Authenticate": REALM, **_NO_STORE})


async def page(request: web.Request) -> web.StreamResponse:
    refused = await request.app[DASHBOARD].refuse(request)
    if refused is not None:
        return refused
    return web.Response(body=asset("dashboard.html"), content_type="text/html", charset="utf-8",
                        headers=_REVALIDATE)


async def static(request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    if name not in ASSETS:  # a fixed set: nothing else of the package is reachable
        raise web.HTTPNotFound()
    refused = await request.app[DASHBOARD].refuse(request)
    if refused is not None:
        return refused
    return web.Response(body=asset(name), content_type=ASSETS[name], charset="utf-8",
                        headers=_REVALIDATE)


async def data(request: web.Request) -> web.StreamResponse:
    dashboard = request.app[DASHBOARD]
    refused = await dashboard.refuse(request)
    if refused is not None:
        return refused
    name = request.query.get("range", DEFAULT_RANGE)
    rng = RANGES.get(name)
    if rng is None:
        return web.json_response({"error": f"range must be one of {', '.join(RANGES)}"},
                                 status=400, headers=_NO_STORE)
    return web.json_response(await dashboard.collect(name, rng), headers=_NO_STORE)


async def slash(request: web.Request) -> web.StreamResponse:
    raise web.HTTPMovedPermanently(request.path.rstrip("/"))


def add_routes(app: web.Application, prefix: str = PREFIX) -> None:
    """The page, its files and its data; `app[DASHBOARD]` must be set before serving."""
    app.router.add_get(prefix, page)
    app.router.add_get(f"{prefix}/", slash)
    app.router.add_get(f"{prefix}/data", data)
    app.router.add_get(f"{prefix}/static/{{name}}", static)
