"""Authentication of AQ agents: HTTP Basic (a short cache in front of the slow hash) and
TLS client certificates (the certificate's subject DN against each agent's
certificate_location), the two ways Oracle's AQ servlet logs clients in (Oracle Streams
Advanced Queuing User's Guide and Reference, Release 10.1, chapter 17 "Internet Access to
Oracle Streams AQ")."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import logging
import time
from collections.abc import Mapping

import asyncpg

from ..listener import Listener
from ..queries import load

CHANNEL = "aq_agents"  # notified by aq.agents_changed() on any change to aq.agents
log = logging.getLogger("pgaq.idap.auth")


def parse_basic(header: str | None) -> tuple[str, str] | None:
    if not header or not header[:6].lower() == "basic ":
        return None
    try:
        raw = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    user, sep, password = raw.partition(":")
    if not sep or not user or len(user) > 128 or len(password) > 1024:
        return None
    if "\x00" in raw:  # no agent name or password holds NUL; PostgreSQL text cannot
        return None
    return user, password


# -- TLS client certificates: distinguished names

Dn = tuple[tuple[tuple[str, str], ...], ...]  # RDNs in written order, each its sorted AVAs


def _dn_types() -> dict[str, str]:
    """Attribute type spellings -> the short upper-case name compared: RFC 4514's short
    names, OpenSSL's long names (Python's getpeercert()), OIDs, and the aliases OpenSSL and
    Oracle wallets print (E, EMAIL, S, T)."""
    names = {
        "CN": ("commonname", "2.5.4.3"), "SN": ("surname", "2.5.4.4"),
        "SERIALNUMBER": ("2.5.4.5",), "C": ("countryname", "2.5.4.6"),
        "L": ("localityname", "2.5.4.7"), "ST": ("stateorprovincename", "s", "2.5.4.8"),
        "STREET": ("streetaddress", "2.5.4.9"), "O": ("organizationname", "2.5.4.10"),
        "OU": ("organizationalunitname", "2.5.4.11"), "TITLE": ("t", "2.5.4.12"),
        "GN": ("givenname", "2.5.4.42"), "INITIALS": ("2.5.4.43",),
        "GENERATIONQUALIFIER": ("2.5.4.44",), "DNQ": ("dnqualifier", "2.5.4.46"),
        "PSEUDONYM": ("2.5.4.65",), "UID": ("userid", "0.9.2342.19200300.100.1.1"),
        "DC": ("domaincomponent", "0.9.2342.19200300.100.1.25"),
        "EMAILADDRESS": ("e", "email", "1.2.840.113549.1.9.1"),
    }
    return {alias: short for short, aliases in names.items() for alias in (short.lower(), *aliases)}


_DN_TYPES = _dn_types()
_HEX = frozenset("0123456789abcdefABCDEF")


def _dn_type(attr: str) -> str:
    key = attr.strip().lower()
    key = key[4:] if key.startswith("oid.") else key
    return _DN_TYPES.get(key, key.upper())


def _dn_value(value: str) -> str:
    """LDAP's caseIgnoreMatch: case folded, outer space dropped, inner runs of space one."""
    return " ".join(value.split()).casefold()


def _parse_rfc4514(text: str) -> Dn | None:
    rdns: list[tuple[tuple[str, str], ...]] = []
    avas: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while True:
        eq = text.find("=", i)
        if eq < 0:
            return None
        attr = text[i:eq].strip()
        if not attr or any(c in attr for c in ',+;"\\'):
            return None
        i = eq + 1
        while i < n and text[i] == " ":
            i += 1
        quoted = i < n and text[i] == '"'
        if quoted:
            i += 1
        value = bytearray()
        while True:
            if i >= n:
                if quoted:
                    return None  # no closing quote
                break
            c = text[i]
            if quoted and c == '"':
                i += 1
                while i < n and text[i] == " ":
                    i += 1
                if i < n and text[i] not in ",;+":
                    return None
                break
            if not quoted and c in ",;+":
                break
            if not quoted and c == '"':
                return None  # RFC 4514: escaped, or the whole value quoted
            if c == "\\":
                pair = text[i + 1:i + 3]
                if len(pair) == 2 and _HEX.issuperset(pair):
                    value.append(int(pair, 16))
                    i += 3
                    continue
                if i + 1 >= n:
                    return None  # a trailing backslash
                c = text[i + 1]
                i += 1
            value += c.encode("utf-8", "surrogatepass")
            i += 1
        try:
            decoded = value.decode("utf-8")
        except UnicodeDecodeError:
            return None
        avas.append((_dn_type(attr), _dn_value(decoded)))
        if i >= n:
            rdns.append(tuple(sorted(avas)))
            return tuple(rdns)
        sep = text[i]
        i += 1
        if sep != "+":
            rdns.append(tuple(sorted(avas)))
            avas = []


