"""The docker compose deployment, validated without a Docker engine.

- docker-compose.yml passes `docker-compose config` (Debian's docker-compose, which
  `make test` installs), and each pgaq container runs the module `pgaq up` runs for it;
- restart policies, health checks, start order, no secret in the file or the images;
- the image's entrypoint (secrets from files) and health check, run for real;
- every SQL query of the Grafana dashboard runs against a migrated database as the
  read-only role the deployment creates for Grafana, with Grafana's macros expanded as
  Grafana expands them, and returns the seeded data.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest
import yaml
from pgaq.cli import SERVICES, plan_services
from pgaq.embedded import free_port
from pgaq.stats.settings import jdbc_target

from tests.integration.helpers import make_queue, subscribe

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "pgaq.json"
READER_SQL = ROOT / "deploy" / "postgres" / "grafana-reader.sql"
SECRET_NAME = re.compile(r"PASSWORD|TOKEN|SECRET|PASSWD|CREDENTIAL|PRIVATE", re.I)
# services that are not long-running, with the reason they have no health check
ONE_SHOT = {"grafana-db": "creates Grafana's read-only role once core has migrated, then exits",
            "ha-db": "creates pgaq's role and database on the Patroni cluster's primary, then exits"}
HA_MEMBERS = ("pg-m1", "pg-m2", "pg-m3")


def load_module(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compose_cmd(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("docker-compose")
    if exe is None:
        pytest.fail("docker-compose is not installed (`make test` installs Debian's docker-compose: "
                    "deploy/system-deps.sh --test)")
    # the defaults of the file, not whatever the developer's shell happens to export
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PGAQ_", "POSTGRES_", "GRAFANA_"))}
    return subprocess.run([exe, "-f", str(COMPOSE), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    """The file as docker-compose resolves it (anchors merged, ${VAR:-default} applied)."""
    out = compose_cmd("config")
    assert out.returncode == 0, out.stderr
    return dict(yaml.safe_load(out.stdout))


@pytest.fixture(scope="module")
def services(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return dict(config["services"])


def pgaq_services(services: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The default profile's pgaq services (the `ha` profile's copies are checked apart)."""
    return {name: s for name, s in services.items() if not s.get("profiles")
            and any(str(a).startswith("pgaq_services.") for a in s.get("command") or [])}


def port_targets(svc: dict[str, Any]) -> set[int]:
    """Container ports published (docker-compose 1.x prints `ip:host:container/tcp` strings
    or long-form mappings)."""
    found = set()
    for p in svc.get("ports", []):
        found.add(int(p["target"]) if isinstance(p, dict) else int(str(p).split("/")[0].rsplit(":", 1)[-1]))
    return found


def bind_mounts(svc: dict[str, Any]) -> dict[Path, str]:
    """Host path -> container path of the bind mounts (short or long form)."""
    found = {}
    for v in svc.get("volumes", []):
        if isinstance(v, dict):
            if v["type"] == "bind":
                found[Path(v["source"]).resolve()] = v["target"]
        elif str(v).startswith(("/", ".")):
            source, target = str(v).split(":")[:2]
            found[Path(source).resolve()] = target
    return found


def test_compose_config_is_valid() -> None:
    out = compose_cmd("config", "-q")
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip() == "", out.stderr  # no warnings (unset variables, deprecated keys)


def test_every_service_runs_what_pgaq_up_runs(services: dict[str, dict[str, Any]]) -> None:
    specs = plan_services(SERVICES, 8080, {})
    assert "stats" in {s.name for s in specs}
    assert set(pgaq_services(services)) == {s.name for s in specs}
    for spec in specs:
        svc = services[spec.name]
        assert svc["command"] == ["python", "-m", spec.module], spec.name
        assert "entrypoint" not in svc, spec.name  # the image's: secrets in, then exec the command
        assert svc["build"]["dockerfile"] == "deploy/Dockerfile", spec.name
        assert Path(svc["build"]["context"]).resolve() == ROOT
        env = svc["environment"]
        assert env["PGAQ_DSN"].startswith("postgresql://") and "@postgres:5432/" in env["PGAQ_DSN"]
        assert env["PGAQ_DB_PASSWORD_FILE"] == "/run/secrets/postgres_password"
        assert "postgres_password" in [s["source"] for s in svc["secrets"]]
    # services with an HTTP port: the variable `pgaq up` sets, published, and health-checked
    for svc_def in SERVICES:
        if svc_def.port_env is None:
            continue
        svc = services[svc_def.name]
        port = svc["environment"][svc_def.port_env]
        assert int(port) in port_targets(svc), svc_def.name
        assert f"http://127.0.0.1:{port}/health" in svc["healthcheck"]["test"], svc_def.name


def test_stats_image_has_the_jdbc_settings(services: dict[str, dict[str, Any]]) -> None:
    stats = services["stats"]
    assert stats["build"]["target"] == "stats"
    env = stats["environment"]
    assert env["PGAQ_JDBC_JAR"] == "/usr/share/java/postgresql.jar"
    assert env["PGAQ_SPARK_MASTER"]
    tcp = urlsplit(env["PGAQ_TCP_DSN"])
    assert tcp.scheme == "postgresql" and tcp.hostname == "postgres" and tcp.password is None
    assert int(env["PGAQ_STATS_INTERVAL"]) > 0
    assert all(services[n]["build"]["target"] == "runtime" for n in pgaq_services(services) if n != "stats")


