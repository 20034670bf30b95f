"""Fuzz the admin API against its own OpenAPI spec (schemathesis): over real HTTP, with the
admin token, every operation gets valid and then invalid inputs; no answer may be a 5xx, and
each must match the status codes, media types, headers and bodies that the spec documents
(``Case.call_and_validate`` runs schemathesis's checks for the mode).

The spec is read from the live app's ``/admin/openapi.json``. Each operation's strategy
(``APIOperation.as_strategy``) runs under Hypothesis with a few examples and a deadline, so
the file takes seconds. (schemathesis's pytest loader, ``from_fixture``, reads a pytest
attribute that pytest 9.2 removed; ``as_strategy`` is its documented alternative.)

The store is a real SQLite file holding a few tools, so some requests find what they name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import APIOperation, BaseSchema, Case, GenerationMode

from tests.serve.test_admin import AUTH, TOKEN, serve_admin
from tests.store.helpers import imported, read, write
from toolpool.store import Store

_EXAMPLES = 25  # per operation and mode: reaches every validation branch, runs in seconds
_DEADLINE = timedelta(seconds=5)  # one request to a local server takes milliseconds
_REQUEST_S = 10


@pytest.fixture
def admin_schema(tmp_path: Path) -> Iterator[BaseSchema]:
    with Store.open(f"sqlite:///{tmp_path / 'toolpool.db'}") as store:
        store.tools.record_import("a", [imported("b"), imported("w")], actor="ana")
        store.tools.sync_policy("a", {"b": read("a.b"), "w": write("a.w")}, actor="config")
        # No event feed: /admin/events answers 409 at once instead of streaming forever.
        with serve_admin(store, events=None) as served:
            # The token as schemathesis's auth for the spec's HTTPBearer scheme: it knows the
            # token is real, so its auth check also sends requests without it and with a wrong one.
            config = schemathesis.Config.from_dict({"auth": {"openapi": {"HTTPBearer": {"bearer": TOKEN}}}})
            yield schemathesis.openapi.from_url(
                f"{served.url}/admin/openapi.json", config=config, headers=AUTH, timeout=_REQUEST_S
            )


def _operations(schema: BaseSchema) -> list[APIOperation]:
    return [result.ok() for result in schema.get_all_operations()]


def _takes_input(operation: APIOperation) -> bool:
    """Whether a request can be invalid in any way other than its (fixed) token."""
    parts = (operation.path_parameters, operation.query, operation.headers, operation.body)
    return any(len(part) for part in parts)


def _fuzz(operation: APIOperation, mode: GenerationMode, counts: Counter[str]) -> None:
    @given(case=operation.as_strategy(mode))
    @settings(
        max_examples=_EXAMPLES,
        deadline=_DEADLINE,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    def run(case: Case) -> None:
        counts[operation.label] += 1
        case.call_and_validate(timeout=_REQUEST_S)

    run()


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=str)
def test_the_admin_api_answers_every_request_as_its_spec_says(
    admin_schema: BaseSchema, mode: GenerationMode
) -> None:
    operations = _operations(admin_schema)
    assert len(operations) == 22
    if mode is GenerationMode.NEGATIVE:
        operations = [operation for operation in operations if _takes_input(operation)]
    counts: Counter[str] = Counter()
    for operation in operations:
        _fuzz(operation, mode, counts)
    print(f"{mode}: {sum(counts.values())} requests over {len(counts)} operations")
    assert all(counts[operation.label] for operation in operations)
