"""Set-up shared by the security suite: two agents on two roles, each owning one queue,
a canary table an injection would have to touch, and a gateway on loopback."""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass

import asyncpg

from tests.integration.gateway_support import envelope, op

ADMIN_TOKEN = "tok-Adm1n-9f3c2e"


@dataclass
class Site:
    url: str  # the servlet's URL
    base: str  # scheme://host:port
    role_a: str
    role_b: str


def basic(user: str | bytes, password: str | bytes) -> str:
    u = user.encode() if isinstance(user, str) else user
    p = password.encode() if isinstance(password, str) else password
    return "Basic " + base64.b64encode(u + b":" + p).decode()


def send_raw(queue: str, hex_payload: str = "0A", commit: bool = True) -> bytes:
    tail = "<AQXmlCommit/>" if commit else ""
    return envelope(op("AQXmlSend",
        f"<producer_options><destination>{queue}</destination></producer_options>"
        "<message_set><message><message_header><sender_id><agent_name>x</agent_name>"
        f"</sender_id></message_header><message_payload><RAW>{hex_payload}</RAW>"
        f"</message_payload></message></message_set>{tail}"))


def receive(queue: str, commit: bool = True) -> bytes:
    tail = "<AQXmlCommit/>" if commit else ""
    return envelope(op("AQXmlReceive",
        f"<consumer_options><destination>{queue}</destination><wait_time>0</wait_time>"
        f"</consumer_options>{tail}"))


async def make_role(conn: asyncpg.Connection, base: str, login: bool = False) -> str:
    role = f"{base}_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{role}" {"LOGIN" if login else "NOLOGIN"}')
    return role


async def drop_role(conn: asyncpg.Connection, role: str) -> None:
    await conn.execute(f'DROP OWNED BY "{role}" CASCADE')
    await conn.execute(f'DROP ROLE IF EXISTS "{role}"')


async def make_agent(conn: asyncpg.Connection, agent: str, password: str, role: str,
                     enable_http: bool = True) -> None:
    await conn.execute(
        "CALL dbms_aqadm.create_aq_agent(agent_name => $1, enable_http => $2, password => $3)",
        agent, enable_http, password)
    await conn.execute("CALL dbms_aqadm.enable_db_access(agent_name => $1, db_username => $2)",
                       agent, role)


async def two_tenants(conn: asyncpg.Connection) -> tuple[str, str]:
    """Roles A and B, each owning schema a / b with a RAW queue; agents ALICE and BOB
    mapped to them; and the canary table public.canary with one row."""
    role_a = await make_role(conn, "ra", login=True)
    role_b = await make_role(conn, "rb", login=True)
    for schema, role in (("a", role_a), ("b", role_b)):
        await conn.execute(f'CREATE SCHEMA {schema} AUTHORIZATION "{role}"')
        await conn.execute("CALL dbms_aqadm.create_queue_table($1, 'RAW')", f"{schema}.qt")
        await conn.execute("CALL dbms_aqadm.create_queue($1, $2)", f"{schema}.q", f"{schema}.qt")
        await conn.execute("CALL dbms_aqadm.start_queue($1)", f"{schema}.q")
    await make_agent(conn, "ALICE", "alice-pw-7Qz", role_a)
    await make_agent(conn, "BOB", "bob-pw-4Kx", role_b)
    await conn.execute("CREATE TABLE public.canary (v text); INSERT INTO public.canary VALUES ('alive')")
    return role_a, role_b


async def catalog_snapshot(conn: asyncpg.Connection) -> tuple[int, int, int, list[str]]:
    """Counts of relations, functions and roles, and the canary's rows: an injection that
    created or dropped anything changes one of them."""
    rels = await conn.fetchval("SELECT count(*) FROM pg_class")
    procs = await conn.fetchval("SELECT count(*) FROM pg_proc")
    roles = await conn.fetchval("SELECT count(*) FROM pg_roles")
    canary = [r["v"] for r in await conn.fetch("SELECT v FROM public.canary")]
    return rels, procs, roles, canary


CATALOG = ("agent_db_access", "agents", "callback_login", "db_links", "directory",
           "notification_hosts", "notification_settings", "notifications", "queue_privileges",
           "queue_tables", "queues", "registrations", "schedules", "subscribers",
           "transformations")


async def catalog_digest(conn: asyncpg.Connection) -> dict[str, str]:
    """Every catalog table's content as one digest each (read as the superuser): what a
    refused call or write must leave as it was."""
    out = {}
    for table in CATALOG:
        out[table] = await conn.fetchval(
            f"SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM aq.{table} t")
    return out


async def as_role(dsn: str, role: str) -> asyncpg.Connection:
    return await asyncpg.connect(dsn.replace("postgres@", f"{role}@"))
