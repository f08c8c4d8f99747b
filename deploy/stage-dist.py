#!/usr/bin/env python3
"""Copies the files one installed distribution put into a virtualenv to a staging root.

    stage-dist.py pgaq /stage     # /opt/pgaq/lib/.../pgaq/... -> /stage/opt/pgaq/lib/.../pgaq/...

The images take the dependencies (a large layer that changes with the pins) and pgaq itself
(a small one that changes with every commit) from two stages, so a change of code copies
only pgaq's own files; this lists them from the installed RECORD.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import sys
from pathlib import Path


def main(name: str, stage: str) -> None:
    files = importlib.metadata.distribution(name).files or []
    for f in files:
        src = Path(str(f.locate())).resolve()
        if src.is_file():
            dest = Path(stage) / src.relative_to("/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
