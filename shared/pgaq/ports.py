"""Free local ports for servers started by this machine's processes (`pgaq up --port 0`,
private clusters, the tests' and bench's gateways).

`bind(("", 0))` alone is not enough: the kernel may hand the same port to two processes
that ask before either server binds it, and servers that listen with SO_REUSEPORT (the
gateway's worker group, the bench's HTTP floor) then share it without an error, each
getting some of the other's connections. So a port is picked below the kernel's ephemeral
range (where no outgoing connection can take it meanwhile) and claimed for CLAIM_SECONDS
by a file that other callers on the machine respect: long enough for the caller's server
to bind, after which the bind check finds it busy anyway.
"""

from __future__ import annotations

import os
import random
import socket
import tempfile
import time
from pathlib import Path

from .errors import ConfigError

CLAIM_SECONDS = 120.0
LOWEST = 10000
ATTEMPTS = 500


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def _claims() -> Path | None:
    where = Path(tempfile.gettempdir()) / f"pgaq-ports-{os.getuid()}"
    try:
        where.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return where


def _claim(where: Path | None, port: int) -> bool:
    """Whether this caller now holds `port`'s claim (taking over a stale one)."""
    if where is None:
        return True
    path = where / str(port)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        return True
    except FileExistsError:
        try:
            if time.time() - path.stat().st_mtime < CLAIM_SECONDS:
                return False
            os.utime(path)
            return True
        except OSError:
            return False
    except OSError:
        return True  # claims unusable here: the bind check alone


def _bindable(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing on `host` listens on, claimed against this machine's other callers."""
    high = _ephemeral_low()
    if high - LOWEST < 1000:  # an unusual ephemeral range: the kernel's choice
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((host, 0))
            return int(s.getsockname()[1])
    where = _claims()
    pick = random.SystemRandom()
    for _ in range(ATTEMPTS):
        port = pick.randrange(LOWEST, high)
        if _claim(where, port) and _bindable(host, port):
            return port
    raise ConfigError(f"no free local port found in {LOWEST}-{high - 1}")
