"""A pool's store: opened (or adopted) with the configuration's tool policies synced into it."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING

import anyio.to_thread

from toolpool.store._crypto import SecretKey
from toolpool.store._store import Store

if TYPE_CHECKING:  # the configuration's models: not imported with the store (cli._common)
    from toolpool.config import Config

__all__ = ["open_synced"]


async def open_synced(
    config: Config,
    store: Store | None,
    key: SecretKey | None,
    spec_hashes: Mapping[str, str] | None = None,
) -> tuple[Store, bool]:
    """``store``, or the store of ``config.store_url`` opened with ``key``, with every alias's
    tool policies, ``enabled`` flags and spec hash (``spec_hashes`` when the caller has them,
    each alias's ``spec_hash`` otherwise) synced into it as actor ``config``; and
    whether it was opened here (the caller closes it then). A store opened here is closed
    again if the sync fails.

    Raises:
        UsageError: the store cannot be opened.
    """
    owned = store is None
    opened = (
        store
        if store is not None
        else await anyio.to_thread.run_sync(lambda: Store.open(config.store_url, key=key))
    )
    try:
        policies = {alias: spec.tools for alias, spec in config.servers.items()}
        hashes = (
            {alias: spec.spec_hash for alias, spec in config.servers.items()}
            if spec_hashes is None
            else spec_hashes
        )
        await anyio.to_thread.run_sync(partial(opened.tools.sync_policies, policies, spec_hashes=hashes))
    except BaseException:
        if owned:
            opened.close()
        raise
    return opened, owned
