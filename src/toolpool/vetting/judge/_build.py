"""The judge's model, as ``[pool] screen_judge`` names it, built on its first request.

Building late means a pool whose judge is never asked (every verdict cached, or no tool
passed the rules) never imports a provider's SDK, and an api key set in the store after the
pool opened is found; a key that is still missing fails that request (``ModelUnavailable``),
so the rules' verdict stands and the pool says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from toolpool.agent._messages import Model, ModelReply, ModelRequest
from toolpool.config import PoolSettings
from toolpool.errors import ModelUnavailable, UsageError

__all__ = ["judge_model"]

# An OpenAI-compatible local server needs no key, but the adapter wants some text.
_NO_KEY: Final = "unused"
# The judge's own timeout bounds every request whatever the SDK does; one retry covers a
# dropped connection or a 429 without multiplying the cost of a failing provider.
_RETRIES: Final = 1


def judge_model(settings: PoolSettings, secret: Callable[[str], str | None]) -> Model:
    """The model ``settings.screen_judge`` names; ``secret`` gives a secret's value by name.

    Raises:
        UsageError: ``screen_judge`` is not set.
    """
    if settings.screen_judge is None:
        raise UsageError("no screen_judge is configured")
    return _LateModel(settings, secret)


class _LateModel:
    """A ``Model`` that builds its provider adapter on the first request that needs it."""

    def __init__(self, settings: PoolSettings, secret: Callable[[str], str | None]) -> None:
        assert settings.screen_judge is not None
        self._spec = settings.screen_judge
        self._settings = settings
        self._secret = secret
        self._built: Model | None = None

    @property
    def name(self) -> str:
        return self._spec

    async def complete(self, request: ModelRequest) -> ModelReply:
        if self._built is None:
            self._built = self._build()
        return await self._built.complete(request)

    async def aclose(self) -> None:
        if self._built is not None:
            await self._built.aclose()

    def _build(self) -> Model:
        provider, _, model = self._spec.partition(":")
        key = _NO_KEY
        ref = self._settings.screen_judge_api_key
        if ref is not None:
            found = self._secret(ref.secret)
            if not found:
                raise ModelUnavailable(self._spec, f"its api key (secret {ref.secret!r}) is not set")
            key = found
        timeout = self._settings.screen_judge_timeout_s
        base_url = self._settings.screen_judge_base_url
        if provider == "anthropic":
            from toolpool.agent.models import AnthropicModel

            return AnthropicModel(
                model, api_key=key, base_url=base_url, timeout_s=timeout, max_retries=_RETRIES
            )
        from toolpool.agent.models import OpenAIChatModel

        return OpenAIChatModel(model, api_key=key, base_url=base_url, timeout_s=timeout, max_retries=_RETRIES)
