"""The SSRF guard's policy (R14): which addresses a remote MCP server may have, checked once.

``pin_origin`` parses the configured URL the way httpx2 will, resolves its host **once**
through a ``Resolver``, checks **every** address it got, and returns a ``PinnedOrigin``:
the one address every connection of the session goes to (``toolpool.upstream.pinned``).
DNS is not asked again for that session, so a second answer cannot rebind it.

What is refused, first match wins (``allow_private_network = true`` lifts only the rows
marked *private*; everything else is refused always)::

    cloud metadata       169.254.169.254, 169.254.170.2, 169.254.170.23, 100.100.100.200,
                         192.0.0.192, 168.63.129.16, fd00:ec2::254, fd00:ec2::23   always
    unspecified          0.0.0.0/8, ::                                              always
    loopback             127.0.0.0/8, ::1                                           private
    private              10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10           private
    shared (CGNAT)       100.64.0.0/10                                              private
    link-local           169.254.0.0/16, fe80::/10                                  always
    multicast, broadcast 224.0.0.0/4, 255.255.255.255, ff00::/8                     always
    reserved, special    240/4, 192.0.0/24, 192.88.99/24, 100::/64, 2001::/32 (Teredo),
                         2001:10::/28, 2001:20::/28, 64:ff9b:1::/48, ::/96 (IPv4-compatible)
    benchmarking         198.18.0.0/15, 2001:2::/48                                 always
    documentation        192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20
    IPv4 inside IPv6     ::ffff:0:0/96 (mapped), ::ffff:0:0:0/96 (translated), 2002::/16
                         (6to4), 64:ff9b::/96 (NAT64): judged by the IPv4 address inside
    anything else that is not globally routable (``is_global`` is false)            always

Metadata stays refused with the flag because it is never a legitimate MCP server and is the
classic SSRF prize; link-local goes with it, since every cloud puts its instance services
there. Loopback and private ranges are what the flag is for (local servers, tests on
127.0.0.1).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network
from typing import Final, Protocol

import anyio
import httpx2

from toolpool.errors import AddressBlocked, UpstreamUnavailable

__all__ = ["IPAddress", "PinnedOrigin", "Resolver", "SystemResolver", "address_problem", "pin_origin"]

IPAddress = IPv4Address | IPv6Address

_ALWAYS: Final = False  # refused even with allow_private_network
_PRIVATE: Final = True  # refused unless allow_private_network
_EMBEDS_IPV4: Final = "embeds IPv4"

_METADATA = "a cloud metadata address"
_RULES: Final[tuple[tuple[IPv4Network | IPv6Network, str, bool], ...]] = tuple(
    (ipaddress.ip_network(net), what, allowed)
    for net, what, allowed in (
        ("169.254.169.254/32", _METADATA, _ALWAYS),  # AWS, GCP, Azure, OCI, OpenStack, ...
        ("169.254.170.2/32", _METADATA, _ALWAYS),  # AWS ECS task metadata
        ("169.254.170.23/32", _METADATA, _ALWAYS),  # AWS EKS pod identity
        ("100.100.100.200/32", _METADATA, _ALWAYS),  # Alibaba Cloud
        ("192.0.0.192/32", _METADATA, _ALWAYS),  # Oracle Cloud (legacy)
        ("168.63.129.16/32", _METADATA, _ALWAYS),  # Azure wireserver
        ("fd00:ec2::254/128", _METADATA, _ALWAYS),  # AWS IMDS over IPv6
        ("fd00:ec2::23/128", _METADATA, _ALWAYS),  # AWS EKS pod identity over IPv6
        ("255.255.255.255/32", "the broadcast address", _ALWAYS),
        ("0.0.0.0/8", "an unspecified ('this network') address", _ALWAYS),
        ("127.0.0.0/8", "a loopback address", _PRIVATE),
        ("10.0.0.0/8", "a private address", _PRIVATE),
        ("172.16.0.0/12", "a private address", _PRIVATE),
        ("192.168.0.0/16", "a private address", _PRIVATE),
        ("100.64.0.0/10", "a shared (CGNAT) address", _PRIVATE),
        ("169.254.0.0/16", "a link-local address", _ALWAYS),
        ("192.0.0.0/24", "an IETF protocol address", _ALWAYS),
        ("192.0.2.0/24", "a documentation address", _ALWAYS),
        ("198.51.100.0/24", "a documentation address", _ALWAYS),
        ("203.0.113.0/24", "a documentation address", _ALWAYS),
        ("198.18.0.0/15", "a benchmarking address", _ALWAYS),
        ("192.88.99.0/24", "a 6to4 relay anycast address", _ALWAYS),
        ("224.0.0.0/4", "a multicast address", _ALWAYS),
        ("240.0.0.0/4", "a reserved address", _ALWAYS),
        ("::/128", "the unspecified address", _ALWAYS),
        ("::1/128", "a loopback address", _PRIVATE),
        ("::ffff:0:0/96", _EMBEDS_IPV4, _ALWAYS),  # IPv4-mapped
        ("::ffff:0:0:0/96", _EMBEDS_IPV4, _ALWAYS),  # IPv4-translated (SIIT)
        ("64:ff9b::/96", _EMBEDS_IPV4, _ALWAYS),  # NAT64, well-known prefix
        ("2002::/16", _EMBEDS_IPV4, _ALWAYS),  # 6to4
        ("::/96", "a deprecated IPv4-compatible address", _ALWAYS),
        ("64:ff9b:1::/48", "a local-use NAT64 address", _ALWAYS),
        ("100::/64", "a discard-only address", _ALWAYS),
        ("2001:2::/48", "a benchmarking address", _ALWAYS),
        ("2001:10::/28", "a reserved (ORCHID) address", _ALWAYS),
        ("2001:20::/28", "a reserved (ORCHID) address", _ALWAYS),
        ("2001::/32", "a Teredo address", _ALWAYS),
        ("2001:db8::/32", "a documentation address", _ALWAYS),
        ("3fff::/20", "a documentation address", _ALWAYS),
        ("fc00::/7", "a private (unique local) address", _PRIVATE),
        ("fec0::/10", "a private (site-local) address", _PRIVATE),
        ("fe80::/10", "a link-local address", _ALWAYS),
        ("ff00::/8", "a multicast address", _ALWAYS),
    )
)
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


class Resolver(Protocol):
    """Turns a host name into addresses; the guard asks it once per session."""

    async def resolve(self, host: str, port: int) -> Sequence[IPAddress]:
        """Every address ``host`` has for a TCP connection to ``port``.

        Raises:
            OSError: the name does not resolve.
        """
        ...


class SystemResolver:
    """The operating system's resolver, through ``anyio.getaddrinfo``."""

    async def resolve(self, host: str, port: int) -> Sequence[IPAddress]:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
        return list(dict.fromkeys(ipaddress.ip_address(sockaddr[0]) for *_, sockaddr in infos))


