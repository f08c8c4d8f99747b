"""free_port: no two callers on the machine get the same port while one may still be
about to bind it, and no port an outgoing connection could take meanwhile."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from pgaq.ports import free_port

ASK = "from pgaq.ports import free_port\nprint(*(free_port() for _ in range(150)))"


def test_concurrent_callers_never_share_a_port() -> None:
    procs = [subprocess.Popen([sys.executable, "-c", ASK], stdout=subprocess.PIPE, text=True)
             for _ in range(3)]
    got = [int(p) for proc in procs for p in proc.communicate(timeout=60)[0].split()]
    got += [free_port() for _ in range(150)]
    assert len(got) == 600 and len(set(got)) == 600


def test_ports_lie_below_the_ephemeral_range_and_can_be_listened_on() -> None:
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    for _ in range(20):
        port = free_port()
        assert 1024 <= port < low
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            s.bind(("127.0.0.1", port))
            s.listen()
