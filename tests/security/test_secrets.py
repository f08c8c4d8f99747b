"""Credentials never appear in logs, error messages, SOAP faults, or anything a role
that is not an AQ administrator can read: agent passwords and Basic headers (gateway),
database link passwords (propagator, link views), SMTP passwords and credentials in
notification URLs (notifier). Logs are captured from every logger at DEBUG, formatted
as the services format them (with tracebacks)."""

from __future__ import annotations

import asyncio
import base64
import logging

import aiohttp
import asyncpg
import pytest
from pgaq import Session
from pgaq.embedded import free_port
from pgaq.logs import LineFormatter

from tests.integration.helpers import make_queue
from tests.integration.test_notifier import Start as NotifierStart
from tests.integration.test_notifier import (  # noqa: F401  (start_notifier: the fixture)
    register,
    start_notifier,
)
from tests.integration.test_propagation import (  # noqa: F401  (start_propagator: the fixture)
    Start,
    start_propagator,
)

from .support import Site, as_role, basic, send_raw

AGENT_PW = "alice-pw-7Qz"
WRONG_PW = "Wr0ng-Guess-91x"
LINK_PW = "Link-Secret-5Hv"
URL_PW = "Url-Secret-8Jm"
QUERY_PW = "Query-Secret-2Lp"
SMTP_PW = "Smtp-Secret-6Nb"
NOTIFY_PW = "Notify-Secret-3Cq"
SECRETS = (AGENT_PW, WRONG_PW, LINK_PW, URL_PW, QUERY_PW, SMTP_PW, NOTIFY_PW)


def leaks(text: str) -> list[str]:
    """The secrets (or their Basic encodings) found in `text`."""
    found = [s for s in SECRETS if s in text]
    for user, pw in (("ALICE", AGENT_PW), ("ALICE", WRONG_PW), ("PROP", LINK_PW)):
        if base64.b64encode(f"{user}:{pw}".encode()).decode() in text:
            found.append(f"Basic {user}")
    return found


class FinalFailures(logging.Handler):
    """Sets `done` once `n` notifications are logged as failed for good, the notifier's
    last line about each: what the log assertions must wait for."""

    def __init__(self, n: int) -> None:
        super().__init__(logging.DEBUG)
        self.left = n
        self.done = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if "failed for good" in record.getMessage():
            self.left -= 1
            if self.left <= 0:
                self.done.set()


def logged(caplog: pytest.LogCaptureFixture) -> str:
    """Every captured line but aiohttp's own access log, which the test gateway keeps and
    the service turns off (it logs query strings; pgaq.gateway.access does not)."""
    fmt = LineFormatter()
    return "\n".join(fmt.format(r) for r in caplog.records if r.name != "aiohttp.access")


