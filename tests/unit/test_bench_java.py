"""The java suite's rows (bench/java_bench.py): a Java provider that cannot connect is
reported as missing beside ActiveMQ's figures, halves are joined into one figure, and the
private broker's configuration is the one the suite promises. No figure is asserted."""

from __future__ import annotations

import os
from typing import Any

from bench import java_bench as jb
from bench.measure import Result
from bench.report import build_table, summary
from bench.settings import Settings


def _half(msgs: int, seconds: float, **extra: Any) -> dict[str, Any]:
    return {"msgs": msgs, "seconds": seconds, "msg_per_s": msgs / seconds, "client_cpu_s": 0.5,
            "cpu": {"broker": {"cpu_s": 1.0, "cpu_us_per_msg": 0}}, **extra}


def _bench(pgaq_error: str = "") -> jb.JavaBench:
    b = jb.JavaBench("postgresql://postgres@127.0.0.1:5432/bench", Settings())
    b.pgaq_error = pgaq_error
    return b


def test_halves_join_into_sums_and_rates() -> None:
    j = jb.join([_half(1000, 1.0), _half(3000, 1.0, dry=True)])
    assert j["msgs"] == 4000 and j["rate"] == 2000.0
    assert j["client_us"] == 250.0  # 1 s of client CPU for 4,000 messages
    assert j["server_us"] == {"broker": 500.0}
    assert j["dry"] is True


def test_wake_samples_join_into_one_distribution() -> None:
    a = _half(3, 1.0, wake_ms=[-0.5, 1.0, 2.0], wake_from_send_call_p50_ms=1.5)
    b = _half(3, 1.0, wake_ms=[3.0, 4.0, 100.0], wake_from_send_call_p50_ms=2.5)
    j = jb.join([a, b])
    assert j["samples"] == 6 and j["early"] == 1
    assert j["p50"] == 2.5 and j["p99"] == 100.0
    assert j["p50_from_call"] == 2.0


def test_a_missing_provider_is_reported_beside_activemq() -> None:
    b = _bench("pgaq.jms.AQjmsException: JMS-100: not yet")
    amq = jb.join([_half(5000, 1.0), _half(5000, 1.0)])
    floor = jb.Floor(Result(2000, 1.0, []), 100.0, 200.0)
    rows = jb.throughput_rows("JV1", "send", "send 1 msg/txn", {"activemq": amq, "pgaq": None},
                              floor, b, "", "how", "floor how")
    main, vs_floor, cpu = rows
    assert main["pgaq"] == "missing" and main["floor"] == 5000.0 and main["pass"] is False
    assert "not yet" in main["note"]
    assert vs_floor["context"] and vs_floor["floor"] == 2000.0
    assert cpu["context"] and cpu["pgaq"] == "-" and cpu["floor"] == 300.0  # client 100 + broker 200
    wake = jb.wake_rows({"activemq": jb.join([_half(3, 1.0, wake_ms=[0.1, 0.2, 0.3],
                                                     wake_from_send_call_p50_ms=1.0)]),
                         "pgaq": None}, jb.Floor(Result(60, 0, []), 0, 0, 1.0, 2.0), b, "")
    table = "\n".join(build_table(rows + wake))
    assert "missing" in table and "5,000 msg/s" in table
    assert summary(rows + wake).startswith("SUMMARY: 0 of 2 targets met")


def test_a_missed_target_says_where_the_gap_goes() -> None:
    b = _bench()
    amq = jb.join([_half(5000, 1.0), _half(5000, 1.0)])
    ours = jb.join([_half(1000, 1.0), _half(1000, 1.0)])
    ours["server_us"] = {"postgres": ours["server_us"].pop("broker")}
    floor = jb.Floor(Result(2000, 1.0, []), 100.0, 200.0)
    main = jb.throughput_rows("JV2", "consume", "receive", {"activemq": amq, "pgaq": ours},
                              floor, b, "Python pgaq.jms J2 in this run: 1.00 msg/s", "h", "f")[0]
    assert main["ratio"] == 0.2 and main["pass"] is False
    assert "engine floor 0.40x of ActiveMQ, the provider 0.50x of the floor" in main["note"]


def test_the_broker_config_syncs_its_journal_and_listens_on_loopback_only() -> None:
    xml = jb.ACTIVEMQ_XML.format(data="/tmp/x", port=61616)
    assert 'journalDiskSyncStrategy="always"' in xml
    assert xml.count("<transportConnector ") == 1
    assert 'uri="tcp://127.0.0.1:61616"' in xml
    assert 'useJmx="false"' in xml and "jetty" not in xml.lower()


def test_cpu_of_a_process_tree_is_read_from_proc() -> None:
    assert jb.parent_pid(os.getpid()) == os.getppid()
    assert jb.tree_cpu(os.getpid()) >= 0.0