def parse_dn(text: str | None) -> Dn | None:
    """A distinguished name as compared for certificate login, None when it is none.

    Read: RFC 4514 (`CN=john,O=Acme,C=US`, escapes `\\,` and `\\2C`, multi-valued
    `+`), RFC 1779's `;` and quoted values, and OpenSSL's one-line `/C=US/O=Acme/CN=john`.
    Compared: attribute types by meaning (CN, commonName and 2.5.4.3 alike), values as LDAP
    compares directory strings (case and runs of space ignored), RDNs in written order;
    the caller also tries the reverse order (see Authenticator.check_certificate)."""
    if text is None:
        return None
    text = text.strip()
    if not text:
        return None
    if not text.startswith("/"):
        return _parse_rfc4514(text)
    rdns: list[tuple[tuple[str, str], ...]] = []
    for part in (p for p in text.split("/") if p.strip()):
        got = _parse_rfc4514(part)
        if got is None or len(got) != 1:
            return None
        rdns.append(got[0])
    return tuple(rdns) or None


def _escape_dn_value(value: str) -> str:
    """RFC 4514's escaping, and \\XX for anything outside printable ASCII, so that the
    string can travel in an HTTP header (workers.Forwarder) unchanged."""
    out: list[str] = []
    last = len(value) - 1
    for k, ch in enumerate(value):
        if ch in ',+"\\<>;=' or (k == 0 and ch in "# ") or (k == last and ch == " "):
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.append("".join(f"\\{b:02X}" for b in ch.encode("utf-8", "surrogatepass")))
    return "".join(out)


def certificate_subject(peercert: object) -> str | None:
    """The subject DN, as an RFC 4514 string, of a peer certificate the TLS handshake
    verified: ssl's getpeercert() dict, which an asyncio or uvloop TLS transport keeps as
    its "peercert" extra (empty or None when the client sent no certificate)."""
    if not isinstance(peercert, Mapping):
        return None
    subject = peercert.get("subject")
    if not subject:
        return None
    try:
        rdns = ["+".join(f"{_dn_type(str(name))}={_escape_dn_value(str(value))}"
                         for name, value in rdn) for rdn in reversed(subject)]
    except (TypeError, ValueError):
        return None
    return ",".join(rdns) or None


CertIndex = dict[Dn, list[tuple[str, bool]]]  # DN -> [(agent, enable_http)]


