"""The members' network: each PostgreSQL machine (a Patroni member and its server) in a
network namespace of its own, joined to the others, etcd, HAProxy and the clients by a
bridge. Cutting a member off is taking its link down: its packets go nowhere, as when a
machine's network fails (no resets, no refusals, only silence).

Without root or `ip netns` every member runs on loopback instead (`Loopback`), and a
member cannot be cut off."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

PREFIX = "pgaqha"


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


def namespaces_possible() -> bool:
    return os.geteuid() == 0 and shutil.which("ip") is not None


def _links() -> str:
    return subprocess.run(["ip", "-o", "link"], check=True, capture_output=True, text=True).stdout


def _run_of(link: str) -> str | None:
    """The run a link of ours belongs to (`pgaqha<k>` for its bridge and its veths
    `pgaqha<k>v<i>`), or None for another's link."""
    m = re.fullmatch(rf"({PREFIX}\d+)(?:v\d+p?)?", link)
    return m.group(1) if m else None


def _link_names() -> list[str]:
    return [line.split(":")[1].strip().split("@")[0] for line in _links().splitlines()]


def _namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], check=True, capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


@dataclass
class Bridge:
    """Bridge `pgaqha<k>` with 10.213.<k>.1/24; member i is 10.213.<k>.<10+i> in namespace
    `pgaqha<k>-m<i>`. `k` is the first number no other run on this machine uses."""

    members: int
    k: int = -1
    namespaces: list[str] = field(default_factory=list)
    cut: set[int] = field(default_factory=set)

    @property
    def gateway_host(self) -> str:
        """The address the root namespace (etcd, HAProxy, clients) has on the bridge."""
        return f"10.213.{self.k}.1"

    def host(self, i: int) -> str:
        return f"10.213.{self.k}.{10 + i}"

    def namespace(self, i: int) -> str:
        return f"{PREFIX}{self.k}-m{i}"

    def wrap(self, i: int) -> list[str]:
        """The command prefix that runs a program on member i's machine."""
        return ["ip", "netns", "exec", self.namespace(i)]

    def _veth(self, i: int) -> str:
        return f"{PREFIX}{self.k}v{i}"

    def create(self) -> None:
        # a run's number is free when no link has it: a killed run's veth can outlive its
        # namespace for a moment (the kernel takes a deleted namespace down asynchronously)
        taken = {_run_of(name) for name in _link_names()}
        self.k = next(k for k in range(1, 250) if f"{PREFIX}{k}" not in taken)
        br = f"{PREFIX}{self.k}"
        _ip("link", "add", br, "type", "bridge")
        _ip("addr", "add", f"{self.gateway_host}/24", "dev", br)
        _ip("link", "set", br, "up")
        for i in range(1, self.members + 1):
            ns, veth = self.namespace(i), self._veth(i)
            _ip("netns", "add", ns)
            self.namespaces.append(ns)
            _ip("link", "add", veth, "type", "veth", "peer", "name", veth + "p")
            _ip("link", "set", veth + "p", "netns", ns)
            _ip("link", "set", veth, "master", br)
            _ip("link", "set", veth, "up")
            _ip("-n", ns, "addr", "add", f"{self.host(i)}/24", "dev", veth + "p")
            _ip("-n", ns, "link", "set", veth + "p", "up")
            _ip("-n", ns, "link", "set", "lo", "up")

    def cut_off(self, i: int) -> None:
        """Member i's machine loses its network (nothing reaches it, nothing leaves it)."""
        _ip("link", "set", self._veth(i), "down")
        self.cut.add(i)

    def reconnect(self, i: int) -> None:
        _ip("link", "set", self._veth(i), "up")
        self.cut.discard(i)

    def destroy(self) -> None:
        # the veths first, each deleted with its pair at once: a deleted namespace's are
        # taken down by the kernel later, after this run's number may be reused
        for i in range(1, len(self.namespaces) + 1):
            subprocess.run(["ip", "link", "del", self._veth(i)], capture_output=True, timeout=30)
        for ns in self.namespaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)
        if self.k >= 0:
            subprocess.run(["ip", "link", "del", f"{PREFIX}{self.k}"], capture_output=True, timeout=30)
        self.namespaces.clear()


@dataclass
class Loopback:
    """Every member on 127.0.0.1 (no root): the same cluster, but no member can be cut off."""

    members: int
    gateway_host: str = "127.0.0.1"

    def host(self, i: int) -> str:
        return "127.0.0.1"

    def wrap(self, i: int) -> list[str]:
        return []

    def create(self) -> None:
        pass

    def cut_off(self, i: int) -> None:
        raise RuntimeError("cutting a member off needs network namespaces (root and `ip netns`)")

    def reconnect(self, i: int) -> None:
        raise RuntimeError("cutting a member off needs network namespaces (root and `ip netns`)")

    def destroy(self) -> None:
        pass


def sweep_stale() -> None:
    """Remove namespaces and bridges left by a run that was killed (their processes are gone:
    a namespace of a live run keeps its member's processes and is left alone)."""
    for ns in _namespaces():
        if not ns.startswith(PREFIX):
            continue
        pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
        if not pids:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    live = {ns.split("-")[0] for ns in _namespaces() if ns.startswith(PREFIX)}
    for name in _link_names():
        run = _run_of(name)
        if run is not None and run not in live:  # (deleting a veth's end deletes the pair)
            subprocess.run(["ip", "link", "del", name], capture_output=True)