def test_restart_policies_health_checks_and_start_order(services: dict[str, dict[str, Any]]) -> None:
    expected = {"postgres", "grafana", "smtp", *(s.name for s in SERVICES)}
    assert expected <= set(services)
    for name, svc in services.items():
        if name in ONE_SHOT:
            assert svc["restart"] == "on-failure", name
            assert svc["healthcheck"] in ({"disable": True}, {"test": ["NONE"]}), name
            continue
        assert svc.get("restart") in ("unless-stopped", "always"), name
        check = svc.get("healthcheck", {})
        assert check.get("test") not in (None, [], ["NONE"]) and not check.get("disable"), \
            f"{name} has no health check"
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])
    # PostgreSQL 15 built from Debian's packages (deploy/Dockerfile, target postgres)
    assert services["postgres"]["image"].startswith("pgaq-postgres:15")
    assert services["postgres"]["build"]["target"] == "postgres"
    for name in pgaq_services(services):
        deps = services[name]["depends_on"]
        assert deps["postgres"]["condition"] == "service_healthy", name
        if name != "core":  # core migrates; the others start on the migrated schema
            assert deps["core"]["condition"] == "service_healthy", name
    grafana = services["grafana"]
    assert grafana["depends_on"]["grafana-db"]["condition"] == "service_completed_successfully"
    assert services["grafana-db"]["depends_on"]["core"]["condition"] == "service_healthy"


def test_registry_images_only_in_profiles(services: dict[str, dict[str, Any]]) -> None:
    """A plain `up` builds every image it runs from debian:bookworm-slim; Grafana and mailpit,
    which come from a registry, start only with their profile."""
    profiles = {name: svc.get("profiles", []) for name, svc in services.items()}
    assert profiles["grafana"] == profiles["grafana-db"] == ["observability"]
    assert profiles["smtp"] == ["mail"]
    for name, svc in services.items():
        if not profiles[name]:
            assert "build" in svc, f"{name} is in the default profile and is not built here"
            assert svc["build"]["dockerfile"] == "deploy/Dockerfile", name


def test_grafana_and_smtp(services: dict[str, dict[str, Any]]) -> None:
    grafana = services["grafana"]
    assert grafana["image"].startswith("grafana/grafana-oss:")
    mounts = bind_mounts(grafana)
    assert mounts[ROOT / "deploy/grafana/provisioning"] == "/etc/grafana/provisioning"
    assert mounts[ROOT / "deploy/grafana/dashboards"] == "/etc/grafana/dashboards/pgaq"
    assert grafana["environment"]["GF_SECURITY_ADMIN_PASSWORD__FILE"] == "/run/secrets/grafana_admin_password"
    datasource = (ROOT / "deploy/grafana/provisioning/datasources/pgaq.yaml").read_text()
    for var in re.findall(r"\$\{(\w+)\}", datasource):
        assert var in grafana["environment"], f"the datasource reads ${var}, the grafana service does not set it"
    assert {"grafana_db_password", "grafana_admin_password"} <= {s["source"] for s in grafana["secrets"]}
    assert "mailpit" in services["smtp"]["image"]


def test_no_plain_text_secrets(config: dict[str, Any], services: dict[str, dict[str, Any]]) -> None:
    for name, svc in services.items():
        for key, value in (svc.get("environment") or {}).items():
            value = "" if value is None else str(value)
            if key.endswith("_FILE") or key.endswith("__FILE"):
                assert value.startswith("/run/secrets/"), (name, key, value)
            elif SECRET_NAME.search(key):
                assert value == "", f"{name}: {key} has a literal value; use a secret file (_FILE)"
            if "://" in value:
                assert urlsplit(value).password is None, f"{name}: {key} carries a password"
    for name, secret in config["secrets"].items():
        path = Path(secret["file"]).resolve()
        assert path.parent == ROOT / "deploy" / "secrets", name
    ignored = (ROOT / "deploy" / ".gitignore").read_text().split()
    assert "secrets/" in ignored and "pgaq.env" in ignored
    dockerignore = (ROOT / ".dockerignore").read_text().split()
    for entry in (".venv", ".pgaq", "bench/results", ".git", "deploy/secrets"):
        assert entry in dockerignore, entry
    # and the example settings file holds no value for anything secret
    for line in (ROOT / "deploy" / "pgaq.env.example").read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith("#") and SECRET_NAME.search(key):
            assert value.strip() == "", line


def test_environment_names_are_ones_pgaq_reads(services: dict[str, dict[str, Any]]) -> None:
    """A typo in a variable name would be silently ignored by the service."""
    sources = "\n".join(p.read_text() for d in ("shared", "services") for p in (ROOT / d).rglob("*.py"))
    entrypoint = (ROOT / "deploy" / "entrypoint.py").read_text()
    for name in pgaq_services(services):
        for key in services[name]["environment"]:
            if key.endswith("_FILE") or key == "PGAQ_DB_PASSWORD":
                assert key.startswith("PGAQ_") and "_FILE" in entrypoint, key
                continue
            if key.startswith("PGAQ_SPARK_CONF_"):
                key = "PGAQ_SPARK_CONF_"
            assert f'"{key}' in sources, f"{name}: nothing in pgaq reads {key}"


