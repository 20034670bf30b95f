"""Store fixtures: a key and an open store on each backend of ``store_url`` (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import POSTGRES, postgres_schema
from toolpool.store import SecretKey, Store

__all__ = ["POSTGRES", "postgres_schema"]


@pytest.fixture
def key() -> SecretKey:
    return SecretKey.generate()


@pytest.fixture
def store(store_url: str, key: SecretKey) -> Iterator[Store]:
    opened = Store.open(store_url, key=key)
    try:
        yield opened
    finally:
        opened.close()
