"""Targets: how to reach an alias's server — the stdio launch or the HTTP target — with its
secrets resolved at the moment of connecting (never earlier, never kept in the config).

A ``per_principal`` secret resolves for the calling principal, or, for admission, for the
server's ``admit_as`` principal (else its pool-wide value); every value resolved is registered
with the one ``Redactor`` so that it never leaves in text.
"""

from __future__ import annotations

from collections.abc import Callable

from toolpool.config import Config, SecretRef, ServerSpec
from toolpool.errors import CredentialMissing, MissingSecret
from toolpool.redaction import Redactor
from toolpool.upstream import Bwrap, ClientTls, HttpTarget, Limits, Resolver, StdioLaunch

__all__ = ["Targets"]


class Targets:
    """Builds targets for one pool's configuration; ``secret(name, principal)`` gives a
    secret's value (principal ``""`` for the pool-wide one) or None."""

    def __init__(
        self, config: Config, secret: Callable[[str, str], str | None], resolver: Resolver, redactor: Redactor
    ) -> None:
        self._config = config
        self._secret = secret
        self._resolver = resolver
        self._redactor = redactor

    def of(self, spec: ServerSpec, principal: str | None = None) -> StdioLaunch | HttpTarget:
        """How to reach ``spec``'s server, its secrets resolved now: a ``per_principal``
        secret for ``principal``, or without one for admission (``admit_as``, else pool-wide).

        Raises:
            MissingSecret: a secret has no value (CredentialMissing: none of ``principal``'s).
        """

        def resolve(value: str | SecretRef) -> str:
            return self._resolve(spec, value, principal)

        if spec.transport == "stdio":
            assert spec.command is not None
            sandbox = None
            if spec.sandbox == "bwrap":
                sandbox = Bwrap(allow_network=spec.allow_network, read_only=spec.sandbox_read_only)
            return StdioLaunch(
                command=spec.command,
                args=spec.args,
                env={key: resolve(value) for key, value in spec.env.items()},
                cwd=spec.cwd,
                limits=Limits(spec.max_memory_mb, spec.max_cpu_s, spec.max_open_files),
                sandbox=sandbox,
            )
        assert spec.url is not None
        tls = None
        if spec.tls_client_cert is not None and spec.tls_client_key is not None:
            tls = ClientTls(resolve(spec.tls_client_cert), resolve(spec.tls_client_key), spec.tls_ca)
        elif spec.tls_ca is not None:
            tls = ClientTls(ca_file=spec.tls_ca)
        return HttpTarget(
            kind=spec.transport,
            url=spec.url,
            headers={key: resolve(value) for key, value in spec.headers.items()},
            allow_private_network=spec.allow_private_network,
            resolver=self._resolver,
            require_tls=self._config.requires_tls(spec.alias),
            tls=tls,
        )

    def _resolve(self, spec: ServerSpec, value: str | SecretRef, principal: str | None) -> str:
        if isinstance(value, str):
            return value
        if not value.per_principal:
            secret = self._secret(value.secret, "")
        elif principal is None:
            secret = self._secret(value.secret, spec.admit_as or "")
        else:
            secret = self._secret(value.secret, principal)
            if secret is None:
                raise CredentialMissing(spec.alias, value.secret, principal)
        if secret is None:
            raise MissingSecret(spec.alias, value.secret)
        self._redactor.register(value.secret, secret)
        return secret
