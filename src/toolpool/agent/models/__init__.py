"""Model adapters: each puts one provider behind the ``Model`` protocol of ``toolpool.agent``.

- ``OpenAIChatModel``: OpenAI Chat Completions, and OpenAI-compatible servers (vLLM,
  llama.cpp, Ollama) through ``base_url``.
- ``AnthropicModel``: Anthropic Messages.
- ``ScriptedModel``: replies written in advance (a list, or a JSON/YAML file), for the demo
  and tests; it records every request it was sent.

The SDK adapters never read the environment: the key and base URL are always explicit.
Their failures are ``toolpool.errors.ModelError``s whose ``str()`` is local text.

The two SDKs take seconds to import, so their adapters are imported on first use (PEP 562):
a demo or a test that only plays a script does not pay for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolpool.agent.models._scripted import ScriptedModel

if TYPE_CHECKING:
    from toolpool.agent.models._anthropic import AnthropicModel
    from toolpool.agent.models._openai import OpenAIChatModel

__all__ = ["AnthropicModel", "OpenAIChatModel", "ScriptedModel"]


def __getattr__(name: str) -> Any:
    if name == "AnthropicModel":
        from toolpool.agent.models._anthropic import AnthropicModel

        return AnthropicModel
    if name == "OpenAIChatModel":
        from toolpool.agent.models._openai import OpenAIChatModel

        return OpenAIChatModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