def dockerfile_stages(text: str) -> dict[str, tuple[str, str]]:
    """stage -> (what it is FROM, its instructions)."""
    parts = re.split(r"^FROM\s+", text, flags=re.M)[1:]
    out = {}
    for part in parts:
        m = re.match(r"(\S+)\s+AS\s+(\S+)", part, re.I)
        assert m, part.splitlines()[0]
        out[m[2]] = (m[1], part)
    return out


def test_dockerfile_builds_the_images_from_debian_alone() -> None:
    text = DOCKERFILE.read_text()
    stages = dockerfile_stages(text)
    assert {"build", "runtime", "stats", "postgres"} <= set(stages)
    assert "ARG BASE_IMAGE=debian:bookworm-slim" in text
    for name, (base, _) in stages.items():  # no image from a registry but the base
        assert base == "${BASE_IMAGE}" or base in stages, (name, base)

    def chain(stage: str) -> str:
        """A stage's instructions with those of every stage it is FROM or copies from."""
        base, body = stages[stage]
        deps = [base, *re.findall(r"--from=(\S+)", body)]
        return body + "".join(chain(d) for d in deps if d in stages)

    assert re.search(r"pip install -r ", stages["deps"][1])  # pyproject's pins, a layer of their own
    assert re.search(r"pip install --no-deps .*/src", stages["build"][1])
    assert "default-jdk-headless" in chain("stats") and "libpostgresql-jdbc-java" in chain("stats")
    assert "jdk" not in chain("runtime") and "jdbc" not in chain("runtime")  # a JRE only where stats runs
    assert "postgresql-15" in stages["postgres"][1]
    # every image compose runs ends as an unprivileged user
    for target in ("runtime", "stats", "postgres", "ha"):
        users = re.findall(r"^USER\s+(\S+)", stages[target][1], re.M)
        assert users and users[-1].split(":")[0] not in ("root", "0"), target
    for line in text.splitlines():
        if re.match(r"\s*(ENV|ARG)\b", line):
            assert not SECRET_NAME.search(line), line


# ---- the profile `ha`: Patroni, etcd, HAProxy and the services pointed at HAProxy -------

def test_ha_profile_is_the_default_services_pointed_at_haproxy(services: dict[str, dict[str, Any]]) -> None:
    """Each ha-<name> is <name> but for its profile, its start order and PGAQ_DSN (and
    PGAQ_TCP_DSN) naming HAProxy: the same image, command, settings, secrets, health check."""
    for name, svc in pgaq_services(services).items():
        ha = services[f"ha-{name}"]
        assert ha["profiles"] == ["ha"]
        differ = {k for k in set(svc) | set(ha) if svc.get(k) != ha.get(k)}
        assert differ == {"profiles", "depends_on", "environment"}, (name, differ)
        env, ha_env = svc["environment"], ha["environment"]
        assert {k for k in set(env) | set(ha_env) if env.get(k) != ha_env.get(k)} \
            == {k for k in ("PGAQ_DSN", "PGAQ_TCP_DSN") if k in env}, name
        for key in ("PGAQ_DSN", "PGAQ_TCP_DSN"):
            if key in env:
                assert ha_env[key] == env[key].replace("@postgres:5432/", "@haproxy:5432/"), (name, key)
        want = ({"ha-db": "service_completed_successfully"} if name == "core"
                else {"ha-core": "service_healthy"})
        assert {k: v["condition"] for k, v in ha["depends_on"].items()} == want, name
    assert services["ha-db"]["depends_on"]["haproxy"]["condition"] == "service_healthy"
    assert services["ha-db"]["environment"]["PGHOST"] == "haproxy"


def test_ha_members_haproxy_and_etcd(services: dict[str, dict[str, Any]]) -> None:
    """Debian's programs from the image `ha`, as unprivileged users, each configured from
    the environment: the members through deploy/ha/patroni.yml.in (every field given),
    HAProxy through haproxy-postgres.cfg.in with a server line per member, checked on its
    Patroni REST port; the password from the secret file only."""
    fields = set(re.findall(r"\$\{(\w+)\}", (ROOT / "deploy/ha/patroni.yml.in").read_text()))
    image_env = dict(re.findall(r"(PGAQ_HA_\w+)=(\S+)", dockerfile_stages(DOCKERFILE.read_text())["ha"][1]))
    for name in ("etcd", *HA_MEMBERS, "haproxy", "ha-db"):
        svc = services[name]
        assert svc["profiles"] == ["ha"] and svc["build"]["target"] == "ha", name
        assert svc["image"] == services["pg-m1"]["image"], name
    for i, name in enumerate(HA_MEMBERS, 1):
        env = services[name]["environment"]
        given = {k.removeprefix("PGAQ_HA_").removesuffix("_FILE").lower() for k in [*env, *image_env]}
        assert fields <= given, (name, fields - given)
        assert env["PGAQ_HA_NAME"] == f"m{i}" and env["PGAQ_HA_HOST"] == name
        assert env["PGAQ_HA_PASSWORD_FILE"] == "/run/secrets/postgres_password"
        assert "user" not in services[name]  # the image's: postgres (Patroni refuses root)
        assert services[name]["depends_on"]["etcd"]["condition"] == "service_healthy"
        line = f"server m{i} {name}:{env['PGAQ_HA_PG_PORT']} check port {env['PGAQ_HA_REST_PORT']}"
        assert line in services["haproxy"]["environment"]["PGAQ_HA_PG_SERVERS"].splitlines()
        assert f"http://{name}:{env['PGAQ_HA_REST_PORT']}/health" in services[name]["healthcheck"]["test"]
    assert len({services[n]["volumes"][0] for n in HA_MEMBERS}) == 3  # a data volume each
    assert services["etcd"]["user"] == "etcd" and services["haproxy"]["user"] == "haproxy"
    assert "haproxy-postgres.cfg.in" in services["haproxy"]["command"]
    assert "pg_isready" in services["haproxy"]["healthcheck"]["test"]


