"""The Lead's builtin tools: ``connect_mcp`` and ``disconnect_mcp`` (the management tools),
``delegate`` (when the Lead has helpers), ``search_tools`` (over the context budget) and
``await_approval`` (when a call may wait for a person's approval: ``toolpool.agent._awaiting``).

``connect_mcp`` and ``disconnect_mcp`` take an alias and nothing else (R1): their schema
lists the configured aliases and forbids any other key, so no model can hand the pool a
command, a URL or a header. Their answers are local text: a refusal says how many rules
failed, never the server's words; the reasons go to the pool's events and the audit log.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from toolpool.agent._awaiting import AWAIT_APPROVAL, AWAIT_SCHEMA, ApprovalWaiter, offers_approvals
from toolpool.agent._helpers import Helper
from toolpool.agent._loop import BuiltinSchema, Meter, Outcome, invalid_arguments, not_shown
from toolpool.agent._messages import ToolCall, ToolSpec
from toolpool.agent._transcript import Transcript
from toolpool.calls import Session
from toolpool.errors import ConnectionRefused, ModelError, PolicyRefusal, UpstreamError, UsageError
from toolpool.pool import Pool

__all__ = ["BUILTIN_NAMES", "Builtins"]

BUILTIN_NAMES = frozenset({"connect_mcp", "disconnect_mcp", "delegate", "search_tools", AWAIT_APPROVAL})


def _alias_schema(aliases: tuple[str, ...]) -> BuiltinSchema:
    return BuiltinSchema(
        {
            "type": "object",
            "properties": {"alias": {"type": "string", "enum": list(aliases)}},
            "required": ["alias"],
            "additionalProperties": False,
        }
    )


_SEARCH = BuiltinSchema(
    {
        "type": "object",
        "properties": {"query": {"type": "string", "minLength": 1, "maxLength": 500}},
        "required": ["query"],
        "additionalProperties": False,
    }
)


class Builtins:
    """The builtins of one Lead run, bound to its pool, session, helpers and transcript."""

    def __init__(
        self,
        pool: Pool,
        session: Session,
        helpers: Mapping[str, Helper],
        transcript: Transcript,
        meter: Meter | None = None,
    ) -> None:
        self._pool = pool
        self._session = session
        self._helpers = MappingProxyType(dict(helpers))
        self._transcript = transcript
        self._meter = meter
        aliases = tuple(sorted(pool.config.servers))
        alias_schema = _alias_schema(aliases)
        self._schemas: dict[str, BuiltinSchema] = {
            "connect_mcp": alias_schema,
            "disconnect_mcp": alias_schema,
            "search_tools": _SEARCH,
        }
        self._specs = [
            ToolSpec(
                "connect_mcp",
                "Connect an MCP server by its configured alias. Its tools can be called from the "
                "next request on.",
                alias_schema.schema,
            ),
            ToolSpec(
                "disconnect_mcp",
                "Disconnect an MCP server by its alias; its tools are gone at once.",
                alias_schema.schema,
            ),
        ]
        if self._helpers:
            delegate = BuiltinSchema(
                {
                    "type": "object",
                    "properties": {
                        "role": {"type": "string", "enum": sorted(self._helpers)},
                        "prompt": {"type": "string", "minLength": 1, "maxLength": 20_000},
                    },
                    "required": ["role", "prompt"],
                    "additionalProperties": False,
                }
            )
            self._schemas["delegate"] = delegate
            roles = ", ".join(f"{name} ({helper.role})" for name, helper in sorted(self._helpers.items()))
            self._specs.append(
                ToolSpec(
                    "delegate",
                    f"Give a task to a helper and get its answer. Helpers: {roles}.",
                    delegate.schema,
                )
            )
        self._waiter: ApprovalWaiter | None = None
        if pool.store is not None and offers_approvals(pool.config, session.ticket, pool.store):
            self._waiter = ApprovalWaiter(pool.store, session)
            self._schemas[AWAIT_APPROVAL] = AWAIT_SCHEMA
            self._specs.append(
                ToolSpec(
                    AWAIT_APPROVAL,
                    "Wait (up to timeout_s seconds, at most 300) for a person to decide a call that "
                    "came back approval_pending, by its approval_id; once approved, make the same "
                    "call again with the same arguments.",
                    AWAIT_SCHEMA.schema,
                )
            )

    def specs(self, *, search: bool) -> tuple[ToolSpec, ...]:
        if not search:
            return tuple(self._specs)
        finder = ToolSpec(
            "search_tools",
            "Find MCP tools by what they do; the tools found are shown from the next request on.",
            _SEARCH.schema,
        )
        return (*self._specs, finder)

    def problem(self, call: ToolCall) -> str | None:
        return self._schemas[call.name].problem(call.arguments)

    async def run(self, call: ToolCall) -> Outcome:
        if call.name not in self._schemas:
            return not_shown(call.name)
        problem = self.problem(call)
        if problem is not None:
            return invalid_arguments(call.name, problem)
        assert call.arguments is not None
        if call.name == "connect_mcp":
            return await self._connect(str(call.arguments["alias"]))
        if call.name == "disconnect_mcp":
            return await self._disconnect(str(call.arguments["alias"]))
        if call.name == AWAIT_APPROVAL and self._waiter is not None:
            approval_id, timeout_s = str(call.arguments["approval_id"]), call.arguments.get("timeout_s")
            if timeout_s is None:
                return await self._waiter.wait(approval_id)
            return await self._waiter.wait(approval_id, float(timeout_s))
        return await self._delegate(str(call.arguments["role"]), str(call.arguments["prompt"]))

    async def _connect(self, alias: str) -> Outcome:
        try:
            await self._pool.connect(alias)
        except ConnectionRefused as refused:
            count = len(refused.reasons)
            return Outcome(
                f"{alias} was refused: {count} admission rule(s) failed (the operator's log says which)",
                "refused",
            )
        except PolicyRefusal:
            return Outcome(f"{alias} was refused by local policy", "refused")
        except UpstreamError:
            return Outcome(f"{alias} could not be connected: its server did not start or answer", "failed")
        except UsageError:
            return Outcome(
                f"{alias} cannot be connected here (its configuration needs the operator)", "failed"
            )
        names = [tool.name for tool in self._session.snapshot() if tool.alias == alias]
        listed = ", ".join(names) if names else "none for this ticket"
        return Outcome(
            f"connected {alias}; its tools ({listed}) can be called from the next request on", "ok"
        )

    async def _disconnect(self, alias: str) -> Outcome:
        await self._pool.disconnect(alias)
        return Outcome(f"disconnected {alias}; its tools are gone from now on", "ok")

    async def _delegate(self, role: str, prompt: str) -> Outcome:
        helper = self._helpers[role]
        try:
            run = await helper.run(
                prompt,
                name=role,
                transcript=self._transcript,
                meter=self._meter,
                telemetry=self._pool.telemetry,
            )
        except ModelError:
            return Outcome(f"{role} could not answer: its model failed", "failed")
        if not run.completed:
            return Outcome(f"{role} did not finish within its turn limit", "failed")
        # A helper's answer came from a model that read the Lead's prompt, which may quote
        # untrusted results: it must not carry that text into a write tool's arguments (gate 6).
        self._session.record_untrusted(run.answer)
        return Outcome(run.answer, "ok")
