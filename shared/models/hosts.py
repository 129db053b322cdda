"""Where the admin may point a model, since every user's text is sent there (docs/trust-model.md).

Refused: schemes other than http(s), a user or password in the URL, link-local addresses
(169.254.0.0/16, fe80::/10) and the clouds' metadata services (they hand out the machine's own
credentials), written in any form the system's resolver reads (2852039166, 0251.0376.0251.0376,
::ffff:169.254.169.254); and, when the operator sets ARTISAN_MODEL_HOSTS_ALLOWED, every host it
does not name. Loopback and private addresses are allowed — local models live there — and said
as such. A name is resolved, bounded by a timeout, and every address it stands for must pass; a
name that does not resolve now may still be saved (a model server that is not up yet), shown as
"unresolved". A name that resolves elsewhere after its check (DNS rebinding) is caught only by the
next check: saving, "Test connection", re-embedding."""

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from shared.config import REMOTE_EMBEDDERS, ModelSettings

Network = Literal["loopback", "private", "public", "unresolved"]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]
Role = Literal["chat", "embeddings"]

RESOLVE_TIMEOUT_SECONDS = 2.0
# where the clients go when no base URL is given
DEFAULT_ENDPOINTS = {
    "chat": "https://api.openai.com/v1",
    "voyage": "https://api.voyageai.com/v1",
    "openai": "https://api.openai.com/v1",
}
# AWS (also Azure, GCP, Oracle at 169.254.169.254), AWS over IPv6, Alibaba, Oracle's legacy
# address, Azure's platform endpoint: none is a model, each answers with the machine's secrets
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(address)
    for address in (
        "169.254.169.254",
        "fd00:ec2::254",
        "100.100.100.200",
        "192.0.0.192",
        "168.63.129.16",
    )
)
METADATA_NAMES = frozenset(
    {
        "metadata.google.internal",
        "metadata.goog",
        "metadata",
        "instance-data",
        "instance-data.ec2.internal",
    }
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_INET_ATON_FORM = re.compile(r"[0-9a-fx.]+")  # what the C resolver may read as an IPv4 address
USE_THE_SERVERS_ADDRESS = (
    "use the model server's own address (127.0.0.1, localhost or a private address is fine)"
)


class ModelHostRefused(ValueError):
    """An endpoint the rules refuse; the message says why and what to do instead."""


@dataclass(frozen=True)
class AllowedHost:
    host: str
    port: int | None = None  # None: any port

    def admits(self, host: str, port: int) -> bool:
        return _same_host(self.host, host) and self.port in (None, port)


def allowed_hosts(setting: str) -> list[AllowedHost]:
    """ARTISAN_MODEL_HOSTS_ALLOWED as hosts: "ollama, 10.0.0.5:8000, [::1]:11434"."""
    allowed = []
    for entry in (part.strip().lower() for part in setting.split(",")):
        if not entry:
            continue
        if entry.count(":") > 1 and not entry.startswith("["):
            allowed.append(AllowedHost(entry))  # a bare IPv6 address
            continue
        parts = urlsplit(f"//{entry}")
        allowed.append(AllowedHost(parts.hostname or entry, parts.port))
    return allowed


def endpoints_of(settings: ModelSettings) -> dict[Role, str]:
    """The addresses these settings send text to: the chat model's and a remote embedder's."""
    found: dict[Role, str] = {}
    if settings.remote_llm:
        found["chat"] = settings.llm_base_url or DEFAULT_ENDPOINTS["chat"]
    kind = settings.embedder_kind
    if kind in REMOTE_EMBEDDERS:
        base_url = settings.voyage_base_url if kind == "voyage" else settings.openai_base_url
        found["embeddings"] = base_url or DEFAULT_ENDPOINTS[kind]
    return found


def checked_host(url: str, allowed: Sequence[AllowedHost] = ()) -> tuple[str, int]:
    """The host and port of an endpoint that passes every rule but name resolution."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or _has_space(url):
        raise ModelHostRefused(
            "must be an http:// or https:// address, e.g. https://api.openai.com/v1"
        )
    if parts.username is not None or parts.password is not None:
        raise ModelHostRefused("must not hold a user or password: put the key in the API key field")
    host = _ascii_host(parts.hostname)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise ModelHostRefused("has a port that is not a number from 1 to 65535") from None
    if host in METADATA_NAMES:
        raise _metadata(host)
    if (literal := literal_address(host)) is not None:
        network_of(literal)
    if allowed and not any(entry.admits(host, port) for entry in allowed):
        raise ModelHostRefused(
            f"must be one of the model hosts this Artisan's operator allows"
            f" (ARTISAN_MODEL_HOSTS_ALLOWED: {', '.join(_said(entry) for entry in allowed)}):"
            " choose one of them, or ask the operator to add this one"
        )
    return host, port


async def vet(
    url: str,
    *,
    allowed: Sequence[AllowedHost] = (),
    resolve: Resolver | None = None,
) -> Network:
    """Where an endpoint is, once it passes every rule, also for the addresses its name
    resolves to now; raises ModelHostRefused."""
    host, port = checked_host(url, allowed)
    if (literal := literal_address(host)) is not None:
        return network_of(literal)
    try:
        async with asyncio.timeout(RESOLVE_TIMEOUT_SECONDS):
            addresses = await (resolve or resolve_host)(host, port)
    except (OSError, UnicodeError, TimeoutError):  # socket.gaierror is an OSError
        return "unresolved"
    networks = {network_of(_address(found)) for found in addresses}
    for network in ("loopback", "private", "public"):
        if network in networks:
            return network  # type: ignore[return-value]
    return "unresolved"


async def resolve_host(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def literal_address(host: str) -> IPAddress | None:
    """The address a host written as one stands for, in every form the resolver reads: also
    2852039166, 0xa9fea9fe and 0251.0376.0251.0376 (inet_aton's), not only 169.254.169.254."""
    try:
        return _address(host)
    except ValueError:
        pass
    if _INET_ATON_FORM.fullmatch(host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None  # a name made of hex letters ("cafe.face"): resolved as a name
    return None


def network_of(address: IPAddress) -> Network:
    """Loopback, private or public; raises for link-local and metadata addresses."""
    if (inside := _embedded_ipv4(address)) is not None:
        return network_of(inside)
    if address in METADATA_ADDRESSES:
        raise _metadata(str(address))
    if address.is_link_local:
        raise ModelHostRefused(
            f"must not be a link-local address ({address}: 169.254.x.x or fe80::): no model"
            f" server lives there, but the cloud's metadata service does; {USE_THE_SERVERS_ADDRESS}"
        )
    if address.is_loopback or address.is_unspecified:  # 0.0.0.0 connects to this machine
        return "loopback"
    return "public" if address.is_global else "private"


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries: mapped (::ffff:a.b.c.d), 6to4, NAT64, compatible."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped or address.sixtofour:
        return address.ipv4_mapped or address.sixtofour
    if address in _NAT64 or (address in _IPV4_COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _address(text: str) -> IPAddress:
    return ipaddress.ip_address(text.split("%", 1)[0])  # fe80::1%eth0: the zone is no part of it


def _ascii_host(host: str) -> str:
    """The host as the resolver sees it: "１２７.０.０.１" is 127.0.0.1, "metadata." is metadata."""
    if "%" in host and literal_address(host) is None:
        raise ModelHostRefused("must name its host without %-escapes")
    try:
        ascii_host = host if host.isascii() else host.encode("idna").decode("ascii")
    except UnicodeError:
        raise ModelHostRefused("has a host name that is not valid") from None
    return ascii_host.lower().rstrip(".")


def _same_host(allowed: str, host: str) -> bool:
    allowed_address, address = literal_address(allowed), literal_address(host)
    if allowed_address is not None or address is not None:
        return allowed_address == address
    return allowed.rstrip(".") == host


def _said(entry: AllowedHost) -> str:
    host = f"[{entry.host}]" if ":" in entry.host else entry.host
    return host if entry.port is None else f"{host}:{entry.port}"


def _has_space(url: str) -> bool:
    return any(character.isspace() for character in url)


def _metadata(where: str) -> ModelHostRefused:
    return ModelHostRefused(
        f"must not be a cloud metadata service ({where}): it hands out this machine's"
        f" credentials, and no model lives there; {USE_THE_SERVERS_ADDRESS}"
    )
