"""docker-compose.yml started for real on Debian's podman (tests/e2e/test_compose_up.py,
`make compose-test`): the base image, the builds, the compose runner, the health checks.

- The base image `debian:bookworm-slim` is taken from podman's store when there; otherwise
  made with `debootstrap --variant=minbase` from the Debian mirror apt uses and imported
  (no image registry is needed). Built layers stay in podman's store between runs.
- The images are built from what the compose file says (dockerfile, target, image name),
  with `--network host` and the host's CA bundle as the build secret `pip_cert`.
- Compose is Debian's docker-compose against podman's Docker API (`podman system service`
  on a private socket), so depends_on conditions and restart policies are the
  ones Docker applies.
- Podman schedules health checks with systemd timers; without systemd nothing runs them,
  so `HealthChecker` runs `podman healthcheck run` itself: every second while a container
  is not yet healthy, then at the container's own interval, as Docker does.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
STATE = ROOT / ".pgaq" / "podman"
BASE_IMAGE = "debian:bookworm-slim"
# podman without systemd, on cgroups v1 and with no writable rlimits: what works here
CONTAINERS_CONF = """\
[containers]
default_ulimits = []

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
"""


def missing_tools() -> list[str]:
    return [t for t in ("podman", "docker-compose", "runc") if shutil.which(t) is None]


def unavailable() -> str | None:
    """Why the compose tests cannot run here, or None."""
    missing = missing_tools()
    if missing:
        return f"needs {', '.join(missing)} (deploy/system-deps.sh --test installs them)"
    if os.geteuid() != 0:
        return "needs root (rootful podman, debootstrap)"
    return None


def debian_mirror() -> str:
    """The mirror apt is configured with (deb822 or one-line sources), for debootstrap."""
    sources = [*sorted(Path("/etc/apt/sources.list.d").glob("*.sources")), Path("/etc/apt/sources.list")]
    for path in sources:
        try:
            text = path.read_text()
        except OSError:
            continue
        for stanza in re.split(r"\n\s*\n", text):
            fields = dict(re.findall(r"^(\w[\w-]*):\s*(.+)$", stanza, re.M))
            if "bookworm" in fields.get("Suites", "").split() and not fields.get("Enabled", "yes") == "no":
                return str(fields["URIs"].split()[0])
        m = re.search(r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s", text, re.M)
        if m:
            return str(m[1])
    return "http://deb.debian.org/debian"


def ca_bundle() -> Path | None:
    """The CA bundle pip is configured with here (a network may inspect TLS), for builds."""
    for candidate in (os.environ.get("PIP_CERT"), "/etc/ssl/certs/ca-certificates.crt"):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


@dataclass
class Build:
    image: str
    dockerfile: str
    target: str
    context: Path


class Podman:
    """Podman as root with this machine's settings (CONTAINERS_CONF under `state`)."""

    def __init__(self, state: Path = STATE) -> None:
        self.state = state
        state.mkdir(parents=True, exist_ok=True)
        conf = state / "containers.conf"
        conf.write_text(CONTAINERS_CONF)
        self.env = {**os.environ, "CONTAINERS_CONF": str(conf)}

    def run(self, *args: str, timeout: float = 120, check: bool = True,
            **kw: Any) -> subprocess.CompletedProcess[str]:
        out = subprocess.run(["podman", *args], env=self.env, capture_output=True, text=True,
                             timeout=timeout, **kw)
        if check and out.returncode != 0:
            raise AssertionError(f"podman {' '.join(args)}: exit {out.returncode}\n{out.stderr[-4000:]}")
        return out

    def has_image(self, name: str) -> bool:
        out = self.run("image", "exists", name, check=False)
        if out.returncode not in (0, 1):  # 1: no such image; anything else: podman is broken
            raise AssertionError(f"podman image exists {name}: exit {out.returncode}\n{out.stderr}")
        return out.returncode == 0

    def ensure_base_image(self, name: str = BASE_IMAGE) -> float:
        """Seconds spent making it: 0 when podman's store has it already."""
        if self.has_image(name):
            return 0.0
        t0 = time.monotonic()
        rootfs = self.state / "rootfs"
        shutil.rmtree(rootfs, ignore_errors=True)
        out = subprocess.run(["debootstrap", "--variant=minbase", "bookworm", str(rootfs), debian_mirror()],
                             capture_output=True, text=True, timeout=900)
        if out.returncode != 0:
            raise AssertionError(f"debootstrap failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
        # as the official slim image: no package cache, no apt lists
        for sub in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for f in (rootfs / sub).glob("*"):
                if f.is_file():
                    f.unlink()
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        try:
            self.run("import", "--change", 'CMD ["bash"]', "-", name, stdin=tar.stdout, timeout=600)
        finally:
            assert tar.stdout is not None
            tar.stdout.close()
            tar.wait()
        shutil.rmtree(rootfs, ignore_errors=True)
        return time.monotonic() - t0

    def build(self, builds: list[Build]) -> float:
        """Builds each image as compose would; podman's layer cache makes a rebuild quick."""
        t0 = time.monotonic()
        secret = ca_bundle()
        for b in builds:
            args = ["build", "--network", "host", "--layers", "-f", str(b.context / b.dockerfile),
                    "--target", b.target, "-t", b.image]
            if secret is not None:
                args += ["--secret", f"id=pip_cert,src={secret}"]
            self.run(*args, str(b.context), timeout=1800)
        return time.monotonic() - t0

    @contextlib.contextmanager
    def api(self) -> Iterator[str]:
        """podman's Docker-compatible API on a private socket; yields DOCKER_HOST."""
        # a short path: a socket's path is limited to 107 bytes, a CI checkout's may be long
        sockdir = Path(tempfile.mkdtemp(prefix="pgaq-podman-"))
        sock = sockdir / "api.sock"
        log = (self.state / "service.log").open("w")
        proc = subprocess.Popen(["podman", "system", "service", "--time=0", f"unix://{sock}"],
                                env=self.env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 30
            while not sock.exists():  # another process: nothing to wait on but its socket
                assert proc.poll() is None, (self.state / "service.log").read_text()
                assert time.monotonic() < deadline, "podman system service did not start"
                time.sleep(0.05)
            yield f"unix://{sock}"
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()
            shutil.rmtree(sockdir, ignore_errors=True)

    def inspect(self, name: str) -> dict[str, Any]:
        return dict(json.loads(self.run("inspect", "--type", "container", name).stdout)[0])

    def containers(self, project: str) -> list[Container]:
        """The compose project's containers, with one `podman ps` (cheap enough to poll)."""
        out = self.run("ps", "-a", "--filter", f"label=com.docker.compose.project={project}",
                       "--format", "json")
        found = []
        for c in json.loads(out.stdout or "[]"):
            health = re.search(r"\((healthy|unhealthy|starting)\)", c.get("Status", ""))
            service = (c.get("Labels") or {}).get("com.docker.compose.service", "")
            found.append(Container(c["Names"][0], service, c.get("State", ""), health[1] if health else None))
        return found


@dataclass
class Container:
    name: str
    service: str
    state: str  # running, exited, ...
    health: str | None  # healthy, unhealthy, starting; None: no health check


def builds_of(config: dict[str, Any]) -> list[Build]:
    """One build per image the (resolved) compose file builds, in file order."""
    seen: dict[str, Build] = {}
    for svc in config["services"].values():
        b = svc.get("build")
        if b and svc["image"] not in seen:
            seen[svc["image"]] = Build(svc["image"], b.get("dockerfile", "Dockerfile"), b["target"],
                                       Path(b["context"]))
    return list(seen.values())


def host_network(config: dict[str, Any]) -> dict[str, Any]:
    """The resolved compose file with host networking: every service in the host's network
    namespace (published ports then mean nothing, so they go) and every service name an
    alias of 127.0.0.1. Nothing else changes."""
    out = copy.deepcopy(config)
    names = sorted(out["services"])
    for svc in out["services"].values():
        svc.pop("ports", None)
        svc.pop("networks", None)
        svc["network_mode"] = "host"
        svc["extra_hosts"] = [f"{n}:127.0.0.1" for n in names]
    out.pop("networks", None)
    return out


def network_keys_only(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two resolved compose files, other than networking and ports."""
    diffs = []
    allowed = {"ports", "networks", "network_mode", "extra_hosts"}
    for key in sorted(set(before) | set(after)):
        if key == "services":
            continue
        if key != "networks" and before.get(key) != after.get(key):
            diffs.append(key)
    for name in sorted(set(before["services"]) | set(after["services"])):
        a, b = before["services"].get(name, {}), after["services"].get(name, {})
        for key in sorted(set(a) | set(b)):
            if key not in allowed and a.get(key) != b.get(key):
                diffs.append(f"services.{name}.{key}")
    return diffs


class Compose:
    """docker-compose on the file `path`, project `project`, against podman's API."""

    def __init__(self, path: Path, project: str, docker_host: str, env: dict[str, str]) -> None:
        self.path, self.project = path, project
        self.env = {**env, "DOCKER_HOST": docker_host, "COMPOSE_INTERACTIVE_NO_CLI": "1"}

    def __call__(self, *args: str, timeout: float = 600, check: bool = True) -> subprocess.CompletedProcess[str]:
        out = subprocess.run(["docker-compose", "-f", str(self.path), "-p", self.project,
                              "--project-directory", str(ROOT), *args],
                             cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and out.returncode != 0:
            raise AssertionError(f"docker-compose {' '.join(args)}: exit {out.returncode}\n{out.stderr[-4000:]}")
        return out


def resolved_config(env: dict[str, str]) -> dict[str, Any]:
    """docker-compose.yml as docker-compose resolves it with `env`."""
    out = subprocess.run(["docker-compose", "-f", str(ROOT / "docker-compose.yml"), "config"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return dict(yaml.safe_load(out.stdout))


def write_compose(config: dict[str, Any], path: Path) -> Path:
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


class HealthChecker(threading.Thread):
    """Runs the health checks of the project's containers, as Docker's daemon would."""

    def __init__(self, podman: Podman, project: str, fast: float = 1.0) -> None:
        super().__init__(name="health-checks", daemon=True)
        self.podman, self.project, self.fast = podman, project, fast
        self.stop = threading.Event()
        self.due: dict[str, float] = {}
        self.intervals: dict[str, float] = {}

    def interval(self, name: str) -> float:
        """The container's health check interval in seconds (read once: it never changes)."""
        if name not in self.intervals:
            check = self.podman.inspect(name)["Config"].get("Healthcheck") or {}
            self.intervals[name] = (check.get("Interval") or 30_000_000_000) / 1e9
        return self.intervals[name]

    def run(self) -> None:
        while not self.stop.is_set():
            for c in self.podman.containers(self.project):
                if c.state != "running" or c.health is None:
                    continue
                if c.health == "healthy" and time.monotonic() < self.due.get(c.name, 0):
                    continue
                self.podman.run("healthcheck", "run", c.name, check=False, timeout=60)
                try:
                    self.due[c.name] = time.monotonic() + self.interval(c.name)
                except AssertionError:
                    pass  # gone meanwhile
            self.stop.wait(self.fast)

    def close(self) -> None:
        self.stop.set()
        self.join(60)