def test_ha_files_rendered_with_the_compose_defaults(services: dict[str, dict[str, Any]],
                                                     tmp_path: Path) -> None:
    """What the containers write with the file's defaults (bridge networking) is the YAML
    and HAProxy configuration meant: every member on its own name, the password given."""
    render = load_module("pgaq_ha_render", ROOT / "deploy" / "ha" / "render.py")
    image_env = dict(re.findall(r"(PGAQ_HA_\w+)=(\S+)", dockerfile_stages(DOCKERFILE.read_text())["ha"][1]))
    secret = tmp_path / "pw"
    secret.write_text("s3cret")
    for name in HA_MEMBERS:
        env = {**image_env, **services[name]["environment"], "PGAQ_HA_PASSWORD_FILE": str(secret),
               "PGAQ_HA_TEMPLATES": str(ROOT / "deploy" / "ha"), "PGAQ_HA_OUT": str(tmp_path / name)}
        conf = yaml.safe_load(render.render_file("patroni.yml.in", env).read_text())
        assert conf["name"] == name.removeprefix("pg-") and conf["scope"] == "pgaq"
        assert conf["restapi"]["connect_address"] == f"{name}:8008"
        assert conf["postgresql"]["listen"] == "0.0.0.0:5432"
        assert conf["postgresql"]["connect_address"] == f"{name}:5432"
        assert conf["postgresql"]["authentication"]["superuser"]["password"] == "s3cret"
        assert conf["etcd3"]["hosts"] == "etcd:2379"
        assert conf["bootstrap"]["dcs"]["synchronous_mode"] is True
    haproxy = {**image_env, **services["haproxy"]["environment"],
               "PGAQ_HA_TEMPLATES": str(ROOT / "deploy" / "ha"), "PGAQ_HA_OUT": str(tmp_path / "haproxy")}
    cfg = render.render_file("haproxy-postgres.cfg.in", haproxy).read_text()
    assert "bind 0.0.0.0:5432" in cfg and "option httpchk GET /primary" in cfg
    assert [ln.split()[:3] for ln in cfg.splitlines() if ln.split()[:1] == ["server"]] == [
        ["server", f"m{i}", f"pg-m{i}:5432"] for i in (1, 2, 3)]
    haproxy_exe = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if Path(haproxy_exe).exists():  # HAProxy's own check (the names resolve inside compose only)
        local = tmp_path / "haproxy-local.cfg"
        local.write_text(re.sub(r"pg-m\d:", "127.0.0.1:", cfg))
        check = subprocess.run([haproxy_exe, "-c", "-f", str(ROOT / "deploy" / "ha" / "haproxy-global.cfg"),
                                "-f", str(local)], capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stderr


def test_ha_render_fills_the_templates_as_the_harness_does(tmp_path: Path) -> None:
    """deploy/ha/render.py (the containers') and ha/cluster.py's render() (`make ha-test`)
    give the same file from the same fields; the password comes from its _FILE."""
    from ha.cluster import render as harness_render

    render = load_module("pgaq_ha_render", ROOT / "deploy" / "ha" / "render.py")
    secret = tmp_path / "pw"
    secret.write_text("s3cret\n")
    fields: dict[str, str] = {
        "scope": "pgaq", "name": "m2", "host": "pg-m2", "listen": "127.0.0.1", "rest_port": "8009",
        "pg_port": "5433", "etcd_hosts": "etcd:2379", "ttl": "10", "loop_wait": "1", "retry_timeout": "4",
        "max_connections": "300", "data_dir": "/d", "bin_dir": "/b", "pgpass": "/p", "socket_dir": "/s"}
    env = {f"PGAQ_HA_{k.upper()}": v for k, v in fields.items()}
    env.update(PGAQ_HA_PASSWORD_FILE=str(secret), PGAQ_HA_TEMPLATES=str(ROOT / "deploy" / "ha"),
               PGAQ_HA_OUT=str(tmp_path / "out"))
    out = render.render_file("patroni.yml.in", env)
    assert out == tmp_path / "out" / "patroni.yml"
    assert out.read_text() == harness_render("patroni.yml.in", **fields, password="s3cret")
    assert out.stat().st_mode & 0o077 == 0  # it holds the password
    env.pop("PGAQ_HA_TTL")
    with pytest.raises(SystemExit, match="PGAQ_HA_TTL"):
        render.render_file("patroni.yml.in", env)


# ---- the image's entrypoint and health check, run here ---------------------------------

def test_entrypoint_puts_secrets_from_files_into_the_environment(tmp_path: Path) -> None:
    ep = load_module("pgaq_entrypoint", ROOT / "deploy" / "entrypoint.py")
    (tmp_path / "pw").write_text("p@ss:w/rd%\n")
    (tmp_path / "token").write_text("tok\n")
    env = {"PGAQ_DSN": "postgresql://pgaq@postgres:5432/pgaq",
           "PGAQ_TCP_DSN": "postgresql://pgaq@postgres:5432/pgaq?sslmode=disable",
           "PGAQ_DB_PASSWORD_FILE": str(tmp_path / "pw"),
           "PGAQ_ADMIN_TOKEN_FILE": str(tmp_path / "token"),
           "PGAQ_SMTP_PASSWORD": "explicit", "PGAQ_SMTP_PASSWORD_FILE": str(tmp_path / "token")}
    ep.prepare(env)
    assert env["PGAQ_ADMIN_TOKEN"] == "tok"
    assert env["PGAQ_SMTP_PASSWORD"] == "explicit"  # an explicit value wins
    assert "PGAQ_DB_PASSWORD" not in env
    assert urlsplit(env["PGAQ_DSN"]).password == "p%40ss%3Aw%2Frd%25"
    target = jdbc_target(env["PGAQ_TCP_DSN"])  # what the statistics job makes of it
    assert target.properties["password"] == "p@ss:w/rd%" and target.properties["user"] == "pgaq"
    assert target.properties["sslmode"] == "disable"
    # a DSN with its own password is left alone
    env = {"PGAQ_DSN": "postgresql://u:own@h/db", "PGAQ_DB_PASSWORD_FILE": str(tmp_path / "pw")}
    ep.prepare(env)
    assert env["PGAQ_DSN"] == "postgresql://u:own@h/db"
    with pytest.raises(SystemExit, match="cannot read"):
        ep.prepare({"PGAQ_ADMIN_TOKEN_FILE": str(tmp_path / "missing")})


async def test_entrypoint_execs_the_command_with_the_secrets(tmp_path: Path, db_dsn: str) -> None:
    """The DSN the entrypoint builds is one asyncpg connects with (password and all)."""
    role = f"entrypoint_check_{os.getpid()}"
    admin = await asyncpg.connect(db_dsn)
    await admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'p@ss word'")
    try:
        (tmp_path / "pw").write_text("p@ss word\n")
        parts = urlsplit(db_dsn)
        dsn = urlunsplit((parts.scheme, f"{role}@{parts.hostname}:{parts.port}", parts.path, "", ""))
        code = ("import asyncio, asyncpg, os; "
                "print(asyncio.run(asyncpg.connect(os.environ['PGAQ_DSN'])).get_server_pid() > 0)")
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(ROOT / "deploy" / "entrypoint.py"), sys.executable, "-c", code,
            env={**os.environ, "PGAQ_DSN": dsn, "PGAQ_DB_PASSWORD_FILE": str(tmp_path / "pw")},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        await admin.execute(f"DROP ROLE {role}")
        await admin.close()
    assert proc.returncode == 0, err.decode()
    assert out.decode().strip() == "True"


def _wait_listening(port: int, timeout: float = 10) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[int]:
    (tmp_path / "health").write_text("ok")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                             "--directory", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_listening(port)
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


def healthcheck(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "deploy" / "healthcheck.py"), *args],
                          capture_output=True, text=True, timeout=30)


