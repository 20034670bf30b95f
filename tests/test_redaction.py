"""Secrets never leave: a server that echoes its token back — in a result, an isError result,
a JSON-RPC error or a failed start — never gets it into an Envelope, an error or an event."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import anyio
import pytest

from tests.helpers import READ, scripted_server, tool_def, write_config, write_spec
from tests.leaky import HARD, SPELLINGS, leaks, leaks_in_store_files, leaky_table
from toolpool import Pool, Ticket, UpstreamError
from toolpool.importing import import_alias
from toolpool.redaction import Redactor
from toolpool.testing import EventRecorder

pytestmark = pytest.mark.anyio

TOKEN = "tok_9f8e7d6c5b4a"
SECRETS = {"api_token": TOKEN}


def test_the_redactor_replaces_raw_url_and_base64_spellings() -> None:
    redactor = Redactor()
    redactor.register("api_token", TOKEN)
    leaked = f"a={TOKEN} b={base64.b64encode(TOKEN.encode()).decode()} c=tok%5F9f8e"
    assert redactor.redact(leaked).count("[secret:api_token]") == 2
    assert redactor.redact_value({"k": [TOKEN]}) == {"k": ["[secret:api_token]"]}


@pytest.mark.parametrize(
    ("echo_as", "code"),
    [("result", "ok"), ("is_error", "mcp_remote_error"), ("rpc_error", "mcp_remote_error")],
)
async def test_a_token_echoed_back_by_the_server_never_reaches_the_envelope(
    tmp_path: Path, echo_as: str, code: str
) -> None:
    spec = write_spec(tmp_path, pages=[[tool_def("whoami")]], echo_env="TOKEN", echo_as=echo_as)
    table = scripted_server("s", spec, {"whoami": {"action": "whoami", **READ}})
    table = table.replace(
        'env = { "PYTHONCOERCECLOCALE" = "0" }',
        'env = { "PYTHONCOERCECLOCALE" = "0", "TOKEN" = { secret = "api_token" } }',
    )
    recorder = EventRecorder()
    async with Pool(write_config(tmp_path, table), secrets=SECRETS, on_event=recorder) as pool:
        with anyio.fail_after(30):
            await pool.connect("s")
            envelope = await pool.call(pool.snapshot(), "mcp__s__whoami", {}, ticket=Ticket.allow("*"))
    assert envelope.code == code
    assert TOKEN not in repr(envelope)
    assert TOKEN not in repr(recorder.events)
    if echo_as == "result":
        assert envelope.text == "upstream says: your token is [secret:api_token]"
    else:
        assert "[secret:api_token]" in envelope.audit_detail


async def test_a_token_in_the_error_of_a_failed_handshake_never_reaches_the_exception(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, pages=[[tool_def("t")]], echo_env="TOKEN", fail_initialize=True)
    table = scripted_server("s", spec, {"t": {"action": "t", **READ}})
    table = table.replace(
        'env = { "PYTHONCOERCECLOCALE" = "0" }',
        'env = { "PYTHONCOERCECLOCALE" = "0", "TOKEN" = { secret = "api_token" } }',
    )
    async with Pool(write_config(tmp_path, table), secrets=SECRETS) as pool:
        with anyio.fail_after(30), pytest.raises(UpstreamError) as failure:
            await pool.connect("s")
    assert "[secret:api_token]" in failure.value.detail  # the server's words are kept, redacted
    assert TOKEN not in str(failure.value) and TOKEN not in failure.value.detail
    assert failure.value.__cause__ is None and failure.value.__context__ is None


# -- one redactor, every spelling ------------------------------------------------------------


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_the_one_redactor_replaces_every_spelling_of_a_hard_value(spelling: str) -> None:
    leaked = SPELLINGS[spelling](HARD)
    assert leaked != HARD or spelling == "raw"
    redactor = Redactor({"db": HARD})
    assert redactor.redact(f"before {leaked} after") == "before [secret:db] after"
    assert redactor.names_in(f"x{leaked}x") == ("db",)


def test_the_store_redacts_with_the_same_redactor_as_the_pool(tmp_path: Path) -> None:
    from toolpool.store import SecretKey, Store

    with Store.open(f"sqlite:///{tmp_path / 'toolpool.db'}", key=SecretKey.generate()) as store:
        store.secrets.set_secret("db", HARD, actor="tests")
        for spelling, encode in SPELLINGS.items():
            assert store.secrets.redact(f"<{encode(HARD)}>") == "<[secret:db]>", spelling


def test_the_store_redacts_every_principals_value_of_a_per_principal_secret(tmp_path: Path) -> None:
    from toolpool.store import SecretKey, Store

    values = {"": "pool-wide-value-0", "ana": "ana-value-1111", "bob": "bob-value-2222"}
    with Store.open(f"sqlite:///{tmp_path / 'toolpool.db'}", key=SecretKey.generate()) as store:
        for principal, value in values.items():
            store.secrets.set_secret("gh", value, actor="tests", principal=principal)
        redacted = store.secrets.redact(" ".join(values.values()))
        entries = store.secrets.secret_entries()
    assert redacted == "[secret:gh] [secret:gh] [secret:gh]"
    assert entries == [("gh", ""), ("gh", "ana"), ("gh", "bob")]


def test_a_redactor_takes_several_values_under_one_name() -> None:
    redactor = Redactor([("gh", "ana-value-1111"), ("gh", "bob-value-2222")])
    assert redactor.redact("ana-value-1111 bob-value-2222") == "[secret:gh] [secret:gh]"


def test_redaction_replaces_what_is_nested_too_deep_to_read() -> None:
    redactor = Redactor({"db": HARD})
    value: object = HARD
    for _ in range(5000):
        value = [value]
    flat = json.dumps(redactor.redact_value(value), ensure_ascii=False)
    assert HARD not in flat and "nested too deep" in flat


# -- a server's secret in its own tool definition --------------------------------------------


async def test_a_server_that_writes_its_secret_into_its_definition_leaks_it_nowhere(tmp_path: Path) -> None:
    config = write_config(tmp_path, leaky_table(tmp_path))
    recorder = EventRecorder()
    async with Pool(config, secrets={"api_token": HARD}, on_event=recorder) as pool:
        assert pool.store is not None
        with anyio.fail_after(30):
            await import_alias(pool, pool.store, "s", actor="tests")
            await pool.connect("s")
        published, _ = await pool.inspect("s")
        (tool,) = pool.snapshot().tools
        shown = json.dumps(
            [tool.description, tool.input_schema, tool.output_schema, [t.definition() for t in published]],
            ensure_ascii=False,
        )
        stored = json.dumps(
            [pool.store.tools.published_definition("s", "whoami"), pool.store.pins.pin_of("s", "whoami")],
            ensure_ascii=False,
            default=str,
        )
        audit = repr(pool.store.audit.audit_events())
        while_open = leaks_in_store_files(tmp_path)  # the WAL still holds the recent writes
    assert while_open == {}
    assert "[secret:api_token]" in tool.description
    assert tool.input_schema["properties"]["token"]["default"] == "[secret:api_token]"
    assert leaks(shown) == [] and leaks(stored) == [] and leaks(audit) == []
    assert leaks(repr(recorder.events)) == []
    (redacted,) = recorder.of_kind("mcp.secret_redacted", "s")
    assert redacted.detail["tool"] == "whoami" and redacted.detail["secrets"] == ("api_token",)
    assert leaks_in_store_files(tmp_path) == {}


async def test_a_per_call_server_with_its_secret_in_its_definition_stays_callable(tmp_path: Path) -> None:
    table = leaky_table(tmp_path).replace('era = "legacy"', 'era = "legacy"\nlifecycle = "per_call"')
    async with Pool(write_config(tmp_path, table), secrets={"api_token": HARD}, store=False) as pool:
        with anyio.fail_after(30):
            await pool.connect("s")
            envelope = await pool.call(pool.snapshot(), "mcp__s__whoami", {}, ticket=Ticket.allow("*"))
    assert envelope.code == "ok"
    assert leaks(repr(envelope)) == []
