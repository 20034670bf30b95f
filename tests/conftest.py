"""Fixtures for the whole suite.

``store_url`` runs a test twice: on a SQLite file and on the real PostgreSQL of this machine.
PostgreSQL tests get a schema of their own (``tp_<random>``, through ``search_path`` in the
URL) that is dropped afterwards. An unreachable PostgreSQL fails those tests: CI has one.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from hypothesis import HealthCheck, settings

# The suite shares two cores with servers it starts: a slow first draw is the machine's load, not a
# slow strategy, and a per-example deadline would measure the same load. Properties stay checked.
settings.register_profile("toolpool", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("toolpool")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


POSTGRES = os.environ.get("TOOLPOOL_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
_CONNECT_TIMEOUT_S = 5  # a local server answers at once; a dead one must not stall the suite
_LOCK_TIMEOUT = "10s"  # DROP SCHEMA waits at most this long for a connection a test left behind


def _libpq(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@contextmanager
def postgres_schema() -> Iterator[str]:
    """The URL of a fresh PostgreSQL schema, dropped afterwards; fails if PostgreSQL is down."""
    schema = f"tp_{secrets.token_hex(6)}"
    try:
        admin = psycopg.connect(_libpq(POSTGRES), autocommit=True, connect_timeout=_CONNECT_TIMEOUT_S)
    except psycopg.OperationalError as exc:
        pytest.fail(
            f"PostgreSQL at {POSTGRES} is not reachable ({exc}); the store tests need it", pytrace=False
        )
    with admin:
        admin.execute(f"CREATE SCHEMA {schema}")
        try:
            yield f"{POSTGRES}?options=-csearch_path%3D{schema}"
        finally:
            admin.execute(f"SET lock_timeout = '{_LOCK_TIMEOUT}'")
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'toolpool.db'}"
        return
    with postgres_schema() as url:
        yield url