def test_healthcheck_http_and_process(http_server: int) -> None:
    assert healthcheck("http", f"http://127.0.0.1:{http_server}/health").returncode == 0
    missing = healthcheck("http", f"http://127.0.0.1:{http_server}/nope")
    assert missing.returncode == 1 and "404" in missing.stderr
    assert healthcheck("http", f"http://127.0.0.1:{free_port()}/health").returncode == 1
    # `process`: the http.server above runs as `python -m http.server`
    assert healthcheck("process", "http.server").returncode == 0
    gone = healthcheck("process", "pgaq_services.nothing_like_this")
    assert gone.returncode == 1 and "no running" in gone.stderr


# ---- the dashboard's SQL, as Grafana runs it ----------------------------------------------

MACRO = re.compile(r"\$([_a-zA-Z0-9]+)\(([^\)]*)\)")  # Grafana's postgres macro syntax
UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def _seconds(interval: str) -> float:
    m = re.fullmatch(r"(\d+)(ms|s|m|h|d|w)", interval.strip().strip("'"))
    assert m, f"interval {interval!r}"
    return int(m[1]) * UNITS[m[2]]


def grafana_sql(sql: str, variables: dict[str, str], start: datetime, end: datetime) -> str:
    """What Grafana's PostgreSQL datasource sends: template variables, then macros
    (pkg/tsdb/grafana-postgresql-datasource/macros.go)."""
    for name in sorted(variables, key=len, reverse=True):
        sql = sql.replace("${" + name + "}", variables[name]).replace("$" + name, variables[name])

    def rfc3339(t: datetime) -> str:
        return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def expand(m: re.Match[str]) -> str:
        name, args = m[1], [a.strip() for a in m[2].split(",")]
        if name == "__time":
            return f'{args[0]} AS "time"'
        if name == "__timeFilter":
            return f"{args[0]} BETWEEN '{rfc3339(start)}' AND '{rfc3339(end)}'"
        if name == "__timeFrom":
            return f"'{rfc3339(start)}'"
        if name == "__timeTo":
            return f"'{rfc3339(end)}'"
        if name in ("__timeGroup", "__timeGroupAlias"):
            secs = _seconds(args[1])
            group = f"floor(extract(epoch from {args[0]})/{secs:g})*{secs:g}"
            return group + (' AS "time"' if name == "__timeGroupAlias" else "")
        raise AssertionError(f"macro ${name} is not one Grafana's PostgreSQL datasource knows")

    sql = MACRO.sub(expand, sql)
    assert not re.search(r"\$[_a-zA-Z]", sql), f"unexpanded variable in:\n{sql}"
    return sql


