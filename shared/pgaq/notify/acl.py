"""Where http(s) notifications may go: the operator's allow/deny list (aq.notification_hosts).

Registration checks the URL's host in SQL (aq.notification_host_allowed); delivery checks
again with the list as the notifier read it for that attempt: the host before connecting
(aiohttp connects to IP literals without asking the resolver), and a name's every address
in the resolver, so a name cannot be pointed at a denied network after it was registered.
IPv4-mapped IPv6 addresses are judged as the IPv4 address they are; numeric hosts that
are not dotted quads (2130706433, 0x7f.1, 127.1) are refused outright.
A refusal by the list names it (POLICY): the notifier retries those, since an operator may
allow the host before the last attempt; a malformed host is no policy and is final.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# in every refusal by the list: the notifier recognises those by it (aiohttp drops the
# resolver's exception text and keeps only its str), and operators see what refused
POLICY = "refused by the notification host policy (aq.notification_hosts)"


def policy_refusal(text: str) -> bool:
    return POLICY in text


def _ip(text: str) -> Address | None:
    try:
        ip = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _odd_numeric(host: str) -> bool:
    """A host whose last label is a number but which is no dotted quad: C resolvers read
    such names as IPv4 addresses in other notations."""
    name = host.lower().strip("[]").rstrip(".")
    last = name.rsplit(".", 1)[-1]
    if ":" in name or not (last.isdigit() or last.startswith("0x")):
        return False
    parts = name.split(".")
    return not (len(parts) == 4 and all(p.isdigit() and str(int(p)) == p and int(p) < 256
                                        for p in parts))


def _net(pattern: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(pattern, strict=False)
    except ValueError:
        return None


@dataclass(frozen=True)
class HostRules:
    entries: tuple[tuple[str, bool], ...] = ()  # (pattern, allow)

    @staticmethod
    def _name_match(pattern: str, name: str) -> bool:
        if pattern == name:
            return True
        return pattern.startswith("*.") and name.endswith(pattern[1:])

    @staticmethod
    def _ip_match(pattern: str, ip: Address | None) -> bool:
        net = _net(pattern)
        return ip is not None and net is not None and ip.version == net.version and ip in net

    def _verdicts(self, name: str, ip: Address | None) -> list[bool]:
        return [allow for pattern, allow in self.entries
                if self._name_match(pattern, name) or self._ip_match(pattern, ip)]

    def host_allowed(self, host: str) -> bool:
        """As aq.notification_host_allowed: an allow entry matches and no deny entry does."""
        name = host.lower().strip("[]")
        verdicts = self._verdicts(name, _ip(name))
        return any(verdicts) and all(verdicts)

    @staticmethod
    def malformed(host: str) -> str | None:
        """Why a host can never be connected to whatever the list says (final)."""
        if _odd_numeric(host):
            return f"notifications may not go to {host}: write IP addresses as dotted quads"
        return None

    def host_refusal(self, host: str) -> str | None:
        """Why the list refuses a URL's host before connecting: an IP literal judged as the
        address it is, a name by the name (its addresses are the resolver's to check)."""
        ip = _ip(host)
        if ip is None:
            allowed = self.host_allowed(host)
        else:
            allowed = self.host_allowed(str(ip)) and self.address_allowed(str(ip), str(ip))
        return None if allowed else f"notifications may not go to {host}: {POLICY}"

    def literal_refusal(self, host: str) -> str | None:
        """Why a URL's host may not be connected to when it is an IP literal (or looks like
        one); None for an allowed literal and for names, which the resolver checks."""
        malformed = self.malformed(host)
        if malformed is not None or _ip(host) is None:
            return malformed
        return self.host_refusal(host)

    def address_allowed(self, host: str, address: str) -> bool:
        """A resolved address of an allowed host: refused when a deny entry covers it, and,
        unless the host was allowed by name, it must itself be covered by an allow entry."""
        ip = _ip(address)
        if ip is None:
            return False
        on_ip = [allow for pattern, allow in self.entries if self._ip_match(pattern, ip)]
        if not all(on_ip):
            return False
        name = host.lower().strip("[]")
        by_name = [allow for pattern, allow in self.entries if self._name_match(pattern, name)]
        return (any(by_name) and all(by_name)) or (any(on_ip) and all(on_ip))


class GuardedResolver(AbstractResolver):
    """Resolves as usual, then drops the addresses the rules do not allow; none left is a
    connection error the delivery reports."""

    def __init__(self, rules: Callable[[], HostRules], inner: AbstractResolver | None = None) -> None:
        self._rules = rules
        self._inner = inner or DefaultResolver()

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        rules = self._rules()
        if not rules.host_allowed(host):
            raise OSError(f"notifications may not go to {host}: {POLICY}")
        found = await self._inner.resolve(host, port, family)
        kept = [r for r in found if rules.address_allowed(host, r["host"])]
        if not kept:
            raise OSError(f"notifications may not go to {host}: it resolves only to addresses "
                          f"{POLICY}")
        return kept

    async def close(self) -> None:
        await self._inner.close()


def rules_from_rows(rows: list[Any]) -> HostRules:
    return HostRules(tuple((str(r["pattern"]), bool(r["allow"])) for r in rows))
