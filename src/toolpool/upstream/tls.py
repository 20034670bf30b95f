"""TLS for remote servers: the client side of mutual TLS, and the CA a server is checked against.

The client certificate and key are secrets (PEM text, ``tls_client_cert`` / ``tls_client_key``)
and live in memory. ``ssl.SSLContext.load_cert_chain`` reads only files, so they are written to
a fresh private folder (0700, files 0600, opened exclusively) for the one call that loads them,
and the folder is removed before this returns, whatever happened: nothing of them stays on disk.
"""

from __future__ import annotations

import os
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

import httpx2

from toolpool.errors import UsageError

__all__ = ["ClientTls", "ssl_context"]


@dataclass(frozen=True, slots=True)
class ClientTls:
    """What a session presents and trusts: a client certificate and key (PEM text, both or
    neither) and a CA bundle file trusted instead of the system's (or None)."""

    cert_pem: str | None = None
    key_pem: str | None = None
    ca_file: Path | None = None

    def __repr__(self) -> str:  # the key is a secret: never in a traceback or a log line
        return f"ClientTls(cert={self.cert_pem is not None}, ca_file={self.ca_file})"


def ssl_context(alias: str, tls: ClientTls) -> ssl.SSLContext:
    """The context a session's HTTPS connections use.

    Raises:
        UsageError: the CA bundle cannot be read, or the certificate and key are not a PEM
            certificate and its private key (the secrets' text is never quoted).
    """
    try:
        if tls.ca_file is None:
            context = httpx2.create_ssl_context(trust_env=False)
        else:
            context = ssl.create_default_context(cafile=str(tls.ca_file))
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"server {alias!r}: cannot load the CA bundle {tls.ca_file} (tls_ca)") from exc
    if tls.cert_pem is not None and tls.key_pem is not None:
        _load_client_pair(alias, context, tls.cert_pem, tls.key_pem)
    return context


def _load_client_pair(alias: str, context: ssl.SSLContext, cert_pem: str, key_pem: str) -> None:
    with tempfile.TemporaryDirectory(prefix="toolpool-tls-") as folder:
        cert_file, key_file = Path(folder, "client.pem"), Path(folder, "client.key")
        _write_private(cert_file, cert_pem)
        _write_private(key_file, key_pem)
        try:
            # An encrypted key gets an empty password, never OpenSSL's prompt on a terminal.
            context.load_cert_chain(cert_file, key_file, password=_no_password)
        except (OSError, ssl.SSLError, ValueError):
            # No chaining: the ssl module's message may quote what it could not parse.
            raise UsageError(
                f"server {alias!r}: tls_client_cert and tls_client_key are not a PEM certificate "
                "and its unencrypted private key"
            ) from None


def _no_password() -> bytes:
    return b""


def _write_private(path: Path, text: str) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)