def dashboard_targets() -> list[tuple[str, str]]:
    board = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    found = []
    for panel in board["panels"]:
        for p in [panel, *panel.get("panels", [])]:
            for target in p.get("targets", []):
                found.append((p["title"], target["rawSql"]))
    return found


async def seed(conn: asyncpg.Connection, now: datetime) -> dict[str, int]:
    """A live schedule, one dropped since the job saw it, and a little of everything the
    panels read: the job's tables, snapshots, notifications of another owner, runs."""
    await make_queue(conn, "oe.out_q", "oe.out_t", multiple=True, retention=3600)
    await subscribe(conn, "oe.out_q", "LOCAL1")
    await make_queue(conn, "oe.in_q", "oe.in_t")
    await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q', 0))")
    await conn.execute("CALL dbms_aqadm.schedule_propagation(queue_name => 'oe.out_q', latency => 0)")
    await conn.execute("CALL dbms_aqadm.create_aq_agent(agent_name => 'JOHN', enable_http => true,"
                       " password => 'secret')")
    sid = await conn.fetchval("SELECT id FROM aq.schedules")
    qid = await conn.fetchval("SELECT id FROM aq.queues WHERE queue_name = 'out_q'")
    minute = now.replace(second=0, microsecond=0)
    hour = minute.replace(minute=0)
    series = []
    for schedule in (sid, 999):
        for grain, bucket in (("minute", minute - timedelta(minutes=2)), ("minute", minute - timedelta(minutes=1)),
                              ("hour", hour)):
            series.append((schedule, grain, bucket, "OE.OUT_Q", "oe.in_q", 3, 120, 48000, 1.5, 1, 1, 1, 2,
                           10.0, 40.0, 50.0, 120, 15.0, 80.0, 95.0))
    await conn.executemany(
        "INSERT INTO aq_stats.schedule_series VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20)",
        series)
    await conn.executemany(
        "INSERT INTO aq_stats.schedule_totals VALUES ($1,'OE.OUT_Q','oe.in_q',2,6,240,96000,3.0,150,60000,"
        "120,48000,400,0.0125,2,2,2,$2,$3)",
        [(sid, now - timedelta(hours=1), now), (999, now - timedelta(hours=3), now - timedelta(hours=2))])
    await conn.executemany(
        "INSERT INTO aq_stats.queue_series VALUES ($1,$2,$3,'oe','out_q',60,55,55,100,900,1500,1,12.5,20,3,1,42.0)",
        [(qid, "minute", minute - timedelta(minutes=1)), (qid, "hour", hour)])
    await conn.executemany(
        "INSERT INTO aq.queue_snapshots VALUES ($1, $2, 'oe', 'out_q', $3, 1, 0, 4, $4)",
        [(now - timedelta(minutes=m), qid, 10 + m, 30.0 + m) for m in range(5)])
    states = {"DELIVERED": 3, "FAILED": 2, "PENDING": 1, "SENDING": 1}
    rows = []
    for state, n in states.items():
        finished = now - timedelta(minutes=1) if state in ("DELIVERED", "FAILED") else None
        rows += [(state, finished, now - timedelta(minutes=2))] * n
    await conn.executemany(
        "INSERT INTO aq.notifications (queue_name, reg_name, url, dest_key, owner, state, attempts,"
        " finished_at, created_at) VALUES ('oe.out_q', 'OE.OUT_Q:LOCAL1', 'http://h/x', 'http://h:80',"
        " current_user, $1, 1, $2, $3)", rows)
    await conn.execute(
        "INSERT INTO aq_stats.runs (started_at, finished_at, low, high, log_rows, history_rows,"
        " snapshot_rows, written_rows, status) VALUES ($1, $2, $3, $4, 10, 20, 5, 12, 'DONE')",
        now - timedelta(minutes=3), now - timedelta(minutes=2), now - timedelta(hours=1), now - timedelta(minutes=3))
    await conn.execute("INSERT INTO aq_stats.runs (status, error, finished_at) VALUES ('FAILED', 'boom', now())")
    return states


