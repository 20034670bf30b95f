"""Adapters for agent frameworks, each an optional extra that keeps toolpool's rules: one
snapshot per model request, every call through a session's gates, refusals as tool results
that start with their code.

- ``toolpool.integrations.openai_agents`` (``toolpool[openai-agents]``): the OpenAI Agents SDK
- ``toolpool.integrations.pydantic_ai`` (``toolpool[pydantic-ai]``): a pydantic-ai toolset
- ``toolpool.integrations.langchain`` (``toolpool[langchain]``): LangChain tools, a LangGraph agent

Importing one without its extra raises ``MissingExtra`` (an ``ImportError``) naming the extra.
"""

__all__ = ["EXTRAS"]

# module -> the extra that installs its framework
EXTRAS = {
    "toolpool.integrations.openai_agents": "openai-agents",
    "toolpool.integrations.pydantic_ai": "pydantic-ai",
    "toolpool.integrations.langchain": "langchain",
}
