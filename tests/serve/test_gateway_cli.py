"""``toolpool tokens`` and the errors of ``toolpool serve``: one clear line, a non-zero exit,
never a traceback; a token is printed once and never stored or listed."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

import toolpool.serve as serve_package

from .gateway_helpers import copy_config, toolpool


def one_line_error(result: object, fragment: str) -> None:
    assert getattr(result, "returncode", 0) != 0
    stderr = getattr(result, "stderr", "")
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("toolpool: error: ") and fragment in lines[0], stderr
    assert "Traceback" not in stderr


def test_a_token_is_printed_once_and_then_only_its_name_and_grants_are_shown(tmp_path: Path) -> None:
    config = copy_config(tmp_path)
    made = toolpool(config, "tokens", "add", "ci", "--allow", "demo.*", "--allow", "beta.lookup")
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert token.startswith("tp_") and len(token.splitlines()) == 1 and "shown once" in made.stderr
    as_json = json.loads(
        toolpool(config, "tokens", "add", "bot", "--allow", "*", "--resource", "k1", "--json").stdout
    )
    assert as_json["token"].startswith("tp_") and as_json["resources"] == ["k1"]
    listed = toolpool(config, "tokens", "list", "--json")
    assert [(row["name"], row["principal"], row["actions"]) for row in json.loads(listed.stdout)] == [
        ("bot", "token:bot", ["*"]),
        ("ci", "token:ci", ["demo.*", "beta.lookup"]),
    ]
    shown = (
        toolpool(config, "tokens", "list").stdout
        + toolpool(config, "audit", "--json", "--limit", "50").stdout
    )
    assert token not in shown and as_json["token"] not in shown and "ci" in shown
    assert token.encode() not in (tmp_path / "toolpool.db").read_bytes()


def test_a_revoked_token_leaves_the_list(tmp_path: Path) -> None:
    config = copy_config(tmp_path)
    assert toolpool(config, "tokens", "add", "ci", "--allow", "*").returncode == 0
    revoked = toolpool(config, "tokens", "revoke", "ci", "--json")
    assert revoked.returncode == 0 and json.loads(revoked.stdout) == {"name": "ci", "revoked": True}
    assert json.loads(toolpool(config, "tokens", "list", "--json").stdout) == []
    assert "no tokens" in toolpool(config, "tokens", "list").stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("tokens", "add", "ci"), "at least one --allow"),
        (("tokens", "add", "bad name", "--allow", "*"), "not a token name"),
        (("tokens", "revoke", "nobody"), "no token 'nobody'"),
        (("serve",), "choose one of --stdio and --http"),
        (("serve", "--stdio", "--http", "127.0.0.1:0"), "choose one of --stdio and --http"),
        (("serve", "--http", "127.0.0.1:0", "--allow", "*"), "--allow applies to --stdio"),
        (("serve", "--http", "nowhere"), "not a listen address"),
        (("serve", "--http", "127.0.0.1:99999"), "not a listen address"),
    ],
)
def test_bad_token_and_serve_requests_fail_with_one_line(
    tmp_path: Path, args: tuple[str, ...], fragment: str
) -> None:
    one_line_error(toolpool(copy_config(tmp_path), *args), fragment)


def test_a_token_name_in_use_is_refused(tmp_path: Path) -> None:
    config = copy_config(tmp_path)
    assert toolpool(config, "tokens", "add", "ci", "--allow", "*").returncode == 0
    one_line_error(toolpool(config, "tokens", "add", "ci", "--allow", "*"), "exists")


def test_serving_on_a_port_in_use_fails_with_one_line_before_anything_starts(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = toolpool(copy_config(tmp_path), "serve", "--http", f"127.0.0.1:{port}")
    one_line_error(result, f"cannot listen on 127.0.0.1:{port}")
    assert not (tmp_path / "toolpool.db").exists()


def test_the_serve_package_exports_exactly_its_public_names() -> None:
    assert sorted(serve_package.__all__) == [
        "AdminPlane",
        "BearerGate",
        "CODE_META_KEY",
        "ClientView",
        "EventHub",
        "GRACE_S",
        "Gateway",
        "HEALTHZ_PATH",
        "HTTP_PATH",
        "HttpAddress",
        "METRICS_PATH",
        "MetricsPlane",
        "READYZ_PATH",
        "Readiness",
        "build_server",
        "call_event",
        "check_replica_name",
        "holder_ticket",
        "http_app",
        "listen",
        "serve_http",
        "serve_stdio",
        "service_app",
    ]
    assert all(hasattr(serve_package, name) for name in serve_package.__all__)
