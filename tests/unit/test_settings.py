"""The settings declaration (pgaq.settings): every PGAQ_* variable pgaq uses is declared,
the services' settings come from it with the defaults they had, an unknown variable is
reported, secrets are never printed, and docs/deployment.md's table is the declaration's."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pgaq import cli, settings_doc
from pgaq.errors import ConfigError
from pgaq.monitor import MonitorSettings
from pgaq.notify.settings import NotifierSettings
from pgaq.propagation.settings import PropagatorSettings
from pgaq.settings import BY_NAME, DECLARED, Environment, declared, effective, unknown, warn_unknown
from pgaq.stats.settings import StatsSettings
from pgaq_services.core.app import Settings as CoreSettings
from pgaq_services.gateway.app import Settings as GatewaySettings
from pgaq_services.monitor.app import settings_from_env as monitor_settings

ROOT = Path(__file__).resolve().parents[2]
DSN = "postgresql://pgaq:hunter2@db.example:5432/pgaq"
NAME = re.compile(r"PGAQ_[A-Z0-9_]*[A-Z0-9]")


def run_cli(*argv: str) -> int:
    """`pgaq settings ...` as main() dispatches it (without main's logging set-up)."""
    args = cli.parser().parse_args(argv)
    return cli.settings_command(args.service, args.markdown, args.update)


def test_every_name_is_declared_once() -> None:
    names = [s.name for s in DECLARED]
    assert len(names) == len(set(names))


def shipped_names() -> dict[str, str]:
    """Every PGAQ_* name in what ships (code, deploy files, compose, Makefile): where seen."""
    files = [*(ROOT / "shared").rglob("*.py"), *(ROOT / "services").rglob("*.py"),
             *(p for p in (ROOT / "deploy").rglob("*") if p.is_file() and "secrets" not in p.parts),
             ROOT / "docker-compose.yml", ROOT / "Makefile"]
    seen: dict[str, str] = {}
    for path in files:
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        for m in NAME.finditer(text):
            if text[m.end():m.end() + 1] in ("*", "<", "_"):
                continue  # a family: PGAQ_NOTIFY_*, PGAQ_SPARK_CONF_<key>, PGAQ_SPARK_CONF_spark__x
            seen.setdefault(m.group(0), str(path.relative_to(ROOT)))
    return seen


def test_every_variable_pgaq_uses_is_declared() -> None:
    missing = {name: where for name, where in shipped_names().items()
               if declared(name) is None and name not in ("PGAQ_X", "PGAQ_X_FILE")}  # examples
    assert missing == {}, "declare them in shared/pgaq/settings.py"


def test_the_services_defaults_are_the_dataclasses_defaults() -> None:
    env = {"PGAQ_DSN": DSN, "PGAQ_NOTIFIER_NAME": "n", "PGAQ_PROPAGATOR_NAME": "p"}
    assert NotifierSettings.from_env(env) == NotifierSettings(name="n", dsn=DSN)
    assert PropagatorSettings.from_env(env) == PropagatorSettings(name="p")
    assert StatsSettings.from_env(env) == StatsSettings(dsn=DSN)
    assert CoreSettings.from_env(env) == CoreSettings(dsn=DSN)
    assert monitor_settings(env) == (DSN, MonitorSettings())
    gateway = GatewaySettings.from_env({**env, "PGAQ_GATEWAY_WORKERS": "1"})
    assert gateway == GatewaySettings(dsn=DSN, workers=1)


def test_values_are_typed_and_an_empty_one_is_the_default() -> None:
    e = Environment({"PGAQ_PORT": "9", "PGAQ_SAFETY_POLL": "", "PGAQ_VALIDATE": "off",
                     "PGAQ_SMTP_STARTTLS": "yes", "PGAQ_GATEWAY_HOOKS": "a:b, c:d,",
                     "PGAQ_SPARK_CONF_spark__x": "1"})
    assert e.integer("PGAQ_PORT") == 9
    assert e.number("PGAQ_SAFETY_POLL") == 5.0
    assert e.flag("PGAQ_VALIDATE") is False and e.flag("PGAQ_GATEWAY_FASTPATH") is True
    assert e.maybe_flag("PGAQ_SMTP_STARTTLS") is True
    assert Environment({}).maybe_flag("PGAQ_SMTP_STARTTLS") is None
    assert e.words("PGAQ_GATEWAY_HOOKS") == ["a:b", "c:d"]
    assert e.family("PGAQ_SPARK_CONF_") == {"spark__x": "1"}
    assert StatsSettings.from_env({"PGAQ_DSN": DSN, "PGAQ_SPARK_CONF_spark__x": "1"}).spark_conf == {
        "spark.x": "1"}
    with pytest.raises(ConfigError, match="PGAQ_PORT='x': not an integer"):
        Environment({"PGAQ_PORT": "x"}).integer("PGAQ_PORT")
    with pytest.raises(ConfigError, match="PGAQ_VALIDATE"):
        Environment({"PGAQ_VALIDATE": "maybe"}).flag("PGAQ_VALIDATE")
    with pytest.raises(TypeError):
        e.integer("PGAQ_SAFETY_POLL")  # declared a number
    with pytest.raises(KeyError):
        e.text("PGAQ_NOT_DECLARED")


def test_required_dsn() -> None:
    with pytest.raises(SystemExit, match="PGAQ_DSN is required"):
        CoreSettings.from_env({})


def test_unknown_variables_are_reported_with_a_close_name(caplog: pytest.LogCaptureFixture) -> None:
    env = {"PGAQ_DSN": DSN, "PGAQ_NOTIFY_BACH": "5", "PGAQ_ZZZ": "1", "PGAQ_ADMIN_TOKEN_FILE": "/x",
           "PGAQ_SPARK_CONF_spark__driver__memory": "1g", "PGAQ_DB_PASSWORD_FILE": "/y", "HOME": "/"}
    assert unknown(env) == [("PGAQ_NOTIFY_BACH", "PGAQ_NOTIFY_BATCH"), ("PGAQ_ZZZ", None)]
    caplog.set_level(logging.WARNING)
    assert warn_unknown("notifier", env) == ["PGAQ_NOTIFY_BACH", "PGAQ_ZZZ"]
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert lines == ["notifier: unknown setting PGAQ_NOTIFY_BACH in the environment is ignored "
                     "(did you mean PGAQ_NOTIFY_BATCH?)",
                     "notifier: unknown setting PGAQ_ZZZ in the environment is ignored"]


def test_effective_settings_redact_secrets(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"PGAQ_DSN": DSN, "PGAQ_SMTP_PASSWORD": "s3cret", "PGAQ_NOTIFY_BATCH": "7",
           "PGAQ_NOTIFY_CALLBACK_DSN": "postgresql://cb:pw@h/db", "PGAQ_NOTIFY_LEASE": "soon",
           "PGAQ_TYPO": "1"}
    lines = effective("notifier", env)
    text = "\n".join(lines)
    assert "hunter2" not in text and "s3cret" not in text and ":pw@" not in text
    assert "PGAQ_SMTP_PASSWORD=***" in lines
    assert "PGAQ_NOTIFY_BATCH=7" in lines and "PGAQ_NOTIFY_MAX_ATTEMPTS=10  # default" in lines
    assert any(x.startswith("PGAQ_NOTIFY_LEASE=soon  # INVALID") for x in lines)
    assert any(x.startswith("# unknown: PGAQ_TYPO") for x in lines)
    assert not any(x.startswith("PGAQ_HTTP_HOST") for x in lines)  # the gateway's
    for key in list(BY_NAME):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert run_cli("settings", "--service", "notifier") == 0
    assert capsys.readouterr().out.splitlines() == lines


def test_the_deployment_doc_table_is_the_declaration() -> None:
    doc = (ROOT / "docs" / "deployment.md").read_text()
    assert settings_doc.BEGIN in doc and settings_doc.END in doc
    assert settings_doc.replace_block(doc) == doc, (
        "docs/deployment.md's settings table differs from shared/pgaq/settings.py: "
        "run `pgaq settings --markdown --update docs/deployment.md`")


def test_update_rewrites_only_the_block(tmp_path: Path) -> None:
    doc = tmp_path / "d.md"
    doc.write_text(f"before\n{settings_doc.BEGIN}\nold\n{settings_doc.END}\nafter\n")
    assert run_cli("settings", "--markdown", "--update", str(doc)) == 0
    assert doc.read_text() == f"before\n{settings_doc.block()}\nafter\n"
    assert not settings_doc.update(doc)


@pytest.mark.parametrize("service", ["core", "gateway", "monitor", "notifier", "propagator", "stats"])
def test_each_service_reports_an_unknown_variable_at_start(service: str) -> None:
    """The service's first log line names the typo (the database is unreachable: it stops after)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PGAQ_")}
    env.update(PGAQ_DSN="postgresql://x@127.0.0.1:1/db", PGAQ_GATEWAY_WORKERS="1", PGAQ_PORT="0",
               PGAQ_CORE_PORT="0", PGAQ_STATS_FIRST_DELAY="3600", PGAQ_MONITR_BATCH="5")
    proc = subprocess.Popen([sys.executable, "-m", f"pgaq_services.{service}"], env=env,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
    finally:
        proc.kill()
        proc.wait(30)
    assert "level=WARNING" in first and (f"{service}: unknown setting PGAQ_MONITR_BATCH in the "
                                         "environment is ignored (did you mean PGAQ_MONITOR_BATCH?)") in first
