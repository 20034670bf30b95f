"""Secrets never leave: a server that echoes its token back — in a result, an isError result,
a JSON-RPC error or a failed start — never gets it into an Envelope, an error or an event."""

from __future__ import annotations

import base64
from pathlib import Path

import anyio
import pytest

from tests.helpers import READ, scripted_server, tool_def, write_config, write_spec
from toolpool import Pool, Ticket, UpstreamError
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
