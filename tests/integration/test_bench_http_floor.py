"""`make bench`'s HTTP floor for the gateway (bench/http_floor.py): worker processes on one
port, each answered request one committed INSERT, driven by the gateway suite's client."""

from __future__ import annotations

import asyncpg
import pytest

from bench import gateway_bench

SETUP = f"""
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{gateway_bench.ROLE}') THEN
    CREATE ROLE {gateway_bench.ROLE} NOLOGIN;
  END IF;
END $$;
CREATE SCHEMA gw AUTHORIZATION {gateway_bench.ROLE};
CREATE TABLE gw.floor_ins (id bigserial PRIMARY KEY, q_name text NOT NULL,
    priority int NOT NULL, enq_time timestamptz NOT NULL DEFAULT now(), payload bytea,
    inserted_by name NOT NULL DEFAULT current_user);
ALTER TABLE gw.floor_ins OWNER TO {gateway_bench.ROLE};
"""


@pytest.mark.timeout(120)
async def test_every_answered_request_committed_one_row(db_dsn: str) -> None:
    admin = await asyncpg.connect(db_dsn)
    try:
        await admin.execute(SETUP)
        procs, url = await gateway_bench.start_http_floor(db_dsn, 2)
        try:
            assert all(p.returncode is None for p in procs)
            result = await gateway_bench.http_loop(url, gateway_bench.SEND, 0.5, 4)
        finally:
            await gateway_bench.stop_all(procs)
        assert all(p.returncode is not None for p in procs)
        rows = await admin.fetchval("SELECT count(*) FROM gw.floor_ins")
        users = await admin.fetchval("SELECT array_agg(DISTINCT inserted_by) FROM gw.floor_ins")
    finally:
        await admin.close()
    assert result.ops > 0 and rows == result.ops, (result.ops, rows)
    assert users == [gateway_bench.ROLE]  # as the agent's ordinary role, like the gateway
