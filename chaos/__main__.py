"""`python -m chaos`: CHAOS_MESSAGES, CHAOS_SEED, CHAOS_KILLS, CHAOS_DRAIN_TIMEOUT."""

from __future__ import annotations

import asyncio
import sys

from .driver import Settings, run


def main() -> int:
    report = asyncio.run(run(Settings.from_env()))
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
