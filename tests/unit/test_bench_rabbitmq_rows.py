"""RabbitMQ's fan-out rows in the peers table (bench/peers_bench.fanout_rows): named
"RabbitMQ fanout N queues", reported missing with the reason, and shown beside a pgaq row
of the same kind (compare_as fanout_publish_N / fanout_drain_N)."""

from __future__ import annotations

import pytest

from bench import peers_bench
from bench.report import build_table, with_peers


def _cells(lines: list[str], row: int) -> dict[str, str]:
    head = [c.strip() for c in lines[0].split(" | ")]
    return dict(zip(head, (c.strip() for c in lines[row].split(" | ")), strict=False))


def test_measured_curve_gives_two_rows_per_size() -> None:
    fig = peers_bench.Figures(900.0, 1800.0, {"fanout": {
        1: {"publish": 700.0, "drain_one": 1900.0, "messages": 2000},
        1000: {"publish": 6.5, "drain_one": 35.0, "messages": 65}}})
    rows = peers_bench.fanout_rows(fig, None, None, 4)
    assert [r["benchmark"].split(":")[0] for r in rows] == [
        "RabbitMQ fanout 1 queues", "RabbitMQ fanout 1 queues",
        "RabbitMQ fanout 1,000 queues", "RabbitMQ fanout 1,000 queues"]
    assert [r["compare_as"] for r in rows] == [
        "fanout_publish_1", "fanout_drain_1", "fanout_publish_1000", "fanout_drain_1000"]
    assert rows[2]["peers"] == {"RabbitMQ": 6.5} and "65 msgs" in rows[2]["benchmark"]
    assert all(r["context"] for r in rows)  # a peer's figure, not a pgaq target


def test_a_pgaq_row_of_the_same_kind_shows_rabbitmq_beside_it() -> None:
    fig = peers_bench.Figures(900.0, 1800.0, {"fanout": {
        1000: {"publish": 6.5, "drain_one": 35.0, "messages": 65}}})
    ours = {"benchmark": "F1. publish, 1,000 subscribers", "pgaq": 13.0, "floor": 100.0,
            "unit": "msg/s", "ratio": 0.13, "target": "-", "pass": True, "context": True,
            "compare_as": "fanout_publish_1000", "note": ""}
    lines = build_table(with_peers([ours, *peers_bench.fanout_rows(fig, None, None, 4)]))
    cells = _cells(lines, 2)
    assert cells["RabbitMQ"] == "6.50 msg/s" and cells["pgaq/RabbitMQ"] == "2.00x"


@pytest.mark.parametrize("missing,error,cell", [("aio-pika not installed", None, "missing"),
                                                (None, "RuntimeError: boom", "FAILED")])
def test_a_missing_or_failed_rabbitmq_shows_in_every_fanout_row(
        missing: str | None, error: str | None, cell: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_RABBITMQ_FANOUT", "1,10")
    rows = peers_bench.fanout_rows(None, missing, error, 4)
    assert len(rows) == 4 and all(r["peers"] == {"RabbitMQ": cell} for r in rows)
    lines = build_table(with_peers(rows))
    for i in range(2, 6):
        assert _cells(lines, i)["RabbitMQ"] == cell
        assert (missing or error or "") in lines[i]
