"""R14, the SSRF guard's policy: which URLs and addresses a remote server may have."""

from __future__ import annotations

import ipaddress

import anyio
import pytest

from tests.upstream.ssrf_helpers import HOST, StubResolver, resolving
from toolpool.errors import AddressBlocked, UpstreamUnavailable
from toolpool.upstream.ssrf import address_problem, pin_origin

pytestmark = pytest.mark.anyio

# Refused unless the alias sets allow_private_network = true.
PRIVATE = {
    "127.0.0.1": "loopback",
    "127.255.0.9": "loopback",
    "10.1.2.3": "private",
    "172.16.0.1": "private",
    "172.31.255.254": "private",
    "192.168.1.1": "private",
    "100.64.0.1": "shared (CGNAT)",
    "100.127.255.254": "shared (CGNAT)",
    "::1": "loopback",
    "fc00::1": "private (unique local)",
    "fd12:3456::1": "private (unique local)",
    "fec0::1": "private (site-local)",
    "::ffff:127.0.0.1": "IPv6 form of a loopback",
    "::ffff:10.0.0.1": "IPv6 form of a private",
    "::ffff:0:192.168.0.1": "IPv6 form of a private",  # IPv4-translated
    "2002:7f00:1::": "IPv6 form of a loopback",  # 6to4 of 127.0.0.1
    "64:ff9b::7f00:1": "IPv6 form of a loopback",  # NAT64 of 127.0.0.1
    "64:ff9b::a00:1": "IPv6 form of a private",  # NAT64 of 10.0.0.1
}
# Refused whatever the alias says.
ALWAYS = {
    "169.254.169.254": "cloud metadata",
    "169.254.170.2": "cloud metadata",
    "100.100.100.200": "cloud metadata",
    "192.0.0.192": "cloud metadata",
    "168.63.129.16": "cloud metadata",
    "fd00:ec2::254": "cloud metadata",
    "::ffff:169.254.169.254": "IPv6 form of a cloud metadata",
    "2002:a9fe:a9fe::": "IPv6 form of a cloud metadata",  # 6to4 of 169.254.169.254
    "64:ff9b::a9fe:a9fe": "IPv6 form of a cloud metadata",  # NAT64 of 169.254.169.254
    "169.254.1.1": "link-local",
    "fe80::1": "link-local",
    "0.0.0.0": "unspecified",
    "0.1.2.3": "unspecified",
    "::": "unspecified",
    "255.255.255.255": "broadcast",
    "224.0.0.1": "multicast",
    "239.255.255.250": "multicast",
    "ff02::1": "multicast",
    "240.0.0.1": "reserved",
    "192.0.0.8": "IETF protocol",
    "192.0.2.1": "documentation",
    "198.51.100.1": "documentation",
    "203.0.113.1": "documentation",
    "2001:db8::1": "documentation",
    "198.18.0.1": "benchmarking",
    "2001:2::1": "benchmarking",
    "::127.0.0.1": "IPv4-compatible",
    "::8.8.8.8": "IPv4-compatible",
    "2001::1": "Teredo",
    "100::1": "discard-only",
    "64:ff9b:1::1": "local-use NAT64",
}
PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "2002:808:808::",
    "64:ff9b::808:808",
]


@pytest.mark.parametrize(("address", "kind"), sorted({**PRIVATE, **ALWAYS}.items()))
def test_r14_every_forbidden_address_class_is_refused_by_default(address: str, kind: str) -> None:
    problem = address_problem(ipaddress.ip_address(address), allow_private_network=False)
    assert problem is not None and kind in problem


@pytest.mark.parametrize("address", sorted(PRIVATE))
def test_r14_allow_private_network_permits_loopback_private_and_cgnat(address: str) -> None:
    assert address_problem(ipaddress.ip_address(address), allow_private_network=True) is None


@pytest.mark.parametrize(("address", "kind"), sorted(ALWAYS.items()))
def test_r14_metadata_link_local_and_special_addresses_stay_refused_with_allow_private_network(
    address: str, kind: str
) -> None:
    problem = address_problem(ipaddress.ip_address(address), allow_private_network=True)
    assert problem is not None and kind in problem


@pytest.mark.parametrize("address", PUBLIC)
def test_r14_public_addresses_and_their_ipv6_forms_are_allowed(address: str) -> None:
    assert address_problem(ipaddress.ip_address(address), allow_private_network=False) is None


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://tools.example.test/mcp",
        "gopher://tools.example.test:70/_",
        "ws://tools.example.test/mcp",
        "unix:///var/run/mcp.sock",
        "tools.example.test/mcp",
        "http:///mcp",
        "http://[::1/mcp",
    ],
)
async def test_r14_only_http_and_https_urls_with_a_host_pass_and_nothing_is_resolved_for_others(
    url: str,
) -> None:
    resolver = resolving()
    with pytest.raises(AddressBlocked, match="SSRF guard"):
        await pin_origin("remote", url, resolver=resolver, allow_private_network=True)
    assert resolver.calls == []


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/mcp", "https://[::ffff:127.0.0.1]/mcp"])
async def test_r14_an_ip_literal_url_is_checked_as_it_is_without_asking_the_resolver(url: str) -> None:
    resolver = resolving()
    with pytest.raises(AddressBlocked, match="loopback"):
        await pin_origin("remote", url, resolver=resolver, allow_private_network=False)
    assert resolver.calls == []


async def test_r14_every_resolved_address_is_checked_not_only_the_first() -> None:
    answer = [ipaddress.ip_address("93.184.215.14"), ipaddress.ip_address("10.0.0.7")]
    resolver = StubResolver({HOST: [answer]})
    with pytest.raises(AddressBlocked) as refused:
        await pin_origin("remote", f"https://{HOST}/mcp", resolver=resolver, allow_private_network=False)
    assert refused.value.alias == "remote"
    assert refused.value.problem == (
        f"host {HOST!r} has address 10.0.0.7, a private address"
        " (allowed only with allow_private_network = true)"
    )


async def test_r14_the_first_of_the_checked_addresses_is_pinned_with_the_origin_of_the_url() -> None:
    answer = [ipaddress.ip_address("93.184.215.14"), ipaddress.ip_address("2606:2800:21f:cb07::1")]
    resolver = StubResolver({HOST: [answer]})
    origin = await pin_origin(
        "remote", "https://Tools.Example.TEST/mcp", resolver=resolver, allow_private_network=False
    )
    assert (origin.scheme, origin.host, origin.port, origin.address) == ("https", HOST, 443, answer[0])
    assert resolver.calls == [(HOST, 443)]


async def test_r14_a_metadata_refusal_says_the_flag_would_not_help() -> None:
    resolver = resolving("169.254.169.254")
    with pytest.raises(AddressBlocked) as refused:
        await pin_origin("remote", f"http://{HOST}/", resolver=resolver, allow_private_network=True)
    assert refused.value.problem == f"host {HOST!r} has address 169.254.169.254, a cloud metadata address"


async def test_r14_a_name_that_does_not_resolve_is_unavailable_not_blocked() -> None:
    with anyio.fail_after(5), pytest.raises(UpstreamUnavailable, match="could not resolve"):
        await pin_origin(
            "remote", "http://nowhere.example.test/", resolver=resolving(), allow_private_network=False
        )
