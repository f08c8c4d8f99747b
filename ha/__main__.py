"""`python -m ha` (`make ha-test`): pgaq through a SIGKILLed primary, a switchover and a
partition; exits 1 on any violation. `python -m ha --settings` lists the knobs. SIGTERM (or
Ctrl-C) stops the run: its members, services and network are taken down, as at its end."""

from __future__ import annotations

import asyncio
import os
import sys

from pgaq.logs import setup_logging

from chaos.stopping import run_stoppable

from .driver import run
from .settings import Settings


def main() -> int:
    if "--settings" in sys.argv[1:]:
        print(Settings.describe())
        return 0
    # the run's own clients log as the services do: one line each, level PGAQ_LOG_LEVEL
    setup_logging(os.environ.get("PGAQ_LOG_LEVEL", "ERROR"))
    try:
        res = run_stoppable(run(Settings.from_env()))
    except (asyncio.CancelledError, KeyboardInterrupt):
        print("ha: stopped", flush=True)
        return 1
    return 1 if res.violations else 0


if __name__ == "__main__":
    sys.exit(main())
