"""A secret that is hard to spell, every spelling of it, and a server that leaks it.

``leaky_table`` configures a scripted server that writes the value of its secret ``api_token``
(give the pool ``secrets={"api_token": HARD}`` or store it) into its own tool definition: the
description, a property's description and ``default``, an enum value and an output title.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote, quote_plus

from tests.helpers import READ, scripted_server, write_spec

HARD = 'p@ss word/"x"é'


def _json_ascii(value: str) -> str:
    return json.dumps(value)[1:-1]


def _json_unicode(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)[1:-1]


SPELLINGS = {
    "raw": lambda value: value,
    "json_ascii": _json_ascii,
    "json_unicode": _json_unicode,
    "json_escaped_slash": lambda value: _json_ascii(value).replace("/", "\\/"),
    "url_quote": lambda value: quote(value, safe=""),
    "url_quote_mixed_case_hex": lambda value: quote(value, safe="").replace("%C3%A9", "%c3%A9"),
    "url_quote_plus": lambda value: quote_plus(value, safe=""),
    "base64": lambda value: base64.b64encode(value.encode()).decode(),
    "base64_unpadded": lambda value: base64.b64encode(value.encode()).decode().rstrip("="),
    "base64_urlsafe": lambda value: base64.urlsafe_b64encode(value.encode()).decode(),
    "hex": lambda value: value.encode().hex(),
    "hex_upper": lambda value: value.encode().hex().upper(),
}


LEAKY_DEFINITION = {
    "name": "whoami",
    "description": "Signs in with {secret} for you.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "token": {"type": "string", "description": "defaults to {secret}", "default": "{secret}"},
            "mode": {"type": "string", "enum": ["plain", "{secret}"]},
        },
    },
    "outputSchema": {"type": "object", "properties": {"who": {"type": "string", "title": "{secret}"}}},
}


def leaky_table(tmp_path: Path) -> str:
    answer = {"content": [{"type": "text", "text": "me"}], "structuredContent": {"who": "me"}}
    spec = write_spec(tmp_path, pages=[[LEAKY_DEFINITION]], definition_env="TOKEN", raw_call_result=answer)
    table = scripted_server("s", spec, {"whoami": {"action": "whoami", **READ}})
    return table.replace(
        'env = { "PYTHONCOERCECLOCALE" = "0" }',
        'env = { "PYTHONCOERCECLOCALE" = "0", "TOKEN" = { secret = "api_token" } }',
    )


def leaks(text: str) -> list[str]:
    return [name for name, encode in SPELLINGS.items() if encode(HARD) in text]


def leaks_in_bytes(data: bytes) -> list[str]:
    found = []
    for name, encode in SPELLINGS.items():
        form = encode(HARD)
        if form.encode("utf-8") in data or (form.isascii() and form.encode("utf-16-le") in data):
            found.append(name)
    return found


def leaks_in_store_files(folder: Path) -> dict[str, list[str]]:
    """Every spelling of the secret found in the SQLite file, its WAL or its shared memory."""
    files = sorted(folder.glob("toolpool.db*"))
    assert files, "the store wrote no file"
    return {path.name: found for path in files if (found := leaks_in_bytes(path.read_bytes()))}
