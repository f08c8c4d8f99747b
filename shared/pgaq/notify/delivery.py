"""Delivering one notification: HTTP POST, e-mail through SMTP, or a PostgreSQL procedure.

Each sender raises DeliveryError on failure; `permanent` failures (a 4xx answer, a
refused recipient, a malformed host) are not retried. A host the operator's list refuses
is retried: the list is read again for each attempt and may allow it by then.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any

import aiohttp
import aiosmtplib
import asyncpg
from yarl import URL

from ..queries import load
from .acl import GuardedResolver, HostRules, policy_refusal
from .document import notification_xml
from .model import Notification
from .settings import NotifierSettings

ID_HEADER = "X-Pgaq-Notification-Id"


class DeliveryError(Exception):
    def __init__(self, message: str, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


def _headers(n: Notification) -> dict[str, str]:
    return {ID_HEADER: str(n.id), "X-Pgaq-Notification-Event": n.event,
            "X-Pgaq-Attempt": str(n.attempts), "X-Pgaq-Subscription": n.reg_name}


class HttpSender:
    """POSTs AQXmlNotification (or, for RAW presentation, the payload itself)."""

    def __init__(self, settings: NotifierSettings, rules: Callable[[], HostRules],
                 ssl_context: ssl.SSLContext | None = None) -> None:
        self.settings = settings
        self._rules = rules
        self._ssl = ssl_context
        self._http: aiohttp.ClientSession | None = None
        self._users: dict[aiohttp.ClientSession, int] = {}  # deliveries under way on each
        self._retired: set[aiohttp.ClientSession] = set()  # closed when their last one ends

    def _client(self) -> aiohttp.ClientSession:
        if self._http is None:
            connector = aiohttp.TCPConnector(resolver=GuardedResolver(self._rules),
                                             limit=0, limit_per_host=self.settings.per_destination,
                                             ssl=self._ssl if self._ssl is not None else True)
            self._http = aiohttp.ClientSession(
                connector=connector, cookie_jar=aiohttp.DummyCookieJar(),
                timeout=aiohttp.ClientTimeout(total=self.settings.http_timeout),
                headers={"User-Agent": "pgaq-notifier"})
        return self._http

    async def policy_changed(self) -> None:
        """The host list changed: kept-alive connections and cached name lookups were
        judged by the old one, so later deliveries open a new session (resolved and
        checked anew); the old one closes once its deliveries under way have finished."""
        old, self._http = self._http, None
        if old is None:
            return
        if self._users.get(old, 0) > 0:
            self._retired.add(old)
        else:
            await old.close()

    async def send(self, n: Notification) -> None:
        host = URL(n.url).host or ""
        rules = self._rules()
        malformed = rules.malformed(host)
        if malformed is not None:
            raise DeliveryError(malformed, permanent=True)
        # the list as read for this attempt; a refusal is retried (an operator may allow
        # the host before the last attempt), with the reason naming the policy
        refused = rules.host_refusal(host)
        if refused is not None:
            raise DeliveryError(refused)
        headers = _headers(n)
        if n.presentation == "RAW":
            body = n.payload or b""
            headers["Content-Type"] = "application/octet-stream"
            if n.msgid is not None:
                headers["X-Pgaq-Message-Id"] = n.msgid.hex().upper()
        else:
            body = notification_xml(n)
            headers["Content-Type"] = "text/xml; charset=utf-8"
        http = self._client()
        self._users[http] = self._users.get(http, 0) + 1
        try:
            async with http.post(n.url, data=body, headers=headers, allow_redirects=False) as r:
                await r.read()
                if 200 <= r.status < 300:
                    return
                retry = r.status >= 500 or r.status in (408, 425, 429)
                raise DeliveryError(f"HTTP {r.status} {r.reason or ''}".strip(), permanent=not retry)
        except DeliveryError:
            raise
        except TimeoutError as exc:
            raise DeliveryError(f"no answer within {self.settings.http_timeout:g} s") from exc
        except (aiohttp.ClientError, OSError) as exc:
            # aiohttp wraps the guarded resolver's refusal and drops its text ("[None]"):
            # report the refusal itself (retried like any refusal by the list)
            cause = getattr(exc, "os_error", None)
            for text in (str(cause) if cause is not None else "", str(exc)):
                if policy_refusal(text):
                    raise DeliveryError(text) from exc
            raise DeliveryError(f"{type(exc).__name__}: {exc}") from exc
        finally:
            left = self._users[http] = self._users[http] - 1
            if left <= 0:
                del self._users[http]
                if http in self._retired:
                    self._retired.discard(http)
                    await http.close()

    async def close(self) -> None:
        for http in [*self._retired, *([self._http] if self._http is not None else [])]:
            await http.close()
        self._retired.clear()
        self._http = None


class MailSender:
    """E-mails AQXmlNotification through DBMS_AQELM's SMTP server."""

    def __init__(self, settings: NotifierSettings, pool: asyncpg.Pool) -> None:
        self.settings = settings
        self.pool = pool
        self._cached: tuple[float, asyncpg.Record | None] = (0.0, None)

    async def _smtp(self) -> asyncpg.Record | None:
        at, row = self._cached
        if time.monotonic() - at > 5.0:
            async with self.pool.acquire() as c:
                row = await c.fetchrow(load("notify_mail_settings"))
            self._cached = (time.monotonic(), row)
        return row

    async def send(self, n: Notification) -> None:
        smtp = await self._smtp()
        if smtp is None or not smtp["mailhost"]:
            raise DeliveryError("no mail host: CALL dbms_aqelm.set_mailhost(...)")
        to = n.url.split(":", 1)[1].lstrip("/")
        msg = EmailMessage()
        msg["From"] = smtp["sendfrom"] or "aq@localhost"
        msg["To"] = to
        msg["Subject"] = f"Oracle Streams AQ notification: {n.reg_name}"
        msg["Date"] = formatdate(localtime=False)
        msg["Message-ID"] = f"<{n.id}@pgaq>"  # stable: receivers drop duplicates by it
        for k, v in _headers(n).items():
            msg[k] = v
        msg.set_content(notification_xml(n).decode("utf-8"), subtype="xml")
        limit = self.settings.smtp_timeout
        try:
            # aiosmtplib's timeout is per step; a server answering slowly at every step is
            # held to the same limit for the whole conversation
            await asyncio.wait_for(aiosmtplib.send(
                msg, hostname=smtp["mailhost"], port=smtp["mailport"],
                start_tls=self.settings.smtp_starttls, username=self.settings.smtp_user,
                password=self.settings.smtp_password, timeout=limit,
                cert_bundle=self.settings.smtp_cafile), limit)
        except aiosmtplib.SMTPRecipientsRefused as exc:
            codes = [r.code for r in exc.recipients]
            raise DeliveryError(f"recipient refused: {exc}",
                                permanent=all(c >= 500 for c in codes)) from exc
        except aiosmtplib.SMTPResponseException as exc:
            raise DeliveryError(f"SMTP {exc.code}: {exc.message}", permanent=exc.code >= 500
                                and exc.code not in (554,)) from exc
        except TimeoutError as exc:
            raise DeliveryError(f"the SMTP server did not finish within {limit:g} s") from exc
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise DeliveryError(f"{type(exc).__name__}: {exc}") from exc