async def test_gateway_logs_and_faults(site: Site, conn: asyncpg.Connection,
                                       caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    bodies = []
    async with aiohttp.ClientSession() as http:
        for auth in (basic("ALICE", AGENT_PW), basic("ALICE", WRONG_PW), basic("NOBODY", WRONG_PW),
                     basic("ALICE' --", WRONG_PW), basic("ALICE\x00", AGENT_PW),
                     "Basic " + base64.b64encode(f"ALICE:{WRONG_PW}".encode()).decode() + "!!"):
            for doc in (send_raw("A.Q"), send_raw("B.Q"), send_raw("NO.SUCH"), b"<bad", b""):
                async with http.post(site.url, data=doc, headers={
                        "Content-Type": "text/xml", "Authorization": auth,
                        "Cookie": f"JSESSIONID={WRONG_PW}"}) as r:
                    bodies.append(await r.text())
        async with http.get(site.base + "/metrics") as r:
            bodies.append(await r.text())
    assert leaks("\n".join(bodies)) == []
    assert leaks(logged(caplog)) == []


async def test_sql_errors_do_not_echo_passwords(conn: asyncpg.Connection) -> None:
    """Refused calls that carry a password: the message names the problem, not the secret
    (PostgreSQL also writes error messages to its own log)."""
    calls = [
        ("CALL dbms_aqadm.create_aq_agent('bad name!', enable_http => true, password => $1)", AGENT_PW),
        ("CALL dbms_aqadm.alter_aq_agent('NOBODY', password => $1)", AGENT_PW),
        ("CALL aq.create_database_link('bad name!', 'postgresql://h/db', 'u', $1)", LINK_PW),
        ("CALL aq.create_database_link('l1', $1)", f"ftp://u:{URL_PW}@h/db"),
        ("CALL aq.create_database_link('l1', $1)", f"postgresql://h/db?user=u&password={QUERY_PW} x"),
        ("CALL aq.create_database_link('l1', $1)", f"postgresql://u:{URL_PW}@h/db x"),
        ("CALL aq.create_database_link('l1', $1)", f"https://u:{URL_PW}@h/x\ty"),
    ]
    for sql, arg in calls:
        with pytest.raises(asyncpg.PostgresError) as err:
            await conn.execute(sql, arg)
        text = f"{err.value} {getattr(err.value, 'detail', '')} {getattr(err.value, 'hint', '')}"
        assert "ORA-" in text and leaks(text) == [], (sql, text)


async def test_nothing_a_plain_role_can_read_holds_a_credential(conn: asyncpg.Connection,
                                                                site: Site, db_dsn: str) -> None:
    """Links with passwords in every place a URL can carry one; then a role that is no
    administrator reads every view and table it may: no secret anywhere but in its own
    registration's URL."""
    await conn.execute("CALL aq.create_database_link('pg1', $1, 'u', $2)",
                       f"postgresql://u:{URL_PW}@127.0.0.1:1/db?password={QUERY_PW}", LINK_PW)
    await conn.execute("CALL aq.create_database_link('pg2', $1)",
                       f"postgres://127.0.0.1:1/db?sslpassword={QUERY_PW}&user=x&password={QUERY_PW}")
    await conn.execute("CALL aq.create_database_link('web1', $1, 'PROP', $2)",
                       f"http://PROP:{URL_PW}@127.0.0.1:1/aqserv/servlet?password={QUERY_PW}", LINK_PW)
    await conn.execute("CALL aq.allow_notification_host('127.0.0.1')")
    await make_queue(conn, "a.n", "a.nt")
    await conn.execute(f'GRANT USAGE ON SCHEMA a TO "{site.role_b}"')
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 'a.n', $1)", site.role_b)
    bob = await as_role(db_dsn, site.role_b)
    try:
        with pytest.raises(asyncpg.PostgresError) as err:  # credentials in a notify URL: refused
            await bob.fetchval("SELECT aq.register('a.n', NULL, $1)", f"http://u:{NOTIFY_PW}@127.0.0.1:1/hook")
        assert "ORA-24940" in str(err.value) and leaks(str(err.value)) == []
        await bob.fetchval("SELECT aq.register('a.n', NULL, $1)", f"http://127.0.0.1:1/hook?token={NOTIFY_PW}")
        readable = await bob.fetch("""
            SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'v', 'm', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
              AND n.nspname NOT LIKE 'pg_toast%' AND has_table_privilege(c.oid, 'SELECT')""")
        seen = []
        for r in readable:
            try:
                rows = await bob.fetch(f'SELECT * FROM "{r["nspname"]}"."{r["relname"]}" LIMIT 1000')
            except asyncpg.PostgresError:
                continue  # e.g. a view over what row security hides from this role
            text = "\n".join(str(tuple(row)) for row in rows)
            found = [s for s in leaks(text) if s != NOTIFY_PW]  # bob's own URL is his to see
            if found:
                seen.append((f'{r["nspname"]}.{r["relname"]}', found))
        assert seen == []
    finally:
        await bob.close()
    # other roles do not see bob's registration URL either
    alice = await as_role(db_dsn, site.role_a)
    try:
        for view in ("dba_subscr_registrations", "user_subscr_registrations", "dba_aq_notifications"):
            try:
                rows = await alice.fetch(f"SELECT * FROM {view}")
            except asyncpg.PostgresError:
                continue
            assert NOTIFY_PW not in "\n".join(map(str, rows)), view
    finally:
        await alice.close()