@dataclass(frozen=True, slots=True)
class PinnedOrigin:
    """Where one session may connect: the URL's origin and the one address it resolved to.

    ``host`` is the ASCII (IDNA) host as httpx2 and httpcore2 see it: it stays the TLS server
    name, the certificate's expected name and the ``Host`` header; only TCP goes to ``address``.
    """

    scheme: str
    host: str
    port: int
    address: IPAddress

    def same_origin(self, url: httpx2.URL) -> bool:
        port = url.port or _DEFAULT_PORTS.get(url.scheme)
        return (url.scheme, url.raw_host.decode("ascii"), port) == (self.scheme, self.host, self.port)


def address_problem(address: IPAddress, *, allow_private_network: bool) -> str | None:
    """Why a server may not have ``address`` (e.g. ``"a loopback address"``), or None if it may."""
    for network, what, allowed_by_flag in _RULES:
        if address.version != network.version or address not in network:
            continue
        if what == _EMBEDS_IPV4:
            assert isinstance(address, IPv6Address)
            inner = address_problem(_embedded_ipv4(address), allow_private_network=allow_private_network)
            return None if inner is None else f"an IPv6 form of {inner}"
        return None if allowed_by_flag and allow_private_network else what
    return None if address.is_global else "not a globally routable address"


async def pin_origin(
    alias: str, url: str, *, resolver: Resolver, allow_private_network: bool
) -> PinnedOrigin:
    """Check ``url``, resolve its host once, check every address; pin the first.

    An IP-literal host is checked as it is, without asking the resolver.

    Raises:
        AddressBlocked: not an http(s) URL with a host, or any address is refused.
        UpstreamUnavailable: the host name did not resolve.
    """
    try:
        parsed = httpx2.URL(url)
    except httpx2.InvalidURL:
        raise AddressBlocked(alias, "the URL is not a valid http(s) URL") from None
    if parsed.scheme not in _DEFAULT_PORTS or not parsed.raw_host:
        raise AddressBlocked(alias, "only http:// and https:// URLs with a host are allowed")
    host = parsed.raw_host.decode("ascii")
    port = parsed.port or _DEFAULT_PORTS[parsed.scheme]
    addresses = await _addresses(alias, host, port, resolver)
    for address in addresses:
        problem = address_problem(address, allow_private_network=allow_private_network)
        if problem is not None:
            hint = " (allowed only with allow_private_network = true)" if _flag_would_allow(address) else ""
            raise AddressBlocked(alias, f"host {host!r} has address {address}, {problem}{hint}")
    return PinnedOrigin(parsed.scheme, host, port, addresses[0])


async def _addresses(alias: str, host: str, port: int, resolver: Resolver) -> Sequence[IPAddress]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass  # a name, not an address
    try:
        addresses = await resolver.resolve(host, port)
    except OSError as exc:
        raise UpstreamUnavailable(alias, f"could not resolve {host!r}", detail=str(exc)) from exc
    if not addresses:
        raise UpstreamUnavailable(alias, f"{host!r} resolved to no address")
    return addresses


def _flag_would_allow(address: IPAddress) -> bool:
    return address_problem(address, allow_private_network=True) is None


def _embedded_ipv4(address: IPv6Address) -> IPv4Address:
    if address.sixtofour is not None:
        return address.sixtofour
    # Mapped, translated and NAT64 forms all carry the IPv4 address in the low 32 bits.
    return IPv4Address(int(address) & 0xFFFF_FFFF)
