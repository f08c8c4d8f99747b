"""The Grafana provisioning in deploy/grafana: files present, the dashboard well formed and
bound to the provisioned datasource. (That every panel's SQL runs against the real schema,
as Grafana's read-only role, is tested in tests/e2e/test_compose.py.)"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
GRAFANA = ROOT / "deploy" / "grafana"
DATASOURCES = GRAFANA / "provisioning" / "datasources" / "pgaq.yaml"
PROVIDERS = GRAFANA / "provisioning" / "dashboards" / "pgaq.yaml"
DASHBOARD = GRAFANA / "dashboards" / "pgaq.json"


def panels(board: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for panel in board["panels"]:
        yield panel
        yield from panel.get("panels", [])  # a collapsed row holds its panels


@pytest.fixture(scope="module")
def board() -> dict[str, Any]:
    doc = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


@pytest.fixture(scope="module")
def datasource() -> dict[str, Any]:
    doc = yaml.safe_load(DATASOURCES.read_text(encoding="utf-8"))
    assert doc["apiVersion"] == 1
    [ds] = doc["datasources"]
    return dict(ds)


def test_provisioning_files_exist() -> None:
    for path in (DATASOURCES, PROVIDERS, DASHBOARD):
        assert path.is_file(), path


def test_datasource_is_postgres_read_only_role_without_a_literal_password(datasource: dict[str, Any]) -> None:
    assert datasource["type"] in ("grafana-postgresql-datasource", "postgres")
    assert datasource["uid"] and datasource["isDefault"] is True
    # every connection value comes from the container's environment
    for key in ("url", "user"):
        assert re.fullmatch(r"\$\{?[A-Z_]+\}?", datasource[key]), (key, datasource[key])
    assert re.fullmatch(r"\$\{?[A-Z_]+\}?", datasource["jsonData"]["database"])
    # and the password from a secret file, never written here
    assert datasource["secureJsonData"]["password"] == "$__file{/run/secrets/grafana_db_password}"
    assert "password" not in datasource and "password" not in datasource["jsonData"]


def test_dashboard_provider_points_at_the_dashboards() -> None:
    doc = yaml.safe_load(PROVIDERS.read_text(encoding="utf-8"))
    [provider] = doc["providers"]
    assert provider["type"] == "file"
    assert provider["options"]["path"] == "/etc/grafana/dashboards/pgaq"  # docker-compose.yml mounts it there


def test_dashboard_is_well_formed(board: dict[str, Any], datasource: dict[str, Any]) -> None:
    assert board["uid"] and board["title"] and board["schemaVersion"] >= 36
    ids = [p["id"] for p in panels(board)]
    assert len(ids) == len(set(ids)), "panel ids must be unique"
    grain = {v["name"]: v for v in board["templating"]["list"]}["grain"]
    assert {o["value"] for o in grain["options"]} == {"minute", "hour"}  # the job's two grains
    queries = 0
    for panel in panels(board):
        pos = panel["gridPos"]
        assert 0 <= pos["x"] and pos["x"] + pos["w"] <= 24, panel["title"]
        if panel["type"] == "row":
            continue
        assert panel["datasource"]["uid"] == datasource["uid"], panel["title"]
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            assert target["datasource"]["uid"] == datasource["uid"]
            assert target["rawQuery"] is True and target["rawSql"].strip()
            assert target["format"] in ("time_series", "table")
            if target["format"] == "time_series":
                # Grafana's long format: a time column first, a `metric` label, a `value`
                sql = target["rawSql"]
                assert re.match(r'SELECT\s+(\S+ AS "time"|\$__timeGroupAlias\(|"time")', sql), panel["title"]
                assert "AS metric" in sql and "AS value" in sql, panel["title"]
            queries += 1
    assert queries >= 12


def test_dashboard_covers_the_issue_scope(board: dict[str, Any]) -> None:
    """Propagation throughput and failures per schedule, time per message, queue depth and
    age, enqueue/dequeue rates and waits, notification outcomes."""
    sql = "\n".join(t["rawSql"] for p in panels(board) for t in p.get("targets", []))
    for needle in ("aq_stats.schedule_series", "aq_stats.schedule_totals", "aq_stats.queue_series",
                   "aq_stats.runs", "aq.queue_snapshots", "aq.dba_queue_schedules",
                   "pgaq_grafana.notification_outcomes", "pgaq_grafana.notification_states",
                   "messages /", "bytes /", "failures", "seconds * 1000 / messages",
                   "latency_p95_ms", "latency_p99_ms", "wait_p95_ms", "oldest_ready_age",
                   "enqueued", "dequeued"):
        assert needle in sql, needle
