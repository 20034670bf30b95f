"""R14, the pinned client itself: TLS keeps the host name, and no request leaves the pinned host."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx2
import pytest
from anyio.streams.tls import TLSListener, TLSStream
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.upstream.ssrf_helpers import ELSEWHERE, HOST, LOOPBACK, port_of, redirecting, serve, witness
from toolpool.errors import AddressBlocked
from toolpool.upstream.pinned import AddressGuard
from toolpool.upstream.ssrf import PinnedOrigin

pytestmark = pytest.mark.anyio

TIMEOUT = 20


@dataclass
class TlsServer:
    port: int
    server_names: list[str | None] = field(default_factory=list)  # SNI of each handshake
    requests: list[bytes] = field(default_factory=list)


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _certificates(folder: Path, san: x509.GeneralName) -> tuple[str, Path, Path]:
    """A fresh CA (PEM text) and a leaf certificate and key for ``san``, signed by it."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, leaf_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("toolpool test CA"))
        .issuer_name(_name("toolpool test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    leaf = (
        x509.CertificateBuilder()
        .subject_name(_name("toolpool test server"))
        .issuer_name(ca.subject)
        .public_key(leaf_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([san]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    cert_file, key_file = folder / "leaf.pem", folder / "leaf.key"
    cert_file.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        leaf_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return ca.public_bytes(serialization.Encoding.PEM).decode(), cert_file, key_file


@asynccontextmanager
async def tls_server(cert_file: Path, key_file: Path) -> AsyncIterator[TlsServer]:
    """A minimal HTTPS server on 127.0.0.1 that records SNI and each request head, answers 200."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    server = TlsServer(port_of(listener))

    def record_sni(_socket: ssl.SSLObject, name: str | None, _context: ssl.SSLContext) -> None:
        server.server_names.append(name)

    context.sni_callback = record_sni

    async def answer(stream: TLSStream) -> None:
        async with stream:
            head = b""
            while b"\r\n\r\n" not in head:
                head += await stream.receive()
            server.requests.append(head)
            await stream.send(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")

    tls = TLSListener(listener, context, standard_compatible=False)
    async with tls, anyio.create_task_group() as tasks:
        tasks.start_soon(tls.serve, answer)
        yield server
        tasks.cancel_scope.cancel()


def _guard(scheme: str, port: int, ca: str | None = None) -> AddressGuard:
    context = ssl.create_default_context(cadata=ca) if ca is not None else None
    return AddressGuard("remote", PinnedOrigin(scheme, HOST, port, LOOPBACK), ssl_context=context)


async def test_r14_tls_sends_the_host_name_as_sni_and_checks_the_certificate_against_it(
    tmp_path: Path,
) -> None:
    ca, cert, key = _certificates(tmp_path, x509.DNSName(HOST))
    with anyio.fail_after(TIMEOUT):
        async with tls_server(cert, key) as server:
            guard = _guard("https", server.port, ca)
            async with guard.client() as client:
                response = await client.get(f"https://{HOST}:{server.port}/mcp")
    assert (response.status_code, response.text) == (200, "ok")
    assert server.server_names == [HOST]
    assert f"\r\nhost: {HOST}:{server.port}\r\n".encode() in server.requests[0].lower()


async def test_r14_a_certificate_for_the_pinned_ip_but_not_the_host_name_is_rejected(tmp_path: Path) -> None:
    ca, cert, key = _certificates(tmp_path, x509.IPAddress(ipaddress.ip_address("127.0.0.1")))
    with anyio.fail_after(TIMEOUT):
        async with tls_server(cert, key) as server, _guard("https", server.port, ca).client() as client:
            with pytest.raises(httpx2.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await client.get(f"https://{HOST}:{server.port}/mcp")
    assert server.requests == []


async def test_r14_the_pinned_client_refuses_another_host_even_when_asked_to_follow_a_redirect() -> None:
    with anyio.fail_after(TIMEOUT):
        async with witness() as other, serve(redirecting(f"http://{ELSEWHERE}:{other.port}/")) as served:
            guard = _guard("http", served.port)
            async with guard.client() as client:
                with pytest.raises(AddressBlocked, match="tried to leave the server's host"):
                    await client.get(f"http://{HOST}:{served.port}/mcp", follow_redirects=True)
            await other.assert_untouched()
    assert guard.refusal is not None
    assert served.hosts == [f"{HOST}:{served.port}"]


async def test_r14_the_pinned_client_never_follows_redirects_by_itself_and_ignores_proxy_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("ALL_PROXY", "http://proxy.invalid:3128")
    with anyio.fail_after(TIMEOUT):
        async with serve(redirecting("/elsewhere")) as served, _guard("http", served.port).client() as client:
            response = await client.get(f"http://{HOST}:{served.port}/mcp")
    assert response.status_code == 307
    assert served.hosts == [f"{HOST}:{served.port}"]
