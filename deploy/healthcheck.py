#!/usr/bin/env python3
"""The pgaq image's health check (compose `healthcheck:`), standard library only.

    pgaq-healthcheck http http://127.0.0.1:8081/health   # any pgaq service: /health (database reachable)
    pgaq-healthcheck process pgaq_services.monitor       # a process without HTTP: is it running?

`process` looks for a live (not zombie, not stopped) process whose command line is
`python -m <module>`, whatever its pid (under `init: true` the service is not pid 1).
Exit 0 when healthy, 1 with a reason on stderr otherwise.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request
from pathlib import Path


def http(url: str, timeout: float = 4.0) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return None if resp.status == 200 else f"{url} answered {resp.status}"
    except urllib.error.HTTPError as exc:
        return f"{url} answered {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        return f"{url}: {exc}"


def _state(pid: str) -> str:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0]


def process(module: str, proc: Path = Path("/proc")) -> str | None:
    me = str(os.getpid())
    for entry in proc.iterdir():
        if not entry.name.isdigit() or entry.name == me:
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            if argv[1:3] == [b"-m", module.encode()] and _state(entry.name) not in ("Z", "T", "X"):
                return None
        except OSError:
            continue  # it ended meanwhile
    return f"no running `python -m {module}`"


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("http", "process"):
        print("usage: pgaq-healthcheck http URL | process MODULE", file=sys.stderr)
        return 2
    problem = http(argv[1]) if argv[0] == "http" else process(argv[1])
    if problem:
        print(problem, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
