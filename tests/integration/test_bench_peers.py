"""`make bench`'s peer adapters (bench/peers_bench.py, bench/node/peer.js) still drive their
peers: each runs on 200 messages against the test cluster. A peer whose dependency is
not installed here (the `bench` extra, bench/node's npm packages, PgQue's SQL) is
skipped with the reason; `make test` does not install them, `make bench` does."""

from __future__ import annotations

import asyncpg
import pytest

from bench import peers_bench
from bench.rabbitmq_peer import NotAvailable
from bench.report import build_table, with_peers

N = 200
BATCH = 50


def _needs(peer: str) -> None:
    """Skip unless `peer` can run on this machine."""
    try:
        if peer == "procrastinate":
            import procrastinate  # noqa: F401
        elif peer == "PgQueuer":
            import pgqueuer  # noqa: F401
        elif peer == "pgmq":
            peers_bench.pgmq_install_sql()
        elif peer == "PgQue":
            peers_bench.pgque_sql()
        elif peer == "RabbitMQ":
            from bench import rabbitmq_peer

            rabbitmq_peer.needs()
        elif peer in ("graphile-worker", "pg-boss"):
            why = peers_bench.node_missing(peer)
            if why is not None:
                pytest.skip(f"{peer}: {why}")
    except (ImportError, peers_bench.Missing, NotAvailable) as e:
        pytest.skip(f"{peer} not installed here: {e}")


async def _measure(db_dsn: str, name: str) -> peers_bench.Figures:
    admin = await asyncpg.connect(db_dsn)
    try:
        await admin.execute(peers_bench.SCHEMA)
    finally:
        await admin.close()
    figs, missing, errors = await peers_bench.measure(db_dsn, N, 4, BATCH, only=(name,))
    assert not missing and not errors, (missing, errors)
    return figs[name]


@pytest.mark.parametrize("name", ["floor", "floor batch", "pgaq", "pgaq array"])
async def test_pgaq_and_its_floors_run(db_dsn: str, name: str) -> None:
    fig = await _measure(db_dsn, name)
    assert fig.consume > 0
    if name in ("floor", "pgaq"):
        assert fig.enqueue > 0
    if name == "pgaq array":
        assert fig.detail["batch_size"] == BATCH and fig.detail["calls"] >= N // BATCH


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name", peers_bench.PEERS)
async def test_peer_adapter_enqueues_and_consumes_every_message(
        db_dsn: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _needs(name)
    # RabbitMQ's fan-out curve, kept short: 1 and 10 queues, 50 messages
    monkeypatch.setenv("BENCH_RABBITMQ_FANOUT", "1,10")
    monkeypatch.setenv("BENCH_FANOUT_N", "50")
    fig = await _measure(db_dsn, name)  # each adapter checks that all N were acknowledged
    assert fig.enqueue > 0 and fig.consume > 0
    if name in ("graphile-worker", "pg-boss"):
        assert fig.detail["consume"]["n"] == N and fig.detail["version"]
    if name == "RabbitMQ":
        assert fig.detail["version"].startswith("RabbitMQ 3.")
        fan = fig.detail["fanout"]
        assert sorted(fan) == [1, 10] and all(f["messages"] == 50 for f in fan.values())
        assert all(f["publish"] > 0 and f["drain_one"] > 0 for f in fan.values())
        rows = peers_bench.fanout_rows(fig, None, None, 4)
        assert [r["compare_as"] for r in rows] == [
            "fanout_publish_1", "fanout_drain_1", "fanout_publish_10", "fanout_drain_10"]
        assert rows[2]["benchmark"].startswith("RabbitMQ fanout 10 queues")


def test_pgque_sql_is_found_beside_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without BENCH_PGQUE_SQL the suite installs ../shared/peers/pgque/pgque.sql when it
    is there; BENCH_PGQUE_SQL still overrides it."""
    _needs("PgQue")
    monkeypatch.delenv("BENCH_PGQUE_SQL", raising=False)
    if not peers_bench.PGQUE_SQL.is_file():
        pytest.skip(f"{peers_bench.PGQUE_SQL} is not on this machine")
    assert peers_bench.pgque_sql() == str(peers_bench.PGQUE_SQL)
    monkeypatch.setenv("BENCH_PGQUE_SQL", "/nonexistent/pgque.sql")
    with pytest.raises(peers_bench.Missing, match=r"/nonexistent/pgque\.sql"):
        peers_bench.pgque_sql()


async def test_a_missing_peer_is_reported_not_skipped(db_dsn: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A peer that cannot be installed shows as `missing` in the table, with its reason."""
    monkeypatch.setenv("BENCH_PGQUE_SQL", "/nonexistent/pgque.sql")
    figs, missing, errors = await peers_bench.measure(db_dsn, N, 4, BATCH, only=("PgQue",))
    assert not figs and not errors and "PgQue" in missing
    row = peers_bench.peer_row("P3. consume", "consume_batch", 100.0, 200.0, {"PgQue": "missing"},
                           f"PgQue missing: {missing['PgQue']}")
    lines = build_table(with_peers([row]))
    head = [c.strip() for c in lines[0].split(" | ")]
    cells = [c.strip() for c in lines[2].split(" | ")]
    assert cells[head.index("PgQue")] == "missing" and cells[head.index("pgaq/PgQue")] == "-"
    assert missing["PgQue"] and missing["PgQue"] in lines[2]  # the reason, whichever it is
    if "not installed" not in missing["PgQue"]:
        assert "pgque.sql" in missing["PgQue"]