def run_reader_sql(dsn: str, reader: str, password_file: Path, encryption: str = "scram-sha-256") -> None:
    psql = shutil.which("psql")
    if psql is None:
        from pgaq.embedded import find_bindir

        psql = str(find_bindir() / "psql")
    out = subprocess.run([psql, dsn, "-X", "-q", "-v", f"reader={reader}", "-v", f"password_file={password_file}",
                          "-f", str(READER_SQL)], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PGOPTIONS": f"-c password_encryption={encryption}"})
    assert out.returncode == 0, out.stderr
    assert "ERROR" not in out.stderr, out.stderr


async def test_every_dashboard_query_runs_as_grafanas_read_only_role(
        conn: asyncpg.Connection, db_dsn: str, tmp_path: Path) -> None:
    now = datetime.now(UTC)
    states = await seed(conn, now)
    reader = f"grafana_reader_{os.getpid()}"
    (tmp_path / "pw").write_text("reader-secret\n")
    # md5 here only to check the stored password against the file's (as Grafana trims it)
    run_reader_sql(db_dsn, reader, tmp_path / "pw", encryption="md5")
    stored = await conn.fetchval("SELECT rolpassword FROM pg_authid WHERE rolname = $1", reader)
    assert stored == "md5" + hashlib.md5(f"reader-secret{reader}".encode()).hexdigest()
    run_reader_sql(db_dsn, reader, tmp_path / "pw")  # the compose service runs it at every start
    parts = urlsplit(db_dsn)
    reader_dsn = urlunsplit((parts.scheme, f"{reader}:reader-secret@{parts.hostname}:{parts.port}",
                             parts.path, "", ""))
    ro = await asyncpg.connect(reader_dsn)
    try:
        assert await ro.fetchval("SHOW default_transaction_read_only") == "on"
        with pytest.raises(asyncpg.ReadOnlySQLTransactionError):
            await ro.execute("DELETE FROM aq_stats.runs")
        # aq.notifications shows a role only its own rows: hence the counting functions
        assert await ro.fetchval("SELECT count(*) FROM aq.notifications") == 0
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await ro.fetch("SELECT password FROM aq.db_links")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await ro.fetch("SELECT user_data FROM oe.out_t")  # messages stay their owners'
        assert await ro.fetchval("SELECT count(*) FROM aq.agents") == 0  # password hashes too
        assert await conn.fetchval("SELECT count(*) FROM aq.agents") == 1
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await ro.fetch("SELECT * FROM pgaq_grafana.notification_outcomes(now(), now(), '1 minute')"
                           " CROSS JOIN aq.notification_settings")

        targets = dashboard_targets()
        assert len(targets) >= 12
        start, end = now - timedelta(days=1), now + timedelta(minutes=1)
        results: dict[str, list[asyncpg.Record]] = {}
        for grain in ("minute", "hour"):
            variables = {"grain": grain, "__interval": "1m", "__interval_ms": "60000"}
            for title, raw in targets:
                sql = grafana_sql(raw, variables, start, end)
                try:
                    rows = await ro.fetch(sql)
                except asyncpg.PostgresError as exc:
                    raise AssertionError(f"panel {title!r} ({grain}): {exc}\n{sql}") from exc
                if grain == "minute":
                    results[title] = rows
                columns = list(rows[0].keys()) if rows else []
                if "time" in columns:
                    times = [r["time"] for r in rows]
                    assert times == sorted(times), f"panel {title!r}: rows not in time order"
                    assert columns[0] == "time" and {"metric", "value"} <= set(columns), title
        empty = sorted(t for t, rows in results.items() if not rows)
        assert not empty, f"panels with no rows over the seeded data: {empty}"

        outcomes: dict[str, int] = {}
        for r in results["Notification outcomes"]:
            outcomes[r["metric"]] = outcomes.get(r["metric"], 0) + r["value"]
        assert outcomes == states
        outbox = {r["state"]: r["notifications"] for r in results["Notification outbox now"]}
        assert outbox == states
        schedules = {r["schedule"]: r for r in results["Schedules"]}
        assert schedules[999]["state"] == "dropped"
        assert schedules[999]["avg time / message (ms)"] == pytest.approx(12.5)
        live = [r for s, r in schedules.items() if s != 999]
        assert [r["state"] for r in live] == ["enabled"] and live[0]["queue"] == "oe.out_q"
        rate = {r["metric"]: r["value"] for r in results["Propagated messages/s"]}
        assert set(rate.values()) == {2}  # 120 messages in a minute
        depth = results["Queue depth (READY)"]
        assert {r["metric"] for r in depth} == {"oe.out_q"}
        assert results["Minutes since the last finished run"][0]["minutes"] == pytest.approx(2, abs=0.5)
    finally:
        await ro.close()
        await conn.execute(f'DROP OWNED BY "{reader}"')
        await conn.execute("DROP SCHEMA IF EXISTS pgaq_grafana CASCADE")
        await conn.execute(f'DROP ROLE "{reader}"')


def test_stats_image_gets_pyspark_wherever_pyproject_puts_it() -> None:
    """deploy/requirements.py: PySpark in the dependencies (today) or moved to an extra."""
    req = load_module("pgaq_requirements", ROOT / "deploy" / "requirements.py")
    build = {"requires": ["setuptools>=68"]}
    today = {"build-system": build, "project": {"dependencies": ["asyncpg==1", "pyspark==4.3.0"],
                                                "optional-dependencies": {"dev": ["pytest==9"]}}}
    assert req.requirements(today, "runtime") == ["setuptools>=68", "asyncpg==1", "pyspark==4.3.0"]
    assert req.requirements(today, "stats") == []
    for extra in ("stats", "spark"):
        moved = {"build-system": build, "project": {"dependencies": ["asyncpg==1"],
                                                    "optional-dependencies": {extra: ["PySpark[sql]==4.3.0"]}}}
        assert req.requirements(moved, "runtime") == ["setuptools>=68", "asyncpg==1"]
        assert req.requirements(moved, "stats") == ["PySpark[sql]==4.3.0"]


# ---- the PostgreSQL image's entrypoint, run here on the host's PostgreSQL 15 --------------

@pytest.fixture
def pg_entrypoint() -> Iterator[tuple[Path, dict[str, str], int]]:
    """A private copy of the image's entrypoint (its initdb.d a private directory), the
    environment compose gives it, a free port; as root, with the host's PostgreSQL 15."""
    from pgaq.embedded import find_bindir

    if os.geteuid() != 0 or not os.path.isdir("/var/run/postgresql"):
        pytest.skip("needs root, a `postgres` user and /var/run/postgresql, as the image has")
    pwd.getpwnam("postgres")
    tmp = Path(tempfile.mkdtemp(prefix="pgaq-pg-image-"))
    try:
        os.chmod(tmp, 0o755)
        (tmp / "pw").write_text("s3cret pw\n")
        (tmp / "initdb.d").mkdir()
        (tmp / "initdb.d" / "seed.sql").write_text("CREATE TABLE seeded (x int); INSERT INTO seeded VALUES (42);")
        script = (ROOT / "deploy" / "postgres" / "docker-entrypoint.sh").read_text()
        (tmp / "entrypoint.sh").write_text(script.replace("/docker-entrypoint-initdb.d", str(tmp / "initdb.d")))
        os.chmod(tmp / "entrypoint.sh", 0o755)
        port = free_port()
        env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PG", "POSTGRES_"))},
               "PATH": f"{find_bindir()}:{os.environ['PATH']}", "PGDATA": str(tmp / "data"),
               "PGPORT": str(port),  # the initialising server's socket, away from any other's
               "POSTGRES_USER": "pgaq", "POSTGRES_DB": "pgaq", "POSTGRES_PASSWORD_FILE": str(tmp / "pw"),
               "POSTGRES_LISTEN_ADDRESSES": "127.0.0.1"}
        yield tmp, env, port
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def test_postgres_image_initialises_as_the_official_image(
        pg_entrypoint: tuple[Path, dict[str, str], int]) -> None:
    """deploy/postgres/docker-entrypoint.sh (the pgaq-postgres image): started as root on an
    empty PGDATA it gives the data to `postgres`, creates the user with the secret file's
    password, the database and runs /docker-entrypoint-initdb.d; TCP logins need the password;
    a second start keeps the data. (The image and compose run it in tests/e2e/test_compose_up.py.)"""
    tmp, env, port = pg_entrypoint
    dsn = f"postgresql://pgaq:s3cret%20pw@127.0.0.1:{port}/pgaq"

    async def start() -> asyncio.subprocess.Process:
        proc = await asyncio.create_subprocess_exec(str(tmp / "entrypoint.sh"), "postgres", "-c", f"port={port}",
                                                    env=env, stderr=asyncio.subprocess.PIPE)
        for _ in range(600):  # another process: its port is all there is to wait on
            assert proc.returncode is None, (await proc.communicate())[1].decode()
            try:
                await (await asyncpg.connect(dsn)).close()
                return proc
            except (OSError, asyncpg.PostgresError):
                await asyncio.sleep(0.1)
        raise AssertionError("the server did not start")

    async def stop(proc: asyncio.subprocess.Process) -> str:
        proc.send_signal(2)  # the image's STOPSIGNAL SIGINT: a fast shutdown
        _, err = await asyncio.wait_for(proc.communicate(), 60)
        return err.decode()

    proc = await start()
    try:
        c = await asyncpg.connect(dsn)
        try:
            assert await c.fetchval("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
            assert await c.fetchval("SELECT x FROM seeded") == 42
            assert await c.fetchval("SHOW listen_addresses") == "127.0.0.1"
        finally:
            await c.close()
        with pytest.raises(asyncpg.InvalidPasswordError):
            await asyncpg.connect(dsn.replace("s3cret%20pw", "wrong"))
        owner = await asyncio.to_thread(lambda: (tmp / "data").stat().st_uid)
        assert owner == pwd.getpwnam("postgres").pw_uid
    finally:
        log = await stop(proc)
    assert "initialised" in log
    proc = await start()  # initialised already: nothing is run again
    assert "initialised" not in await stop(proc)