class Authenticator:
    """Checks agent passwords in the database (a salted slow hash) and remembers recent
    successes for `ttl` seconds, keyed by a digest of the credentials (never stored)."""

    def __init__(self, pool: asyncpg.Pool, ttl: float = 30.0, max_entries: int = 10_000) -> None:
        self.pool = pool
        self.ttl = ttl
        self.max_entries = max_entries
        self._ok: dict[bytes, tuple[float, str]] = {}
        self._pending: dict[bytes, asyncio.Future[str | None]] = {}
        # digest of a verified Authorization header -> (expiry, agent): a client repeats
        # its header verbatim, so a hit skips the decoding (the header is never stored)
        self._headers: dict[bytes, tuple[float, str]] = {}
        self._generation = 0  # bumped by forget(): a check begun before it is not cached
        # certificate login: verified subject -> (expiry, agent), and the agents that name a
        # certificate, by normalised DN (loaded at most once per ttl, dropped by forget())
        self._subjects: dict[str, tuple[float, str]] = {}
        self._index: tuple[float, CertIndex] | None = None
        self._index_pending: asyncio.Future[CertIndex] | None = None

    async def check_request(self, header: str | None, subject: str | None) -> str | None:
        """The agent a request logs in as: by its verified TLS client certificate's subject
        when it sent one, else by its Basic Authorization header.

        A certificate must name exactly one HTTP-enabled agent, whatever the header says; a
        request carrying both is let in only when both are valid and name the same agent (two
        identities in one request is a client mistake or an attack, never a choice to make)."""
        if subject is None:
            return await self.check_header(header)
        agent = await self.check_certificate(subject)
        if agent is None or header is None:
            return agent
        return agent if await self.check_header(header) == agent else None

    async def check_certificate(self, subject: str) -> str | None:
        """The agent whose certificate_location is this certificate subject (RFC 4514, as
        certificate_subject() writes it), when it is the only such agent and may use HTTP."""
        hit = self._subjects.get(subject)
        if hit is not None and hit[0] > time.monotonic():
            return hit[1]
        dn = parse_dn(subject)
        if dn is None:
            return None
        generation = self._generation
        found = (await self._certificate_index()).get(dn, [])
        if len(found) != 1:
            if found:
                log.warning("certificate %s names %d agents (%s): refused", subject, len(found),
                            ", ".join(sorted(name for name, _ in found)))
            return None
        agent, http = found[0]
        if not http:
            return None
        if generation == self._generation:
            if len(self._subjects) >= self.max_entries:
                self._subjects.clear()
            self._subjects[subject] = (time.monotonic() + self.ttl, agent)
        return agent

    async def _certificate_index(self) -> CertIndex:
        """The agents that name a certificate, by DN in both orders (a location may be
        written most specific first, as RFC 4514, or as the certificate lists it, as
        `openssl x509 -subject` prints). One load serves concurrent callers."""
        index = self._index
        if index is not None and index[0] > time.monotonic():
            return index[1]
        pending = self._index_pending
        if pending is None:
            pending = asyncio.ensure_future(self._load_index(self._generation))
            self._index_pending = pending

            def done(f: asyncio.Future[CertIndex]) -> None:
                if self._index_pending is f:
                    self._index_pending = None

            pending.add_done_callback(done)
        return await asyncio.shield(pending)

    async def _load_index(self, generation: int) -> CertIndex:
        async with self.pool.acquire() as c:
            rows = await c.fetch(load("idap_certificate_agents"))
        index: CertIndex = {}
        for r in rows:
            dn = parse_dn(r["certificate_location"])
            if dn is None:
                log.warning("agent %s: certificate_location is no distinguished name; "
                            "no certificate logs in as it", r["name"])
                continue
            for key in {dn, dn[::-1]}:
                index.setdefault(key, []).append((str(r["name"]), bool(r["enable_http"])))
        if generation == self._generation:
            self._index = (time.monotonic() + self.ttl, index)
        return index

    async def check_header(self, header: str | None) -> str | None:
        """check() for an HTTP Basic Authorization header; None when absent or wrong."""
        if header is None:
            return None
        # BLAKE2b is CPython's own: OpenSSL's sha256 looks its algorithm up on every call,
        # a cost every request pays here
        key = hashlib.blake2b(header.encode("utf-8", "surrogateescape"), digest_size=32).digest()
        hit = self._headers.get(key)
        if hit is not None and hit[0] > time.monotonic():
            return hit[1]
        creds = parse_basic(header)
        if creds is None:
            return None
        generation = self._generation
        agent = await self.check(*creds)
        if agent is not None and generation == self._generation:  # no forget() meanwhile
            if len(self._headers) >= self.max_entries:
                self._headers.clear()
            self._headers[key] = (time.monotonic() + self.ttl, agent)
        return agent

    async def check(self, user: str, password: str) -> str | None:
        """The agent's canonical name when the credentials are right, else None.

        Concurrent checks of the same credentials share one verification: a burst of
        requests (a client's first, or all of them when the cache entry expires) must not
        run the slow hash once per request."""
        key = hashlib.sha256(f"{user}\x00{password}".encode()).digest()
        now = time.monotonic()
        hit = self._ok.get(key)
        if hit and hit[0] > now:
            return hit[1]
        pending = self._pending.get(key)
        generation = self._generation
        if pending is None:
            pending = asyncio.ensure_future(self._verify(user, password))
            self._pending[key] = pending
            pending.add_done_callback(lambda _f: self._pending.pop(key, None))
        agent = await asyncio.shield(pending)
        if agent is not None and generation == self._generation:
            if len(self._ok) >= self.max_entries:
                self._ok.clear()
            self._ok[key] = (time.monotonic() + self.ttl, agent)
        return agent

    async def _verify(self, user: str, password: str) -> str | None:
        try:
            async with self.pool.acquire() as c:
                ok = await c.fetchval(load("idap_authenticate"), user, password)
                agent = await c.fetchval(load("idap_agent_name"), user) if ok else None
        except (asyncpg.DataError, asyncpg.RaiseError):
            return None  # credentials the database cannot even read are wrong ones
        return str(agent) if ok and agent is not None else None

    def forget(self) -> None:
        """Drop every cached success (and any check in flight from being cached)."""
        self._generation += 1
        self._pending.clear()
        self._ok.clear()
        self._headers.clear()
        self._subjects.clear()
        self._index = None
        self._index_pending = None

    async def follow(self, listener: Listener, ready: asyncio.Event) -> None:
        """Forget cached successes whenever an agent changes (and after the listener
        reconnects, when a change may have been missed), so a disabled agent, a dropped
        one or an old password stops working at once rather than when the cache expires."""
        async with listener.subscribe(CHANNEL) as changed:
            ready.set()
            while True:
                await changed.wait()
                changed.clear()
                self.forget()
