"""`python -m pressure` (`make pressure`): PRESSURE_CELLS, PRESSURE_RATE, PRESSURE_STRICT and
the cells' durations; `python -m pressure --settings` lists every knob (docs/chaos.md).
SIGTERM (or Ctrl-C) stops the run and removes its cluster."""

from __future__ import annotations

import asyncio
import sys

from chaos.stopping import run_stoppable

from .driver import Settings, run


def main(argv: list[str]) -> int:
    if "--settings" in argv:
        for name, default, what in Settings.doc():
            print(f"{name:<26} {default:<32} {what}")
        return 0
    try:
        cells = run_stoppable(run(Settings.from_env()))
    except (asyncio.CancelledError, KeyboardInterrupt):
        print("pressure: stopped", flush=True)
        return 1
    return 0 if cells and all(c.passed for c in cells) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
