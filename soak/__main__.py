"""`python -m soak`: SOAK_RATE, SOAK_SECONDS, SOAK_SAMPLE, SOAK_RETENTION, SOAK_TOLERANCE,
SOAK_MAX_MIB_PER_HOUR (docs/operations.md)."""

from __future__ import annotations

import asyncio
import sys

from .runner import run, save_summary
from .settings import Settings


def main() -> int:
    checks, out = asyncio.run(run(Settings.from_env()))
    save_summary(checks, out)
    for c in checks:
        print(f"{'ok  ' if c.ok else 'FAIL'} {c.name:<45} {c.detail}")
    failed = [c for c in checks if not c.ok]
    print(f"soak: {'PASS' if not failed else f'FAIL ({len(failed)} checks)'}; series in {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
