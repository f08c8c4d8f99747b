#!/usr/bin/env python3
"""Prints the pip requirements of an image stage, read from pyproject.toml.

The images install the dependencies in a layer of their own, before the sources are
copied, so that a change of code rebuilds in seconds and a change of pins reinstalls.

    requirements.py PYPROJECT            # build-system requires and [project] dependencies
    requirements.py PYPROJECT stats      # what the statistics image adds: the `stats` extra
                                         # and any PySpark requirement not already installed

The second form keeps the stats image working whether PySpark is a dependency or moves to
an extra (of any name).
"""

from __future__ import annotations

import re
import sys
import tomllib


def name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def requirements(pyproject: dict[str, object], stage: str) -> list[str]:
    project = pyproject["project"]
    assert isinstance(project, dict)
    core: list[str] = list(project.get("dependencies", []))
    if stage == "runtime":
        build = pyproject.get("build-system", {})
        assert isinstance(build, dict)
        return [*build.get("requires", []), *core]
    extras: dict[str, list[str]] = project.get("optional-dependencies", {})
    have = {name(r) for r in core}
    wanted = list(extras.get(stage, []))
    wanted += [r for reqs in extras.values() for r in reqs if name(r) == "pyspark"]
    seen: set[str] = set()
    out = []
    for r in wanted:
        if name(r) not in have and name(r) not in seen:
            seen.add(name(r))
            out.append(r)
    return out


def main(argv: list[str]) -> None:
    with open(argv[0], "rb") as f:
        data = tomllib.load(f)
    for r in requirements(data, argv[1] if len(argv) > 1 else "runtime"):
        print(r)


if __name__ == "__main__":
    main(sys.argv[1:])
