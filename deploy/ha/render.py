#!/usr/bin/env python3
"""The compose `ha` profile's configuration step: the templates of deploy/ha/ (the same
files ha/cluster.py renders for `make ha-test`) filled from the environment, then exec the
command, so that it gets the signals.

    pgaq-ha-render patroni.yml.in -- patroni /tmp/pgaq-ha/patroni.yml
    pgaq-ha-render haproxy-postgres.cfg.in -- haproxy -db -f ... -f /tmp/pgaq-ha/haproxy-postgres.cfg

Each `${field}` of a template comes from `PGAQ_HA_<FIELD>`, or from the contents of the
file `PGAQ_HA_<FIELD>_FILE` (secrets mounted under /run/secrets; trailing newlines
dropped). A template is read from PGAQ_HA_TEMPLATES (default /opt/pgaq/ha) and written,
without its `.in`, to PGAQ_HA_OUT (default /tmp/pgaq-ha), readable by its owner only: it
may hold a password. A field no variable gives stops the container with its name.
"""

from __future__ import annotations

import os
import string
import sys
from collections.abc import Mapping
from pathlib import Path

PREFIX = "PGAQ_HA_"


def field_value(field: str, env: Mapping[str, str]) -> str:
    name = PREFIX + field.upper()
    if name in env:
        return env[name]
    if name + "_FILE" in env:
        path = env[name + "_FILE"]
        try:
            return Path(path).read_text(encoding="utf-8").rstrip("\r\n")
        except OSError as exc:
            raise SystemExit(f"pgaq-ha-render: {name}_FILE: cannot read {path}: {exc.strerror}") from exc
    raise SystemExit(f"pgaq-ha-render: {name} (or {name}_FILE) is not set")


def render(text: str, env: Mapping[str, str]) -> str:
    """`text` with every ${field} filled from the environment (as string.Template does)."""
    template = string.Template(text)
    if not template.is_valid():
        raise SystemExit("pgaq-ha-render: the template has a malformed ${...} placeholder")
    return template.substitute({f: field_value(f, env) for f in template.get_identifiers()})


def render_file(name: str, env: Mapping[str, str]) -> Path:
    src = Path(env.get(PREFIX + "TEMPLATES", "/opt/pgaq/ha")) / name
    out_dir = Path(env.get(PREFIX + "OUT", "/tmp/pgaq-ha"))
    out_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    out = out_dir / name.removesuffix(".in")
    try:
        text = render(src.read_text(encoding="utf-8"), env)
    except OSError as exc:
        raise SystemExit(f"pgaq-ha-render: cannot read {src}: {exc.strerror}") from exc
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    return out


def main(argv: list[str]) -> None:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        raise SystemExit("usage: pgaq-ha-render [TEMPLATE...] -- COMMAND [ARG...]")
    cut = argv.index("--")
    for name in argv[:cut]:
        render_file(name, os.environ)
    command = argv[cut + 1:]
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
