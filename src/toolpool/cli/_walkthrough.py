"""`toolpool demo`: the whole story on the demo servers, driven by a scripted Lead.

A real pool with real subprocess servers, the agent loop and a ``ScriptedModel``: connecting
two servers that both publish ``lookup``, a call in the reply that connected its tool refused
and the next request succeeding, a poisoned server's tools dropped with their reasons, a
hostile error withheld, a hang timing out and its server revoked, a disconnect leaving the
other server working, a Subagent that sees no MCP tools, and the audit trail at the end.

Each expected outcome is a ``DemoStep``; the demo fails if any step did not come out as
expected, or never happened at all. The script itself is ``_story``. Both are clients of the
pool, so they live here beside the command that runs them (``_run``); ``toolpool.demo`` holds
the servers only.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from toolpool.agent import CallEntry, Entry, Lead, RequestEntry, Subagent
from toolpool.agent.models import ScriptedModel
from toolpool.cli._story import EXPECTED_CALLS, LEAD_SCRIPT, LEAD_TICKET, PROMPT, SUBAGENT_SCRIPT
from toolpool.config import Config, load_config
from toolpool.demo._faulty import HOSTILE_ERROR_TEXT
from toolpool.events import PoolEvent
from toolpool.pool import Pool

__all__ = ["DemoReport", "DemoStep", "demo_config_path", "requests_summary", "walkthrough"]

_POISONED = ("format_text", "weather")


@dataclass(frozen=True, slots=True)
class DemoStep:
    """What one step did, what it should show, and what actually came back."""

    title: str
    expected: str
    code: str
    text: str
    why: str = ""  # for the operator only: the rules a refused connection broke (never the model's)

    @property
    def as_expected(self) -> bool:
        return self.code == self.expected


@dataclass(frozen=True, slots=True)
class DemoReport:
    """Every step, the run's transcript and the audit trail it left."""

    steps: tuple[DemoStep, ...]
    transcript: list[dict[str, Any]]
    audit: list[dict[str, Any]]
    answer: str

    @property
    def as_expected(self) -> bool:
        return all(step.as_expected for step in self.steps)


def demo_config_path() -> Path:
    """The demo configuration shipped with toolpool (also examples/toolpool.toml)."""
    return Path(str(resources.files("toolpool.demo").joinpath("toolpool.toml")))


async def walkthrough(
    on_step: Callable[[DemoStep], None] = lambda _: None,
    on_entry: Callable[[Entry], None] = lambda _: None,
) -> DemoReport:
    """Run the demo against real demo server processes; ``on_step`` and ``on_entry`` see each
    step and each transcript entry as it happens."""
    config = load_config(demo_config_path())
    with tempfile.TemporaryDirectory(prefix="toolpool-demo-") as folder:
        # The demo keeps its store (releases, audit, call records) in a folder of its own: the
        # demo config sits inside the installed package, which may not even be writable.
        store = f"sqlite:///{Path(folder) / 'toolpool.db'}"
        demo = config.model_copy(update={"pool": config.pool.model_copy(update={"store": store})})
        return await _run(demo, on_step, on_entry)


async def _run(
    config: Config, on_step: Callable[[DemoStep], None], on_entry: Callable[[Entry], None]
) -> DemoReport:
    steps: list[DemoStep] = []
    seen: set[str] = set()
    dropped: dict[str, str] = {}
    refused: list[str] = []  # the rules each refused connection broke, for the operator's eyes

    def step(found: DemoStep) -> None:
        steps.append(found)
        on_step(found)

    def entry(found: Entry) -> None:
        on_entry(found)
        if isinstance(found, CallEntry) and found.call_id in EXPECTED_CALLS:
            seen.add(found.call_id)
            expected = EXPECTED_CALLS[found.call_id]
            why = refused.pop(0) if found.code == "refused" and refused else ""
            step(DemoStep(expected.title, expected.code, found.code, _shown_text(found), why))

    def event(found: PoolEvent) -> None:
        if found.kind == "mcp.refused":
            reasons = found.detail.get("reasons", ())
            refused.append("; ".join(map(str, reasons)) if isinstance(reasons, (list, tuple)) else "")
        if found.kind == "mcp.desc_rejected":
            reasons = found.detail.get("reasons", ())
            text = "; ".join(str(reason) for reason in reasons) if isinstance(reasons, (list, tuple)) else ""
            dropped[str(found.detail.get("tool", ""))] = text

    subagent_model = ScriptedModel(SUBAGENT_SCRIPT, name="scripted-subagent")
    async with Pool(config, on_event=event) as pool:
        lead = Lead(
            pool,
            ScriptedModel(LEAD_SCRIPT, name="scripted-lead"),
            ticket=LEAD_TICKET,
            principal="demo-lead",
            helpers={"researcher": Subagent(subagent_model)},
            on_entry=entry,
        )
        run = await lead.run(PROMPT)
        store = pool.store
        assert store is not None  # the demo always has its store
        check = store.audit.verify_audit()
        audit = [
            {"id": e.id, "actor": e.actor, "action": e.action, "resource": e.resource, "detail": e.detail}
            for e in store.audit.audit_events()
        ]

    poisoned = ", ".join(f"{name}: {dropped[name]}" for name in sorted(dropped))
    step(
        DemoStep(
            "the screener dropped demo_poisoned's poisoned tools (R5)",
            "dropped " + ", ".join(_POISONED),
            "dropped " + ", ".join(sorted(dropped)),
            poisoned,
        )
    )
    helper_requests = run.transcript.requests("subagent:researcher")
    shown = sorted({name for request in helper_requests for name in request.tools})
    step(
        DemoStep(
            "the Subagent was shown no MCP or management tool (R16)",
            "no_tools",
            "no_tools" if helper_requests and not shown else "tools_shown",
            ", ".join(shown) or f"{len(helper_requests)} requests, an empty tool list each",
        )
    )
    withheld = [e for e in audit if e["action"] == "call" and HOSTILE_ERROR_TEXT in str(e["detail"])]
    leaked = [c for c in run.transcript.calls() if HOSTILE_ERROR_TEXT in c.text]
    step(
        DemoStep(
            "the hostile error text is in the audit log, never in a prompt",
            "withheld",
            "withheld" if withheld and not leaked else "leaked" if leaked else "missing",
            f"{len(withheld)} audit event(s) keep the server's words; 0 model messages do"
            if not leaked
            else "the model was shown the server's words",
        )
    )
    for call_id, expected in EXPECTED_CALLS.items():
        if call_id not in seen:
            step(DemoStep(expected.title, expected.code, "never_ran", "the call was never made"))
    step(
        DemoStep(
            "the audit trail: every call decision and management event, hash-chained",
            "verified",
            "verified" if check.ok else str(check.problem),
            f"{check.checked} events, chain intact" if check.ok else f"first bad row {check.first_bad_id}",
        )
    )
    return DemoReport(tuple(steps), run.transcript.to_list(), audit, run.answer)


def _shown_text(entry: CallEntry) -> str:
    return entry.text if len(entry.text) <= 300 else entry.text[:300] + "\u2026"


def requests_summary(entry: RequestEntry) -> str:
    """One line for a model request: who asked, the snapshot, what it was shown."""
    version = "no snapshot" if entry.snapshot_version is None else f"snapshot v{entry.snapshot_version}"
    return f"{entry.agent} request {entry.request} ({version}, {len(entry.tools)} tools, ~{entry.tool_tokens} tokens)"
