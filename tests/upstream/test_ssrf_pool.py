"""R14 through the Pool and its TOML configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import READ, server_table, write_config
from tests.upstream.ssrf_helpers import HOST, Transport, mcp_server, resolving, witness
from toolpool import Pool, Ticket
from toolpool.errors import AddressBlocked

pytestmark = pytest.mark.anyio

ANY = Ticket.allow("*")
TIMEOUT = 30
ECHO = {"echo": {"action": "pinned.echo", **READ}}


def _remote(url: str, transport: str, **fields: Any) -> str:
    return server_table("remote", ECHO, transport=transport, url=url, era="legacy", **fields)


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_r14_the_pool_refuses_a_loopback_url_unless_the_alias_allows_private_network(
    tmp_path: Path, transport: str
) -> None:
    with anyio.fail_after(TIMEOUT):
        async with witness() as listener:
            url = f"http://127.0.0.1:{listener.port}/mcp"
            config = write_config(tmp_path, _remote(url, transport, allow_private_network=False))
            async with Pool(config) as pool:
                with pytest.raises(AddressBlocked, match="loopback"):
                    await pool.connect("remote")
                assert pool.snapshot().tools == ()
            await listener.assert_untouched()


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_r14_the_pool_resolves_through_its_resolver_once_per_connect(
    tmp_path: Path, transport: Transport
) -> None:
    resolver = resolving()
    with anyio.fail_after(TIMEOUT):
        async with mcp_server(transport) as served:
            url = served.url(transport)
            config = write_config(tmp_path, _remote(url, transport, allow_private_network=True))
            async with Pool(config, resolver=resolver) as pool:  # type: ignore[call-arg]
                await pool.connect("remote")
                envelope = await pool.call(pool.snapshot(), "mcp__remote__echo", {}, ticket=ANY)
    assert (envelope.code, envelope.text) == ("ok", "pinned")
    assert resolver.calls == [(HOST, served.port)]
