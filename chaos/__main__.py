"""`python -m chaos`: CHAOS_MESSAGES, CHAOS_SEED, CHAOS_KILLS, CHAOS_DRAIN_TIMEOUT. SIGTERM
(or Ctrl-C) stops the run and takes its cluster and services down."""

from __future__ import annotations

import asyncio
import sys

from .driver import Settings, run
from .stopping import run_stoppable


def main() -> int:
    try:
        report = run_stoppable(run(Settings.from_env()))
    except (asyncio.CancelledError, KeyboardInterrupt):
        print("chaos: stopped", flush=True)
        return 1
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
