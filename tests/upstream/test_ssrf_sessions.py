"""R14 end to end: ``open_session`` over streamable HTTP and SSE, against real local servers."""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest

from tests.upstream.ssrf_helpers import (
    ELSEWHERE,
    HOST,
    LOOPBACK,
    StubResolver,
    Transport,
    announcing,
    mcp_server,
    redirecting,
    resolving,
    serve,
    witness,
)
from tests.upstream.test_ssrf import ALWAYS, PRIVATE
from toolpool.errors import AddressBlocked, UpstreamUnavailable
from toolpool.upstream import Era, HttpTarget, UpstreamSession, open_session

pytestmark = pytest.mark.anyio

TRANSPORTS: list[Transport] = ["http", "sse"]
# Far above what any of these exchanges needs; a refusal must come long before it.
CONNECT_TIMEOUT = 30.0
TIMEOUT = 20


@asynccontextmanager
async def session(
    transport: Transport, url: str, resolver: StubResolver, *, allow_private_network: bool
) -> AsyncIterator[UpstreamSession]:
    target = HttpTarget(
        kind=transport,
        url=url,
        headers={},
        allow_private_network=allow_private_network,
        resolver=resolver,
    )
    async with open_session("remote", target, Era("legacy"), CONNECT_TIMEOUT) as opened:
        yield opened


async def exercise(opened: UpstreamSession) -> str:
    tools = await opened.list_tools(10, max_pages=5, max_tools=10)
    assert [tool.name for tool in tools] == ["echo"]
    result = await opened.call_tool("echo", {}, 10)
    await opened.call_tool("echo", {}, 10)
    return result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_r14_a_host_name_that_resolves_to_loopback_works_with_allow_private_network(
    transport: Transport,
) -> None:
    with anyio.fail_after(TIMEOUT):
        async with (
            mcp_server(transport) as served,
            session(transport, served.url(transport), resolving(), allow_private_network=True) as s,
        ):
            assert await exercise(s) == "pinned"
    # The server's DNS-rebinding check accepts only this Host, so every request carried it.
    assert served.hosts and set(served.hosts) == {f"{HOST}:{served.port}"}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_r14_a_host_name_that_resolves_to_loopback_is_refused_before_any_connection(
    transport: Transport,
) -> None:
    with anyio.fail_after(TIMEOUT):
        async with witness() as listener:
            url = f"http://{HOST}:{listener.port}/mcp"
            with pytest.raises(AddressBlocked) as refused:
                async with session(transport, url, resolving(), allow_private_network=False):
                    pass
            await listener.assert_untouched()
    assert refused.value.problem.startswith(f"host {HOST!r} has address 127.0.0.1, a loopback address")


@pytest.mark.parametrize("address", sorted({**PRIVATE, **ALWAYS}))
async def test_r14_every_forbidden_address_class_refuses_the_session(address: str) -> None:
    with anyio.fail_after(TIMEOUT), pytest.raises(AddressBlocked, match="SSRF guard"):
        async with session("http", f"http://{HOST}/mcp", resolving(address), allow_private_network=False):
            pass


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_r14_metadata_is_refused_even_with_allow_private_network(transport: Transport) -> None:
    with anyio.fail_after(TIMEOUT), pytest.raises(AddressBlocked, match="cloud metadata"):
        async with session(
            transport, f"http://{HOST}/mcp", resolving("169.254.169.254"), allow_private_network=True
        ):
            pass


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_r14_the_host_is_resolved_once_per_connect_and_the_pinned_address_is_kept(
    transport: Transport,
) -> None:
    # A rebinding resolver: the first answer is the real server, every later one is metadata.
    resolver = StubResolver({HOST: [[LOOPBACK], [ipaddress.ip_address("169.254.169.254")]]})
    with anyio.fail_after(TIMEOUT):
        async with mcp_server(transport) as served:
            async with session(transport, served.url(transport), resolver, allow_private_network=True) as s:
                assert await exercise(s) == "pinned"
                connections = len(served.peers)
            assert resolver.calls == [(HOST, served.port)]
            with pytest.raises(AddressBlocked, match="cloud metadata"):
                async with session(transport, served.url(transport), resolver, allow_private_network=True):
                    pass
    assert connections >= 2, "the session should have needed more than one TCP connection"
    assert len(resolver.calls) == 2


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("elsewhere", ["another host", "another port"])
async def test_r14_a_redirect_to_another_origin_is_not_followed(transport: Transport, elsewhere: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with witness() as other:
            target_host = ELSEWHERE if elsewhere == "another host" else HOST
            location = f"http://{target_host}:{other.port}/mcp"
            async with serve(redirecting(location)) as served:
                with pytest.raises(UpstreamUnavailable):
                    async with session(
                        transport, served.url(transport), resolving(), allow_private_network=True
                    ):
                        pass
            await other.assert_untouched()
    assert served.hosts, "the redirecting server was asked"


@pytest.mark.parametrize(
    "endpoint",
    [
        f"http://{ELSEWHERE}:{{other}}/messages/?session_id=1",
        f"//{ELSEWHERE}:{{other}}/messages/?session_id=1",
        f"http://{HOST}:{{other}}/messages/?session_id=1",
        f"https://{HOST}:{{port}}/messages/?session_id=1",
    ],
    ids=["another host", "scheme-relative host", "another port", "another scheme"],
)
async def test_r14_an_sse_message_endpoint_on_another_origin_is_refused_at_once(endpoint: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with (
            witness() as other,
            serve(announcing(endpoint.replace("{other}", str(other.port)))) as served,
        ):
            with anyio.fail_after(CONNECT_TIMEOUT / 3), pytest.raises(AddressBlocked) as refused:
                async with session("sse", served.url("sse"), resolving(), allow_private_network=True):
                    pass
            await other.assert_untouched()
    assert refused.value.problem == "the server announced its SSE message endpoint on another origin"