class PlsqlSender:
    """Calls the registration's procedure as the registration's owner, on the callback
    login (no privileges of its own) and inside the owner's trampoline, where the role
    cannot be changed: a procedure can do what its owner may, nothing more. The delivery
    is recorded in the procedure's transaction, so a plsql notification runs once."""

    def __init__(self, settings: NotifierSettings, pool: asyncpg.Pool, claimer: str) -> None:
        self.settings = settings
        self.pool = pool
        self.claimer = claimer
        self._callers: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()

    async def _callback_pool(self) -> asyncpg.Pool:
        async with self._opening:
            if self._callers is None:
                kw: dict[str, Any] = {}
                dsn = self.settings.callback_dsn
                if dsn is None:
                    dsn = self.settings.dsn
                    if dsn is None:
                        raise DeliveryError("plsql callbacks need the notifier's PGAQ_DSN "
                                            "(or PGAQ_NOTIFY_CALLBACK_DSN)")
                    async with self.pool.acquire() as c:
                        login = await c.fetchrow(load("notify_callback_login"))
                    assert login is not None
                    kw = {"user": login["rolname"], "password": login["password"]}
                # no named statements: the session is reset (DISCARD ALL) after each call
                self._callers = await asyncpg.create_pool(
                    dsn, min_size=0, max_size=self.settings.plsql_connections,
                    statement_cache_size=0, **kw)
            return self._callers

    async def send(self, n: Notification, now: Callable[[], object]) -> None:
        try:
            async with self.pool.acquire() as c:
                runner = await c.fetchval(load("notify_callback_runner"), n.owner)
            callers = await self._callback_pool()
            async with callers.acquire() as c:
                await self._call(c, n, str(runner), now)
        except DeliveryError:
            raise
        except asyncpg.PostgresError as exc:
            msg = str(exc).split("\n")[0]
            # refused privileges (a SET ROLE in the procedure, a table it may not touch)
            # do not come right by themselves
            permanent = exc.sqlstate == "42501"
            raise DeliveryError(f"{type(exc).__name__}: {msg}", permanent=permanent) from exc
        except (OSError, asyncpg.InterfaceError) as exc:
            raise DeliveryError(f"{type(exc).__name__}: {exc}") from exc

    async def _call(self, c: asyncpg.Connection, n: Notification, runner: str,
                    now: Callable[[], object]) -> None:
        limit = self.settings.plsql_timeout
        pid = c.get_server_pid()
        killed = asyncio.Event()

        async def watchdog() -> None:
            # the procedure may turn statement_timeout off and shrug off the client's cancel
            # (EXCEPTION WHEN query_canceled): past the limit its backend is ended
            await asyncio.sleep(limit + 1.0)
            killed.set()
            async with self.pool.acquire() as admin:
                await admin.execute(load("notify_plsql_terminate"), pid)

        guard = asyncio.create_task(watchdog(), name=f"plsql-watchdog:{n.id}")
        try:
            async with c.transaction():
                await c.execute(load("notify_plsql_timeout"), str(int(limit * 1000)))
                await c.execute(load("notify_plsql_invoke"), runner, n.id, self.claimer, timeout=limit)
                await c.execute(load("notify_plsql_delivered"), n.id, self.claimer, now())
        except (TimeoutError, asyncpg.InterfaceError, asyncpg.PostgresError, OSError) as exc:
            if isinstance(exc, TimeoutError) or killed.is_set():
                raise DeliveryError(f"the procedure did not finish within {limit:g} s") from exc
            raise
        finally:
            guard.cancel()
            await asyncio.gather(guard, return_exceptions=True)
            if not killed.is_set():
                try:
                    await c.execute(load("notify_plsql_reset"))
                except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                    pass  # a broken connection: the pool replaces it

    async def close(self) -> None:
        """Shutdown: a call cut off by the drain may hold its connection; it is not waited for."""
        if self._callers is not None:
            try:
                await asyncio.wait_for(self._callers.close(), 5.0)
            except TimeoutError:
                self._callers.terminate()
