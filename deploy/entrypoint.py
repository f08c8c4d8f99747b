#!/usr/bin/env python3
"""The pgaq image's entrypoint: secrets from files into the environment, then exec the command.

Compose (or Kubernetes) mounts secrets as files; pgaq reads its settings from the
environment. For every `PGAQ_<NAME>_FILE=<path>` this sets `PGAQ_<NAME>` to the file's
contents (trailing newlines dropped) unless `PGAQ_<NAME>` is already set, and
`PGAQ_DB_PASSWORD` (usually from `PGAQ_DB_PASSWORD_FILE`) is written into `PGAQ_DSN` and
`PGAQ_TCP_DSN` when those URLs carry no password of their own. Nothing secret is ever
baked into the image or written to the compose file. Then it replaces itself with the
command (`python -m pgaq_services.<name>`), so the service gets the signals.

    pgaq-entrypoint python -m pgaq_services.core
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from urllib.parse import quote, urlsplit, urlunsplit

PREFIX = "PGAQ_"
SUFFIX = "_FILE"
DSN_VARS = ("PGAQ_DSN", "PGAQ_TCP_DSN")


def read_secret(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read().rstrip("\r\n")


def load_files(env: MutableMapping[str, str]) -> list[str]:
    """`PGAQ_X_FILE` -> `PGAQ_X` (an explicit `PGAQ_X` wins); the names it set."""
    loaded = []
    for key in sorted(env):
        if not (key.startswith(PREFIX) and key.endswith(SUFFIX)) or len(key) <= len(PREFIX + SUFFIX):
            continue
        name = key[: -len(SUFFIX)]
        if env.get(name):
            continue
        try:
            env[name] = read_secret(env[key])
        except OSError as exc:
            raise SystemExit(f"pgaq-entrypoint: {key}: cannot read {env[key]}: {exc.strerror}") from exc
        loaded.append(name)
    return loaded


def with_password(dsn: str, password: str) -> str:
    """`postgresql://user@host/db` with the password put in (URL-quoted); a URL that has a
    password already, or is not a URL (`host=... user=...`), is returned as it is."""
    parts = urlsplit(dsn)
    if parts.scheme not in ("postgresql", "postgres") or parts.password is not None:
        return dsn
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if not at:
        raise SystemExit("pgaq-entrypoint: a database password is given but the DSN names no user")
    netloc = f"{userinfo}:{quote(password, safe='')}@{hostport}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def prepare(env: MutableMapping[str, str]) -> None:
    load_files(env)
    password = env.pop("PGAQ_DB_PASSWORD", "")
    if password:
        for var in DSN_VARS:
            if env.get(var):
                env[var] = with_password(env[var], password)


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit("usage: pgaq-entrypoint COMMAND [ARG...]")
    env = dict(os.environ)
    prepare(env)
    os.execvpe(argv[0], argv, env)


if __name__ == "__main__":
    main(sys.argv[1:])