async def test_propagator_failures_hide_link_credentials(
        conn: asyncpg.Connection, site: Site, start_propagator: Start,  # noqa: F811
        caplog: pytest.LogCaptureFixture) -> None:
    """Links whose remote refuses (a gateway answering 401, a closed port): the failure
    is logged and recorded in dba_queue_schedules without the link's credentials."""
    caplog.set_level(logging.DEBUG)
    await make_queue(conn, "a.out", "a.out_t", multiple=True)
    closed = free_port()
    links = {
        "gw": (f"{site.url.replace('http://', f'http://PROP:{URL_PW}@')}?password={QUERY_PW}", "PROP", LINK_PW),
        "pgx": (f"postgresql://u:{URL_PW}@127.0.0.1:{closed}/db?password={QUERY_PW}", "u", LINK_PW),
        "webx": (f"http://PROP:{URL_PW}@127.0.0.1:{closed}/aqserv/servlet", "PROP", LINK_PW),
    }
    for name, (url, user, pw) in links.items():
        await conn.execute("CALL aq.create_database_link($1, $2, $3, $4)", name, url, user, pw)
        await conn.execute("CALL dbms_aqadm.add_subscriber('a.out', sys.aq$_agent(NULL, $1, 0))", f"a.q@{name}")
        await conn.execute("CALL dbms_aqadm.schedule_propagation('a.out', $1, latency => 0)", name)
    await Session(conn).enqueue("a.out", b"x")
    running = await start_propagator()
    failed: set[int] = set()
    while len(failed) < len(links):  # each schedule's first problem, whatever its kind
        sid, _what, _ = await asyncio.wait_for(running.problems.get(), 20)
        failed.add(sid)
    errors = await conn.fetch("SELECT last_error_msg FROM aq.schedules")
    text = "\n".join(str(r["last_error_msg"]) for r in errors)
    assert leaks(text) == [], text
    views = await conn.fetch("SELECT * FROM dba_queue_schedules")
    assert leaks("\n".join(map(str, views))) == []
    links_seen = await conn.fetch("SELECT url FROM aq.dba_db_links")
    assert leaks("\n".join(r["url"] for r in links_seen)) == []
    assert leaks(logged(caplog)) == []


async def test_notifier_hides_smtp_and_url_credentials(
        conn: asyncpg.Connection, start_notifier: NotifierStart,  # noqa: F811
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    closed = free_port()
    await make_queue(conn, "s.q")
    await conn.execute("CALL dbms_aqelm.set_mailhost('127.0.0.1')")
    await conn.execute("CALL dbms_aqelm.set_mailport($1)", closed)
    await conn.execute("CALL aq.allow_notification_host('127.0.0.1')")
    await register(conn, "s.q", None, "mailto:ops@example.com")
    await register(conn, "s.q", None, f"http://127.0.0.1:{closed}/x?token={NOTIFY_PW}")
    final = FinalFailures(2)
    notifier_log = logging.getLogger("pgaq.notifier")
    notifier_log.addHandler(final)
    try:
        running = await start_notifier(max_attempts=1, smtp_user="aq", smtp_password=SMTP_PW)
        await Session(conn).enqueue("s.q", b"1")
        outcomes = [await running.outcome() for _ in range(2)]
        assert {o[1] for o in outcomes} == {"FAILED"}, outcomes
        assert leaks("\n".join(str(o[2]) for o in outcomes)) == []
        rows = await conn.fetch("SELECT * FROM dba_aq_notifications")
        errors = "\n".join(str(r.get("last_error")) for r in rows)
        assert leaks(errors) == [], errors
        await asyncio.wait_for(final.done.wait(), 10)  # the last line about each is logged
    finally:
        notifier_log.removeHandler(final)
    assert leaks(logged(caplog)) == []
