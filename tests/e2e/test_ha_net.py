"""The HA harness's network (ha/net.py) after a run that was killed: its namespaces, bridge
and veths are swept and the next run's network is made, even while the kernel is still
taking the killed run's namespaces down (it does so asynchronously)."""

from __future__ import annotations

import subprocess

import pytest

from ha.net import PREFIX, Bridge, namespaces_possible, sweep_stale


def _ours() -> set[str]:
    links = subprocess.run(["ip", "-o", "link"], check=True, capture_output=True, text=True).stdout
    names = {line.split(":")[1].strip().split("@")[0] for line in links.splitlines()}
    spaces = subprocess.run(["ip", "netns", "list"], check=True, capture_output=True, text=True).stdout
    return {n for n in names if n.startswith(PREFIX)} | {
        line.split()[0] for line in spaces.splitlines() if line.startswith(PREFIX)}


@pytest.mark.skipif(not namespaces_possible(), reason="needs root and `ip netns`")
def test_a_killed_runs_network_is_swept_and_the_next_run_made_at_once() -> None:
    before = _ours()
    for _ in range(3):  # each round: a run killed (nothing destroyed), swept, made again
        killed = Bridge(members=3)
        killed.create()
        sweep_stale()
        assert not (_ours() - before), "the killed run's links and namespaces are gone"
        again = Bridge(members=3)
        try:
            again.create()
            assert len(again.namespaces) == 3
        finally:
            again.destroy()
    assert _ours() == before
