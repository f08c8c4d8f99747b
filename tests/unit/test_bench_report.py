"""The benchmark's closing table: every figure beside its floor and the peers', with ratios."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.report import RESULTS, build_table, summary, with_peers


def _core_enqueue() -> dict[str, Any]:
    return {"benchmark": "1. enqueue 1 msg/txn", "pgaq": 900.0, "floor": 1500.0, "unit": "msg/s",
            "ratio": 0.6, "target": 0.6, "pass": True, "compare_as": "enqueue", "note": ""}


def _peer_rows() -> list[dict[str, Any]]:
    return [
        {"benchmark": "P1. enqueue 20,000 msgs", "pgaq": 800.0, "floor": 2000.0, "unit": "msg/s",
         "ratio": 0.4, "target": "-", "pass": True, "context": True, "compare_as": "enqueue",
         "peers": {"procrastinate": 400.0, "PgQueuer": 1600.0}, "note": ""},
        {"benchmark": "P2. consume 20,000 msgs", "pgaq": 1000.0, "floor": 1250.0, "unit": "msg/s",
         "ratio": 0.8, "target": "-", "pass": True, "context": True, "compare_as": "consume",
         "peers": {"procrastinate": 100.0, "PgQueuer": 2000.0}, "note": ""},
    ]


def _latency_row() -> dict[str, Any]:
    return {"benchmark": "notification arrival (ms p50)", "pgaq": 1.5, "floor": 0.1, "unit": "ms",
            "target": "p50 <= 20", "pass": False, "note": "no peer figure"}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.split(" | ")]


def _row(head: list[str], line: str) -> dict[str, str]:
    cells = _cells(line)
    return dict(zip(head, cells + [""] * (len(head) - len(cells)), strict=True))  # empty notes


def test_with_peers_fills_comparable_rows_from_the_peers_suite_and_leaves_inputs() -> None:
    core = _core_enqueue()
    rows = with_peers([core, *_peer_rows(), _latency_row()])
    assert rows[0]["peers"] == {"procrastinate": 400.0, "PgQueuer": 1600.0}
    assert rows[0]["peers_from"] == "P1"
    # the ratios are those of the peers row, where pgaq did the same work as the peers
    assert rows[0]["peers_ratio"] == {"procrastinate": 2.0, "PgQueuer": 0.5}
    assert "peers" not in core  # the input row is not changed
    assert "peers" not in rows[3]  # nothing comparable: no peers


def test_table_has_a_column_and_a_ratio_for_each_peer() -> None:
    lines = build_table(with_peers([_core_enqueue(), *_peer_rows(), _latency_row()]))
    head = _cells(lines[0])
    assert head[:4] == ["benchmark", "pgaq", "floor", "pgaq/floor"]
    assert head[4:8] == ["procrastinate", "pgaq/procrastinate", "PgQueuer", "pgaq/PgQueuer"]
    assert len(lines) == 2 + 4  # head, rule, one line per row
    core = _row(head, lines[2])
    assert core["pgaq"] == "900 msg/s" and core["floor"] == "1,500 msg/s"
    assert core["pgaq/floor"] == "0.60x"
    assert core["procrastinate"] == "400 msg/s" and core["PgQueuer"] == "1,600 msg/s"
    assert core["pgaq/procrastinate"] == "2.00x" and core["pgaq/PgQueuer"] == "0.50x"
    assert core["result"] == "PASS"
    assert "from P1" in core["notes"]
    p1 = _row(head, lines[3])
    assert p1["pgaq/procrastinate"] == "2.00x" and p1["pgaq/floor"] == "0.40x"
    consume = _row(head, lines[4])
    assert consume["pgaq/procrastinate"] == "10.00x" and consume["pgaq/PgQueuer"] == "0.50x"
    assert consume["result"] == "info"
    latency = _row(head, lines[5])
    assert latency["procrastinate"] == "-" and latency["pgaq/PgQueuer"] == "-"
    assert latency["pgaq/floor"] == "-" and latency["result"] == "FAIL"


def test_table_without_peers_has_no_peer_columns() -> None:
    lines = build_table([_core_enqueue(), _latency_row()])
    assert _cells(lines[0]) == ["benchmark", "pgaq", "floor", "pgaq/floor", "target", "result",
                                "notes"]
    assert summary([_core_enqueue(), _latency_row()]).startswith("SUMMARY: 1 of 2 targets met")


def test_a_peer_that_failed_leaves_dashes() -> None:
    rows = _peer_rows()
    rows[0]["peers"] = {"PgQueuer": 1600.0}
    lines = build_table(rows)
    head = _cells(lines[0])
    first = _row(head, lines[2])
    assert first["procrastinate"] == "-" and first["pgaq/PgQueuer"] == "0.50x"


def test_older_result_files_still_build() -> None:
    """Files written before the peers suite (no peers, no compare_as) print as they are."""
    files = sorted(Path(RESULTS).glob("*.json"))
    assert files
    for f in files:
        rows = json.loads(f.read_text())["results"]
        lines = build_table(with_peers(rows))
        assert len(lines) == len(rows) + 2
