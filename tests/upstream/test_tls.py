"""TLS for remote servers (issue 15, part 7): mutual TLS with a client certificate kept as a
secret, and ``require_tls`` enforced both where the config is read and where a connection is
made (on the address the SSRF guard pinned, not on the URL's spelling)."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tests.helpers import READ, server_table, write_config
from tests.upstream.ssrf_helpers import HOST, StubResolver, mcp_app, resolving
from toolpool import AddressBlocked, ConfigError, Pool, Ticket, UpstreamError
from toolpool.store import SecretKey, Store
from toolpool.upstream import ClientTls, HttpTarget, open_session
from toolpool.upstream.tls import ssl_context

pytestmark = pytest.mark.anyio

TIMEOUT = 30
ECHO = "mcp__remote__echo"
TOOLS = {"echo": {"action": "echo", **READ}}


@dataclass(frozen=True)
class Pki:
    """A test CA (its PEM file), and a client certificate and key (PEM text) it signed."""

    ca_file: Path
    server_cert: Path
    server_key: Path
    client_cert: str
    client_key: str


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _signed(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: x509.Certificate | None,
    issuer_key: Any,
    **ext: Any,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer.subject if issuer is not None else _name(subject))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
    )
    if "san" in ext:
        builder = builder.add_extension(x509.SubjectAlternativeName(ext["san"]), critical=False)
    if "usage" in ext:
        builder = builder.add_extension(x509.ExtendedKeyUsage(ext["usage"]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _pki(folder: Path) -> Pki:
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _signed("toolpool test CA", ca_key, None, ca_key)
    server_key, client_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    san = [x509.DNSName(HOST), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    server = _signed(
        "toolpool test server", server_key, ca, ca_key, san=san, usage=[ExtendedKeyUsageOID.SERVER_AUTH]
    )
    client = _signed("ana", client_key, ca, ca_key, usage=[ExtendedKeyUsageOID.CLIENT_AUTH])
    pem = serialization.Encoding.PEM
    ca_file, server_cert, server_key_file = folder / "ca.pem", folder / "server.pem", folder / "server.key"
    ca_file.write_bytes(ca.public_bytes(pem))
    server_cert.write_bytes(server.public_bytes(pem))
    server_key_file.write_bytes(_pem_key(server_key))
    return Pki(
        ca_file,
        server_cert,
        server_key_file,
        client.public_bytes(pem).decode(),
        _pem_key(client_key).decode(),
    )


@asynccontextmanager
async def _mtls_server(pki: Pki) -> AsyncIterator[int]:
    """An MCP server over HTTPS on 127.0.0.1 that requires a client certificate from the CA."""
    app, lifespan = mcp_app("http")
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan=lifespan,
        timeout_graceful_shutdown=2,
        ssl_certfile=str(pki.server_cert),
        ssl_keyfile=str(pki.server_key),
        ssl_ca_certs=str(pki.ca_file),
        ssl_cert_reqs=ssl.CERT_REQUIRED,
    )
    server = uvicorn.Server(config)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(server.serve, [listener])
            try:
                yield listener.getsockname()[1]
            finally:
                server.should_exit = True


def _remote(port: int, pki: Pki, **fields: Any) -> str:
    fields.setdefault("tls_ca", str(pki.ca_file))
    fields.setdefault("era", "2026-07-28")
    return server_table(
        "remote",
        TOOLS,
        transport="http",
        url=f"https://{HOST}:{port}/mcp",
        allow_private_network=True,
        require_tls=True,
        **fields,
    )


async def test_mtls_a_client_certificate_from_secrets_lets_the_tools_connect(tmp_path: Path) -> None:
    pki = _pki(tmp_path)
    secrets = {"client_cert": pki.client_cert, "client_key": pki.client_key}
    cert = {"tls_client_cert": {"secret": "client_cert"}, "tls_client_key": {"secret": "client_key"}}
    with anyio.fail_after(TIMEOUT):
        async with _mtls_server(pki) as port:
            config = write_config(tmp_path, _remote(port, pki, **cert))
            async with Pool(config, store=False, secrets=secrets, resolver=resolving()) as pool:
                await pool.connect("remote")
                envelope = await pool.call(pool.snapshot(), ECHO, {}, ticket=Ticket.allow("*"))
    assert (envelope.code, envelope.text) == ("ok", "pinned")


def test_mtls_the_client_key_is_on_disk_only_while_it_is_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pki = _pki(tmp_path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    context = ssl_context("remote", ClientTls(pki.client_cert, pki.client_key, pki.ca_file))
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert list(scratch.iterdir()) == []


async def test_mtls_without_a_client_certificate_the_server_refuses_the_connection(tmp_path: Path) -> None:
    pki = _pki(tmp_path)
    with anyio.fail_after(TIMEOUT):
        async with _mtls_server(pki) as port:
            config = write_config(tmp_path, _remote(port, pki, era="legacy"))
            async with Pool(config, store=False, resolver=resolving()) as pool:
                with pytest.raises(UpstreamError, match="could not connect: the connection broke"):
                    await pool.connect("remote")
                assert pool.connected == ()


async def test_mtls_a_key_that_is_not_pem_is_a_clear_error_that_quotes_nothing(tmp_path: Path) -> None:
    from toolpool import UsageError

    pki = _pki(tmp_path)
    secrets = {"client_cert": pki.client_cert, "client_key": "not-a-key-but-a-secret-9876"}
    cert = {"tls_client_cert": {"secret": "client_cert"}, "tls_client_key": {"secret": "client_key"}}
    with anyio.fail_after(TIMEOUT):
        async with _mtls_server(pki) as port:
            config = write_config(tmp_path, _remote(port, pki, **cert))
            async with Pool(config, store=False, secrets=secrets, resolver=resolving()) as pool:
                with pytest.raises(UsageError, match="not a PEM certificate") as caught:
                    await pool.connect("remote")
    assert "9876" not in str(caught.value) and caught.value.__cause__ is None


async def test_mtls_certificates_per_principal_connect_each_principal_with_its_own(tmp_path: Path) -> None:
    pki = _pki(tmp_path)
    key = SecretKey.generate()
    per = {"per_principal": True}
    cert = {
        "tls_client_cert": {"secret": "client_cert", **per},
        "tls_client_key": {"secret": "client_key", **per},
    }
    with anyio.fail_after(TIMEOUT):
        async with _mtls_server(pki) as port:
            config = write_config(
                tmp_path, _remote(port, pki, **cert), pool={"store": f"sqlite:///{tmp_path / 'tp.db'}"}
            )
            with Store.open(config.store_url, key=key) as store:
                for principal in ("", "ana"):
                    store.secrets.set_secret("client_cert", pki.client_cert, "tests", principal=principal)
                    store.secrets.set_secret("client_key", pki.client_key, "tests", principal=principal)
            async with Pool(config, secret_key=key, resolver=resolving()) as pool:
                await pool.connect("remote")
                ana = await pool.session("ana", Ticket.allow("*", principal="ana")).call(
                    pool.snapshot(), ECHO
                )
                bob = await pool.session("bob", Ticket.allow("*", principal="bob")).call(
                    pool.snapshot(), ECHO
                )
    assert (ana.code, ana.text) == ("ok", "pinned")
    assert bob.code == "credential_missing" and "client_cert --principal bob" in bob.text


# -- require_tls ------------------------------------------------------------------------------


def _plain(url: str, **fields: Any) -> str:
    return server_table("remote", TOOLS, transport="http", url=url, require_tls=True, **fields)


@pytest.mark.parametrize(
    ("url", "private"),
    [
        ("http://tools.example.com/mcp", True),  # not loopback
        ("http://10.0.0.7/mcp", True),  # private, still not loopback
        ("http://127.0.0.1:8000/mcp", False),  # loopback, but the alias does not allow it
    ],
)
def test_require_tls_refuses_plain_http_in_the_config(tmp_path: Path, url: str, private: bool) -> None:
    with pytest.raises(ConfigError, match="require_tls refuses http://"):
        write_config(tmp_path, _plain(url, allow_private_network=private))


def test_require_tls_as_the_pool_default_refuses_plain_http_and_a_server_may_opt_out(tmp_path: Path) -> None:
    table = server_table("remote", TOOLS, transport="http", url="http://tools.example.com/mcp")
    with pytest.raises(ConfigError, match="require_tls"):
        write_config(tmp_path, table, pool={"require_tls": True})
    opted_out = table.replace('transport = "http"', 'transport = "http"\nrequire_tls = false')
    assert not write_config(tmp_path, opted_out, pool={"require_tls": True}).requires_tls("remote")


def test_require_tls_keeps_plain_http_to_loopback_that_allows_private_network(tmp_path: Path) -> None:
    config = write_config(tmp_path, _plain("http://127.0.0.1:8000/mcp", allow_private_network=True))
    assert config.requires_tls("remote")


async def test_require_tls_refuses_at_connect_a_loopback_name_that_resolves_elsewhere(tmp_path: Path) -> None:
    # The config sees `localhost` (loopback) and lets it through; the address it resolves to
    # is a private one, and plain http there is refused before any connection is made.
    config = write_config(tmp_path, _plain("http://localhost:9/mcp", allow_private_network=True))
    resolver = StubResolver({"localhost": [[ipaddress.ip_address("10.0.0.7")]]})
    async with Pool(config, store=False, resolver=resolver) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(AddressBlocked, match="require_tls refuses http://"):
            await pool.connect("remote")


async def test_require_tls_refuses_plain_http_at_the_session_even_past_the_config(tmp_path: Path) -> None:
    target = HttpTarget(
        "http",
        f"http://{HOST}:9/mcp",
        {},
        allow_private_network=True,
        resolver=resolving("10.0.0.7"),
        require_tls=True,
    )
    with anyio.fail_after(TIMEOUT), pytest.raises(AddressBlocked, match="require_tls"):
        async with open_session("remote", target, None, 5):
            pass
